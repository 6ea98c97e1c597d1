"""Frames as bytes: one always-valid ASCII JSON line each (lone surrogates escaped, big base64 values spliced in)."""

import binascii
import math
import os

from .json_codec import dumps as _encode_fast


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


# A result shown as text this short is formatted directly (encode_plain_result); longer ones take encode_frame,
# which splices big values in and is never slower for them.
PLAIN_RESULT_MAX_CHARS = 1 << 14


def encode_plain_result(cell_id, text, execution_count, nonce):
    """The `result` frame of a value shown only as text/plain, as encode_frame gives it for the frame the runner
    builds ({"type", "bundle", "executionCount", "id", "nonce"?}), formatted directly: most results are short text.

    cell_id and text are str, execution_count an int or None, nonce a str or None.
    """
    head = b'{"type":"result","bundle":{"text/plain":%s},"executionCount":%s,"id":%s' % (
        _encode_fast(text).encode("ascii"),
        b"null" if execution_count is None else b"%d" % execution_count,
        _encode_fast(cell_id).encode("ascii"),
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
