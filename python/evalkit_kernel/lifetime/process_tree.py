"""The processes a kernel started, found through /proc (Linux), so those in their own session die with it.

Killing the runner's process group misses children that left it (`start_new_session=True`, `os.setsid()`,
shell escapes, which get their own group so an interrupt can reach them). Two searches find them: the
descendants of the runner (with the groups they lead), and every process whose environment carries the
kernel's tag (EVALKIT_KERNEL_TAG, set by the host at spawn and inherited by children), which also finds
children orphaned by a parent that exited (`!server &`, double forks).
"""

import os
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums


def scan_proc():
    """({ppid: [pids]}, {pid: pgid}) from one pass over /proc; both empty without it."""
    children = {}
    groups = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return children, groups
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                stat = handle.read()
            fields = stat[stat.rfind(b")") + 2:].split()
            ppid, pgid = int(fields[1]), int(fields[2])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not readable
        pid = int(name)
        children.setdefault(ppid, []).append(pid)
        groups[pid] = pgid
    return children, groups


def find_descendants(root):
    """(pids, process groups) descended from root, parents before children; empty without /proc."""
    children, groups = scan_proc()
    pids = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            pids.append(child)
            todo.append(child)
    own_group = groups.get(root)
    found_groups = []
    for pid in pids:
        group = groups.get(pid)
        if group is not None and group != own_group and group not in found_groups:
            found_groups.append(group)
    return pids, found_groups


def _group_of(pid):
    with open("/proc/%d/stat" % pid, "rb") as handle:
        stat = handle.read()
    return int(stat[stat.rfind(b")") + 2:].split()[2])


def find_tree(root):
    """find_descendants through /proc/<pid>/task/*/children: reads only the tree, not every process.

    Exact for a child subreaper (orphans come back to it, so every descendant is in its tree); None when the
    kernel has no children files (CONFIG_PROC_CHILDREN), so the caller scans /proc instead.
    """
    pids = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            if pid == root:
                return None
            continue  # gone meanwhile
        for task in tasks:
            try:
                with open("/proc/%d/task/%s/children" % (pid, task), "rb") as handle:
                    found = [int(child) for child in handle.read().split()]
            except (OSError, ValueError):
                if pid == root:
                    return None
                continue
            pids.extend(found)
            todo.extend(found)
    try:
        own_group = _group_of(root)
    except (OSError, ValueError, IndexError):
        return None
    groups = []
    for pid in pids:
        try:
            group = _group_of(pid)
        except (OSError, ValueError, IndexError):
            continue
        if group != own_group and group not in groups:
            groups.append(group)
    return pids, groups


def prctl(option, value):
    """prctl(2) through _ctypes (no `ctypes` import: ~5 ms of start-up); False when unavailable."""
    try:
        import _ctypes

        handle = _ctypes.dlopen(None)
        return _ctypes.call_function(_ctypes.dlsym(handle, "prctl"), (option, value, 0, 0, 0)) == 0
    except Exception:
        return False


def guard_pid():
    """The kernel's own guard (lifetime/guard.py) when it started one, else None; never imports it."""
    import sys

    guard = sys.modules.get(__name__.rpartition(".")[0] + ".guard")
    return getattr(guard, "guard_pid", None)


TAG_NAME = "EVALKIT_KERNEL_TAG"
# Read at start-up: a cell that deletes the variable still leaves it in the children it started before.
_tag = os.environ.get(TAG_NAME, "")


def find_tagged(tag):
    """Pids (other than this process) whose initial environment holds TAG_NAME=tag."""
    return find_tagged_any([tag]) if tag else []


def find_tagged_any(tags):
    """Pids (other than this process) whose initial environment holds TAG_NAME=<one of tags>: one /proc pass."""
    wanted = set(("%s=%s" % (TAG_NAME, tag)).encode("ascii", "replace") for tag in tags if tag)
    if not wanted:
        return []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    found = []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as handle:
                if not wanted.isdisjoint(handle.read().split(b"\0")):
                    found.append(int(name))
        except OSError:
            continue  # another user's process, or gone
    return found


def host_state(pid):
    """(state, pgrp, tty_nr, tpgid) from /proc/<pid>/stat, or None (not Linux, or gone)."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rfind(b")") + 2:].split()
        return fields[0], int(fields[2]), int(fields[4]), int(fields[5])
    except (OSError, ValueError, IndexError):
        return None


def is_frozen(pid):
    """Stopped by a signal ("T", not a debugger's "t"), and not by job control: no terminal, or still its foreground."""
    state = host_state(pid)
    if state is None or state[0] != b"T":
        return False
    _, pgrp, tty, foreground = state
    return tty == 0 or foreground == pgrp


def kill_descendants(root=None, spare=None, is_subreaper=False):
    """SIGKILL every descendant of root (default: this process), the groups they lead, and tagged strays.

    spare: a pid left alive (the guard, which may be cleaning up at the same time and ends with the runner).
    is_subreaper: root is a child subreaper, so its tree already holds every process it started (orphans
    included): walk that tree alone instead of scanning every process's stat and environment (two reads per
    process of the machine, on every kernel's exit). The host still scans for the tag after the exit.
    """
    if not hasattr(os, "killpg"):
        return
    root = os.getpid() if root is None else root
    tree = find_tree(root) if is_subreaper else None
    if tree is not None:
        pids, groups = tree
    else:
        pids, groups = find_descendants(root)
        pids.extend(pid for pid in find_tagged(_tag) if pid not in pids)
    if spare in pids:
        pids.remove(spare)
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
