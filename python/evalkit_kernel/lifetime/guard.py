"""A tiny watchdog process that ends the kernel and everything it started when the host goes away.

Started only when nothing outside the runner does this job (`config.guardedOutside` unset): a runner behind a
launcher such as ssh, whose tree no local process can see. A local host runs one guard for all its kernels
(python/host_guard.py), and a sandbox ends with its host (bwrap --die-with-parent).

The runner notices its host's death through EOF on stdin or a changed parent, but both checks are Python
threads: they need the GIL, so a cell stuck in C code that holds it (a catastrophic regex, a huge sort) would
keep the kernel alive forever. The guard is a small interpreter the runner starts at start-up (posix_spawn of
this module's code; a fork where that is missing, before any thread exists), blocked in poll() on a duplicate
of the protocol's write end. When the host's end closes
(POLLERR/POLLHUP: the host exited or was killed), the guard kills the runner's descendants (found through
/proc while the runner still lives, so double-forked daemons the runner adopted as subreaper are among them),
the groups they lead, processes carrying the kernel's tag, then the runner's own process group.

Linux: the guard has PR_SET_PDEATHSIG, so it dies with the runner; elsewhere it watches a pipe only the runner
holds. Either way it never outlives the runner, and it ignores the interrupts and SIGTERM the host sends to the
kernel's process group (the runner's own exit takes it along).

The guard also keeps the host from being frozen by a cell (unsandboxed, same user: `os.kill(os.getppid(),
SIGSTOP)` would stop the host, and with it every timeout). Once a second it looks at the host's state in /proc; a
host seen stopped twice in a row gets SIGCONT, unless the stop is job control (the host has a terminal and is no
longer its foreground group: Ctrl-Z, which the shell answers by taking the terminal back). The guard runs as the
same user, outside the host, so it can; a cell that stops the guard first defeats it (docs/security.md).

Why not PR_SET_PDEATHSIG on the runner itself: that signal kills the runner at once (no handler can run without
the GIL), before it can take its children along; they would be left behind, adopted by init.
"""

import os
import sys
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums

from . import process_tree

PR_SET_PDEATHSIG = 1
HOST_CHECK_MS = 1000
guard_pid = None


prctl = process_tree.prctl


def start(protocol_fd):
    """Fork the guard (call before the runner starts any thread); no-op where fork or poll is missing."""
    global guard_pid
    if not hasattr(os, "fork") or not hasattr(os, "killpg"):
        return
    try:
        import select

        select.poll
    except (ImportError, AttributeError):
        return
    runner = os.getpid()
    host = os.getppid()  # the host, or the launcher / sandbox between them (resuming those is as harmless)
    alive_r, alive_w = os.pipe()  # the runner holds the write end; EOF tells the guard the runner is gone
    pid = _spawn(runner, protocol_fd, alive_r, host)
    if pid is None:
        try:
            pid = os.fork()
        except OSError:
            os.close(alive_r)
            os.close(alive_w)
            return
        if pid == 0:
            try:
                os.close(alive_w)
                _serve(runner, protocol_fd, alive_r, host)
            finally:
                os._exit(0)
    os.close(alive_r)
    guard_pid = pid
    _keep_open.append(alive_w)


_keep_open = []  # the runner's end of the guard's pipe: closed by the OS when the runner ends


