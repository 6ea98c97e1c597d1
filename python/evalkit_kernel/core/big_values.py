"""Keeps result, display and error frames far below the host's line bound, whatever the size of a value's text.

A trailing expression or an exception can render to tens of megabytes (`b"\\xff" * 30_000_000`, a long list, a
non-ASCII string that grows six-fold when JSON-escaped). One such frame over the host's 64 MiB line bound used to
be a protocol error that killed the kernel. Instead: a text value over TEXT_CAP characters is cut (head, marker,
tail) and its full text is sent first as ordinary stream output (stdout for values, stderr for tracebacks), which
the host keeps in the cell's artifact. Binary (base64) values that together exceed FRAME_BUDGET are dropped with
a marker; `FrameWriter` has a last guard for anything else (protocol.shrink_oversized).
"""

TEXT_CAP = 1 << 20  # characters of one text value kept in a frame: at most ~6 MiB once JSON-escaped
TAIL_CHARS = 2048  # the end of a value (closing brackets, the exception's last words) is worth keeping
FRAME_BUDGET = 40 << 20  # bytes of binary values per frame; the host refuses lines over 64 MiB

_BINARY_PREFIXES = ("image/", "audio/", "video/", "application/pdf", "application/octet-stream")


def _is_binary(mime):
    return mime.startswith(_BINARY_PREFIXES) and not mime.startswith("image/svg")


def cap_text(text, where):
    """text cut to about TEXT_CAP characters around a marker that says how much is missing and where it is."""
    keep_head = TEXT_CAP - TAIL_CHARS
    omitted = len(text) - keep_head - TAIL_CHARS
    marker = (
        "\n…[evalkit: %s of %s characters left out here (one value keeps at most %s); the full text is in this "
        "cell's %s output and its artifact]…\n" % (_n(omitted), _n(len(text)), _n(TEXT_CAP), where)
    )
    return text[:keep_head] + marker + text[-TAIL_CHARS:]


def fit(frame, spill):
    """Make frame small enough to send; spill(name, text) sends full texts ahead of it as stream output."""
    kind = frame.get("type")
    if kind in ("result", "display"):
        _fit_bundle(frame, spill)
    elif kind == "error":
        _fit_error(frame, spill)
    return frame


def _fit_bundle(frame, spill):
    bundle = frame.get("bundle")
    if bundle.__class__ is not dict:
        return
    total = 0
    for value in bundle.values():
        if value.__class__ is str:
            total += len(value)
    if total <= TEXT_CAP:
        return  # the usual bundle: no text to cut, and far below the binary budget
    changed = None
    binary = []
    for mime, value in bundle.items():
        if value.__class__ is not str:
            continue
        if _is_binary(mime):
            binary.append((len(value), mime))
        elif len(value) > TEXT_CAP:
            if changed is None:
                changed = dict(bundle)
            what = "result" if frame.get("type") == "result" else "display"
            spill("stdout", "evalkit: full %s of the %s (%s characters):\n%s\n" % (mime, what, _n(len(value)), value))
            changed[mime] = cap_text(value, "stdout")
    total = sum(size for size, _ in binary)
    if total > FRAME_BUDGET:
        if changed is None:
            changed = dict(bundle)
        for size, mime in sorted(binary, reverse=True):
            if total <= FRAME_BUDGET:
                break
            changed[mime] = "[evalkit: this %s value of %s bytes was dropped: one output carries at most %s bytes]" % (
                mime,
                _n(size),
                _n(FRAME_BUDGET),
            )
            total -= size
    if changed is not None:
        frame["bundle"] = changed


def _fit_error(frame, spill):
    evalue = frame.get("evalue")
    lines = frame.get("traceback")
    lines = lines if isinstance(lines, list) else []
    total = sum(len(line) for line in lines if isinstance(line, str))
    long_evalue = isinstance(evalue, str) and len(evalue) > TEXT_CAP
    if total <= TEXT_CAP and not long_evalue:
        return
    spill("stderr", "evalkit: full traceback (%s characters):\n%s\n" % (_n(total), "\n".join(map(str, lines))))
    if long_evalue:
        frame["evalue"] = cap_text(evalue, "stderr")
    if total > TEXT_CAP:
        frame["traceback"] = _cap_lines([str(line) for line in lines])


def _cap_lines(lines):
    """The first lines within half the budget, a marker, and the last lines (the exception itself) capped."""
    budget = TEXT_CAP // 2
    head = []
    for line in lines[:-1]:
        if len(line) > budget:
            break
        head.append(line)
        budget -= len(line)
    last = lines[-1] if lines else ""
    if len(last) > TEXT_CAP // 2:
        last = last[: TEXT_CAP // 2 - TAIL_CHARS] + "…[evalkit: cut; full text on stderr]…" + last[-TAIL_CHARS:]
    skipped = len(lines) - 1 - len(head)
    marker = ["…[evalkit: %d traceback lines left out here; the full traceback is in this cell's stderr]…" % skipped]
    return head + (marker if skipped > 0 else []) + [last]


def _n(number):
    return "{:,}".format(number)


LINE_GUARD = 56 << 20  # an encoded frame over this is replaced (the host's bound is 64 MiB)
_HOST_WAITS = ("call", "input_request")  # frames someone waits on: better an error in the caller


def replacement(frame, size):
    """A small stand-in for a frame whose encoding is `size` bytes, over LINE_GUARD (metadata, JSON, ...)."""
    kind = frame.get("type")
    if kind in _HOST_WAITS:
        raise ValueError("this %s is %s bytes once encoded; the kernel's channel carries at most %s" % (kind, _n(size), _n(LINE_GUARD)))
    note = "[evalkit: a %s frame of %s bytes was dropped: the kernel's channel carries at most %s bytes a frame]" % (
        kind,
        _n(size),
        _n(LINE_GUARD),
    )
    small = {key: frame[key] for key in ("type", "id", "nonce", "executionCount", "displayId", "update") if key in frame}
    if kind == "error":
        small["ename"] = str(frame.get("ename", "Error"))[:200]
        small["evalue"] = note
        small["traceback"] = [note]
    elif kind in ("result", "display"):
        small["bundle"] = {"text/plain": note}
    elif kind in ("stdout", "stderr"):
        small["data"] = note + "\n"
    else:
        return {"type": "protocol_error", "reason": note}
    return small
