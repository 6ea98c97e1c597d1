// The processes below a kernel's process, walked through /proc (Linux) while it lives, and killed.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const hasProc = process.platform === "linux";

/** Every task's children of `pid`, or undefined when the kernel has no children files (CONFIG_PROC_CHILDREN). */
function childrenOf(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone meanwhile
  }
  const found: number[] = [];
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, "latin1").trim();
      if (text !== "") for (const child of text.split(" ")) found.push(Number(child));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && task === String(pid)) return undefined;
    }
  }
  return found;
}

/** Children of every process, from /proc/<pid>/stat: the slow way, where children files are missing. */
function childrenByScan(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let names: string[] = [];
  try {
    names = readdirSync("/proc");
  } catch {
    return children;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = statField(Number(name), 1);
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  return children;
}

/** Field `index` after the command name in /proc/<pid>/stat (0 state, 1 ppid, 2 pgid), readable for any process. */
function statField(pid: number, index: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return index === 0 ? (fields[0] === "Z" ? 0 : 1) : Number(fields[index]);
  } catch {
    return undefined; // gone meanwhile
  }
}

function isLive(pid: number): boolean {
  return statField(pid, 0) === 1; // neither a zombie nor gone
}

/**
 * Pids below `root`, parents before children (empty without /proc). `enter` decides, for each child, whether it
 * is listed with its subtree (true) or left out with it (false); by default everything is.
 */
export function findDescendants(root: number, enter: (pid: number) => boolean = () => true): number[] {
  if (!hasProc) return [];
  let scanned: Map<number, number[]> | undefined;
  const found: number[] = [];
  const todo = [root];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    let below = scanned ? scanned.get(pid) : childrenOf(pid);
    if (below === undefined && !scanned) {
      scanned = childrenByScan();
      below = scanned.get(pid);
    }
    for (const child of below ?? []) {
      if (!enter(child)) continue;
      found.push(child);
      todo.push(child);
    }
  }
  return found;
}

/** SIGKILLs what `pick` lists until it lists nothing alive (1 ms apart, at most `rounds` times); the count sent. */
async function killUntilGone(pick: () => number[], rounds: number): Promise<number> {
  let killed = 0;
  for (let round = 0; round < rounds; round++) {
    const alive = pick().filter(isLive);
    if (alive.length === 0) break;
    for (const pid of alive) {
      try {
        process.kill(pid, "SIGKILL");
        killed++;
      } catch {
        // exited meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return killed;
}

/**
 * SIGKILLs everything below `root` while `root` still lives, so its tree is intact: a subreaper's adopted
 * orphans (a double-forked daemon whose environment hides its tag) are only findable as its children. Orphans of
 * the killed go back to the subreaper, so the walk repeats until nothing below `root` is alive.
 */
export function killDescendants(root: number, rounds = 200): Promise<number> {
  return killUntilGone(() => findDescendants(root), rounds);
}

function pidNamespace(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined; // not ours to read (a non-dumpable process), or gone
  }
}

/**
 * SIGKILLs the processes below `root` that its group's signals do not reach (another process group or session:
 * daemons, `start_new_session` children), and what is below them, leaving the group itself for a polite SIGTERM.
 * If the TERM then ends `root` at once (a runner stuck in C code cannot run a handler), those would be handed to
 * init first. A process in another PID namespace (a sandbox's init) is left alone with its subtree: the
 * namespace ends with the sandbox.
 */
export function killOutsideGroup(root: number, rounds = 200): Promise<number> {
  const group = statField(root, 2);
  const namespace = pidNamespace(root);
  if (group === undefined) return Promise.resolve(0);
  const pick = () => {
    const outside = new Set<number>();
    findDescendants(root, (pid) => {
      const space = pidNamespace(pid);
      if (namespace !== undefined && space !== undefined && space !== namespace) return false;
      if (statField(pid, 2) !== group || outside.has(statField(pid, 1) ?? -1)) outside.add(pid);
      return true;
    });
    return [...outside];
  };
  return killUntilGone(pick, rounds);
}
