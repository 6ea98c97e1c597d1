"""The pretty printers for built-in and standard-library types, with IPython's output for each."""

import re
import types

_BUILTIN_MODULES = (None, "__builtin__", "builtins", "exceptions")
_RE_FLAGS = ("IGNORECASE", "LOCALE", "MULTILINE", "DOTALL", "UNICODE", "VERBOSE", "DEBUG")


def safe_getattr(obj, name, default=None):
    try:
        return getattr(obj, name, default)
    except Exception:
        return default


def get_mro(klass):
    mro = safe_getattr(klass, "__mro__", None)
    if not isinstance(mro, tuple):
        return (klass, object)  # an old-style or odd class: IPython falls back the same way
    return mro


def repr_pprint(obj, p, cycle):
    """repr(), one line per line of it (so indentation of multi-line reprs follows the group)."""
    text = repr(obj)
    with p.group():
        for idx, line in enumerate(text.splitlines()):
            if idx:
                p.break_()
            p.text(line)


def default_pprint(obj, p, cycle):
    """`<module.Class at 0x...>` for objects that only have object's repr; repr() otherwise."""
    klass = safe_getattr(obj, "__class__", None) or type(obj)
    if safe_getattr(klass, "__repr__", None) is not object.__repr__:
        repr_pprint(obj, p, cycle)
        return
    p.begin_group(1, "<")
    p.pretty(klass)
    p.text(" at 0x%x" % id(obj))
    if cycle:
        p.text(" ...")
    p.end_group(1, ">")


def _seq_printer(start, end):
    def inner(obj, p, cycle):
        if cycle:
            return p.text(start + "..." + end)
        step = len(start)
        p.begin_group(step, start)
        for idx, item in p._enumerate(obj):
            if idx:
                p.text(",")
                p.breakable()
            p.pretty(item)
        if len(obj) == 1 and isinstance(obj, tuple):
            p.text(",")  # a one-item tuple
        p.end_group(step, end)

    return inner


def _sorted_for_pprint(items):
    items = list(items)
    try:
        return sorted(items)
    except Exception:
        try:
            return sorted(items, key=str)
        except Exception:
            return items


def _set_printer(start, end):
    def inner(obj, p, cycle):
        if cycle:
            return p.text(start + "..." + end)
        if len(obj) == 0:
            p.text(type(obj).__name__ + "()")
            return
        step = len(start)
        p.begin_group(step, start)
        big = p.max_seq_length and len(obj) >= p.max_seq_length
        for idx, item in p._enumerate(obj if big else _sorted_for_pprint(obj)):
            if idx:
                p.text(",")
                p.breakable()
            p.pretty(item)
        p.end_group(step, end)

    return inner


def _dict_printer(start, end):
    def inner(obj, p, cycle):
        if cycle:
            return p.text("{...}")
        step = len(start)
        p.begin_group(step, start)
        for idx, key in p._enumerate(obj.keys()):
            if idx:
                p.text(",")
                p.breakable()
            p.pretty(key)
            p.text(": ")
            p.pretty(obj[key])
        p.end_group(step, end)

    return inner


class _Raw(object):
    """Text printed as is inside a call expression."""

    def __init__(self, value):
        self.value = value

    def _repr_pretty_(self, p, cycle):
        p.text(self.value)


class _Call(object):
    """`name(arg, ..., key=value)` laid out like IPython's CallExpression."""

    def __init__(self, name, *args, **kwargs):
        self.name = name
        self.args = args
        self.kwargs = kwargs

    def _repr_pretty_(self, p, cycle):
        prefix = self.name + "("
        items = [(None, a) for a in self.args] + list(self.kwargs.items())
        with p.group(len(prefix), prefix, ")"):
            for idx, (key, value) in enumerate(items):
                if idx:
                    p.text(",")
                    p.breakable()
                if key is None:
                    p.pretty(value)
                else:
                    with p.group(len(key) + 1, key + "="):
                        p.pretty(value)


def _type_pprint(obj, p, cycle):
    # A metaclass with its own __repr__ (enum classes, ...) keeps it.
    if [m for m in get_mro(type(obj)) if "__repr__" in vars(m)][:1] != [type]:
        repr_pprint(obj, p, cycle)
        return
    mod = safe_getattr(obj, "__module__", None)
    name = safe_getattr(obj, "__qualname__", None)
    if not isinstance(name, str):
        name = safe_getattr(obj, "__name__", None)
        if not isinstance(name, str):
            name = "<unknown type>"
    p.text(name if mod in _BUILTIN_MODULES else "%s.%s" % (mod, name))


