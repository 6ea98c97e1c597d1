"""The runner as a child subreaper (Linux): orphans of the cell's processes stay its descendants, and are reaped.

A daemon double-forks (ssh-agent, gpg-agent) so that its parent exits and it is adopted by init, out of the
kernel's process tree; one that also makes itself non-dumpable (PR_SET_DUMPABLE 0) hides its environment, so the
tag scan (process_tree.find_tagged) cannot find it unless the host runs as root. With PR_SET_CHILD_SUBREAPER
the runner adopts such orphans instead, so the descendant walk at the kernel's end (and the guard's) kills them.

An adopted orphan that exits becomes the runner's zombie: nobody else will wait for it. Between cells, at most
once a second, zombie children are reaped, except those a live subprocess.Popen or multiprocessing process
owns (their owners collect the exit status themselves).
"""

import os
import time

from . import process_tree

PR_SET_CHILD_SUBREAPER = 36
REAP_INTERVAL = 1.0
is_subreaper = False
_next_reap = 0.0
_kept = set()  # zombie pids an owner will wait for: not looked at again


def install():
    global is_subreaper
    if hasattr(os, "uname") and os.uname().sysname == "Linux":
        is_subreaper = process_tree.prctl(PR_SET_CHILD_SUBREAPER, 1)


def reap_adopted():
    """Reap zombie children nobody else will wait for (cheap: one read per thread, throttled); True if it reaped."""
    global _next_reap
    if not is_subreaper:
        return False
    now = time.monotonic()
    if now < _next_reap:
        return False
    _next_reap = now + REAP_INTERVAL
    zombies = [pid for pid in _children() if pid not in _kept and pid != process_tree.guard_pid() and _is_zombie(pid)]
    if not zombies:
        return False
    owned = _owned_pids()
    reaped = False
    for pid in zombies:
        if pid in owned:
            _kept.add(pid)
            continue
        try:
            os.waitpid(pid, os.WNOHANG)
            reaped = True
        except OSError:
            pass
    _kept.intersection_update(_children())
    return reaped


def _children():
    pids = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            with open("/proc/self/task/%s/children" % task, "rb") as handle:
                pids.update(int(pid) for pid in handle.read().split())
        except (OSError, ValueError):
            continue
    return pids


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        return stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] == b"Z"
    except OSError:
        return False


def _owned_pids():
    """Pids of children a Popen or multiprocessing object will wait for (only computed when zombies exist)."""
    import gc
    import sys

    owned = set()
    subprocess = sys.modules.get("subprocess")
    popen = getattr(subprocess, "Popen", None)
    if popen is not None:
        for obj in gc.get_objects():
            if isinstance(obj, popen) and getattr(obj, "returncode", 0) is None:
                owned.add(obj.pid)
    process = sys.modules.get("multiprocessing.process")
    for child in getattr(process, "_children", ()) or ():
        pid = getattr(getattr(child, "_popen", None), "pid", None)
        if pid is not None:
            owned.add(pid)
    return owned
