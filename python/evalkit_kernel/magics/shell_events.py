"""IPython's shell events (get_ipython().events): pre_execute, pre_run_cell, post_execute, post_run_cell.

The executor calls the observer only once a callback is registered (core.hooks.set_cell_observer), so cells pay
nothing for events nobody listens to. Callbacks get IPython's ExecutionInfo / ExecutionResult; a callback that
fails prints "Error in callback ..." and its traceback, and the cell goes on, as in IPython.
"""

import sys

EVENTS = ("pre_execute", "pre_run_cell", "post_execute", "post_run_cell", "shell_initialized")
_TAKES_ARGUMENT = {"pre_run_cell": True, "post_run_cell": True}


class ExecutionInfo(object):
    """What pre_run_cell gets: the cell as typed and how it was asked to run."""

    def __init__(self, raw_cell, store_history, silent, shell_futures=True, cell_id=None):
        self.raw_cell = raw_cell
        self.store_history = store_history
        self.silent = silent
        self.shell_futures = shell_futures
        self.cell_id = cell_id

    def __repr__(self):
        raw = self.raw_cell if len(self.raw_cell) <= 50 else self.raw_cell[:50] + ".."
        return "<ExecutionInfo object at %x, raw_cell=\"%s\" store_history=%s silent=%s shell_futures=%s cell_id=%s>" % (
            id(self), raw, self.store_history, self.silent, self.shell_futures, self.cell_id)


class ExecutionResult(object):
    """What post_run_cell gets: the cell's value and its error, if any."""

    def __init__(self, info):
        self.info = info
        self.execution_count = None
        self.error_before_exec = None
        self.error_in_exec = None
        self.result = None

    @property
    def success(self):
        return (self.error_before_exec is None) and (self.error_in_exec is None)

    def raise_error(self):
        if self.error_before_exec is not None:
            raise self.error_before_exec
        if self.error_in_exec is not None:
            raise self.error_in_exec

    def __repr__(self):
        return "<ExecutionResult object at %x, execution_count=%s error_before_exec=%s error_in_exec=%s info=%r result=%r>" % (
            id(self), self.execution_count, self.error_before_exec, self.error_in_exec, self.info, self.result)


def _adapt(event, function):
    # IPython (through backcall) accepts callbacks that take fewer arguments than the event passes.
    if not _TAKES_ARGUMENT.get(event):
        return function
    try:
        import inspect

        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return function
    kinds = [p.kind for p in params]
    if any(k in (inspect.Parameter.VAR_POSITIONAL,) for k in kinds) or any(
        k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in kinds
    ):
        return function

    def adapted(*args, **kwargs):
        return function()

    adapted.__wrapped__ = function
    return adapted


class EventManager(object):
    """register / unregister / trigger, with IPython's names and errors."""

    def __init__(self):
        self.callbacks = {name: [] for name in EVENTS}
        self._info = None
        self._result = None

    def register(self, event, function):
        if not callable(function):
            raise TypeError("Need a callable, got %r" % (function,))
        if event not in self.callbacks:
            raise KeyError(event)
        if function not in self.callbacks[event]:
            self.callbacks[event].append(_adapt(event, function))
        from ..core import hooks

        hooks.set_cell_observer(self)

    def unregister(self, event, function):
        callbacks = self.callbacks[event]
        if function in callbacks:
            return callbacks.remove(function)
        for callback in callbacks:
            if getattr(callback, "__wrapped__", None) is function:
                return callbacks.remove(callback)
        raise ValueError("Function {!r} is not registered as a {} callback".format(function, event))

    def trigger(self, event, *args, **kwargs):
        for function in self.callbacks[event][:]:
            try:
                function(*args, **kwargs)
            except (Exception, KeyboardInterrupt):
                print("Error in callback {} (for {}):".format(function, event))
                print_user_traceback()

    # The executor's observer interface (core.hooks.cell_observer)
    def before_cell(self, raw_cell, silent, store_history):
        info = ExecutionInfo(raw_cell, store_history, silent)
        self._info = info
        self.trigger("pre_execute")
        if not silent:
            self.trigger("pre_run_cell", info)

    def after_cell(self, raw_cell, silent, store_history, value, error, execution_count):
        info = self._info
        if info is None or info.raw_cell is not raw_cell:
            info = ExecutionInfo(raw_cell, store_history, silent)  # registered during this cell
        self._info = None
        result = ExecutionResult(info)
        result.execution_count = execution_count
        result.result = value
        result.error_in_exec = error
        self.trigger("post_execute")
        if not silent:
            self.trigger("post_run_cell", result)


def print_user_traceback():
    """The exception being handled, on stderr, without the frames of evalkit's runner in front of the user's."""
    import traceback

    exc_type, exc, tb = sys.exc_info()
    first = tb
    while first is not None and first.tb_frame.f_code.co_filename.startswith("<evalkit>/"):
        first = first.tb_next
    traceback.print_exception(exc_type, exc, first or tb, file=sys.stderr)
