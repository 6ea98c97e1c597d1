"""IPython's pretty printer, rebuilt: the text/plain of results and displays (79 columns, sorted sets, _repr_pretty_).

The layout engine follows IPython's lib/pretty.py (a Wadler-style printer that breaks the outermost groups
first), including its quirks, so results wrap at the same places as in Jupyter; the printers for the
built-in types are in display_pretty_types.
"""

from collections import deque

MAX_WIDTH = 79
MAX_SEQ_LENGTH = 1000


class _Text(object):
    __slots__ = ("parts", "width")

    def __init__(self):
        self.parts = []
        self.width = 0

    def output(self, stream, output_width):
        for part in self.parts:
            stream.append(part)
        return output_width + self.width

    def add(self, text, width):
        self.parts.append(text)
        self.width += width


class _Breakable(object):
    __slots__ = ("sep", "width", "printer", "indentation", "group")

    def __init__(self, sep, width, printer):
        self.sep = sep
        self.width = width
        self.printer = printer
        self.indentation = printer.indentation
        self.group = printer.group_stack[-1]
        self.group.breakables.append(self)

    def output(self, stream, output_width):
        self.group.breakables.popleft()
        if self.group.want_break:
            stream.append("\n")
            stream.append(" " * self.indentation)
            return self.indentation
        if not self.group.breakables:
            self.printer.group_queue.remove(self.group)
        stream.append(self.sep)
        return output_width + self.width


class _Group(object):
    __slots__ = ("depth", "breakables", "want_break")

    def __init__(self, depth):
        self.depth = depth
        self.breakables = deque()
        self.want_break = False


class _GroupQueue(object):
    def __init__(self, group):
        self.queue = []
        self.enq(group)

    def enq(self, group):
        while group.depth > len(self.queue) - 1:
            self.queue.append([])
        self.queue[group.depth].append(group)

    def deq(self):
        for stack in self.queue:
            for idx, group in enumerate(reversed(stack)):
                if group.breakables:
                    # IPython deletes by the reversed index (a long-standing quirk); kept so layouts match.
                    del stack[idx]
                    group.want_break = True
                    return group
            for group in stack:
                group.want_break = True
            del stack[:]
        return None

    def remove(self, group):
        try:
            self.queue[group.depth].remove(group)
        except ValueError:
            pass


class _GroupContext(object):
    def __init__(self, printer, indent, open_text, close_text):
        self.args = (printer, indent, open_text, close_text)

    def __enter__(self):
        printer, indent, open_text, _ = self.args
        printer.begin_group(indent, open_text)

    def __exit__(self, *exc):
        printer, indent, _, close_text = self.args
        printer.end_group(indent, close_text)


