// One guard process per host (python/host_guard.py): ends every registered local kernel's tree when the host
// goes away, even a kernel stuck in C code that holds its GIL, and resumes a host a cell stopped.
import { type ChildProcess, spawn } from "node:child_process";
import { packagePath } from "./package-root.js";

/** The guard's program: standalone, run by the kernels' own CPython (3.8+, stdlib only). */
export const HOST_GUARD_SCRIPT = packagePath("python", "host_guard.py");

/** The word after the script in `ps`: says what the process is. */
const PS_LABEL = "evalkit-host-guard";

interface RunningGuard {
  child: ChildProcess;
  isAlive: boolean;
}

let guard: RunningGuard | undefined;
/** Every kernel registered and not yet ended: written again to a guard started after the previous one died. */
const kernels = new Map<number, string>();

/**
 * Starts the host's guard unless it runs (lazily, with the first local kernel); true when it runs. Started by
 * `python` (the kernel's interpreter) with `env` (the kernel's, already filtered), in a session of its own so
 * the group signals the host sends to kernels, and a terminal's Ctrl-C, never reach it; unref'd, so it never
 * keeps the host alive. Its stdin is the one pipe whose EOF tells it the host is gone.
 */
export function ensureHostGuard(python: string, env: Record<string, string | undefined>): boolean {
  if (!isHostGuardSupported()) return false;
  if (guard?.isAlive) return true;
  let child: ChildProcess;
  try {
    child = spawn(python, ["-I", "-S", HOST_GUARD_SCRIPT, PS_LABEL, String(process.pid)], {
      cwd: "/",
      env: env as NodeJS.ProcessEnv,
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
  } catch {
    return false;
  }
  if (child.pid === undefined) {
    child.once("error", () => undefined); // ENOENT and the like: the kernels keep guards of their own
    return false;
  }
  const running: RunningGuard = { child, isAlive: true };
  const markDead = () => {
    running.isAlive = false;
  };
  child.once("error", markDead);
  child.once("exit", markDead);
  child.stdin?.on("error", markDead);
  child.unref();
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  guard = running;
  for (const [pid, tag] of kernels) writeLine(`add ${pid} ${tag}`);
  return true;
}

/** True where the guard can run: it finds kernel trees through /proc. */
export function isHostGuardSupported(): boolean {
  return process.platform === "linux";
}

/**
 * Registers a kernel's runner (which leads its process group) and the tag its processes inherit, starting the
 * guard first if it does not run (with `python` and `env`, the kernel's). Called right after the kernel's spawn,
 * so the guard's start overlaps the kernel's instead of delaying it.
 */
export function registerHostKernel(
  pid: number,
  tag: string,
  python: string,
  env: Record<string, string | undefined>,
): void {
  kernels.set(pid, tag);
  if (guard?.isAlive) writeLine(`add ${pid} ${tag}`);
  else ensureHostGuard(python, env); // writes every registered kernel, this one included
}

/** The kernel ended (the host took care of its tree): the guard forgets it. */
export function unregisterHostKernel(pid: number): void {
  if (!kernels.delete(pid)) return;
  writeLine(`del ${pid}`);
}

/** The guard's pid while it runs (tests, diagnostics). */
export function hostGuardPid(): number | undefined {
  return guard?.isAlive ? guard.child.pid : undefined;
}

function writeLine(line: string): void {
  const stdin = guard?.isAlive ? guard.child.stdin : undefined;
  if (!stdin || stdin.destroyed || !stdin.writable) return;
  stdin.write(`${line}\n`);
}
