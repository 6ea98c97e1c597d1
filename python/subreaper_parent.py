"""The parent of a JS kernel (Linux): a child subreaper, so nothing the kernel starts can leave its tree.

Node cannot call prctl(2), so the JS runner cannot adopt the orphans of what its cells start: a daemon that
double-forks into a session of its own (ssh-agent, gpg-agent) was re-parented to init, and one that also makes
itself non-dumpable hides the kernel's tag from an unprivileged host, so nothing found it. The host starts the
runner through this script instead (`python -I -S subreaper_parent.py node <args>`, a standalone file run by any
CPython 3.8+, stdlib only; outside evalkit_kernel, so the Python runner's bundle does not carry it). It sets PR_SET_CHILD_SUBREAPER, starts the
runner as its only child and stays, doing nothing until a signal or the host's hang-up wakes it:

- orphans of the runner's descendants are re-parented to it, and reaped when they exit (nobody else would:
  Node has no waitpid(2) for processes it did not spawn);
- when the runner ends, however it ends (exit, crash, heap out of memory, a signal, the OOM killer), every
  process left in its tree is killed;
- when the host goes (its end of fd 3, the protocol channel, hangs up, or this process's parent changes), the
  runner and the whole tree are killed;
- then it exits with the runner's exit status, or dies of the runner's signal, so the host sees the runner's end;
- and it keeps the host from being frozen by a cell (`process.kill(hostPid, "SIGSTOP")` would stop every timeout):
  a host seen stopped at two checks in a row gets SIGCONT, unless the stop is job control (the host has a terminal
  and is no longer its foreground group, as after Ctrl-Z). A cell that stops this process first defeats it.

It ignores every signal but SIGKILL (and the faults): the host sends SIGINT and SIGTERM to the kernel's process
group (interrupts, the kill ladder), a cell may signal its own group; the runner takes them, and this process
follows once it is gone. Only the host's last rung, after it killed everything below this process, is SIGKILL. Where prctl is unavailable (not
Linux) it simply becomes the runner (exec), as if it had never been there.
"""

import posix as os  # the C module under `os`: `os` itself imports posixpath, stat and _collections_abc (~1 ms)
import select
import sys
import _signal as signal  # `signal` imports enum, ~2 ms of every JS kernel's start-up

PR_SET_CHILD_SUBREAPER = 36
CHANNEL_FD = 3
PARENT_CHECK_MS = 1000
# Kept: SIGCHLD (its wake-up), SIGKILL and SIGSTOP (cannot be caught), and the faults (ignoring them is undefined).
KEPT = ("SIGCHLD", "SIGKILL", "SIGSTOP", "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL")


def prctl(option, value):
    """prctl(2) through _ctypes (no `ctypes` import: ~5 ms of start-up); False when unavailable."""
    try:
        import _ctypes

        handle = _ctypes.dlopen(None)
        return _ctypes.call_function(_ctypes.dlsym(handle, "prctl"), (option, value, 0, 0, 0)) == 0
    except Exception:
        return False


def main(argv):
    """The runner's wait status, once it and everything it left behind are gone."""
    if not argv:
        sys.stderr.write("usage: subreaper_parent.py PROGRAM [ARGS...]\n")
        sys.exit(2)
    if not prctl(PR_SET_CHILD_SUBREAPER, 1) or not hasattr(os, "posix_spawnp"):
        import os as full_os  # execvp searches PATH in Python, only `os` has it

        full_os.execvp(argv[0], argv)
    # Ignored before the spawn, so a group signal in between cannot end this process; the child gets defaults.
    handed = _ignore_signals()
    watch = _private_channel()  # before any fd of ours exists, so fd 3 cannot be one of them
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    try:
        runner = os.posix_spawnp(argv[0], argv, os.environ, setsigdef=handed)
    except OSError as error:
        sys.stderr.write("evalkit: could not start %s: %s\n" % (argv[0], error))
        sys.exit(127)
    _leave_stdio(watch)
    try:
        return _wait_for(runner, wake_r, watch)
    finally:
        kill_tree()


