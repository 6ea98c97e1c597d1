// Shared helpers for the magics integration tests: run a cell and read its streams, results and status events.

import type { DisplayOutput, KernelOutput } from "../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../src/contracts/outputs.js";
import type { ExecuteOutcome, Kernel } from "../../src/kernel/kernel.js";

export interface CellRun {
  outcome: ExecuteOutcome;
  stdout: string;
  stderr: string;
  results: DisplayOutput[];
  displays: DisplayOutput[];
  statuses: Record<string, unknown>[];
  /** text/plain of the result, if any */
  result: string | undefined;
  /** Pager text (`obj?`, %pinfo, %psearch): displays marked `{evalkit: {pager: true}}`, joined by newlines. */
  pager: string;
}

/** True for the display IPython would have paged: `obj?` and friends. */
export function isPagerDisplay(output: DisplayOutput): boolean {
  const mark = output.metadata?.evalkit as { pager?: unknown } | undefined;
  return mark?.pager === true;
}

export function describeOutputs(outcome: ExecuteOutcome): CellRun {
  const outputs: KernelOutput[] = outcome.outputs;
  const text = (name: string) =>
    outputs.map((o) => (o.type === "stream" && o.name === name ? o.text : "")).join("");
  const results = outputs.filter((o): o is DisplayOutput => o.type === "result");
  const all = outputs.filter((o): o is DisplayOutput => o.type === "display");
  const statuses = all
    .filter((o) => STATUS_MIME in o.data)
    .map((o) => o.data[STATUS_MIME] as Record<string, unknown>);
  const displays = all.filter((o) => !(STATUS_MIME in o.data));
  const plain = results[0]?.data["text/plain"];
  const pager = displays
    .filter(isPagerDisplay)
    .map((d) => String(d.data["text/plain"] ?? ""))
    .join("\n");
  return {
    outcome,
    stdout: text("stdout"),
    stderr: text("stderr"),
    results,
    displays,
    statuses,
    result: typeof plain === "string" ? plain : undefined,
    pager,
  };
}

/** Runs a cell and fails loudly (with the traceback) unless it ends ok. */
export async function runOk(kernel: Kernel, code: string): Promise<CellRun> {
  const run = describeOutputs(await kernel.execute(code));
  if (run.outcome.status !== "ok") {
    const error = run.outcome.error;
    throw new Error(`cell failed: ${code}\n${error?.traceback.join("\n") ?? ""}\n${run.stderr}`);
  }
  return run;
}
