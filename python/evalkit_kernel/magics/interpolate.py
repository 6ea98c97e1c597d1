"""IPython-style interpolation of `{expr}` and `$name` into shell commands and magic arguments."""

import re

_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_MISSING = object()


def _lookup(dotted, g, l):
    parts = dotted.split(".")
    head = parts[0]
    if head in l:
        value = l[head]
    elif head in g:
        value = g[head]
    else:
        builtins = g.get("__builtins__")
        builtins = getattr(builtins, "__dict__", builtins)
        if not isinstance(builtins, dict) or head not in builtins:
            return _MISSING
        value = builtins[head]
    for attr in parts[1:]:
        value = getattr(value, attr, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


def _matching_brace(text, start):
    """Index of the '}' closing the '{' at start, or -1; quotes inside the expression are respected."""
    depth = 0
    quote = None
    i = start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                return i if c == "}" else -1
        i += 1
    return -1


def _evaluate(expr, g, l):
    conversion = None
    if len(expr) > 2 and expr[-2] == "!" and expr[-1] in "rsa":
        expr, conversion = expr[:-2], expr[-1]
    value = eval(expr, g, l)
    if conversion == "r":
        return repr(value)
    if conversion == "a":
        return ascii(value)
    return str(value)


def expand(text, g, l=None):
    """Replace `{expr}` and `$name`/`$obj.attr` with their values in the given namespaces.

    Unlike IPython, which leaves the whole string alone when any part fails, each part that
    cannot be evaluated stays as typed, so `$HOME` and awk's `{print $1}` reach the shell intact.
    `$$name` gives a literal `$name`, `{{`/`}}` literal braces; a lone `$$` (the shell's PID) is kept.
    """
    if "$" not in text and "{" not in text and "}" not in text:
        return text
    if l is None:
        l = g
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "$":
            if text.startswith("$$", i):
                following = text[i + 2 : i + 3]
                if following and (following.isalnum() or following in "_{"):
                    out.append("$")
                    i += 2
                    if following == "{":
                        out.append("{")
                        i += 1
                        close = text.find("}", i)
                        if close >= 0:
                            out.append(text[i : close + 1])
                            i = close + 1
                    else:
                        m = _NAME.match(text, i)
                        out.append(m.group(0))
                        i = m.end()
                else:
                    out.append("$$")
                    i += 2
                continue
            m = _NAME.match(text, i + 1)
            if m is None:
                out.append("$")
                i += 1
                continue
            value = _lookup(m.group(0), g, l)
            if value is _MISSING:
                out.append(text[i : m.end()])
            else:
                out.append(str(value))
            i = m.end()
            continue
        if c == "{":
            if text.startswith("{{", i):
                out.append("{")
                i += 2
                continue
            close = _matching_brace(text, i)
            if close < 0:
                out.append(c)
                i += 1
                continue
            expr = text[i + 1 : close]
            try:
                out.append(_evaluate(expr, g, l) if expr.strip() else text[i : close + 1])
            except Exception:
                out.append(text[i : close + 1])
            i = close + 1
            continue
        if c == "}" and text.startswith("}}", i):
            out.append("}")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)
