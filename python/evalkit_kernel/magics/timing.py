"""%time / %%time and %timeit / %%timeit (-n -r -q -o -p), with IPython's output format."""

import math
import sys
import time

from .registry import UsageError, cell_magic, compile_python, line_magic


def format_time(seconds, precision=3):
    if seconds >= 60.0:
        parts = []
        rest = seconds
        for suffix, length in (("h", 3600), ("min", 60), ("s", 1)):
            value = int(rest / length)
            if value > 0:
                rest = rest % length
                parts.append("%s%s" % (value, suffix))
            if rest < 1:
                break
        return " ".join(parts)
    units = ["s", "ms", "\xb5s", "ns"]
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        units[2].encode(encoding)
    except (UnicodeEncodeError, LookupError):
        units[2] = "us"
    scaling = [1, 1e3, 1e6, 1e9]
    order = min(-int(math.floor(math.log10(seconds)) // 3), 3) if seconds > 0.0 else 3
    order = max(order, 0)
    return "%.*g %s" % (precision, seconds * scaling[order], units[order])


def _emit_status(op, **fields):
    try:
        from ..core import state

        if state.writer is not None and state.current_cell_id() is not None:
            state.emit_status(op, **fields)
    except Exception:
        pass


def _timed(run):
    cpu0 = _cpu_times()
    wall0 = time.perf_counter()
    try:
        return run()
    finally:
        wall = time.perf_counter() - wall0
        cpu1 = _cpu_times()
        user, system = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
        print("CPU times: user %s, sys: %s, total: %s" % (format_time(user), format_time(system), format_time(user + system)))
        print("Wall time: %s" % format_time(wall))
        _emit_status("time", elapsedMs=round(wall * 1000.0, 3))


def _cpu_times():
    try:
        import resource

        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime, usage.ru_stime
    except ImportError:
        return time.process_time(), 0.0


@line_magic("time", expand_args=False, summary="time one statement or expression (returns its value)")
def magic_time(ctx):
    """%time STATEMENT_OR_EXPRESSION: run it once, print CPU and wall time; an expression's value is returned."""
    source = ctx.raw_args.strip()
    if not source:
        raise UsageError("usage: %time STATEMENT_OR_EXPRESSION")
    return _timed(compile_python(source, _Inline(ctx)))


@cell_magic("time", expand_args=False, summary="time the whole cell (returns its trailing expression)")
def cell_time(ctx):
    """%%time: run the cell body once and print CPU and wall time."""
    return _timed(compile_python(ctx.body, ctx))


class _Inline(object):
    """Run context for code written on the magic's own line."""

    def __init__(self, ctx):
        self.globals = ctx.globals
        self.locals = ctx.locals
        self.filename = "<timed>"
        self.body_line = 0


class TimeitResult(object):
    """What `%timeit -o` returns (IPython's fields)."""

    def __init__(self, loops, repeat, best, worst, all_runs, precision=3):
        self.loops = loops
        self.repeat = repeat
        self.best = best
        self.worst = worst
        self.all_runs = all_runs
        self.timings = [t / loops for t in all_runs]
        self.average = math.fsum(self.timings) / len(self.timings)
        self.stdev = math.sqrt(math.fsum((t - self.average) ** 2 for t in self.timings) / len(self.timings))
        self._precision = precision

    def __str__(self):
        return "%s \xb1 %s per loop (mean \xb1 std. dev. of %d run%s, %d loop%s each)" % (
            format_time(self.average, self._precision),
            format_time(self.stdev, self._precision),
            self.repeat,
            "" if self.repeat == 1 else "s",
            self.loops,
            "" if self.loops == 1 else "s",
        )

    def __repr__(self):
        return "<TimeitResult : %s>" % self


def _parse_timeit(args):
    options = {"n": None, "r": 7, "q": False, "o": False, "p": 3}
    rest = args.strip()
    while rest.startswith("-"):
        head, _, tail = rest.partition(" ")
        flag = head[1:2]
        if flag not in options or len(head) < 2:
            break
        if flag in ("q", "o"):
            options[flag] = True
            rest = tail.strip()
            continue
        value = head[2:]
        if not value:
            value, _, tail = tail.strip().partition(" ")
        try:
            options[flag] = int(value)
        except ValueError:
            raise UsageError("%%timeit: -%s needs a number, got %r" % (flag, value))
        rest = tail.strip()
    return options, rest


def timeit_run(stmt, setup, options, ctx):
    import timeit

    from ..core import hooks

    ns = ctx.globals if ctx.locals is ctx.globals else dict(ctx.globals, **ctx.locals)
    stmt = hooks.transform_source(stmt)
    setup = hooks.transform_source(setup) if setup else "pass"
    timer = timeit.Timer(stmt, setup, timer=time.perf_counter, globals=ns)
    number = options["n"]
    if number is None:
        number = 1
        for index in range(10):
            number = 10 ** index
            if timer.timeit(number) >= 0.2:
                break
    repeat = max(options["r"], 1)
    runs = timer.repeat(repeat, number)
    result = TimeitResult(number, repeat, min(runs) / number, max(runs) / number, runs, options["p"])
    if not options["q"]:
        # IPython's warning for a run much slower than the others (notebooks store it above the result line).
        if result.worst > 4 * result.best and result.best > 0 and result.worst > 1e-6:
            print(
                "The slowest run took %0.2f times longer than the fastest. This could mean that an intermediate "
                "result is being cached." % (result.worst / result.best)
            )
        print(result)
    _emit_status("timeit", averageMs=result.average * 1000.0, loops=number, runs=repeat)
    return result if options["o"] else None


@line_magic("timeit", expand_args=False, summary="time a statement many times (-n loops, -r runs, -o result)")
def magic_timeit(ctx):
    """%timeit [-n N] [-r R] [-q] [-o] [-p P] STATEMENT: mean and spread of many runs."""
    options, stmt = _parse_timeit(ctx.raw_args)
    if not stmt:
        raise UsageError("usage: %timeit [-n N] [-r R] [-q] [-o] STATEMENT")
    return timeit_run(stmt, "", options, ctx)


@cell_magic("timeit", expand_args=False, summary="time the cell body (the magic line holds setup code)")
def cell_timeit(ctx):
    """%%timeit [-n N] [-r R] [-q] [-o] [SETUP]: time the body; code after the options runs once as setup."""
    options, setup = _parse_timeit(ctx.raw_args)
    return timeit_run(ctx.body, setup, options, ctx)
