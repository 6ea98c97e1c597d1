"""What a restore cannot carry, detected when a checkpoint is taken: threads, child processes, sockets, a GPU context."""

import os
import sys
import threading


def describe(runner_threads, checkpoint_pids=()):
    """What a restore of a checkpoint taken now cannot bring back, in words (empty: nothing detected)."""
    notes = []
    main = threading.main_thread()
    dummy = getattr(threading, "_DummyThread", ())
    users = [t.name for t in threading.enumerate() if t is not main and t.is_alive() and not isinstance(t, dummy)]
    if users:
        notes.append("running threads are not copied (%s): they will not run in the restored state" % ", ".join(users[:5]))
    try:
        tasks = len(os.listdir("/proc/self/task"))
    except OSError:
        tasks = 0
    native = tasks - 1 - runner_threads - len(users)
    if native > 0:
        notes.append("%d thread(s) started by native code (a BLAS or I/O pool?) will not run in the restored state" % native)
    kids = [pid for pid in children() if pid not in checkpoint_pids and not is_guard(pid)]
    if kids:
        notes.append(
            "child processes are not copied (pid %s): the restored state will not have them"
            % ", ".join(str(p) for p in kids[:5])
        )
    files = _count_open_files()
    if files:
        notes.append(
            "%d open file(s) share their position with the live interpreter, not copied: seek after a restore" % files
        )
    sockets = _count_sockets()
    if sockets:
        notes.append("%d open socket(s) are shared with the checkpoint, not copied: their peers move on" % sockets)
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            notes.append("a CUDA context cannot be copied: GPU tensors are not usable after a restore")
    except Exception:
        pass
    return notes


def is_guard(pid):
    from . import process_tree

    return pid == process_tree.guard_pid()


def children():
    pids = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % task, "rb") as handle:
                pids.extend(int(p) for p in handle.read().split())
    except (OSError, ValueError):
        pass
    return [pid for pid in pids if not _is_zombie(pid)]


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        return stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] == b"Z"
    except OSError:
        return True


_own_sockets = set()  # the runner's own (the host's stdio may be socket pairs): not the cell's


def note_own_sockets():
    _own_sockets.update(_sockets())


def _count_sockets():
    return len(_sockets() - _own_sockets)


def _sockets():
    found = set()
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return found
    for name in names:
        try:
            link = os.readlink("/proc/self/fd/" + name)
        except OSError:
            continue
        if link.startswith("socket:"):
            found.add(link)
    return found


def _count_open_files():
    """Regular files open in this process (their offsets are shared with every fork)."""
    import stat

    count = 0
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return 0
    for name in names:
        try:
            if int(name) > 2 and stat.S_ISREG(os.stat("/proc/self/fd/" + name).st_mode):
                count += 1
        except (OSError, ValueError):
            pass
    return count
