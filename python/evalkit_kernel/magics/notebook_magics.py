"""What people paste from notebooks: %matplotlib %config %xmode %load_ext %autoreload %lsmagic %history %pinfo."""

import os
import sys

from .runtime import UsageError, line_magic, listing, user_namespace

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


@line_magic("load_ext", expand_args=False, summary="accepts autoreload (a no-op); other extensions are refused")
def magic_load_ext(ctx):
    """%load_ext autoreload: accepted (no-op). IPython extensions need IPython and cannot load here."""
    name = ctx.args.strip()
    if name in ("autoreload", "storemagic"):
        return None
    raise UsageError("%%load_ext %s: IPython extensions are not supported by evalkit" % name)


@line_magic("reload_ext", expand_args=False, summary="same as %load_ext")
def magic_reload_ext(ctx):
    return magic_load_ext(ctx)


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


line_magic("lsmagic", summary="list every supported magic")(_print_listing)
line_magic("magic", summary="list every supported magic")(_print_listing)
line_magic("quickref", summary="list every supported magic")(_print_listing)


@line_magic("history", expand_args=False, summary="print the cells run so far (-n numbers them)")
def magic_history(ctx):
    """%history [-n] [N]: the source of earlier cells (the last N with a number)."""
    words = ctx.args.split()
    numbered = "-n" in words
    limits = [int(w) for w in words if w.isdigit()]
    history = user_namespace().get("In") or []
    entries = [(i, text) for i, text in enumerate(history) if i > 0 and text]
    if limits:
        entries = entries[-limits[0] :]
    for i, text in entries:
        print(("%d: %s" % (i, text)) if numbered else text)


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
