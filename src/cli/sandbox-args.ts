// The sandbox and resource-limit flags shared by `exec`, `repl` and `mcp`: their parseArgs entries, usage and reading.
import type { ResourceLimits, SandboxSetting } from "../runtime/sandbox-types.js";
import type { CheckpointOptions } from "../session/checkpoint-book.js";
import { readNumberOption, UsageError } from "./args.js";

/** parseArgs entries; spread into each command's options. */
export const SANDBOX_OPTIONS = {
  sandbox: { type: "boolean" },
  "sandbox-network": { type: "boolean" },
  "sandbox-write": { type: "string", multiple: true },
  "memory-mb": { type: "string" },
  "cpu-seconds": { type: "string" },
  "max-processes": { type: "string" },
  checkpoints: { type: "boolean" },
  undo: { type: "string" },
} as const;

const USAGE_LINES: [string, string][] = [
  ["--sandbox", "run the kernels in a bubblewrap sandbox (docs/sandbox.md; also EVALKIT_SANDBOX=1)"],
  ["--sandbox-network", "keep the network inside the sandbox (implies --sandbox)"],
  ["--sandbox-write PATH", "another path the cells may write (repeatable; implies --sandbox)"],
  ["--memory-mb N", "memory limit of each kernel process, in MB"],
  ["--cpu-seconds N", "CPU time limit of each kernel process, in seconds"],
  ["--max-processes N", "at most N more processes than the user runs (not enforced for root)"],
  ["--checkpoints", "Python checkpoints, restore and one undo level (docs/checkpoints.md)"],
  ["--undo N", "keep N automatic undo checkpoints (implies --checkpoints; 0: named ones only)"],
];

/** Usage lines with descriptions starting at `column` (to line up with each command's other options). */
export function sandboxUsage(column: number): string {
  return USAGE_LINES.map(([flag, text]) => `${`  ${flag}`.padEnd(column - 1)} ${text}\n`).join("");
}

/** Usage lines for `exec` and `mcp`. */
export const SANDBOX_USAGE = sandboxUsage(23);

type SandboxValues = {
  sandbox?: boolean | undefined;
  "sandbox-network"?: boolean | undefined;
  "sandbox-write"?: string[] | undefined;
  "memory-mb"?: string | undefined;
  "cpu-seconds"?: string | undefined;
  "max-processes"?: string | undefined;
  checkpoints?: boolean | undefined;
  undo?: string | undefined;
};

/** The `sandbox` and `limits` options the flags ask for (absent when no flag was given). */
export function readSandboxArgs(values: SandboxValues): {
  sandbox?: SandboxSetting;
  limits?: ResourceLimits;
  checkpoints?: CheckpointOptions;
} {
  const result: { sandbox?: SandboxSetting; limits?: ResourceLimits; checkpoints?: CheckpointOptions } = {};
  const undo = readNumberOption("--undo", values.undo, { integer: true });
  if (undo !== undefined && undo < 0) throw new UsageError("--undo: expected 0 or a positive integer");
  if (values.checkpoints === true || undo !== undefined) result.checkpoints = { undo: undo ?? 1 };
  const network = values["sandbox-network"] === true;
  const writable = values["sandbox-write"] ?? [];
  if (values.sandbox === true || network || writable.length > 0) {
    result.sandbox = network || writable.length > 0 ? { network, writable } : true;
  }
  const limits: ResourceLimits = {};
  const memoryMb = readPositiveInt("--memory-mb", values["memory-mb"]);
  const cpuSeconds = readPositiveInt("--cpu-seconds", values["cpu-seconds"]);
  const processes = readPositiveInt("--max-processes", values["max-processes"]);
  if (memoryMb !== undefined) limits.memoryMb = memoryMb;
  if (cpuSeconds !== undefined) limits.cpuSeconds = cpuSeconds;
  if (processes !== undefined) limits.processes = processes;
  if (Object.keys(limits).length > 0) result.limits = limits;
  return result;
}

function readPositiveInt(flag: string, value: string | undefined): number | undefined {
  const number = readNumberOption(flag, value, { integer: true });
  if (number !== undefined && number <= 0) throw new UsageError(`${flag}: expected a positive integer`);
  return number;
}
