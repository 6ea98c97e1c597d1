"""%prun and %%prun: run code under cProfile and show pstats' report as pager text, as IPython does."""

import re
import sys

from .registry import UsageError, cell_magic, compile_python, line_magic, page

_USAGE = "usage: %prun [-s KEY]... [-l LIMIT]... [-r] [-q] [-T FILE] STATEMENT"


_OPTION = re.compile(r"\s*(-[rq])(?=\s|$)|\s*(-[slTD])\s+(\S+)")


def _split_options(text):
    """(options, code): IPython's %prun takes options before the code; the code is everything after them."""
    options = {"sort": [], "limit": [], "return": False, "quiet": False, "text_file": None}
    rest = text
    while rest.lstrip().startswith("-"):
        m = _OPTION.match(rest)
        if m is None:
            raise UsageError(_USAGE)
        if m.group(1):
            options["return" if m.group(1) == "-r" else "quiet"] = True
        elif m.group(2) == "-s":
            options["sort"].append(m.group(3))
        elif m.group(2) == "-l":
            options["limit"].append(_limit(m.group(3)))
        elif m.group(2) == "-T":
            options["text_file"] = m.group(3)
        rest = rest[m.end():]
    return options, rest.strip()


def _limit(value):
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value  # a regular expression, as pstats takes it


def _profile(run, options):
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    try:
        profiler.runcall(run)
    except SystemExit:
        pass
    stats = pstats.Stats(profiler)
    _drop_runner_frames(stats)
    stats.stream = out = io.StringIO()
    stats.sort_stats(*(options["sort"] or ["time"]))
    stats.print_stats(*options["limit"])
    text = out.getvalue().rstrip("\n")
    if not options["quiet"]:
        page(text)
    sys.stdout.write(" ")  # IPython prints its SystemExit note (here empty) followed by a space, always
    if options["text_file"]:
        with open(options["text_file"], "w") as handle:
            handle.write(text + "\n")
        print("\n*** Profile printout saved to text file %r." % (options["text_file"],))
    return stats if options["return"] else None


def _drop_runner_frames(stats):
    # evalkit's own frames around the profiled code are no part of the user's profile
    runner = [key for key in stats.stats if key[0].startswith("<evalkit>") or "evalkit_kernel" in key[0]]
    if not runner:
        return
    for key in runner:
        del stats.stats[key]
    stats.total_calls = stats.prim_calls = 0
    stats.total_tt = 0
    stats.top_level = set()
    stats.get_top_level_stats()


class _Inline(object):
    def __init__(self, ctx):
        self.globals = ctx.globals
        self.locals = ctx.locals
        self.filename = "<string>"
        self.body_line = 0


@line_magic("prun", expand_args=False, summary="profile a statement with cProfile (-s KEY, -l LIMIT, -r, -q)")
def magic_prun(ctx):
    """%prun [-s KEY] [-l LIMIT] [-r] [-q] [-T FILE] STATEMENT: profile it; pstats' report is pager text."""
    options, code = _split_options(ctx.raw_args)
    if not code.strip():
        raise UsageError(_USAGE)
    return _profile(compile_python(code, _Inline(ctx), want_value=False), options)


@cell_magic("prun", expand_args=False, summary="profile the cell body (options on the magic line)")
def cell_prun(ctx):
    """%%prun [OPTIONS]: profile the cell body; pstats' report is pager text."""
    options, extra = _split_options(ctx.raw_args)
    if extra.strip():
        raise UsageError("%%prun takes options only on its line; the code is the cell body")
    return _profile(compile_python(ctx.body, ctx, want_value=False), options)
