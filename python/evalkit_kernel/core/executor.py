"""Runs one cell: transform, parse, execute in __main__ (top-level await included), result and error frames."""

import _ast as ast  # the C module: `ast` would import enum (~2 ms of start-up) for nothing we use
import sys

from . import hooks
from . import import_hooks
from . import output_cache
from . import state
from .frame_encoding import PLAIN_RESULT_MAX_CHARS

# IPython's displayhook starts _, __ and ___ as '' (the namespace gets them at start-up, core.main).
INITIAL_UNDERS = {"_": "", "__": "", "___": ""}
_TOP_LEVEL_AWAIT = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
_CO_COROUTINE = 0x0080
_CELL_PREFIXES = ("<cell ", "<eval ")
_RUNNER_PREFIX = "<evalkit>/"
_IPYTHON_HINT = (
    "Hint: IPython is not installed for this interpreter. display, update_display, clear_output, HTML, "
    "Markdown, Image, JSON, SVG and Latex are already defined in every cell: drop the import "
    "(or run %pip install ipython)."
)


class CellOutcome(object):
    __slots__ = ("status", "cancelled", "execution_count")

    def __init__(self, status, cancelled, execution_count):
        self.status = status
        self.cancelled = cancelled
        self.execution_count = execution_count


class Executor(object):
    def __init__(self):
        self._loop = None
        self._serial = 0
        self._unders = dict(INITIAL_UNDERS)  # what evalkit last put in _, __ and ___
        self._future_flags = 0  # compiler flags of the session's `from __future__` imports

    def run(self, code, cell, silent=False, store_history=True):
        """Runs one cell for the request `cell` (a CellContext); its interrupt_seen tells a cancellation apart."""
        counted = store_history and not silent
        count = state.next_execution_count() if counted else state.execution_count()
        self._serial += 1
        filename = "<cell %d>" % count if counted else "<eval %d>" % self._serial
        ns = state.user_namespace()
        if counted:
            _record_input(ns, count, code)
        value = error = None
        try:
            try:
                if hooks.cell_observer is not None:
                    hooks.cell_observer.before_cell(code, silent, store_history)
                if code.startswith("\ufeff"):
                    code = code[1:]  # a BOM pasted from a Windows file: Python's own file reader drops it too
                source = hooks.transform_source(code)
                _register_source(filename, code, source)
                value, has_value = self._execute(source, filename, ns)
                if has_value and value is not None and not silent:
                    self._publish_result(ns, value, count if counted else None)
                status, cancelled = "ok", False
            except KeyboardInterrupt:
                error = sys.exc_info()[1]
                _report_exception(sys.exc_info(), filename)
                status, cancelled = "error", cell.interrupt_seen
            except BaseException:
                error = sys.exc_info()[1]
                _report_exception(sys.exc_info(), filename)
                status, cancelled = "error", False
            hooks.run_post_execute()
            if hooks.cell_observer is not None:
                hooks.cell_observer.after_cell(code, silent, store_history, value, error, count)
        except KeyboardInterrupt:
            # An interrupt that landed in our own bookkeeping still ends the cell as cancelled.
            status, cancelled = "error", True
        return CellOutcome(status, cancelled, count)

    def _execute(self, source, filename, ns):
        flags = _TOP_LEVEL_AWAIT | self._future_flags
        code = _compile_lone_expression(source, filename, flags)
        if code is not None:
            return self._run_code(code, ns), True
        tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
        body = self._hoist_futures(tree.body)
        flags = _TOP_LEVEL_AWAIT | self._future_flags
        last_expr = None
        if body and isinstance(body[-1], ast.Expr) and not _ends_with_semicolon(source, body[-1]):
            last_expr = body.pop()
        if body:
            module = ast.Module(body=body, type_ignores=[])
            self._run_code(compile(module, filename, "exec", flags, dont_inherit=True), ns)
        if last_expr is None:
            return None, False
        expression = ast.Expression(body=last_expr.value)
        code = compile(expression, filename, "eval", flags, dont_inherit=True)
        return self._run_code(code, ns), True

    def _hoist_futures(self, body):
        # IPython compiles a cell statement by statement and keeps the compiler flags of `from __future__`
        # imports for the cells after it, so such an import may sit anywhere in a cell and lasts for the
        # session. Here they move to the front of the cell, and their flags are kept.
        futures = [node for node in body if isinstance(node, ast.ImportFrom) and node.module == "__future__"]
        if not futures:
            return body
        import __future__

        for node in futures:
            for alias in node.names:
                feature = getattr(__future__, alias.name, None)
                self._future_flags |= getattr(feature, "compiler_flag", 0)
        return futures + [node for node in body if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]

    def _run_code(self, code, ns):
        if code.co_flags & _CO_COROUTINE:
            return self._run_coroutine(eval(code, ns))
        return eval(code, ns)

    def _run_coroutine(self, coro):
        import asyncio  # imported on the first async cell only: it costs start-up time

        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
        loop = self._loop
        task = loop.create_task(coro)
        try:
            return loop.run_until_complete(task)
        except KeyboardInterrupt:
            # SIGINT while the loop waited: cancel the cell's task so it unwinds, keep the loop usable.
            task.cancel()
            try:
                loop.run_until_complete(task)
            except BaseException:
                pass
            raise KeyboardInterrupt()

    def _publish_result(self, ns, value, count):
        out = ns.get("Out")
        if value is not out or out is None:  # as IPython: showing Out does not store Out inside itself
            self._remember_result(ns, value, count, out)
        formatted = hooks.format_result(value)
        if formatted is None:
            return
        bundle, metadata = formatted
        if not metadata and len(bundle) == 1:
            text = bundle.get("text/plain")
            if text.__class__ is str and len(text) < PLAIN_RESULT_MAX_CHARS:
                state.send_plain_result(text, count)  # the usual result: short text, formatted directly
                return
        frame = {"type": "result", "bundle": bundle, "executionCount": count}
        if metadata:
            frame["metadata"] = metadata
        state.send_output(frame, hold=True)

    def _remember_result(self, ns, value, count, out):
        # As IPython's displayhook: _, __ and ___ move along unless the user assigned one of them
        # (`for _ in ...`), which then keeps the user's value.
        mine = self._unders
        get = mine.get
        # Unrolled (no generator): this runs for every cell that shows a value.
        one, two, three = ns.get("_", _UNSET), ns.get("__", _UNSET), ns.get("___", _UNSET)
        if one is _UNSET and two is _UNSET and three is _UNSET:
            mine.update(INITIAL_UNDERS)  # %reset deleted all three: start again from '', as IPython's flush
        if (one is _UNSET or one is get("_")) and (two is _UNSET or two is get("__")) and (
            three is _UNSET or three is get("___")
        ):
            mine["___"], mine["__"], mine["_"] = get("__"), get("_"), value
            ns.update(mine)
        if count is not None:
            if isinstance(out, dict):
                if len(out) >= output_cache.CACHE_SIZE:
                    output_cache.make_room(ns, out)
                out[count] = value
            ns["_%d" % count] = value


