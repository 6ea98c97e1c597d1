"""env(), read(), write() and output(): the environment, UTF-8 text files and stored full outputs (artifacts)."""

import os

from ..core import state

ARTIFACT_PREFIX = "artifact://"
ARTIFACT_SUFFIX = ".out"
OUTPUT_FORMATS = ("raw", "json", "stripped")
_MISSING_LISTED = 20


def env(key=None, value=None):
    """No arguments: a copy of os.environ. key: its value or None. key and value: set it, return value."""
    if key is None:
        if value is not None:
            raise TypeError("env() got a value but no key: use env(key, value)")
        state.emit_status("env", action="list", count=len(os.environ))
        return dict(os.environ)
    if not isinstance(key, str):
        raise TypeError("env() key must be a str (got %s)" % type(key).__name__)
    if not key or "=" in key or "\0" in key:
        raise ValueError("env() key %r is not a valid variable name (empty, or contains '=' or NUL)" % key)
    if value is None:
        state.emit_status("env", action="get", key=key, found=key in os.environ)
        return os.environ.get(key)
    if not isinstance(value, str):
        raise TypeError("env() value must be a str (got %s); convert it, e.g. env(%r, str(x))"
                        % (type(value).__name__, key))
    if "\0" in value:
        raise ValueError("env() value for %r contains a NUL character" % key)
    os.environ[key] = value
    state.emit_status("env", action="set", key=key)
    return value


def read(path, offset=1, limit=None):
    """The UTF-8 text of a file; `offset` is the first line (1-based), `limit` the most lines returned."""
    import itertools

    target = _path("read()", path)
    _check_int("read()", "offset", offset, 1)
    if limit is not None:
        _check_int("read()", "limit", limit, 0)
    try:
        with open(target, "r", encoding="utf-8-sig", newline="") as handle:
            stop = None if limit is None else offset - 1 + limit
            lines = list(itertools.islice(handle, offset - 1, stop))
    except UnicodeDecodeError as exc:
        raise ValueError(
            "read(): %s is not UTF-8 text (byte 0x%02x at position %d); open(path, 'rb') reads bytes"
            % (target, exc.object[exc.start], exc.start)
        ) from None
    except FileNotFoundError:
        raise FileNotFoundError(2, "read(): no such file (working directory %s)" % os.getcwd(), target) from None
    state.emit_status("read", path=os.path.abspath(target), offset=offset, lines=len(lines))
    return "".join(lines)


def write(path, content):
    """Write str (as UTF-8, newlines untouched) or bytes to `path`, creating parent folders; returns the path."""
    target = _path("write()", path)
    if isinstance(content, str):
        data = content.encode("utf-8", "surrogateescape")
    elif isinstance(content, (bytes, bytearray, memoryview)):
        data = bytes(content)
    else:
        raise TypeError(
            "write() content must be str or bytes (got %s); for data use e.g. write(path, json.dumps(obj))"
            % type(content).__name__
        )
    parent = os.path.dirname(os.path.abspath(target))
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(target, "wb") as handle:
        handle.write(data)
    state.emit_status("write", path=os.path.abspath(target), bytes=len(data))
    return target


def output(*ids, format="raw", query=None, offset=None, limit=None):
    """Read stored full outputs (`artifact://<id>` or bare ids). No ids: the stored artifacts, newest first."""
    fmt = format
    if fmt not in OUTPUT_FORMATS:
        raise ValueError("output() format must be one of %s (got %r)" % (", ".join(map(repr, OUTPUT_FORMATS)), fmt))
    if query is not None and not isinstance(query, str):
        raise TypeError("output() query must be a str (got %s)" % type(query).__name__)
    if offset is not None:
        _check_int("output()", "offset", offset, 1)
    if limit is not None:
        _check_int("output()", "limit", limit, 0)
    folder = artifact_dir()
    if not ids:
        listing = list_artifacts(folder)
        state.emit_status("output", action="list", count=len(listing))
        return listing
    names = [_artifact_id(item) for item in ids]
    values = [_read_artifact(folder, name, fmt, query, offset, limit) for name in names]
    state.emit_status("output", action="read", ids=names, format=fmt)
    return values[0] if len(values) == 1 else values


