"""Answers is_complete requests for interactive front ends: complete, incomplete (with indent) or invalid."""

import codeop

from . import hooks


def check_complete(code):
    """Return (status, indent) the way IPython's input splitter decides whether to keep reading."""
    try:
        source = hooks.transform_source(code)
    except Exception:
        return "invalid", ""
    if not source.strip():
        return "complete", ""
    if code.lstrip().startswith("%%") and not code.endswith("\n\n"):
        # A cell magic's body runs to the end of the cell: keep reading until an empty line.
        return "incomplete", ""
    lines = source.splitlines()
    try:
        compiled = codeop.compile_command(source, "<input>", "exec")
    except (SyntaxError, OverflowError, ValueError):
        return "invalid", ""
    if compiled is None:
        return "incomplete", _next_indent(lines)
    # A block that compiles is still open until the user enters a blank line, as in IPython.
    last = lines[-1]
    if len(lines) > 1 and last[:1] in (" ", "\t") and not source.endswith("\n"):
        return "incomplete", _next_indent(lines)
    return "complete", ""


def _next_indent(lines):
    last = lines[-1] if lines else ""
    indent = last[: len(last) - len(last.lstrip())]
    if last.rstrip().endswith(":"):
        indent += "    "
    return indent