def _function_pprint(obj, p, cycle):
    name = safe_getattr(obj, "__qualname__", None) or obj.__name__
    mod = safe_getattr(obj, "__module__", None)
    if mod and mod not in ("__builtin__", "builtins", "exceptions"):
        name = mod + "." + name
    try:
        import inspect

        name += str(inspect.signature(obj))
    except (ValueError, TypeError):
        pass
    p.text("<function %s>" % name)


def _exception_pprint(obj, p, cycle):
    klass = obj.__class__
    name = getattr(klass, "__qualname__", klass.__name__)
    if klass.__module__ not in ("exceptions", "builtins"):
        name = "%s.%s" % (klass.__module__, name)
    p.pretty(_Call(name, *getattr(obj, "args", ())))


def _re_pattern_pprint(obj, p, cycle):
    args = [_Raw("r" + repr(obj.pattern))]
    flags = [name for name in _RE_FLAGS if obj.flags & getattr(re, name)]
    if flags:
        args.append(_Raw("|".join("re." + name for name in flags)))
    p.pretty(_Call("re.compile", *args))


def _simplenamespace_pprint(obj, p, cycle):
    with p.group(len("namespace("), "namespace(", ")"):
        if cycle:
            p.text("...")
            return
        for idx, (key, value) in enumerate(obj.__dict__.items()):
            if idx:
                p.text(",")
                p.breakable()
            with p.group(len(key) + 1, key + "="):
                p.pretty(value)


def _ctor(obj, *args):
    return _Call(obj.__class__.__name__, *args)


def _defaultdict_pprint(obj, p, cycle):
    p.pretty(_ctor(obj, _Raw("...")) if cycle else _ctor(obj, obj.default_factory, dict(obj)))


def _ordereddict_pprint(obj, p, cycle):
    if cycle:
        p.pretty(_ctor(obj, _Raw("...")))
    else:
        p.pretty(_ctor(obj, list(obj.items())) if len(obj) else _ctor(obj))


def _deque_pprint(obj, p, cycle):
    p.pretty(_ctor(obj, _Raw("...")) if cycle else _ctor(obj, list(obj)))


def _counter_pprint(obj, p, cycle):
    if cycle:
        p.pretty(_ctor(obj, _Raw("...")))
    elif len(obj):
        # IPython 8.13 started printing Counters most common first, as Python's repr; before, in insertion order
        from ..core import ipython_version

        p.pretty(_ctor(obj, dict(obj.most_common()) if ipython_version.at_least(8, 13) else dict(obj)))
    else:
        p.pretty(_ctor(obj))


def _userlist_pprint(obj, p, cycle):
    p.pretty(_ctor(obj, _Raw("...")) if cycle else _ctor(obj, obj.data))


TYPE_PRINTERS = {
    int: repr_pprint,
    float: repr_pprint,
    str: repr_pprint,
    bytes: repr_pprint,
    tuple: _seq_printer("(", ")"),
    list: _seq_printer("[", "]"),
    dict: _dict_printer("{", "}"),
    set: _set_printer("{", "}"),
    frozenset: _set_printer("frozenset({", "})"),
    super: repr_pprint,
    type(re.compile("")): _re_pattern_pprint,
    type: _type_pprint,
    types.FunctionType: _function_pprint,
    types.BuiltinFunctionType: _function_pprint,
    types.MethodType: repr_pprint,
    types.SimpleNamespace: _simplenamespace_pprint,
    types.MappingProxyType: _dict_printer("mappingproxy({", "})"),
    slice: repr_pprint,
    range: repr_pprint,
    BaseException: _exception_pprint,
}

# By (module, name), so printing never imports the module; the first match moves into TYPE_PRINTERS.
DEFERRED_PRINTERS = {
    ("collections", "defaultdict"): _defaultdict_pprint,
    ("collections", "OrderedDict"): _ordereddict_pprint,
    ("collections", "deque"): _deque_pprint,
    ("collections", "Counter"): _counter_pprint,
    ("collections", "UserList"): _userlist_pprint,
    ("datetime", "datetime"): repr_pprint,
    ("datetime", "timedelta"): repr_pprint,
    ("os", "_Environ"): _dict_printer("environ{", "}"),
}


def singleton_printers():
    return dict.fromkeys(map(id, [None, True, False, Ellipsis, NotImplemented]), repr_pprint)
