"""fd-level capture: fd 1 and 2 point at private pipes whose drain threads feed the stream router."""

import codecs
import os
import select
import sys
import threading

from .channel_fds import private_pipe
from ..core.threads import start_daemon

PIPE_SIZE = 1 << 20
_F_SETPIPE_SZ = 1031
_FIONREAD = 0x541B


_FD_NAMES = {1: "stdout", 2: "stderr"}


class _Pipe(object):
    __slots__ = ("read_fd", "write_fd", "identity", "taken", "consumed", "read_lock", "alive")

    def __init__(self, read_fd, write_fd):
        self.read_fd = read_fd
        self.write_fd = write_fd
        st = os.fstat(write_fd)
        self.identity = (st.st_dev, st.st_ino)
        self.taken = 0  # bytes read out of the pipe (counted under read_lock)
        self.consumed = 0  # bytes handed to the router (counted under the condition)
        self.read_lock = threading.Lock()
        self.alive = True

    def is_intact(self):
        """Both private ends still name this pipe and its drain thread still runs."""
        if not self.alive:
            return False
        try:
            for fd in (self.read_fd, self.write_fd):
                st = os.fstat(fd)
                if (st.st_dev, st.st_ino) != self.identity:
                    return False
        except OSError:
            return False
        return True


class FdCapture(object):
    """Points fd 1 and 2 at pipes whose bytes a drain thread feeds to the router."""

    def __init__(self, router):
        self._router = router
        self._pipes = {}
        self._cond = threading.Condition()
        # One poll(0) over both pipes tells "nothing pending" in a single syscall (the common case).
        self._idle_poll = select.poll() if hasattr(select, "poll") else None
        self._poll_lock = threading.Lock()
        for fd in (1, 2):
            self._open_pipe(fd)
        router.fd_sync = self.sync

    def _open_pipe(self, fd):
        read_fd, write_fd = private_pipe()  # high numbers: a cell closing low descriptors leaves them alone
        enlarge_pipe(read_fd)
        # The drain reads only after poll() says so; non-blocking keeps a read (and its lock) from ever hanging.
        os.set_blocking(read_fd, False)
        os.dup2(write_fd, fd)
        pipe = _Pipe(read_fd, write_fd)
        self._pipes[fd] = pipe
        if self._idle_poll is not None:
            with self._poll_lock:
                self._idle_poll.register(read_fd, select.POLLIN)
        name = _FD_NAMES[fd]
        start_daemon(self._drain, "evalkit-drain-" + name, name, pipe)

    def repair(self):
        """Re-point fd 1/2 at the pipes if a cell closed or replaced them (three fstat calls per descriptor).

        If a cell replaced the pipes' own private ends (dup2 over every descriptor it could find), the
        pipe is rebuilt, so capture keeps working for the rest of the kernel's life.
        """
        for fd, pipe in list(self._pipes.items()):
            try:
                st = os.fstat(fd)
                same = (st.st_dev, st.st_ino) == pipe.identity
            except OSError:
                same = False
            # The drain thread may not have seen its EOF yet, so check the private ends themselves.
            if not pipe.is_intact():
                self._rebuild(fd, pipe)
                continue
            if same:
                continue
            try:
                os.dup2(pipe.write_fd, fd)
            except OSError:
                pass

    def _rebuild(self, fd, broken):
        broken.alive = False
        if self._idle_poll is not None:
            with self._poll_lock:
                try:
                    self._idle_poll.unregister(broken.read_fd)
                except (KeyError, ValueError, OSError):
                    pass
        # The old descriptor numbers may now belong to the cell: leave them open rather than close its files.
        try:
            self._open_pipe(fd)
        except OSError:
            return
        self._router.write(
            "stderr", "evalkit: %s capture was rebuilt after a cell replaced its descriptors\n" % _FD_NAMES[fd]
        )

    def sync(self, timeout=0.5):
        """Wait until every byte written to fd 1/2 before this call has reached the router.

        Holding a pipe's read lock freezes its drain between reads, so the bytes still in the pipe
        (FIONREAD) plus those already taken out are exactly what must be routed; bytes written later are
        not waited for. Gives up only when the drain threads stop making progress for `timeout` seconds.
        """
        pipes = list(self._pipes.values())
        # A poll object must not be polled from two threads at once (parallel() workers write too).
        is_empty = False
        if self._idle_poll is not None and self._poll_lock.acquire(False):
            try:
                is_empty = not self._idle_poll.poll(0)  # the common case: nothing pending, one syscall
            except (OSError, InterruptedError):
                pass
            finally:
                self._poll_lock.release()
        if is_empty:
            # Nothing was in the pipes at the poll. A byte read out before it is counted in `taken` by the
            # time the drain lets go of its read lock, so an unlocked pipe whose every byte taken was also
            # consumed owes the router nothing (a read still in progress holds the lock: full check).
            for pipe in pipes:
                if pipe.read_lock.locked() or (pipe.alive and pipe.consumed < pipe.taken):
                    break
            else:
                return
        goals = []
        for pipe in pipes:
            # Under the read lock no read is half done, so `taken` counts every byte out of the pipe.
            with pipe.read_lock:
                target = pipe.taken + (0 if is_empty else _bytes_pending(pipe.read_fd))
            if pipe.alive and pipe.consumed < target:
                goals.append((pipe, target))
        if not goals:
            return
        with self._cond:
            progress = -1
            while not self._cond.wait_for(lambda: all(p.consumed >= t for p, t in goals), timeout):
                now = sum(p.consumed for p, _ in goals)
                if now == progress or not all(p.alive for p, _ in goals):
                    return
                progress = now

    def _drain(self, name, pipe):
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        write = self._router.write
        cond = self._cond
        poller = select.poll() if hasattr(select, "poll") else None
        if poller is not None:
            poller.register(pipe.read_fd, select.POLLIN | select.POLLHUP)
        while True:
            if poller is not None:
                try:
                    poller.poll()
                except InterruptedError:
                    continue
            with pipe.read_lock:
                try:
                    data = os.read(pipe.read_fd, 1 << 16)
                except (InterruptedError, BlockingIOError):
                    data = None
                except OSError:
                    data = b""
                if data:
                    pipe.taken += len(data)
            if data:
                try:
                    write(name, decoder.decode(data))
                except Exception:
                    pass
                with cond:
                    pipe.consumed += len(data)
                    cond.notify_all()
            elif data == b"":
                pipe.alive = False
                with cond:
                    cond.notify_all()
                return


def enlarge_pipe(fd):
    # A C extension holding the GIL while writing more than the pipe holds would wait forever.
    if _fcntl is None:
        return
    try:
        _fcntl.fcntl(fd, _F_SETPIPE_SZ, PIPE_SIZE)
    except (OSError, ValueError):
        pass


try:
    import fcntl as _fcntl
except ImportError:
    _fcntl = None


def _bytes_pending(fd):
    if _fcntl is None:
        return 0
    try:
        # A C int in native order; int.from_bytes spares the `struct` module (idle memory).
        return int.from_bytes(_fcntl.ioctl(fd, _FIONREAD, b"\0\0\0\0"), sys.byteorder, signed=True)
    except (OSError, ValueError):
        return 0
