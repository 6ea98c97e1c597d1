"""What people paste from notebooks: %matplotlib %config %xmode %load_ext %autoreload %lsmagic %history %pinfo."""

import os
import sys

from .registry import UsageError, line_magic, listing, options, shell, user_namespace

_INLINE_BACKENDS = ("inline", "agg", "notebook", "nbagg", "widget", "ipympl", "")
_accepted_config = {}


@line_magic("matplotlib", expand_args=False, summary="accepted; figures are always shown inline")
def magic_matplotlib(ctx):
    """%matplotlib [inline]: figures are captured as images after each cell whatever the backend name.

    `inline` (and notebook/widget) switch an already imported matplotlib to the off-screen Agg backend;
    GUI backends (qt, tk, osx...) cannot open windows here and are ignored with a note.
    """
    backend = ctx.args.strip().split()[0].lower() if ctx.args.strip() else ""
    if backend.startswith("--"):
        backend = ""
    if backend not in _INLINE_BACKENDS:
        sys.stderr.write("evalkit: figures are shown inline here; the %r backend is not used\n" % backend)
    os.environ.setdefault("MPLBACKEND", "Agg")
    mpl = sys.modules.get("matplotlib")
    if mpl is not None:
        try:
            if str(mpl.get_backend()).lower() != "agg":
                mpl.use("Agg")
        except Exception:
            pass


@line_magic("config", expand_args=False, summary="accepted; settings are recorded, none changes evalkit")
def magic_config(ctx):
    """%config Class.trait = value: accepted for compatibility and recorded; IPython's settings do not apply."""
    text = ctx.args.strip()
    if not text:
        print("Recorded %config settings (IPython's settings do not change evalkit):")
        for key in sorted(_accepted_config):
            print("  %s = %s" % (key, _accepted_config[key]))
        return None
    if "=" in text:
        key, value = text.split("=", 1)
        _accepted_config[key.strip()] = value.strip()


@line_magic("xmode", expand_args=False, summary="accepted; tracebacks keep evalkit's format")
def magic_xmode(ctx):
    """%xmode [Plain|Context|Verbose|Minimal]: accepted; evalkit always shows a plain Python traceback."""
    mode = ctx.args.strip() or "Context"
    valid = ("plain", "context", "verbose", "minimal", "docs")
    if mode.lower() not in valid:
        raise UsageError("%%xmode: unknown mode %r (Plain, Context, Verbose, Minimal)" % mode)
    print("Exception reporting mode: %s" % mode.capitalize())


@line_magic("load_ext", expand_args=False, summary="load an IPython extension (load_ipython_extension)")
def magic_load_ext(ctx):
    """%load_ext MODULE: import MODULE and call its load_ipython_extension(get_ipython()), as IPython does.

    autoreload and storemagic are accepted and do nothing (they drive IPython's own machinery).
    """
    from .extensions import load

    load(shell(), _module_name(ctx, "load_ext"))


@line_magic("unload_ext", expand_args=False, summary="unload an IPython extension (unload_ipython_extension)")
def magic_unload_ext(ctx):
    """%unload_ext MODULE: call the module's unload_ipython_extension(get_ipython())."""
    from .extensions import unload

    unload(shell(), _module_name(ctx, "unload_ext"))


@line_magic("reload_ext", expand_args=False, summary="reload an IPython extension (unload, re-import, load)")
def magic_reload_ext(ctx):
    """%reload_ext MODULE: unload it, re-import the module (importlib.reload) and load it again."""
    from .extensions import reload

    reload(shell(), _module_name(ctx, "reload_ext"))


def _module_name(ctx, magic):
    name = ctx.args.strip()
    if not name:
        raise UsageError("Missing module name.")
    return name


@line_magic("autoreload", expand_args=False, summary="accepted; a no-op (re-import after %pip instead)")
def magic_autoreload(ctx):
    """%autoreload [0|1|2]: accepted for compatibility; modules are not reloaded automatically."""
    return None


@line_magic("aimport", expand_args=False, summary="imports the modules (autoreload is a no-op)")
def magic_aimport(ctx):
    import importlib

    for name in ctx.args.replace(",", " ").split():
        user_namespace()[name.split(".")[0]] = importlib.import_module(name.split(".")[0])
        importlib.import_module(name)


def _print_listing(ctx):
    print(listing())


def _page_listing(ctx):
    from .registry import page

    page(listing())


line_magic("lsmagic", summary="list every supported magic")(_print_listing)
# IPython pages these two (and a bare `?`), so they are pager text here too
line_magic("magic", summary="list every supported magic")(_page_listing)
line_magic("quickref", summary="list every supported magic")(_page_listing)


@line_magic("history", expand_args=False, summary="print earlier cells: -n numbers, ranges 1-5, -l N, -g PATTERN, -o")
def magic_history(ctx):
    """%history [-n] [-o] [-p] [-r|-t] [-f FILE] [-l [N]] [-g [PATTERN]] [RANGE...]: earlier cells, as IPython.

    RANGE is `4`, `4-6` (inclusive), `4-` (to the end) or `4:6` (end excluded); several may be given.
    Only this kernel's session is kept: IPython's `~2/` ranges into older sessions select nothing.
    """
    from .history import print_history

    print_history(ctx.args, user_namespace())


@line_magic("pinfo", expand_args=False, summary="signature and docstring of an object (like obj?)")
def magic_pinfo(ctx):
    from .introspect import print_info

    print_info(ctx.args.strip().rstrip("?"), ctx.globals, ctx.locals, 1)


