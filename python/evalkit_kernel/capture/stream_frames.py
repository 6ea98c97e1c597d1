"""Encodes stdout/stderr frames as protocol lines, byte for byte what the JSON encoder would write, much cheaper.

The C JSON encoder (`encode_basestring_ascii`) walks a 32 KB stream chunk one character at a time: ~50 µs a
frame here, about half of the runner's CPU while printing. Most stream text is ASCII whose only characters
JSON must escape are a few of newline, tab, carriage return, quote and backslash; for such text the same bytes
come from bulk operations (`encode`, `translate`, `replace`: memcpy-like loops), ~15 µs a frame. Anything else
(non-ASCII, other control characters, DEL) takes the encoder as before.
"""

from ..core.json_codec import dumps as _dumps

# Bytes JSON (ensure_ascii) copies unchanged: printable ASCII but `"` and `\`.
_VERBATIM = bytes(c for c in range(0x20, 0x7F) if c not in (0x22, 0x5C))
# What the fast path escapes, in this order (backslash first, so the other escapes are not escaped again),
# each with JSON's own short form (the one `json.dumps` writes).
_SHORT_ESCAPES = ((b"\\", b"\\\\"), (b'"', b'\\"'), (b"\n", b"\\n"), (b"\t", b"\\t"), (b"\r", b"\\r"))
_SHORT = b"".join(raw for raw, _ in _SHORT_ESCAPES)

_heads = {}  # (stream name, cell id) -> the frame's bytes up to its data's opening quote


def _head(name, cell_id):
    key = (name, cell_id)
    head = _heads.get(key)
    if head is None:
        if len(_heads) > 64:
            _heads.clear()  # one entry per cell and stream: never let it grow with the session
        head = ('{"type":%s,"id":%s,"data":"' % (_dumps(name), _dumps(cell_id))).encode("ascii")
        _heads[key] = head
    return head


def escape_text(text):
    """The JSON string body of text (no quotes) as ASCII bytes, equal to what `json.dumps` puts between them."""
    if text.isascii():  # O(1): CPython keeps the flag on the string
        data = text.encode("ascii")
        special = data.translate(None, _VERBATIM)
        if not special:
            return data
        if not special.translate(None, _SHORT):
            for raw, escaped in _SHORT_ESCAPES:
                if raw in special:
                    data = data.replace(raw, escaped)
            return data
    return _dumps(text)[1:-1].encode("ascii")


def encode_stream_frames(name, cell_id, text, chunk_chars, out):
    """Appends to `out` the lines of `text` as `name` frames of `cell_id`, each holding at most chunk_chars."""
    head = _head(name, cell_id)
    if len(text) <= chunk_chars:
        out.append(head)
        out.append(escape_text(text))
        out.append(b'"}\n')
        return
    for start in range(0, len(text), chunk_chars):
        out.append(head)
        out.append(escape_text(text[start : start + chunk_chars]))
        out.append(b'"}\n')