class PrettyPrinter(object):
    """The `p` that _repr_pretty_(self, p, cycle) and text/plain printers receive (IPython's API)."""

    def __init__(self, max_width=MAX_WIDTH, max_seq_length=MAX_SEQ_LENGTH, type_printers=None,
                 deferred_printers=None, singleton_printers=None):
        from . import pretty_types as types_

        self.output = []
        self.max_width = max_width
        self.max_seq_length = max_seq_length
        self.newline = "\n"
        self.output_width = 0
        self.buffer_width = 0
        self.buffer = deque()
        self.indentation = 0
        self.verbose = False
        root = _Group(0)
        self.group_stack = [root]
        self.group_queue = _GroupQueue(root)
        self.stack = []
        self.type_pprinters = types_.TYPE_PRINTERS if type_printers is None else type_printers
        self.deferred_pprinters = types_.DEFERRED_PRINTERS if deferred_printers is None else deferred_printers
        self.singleton_pprinters = types_.singleton_printers() if singleton_printers is None else singleton_printers

    # -- layout --------------------------------------------------------------------------------------
    def _break_one_group(self, group):
        while group.breakables:
            item = self.buffer.popleft()
            self.output_width = item.output(self.output, self.output_width)
            self.buffer_width -= item.width
        while self.buffer and isinstance(self.buffer[0], _Text):
            item = self.buffer.popleft()
            self.output_width = item.output(self.output, self.output_width)
            self.buffer_width -= item.width

    def _break_outer_groups(self):
        while self.max_width < self.output_width + self.buffer_width:
            group = self.group_queue.deq()
            if not group:
                return
            self._break_one_group(group)

    def text(self, obj):
        width = len(obj)
        if self.buffer:
            last = self.buffer[-1]
            if not isinstance(last, _Text):
                last = _Text()
                self.buffer.append(last)
            last.add(obj, width)
            self.buffer_width += width
            self._break_outer_groups()
        else:
            self.output.append(obj)
            self.output_width += width

    def _newline(self):
        self.output.append(self.newline)
        self.output.append(" " * self.indentation)
        self.output_width = self.indentation
        self.buffer_width = 0

    def breakable(self, sep=" "):
        group = self.group_stack[-1]
        if group.want_break:
            self.flush()
            self._newline()
        else:
            self.buffer.append(_Breakable(sep, len(sep), self))
            self.buffer_width += len(sep)
            self._break_outer_groups()

    def break_(self):
        group = self.group_queue.deq()
        if group:
            self._break_one_group(group)
        self.flush()
        self._newline()

    def begin_group(self, indent=0, open=""):
        if open:
            self.text(open)
        group = _Group(self.group_stack[-1].depth + 1)
        self.group_stack.append(group)
        self.group_queue.enq(group)
        self.indentation += indent

    def end_group(self, dedent=0, close=""):
        self.indentation -= dedent
        group = self.group_stack.pop()
        if not group.breakables:
            self.group_queue.remove(group)
        if close:
            self.text(close)

    def group(self, indent=0, open="", close=""):
        return _GroupContext(self, indent, open, close)

    def indent(self, indent):
        return _GroupContext(self, indent, "", "")

    def flush(self):
        for item in self.buffer:
            # IPython adds the returned width to the running width (another quirk that shapes layouts).
            self.output_width += item.output(self.output, self.output_width)
        self.buffer.clear()
        self.buffer_width = 0

    def getvalue(self):
        self.flush()
        return "".join(self.output)

    def _enumerate(self, seq):
        for idx, item in enumerate(seq):
            if self.max_seq_length and idx >= self.max_seq_length:
                self.text(",")
                self.breakable()
                self.text("...")
                return
            yield idx, item

    # -- dispatch ------------------------------------------------------------------------------------
    def pretty(self, obj):
        from . import pretty_types as types_

        obj_id = id(obj)
        cycle = obj_id in self.stack
        self.stack.append(obj_id)
        self.begin_group()
        try:
            printer = self.singleton_pprinters.get(obj_id)
            if printer is not None:
                return printer(obj, self, cycle)
            klass = types_.safe_getattr(obj, "__class__", None) or type(obj)
            for cls in types_.get_mro(klass):
                if cls in self.type_pprinters:
                    return self.type_pprinters[cls](obj, self, cycle)
                printer = self._deferred(cls)
                if printer is not None:
                    return printer(obj, self, cycle)
                own = getattr(cls, "__dict__", {})
                if "_repr_pretty_" in own:
                    method = own["_repr_pretty_"]
                    if callable(method):
                        return getattr(cls, "_repr_pretty_")(obj, self, cycle)
                if cls is not object and "__repr__" in own and callable(types_.safe_getattr(cls, "__repr__", None)):
                    return types_.repr_pprint(obj, self, cycle)
            return types_.default_pprint(obj, self, cycle)
        finally:
            self.end_group()
            self.stack.pop()

    def _deferred(self, cls):
        key = (types_module_name(cls), getattr(cls, "__name__", None))
        printer = self.deferred_pprinters.get(key)
        if printer is not None and cls not in self.type_pprinters:
            # Like IPython: the first lookup by name moves the printer to the by-type table.
            self.type_pprinters[cls] = printer
        return printer


def types_module_name(cls):
    try:
        return cls.__module__
    except Exception:
        return None


def pretty(obj, max_width=MAX_WIDTH, max_seq_length=MAX_SEQ_LENGTH, **tables):
    """IPython's text/plain for obj (what `IPython.lib.pretty.pretty(obj)` returns)."""
    printer = PrettyPrinter(max_width, max_seq_length, **tables)
    try:
        printer.pretty(obj)
        return printer.getvalue()
    except RecursionError:
        return repr(obj)
