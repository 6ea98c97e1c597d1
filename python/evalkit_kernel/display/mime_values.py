"""What goes on the wire for one MIME entry: base64 for binary, text for text, plain JSON data for JSON types."""

import binascii

from ..core import json_codec

_TEXT_MIMES = ("image/svg+xml", "application/javascript", "application/xml")
_MAX_JSON_DEPTH = 64


def is_text_mime(mime):
    return mime.startswith("text/") or mime in _TEXT_MIMES or mime.endswith("+xml")


def is_json_mime(mime):
    return mime == "application/json" or mime.endswith("+json")


def to_jsonable(value, depth=0):
    """Plain JSON data from what a repr returned (tuples, numpy scalars and arrays, odd keys)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if depth > _MAX_JSON_DEPTH:
        return repr(value)
    if isinstance(value, dict):
        return dict((k if isinstance(k, str) else str(k), to_jsonable(v, depth + 1)) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return binascii.b2a_base64(bytes(value), newline=False).decode("ascii")
    module = type(value).__module__ or ""
    if module.startswith("numpy"):
        for name in ("tolist", "item"):
            method = getattr(value, name, None)
            if method is not None:
                try:
                    return to_jsonable(method(), depth + 1)
                except Exception:
                    break
    return repr(value)


def normalize_value(mime, value):
    """What goes on the wire for one MIME entry: base64 for binary, text for text, plain data for JSON."""
    if is_json_mime(mime):
        if isinstance(value, (bytes, bytearray, memoryview)):
            value = bytes(value).decode("utf-8", "replace")
        if isinstance(value, str):
            try:
                value = json_codec.loads(value)
            except ValueError:
                return value
        return to_jsonable(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        if is_text_mime(mime):
            return bytes(value).decode("utf-8", "replace")
        return binascii.b2a_base64(bytes(value), newline=False).decode("ascii")
    if isinstance(value, str):
        return value
    return to_jsonable(value)


def normalize_bundle(bundle, metadata=None):
    """Check and encode a raw {mime: value} bundle (display(raw=True), _repr_mimebundle_)."""
    if not isinstance(bundle, dict):
        raise TypeError("a MIME bundle must be a dict of {mime: value}, not %s" % (type(bundle).__name__,))
    data = {}
    for mime, value in bundle.items():
        if value is None:
            continue
        data[str(mime)] = normalize_value(str(mime), value)
    md = dict(metadata) if isinstance(metadata, dict) else {}
    return data, md
