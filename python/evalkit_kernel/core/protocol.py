"""NDJSON framing on the runner's private protocol descriptors: frames written whole from any thread, read one line at a time."""

import os
import threading

from .big_values import LINE_GUARD, replacement
from .frame_encoding import encode_frame
from .json_codec import loads as _decode


_HOST_REQUESTS = ("call", "input_request")


class FrameWriter(object):
    """Writes frames to the private duplicate of the original stdout; safe from any thread.

    A held frame (`send(frame, hold=True)`) goes out with the next frame written, or at the latest when
    `flush_held()` runs (the request channel calls it every tick while a cell runs). On small virtual
    machines a pipe write that wakes the host costs tens of microseconds, so a short cell's started,
    result and done frames share one write.
    """

    def __init__(self, fd, trace=None):
        self._fd = fd
        self._lock = threading.Lock()
        self.broken = False
        self._trace = trace
        self._held = []
        self.on_host_request = None  # called before a frame the host must answer goes out

    def send(self, frame, hold=False):
        if self.on_host_request is not None and frame.get("type") in _HOST_REQUESTS:
            self.on_host_request()
        data = encode_frame(frame)
        if len(data) > LINE_GUARD:
            data = encode_frame(replacement(frame, len(data)))
        if hold:
            self.hold_raw(data)
            return
        self.send_raw(data)

    def hold_raw(self, data):
        """An encoded frame that waits for the next frame written (or the next tick), as send(hold=True)."""
        if self._trace is not None:
            self._trace(data)
        with self._lock:
            self._held.append(data)

    def send_raw(self, data):
        if self._trace is not None:
            self._trace(data)
        with self._lock:
            if self._held:
                self._held.append(data)
                data = b"".join(self._held)
                self._held = []
            self._write_locked(data)

    def flush_held(self):
        if self._held:
            with self._lock:
                if self._held:
                    data = b"".join(self._held)
                    self._held = []
                    self._write_locked(data)

    def _write_locked(self, data):
        if self.broken:
            return
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError:
            # The host is gone; the reader will see EOF and the runner exits.
            self.broken = True


class FrameReader(object):
    """Reads newline-terminated JSON frames from the private duplicate of the original stdin.

    Not thread-safe: only one thread reads at a time (see RequestChannel).
    """

    def __init__(self, fd):
        self._fd = fd
        self._buffer = bytearray()

    def read_frame(self):
        """Return the next frame dict, None at EOF; skips blank lines, reports bad lines as errors."""
        while True:
            frame = self.take_buffered()
            if frame is not None:
                return frame
            if not self.fill():
                return None

    def fill(self):
        """One read of whatever is available (blocks when nothing is); False at EOF."""
        while True:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                return False
            self._buffer.extend(chunk)
            return True

    def has_input(self):
        """Bytes already read but not yet taken, or waiting in the pipe (never blocks, never reads)."""
        if self._buffer:
            return True
        return _bytes_available(self._fd)

    def take_buffered(self):
        """The next complete frame already read, or None (never reads)."""
        while True:
            newline = self._buffer.find(b"\n")
            if newline < 0:
                return None
            line = bytes(self._buffer[:newline])
            del self._buffer[: newline + 1]
            if not line.strip():
                continue
            try:
                frame = _decode(line.decode("utf-8", "surrogateescape"))
            except ValueError as exc:
                return {"type": "__invalid__", "reason": str(exc)}
            if not isinstance(frame, dict):
                return {"type": "__invalid__", "reason": "frame is not a JSON object"}
            return frame


def _bytes_available(fd):
    try:
        import fcntl
        import struct
        import termios

        return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0] > 0
    except (ImportError, OSError, ValueError, AttributeError):
        try:
            import select

            return bool(select.select([fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False