def _spawn(runner, protocol_fd, alive_r, host):
    """Start the guard as a fresh interpreter running this module's code; its pid, or None to fork instead.

    posix_spawn (vfork underneath) shares no memory with the runner: after a fork, every page the runner
    touched next (reference counts touch most of them) was a copy-on-write fault, ~30 ms of the kernel's
    start-up on a small virtual machine. The guard's program is process_tree's and this module's source,
    as loaded into the runner; the descriptors it watches are passed at fixed numbers above both.
    """
    spawn = getattr(os, "posix_spawn", None)
    executable = sys.executable
    if spawn is None or not executable:
        return None
    try:
        parts = []
        for module in (process_tree, sys.modules[__name__]):
            source = module.__loader__.get_source(module.__name__)
            parts.append(source.replace("from . import process_tree\n", ""))
    except Exception:
        return None
    program = "%s\nimport sys\nprocess_tree = sys.modules[__name__]\n%s\n_spawned_main()\n" % tuple(parts)
    data = program.encode("utf-8")
    if len(data) > 60000:  # must fit the pipe: nobody reads it before the spawn
        return None
    program_r, program_w = os.pipe()  # the program travels over stdin, so `ps` shows a short command line
    try:
        os.write(program_w, data)
    finally:
        os.close(program_w)
    watch = max(protocol_fd, alive_r, program_r) + 1
    alive = watch + 1
    actions = [
        (os.POSIX_SPAWN_DUP2, program_r, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_RDWR, 0),
        (os.POSIX_SPAWN_DUP2, 1, 2),
        (os.POSIX_SPAWN_DUP2, protocol_fd, watch),
        (os.POSIX_SPAWN_DUP2, alive_r, alive),
    ]
    boot = "import sys; exec(compile(sys.stdin.read(), '<evalkit guard>', 'exec'))"
    argv = [executable, "-I", "-S", "-c", boot, str(runner), str(watch), str(alive), str(host)]
    try:
        return spawn(executable, argv, os.environ, file_actions=actions)
    except Exception:
        return None
    finally:
        os.close(program_r)


def _spawned_main():
    """The spawned guard's entry: argv holds the runner's pid, the two descriptors to watch and the host's pid."""
    runner, watch, alive_r, host = (int(arg) for arg in sys.argv[1:5])
    try:
        _serve(runner, watch, alive_r, host)
    finally:
        os._exit(0)


def _serve(runner, protocol_fd, alive_r, host=0):
    import select

    for sig in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE"):
        if hasattr(signal, sig):
            signal.signal(getattr(signal, sig), signal.SIG_IGN)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != runner:
        return
    watch = os.dup(protocol_fd)
    _close_everything_but((watch, alive_r))
    poller = select.poll()
    poller.register(watch, 0)  # errors and hang-ups are always reported
    poller.register(alive_r, select.POLLIN)
    watches_host = host > 1 and process_tree.host_state(host) is not None
    stopped_seen = 0
    while True:
        try:
            events = poller.poll(HOST_CHECK_MS if watches_host else None)
        except InterruptedError:
            continue
        if watches_host and not events:
            stopped_seen = stopped_seen + 1 if process_tree.is_frozen(host) else 0
            if stopped_seen >= 2:
                _try(os.kill, host, signal.SIGCONT)
                stopped_seen = 0
        for fd, flags in events:
            if fd == alive_r:
                return  # the runner ended: the host (alive) takes care of the rest
            if flags & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                _end_kernel(runner)
                return


def _close_everything_but(keep):
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # fd 1 was the host's stdout pipe: the host must see it close with the runner
    os.close(null)
    top = max(keep)
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        limit = 4096
    os.closerange(top + 1, max(limit, top + 1))


def _end_kernel(runner):
    """The host is gone: the runner's tree, the groups in it, tagged strays, then the runner's group.

    The runner is killed last: its death SIGKILLs this guard (PR_SET_PDEATHSIG). The runner's own clean-up,
    which may run at the same time, spares this guard (process_tree.kill_descendants(spare=...)).
    """
    me = os.getpid()
    pids, groups = process_tree.find_descendants(runner)
    kill = signal.SIGKILL
    for group in groups:
        _try(os.killpg, group, kill)
    for pid in pids + process_tree.find_tagged(process_tree._tag):
        if pid not in (me, runner):
            _try(os.kill, pid, kill)
    _try(os.kill, runner, kill)
    _try(os.killpg, runner, kill)  # the runner leads its group: what is left of it, this guard included


def _try(call, *args):
    try:
        call(*args)
    except OSError:
        pass