# Statements a one-line cell often starts with: the lone-expression attempt would only fail on them.
_STATEMENT_WORDS = ("import ", "from ", "del ", "pass", "raise", "assert ", "return", "global ", "nonlocal ", "def ",
                    "class ", "if ", "for ", "while ", "with ", "try:", "async ", "@", "break", "continue")
# Digits become "0", letters and "_" become "a": b"0a" then marks a number followed by a letter (`1if`, `0x1f`, `1e5`).
_DIGIT_LETTER = bytes(
    ord("0") if chr(c).isdigit() else ord("a") if chr(c).isalpha() or c == ord("_") else ord(" ") for c in range(256)
)


def _compile_lone_expression(source, filename, flags):
    """The code of a cell that is one expression, compiled in one step; None when that cannot be known cheaply.

    The usual way parses the cell into an AST first (to find a trailing expression) and compiles the pieces
    from it: two passes and a tree of Python objects, most of a short cell's compile time. A cell that compiles
    in "eval" mode is exactly one expression, which that way would pop and compile in "eval" mode too: the same
    code. The attempt is made only where a failed one cannot have shown the user anything the usual way then
    shows again: no backslash and no number followed by a letter (the tokenizer's only warnings), no `yield` or
    `await` (errors the compiler raises after its own warnings), ASCII, no `=` (assignments), no `;`.
    """
    if (
        "=" in source
        or ";" in source
        or "\\" in source
        or "yield" in source
        or "await" in source
        or not source.isascii()
        or source.startswith(_STATEMENT_WORDS)
        or b"0a" in source.encode("ascii").translate(_DIGIT_LETTER)
    ):
        return None
    try:
        return compile(source, filename, "eval", flags, dont_inherit=True)
    except Exception:
        return None  # not one expression (or not compilable): the usual way reports it as always