def _ignore_signals():
    """Ignore every signal that could end this process but SIGKILL; the list, for the runner to get defaults.

    The host signals the kernel's group (SIGINT for interrupts, SIGTERM in the kill ladder), and so may a cell
    (`process.kill(0, "SIGUSR1")`): the runner takes them; this process must live on to clean up after it.
    """
    kept = set(getattr(signal, name) for name in KEPT if hasattr(signal, name))
    ignored = []
    for number in range(1, getattr(signal, "NSIG", 65)):
        if number in kept:
            continue
        try:
            signal.signal(number, signal.SIG_IGN)
        except (OSError, ValueError, RuntimeError):
            continue  # reserved by the C library (32, 33), or not a signal here
        ignored.append(number)
    return ignored


def _private_channel():
    """A copy of fd 3 (not inherited by the runner) whose hang-up says the host is gone; None without fd 3."""
    try:
        return os.dup(CHANNEL_FD)
    except OSError:
        return None


def _leave_stdio(watch):
    """Give up fd 0-3 (the runner has them), so the host's pipes close when the runner's side does."""
    null = os.open("/dev/null", os.O_RDWR)  # only reached on Linux, where prctl worked
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    if watch is not None:
        os.close(CHANNEL_FD)


def _wait_for(runner, wake_r, watch):
    """The runner's wait status; on the host's hang-up the whole tree is killed first, then it is waited for."""
    parent = os.getppid()
    stopped_seen = 0
    poller = select.poll()
    poller.register(wake_r, select.POLLIN)
    if watch is not None:
        poller.register(watch, 0)  # errors and hang-ups are always reported
    while True:
        status = reap(runner)
        if status is not None:
            return status
        try:
            events = poller.poll(PARENT_CHECK_MS)
        except InterruptedError:
            continue
        host_gone = os.getppid() != parent
        if not events and parent > 1:
            stopped_seen = stopped_seen + 1 if is_frozen(parent) else 0
            if stopped_seen >= 2:
                try:
                    os.kill(parent, signal.SIGCONT)
                except OSError:
                    pass
                stopped_seen = 0
        for fd, flags in events:
            if fd == watch and flags & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                host_gone = True
                poller.unregister(watch)
                watch = None
        if host_gone:
            kill_tree()
            parent = os.getppid()
        try:
            os.read(wake_r, 512)
        except OSError:
            pass


def is_frozen(pid):
    """Stopped by a signal ("T", not a debugger's "t"), and not by job control: no terminal, or still its foreground."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rfind(b")") + 2:].split()
        state, pgrp, tty, foreground = fields[0], int(fields[2]), int(fields[4]), int(fields[5])
    except (OSError, ValueError, IndexError):
        return False
    return state == b"T" and (tty == 0 or foreground == pgrp)


def reap(runner):
    """Collect every child that exited (adopted orphans included); the runner's status once it is among them."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found if found is not None else 0  # no child at all: the runner is gone
        except InterruptedError:
            continue
        if pid == 0:
            return found
        if pid == runner:
            found = status


def descendants(root):
    """Pids below root through /proc/<pid>/task/*/children; a full /proc scan where those files are missing."""
    found = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for task in tasks:
            try:
                with open("/proc/%d/task/%s/children" % (pid, task), "rb") as handle:
                    children = [int(child) for child in handle.read().split()]
            except FileNotFoundError:
                return _scan_descendants(root)  # a kernel without CONFIG_PROC_CHILDREN
            except (OSError, ValueError):
                continue
            found.extend(children)
            todo.extend(children)
    return found


def _scan_descendants(root):
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name, "rb") as handle:
                    stat = handle.read()
                children.setdefault(int(stat[stat.rfind(b")") + 2:].split()[1]), []).append(int(name))
            except (OSError, ValueError, IndexError):
                continue
    found = []
    todo = [root]
    while todo:
        below = children.get(todo.pop(), [])
        found.extend(below)
        todo.extend(below)
    return found


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        return stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] == b"Z"
    except OSError:
        return True  # gone


def kill_tree():
    """SIGKILL everything below this process until nothing is left; orphans of the killed come back here."""
    me = os.getpid()
    for _ in range(500):
        alive = [pid for pid in descendants(me) if not _is_zombie(pid)]
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap(None)
        select.select([], [], [], 0.002)
    reap(None)


def exit_like(status):
    """End the way the runner ended: the same exit code, or the same signal (without a core file of our own)."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        except (ImportError, ValueError, OSError):
            pass
        try:
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        except (OSError, ValueError):
            pass
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    exit_like(main(sys.argv[1:]))
