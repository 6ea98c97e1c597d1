"""The object the rewritten cells call (`__evalkit_magic__`): magic registry, dispatch, usage errors."""

import sys

from .interpolate import expand

LINE = {}  # name -> (function(ctx), expand_args, summary)
CELL = {}


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


_loaded = False


def _load_magics():
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import cell_magics, line_magics, pip, timing  # noqa: F401  (they register themselves)


def user_namespace():
    try:
        from .. import state

        if state.main_module is not None:
            return state.user_namespace()
    except Exception:
        pass
    return sys.modules["__main__"].__dict__


def _available(table, prefix):
    return ", ".join(prefix + name for name in sorted(table))


def _expand(ctx_args, expand_args, frame):
    if not expand_args or frame is None:
        return ctx_args
    return expand(ctx_args, frame.f_globals, frame.f_locals)


class MagicRuntime(object):
    """Entry points the transformer emits; each looks at its caller's frame for the user's names."""

    UsageError = UsageError

    def line(self, name, args=""):
        _load_magics()
        frame = sys._getframe(1)
        entry = LINE.get(name)
        if entry is None:
            hint = " (did you mean %%%%%s? it is a cell magic and must start the cell)" % name if name in CELL else ""
            raise UsageError(
                "Line magic function `%%%s` not found%s. Available line magics: %s"
                % (name, hint, _available(LINE, "%"))
            )
        fn, expand_args, _ = entry
        return fn(MagicContext(name, _expand(args, expand_args, frame), args, frame))

    def cell(self, name, args, body, body_line=1):
        _load_magics()
        frame = sys._getframe(1)
        entry = CELL.get(name)
        if entry is None:
            hint = " (%%%s is a line magic: use one %%)" % name if name in LINE else ""
            raise UsageError(
                "Cell magic `%%%%%s` not found%s. Available cell magics: %s"
                % (name, hint, _available(CELL, "%%"))
            )
        fn, expand_args, _ = entry
        _show_original_cell(frame, name, args, body, body_line)
        ctx = MagicContext(name, _expand(args, expand_args, frame), args, frame, body, body_line)
        return fn(ctx)

    def misplaced_cell(self, name):
        raise UsageError(
            "Cell magic `%%%%%s` must be the first line of the cell; put it at the top of its own cell" % name
        )

    def pinfo(self, target, detail=1):
        from .introspect import print_info

        frame = sys._getframe(1)
        print_info(target, frame.f_globals, frame.f_locals, detail)

    def magic_help(self, name):
        _load_magics()
        entry = LINE.get(name) or CELL.get(name)
        if entry is None:
            raise UsageError("Magic `%%%s` not found. %s" % (name, listing()))
        fn = entry[0]
        page((fn.__doc__ or entry[2] or "(no help)").strip())


# Marks a display as pager text (`obj?`, %pinfo, %psearch, %quickref): the reader sees it in the cell's output,
# while a saved notebook leaves it out, as Jupyter does (IPython pages it outside the cell's outputs).
PAGER_METADATA = {"evalkit": {"pager": True}}


def page(text):
    """Show text the way IPython's pager would: a text/plain display that notebooks do not store."""
    from .. import state

    state.emit_display({"text/plain": text}, dict(PAGER_METADATA))


def listing():
    _load_magics()
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


def _show_original_cell(frame, name, args, body, body_line):
    # Tracebacks inside a cell body point at the lines the user typed, not at the one-line rewrite.
    filename = frame.f_code.co_filename
    if not filename.startswith("<"):
        return
    import linecache

    text = "\n" * max(body_line - 1, 0) + "%%" + name + (" " + args if args else "") + "\n" + body
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    linecache.cache[filename] = (len(text), None, lines, filename)


def run_python(source, ctx, want_value=True):
    """Run Python source like a cell (magics, top-level await, trailing expression) in the caller's namespace.

    Returns the value of a trailing expression (None without one).
    """
    return compile_python(source, ctx, want_value)()


def compile_python(source, ctx, want_value=True):
    """Compile now (so %time measures only the run); returns a function that runs the code."""
    import ast

    from .. import hooks

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
