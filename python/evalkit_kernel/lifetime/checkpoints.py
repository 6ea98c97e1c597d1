"""Checkpoints as parked copy-on-write forks of the runner: their sockets, the parked loop, memory and limits.

A checkpoint is a child the live runner forks between cells. It holds the interpreter's state in pages it
shares with the runner until either writes them, and waits, parked, on a Unix socket of its own (Linux
abstract namespace: no file to clean up; peers of another user are refused). Asked to `spawn`, it forks: the
child is a new live runner with the checkpoint's state, and the checkpoint stays as it was, ready to be restored
again. It reaps the runners it spawned and tells the root (core/time_travel.py) when one ends. Nothing here speaks
the protocol; the live side does (core/time_travel).
"""

import gc
import os
import struct
import sys
import _signal as signal

from . import checkpoint_limits


class _LazyModule(object):
    """A standard module imported at its first use. `socket` pulls in enum and `json` pulls in re (together ~8 ms of
    every kernel's start-up), and most kernels never take a checkpoint."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        module = __import__(self._name)
        globals()[self._name] = module
        return getattr(module, attr)


socket = _LazyModule("socket")
json = _LazyModule("json")

token = None  # per kernel, made by the root at start-up: names this kernel's sockets
is_enabled = False  # this kernel runs with checkpoints (a forked session's runner does not)
is_root = False  # this process is the root: it answers for itself, never over its own socket
_CALL_TIMEOUT = 10.0
checkpoint_pids = set()  # checkpoints this process forked: never "a child process of the cell"


def is_supported():
    return sys.platform.startswith("linux") and hasattr(os, "fork") and hasattr(socket, "AF_UNIX")


def make_token():
    global token
    token = os.urandom(8).hex()
    return token


def address(name):
    """The abstract socket of checkpoint `name` (None: the root, which holds the fresh interpreter)."""
    if name is None:
        return "\0evalkit-%s-root" % token
    import hashlib

    return "\0evalkit-%s-%s" % (token, hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:40])


def listen(name):
    """A listening socket for `name`; raises FileExistsError when a live checkpoint already has it."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(address(name))
    except OSError as exc:
        sock.close()
        if exc.errno == 98:  # EADDRINUSE
            raise FileExistsError(name)
        raise
    sock.listen(8)
    return sock


def ask(name, command, timeout=_CALL_TIMEOUT):
    """Sends one command line to checkpoint `name` and returns its one-line JSON answer (None: no answer)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(address(name))
        except (ConnectionRefusedError, FileNotFoundError):
            raise LookupError(name)
        data = b""
        try:
            sock.sendall((command + "\n").encode("ascii"))
            while not data.endswith(b"\n"):
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
        except ConnectionError:
            # A checkpoint that was told to drop (without waiting) may still have been listening when we
            # connected, then closed the connection unanswered: it is gone all the same.
            data = b""
    finally:
        sock.close()
    if not data.strip():
        raise LookupError(name)  # it ended while we asked (dropped, or killed from outside)
    return json.loads(data.decode("utf-8"))


def tell(name, command):
    """Sends one command line to checkpoint `name` without waiting for its answer (LookupError: none by that name)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(_CALL_TIMEOUT)
    try:
        try:
            sock.connect(address(name))
        except (ConnectionRefusedError, FileNotFoundError):
            raise LookupError(name)
        sock.sendall((command + "\n").encode("ascii"))
    finally:
        sock.close()


def drain_wakeup(fd):
    """Empties a signal wake-up pipe (set_wakeup_fd): the poll loops only need to know that a signal came."""
    try:
        os.read(fd, 512)
    except OSError:
        pass


def reply(conn, value):
    try:
        conn.sendall((json.dumps(value) + "\n").encode("utf-8"))
    except OSError:
        pass


def private_bytes(pid="self"):
    """Memory only this process holds (Private_Clean + Private_Dirty: its USS), from smaps_rollup."""
    total = 0
    try:
        with open("/proc/%s/smaps_rollup" % pid, "rb") as handle:
            for line in handle:
                if line.startswith(b"Private_"):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return total


class BecomeLive(BaseException):
    """Raised in a freshly spawned copy: unwinds the parked stack up to the request loop, which serves from then on.

    `conn` (when set) gets the new runner's pid; `announce` (when set) is a frame to send once it is live.
    """

    def __init__(self, conn=None, announce=None, adopt=None):
        BaseException.__init__(self)
        self.conn = conn
        self.announce = announce
        self.adopt = adopt  # (stdin, stdout) another host process handed over: a forked session's channel


def fork_checkpoint(name, runner_threads):
    """Fork a parked checkpoint of this process; returns (its pid, what a restore will not carry)."""
    limits = checkpoint_limits.describe(runner_threads, checkpoint_pids)
    listener = listen(name)
    save_random()
    pid = fork_quietly()
    if pid == 0:
        _run_child(lambda: park(listener))
    listener.close()
    checkpoint_pids.add(pid)
    return pid, limits