@line_magic("pinfo2", expand_args=False, summary="signature, docstring and source (like obj??)")
def magic_pinfo2(ctx):
    from .introspect import print_info

    print_info(ctx.args.strip().rstrip("?"), ctx.globals, ctx.locals, 2)


@line_magic("sx", summary="run a shell command and return its output lines (like !!cmd)")
def magic_sx(ctx):
    from .shell import SList, run_streaming, shell_argv

    code, out = run_streaming(shell_argv(ctx.args), capture_stdout=True)
    result = SList(out.splitlines())
    result.returncode = code
    ctx.globals["_exit_code"] = code
    return result


line_magic("system", summary="same as %sx")(magic_sx)


def _front_end_only(name):
    def warn(ctx):
        # IPython's kernel has no terminal, editor or Qt console either: it warns and the cell goes on.
        sys.stderr.write("evalkit: %%%s needs an interactive front end (terminal, editor or Qt console); "
                         "ignored here\n" % name)

    warn.__doc__ = "%%%s: a front-end feature; accepted with a warning." % name
    line_magic(name, expand_args=False, summary="front-end only: warns and does nothing")(warn)


for _name in ("qtconsole", "gui", "edit", "ed", "paste", "cpaste", "clear", "cls", "colors", "autoindent",
              "doctest_mode", "connect_info", "notebook", "less", "more", "man", "pdb", "debug", "autocall",
              "rehashx", "logstart", "logstop", "logon", "logoff", "autosave"):
    _front_end_only(_name)


@line_magic("autoawait", expand_args=False, summary="accepted: top-level await always works here")
def magic_autoawait(ctx):
    """%autoawait [on|off|asyncio]: accepted; cells always run top-level `await` on an asyncio loop."""
    if not ctx.args.strip():
        print("IPython autoawait is `on`, and set to use `asyncio`")


@line_magic("automagic", expand_args=False, summary="switch calling line magics without % on one-line cells")
def magic_automagic(ctx):
    """%automagic [on|off|1|0]: toggle (or set) automagic; prints the new state as IPython does."""
    arg = ctx.args.strip().lower()
    options.automagic = (arg in ("on", "1", "true")) if arg else not options.automagic
    print("\nAutomagic is %s, %% prefix %s needed for line magics." % (
        "ON" if options.automagic else "OFF", "NOT" if options.automagic else "IS"))


@line_magic("pprint", expand_args=False, summary="toggle pretty printing of results")
def magic_pprint(ctx):
    """%pprint: switch results between the pretty printer and plain repr()."""
    from ..display import formatters

    text = formatters.get().formatters["text/plain"]
    text.pprint = not text.pprint
    print("Pretty printing has been turned %s" % ("ON" if text.pprint else "OFF"))


@line_magic("precision", expand_args=False, summary="digits of floats in results: %precision 3")
def magic_precision(ctx):
    """%precision [N | FORMAT]: floats in results print with N digits (or a %-format); no argument resets.

    numpy's print precision follows, as in IPython.
    """
    from ..display import formatters

    text = formatters.get().formatters["text/plain"]
    spec = ctx.args.strip()
    if not spec:
        fmt, digits = None, 8
    elif "%" in spec:
        fmt, digits = spec, None
        try:
            spec % 3.14159
        except Exception:
            raise UsageError("Precision must be int or format string, not %r" % spec)
    elif spec.isdigit():
        digits = int(spec)
        fmt = "%%.%if" % digits
    else:
        raise UsageError("Precision must be int or format string, not %r" % spec)
    if fmt is None:
        text.type_printers.pop(float, None)
        from ..display.pretty_types import repr_pprint

        text.type_printers[float] = repr_pprint
    else:
        text.type_printers[float] = lambda obj, p, cycle: p.text(fmt % obj)
    numpy = sys.modules.get("numpy")
    if numpy is not None and digits is not None:
        numpy.set_printoptions(precision=digits)
    return fmt or "%r"


@line_magic("pylab", expand_args=False, summary="import numpy and matplotlib's pylab names (deprecated in IPython)")
def magic_pylab(ctx):
    """%pylab [inline]: what IPython does: numpy and pyplot as np and plt, then `from pylab import *`."""
    magic_matplotlib(ctx)
    code = ("import numpy\nimport matplotlib\nfrom matplotlib import pylab, mlab, pyplot\nnp = numpy\n"
            "plt = pyplot\nfrom pylab import *\nfrom numpy import *\n")
    exec(compile(code, "<pylab>", "exec"), ctx.globals)
    print("%pylab is deprecated, use %matplotlib inline and import the required libraries.")
    print("Populating the interactive namespace from numpy and matplotlib")


@line_magic("psearch", expand_args=False, summary="names matching a wildcard: %psearch *int* (or *int*?)")
def magic_psearch(ctx):
    """%psearch [-i] PATTERN: names in the namespace and builtins matching PATTERN (`*` wildcards, `a.b*`)."""
    from .introspect import search

    words = ctx.args.split()
    ignore_case = "-i" in words
    words = [w for w in words if not w.startswith("-")]
    if not words:
        raise UsageError("usage: %psearch [-i] PATTERN")
    from .registry import page

    found = search(words[0], ctx.globals, ctx.locals, ignore_case)
    if found:
        page("\n".join(found))
