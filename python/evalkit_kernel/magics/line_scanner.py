"""Where a cell's logical lines start: a lexical scan of strings, f-strings, brackets and continuations (no tokenize)."""

import re

# Characters that change the lexical state, per mode; everything else is skipped in one regex jump.
_CODE_STOPS = re.compile(r"[#()\[\]{}\"'\\]")
_FEXPR_STOPS = re.compile(r"[#()\[\]{}\"'\\:]")
_STR_STOPS = {
    '"': re.compile(r'[\\"]'),
    "'": re.compile(r"[\\']"),
}
_FSTR_STOPS = {
    '"': re.compile(r'[\\"{}]'),
    "'": re.compile(r"[\\'{}]"),
}
_SPEC_STOPS = re.compile(r"[\\{}]")
_STRING_PREFIXES = frozenset(
    ["", "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt"]
)


class Code(object):
    """Code context: the module level, or the expression part of an f-string replacement field."""

    __slots__ = ("depth", "fexpr")

    def __init__(self, fexpr=False):
        self.depth = 0
        self.fexpr = fexpr


class _Str(object):
    """String context; quote is None for an f-string format spec (which ends at its closing brace)."""

    __slots__ = ("quote", "triple", "is_f", "raw")

    def __init__(self, quote, triple, is_f, raw=False):
        self.quote = quote
        self.triple = triple
        self.is_f = is_f
        self.raw = raw


def _string_prefix(line, i):
    j = i
    while j > 0 and (line[j - 1].isalnum() or line[j - 1] == "_"):
        j -= 1
    word = line[j:i].lower()
    return word if word in _STRING_PREFIXES else ""


def scan_line(line, stack):
    """Advance the lexical state over one physical line; True when it ends with a backslash continuation."""
    i = 0
    n = len(line)
    while i < n:
        top = stack[-1]
        if isinstance(top, _Str):
            if top.quote is None:
                m = _SPEC_STOPS.search(line, i)
            elif top.is_f:
                m = _FSTR_STOPS[top.quote].search(line, i)
            else:
                m = _STR_STOPS[top.quote].search(line, i)
            if m is None:
                if not top.triple and top.quote is not None and line.endswith("\n"):
                    stack.pop()  # unterminated one-line string: invalid code, recover at the line end
                return False
            i = m.start()
            c = line[i]
            if c == "\\":
                nxt = line[i + 1 : i + 2]
                if top.is_f and nxt in ("{", "}"):
                    i += 1  # a backslash never escapes an f-string brace
                elif top.is_f and not top.raw and line.startswith("N{", i + 1):
                    end = line.find("}", i + 3)  # \N{NAME} is an escape, not a replacement field
                    i = n if end < 0 else end + 1
                else:
                    i += 2
            elif c == "{":
                if top.quote is not None and line.startswith("{{", i):
                    i += 2
                else:
                    stack.append(Code(fexpr=True))
                    i += 1
            elif c == "}":
                if top.quote is None:
                    stack.pop()  # the spec
                    if isinstance(stack[-1], Code) and stack[-1].fexpr:
                        stack.pop()  # its replacement field
                    i += 1
                elif line.startswith("}}", i):
                    i += 2
                else:
                    i += 1
            elif top.triple:
                if line.startswith(c * 3, i):
                    stack.pop()
                    i += 3
                else:
                    i += 1
            else:
                stack.pop()
                i += 1
            continue
        m = (_FEXPR_STOPS if top.fexpr else _CODE_STOPS).search(line, i)
        if m is None:
            return False
        i = m.start()
        c = line[i]
        if c == "#":
            return False
        if c in "([{":
            top.depth += 1
        elif c in ")]}":
            if top.fexpr and top.depth == 0:
                if c == "}":
                    stack.pop()
            elif top.depth > 0:
                top.depth -= 1
        elif c == ":":
            if top.fexpr and top.depth == 0:
                stack.append(_Str(None, False, True))
        elif c == "\\":
            rest = line[i + 1 :]
            if rest in ("\n", "\r\n", ""):
                return True
        else:
            prefix = _string_prefix(line, i)
            triple = line.startswith(c * 3, i)
            stack.append(_Str(c, triple, "f" in prefix or "t" in prefix, "r" in prefix))
            i += 3 if triple else 1
            continue
        i += 1
    return False


def split_lines(source):
    """Physical lines with their endings; only '\\n' ends a line (as for the tokenizer)."""
    lines = source.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def line_body(line):
    """A line without its line ending."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def logical_line_starts(source):
    """Indexes of the physical lines that begin a logical line (outside strings, brackets, continuations).

    This is the scanner alone, without any magic handling: tests compare it with `tokenize`.
    """
    stack = [Code()]
    starts = []
    continued = False
    for index, line in enumerate(split_lines(source)):
        if not continued and len(stack) == 1 and stack[0].depth == 0:
            starts.append(index)
        continued = scan_line(line, stack)
    return starts
