"""NDJSON framing on the runner's private protocol descriptors: always-valid JSON, one frame per line."""

import binascii
import math
import os
import threading

from .big_values import LINE_GUARD, replacement
from ..capture.channel_fds import private_pipe
from .json_codec import dumps as _encode_fast
from .json_codec import loads as _decode


def make_json_safe(value, _depth=0):
    """Return a copy of value that json can encode without NaN, bytes or foreign types."""
    if _depth > 64:
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                key = str(key)
            out[key] = make_json_safe(item, _depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [make_json_safe(item, _depth + 1) for item in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        # Undecodable bytes travel as lone surrogates, which the host maps back to raw bytes.
        return bytes(value).decode("utf-8", "surrogateescape")
    if isinstance(value, (set, frozenset)):
        return [make_json_safe(item, _depth + 1) for item in value]
    return repr(value)


def encode_frame(frame):
    """Serialise a frame to one ASCII line (lone surrogates become \\udcXX escapes, never raw bytes)."""
    bundle = frame.get("bundle")
    if bundle.__class__ is dict:
        spliced = _encode_with_raw_values(frame, bundle)
        if spliced is not None:
            return spliced
    return _encode_text(frame).encode("ascii") + b"\n"


def encode_started(cell_id):
    """The `started` frame of a cell, as encode_frame({"type": "started", "id": cell_id}) gives it, built directly."""
    return b'{"type":"started","id":' + _encode_fast(cell_id).encode("ascii") + b"}\n"


def encode_done(cell_id, status, execution_count, cancelled, cpu_ms, peak_rss, nonce):
    """The `done` frame, as encode_frame gives it for the dict main builds, formatted directly (every cell sends one).

    cell_id and nonce are str (nonce may be None), status "ok" or "error", execution_count an int, cpu_ms a float.
    """
    head = b'{"type":"done","id":%s,"status":"%s","executionCount":%d,"cancelled":%s,"usage":{"cpuMs":%s,"peakRssBytes":%d}' % (
        _encode_fast(cell_id).encode("ascii"),
        b"ok" if status == "ok" else b"error",
        execution_count,
        b"true" if cancelled else b"false",
        repr(float(cpu_ms)).encode("ascii"),
        peak_rss,
    )
    if nonce is None:
        return head + b"}\n"
    return head + b',"nonce":' + _encode_fast(nonce).encode("ascii") + b"}\n"


def _encode_text(frame):
    try:
        return _encode_fast(frame)
    except (ValueError, TypeError, RecursionError):
        return _encode_fast(make_json_safe(frame))


# Big bundle values (base64 images) are already valid JSON string bodies: they are spliced into the line
# instead of being scanned and copied again by the JSON encoder (a 1 MB image: ~3 passes fewer).
_RAW_MIN_CHARS = 1 << 16
_RAW_NONCE = binascii.hexlify(os.urandom(8)).decode("ascii")


def _encode_with_raw_values(frame, bundle):
    raw = None
    for key, value in bundle.items():
        if value.__class__ is str and len(value) >= _RAW_MIN_CHARS and value.isascii():
            data = value.encode("ascii")
            if data.translate(None, _PLAIN_BYTES):
                continue  # quotes, backslashes or control characters: JSON must escape them
            if raw is None:
                raw = []
                bundle = dict(bundle)
            token = "evalkit-raw-%s-%d" % (_RAW_NONCE, len(raw))
            raw.append((token, data))
            bundle[key] = token
    if raw is None:
        return None
    frame = dict(frame)
    frame["bundle"] = bundle
    rest = _encode_text(frame)
    chunks = []
    for token, value in raw:
        head, found, rest = rest.partition(token)
        if not found:
            return None  # the bundle was rewritten by make_json_safe: take the plain path
        chunks.append(head.encode("ascii"))
        chunks.append(value)
    chunks.append(rest.encode("ascii"))
    chunks.append(b"\n")
    return b"".join(chunks)


# Bytes json.dumps(ensure_ascii=True) copies unchanged between the quotes.
_PLAIN_BYTES = bytes(c for c in range(0x20, 0x7F) if c not in (0x22, 0x5C))


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


class RequestChannel(object):
    """Host frames reach the runner here, with no thread hand-off on the way to a cell.

    Between cells the main thread reads requests itself. While a cell runs, frames must still be seen
    (interrupt, bridge replies, is_complete, EOF): a helper thread takes over the reading, but only once the
    cell has outlived one tick (TICK seconds) or made a host request (`call`, `input_request`). Waking it at
    every cell would put a cross-thread wake-up and a GIL hand-off on the path of every short cell, which is
    most of the per-cell cost on small machines. `dispatch(frame)` handles frames that are not execute/exit
    requests (from either thread); requests the helper reads wait in a queue for the main thread.
    """

    TICK = 0.02

    def __init__(self, reader, dispatch, start_daemon, on_tick=None):
        self._reader = reader
        self._dispatch = dispatch
        self._on_tick = on_tick or (lambda: None)
        self._cond = threading.Condition()
        self._cell = 0  # serial of the running cell, 0 between cells
        self._reading = False  # the helper owns the reader
        self._urgent = False
        self._queue = []
        self._wake_r, self._wake_w = private_pipe()
        start_daemon(self._helper_loop, "evalkit-reader")

    def next_request(self):
        """Main thread, between cells: the next execute frame, {"type": "exit"}, or None at EOF."""
        with self._cond:
            while self._reading:
                self._cond.wait()
            if self._queue:
                return self._queue.pop(0)
        while True:
            frame = self._reader.read_frame()
            if frame is None or _is_request(frame):
                return frame
            self._dispatch(frame)

    def has_pending_input(self):
        """Between cells (from the SIGINT handler): is a request already on its way to the main thread?"""
        return bool(self._queue) or self._reader.has_input()

    def begin_cell(self, serial):
        self._cell = serial  # no wake-up: the helper notices at its next tick

    def end_cell(self):
        with self._cond:
            self._cell = 0
            self._urgent = False
            reading = self._reading
        if reading:
            try:
                os.write(self._wake_w, b"x")  # get the helper out of poll()
            except OSError:
                pass

    def read_now(self):
        """The running cell waits on the host (a bridge call): start reading at once."""
        with self._cond:
            if self._cell and not self._reading:
                self._urgent = True
                self._cond.notify_all()

    def _helper_loop(self):
        import select

        poller = select.poll()
        poller.register(self._reader._fd, select.POLLIN | select.POLLHUP)
        poller.register(self._wake_r, select.POLLIN)
        cond = self._cond
        seen = 0
        while True:
            with cond:
                if not self._urgent:
                    cond.wait(self.TICK)
                cell = self._cell
            if cell:
                self._on_tick()
            with cond:
                # A cell seen at two ticks in a row has run for at least one tick. Ownership of the reader
                # only ever passes while that cell still runs (the main thread reads only between cells).
                if not cell or self._cell != cell or (cell != seen and not self._urgent):
                    seen = cell
                    continue
                self._reading = True
            self._read_while_cell_runs(poller)
            seen = 0

    def _read_while_cell_runs(self, poller):
        try:
            while True:
                self._drain_buffered()  # frames read together with the execute request come first
                with self._cond:
                    if not self._cell:
                        return
                try:
                    events = poller.poll(self.TICK * 1000)
                except InterruptedError:
                    continue
                self._on_tick()
                for fd, _ in events:
                    if fd == self._wake_r:
                        os.read(self._wake_r, 512)
                    elif not self._reader.fill():
                        self._deliver(None)
                        return
        finally:
            with self._cond:
                self._reading = False
                self._urgent = False
                self._cond.notify_all()

    def _drain_buffered(self):
        while True:
            frame = self._reader.take_buffered()
            if frame is None:
                return
            self._deliver(frame)

    def _deliver(self, frame):
        if frame is None or _is_request(frame):
            with self._cond:
                self._queue.append(frame)
            if frame is None:
                self._dispatch(None)  # EOF: the runner leaves at once
        else:
            self._dispatch(frame)


def _is_request(frame):
    return frame.get("type", "execute") in ("execute", "exit")


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
