"""NDJSON framing on the runner's private protocol descriptors: always-valid JSON, one frame per line."""

import json
import math
import os
import threading

_encode_fast = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


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
    try:
        text = _encode_fast(frame)
    except (ValueError, TypeError, RecursionError):
        text = _encode_fast(make_json_safe(frame))
    return text.encode("ascii") + b"\n"


class FrameWriter(object):
    """Writes frames to the private duplicate of the original stdout; safe from any thread."""

    def __init__(self, fd, trace=None):
        self._fd = fd
        self._lock = threading.Lock()
        self.broken = False
        self._trace = trace

    def send(self, frame):
        self.send_raw(encode_frame(frame))

    def send_raw(self, data):
        if self._trace is not None:
            self._trace(data)
        with self._lock:
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
    """Reads newline-terminated JSON frames from the private duplicate of the original stdin."""

    def __init__(self, fd):
        self._fd = fd
        self._buffer = bytearray()

    def read_frame(self):
        """Return the next frame dict, None at EOF; skips blank lines, reports bad lines as errors."""
        while True:
            newline = self._buffer.find(b"\n")
            while newline < 0:
                try:
                    chunk = os.read(self._fd, 1 << 16)
                except InterruptedError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    return None
                self._buffer.extend(chunk)
                newline = self._buffer.find(b"\n", len(self._buffer) - len(chunk))
            line = bytes(self._buffer[:newline])
            del self._buffer[: newline + 1]
            if not line.strip():
                continue
            try:
                frame = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError as exc:
                return {"type": "__invalid__", "reason": str(exc)}
            if not isinstance(frame, dict):
                return {"type": "__invalid__", "reason": "frame is not a JSON object"}
            return frame
