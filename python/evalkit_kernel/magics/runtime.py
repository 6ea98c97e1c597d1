"""The object the rewritten cells call (`__evalkit_magic__`): dispatch to the registered magics, help, pinfo."""

import sys

from .catalog import load_all
from .interpolate import expand
from .registry import CELL, LINE, MagicContext, UsageError, listing, page

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
        load_all()
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
        load_all()
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
        load_all()
        entry = LINE.get(name) or CELL.get(name)
        if entry is None:
            raise UsageError("Magic `%%%s` not found. %s" % (name, listing()))
        fn = entry[0]
        page((fn.__doc__ or entry[2] or "(no help)").strip())


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
