"""A fork becoming the live runner: re-create what fork does not copy, then answer whoever asked for it.

Threads do not survive fork: the stream router's flush thread, the fd 1/2 drain threads (with new capture pipes,
since the old ones belong to the process forked from) and the request reader are started again, and locks other
threads might have held are made anew. A forked session's runner also takes over the stdio a relay handed it.
"""

import os
import threading
import _signal as signal

from . import shutdown
from . import state
from . import threads
from ..capture.channel_fds import private_pipe
from ..capture.fd_capture import FdCapture
from ..lifetime import checkpoints
from ..lifetime import fork_guard
from ..lifetime import reaper
from ..lifetime import usage

requests = None  # the RequestChannel (set by main)
announce_ready = None  # main's `ready` frame, for a forked session's runner (set by main)
_fork_link = None  # a forked session's runner keeps its relay's socket open: the relay ends when this process does


def finish_becoming_live(live):
    """In a new copy of the runner: re-create what fork did not copy, then answer who asked for it."""
    checkpoints.is_root = False
    fork_guard.adopt_current_process()
    checkpoints.checkpoint_pids.clear()
    threads.started = 0
    if hasattr(signal, "SIGCHLD"):
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the gate claims it again when the next cell opens
    try:
        signal.set_wakeup_fd(-1)
    except (ValueError, OSError):
        pass
    checkpoints.close_parked_state()
    writer = state.writer
    writer._lock = threading.Lock()
    writer.broken = False
    writer._held = []
    _restart_router(state.router)
    _restart_capture()
    _restart_requests(requests)
    reaper.install()
    reaper._kept = set()
    usage.forget_children_baseline()
    if live.adopt is not None:
        _become_fork(live)
        return
    if live.conn is not None:
        checkpoints.reply(live.conn, {"pid": os.getpid()})
        try:
            live.conn.close()
        except OSError:
            pass
    if live.announce is not None:
        frame = dict(live.announce)
        frame["livePid"] = os.getpid()
        writer.send(frame)


def _become_fork(live):
    """The runner of a forked session: the relay's stdin/stdout become the protocol, in a group of its own.

    It takes no checkpoints of its own (their names would be the original kernel's) and leaves the original's
    process group, so interrupts and kills of either session reach only that one.
    """
    global _fork_link
    stdin, stdout = live.adopt
    os.dup2(stdin, requests._reader._fd)
    os.dup2(stdout, state.writer._fd)
    os.close(stdin)
    os.close(stdout)
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    shutdown.kernel_group = os.getpid()
    checkpoints.is_enabled = False
    _fork_link = live.conn
    try:
        checkpoints.ask(None, "fork %d" % os.getpid())  # so a restore of the original spares this session
    except Exception:
        pass
    checkpoints.reply(live.conn, {"pid": os.getpid()})
    if announce_ready is not None:
        announce_ready()


def _restart_router(router):
    router._lock = threading.RLock()
    router._wake = threading.Event()
    router._wake_pending = False
    router._pending = []
    router._size = 0
    del router._fast[:]  # the same list: stream writers hold its append
    router._fast_name = None
    router._fast_size = 0
    router._owner = threading.get_ident()
    router.sinks = []
    threads.start_daemon(router._flush_loop, "evalkit-flush")


def _restart_capture():
    old = state.fd_capture
    if old is None:
        return
    state.fd_capture = FdCapture(state.router)  # new pipes on fd 1/2, new drain threads
    for pipe in old._pipes.values():
        for fd in (pipe.read_fd, pipe.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def _restart_requests(channel):
    channel._cond = threading.Condition()
    channel._cell = 0
    channel._reading = False
    channel._urgent = False
    channel._queue = []
    channel._reader._buffer = bytearray()  # bytes read for the old runner are not this one's
    channel._wake_r, channel._wake_w = private_pipe()
    threads.start_daemon(channel._helper_loop, "evalkit-reader")
