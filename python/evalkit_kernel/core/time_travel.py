"""Time travel, the runner's side: checkpoint/restore/drop requests, the root process, and a copy becoming live.

With checkpoints on (config `checkpoints`), the process the host started never runs a cell. Right before
`ready` it forks: the child is the live runner; the parent stays as the *root*, holding the fresh interpreter.
The root keeps the pid the host (and bwrap) wait on, is the child subreaper every later runner ends up under,
reports the live runner's death (`runner_exit`), and while no runner lives it reads the host's requests itself,
so a restore can bring the state back after a crash. Checkpoints are parked forks (lifetime/checkpoints.py);
a restore makes one spawn a new runner, which re-creates what a fork does not copy (the runner's threads, the
capture pipes), and the old runner ends. docs/checkpoints.md has the model; docs/protocol.md the frames.
"""

import os
import select
import threading
import _signal as signal

from . import state
from . import threads
from ..capture.channel_fds import private_pipe
from ..capture.fd_capture import FdCapture
from ..lifetime import checkpoints
from ..lifetime import fork_guard
from ..lifetime import process_tree
from ..lifetime import reaper
from ..lifetime import usage
from .shutdown import exit_now

REQUEST_TYPES = ("checkpoint", "restore", "drop", "checkpoint_info")
BecomeLive = checkpoints.BecomeLive
is_enabled = False
_is_root = False  # this process is the root (it answers for itself, never over its own socket)
_requests = None
announce_ready = None  # main's `ready` frame, for a forked session's runner (set by main)
_fork_link = None  # a forked session's runner keeps its relay's socket open: the relay ends when this process does


def start_root(requests):
    """In the process the host started: fork the live runner and return in it; the parent serves as root.

    Returns True in the first live runner (it announces `ready`), False in one the root started later.
    """
    global is_enabled, _requests
    _requests = requests
    checkpoints.make_token()
    checkpoints.note_own_sockets()
    listener = checkpoints.listen(None)
    is_enabled = True
    checkpoints.save_random()
    pid = checkpoints.fork_quietly()
    if pid == 0:
        listener.close()
        checkpoints.restore_random()
        finish_becoming_live(BecomeLive())
        return True
    try:
        _Root(listener, pid).serve()
    except BecomeLive as live:
        finish_becoming_live(live)
    return False


def handle(request):
    """A time-travel request in the live runner (main thread, between cells)."""
    kind = request.get("type")
    rid = request.get("id")
    name = request.get("name")
    try:
        if not is_enabled:
            raise RuntimeError("this kernel was started without checkpoints")
        if kind == "checkpoint":
            _check_name(name)
            state.sync_streams()
            pid, limits = checkpoints.fork_checkpoint(name, threads.started)
            _send_reply(rid, name=name, pid=pid, limits=limits, livePid=os.getpid())
        elif kind == "restore":
            if name is not None:
                _check_name(name)
            new_pid = checkpoints.ask(name, "spawn")["pid"] if name is not None else None
            if new_pid is None:
                raise RuntimeError("the checkpoint did not start a runner")
            checkpoints.ask(None, "adopt %d" % new_pid)
            _send_reply(rid, name=name, livePid=new_pid)
            _retire(new_pid)
        elif kind == "drop":
            _check_name(name)
            checkpoints.ask(name, "drop")
            _send_reply(rid, name=name)
        elif kind == "checkpoint_info":
            _send_reply(rid, checkpoints=describe(request.get("names")), livePid=os.getpid())
    except BecomeLive:
        raise
    except LookupError:
        _send_reply(rid, ok=False, name=name, error="no checkpoint named %r" % (name,), missing=True)
    except FileExistsError:
        _send_reply(rid, ok=False, name=name, error="a checkpoint named %r already exists" % (name,))
    except Exception as exc:
        _send_reply(rid, ok=False, name=name, error="%s: %s" % (type(exc).__name__, exc))


def describe(names):
    """pid and private memory of each named checkpoint, and of the root; a missing one says so."""
    out = []
    for name in list(names or ())[:1000]:
        if not isinstance(name, str):
            continue
        try:
            info = checkpoints.ask(name, "info") or {}
            out.append({"name": name, "pid": info.get("pid"), "privateBytes": info.get("privateBytes")})
        except LookupError:
            out.append({"name": name, "missing": True})
        except Exception as exc:
            out.append({"name": name, "missing": True, "error": str(exc)})
    try:
        if _is_root:  # asking itself would wait for its own answer
            info = {"pid": os.getpid(), "privateBytes": checkpoints.private_bytes()}
        else:
            info = checkpoints.ask(None, "info") or {}
        out.append({"name": None, "pid": info.get("pid"), "privateBytes": info.get("privateBytes")})
    except Exception:
        pass
    return out


def _check_name(name):
    if not isinstance(name, str) or not name or len(name) > 200:
        raise ValueError("a checkpoint name is a non-empty string of at most 200 characters")


def _send_reply(rid, ok=True, **fields):
    frame = {"type": "checkpoint_reply", "id": rid, "ok": ok}
    frame.update(fields)
    state.writer.send(frame)


