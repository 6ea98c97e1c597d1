"""%history with IPython's options, ranges and layout, over this session's In/Out."""

import fnmatch
import re

from .registry import UsageError

_RANGE = re.compile(r"^((?P<startsess>~?\d+/))?(?P<start>\d+)?((?P<sep>[\-:])((?P<endsess>~?\d+/))?(?P<end>\d*))?$")


def _parse(args):
    from .registry import split_args

    words = split_args(args)
    opts = {"n": False, "o": False, "p": False, "f": None, "g": None, "l": None, "u": False}
    ranges = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word in ("-n", "-o", "-p", "-u"):
            opts[word[1]] = True
        elif word in ("-r", "-t", "-y"):
            continue  # raw and translated are the same text here; -y: overwrite without asking
        elif word == "-f":
            if i >= len(words):
                raise UsageError("%history -f needs a file name")
            opts["f"] = words[i]
            i += 1
        elif word == "-l":
            opts["l"] = 10
            if i < len(words) and words[i].isdigit():
                opts["l"] = int(words[i])
                i += 1
        elif word == "-g":
            opts["g"] = []
            while i < len(words) and not words[i].startswith("-"):
                opts["g"].append(words[i])
                i += 1
        elif word.startswith("-") and not _RANGE.match(word):
            raise UsageError("%%history: unrecognized option %s" % word)
        else:
            ranges.append(word)
    return opts, ranges


def _select(entries, ranges):
    if not ranges:
        return entries
    last = entries[-1][0] if entries else 0
    picked = []
    for spec in ranges:
        m = _RANGE.match(spec)
        if m is None or (m.group("startsess") or m.group("endsess") or "0/").strip("/") not in ("0", ""):
            continue  # another session's lines: this kernel keeps only its own
        if m.group("start"):
            start = int(m.group("start"))
            end = m.group("end")
            if m.group("sep") == "-":
                stop = int(end) + 1 if end else last + 1
            else:
                stop = int(end) if end else start + 1
        else:
            start, stop = 1, last + 1
        picked.extend(e for e in entries if start <= e[0] < stop)
    return picked


def print_history(args, ns):
    opts, ranges = _parse(args)
    history = ns.get("In") or []
    outputs = ns.get("Out") or {}
    entries = [(i, text) for i, text in enumerate(history) if i > 0]
    numbered = opts["n"]
    if opts["g"] is not None:
        pattern = "*" + " ".join(opts["g"]) + "*" if opts["g"] else "*"
        entries = [e for e in entries[:-1] if fnmatch.fnmatch(e[1], pattern)]
        if opts["u"]:
            seen = set()
            entries = [e for e in entries if not (e[1] in seen or seen.add(e[1]))]
        if opts["l"] is not None:
            entries = entries[-opts["l"]:]
        numbered = True
    elif opts["l"] is not None:
        entries = entries[:-1][-opts["l"]:] if opts["l"] else []  # the %history line itself is left out
    else:
        entries = _select(entries, ranges)
    lines = []
    for number, text in entries:
        text = text.expandtabs(4).rstrip()
        multiline = "\n" in text
        prefix = ""
        if numbered:
            prefix = "%s:%s" % (str(number).rjust(4), "\n" if multiline else " ")
        if opts["p"]:
            prefix += ">>> "
            if multiline:
                text = "\n... ".join(text.splitlines()) + "\n..."
        lines.append(prefix + text)
        if opts["o"] and number in outputs:
            from ..display.formatting import plain_text

            lines.append(plain_text(outputs[number]) or "")
    report = "\n".join(lines) + ("\n" if lines else "")
    if opts["f"]:
        import io
        import os

        with io.open(os.path.expanduser(opts["f"]), "w", encoding="utf-8") as handle:
            handle.write(report)
        return
    if report:
        print(report, end="")
