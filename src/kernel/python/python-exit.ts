// Why a Python kernel ended or did not start, in words: a lost launcher connection, a resource limit, a failed spawn.
import { basename } from "node:path";
import { EvalkitError } from "../../errors.js";
import type { KernelCgroup } from "../../runtime/sandbox-cgroup.js";
import type { ResourceLimits } from "../../runtime/sandbox-types.js";
import { describeCgroupOom } from "../process/sandbox-exit.js";

/** ssh exits with 255 for its own failures (connection refused, dropped, auth): the far side is unreachable. */
export function describeLostConnection(
  launcher: string[] | undefined,
  exitCode: number | null,
): string | undefined {
  const program = launcher?.[0];
  if (program === undefined || exitCode !== 255 || basename(program) !== "ssh") return undefined;
  return "lost the connection through the launcher: ssh exited with code 255";
}

/** Why a death may have been a limit: the exit notice names the limit the kernel ran under. */
export function describeLimitDeath(
  limits: ResourceLimits | undefined,
  signal: NodeJS.Signals | null,
  cgroup?: KernelCgroup,
): string | undefined {
  if (!limits) return undefined;
  if (cgroup?.wasOomKilled()) return describeCgroupOom(cgroup);
  if (signal === "SIGXCPU" && limits.cpuSeconds) return `CPU time limit ${limits.cpuSeconds} s reached`;
  if (limits.memoryMb)
    return `possibly out of memory: the kernel ran under a memory limit ${limits.memoryMb} MB`;
  return undefined;
}

/** The error for a kernel process that could not be spawned at all. */
export function describeSpawnError(
  err: Error,
  command: string,
  launcher: string[] | undefined,
): EvalkitError {
  const isMissing = (err as NodeJS.ErrnoException).code === "ENOENT";
  if (isMissing && (launcher?.length ?? 0) > 0) {
    const message = `the launcher command ${command} was not found (--launcher / launcher option)`;
    return new EvalkitError("LAUNCHER_NOT_FOUND", message, { command }, err);
  }
  const code = isMissing ? "PYTHON_NOT_FOUND" : "KERNEL_START_FAILED";
  return new EvalkitError(code, `could not start ${command}: ${err.message}`, { command }, err);
}