def _record_input(ns, count, code):
    # As IPython's history manager: In[n] and _i<n> are this cell (without trailing newlines), while _i,
    # _ii and _iii are the three cells before it.
    code = code.rstrip("\n")
    history = ns.get("In")
    if isinstance(history, list):
        while len(history) < count:
            history.append("")
        history.append(code)
    ns["_iii"] = ns.get("_ii", "")
    ns["_ii"] = ns.get("_i", "")
    ns["_i"] = _last_input[0]
    _last_input[0] = code
    ns["_i%d" % count] = code


_UNSET = object()  # not in the namespace (None is a value a user can assign)
_last_input = [""]  # IPython's _i00: the input before the running cell's


def _register_source(filename, original, source):
    # Tracebacks show what the user typed when the rewrite kept the line structure.
    shown = original if original.count("\n") == source.count("\n") else source
    lines = shown.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    entry = (len(shown), None, lines, filename)
    linecache = sys.modules.get("linecache")
    if linecache is not None:
        linecache.cache[filename] = entry
    else:
        _unregistered_sources[filename] = entry  # linecache is imported lazily (it pulls in tokenize)


# Cell sources kept until linecache is first imported (by traceback, warnings, inspect or the user).
_unregistered_sources = {}


def _register_pending_sources(linecache):
    linecache.cache.update(_unregistered_sources)
    _unregistered_sources.clear()


import_hooks.when_imported("linecache", _register_pending_sources)


def _ends_with_semicolon(source, node):
    lines = source.splitlines()
    end_line = getattr(node, "end_lineno", None)
    end_col = getattr(node, "end_col_offset", None)
    if end_line is None or end_line > len(lines):
        return False
    rest = lines[end_line - 1].encode("utf-8")[end_col:].decode("utf-8", "replace")
    return rest.split("#", 1)[0].strip().startswith(";")


def _report_exception(exc_info, filename):
    import traceback  # only when a cell fails: it costs start-up time

    etype, value, tb = exc_info
    # Drop the runner's own frames: start at the first frame that belongs to a cell.
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(_CELL_PREFIXES):
        tb = tb.tb_next
    if isinstance(value, SyntaxError):
        tb = None
    try:
        report = traceback.TracebackException(etype, value, tb)
        _hide_runner_frames(report, set())
        lines = "".join(report.format()).splitlines()
    except Exception:
        lines = ["%s: %s" % (etype.__name__, value)]
    if isinstance(value, ImportError) and (getattr(value, "name", None) or "").split(".")[0] == "IPython":
        lines.append(_IPYTHON_HINT)
    try:
        evalue = str(value)
    except Exception:
        evalue = "<unprintable %s>" % etype.__name__
    state.send_output({"type": "error", "ename": etype.__name__, "evalue": evalue, "traceback": lines}, hold=True)


def _hide_runner_frames(report, seen):
    import traceback

    if report is None or id(report) in seen:
        return
    seen.add(id(report))
    frames = [frame for frame in report.stack if not frame.filename.startswith(_RUNNER_PREFIX)]
    if len(frames) != len(report.stack):
        report.stack = traceback.StackSummary.from_list(frames)
    _hide_runner_frames(report.__cause__, seen)
    _hide_runner_frames(report.__context__, seen)