def artifact_dir():
    explicit = os.environ.get("EVALKIT_ARTIFACTS_DIR")
    if explicit:
        # The host stores artifacts somewhere other than $EVALKIT_HOME/artifacts (tool option artifactsDir).
        return os.path.abspath(explicit)
    home = os.environ.get("EVALKIT_HOME") or os.path.join(os.path.expanduser("~"), ".evalkit")
    return os.path.abspath(os.path.join(home, "artifacts"))


def list_artifacts(folder):
    """[{id, uri, bytes, modified}] for every stored artifact, newest first."""
    found = []
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        if not name.endswith(ARTIFACT_SUFFIX):
            continue
        try:
            info = os.stat(os.path.join(folder, name))
        except OSError:
            continue  # pruned while we looked
        artifact = name[: -len(ARTIFACT_SUFFIX)]
        found.append({"id": artifact, "uri": ARTIFACT_PREFIX + artifact, "bytes": info.st_size,
                      "modified": info.st_mtime})
    found.sort(key=lambda item: item["modified"], reverse=True)
    return found


def _read_artifact(folder, name, fmt, query, offset, limit):
    path = os.path.join(folder, name + ARTIFACT_SUFFIX)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise FileNotFoundError(2, _missing_message(folder, name), path) from None
    text = data.decode("utf-8", "replace")
    if fmt == "raw" and query is None and offset is None and limit is None:
        return text
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line rather than starting another
    plain = [strip_ansi(line) for line in lines] if fmt != "raw" or query is not None else lines
    numbered = list(range(len(lines)))
    if query is not None:
        numbered = [index for index in numbered if query in plain[index]]
    start = (offset or 1) - 1
    picked = numbered[start:] if limit is None else numbered[start:start + limit]
    shown = lines if fmt == "raw" else plain
    if fmt != "json":
        return "\n".join(shown[index] for index in picked)
    return {
        "id": name,
        "uri": ARTIFACT_PREFIX + name,
        "total_bytes": len(data),
        "total_lines": len(lines),
        "matched_lines": len(numbered),
        "lines": [{"line": index + 1, "text": plain[index]} for index in picked],
    }


def _missing_message(folder, name):
    known = [item["id"] for item in list_artifacts(folder)]
    if not known:
        return "output(): artifact %s%s not found; no artifacts are stored in %s" % (ARTIFACT_PREFIX, name, folder)
    shown = ", ".join(known[:_MISSING_LISTED])
    more = " and %d more" % (len(known) - _MISSING_LISTED) if len(known) > _MISSING_LISTED else ""
    return "output(): artifact %s%s not found in %s; stored artifacts (newest first): %s%s" % (
        ARTIFACT_PREFIX, name, folder, shown, more)


def _artifact_id(value):
    if not isinstance(value, str):
        raise TypeError("output() ids must be str like 'artifact://abc123' (got %s)" % type(value).__name__)
    text = value.strip()
    if text.startswith(ARTIFACT_PREFIX):
        text = text[len(ARTIFACT_PREFIX):]
    if not (0 < len(text) <= 64) or any(not (ch.isascii() and (ch.isalnum() or ch in "-_")) for ch in text):
        raise ValueError("output(): %r is not an artifact id (letters, digits, '-' or '_', optionally "
                         "prefixed by artifact://)" % value)
    return text


_ANSI = None


def strip_ansi(text):
    global _ANSI
    if "\x1b" not in text and "\x9b" not in text:
        return text
    if _ANSI is None:
        import re

        # CSI sequences, OSC sequences (terminated by BEL or ST) and two-character escapes.
        _ANSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
    return _ANSI.sub("", text)


def _path(helper, path):
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError("%s path must be a str or path-like (got %s)" % (helper, type(path).__name__))
    text = os.fspath(path)
    if not text:
        raise ValueError("%s path is empty" % helper)
    return os.path.expanduser(text)


def _check_int(helper, field, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s %s must be an int (got %s)" % (helper, field, type(value).__name__))
    if value < minimum:
        raise ValueError("%s %s must be at least %d (got %d)" % (helper, field, minimum, value))
