// `evalkit doctor`: which interpreter evalkit would run, why, what was rejected on the way, and what the kernel's env hides.
import { isEvalkitError } from "../errors.js";
import { findSubreaperPython } from "../kernel/js/subreaper-parent.js";
import type { JupyterSettings } from "../kernel/jupyter/jupyter-rest.js";
import { buildKernelEnv } from "../runtime/child-env.js";
import { isSecretName } from "../runtime/env-filter.js";
import type { PythonCandidateReport, PythonReport, ResolvedPython } from "../runtime/python-types.js";
import { describeCandidates } from "../runtime/resolve-python.js";
import { describeSandboxLayers, type SandboxLayer } from "../runtime/sandbox-layers.js";
import { probeSandbox, type SandboxProbe } from "../runtime/sandbox-probe.js";
import { describeJupyterServer, formatJupyterReport } from "./doctor-jupyter.js";

/** Where a command writes; the CLI passes process streams, tests collect strings. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Arguments of `evalkit doctor`. */
export interface DoctorArgs {
  python?: string;
  cwd?: string;
  json?: boolean;
  /** Also report on this Jupyter server (its languages). */
  jupyter?: JupyterSettings;
}

interface KernelEnvSummary {
  /** Names of variables the kernel receives. */
  passed: string[];
  /** Names of secret-looking variables in the parent environment that the kernel does not receive. */
  withheldSecrets: string[];
}

function summarizeKernelEnv(chosen: ResolvedPython | undefined, env: NodeJS.ProcessEnv): KernelEnvSummary {
  const kernelEnv = buildKernelEnv(chosen ?? { envAdditions: { pathPrepend: [], set: {}, unset: [] } }, env);
  const withheldSecrets = Object.keys(env)
    .filter((name) => env[name] !== undefined && isSecretName(name) && !(name in kernelEnv))
    .sort();
  return { passed: Object.keys(kernelEnv).sort(), withheldSecrets };
}

const STATUS_LABEL: Record<PythonCandidateReport["status"], string> = {
  chosen: "chosen  ",
  usable: "usable  ",
  rejected: "rejected",
  absent: "absent  ",
};

function formatCandidate(line: PythonCandidateReport): string {
  const source = line.source.padEnd(12);
  if (line.status === "absent") return `  ${STATUS_LABEL.absent}  ${source}  ${line.reason}`;
  if (line.status === "rejected") return `  ${STATUS_LABEL.rejected}  ${source}  ${line.reason}`;
  const version = line.version ? ` (Python ${line.version})` : "";
  const target = line.executable && line.executable !== line.candidate ? ` -> ${line.executable}` : "";
  return `  ${STATUS_LABEL[line.status]}  ${source}  ${line.candidate}${target}${version}`;
}

/** Renders the doctor report as the text a person reads. */
export function formatDoctorReport(
  report: PythonReport,
  envSummary: KernelEnvSummary,
  sandbox?: SandboxProbe,
  subreaperPython?: string | null,
  layers: SandboxLayer[] = [],
): string {
  const lines: string[] = [];
  const chosen = report.chosen;
  if (chosen) {
    const version = chosen.checked
      ? `${chosen.version} (${chosen.implementation})`
      : `${chosen.version} (not checked: EVALKIT_PYTHON_SKIP_CHECK)`;
    lines.push("Python interpreter");
    lines.push(`  executable  ${chosen.executable}`);
    lines.push(`  version     ${version}`);
    lines.push(`  source      ${chosen.source}`);
    lines.push(`  why         ${chosen.reason}`);
    lines.push(`  venv        ${chosen.venv ?? "(none)"}`);
    if (chosen.envAdditions.pathPrepend.length > 0) {
      lines.push(`  kernel PATH starts with ${chosen.envAdditions.pathPrepend.join(", ")}`);
    }
  } else {
    lines.push("No usable Python interpreter");
    lines.push(`  ${report.error?.message.split("\n")[0] ?? "nothing was found"}`);
  }
  lines.push("");
  lines.push("Search, in order");
  for (const line of report.candidates) lines.push(formatCandidate(line));
  lines.push("");
  lines.push("Kernel environment");
  lines.push(`  ${envSummary.passed.length} variables passed (allowlist; see docs/runtime.md)`);
  const withheld = envSummary.withheldSecrets;
  lines.push(`  secrets withheld: ${withheld.length > 0 ? withheld.join(", ") : "(none set)"}`);
  if (sandbox) {
    lines.push("");
    lines.push("Sandbox (--sandbox, EVALKIT_SANDBOX=1)");
    lines.push(
      sandbox.ok ? `  available: ${sandbox.bwrap} works here` : `  not available: ${sandbox.reason}`,
    );
    // Which layers a sandboxed kernel gets on this machine (docs/security.md says what each is for).
    for (const layer of layers) lines.push(`  ${layer.name.padEnd(16)} ${layer.state}`);
  }
  if (subreaperPython !== undefined) {
    lines.push("");
    lines.push("JavaScript kernels");
    lines.push(
      subreaperPython !== null
        ? `  subreaper parent  ${subreaperPython} (daemons a cell double-forks end with the kernel)`
        : "  subreaper parent  none (Linux with a python3 3.8+ needed): a daemon a cell double-forks and makes non-dumpable can outlive the kernel unless it runs sandboxed or the host is root (docs/javascript.md)",
    );
  }
  if (!chosen) {
    lines.push("");
    lines.push(
      "Fix: install Python 3.8+, run `evalkit setup python`, or name one with --python / EVALKIT_PYTHON.",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Runs `evalkit doctor`; returns the exit code: 0 when an interpreter works, 1 when none does, 2 on bad input. */
export async function runDoctor(
  args: DoctorArgs,
  io: CommandIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let report: PythonReport;
  try {
    const options: Parameters<typeof describeCandidates>[0] = { env };
    if (args.python !== undefined) options.python = args.python;
    if (args.cwd !== undefined) options.cwd = args.cwd;
    report = await describeCandidates(options);
  } catch (err) {
    if (isEvalkitError(err)) {
      io.stderr(`evalkit doctor: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const envSummary = summarizeKernelEnv(report.chosen, env);
  const probe = await probeSandbox(env);
  const subreaperPython = findSubreaperPython(env);
  const jupyter = args.jupyter !== undefined ? await describeJupyterServer(args.jupyter) : undefined;
  const layers = probe.ok ? describeSandboxLayers() : [];
  if (args.json) {
    const sandbox = probe.ok
      ? { available: true, bwrap: probe.bwrap, layers }
      : { available: false, reason: probe.reason };
    io.stdout(
      `${JSON.stringify({ ok: report.chosen !== undefined, ...report, kernelEnv: envSummary, sandbox, jsKernel: { subreaperPython }, ...(jupyter ? { jupyter } : {}) })}\n`,
    );
  } else {
    io.stdout(formatDoctorReport(report, envSummary, probe, subreaperPython, layers));
    if (jupyter) io.stdout(`\n${formatJupyterReport(jupyter)}`);
  }
  // With a server, cells run there: the server decides; a missing local Python does not matter.
  if (jupyter) return jupyter.ok ? 0 : 1;
  return report.chosen ? 0 : 1;
}
