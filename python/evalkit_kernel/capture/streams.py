"""Output capture: the sys.stdout/sys.stderr objects cells write to, which feed the stream router (router.py)."""

import codecs
import io
import sys
import threading
import time

_monotonic = time.monotonic

from .router import CHUNK_CHARS, FD_SYNC_INTERVAL, FLUSH_DELAY, ORPHAN_LIMIT, StreamRouter  # noqa: F401 (re-exported)


class CellTextStream(io.TextIOBase):
    """What sys.stdout / sys.stderr are inside the runner."""

    def __init__(self, router, name, fd):
        super(CellTextStream, self).__init__()
        self._router = router
        self._name = name
        self._fd = fd
        self.buffer = CellBinaryStream(router, name, fd)
        # An instance attribute: print() finds it before the class's method, and it skips this object's
        # attribute lookups while the main thread keeps printing (router.stream_writer).
        self.write = router.stream_writer(name, self._write)

    @property
    def name(self):
        return "<%s>" % self._name

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "surrogateescape"

    @property
    def line_buffering(self):
        return False

    @property
    def mode(self):
        return "w"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    def write(self, text):
        return self._write(text)

    def _write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        router = self._router
        if _monotonic() >= router.fd_sync_due:
            router.pull_fd_output()
        router.write(self._name, text)
        return len(text)

    def flush(self):
        self._router.flush()


class CellBinaryStream(io.RawIOBase):
    """sys.stdout.buffer: bytes decoded as UTF-8, undecodable bytes kept as surrogate escapes."""

    def __init__(self, router, name, fd):
        super(CellBinaryStream, self).__init__()
        self._router = router
        self._name = name
        self._fd = fd
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._lock = threading.Lock()

    def writable(self):
        return True

    def fileno(self):
        return self._fd

    def isatty(self):
        return False

    def write(self, data):
        data = bytes(data)
        with self._lock:
            text = self._decoder.decode(data)
        router = self._router
        if _monotonic() >= router.fd_sync_due:
            router.pull_fd_output()
        router.write(self._name, text)
        return len(data)

    def flush(self):
        self._router.flush()


def install_streams(router):
    sys.stdout = CellTextStream(router, "stdout", 1)
    sys.stderr = CellTextStream(router, "stderr", 2)
    sys.__stdout__ = sys.stdout
    sys.__stderr__ = sys.stderr


def restore_streams():
    """Puts back sys.stdout/sys.stderr that an earlier cell set to None or left closed; returns their names.

    Without this every later print() in the session vanishes without a word. A replacement that still
    works (a file the user redirected to on purpose) is left alone.
    """
    if sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__:
        return ()  # the usual case, checked on every cell
    restored = []
    for name in ("stdout", "stderr"):
        current = getattr(sys, name, None)
        original = getattr(sys, "__%s__" % name, None)
        if current is original or not isinstance(original, CellTextStream):
            continue  # ours keeps working even when "closed": its write() never refuses
        try:
            is_broken = current is None or getattr(current, "closed", False) is True
        except Exception:
            is_broken = True
        if is_broken:
            setattr(sys, name, original)
            restored.append(name)
    return restored
