"""The magic tables and what magic bodies use: decorators, the call context, usage errors, running Python.

Magic modules import only this (and their own helpers); the dispatch (runtime.py) and the loader (catalog.py)
sit above them, so nothing here reaches back up.
"""

import os
import sys

LINE = {}  # name -> (function(ctx), expand_args, summary)
CELL = {}


class Options(object):
    """Switches magics flip at run time (IPython's shell settings)."""

    automagic = True  # %automagic: line magics without % on one-line cells


options = Options()


class UsageError(NameError):
    """A magic was misused or does not exist (a NameError, as in the reference design)."""

    __module__ = "builtins"  # tracebacks print plain `UsageError: ...`


class MagicContext(object):
    """What a magic gets: its arguments and the namespaces of the code that invoked it."""

    __slots__ = ("name", "args", "raw_args", "body", "globals", "locals", "filename", "body_line")

    def __init__(self, name, args, raw_args, frame, body=None, body_line=0):
        self.name = name
        self.args = args
        self.raw_args = raw_args
        self.body = body
        self.body_line = body_line
        self.globals = frame.f_globals if frame is not None else user_namespace()
        self.locals = frame.f_locals if frame is not None else self.globals
        self.filename = frame.f_code.co_filename if frame is not None else "<magic>"

    @property
    def ns(self):
        return self.globals


def line_magic(name, expand_args=True, summary=""):
    def register(fn):
        LINE[name] = (fn, expand_args, summary)
        return fn

    return register


def cell_magic(name, expand_args=True, summary=""):
    def register(fn):
        CELL[name] = (fn, expand_args, summary)
        return fn

    return register


def user_namespace():
    try:
        from ..core import state

        if state.main_module is not None:
            return state.user_namespace()
    except Exception:
        pass
    return sys.modules["__main__"].__dict__


def shell():
    """The shell evalkit's get_ipython() returns (extensions and IPython's magic API register with it)."""
    from ..core import hooks

    return hooks.installed_values["get_ipython"]()


def listing():
    """Every registered magic with its summary (the caller loads the catalog first)."""
    lines = ["Line magics:"]
    for name in sorted(LINE):
        lines.append("  %%%-14s %s" % (name, LINE[name][2]))
    lines.append("Cell magics:")
    for name in sorted(CELL):
        lines.append("  %%%%%-13s %s" % (name, CELL[name][2]))
    lines.append("Shell:")
    lines.append("  !cmd            run a shell command, output streamed ({expr} and $name are interpolated)")
    lines.append("  x = !cmd        capture stdout as a list of lines (.n .s .l .grep() .fields() .returncode)")
    lines.append("  obj? / obj??    signature and docstring / plus source")
    return "\n".join(lines)


def run_python(source, ctx, want_value=True):
    """Run Python source like a cell (magics, top-level await, trailing expression) in the caller's namespace.

    Returns the value of a trailing expression (None without one).
    """
    return compile_python(source, ctx, want_value)()


def compile_python(source, ctx, want_value=True):
    """Compile now (so %time measures only the run); returns a function that runs the code."""
    import ast

    from ..core import hooks

    source = hooks.transform_source(source)
    padded = "\n" * ctx.body_line + source
    flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
    tree = compile(padded, ctx.filename, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
    body = tree.body
    last = None
    if want_value and body and isinstance(body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = body.pop()
    block = None
    if body:
        block = compile(ast.Module(body=body, type_ignores=[]), ctx.filename, "exec", flags, dont_inherit=True)
    expression = None
    if last is not None:
        expression = compile(ast.Expression(body=last.value), ctx.filename, "eval", flags, dont_inherit=True)
    g, l = ctx.globals, ctx.locals

    def run():
        if block is not None:
            _run_code(block, g, l)
        return None if expression is None else _run_code(expression, g, l)

    return run


def _run_code(code, g, l):
    result = eval(code, g, l)
    if code.co_flags & 0x0080:  # CO_COROUTINE: top-level await
        import asyncio

        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
        result = loop.run_until_complete(result)
    return result


# Marks a display as pager text (`obj?`, %pinfo, %psearch, %quickref): the reader sees it in the cell's output,
# while a saved notebook leaves it out, as Jupyter does (IPython pages it outside the cell's outputs).
PAGER_METADATA = {"evalkit": {"pager": True}}


def page(text):
    """Show text the way IPython's pager would: a text/plain display that notebooks do not store."""
    from ..core import state

    state.emit_display({"text/plain": text}, dict(PAGER_METADATA))


def split_args(text):
    """Shell-like words, `# comments` dropped; falls back to whitespace splitting on unbalanced quotes."""
    import shlex

    try:
        return shlex.split(text, comments=True, posix=os.name != "nt")
    except ValueError:
        return text.split()