def _retire(new_pid):
    """The old live runner after a restore: its own processes end (the restored state never had them), it exits.

    Its checkpoints and the new runner (which may be its child for a moment) stay; they pass to the root.
    """
    keep = set(checkpoints.checkpoint_pids) | {new_pid}
    try:
        keep.update(checkpoints.ask(None, "forks").get("pids", ()))  # forked sessions' runners are not ours
    except Exception:
        pass
    try:
        state.writer.flush_held()
    except Exception:
        pass
    for pid in checkpoints._children():
        if pid in keep or checkpoints._is_guard(pid):
            continue
        below, groups = process_tree.find_descendants(pid)
        for target in [pid] + below:
            _kill(target)
    os._exit(0)


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def finish_becoming_live(live):
    """In a new copy of the runner: re-create what fork did not copy, then answer who asked for it."""
    global _is_root
    _is_root = False
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
    _restart_requests(_requests)
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
    global is_enabled, _fork_link
    stdin, stdout = live.adopt
    os.dup2(stdin, _requests._reader._fd)
    os.dup2(stdout, state.writer._fd)
    os.close(stdin)
    os.close(stdout)
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    from . import shutdown

    shutdown.kernel_group = os.getpid()
    is_enabled = False
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


def _restart_requests(requests):
    requests._cond = threading.Condition()
    requests._cell = 0
    requests._reading = False
    requests._urgent = False
    requests._queue = []
    requests._reader._buffer = bytearray()  # bytes read for the old runner are not this one's
    requests._wake_r, requests._wake_w = private_pipe()
    threads.start_daemon(requests._helper_loop, "evalkit-reader")


class _Root(object):
    """The process the host started, once it has forked the live runner: see the module's docstring."""

    def __init__(self, listener, live):
        self.listener = listener
        self.live = live
        self.forks = set()  # runners of forked sessions started from this kernel's checkpoints
        self.reader = _requests._reader

    def serve(self):
        global _is_root
        _is_root = True
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, _ignore)
        signal.set_wakeup_fd(wake_w)
        listener = self.listener.fileno()
        stdin = self.reader._fd
        while True:
            self._reap()
            poller = select.poll()
            poller.register(listener, select.POLLIN)
            poller.register(wake_r, select.POLLIN)
            if self.live is None:
                poller.register(stdin, select.POLLIN | select.POLLHUP)
            try:
                events = poller.poll()
            except InterruptedError:
                continue
            for fd, _ in events:
                if fd == wake_r:
                    try:
                        os.read(wake_r, 512)
                    except OSError:
                        pass
                elif fd == listener:
                    self._answer()
                elif fd == stdin and self.live is None:
                    self._read_requests()

    def _reap(self):
        for pid, code, sig in checkpoints.reap_children():
            self.forks.discard(pid)
            if pid == self.live:
                self.live = None
                state.writer.send({"type": "runner_exit", "pid": pid, "exitCode": code, "signal": sig})

    def _answer(self):
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        command = checkpoints._read_command(conn) or ""
        if command.startswith("adopt "):
            try:
                self.live = int(command.split()[1])
            except (ValueError, IndexError):
                pass
            checkpoints.reply(conn, {"ok": True})
        elif command.startswith("died "):
            # A checkpoint reaped a runner it spawned: the live one's end is reported like a child's.
            parts = command.split()
            try:
                pid = int(parts[1])
                code = None if parts[2] == "None" else int(parts[2])
                sig = None if parts[3] == "None" else int(parts[3])
            except (ValueError, IndexError):
                pid = None
            self.forks.discard(pid)
            if pid is not None and pid == self.live:
                self.live = None
                state.writer.send({"type": "runner_exit", "pid": pid, "exitCode": code, "signal": sig})
            checkpoints.reply(conn, {"ok": True})
        elif command.startswith("fork "):
            try:
                self.forks.add(int(command.split()[1]))
            except (ValueError, IndexError):
                pass
            checkpoints.reply(conn, {"ok": True})
        elif command == "forks":
            checkpoints.reply(conn, {"pids": sorted(self.forks)})
        elif command == "info":
            checkpoints.reply(conn, {"pid": os.getpid(), "privateBytes": checkpoints.private_bytes()})
        conn.close()

    def _read_requests(self):
        """No runner lives: the root serves what the host may ask (restore, info, drop, exit)."""
        if not self.reader.fill():
            exit_now(0, graceful=False)
        while self.live is None:
            frame = self.reader.take_buffered()
            if frame is None:
                return
            kind = frame.get("type", "execute")
            if kind == "exit":
                exit_now(0, graceful=True)
            elif kind == "restore":
                self._restore(frame)
            elif kind in ("drop", "checkpoint_info"):
                handle(frame)
            elif kind == "execute":
                state.writer.send(
                    {"type": "done", "id": frame.get("id"), "status": "error", "executionCount": None,
                     "cancelled": True, "noRunner": True}
                )
            else:
                state.writer.send({"type": "protocol_error", "reason": "no runner is live: %r ignored" % (kind,)})

    def _restore(self, frame):
        rid = frame.get("id")
        name = frame.get("name")
        announce = {"type": "checkpoint_reply", "id": rid, "ok": True, "name": name}
        if name is None:
            checkpoints.save_random()
            pid = checkpoints.fork_quietly()
            if pid == 0:
                self.listener.close()
                checkpoints.restore_random()
                raise BecomeLive(None, announce)
            self.live = pid
            return
        try:
            _check_name(name)
            self.live = checkpoints.ask(name, "spawn")["pid"]
            frame = dict(announce)
            frame["livePid"] = self.live
            state.writer.send(frame)
        except LookupError:
            _send_reply(rid, ok=False, name=name, error="no checkpoint named %r" % (name,), missing=True)
        except Exception as exc:
            _send_reply(rid, ok=False, name=name, error="%s: %s" % (type(exc).__name__, exc))


def _ignore(signum, frame):
    pass

