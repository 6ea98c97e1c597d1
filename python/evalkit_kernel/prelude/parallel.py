"""parallel() and pipeline(): zero-argument callables on worker threads, results in input order, awaitable or not."""

import threading
import time

from ..core import state

DEFAULT_WORKERS = 8
_POLL_SECONDS = 0.25  # the waiting thread wakes this often so an interrupt lands on every platform
_local = threading.local()
_serial = [0]


def owner_cell():
    """The cell a parallel() worker thread was started for; None on any other thread."""
    return getattr(_local, "cell", None)


class ParallelResults(list):
    """A plain list of results in input order; `await results` returns the same list.

    The work is done when the object exists, so `r = parallel(...)` and `r = await parallel(...)` are
    the same thing in a cell (the second form just reads naturally next to other `await`s).
    """

    __slots__ = ()

    def __await__(self):
        return _already_done(self)


def _already_done(value):
    if False:  # makes this a generator: awaiting it finishes at once with `value`
        yield None
    return value


def parallel(thunks, workers=None):
    """Run zero-argument callables concurrently; return their results in input order.

    The exception of the lowest-index failing callable is raised once the running ones finish; callables
    not yet started when something failed are skipped. A callable may return a coroutine: it is run to
    completion on its worker thread.
    """
    items = _callables("parallel()", thunks)
    count = _worker_count("parallel()", workers, len(items))
    started = time.time()
    state.emit_status("parallel", state="start", count=len(items), workers=count)
    try:
        results = run_wave(items, count)
    except BaseException as exc:
        state.emit_status("parallel", state="error", count=len(items), durationMs=_ms(started), error=_describe(exc))
        raise
    state.emit_status("parallel", state="done", count=len(items), durationMs=_ms(started))
    return results


def pipeline(items, *stages, workers=None):
    """Pass every item through each stage in turn; each stage is one parallel wave over all items."""
    if callable(items) and not isinstance(items, (list, tuple)):
        raise TypeError("pipeline() takes the items first, then the stages: pipeline(items, stage1, stage2, ...)")
    current = _as_list("pipeline()", items, "items")
    if not stages:
        raise TypeError("pipeline() needs at least one stage (a function taking one item)")
    for number, stage in enumerate(stages, 1):
        if not callable(stage):
            raise TypeError("pipeline() stage %d is not callable (got %s)" % (number, type(stage).__name__))
    count = _worker_count("pipeline()", workers, len(current))
    started = time.time()
    state.emit_status("pipeline", state="start", count=len(current), stages=len(stages), workers=count)
    try:
        for number, stage in enumerate(stages, 1):
            state.emit_status("pipeline", state="stage", stage=number, stages=len(stages), name=_name(stage))
            thunks = [_bind(stage, item) for item in current]
            current = run_wave(thunks, count, "pipeline() stage %d (%s)" % (number, _name(stage)))
    except BaseException as exc:
        state.emit_status("pipeline", state="error", durationMs=_ms(started), error=_describe(exc))
        raise
    state.emit_status("pipeline", state="done", count=len(current), stages=len(stages), durationMs=_ms(started))
    return ParallelResults(current)


def run_wave(thunks, workers, where="parallel()"):
    """Run callables on `workers` threads; results in order, or raise the lowest-index exception."""
    count = len(thunks)
    results = [None] * count
    errors = {}
    cond = threading.Condition()
    progress = {"next": 0, "alive": 0, "stop": False}
    cell = state.current_cell_id()
    parent_cell = owner_cell()
    if parent_cell is not None:
        cell = parent_cell  # nested parallel(): the inner workers belong to the same cell

    def work():
        _local.cell = cell
        try:
            while True:
                with cond:
                    if progress["stop"] or progress["next"] >= count:
                        return
                    index = progress["next"]
                    progress["next"] += 1
                try:
                    results[index] = _settle(thunks[index]())
                except BaseException as exc:  # re-raised on the calling thread
                    with cond:
                        errors[index] = exc
                        progress["stop"] = True
        finally:
            with cond:
                progress["alive"] -= 1
                cond.notify_all()

    if count == 0:
        return ParallelResults()
    _serial[0] += 1
    with cond:
        progress["alive"] = workers
    for number in range(workers):
        thread = threading.Thread(target=work, name="evalkit-parallel-%d-%d" % (_serial[0], number))
        thread.daemon = True  # a worker stuck in user code must never keep the kernel from exiting
        thread.start()
    try:
        with cond:
            while progress["alive"] > 0:
                cond.wait(_POLL_SECONDS)
    except BaseException:
        # Interrupted: start nothing new; running callables finish on their own (their bridge calls are
        # aborted by the host when the cell ends) and cannot call the host for a later cell.
        with cond:
            progress["stop"] = True
        raise
    if errors:
        index = min(errors)
        exc = errors[index]
        _annotate(exc, "%s item %d raised this" % (where, index))
        raise exc
    return ParallelResults(results)


def _settle(value):
    """A coroutine returned by a callable runs to completion here, on the worker's own event loop."""
    if hasattr(value, "cr_code") and hasattr(value, "send"):
        import asyncio

        return asyncio.run(value)
    return value


def _bind(stage, item):
    return lambda: stage(item)


def _callables(helper, thunks):
    if callable(thunks) and not isinstance(thunks, (list, tuple)):
        raise TypeError("%s takes a list of zero-argument callables, e.g. %s([lambda: f(1), lambda: f(2)])"
                        % (helper, helper[:-2]))
    items = _as_list(helper, thunks, "thunks")
    for index, item in enumerate(items):
        if not callable(item):
            raise TypeError(
                "%s item %d is not callable (got %s): pass functions that take no arguments, e.g. lambda: f(x)"
                % (helper, index, type(item).__name__)
            )
    return items


def _as_list(helper, value, what):
    if isinstance(value, (str, bytes, dict)):
        raise TypeError("%s %s must be a list or other iterable of items, not %s" % (helper, what, type(value).__name__))
    try:
        return list(value)
    except TypeError:
        raise TypeError("%s %s must be iterable (got %s)" % (helper, what, type(value).__name__)) from None


def _worker_count(helper, workers, count):
    if workers is None:
        workers = DEFAULT_WORKERS
    elif isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError("%s workers must be an int (got %s)" % (helper, type(workers).__name__))
    elif workers < 1:
        raise ValueError("%s workers must be at least 1 (got %d)" % (helper, workers))
    return max(1, min(workers, count))


def _annotate(exc, note):
    add_note = getattr(exc, "add_note", None)  # Python 3.11+
    if add_note is not None and note not in (getattr(exc, "__notes__", None) or ()):
        try:
            add_note(note)
        except Exception:
            pass


def _name(fn):
    return getattr(fn, "__name__", None) or type(fn).__name__


def _describe(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return text if len(text) <= 300 else text[:297] + "..."


def _ms(started):
    return int((time.time() - started) * 1000)
