"""%pdoc %pdef %psource %pfile: one part of what `obj?` shows (docstring, signature, source, file), as IPython."""

import inspect
import sys

from .introspect import _resolve, _signature
from .registry import UsageError, line_magic, page


def _target(ctx, name):
    target = ctx.args.strip()
    if not target:
        raise UsageError("usage: %%%s OBJECT" % name)
    return target, _resolve(target, ctx.globals, ctx.locals)


@line_magic("pdoc", expand_args=False, summary="the docstring of an object")
def magic_pdoc(ctx):
    """%pdoc OBJECT: its docstring, its class's __init__ or __call__ docstring, as IPython's pager text."""
    target, value = _target(ctx, "pdoc")
    sections = []
    doc = inspect.getdoc(value)
    if doc:
        sections.append(("Class docstring:", doc))
    if inspect.isclass(value) and hasattr(value, "__init__"):
        init = inspect.getdoc(value.__init__)
        if init is not None:
            sections.append(("Init docstring:", init))
    elif callable(value):
        call = inspect.getdoc(getattr(value, "__call__", None))
        if call:
            sections.append(("Call docstring:", call))
    if not sections:
        print("No documentation found for %s" % target)
        return
    page("\n".join(head + "\n" + "\n".join("    " + line for line in text.splitlines()) for head, text in sections))


@line_magic("pdef", expand_args=False, summary="the call signature of a callable")
def magic_pdef(ctx):
    """%pdef OBJECT: the call signature, as IPython prints it (` name(args)`)."""
    target, value = _target(ctx, "pdef")
    signature = _signature(value)
    if not callable(value) or signature is None:
        print("Object is not callable.")
        return
    # IPython prints this one (it does not page it), with a trailing space after the line
    sys.stdout.write(" %s%s\n " % (target.rsplit(".", 1)[-1], signature))


@line_magic("psource", expand_args=False, summary="the source code of an object")
def magic_psource(ctx):
    """%psource OBJECT: its source code, as pager text."""
    target, value = _target(ctx, "psource")
    try:
        page(inspect.getsource(value).rstrip("\n"))
    except (OSError, TypeError):
        print("No source found for %s" % target)


@line_magic("pfile", expand_args=False, summary="the whole file that defines an object")
def magic_pfile(ctx):
    """%pfile OBJECT: the file that defines it, as pager text."""
    target, value = _target(ctx, "pfile")
    try:
        path = inspect.getsourcefile(value) or inspect.getfile(value)
        with open(path) as handle:
            page(handle.read().rstrip("\n"))
    except (OSError, TypeError):
        print("File for %s not found or not a text file." % target)
