"""IPython's magic-writing API (IPython.core.magic) for interpreters without IPython: the decorators and Magics.

The stub finder (ipython_stub.py) serves this module as `IPython.core.magic` when IPython is not installed, so
extensions written for IPython register their magics here the same way; with IPython installed its own module
is used and reaches the same shell through get_ipython().
"""

from .registry import UsageError

magic_kinds = ("line", "cell", "line_cell")
magic_spec = ("line", "cell", "line_cell")
magic_escapes = {"line": "%", "cell": "%%"}

__all__ = [
    "Magics", "magics_class", "line_magic", "cell_magic", "line_cell_magic", "register_line_magic",
    "register_cell_magic", "register_line_cell_magic", "needs_local_scope", "no_var_expand",
    "output_can_be_silenced", "magic_kinds", "UsageError",
]


def _shell():
    from .shell_shim import current_shell

    return current_shell()


def _validate_kind(kind):
    if kind not in magic_kinds:
        raise ValueError("magic_kind must be one of %s, %s given" % (magic_kinds, kind))


def _method_marker(kind):
    """@line_magic / @line_magic("name") on a Magics method: marks it for @magics_class to collect."""
    _validate_kind(kind)

    def decorate(arg):
        if callable(arg):
            return _mark(arg, kind, arg.__name__)
        if isinstance(arg, str):
            return lambda func: _mark(func, kind, arg)
        raise TypeError("Decorator can only be called with string or function")

    return decorate


def _mark(func, kind, name):
    marks = list(getattr(func, "_evalkit_magic_marks", ()))
    marks.append((kind, name))
    func._evalkit_magic_marks = marks
    return func


def _function_registrar(kind):
    """@register_line_magic / @register_line_magic("name"): registers a plain function with the shell now."""
    _validate_kind(kind)

    def decorate(arg):
        if callable(arg):
            _shell().register_magic_function(arg, kind, arg.__name__)
            return arg
        if isinstance(arg, str):
            def register(func, *args, **kwargs):
                _shell().register_magic_function(func, kind, arg)
                return func

            return register
        raise TypeError("Decorator can only be called with string or function")

    return decorate


line_magic = _method_marker("line")
cell_magic = _method_marker("cell")
line_cell_magic = _method_marker("line_cell")
register_line_magic = _function_registrar("line")
register_cell_magic = _function_registrar("cell")
register_line_cell_magic = _function_registrar("line_cell")


def needs_local_scope(func):
    """The magic is called with `local_ns=` (the caller's locals), as IPython does."""
    func.needs_local_scope = True
    return func


def no_var_expand(func):
    """The magic's line reaches it as typed: no `{expr}`/`$name` expansion."""
    func._ipython_magic_no_var_expand = True
    return func


def output_can_be_silenced(func):
    func._ipython_magic_output_can_be_silenced = True
    return func


def magics_class(cls):
    """Collects the methods marked @line_magic/@cell_magic/@line_cell_magic into cls.magics (name -> method)."""
    table = {"line": {}, "cell": {}}
    for klass in reversed(cls.__mro__):
        for attr, value in vars(klass).items():
            for kind, name in getattr(value, "_evalkit_magic_marks", ()):
                for target in ("line", "cell") if kind == "line_cell" else (kind,):
                    table[target][name] = attr
    cls.registered = True
    cls.magics = table
    return cls


class Struct(dict):
    """A dict whose keys read as attributes (IPython's Struct, as parse_options returns it)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key)


class Magics(object):
    """Base class of a set of magics: decorate the subclass with @magics_class, register with register_magics."""

    options_table = {}
    magics = {"line": {}, "cell": {}}
    registered = False
    shell = None

    def __init__(self, shell=None, **kwargs):
        if not self.__class__.registered:
            raise ValueError(
                "Magics subclass without registration - did you forget to apply @magics_class on %s?"
                % type(self).__name__
            )
        self.shell = shell
        self.options_table = {}
        class_magics = self.magics
        self.magics = {}
        for kind in ("line", "cell"):
            self.magics[kind] = {
                name: getattr(self, attr) if isinstance(attr, str) else attr
                for name, attr in class_magics.get(kind, {}).items()
            }
        for key, value in kwargs.items():
            setattr(self, key, value)

    def arg_err(self, func):
        print("Error in arguments:")
        print((func.__doc__ or "").strip())

    def default_option(self, fn, optstr):
        if fn not in self.lsmagic():
            raise UsageError("%s not found" % fn)
        self.options_table[fn] = optstr

    def lsmagic(self):
        from .registry import CELL, LINE

        return {"line": dict(LINE), "cell": dict(CELL)}

    def parse_options(self, arg_str, opt_str, *long_opts, **kw):
        """IPython's option parser: getopt over shell-like words; returns (Struct of options, rest as text)."""
        import getopt

        from .registry import split_args

        mode = kw.get("mode", "string")
        if mode not in ("string", "list"):
            raise ValueError("incorrect mode given: %s" % mode)
        list_all = kw.get("list_all", 0)
        words = split_args(arg_str) if arg_str else []
        try:
            found, rest = getopt.getopt(words, opt_str, list(long_opts))
        except getopt.GetoptError as exc:
            raise UsageError("%s ( allowed: \"%s\" %s)" % (exc.msg, opt_str, " ".join(long_opts)))
        options = Struct()
        for key, value in found:
            key = key.lstrip("-")
            options.setdefault(key, []).append(value)
        for key, values in list(options.items()):
            if not list_all and len(values) == 1:
                options[key] = values[0]
        if mode == "string":
            return options, " ".join(rest)
        return options, rest


def _magic_module_getattr(name):
    # a name of the real module this stand-in lacks: say so, rather than a bare AttributeError
    raise AttributeError("module 'IPython.core.magic' has no attribute %r (evalkit's stand-in)" % name)


def install_into(module):
    """Fills the stand-in `IPython.core.magic` module with this API."""
    for name in __all__ + ["Struct", "magic_escapes", "magic_spec"]:
        setattr(module, name, globals()[name] if name != "UsageError" else UsageError)
    module.__getattr__ = _magic_module_getattr
    return module