def _run_child(body):
    """A forked child runs body and exits, unless it became a live runner (BecomeLive goes up the stack)."""
    try:
        body()
    except BecomeLive:
        raise
    except BaseException:
        pass
    os._exit(0)


def fork_quietly():
    """os.fork() without the fork guard's child hook: this child is the runner's, not a cell's."""
    from . import fork_guard

    fork_guard.suspended = True
    try:
        return os.fork()
    finally:
        fork_guard.suspended = False


def park(listener):
    """The checkpoint's life: answer `info`, `drop`, `spawn` and `adopt` until dropped or killed with the kernel.

    A runner it spawns is its child: when one ends, it is reaped here and the root is told (`died`), which
    reports the live runner's end to the host.
    """
    global _wake
    _quiet_signals()
    gc.disable()  # a collection would write to every object's page: the checkpoint must touch nothing
    import select

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    _wake = (wake_r, wake_w)
    signal.signal(signal.SIGCHLD, _on_child)
    signal.set_wakeup_fd(wake_w)
    poller = select.poll()
    poller.register(listener.fileno(), select.POLLIN)
    poller.register(wake_r, select.POLLIN)
    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        for fd, _ in events:
            if fd == wake_r:
                drain_wakeup(wake_r)
                for pid, code, sig in reap_children():
                    try:
                        ask(None, "died %d %s %s" % (pid, code, sig), timeout=2.0)
                    except Exception:
                        pass
            else:
                _serve_one(listener)


def _serve_one(listener):
    try:
        conn, _ = listener.accept()
    except OSError:
        return
    command, fds = _read_command(conn, with_fds=True)
    if command == "adopt" and len(fds) == 2:
        spawn_runner(conn, listener, adopt=fds)
    for fd in fds:
        os.close(fd)
    if command == "info":
        reply(conn, {"pid": os.getpid(), "privateBytes": private_bytes()})
    elif command == "drop":
        listener.close()  # from now on the name is free: a restore of it finds nothing
        reply(conn, {"ok": True})
        os._exit(0)
    elif command == "spawn":
        spawn_runner(conn, listener)
    conn.close()


_wake = None  # the parked process's SIGCHLD wake-up pipe (closed by a runner it spawns)


def _on_child(signum, frame):
    pass


def close_parked_state():
    """In a runner spawned from a checkpoint: the checkpoint's wake-up pipe and SIGCHLD handling are not its own."""
    global _wake
    if _wake is not None:
        for fd in _wake:
            try:
                os.close(fd)
            except OSError:
                pass
        _wake = None


def spawn_runner(conn, listener, announce=None, adopt=None):
    """Fork; in the child (a live runner to be) raise BecomeLive. The runner stays this checkpoint's child."""
    if fork_quietly() == 0:
        listener.close()
        gc.enable()
        restore_random()
        raise BecomeLive(conn, announce, adopt)


def _read_command(conn, with_fds=False):
    """The command line a peer of our own user sent (None otherwise); with_fds: also (command, passed fds)."""
    conn.settimeout(_CALL_TIMEOUT)
    fds = []
    command = None
    try:
        pid, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, getattr(socket, "SO_PEERCRED", 17), struct.calcsize("3i")))
        if uid == os.getuid():  # another user's process: abstract sockets have no file permissions to stop it
            data = b""
            while not data.endswith(b"\n") and len(data) < 4096:
                chunk, ancillary, _, _ = conn.recvmsg(4096, socket.CMSG_SPACE(8 * 4))
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds.extend(struct.unpack("%di" % (len(payload) // 4), payload[: len(payload) // 4 * 4]))
                if not chunk:
                    break
                data += chunk
            command = data.decode("ascii", "replace").strip()
    except (OSError, ValueError, struct.error):
        pass
    if not with_fds:
        for fd in fds:
            os.close(fd)
        return command
    return command, fds


def _quiet_signals():
    for name in ("SIGINT", "SIGPIPE"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


_random_state = None


def save_random():
    """random reseeds itself in every forked child (os.register_at_fork): keep its state to put back."""
    global _random_state
    module = sys.modules.get("random")
    _random_state = module.getstate() if module is not None else None


def restore_random():
    module = sys.modules.get("random")
    if module is not None and _random_state is not None:
        module.setstate(_random_state)


def reap_children():
    """Every exited child of this process, as (pid, exit code or None, signal or None), without blocking."""
    ended = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == 0:
            break
        if os.WIFSIGNALED(status):
            ended.append((pid, None, os.WTERMSIG(status)))
        else:
            ended.append((pid, os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, None))
    return ended
