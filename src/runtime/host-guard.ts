// One guard process per host (python/host_guard.py): ends every registered local kernel's tree when the host
// goes away, even a kernel stuck in C code that holds its GIL, and resumes a host a cell stopped.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
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
 * Starts the host's guard unless it runs (lazily, once the first local kernel is `ready`); true when it runs.
 * Started by `python`, the interpreter binary the kernel's `ready` frame names (so never a wrapper script or a
 * shim that merely claimed to be Python: the kernel proved it runs evalkit's runner), with `env` (the kernel's,
 * already filtered, without its tag), in a session of its own so
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

let isScriptShipped: boolean | undefined;

/** True where the guard can run: Linux (it finds kernel trees through /proc), with its script in the package. */
export function isHostGuardSupported(): boolean {
  if (process.platform !== "linux") return false;
  isScriptShipped ??= existsSync(HOST_GUARD_SCRIPT); // a hand-trimmed copy: the runners keep guards of their own
  return isScriptShipped;
}

/**
 * Registers a kernel's runner (which leads its process group) and the tag its processes inherit; written to the
 * guard now if it runs, else when {@link ensureHostGuard} starts it.
 */
export function registerHostKernel(pid: number, tag: string): void {
  kernels.set(pid, tag);
  writeLine(`add ${pid} ${tag}`);
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
