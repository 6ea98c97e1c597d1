"""Rewrites IPython-style magics, shell escapes and `obj?` help into plain Python calls before parsing."""

import re

MAGIC_NAME = "__evalkit_magic__"
SHELL_NAME = "__evalkit_shell__"

# Cheap pre-filter: a source none of whose lines could hold a magic is returned untouched at once.
_MAYBE_MAGIC = re.compile(r"^[ \t]*[%!?]|[=][ \t]*[%!]|\?[ \t]*\r?$", re.M)

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

_CELL_MAGIC = re.compile(r"^([ \t]*)%%([A-Za-z_][\w.]*)(.*)$", re.S)
_LINE_MAGIC = re.compile(r"^([ \t]*)%([A-Za-z_][\w.]*)(.*)$", re.S)
_SHELL = re.compile(r"^([ \t]*)(!!?)(.*)$", re.S)
_ASSIGN = re.compile(
    r"^([ \t]*)([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)[ \t]*=[ \t]*(!!?|%(?!%))(.*)$", re.S
)
_HELP = re.compile(r"^([ \t]*)(\?{0,2})(%{0,2}[A-Za-z_*][\w.*]*(?:\(\))?)(\?{0,2})[ \t]*$")


class _Code(object):
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


def _scan_line(line, stack):
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
                    stack.append(_Code(fexpr=True))
                    i += 1
            elif c == "}":
                if top.quote is None:
                    stack.pop()  # the spec
                    if isinstance(stack[-1], _Code) and stack[-1].fexpr:
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


def _split_lines(source):
    """Physical lines with their endings; only '\\n' ends a line (as for the tokenizer)."""
    lines = source.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _body(line):
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
    stack = [_Code()]
    starts = []
    continued = False
    for index, line in enumerate(_split_lines(source)):
        if not continued and len(stack) == 1 and stack[0].depth == 0:
            starts.append(index)
        continued = _scan_line(line, stack)
    return starts


def _magic_call(indent, text):
    """The Python call for one magic line (content without indentation), or None when it is no magic."""
    m = _CELL_MAGIC.match(text)
    if m:
        return "%s%s.misplaced_cell(%r)" % (indent, MAGIC_NAME, m.group(2))
    m = _LINE_MAGIC.match(text)
    if m:
        name, args = m.group(2), m.group(3)
        if args.endswith("?") and not args.strip("?").strip():
            return "%s%s.magic_help(%r)" % (indent, MAGIC_NAME, name)
        return "%s%s.line(%r, %r)" % (indent, MAGIC_NAME, name, _strip_arg(args))
    m = _SHELL.match(text)
    if m:
        func = "getoutput" if m.group(2) == "!!" else "system"
        return "%s%s.%s(%r)" % (indent, SHELL_NAME, func, m.group(3).strip())
    m = _ASSIGN.match(text)
    if m:
        target, kind, rest = m.group(2), m.group(3), m.group(4)
        if kind.startswith("!"):
            call = "%s.getoutput(%r)" % (SHELL_NAME, rest.strip())
        else:
            mm = re.match(r"([A-Za-z_][\w.]*)(.*)$", rest, re.S)
            if mm is None:
                return None
            call = "%s.line(%r, %r)" % (MAGIC_NAME, mm.group(1), _strip_arg(mm.group(2)))
        return "%s%s = %s" % (indent, target, call)
    if text.strip() in ("?", "??"):
        return "%s%s.line('quickref', '')" % (indent, MAGIC_NAME)  # IPython pages its quick reference
    m = _HELP.match(text)
    if m and (m.group(2) or m.group(4)):
        detail = max(len(m.group(2)), len(m.group(4)))
        target = m.group(3)
        if target.endswith("()"):
            target = target[:-2]
        if target.startswith("%"):
            return "%s%s.magic_help(%r)" % (indent, MAGIC_NAME, target.lstrip("%"))
        if "*" in target:
            return "%s%s.line('psearch', %r)" % (indent, MAGIC_NAME, target)
        return "%s%s.pinfo(%r, %d)" % (indent, MAGIC_NAME, target, detail)
    return None


def _strip_arg(args):
    # One separating space after the name belongs to the syntax, not to the arguments.
    return args.strip()


def _join_continued(lines, index):
    """A magic line plus the physical lines its trailing backslashes pull in (IPython joins with spaces)."""
    parts = [_body(lines[index])]
    end = index
    while parts[-1].endswith("\\") and end + 1 < len(lines):
        parts[-1] = parts[-1][:-1].rstrip()
        end += 1
        parts.append(_body(lines[end]).strip())
    return " ".join(p for p in parts if p), end


def _line_ending(line):
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def find_magics(source):
    """[(first_line, last_line, replacement_text)] for every magic the scanner recognises."""
    lines = _split_lines(source)
    found = []
    first_code = 0
    while first_code < len(lines) and not lines[first_code].strip():
        first_code += 1
    if first_code < len(lines):
        m = _CELL_MAGIC.match(_body(lines[first_code]))
        if m and not m.group(1):
            body = "".join(lines[first_code + 1 :])
            call = "%s.cell(%r, %r, %r, %d)\n" % (
                MAGIC_NAME,
                m.group(2),
                m.group(3).strip(),
                body,
                first_code + 1,
            )
            return [(0, len(lines) - 1, call)]
    stack = [_Code()]
    continued = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if not continued and len(stack) == 1 and stack[0].depth == 0:
            stripped = line.lstrip(" \t")
            if stripped[:1] in ("%", "!", "?") or "=" in line or line.rstrip().endswith("?"):
                body = _body(line)
                if body.endswith("\\"):
                    text, end = _join_continued(lines, index)
                else:
                    text, end = body, index
                indent = text[: len(text) - len(text.lstrip(" \t"))]
                call = _magic_call(indent, text[len(indent) :])
                if call is not None and _CELL_MAGIC.match(text):
                    # A misplaced cell magic takes the rest of the cell with it: its body is not Python.
                    rest = "".join(_line_ending(lines[k]) for k in range(index + 1, len(lines)))
                    found.append((index, len(lines) - 1, call + _line_ending(lines[index]) + rest))
                    break
                if call is not None:
                    ending = _line_ending(lines[end])
                    replacement = call + ending + "".join(_line_ending(lines[k]) for k in range(index + 1, end + 1))
                    found.append((index, end, replacement))
                    index = end + 1
                    continued = False
                    continue
        continued = _scan_line(line, stack)
        index += 1
    return found


def _compiles(source):
    import ast
    import warnings

    flags = ast.PyCF_ONLY_AST | getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<cell>", "exec", flags, dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError):
        return False
    return True


def transform(source):
    """The cell source with every magic rewritten; a source without magics comes back as the same object."""
    if not _MAYBE_MAGIC.search(source):
        return source
    found = find_magics(source)
    if not found:
        return source
    # A magic line is never valid Python, so valid Python is never rewritten, whatever the scanner thinks.
    if _compiles(source):
        return source
    lines = _split_lines(source)
    out = []
    index = 0
    for first, last, replacement in found:
        out.extend(lines[index:first])
        out.append(replacement)
        index = last + 1
    out.extend(lines[index:])
    return "".join(out)
