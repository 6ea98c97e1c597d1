"""JSON for the protocol without importing `json`, which pulls in `re` and `enum` (~9 ms of every start-up).

The C accelerators in `_json` do the work `json` would delegate to them anyway, with the same results for
what the runner encodes (compact separators, ASCII only, no NaN). Where `_json` is missing (another Python
implementation), the `json` module is used instead.
"""

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None

_WHITESPACE = " \t\n\r"


def _reject(value):
    raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


class _ScanContext(object):
    """What the C scanner reads from a decoder: json's defaults, NaN and Infinity included."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__


if _json is not None:
    _scan = _json.make_scanner(_ScanContext())

    def loads(text):
        """Like json.loads(text) for a str; raises ValueError for anything that is not one JSON value."""
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _scan(text, start)
        except StopIteration as exc:
            raise ValueError("Expecting value at char %d" % exc.value)
        if text[end:].strip(_WHITESPACE):
            raise ValueError("Extra data at char %d" % end)
        return value

    # One encoder for every frame (it holds no state between calls): without the `markers` dict there is no
    # cycle check, so a cyclic value ends in RecursionError instead of ValueError; callers catch both.
    _encode = _json.make_encoder(None, _reject, _json.encode_basestring_ascii, None, ":", ",", False, False, False)

    def dumps(value):
        """Compact ASCII JSON (like json.dumps(value, separators=(",", ":"), allow_nan=False))."""
        if isinstance(value, str):
            return _json.encode_basestring_ascii(value)
        return "".join(_encode(value, 0))

else:  # pragma: no cover
    import json as _std

    def loads(text):
        return _std.loads(text)

    def dumps(value):
        return _std.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
