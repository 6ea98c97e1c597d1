"""Rewrites IPython-style magics, shell escapes and `obj?` help into plain Python calls before parsing."""

import re

from .line_scanner import Code, line_body, scan_line, split_lines

MAGIC_NAME = "__evalkit_magic__"
SHELL_NAME = "__evalkit_shell__"

# Cheap pre-filter: a source none of whose lines could hold a magic is returned untouched at once.
_MAYBE_MAGIC = re.compile(r"^[ \t]*[%!?]|[=][ \t]*[%!]|\?[ \t]*\r?$", re.M)

_CELL_MAGIC = re.compile(r"^([ \t]*)%%([A-Za-z_][\w.]*)(.*)$", re.S)
_LINE_MAGIC = re.compile(r"^([ \t]*)%([A-Za-z_][\w.]*)(.*)$", re.S)
_SHELL = re.compile(r"^([ \t]*)(!!?)(.*)$", re.S)
_ASSIGN = re.compile(
    r"^([ \t]*)([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)[ \t]*=[ \t]*(!!?|%(?!%))(.*)$", re.S
)
_HELP = re.compile(r"^([ \t]*)(\?{0,2})(%{0,2}[A-Za-z_*][\w.*]*(?:\(\))?)(\?{0,2})[ \t]*$")


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
    parts = [line_body(lines[index])]
    end = index
    while parts[-1].endswith("\\") and end + 1 < len(lines):
        parts[-1] = parts[-1][:-1].rstrip()
        end += 1
        parts.append(line_body(lines[end]).strip())
    return " ".join(p for p in parts if p), end


def _line_ending(line):
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def find_magics(source):
    """[(first_line, last_line, replacement_text)] for every magic the scanner recognises."""
    lines = split_lines(source)
    found = []
    first_code = 0
    while first_code < len(lines) and not lines[first_code].strip():
        first_code += 1
    if first_code < len(lines):
        m = _CELL_MAGIC.match(line_body(lines[first_code]))
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
    stack = [Code()]
    continued = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if not continued and len(stack) == 1 and stack[0].depth == 0:
            stripped = line.lstrip(" \t")
            if stripped[:1] in ("%", "!", "?") or "=" in line or line.rstrip().endswith("?"):
                body = line_body(line)
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
        continued = scan_line(line, stack)
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
    lines = split_lines(source)
    out = []
    index = 0
    for first, last, replacement in found:
        out.extend(lines[index:first])
        out.append(replacement)
        index = last + 1
    out.extend(lines[index:])
    return "".join(out)
