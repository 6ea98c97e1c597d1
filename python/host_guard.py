"""The host's guard: one small process per host that ends every local kernel's tree when the host goes away.

Why a process outside the kernels: a runner notices its host's death through EOF on stdin or a changed parent,
but both checks are Python threads that need the GIL, so a cell stuck in C code that holds it (a catastrophic
regex, a huge sort) would keep the kernel alive forever; and PR_SET_PDEATHSIG on the runner would kill it at
once, before it could take its children along (they would be left behind, adopted by init). This guard is
blocked in poll() on its stdin, a pipe whose only write end the host holds (node's descriptors are
close-on-exec), so EOF there means "the host is gone", however it went (exit, crash, SIGKILL).

The host starts it once, lazily, with its first local kernel (`python -I -S host_guard.py evalkit-host-guard
<host pid>`, src/runtime/host-guard.ts), in a session of its own, and writes one line per kernel:

    add <pid> <tag>     a kernel started: its runner's pid (which leads its process group) and its tag
    del <pid>           it ended; the host took care of its tree

On EOF it ends every registered kernel's tree, as each kernel's own guard used to: the runner's descendants
(found through /proc while the runner still lives, so double-forked daemons the runner adopted as subreaper are
among them), the groups they lead, processes carrying a kernel's tag (EVALKIT_KERNEL_TAG), the runner, then its
process group; one /proc scan per round serves every kernel, so a host with hundreds of kernels costs a few
scans. Then it exits: it never outlives the host.

It ignores SIGINT, SIGTERM, SIGHUP and SIGPIPE (a terminal's Ctrl-C to the host's foreground group, a cell
that signals its own group) and sits in no kernel's process group, so the host's interrupts and kill ladder,
which signal kernel groups, never reach it.

It also keeps the host from being frozen by a cell (unsandboxed, same user: `os.kill(os.getppid(), SIGSTOP)`
would stop the host, and with it every timeout). While kernels are registered it looks at the host's state in
/proc once a second; a host seen stopped twice in a row gets SIGCONT, unless the stop is job control (the host
has a terminal and is no longer its foreground group: Ctrl-Z, which the shell answers by taking the terminal
back). A cell that stops or kills this guard first defeats it (docs/security.md): it runs as the same user.

Run from disk beside the runner's package (it imports lifetime/process_tree.py), CPython 3.8+, stdlib only;
Linux (/proc). Elsewhere it still ends the registered runners and their process groups.
"""

import os
import select
import sys
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums

# The runner's package sits beside this file (-I leaves the script's folder off sys.path): the /proc scans and the
# host-state check are the ones the runner and a remote kernel's own guard use.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evalkit_kernel.lifetime import process_tree  # noqa: E402

HOST_CHECK_MS = 1000
ROUNDS = 3  # scans after the first: a process forked while the previous round killed its parent


def main(argv):
    host = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else os.getppid()
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    kernels = {}  # runner pid -> tag
    poller = select.poll()
    poller.register(0, select.POLLIN)
    pending = b""
    stopped_seen = 0
    while True:
        try:
            events = poller.poll(HOST_CHECK_MS if kernels else None)
        except InterruptedError:
            continue
        if not events:
            stopped_seen = stopped_seen + 1 if process_tree.is_frozen(host) else 0
            if stopped_seen >= 2:
                try_call(os.kill, host, signal.SIGCONT)
                stopped_seen = 0
            continue
        try:
            chunk = os.read(0, 65536)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            end_kernels(kernels)
            return 0
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            apply_line(kernels, line.split())


def apply_line(kernels, words):
    """One registration line: `add <pid> <tag>` or `del <pid>`; anything else is ignored."""
    try:
        if len(words) >= 2 and words[0] == b"add":
            kernels[int(words[1])] = words[2].decode("ascii", "replace") if len(words) > 2 else ""
        elif len(words) >= 2 and words[0] == b"del":
            kernels.pop(int(words[1]), None)
    except ValueError:
        pass


def end_kernels(kernels):
    """The host is gone: every registered kernel's tree, the groups in it, its tagged strays, then the runner."""
    me = os.getpid()
    runners = [pid for pid in kernels if pid > 1 and pid != me]
    tags = set(tag for tag in kernels.values() if tag)
    for _ in range(1 + ROUNDS):
        pids, groups = find_trees(runners)
        pids.update(process_tree.find_tagged_any(tags))
        pids.discard(me)
        if not pids and not any(is_alive(pid) for pid in runners):
            return
        for group in groups:
            try_call(os.killpg, group, signal.SIGKILL)
        for pid in pids:
            try_call(os.kill, pid, signal.SIGKILL)
        for pid in runners:  # each runner leads its group (spawned detached)
            try_call(os.kill, pid, signal.SIGKILL)
            try_call(os.killpg, pid, signal.SIGKILL)


def find_trees(roots):
    """(pids, groups) descended from any of roots, from one scan of /proc; groups exclude the roots' own."""
    children, group_of = process_tree.scan_proc()
    pids = set()
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in pids:
                pids.add(child)
                todo.append(child)
    groups = set(group_of[pid] for pid in pids if pid in group_of) - set(roots)
    return pids, groups


def is_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def try_call(call, *args):
    try:
        call(*args)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
