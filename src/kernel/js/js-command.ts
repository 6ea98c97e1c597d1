// The JS kernel's spawn argv, built in one place so a sandbox or launcher prefix wraps it the same way everywhere.
import { packagePath } from "../../runtime/package-root.js";

/** The runner's entry, both from src/ (tests) and the dist/ bundle (installed): `<package>/runner-js/main.cjs`. */
export const JS_RUNNER_MAIN = packagePath("runner-js", "main.cjs");

export interface JsCommandOptions {
  /** Node executable. */
  node: string;
  /** V8 heap limit in MB (`--max-old-space-size`). */
  maxHeapMb: number;
  /** False when node picks `maxHeapMb` by itself: the flag is left out (heap-flag.ts says why). */
  heapFlag?: boolean;
  /** Random marker the runner writes on fd 1 and fd 2 at each sync point (docs/protocol.md). */
  syncNonce: string;
  /** MIME type of prelude status displays. */
  statusMime: string;
  /** Command prefix (`prlimit --as=…`, `bwrap …`); it must keep fd 3 open for the runner. */
  launcher?: string[];
  /** The subreaper parent (`python -I -S subreaper_parent.py`), right before node, after the launcher. */
  parent?: string[];
  /** The host's pid, which a cell may not signal (the runner's own parent is the subreaper parent then). */
  hostPid?: number;
}

/**
 * What `ps` shows for the kernel's node: Node writes its title over its command line at start-up (`--title`),
 * so the process says what it is, and the sync nonce after the script's path is no longer on show.
 */
export const JS_KERNEL_TITLE = "evalkit-kernel js";

/**
 * `[launcher...] [parent...] node --title=… [--max-old-space-size=N] <runner-js/main.cjs> <nonce> <status mime>
 * [host pid]`
 */
export function buildJsKernelCommand(options: JsCommandOptions): { command: string; args: string[] } {
  const argv = [
    options.node,
    `--title=${JS_KERNEL_TITLE}`,
    ...(options.heapFlag === false ? [] : [`--max-old-space-size=${options.maxHeapMb}`]),
    JS_RUNNER_MAIN,
    options.syncNonce,
    options.statusMime,
    ...(options.hostPid !== undefined ? [String(options.hostPid)] : []),
  ];
  const full = [...(options.launcher ?? []), ...(options.parent ?? []), ...argv];
  const [command, ...args] = full as [string, ...string[]];
  return { command, args };
}
