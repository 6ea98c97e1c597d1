"""What get_ipython() returns: the parts of IPython's InteractiveShell that notebooks and extensions call.

One shell per kernel (it survives %reset, as IPython's does): magics registered by extensions and by the
IPython.core.magic decorators land in the same tables as evalkit's own, so `%name` and `%%name` find them.
"""

import sys

from . import registry

_shells = []


class MagicsManager(object):
    """get_ipython().magics_manager: the registration calls, and the tables as {kind: {name: callable}}."""

    def __init__(self, shell):
        self._shell = shell
        self.registry = {}

    @property
    def magics(self):
        from .catalog import load_all

        load_all()
        return {"line": {name: entry[0] for name, entry in registry.LINE.items()},
                "cell": {name: entry[0] for name, entry in registry.CELL.items()}}

    def register(self, *objs):
        return self._shell.register_magics(*objs)

    def register_function(self, func, magic_kind="line", magic_name=None):
        return self._shell.register_magic_function(func, magic_kind, magic_name)

    def lsmagic(self):
        return self.magics


class _IPythonShim(object):
    """The shell code written for IPython talks to: magics, events, extensions, the user namespace."""

    colors = "Neutral"  # IPython's colour scheme name; sympy's init_printing reads it to pick a LaTeX colour

    def __init__(self, namespace, magic, shell):
        # The runtimes' own bound methods, so `{var}` and `$var` expand in the caller's frame.
        self.run_line_magic = magic.line
        self.run_cell_magic = magic.cell
        self.system = shell.system
        self.getoutput = shell.getoutput
        self.user_ns = namespace
        self.user_ns_hidden = {}
        self.magics_manager = MagicsManager(self)
        self._originals = {"line": {}, "cell": {}}  # name -> the function as registered (find_magic)
        from .shell_events import EventManager

        self.events = EventManager()
        from .extensions import ExtensionManager

        self.extension_manager = ExtensionManager(self)

    @property
    def user_global_ns(self):
        return self.user_ns

    @property
    def execution_count(self):
        from ..core import state

        return state.execution_count()  # during cell N, N (IPython moves it on after the cell)

    @property
    def display_formatter(self):
        """IPython's DisplayFormatter: .formatters[mime].for_type(...), .enabled, .ipython_display_formatter."""
        from ..display import formatters

        return formatters.get()

    def get_ipython(self):
        return self

    # --- magics -------------------------------------------------------------------------------------------
    def register_magic_function(self, func, magic_kind="line", magic_name=None):
        """Register `func` as %name (line: func(line)), %%name (cell: func(line, cell)) or both (line_cell)."""
        from .catalog import load_all

        if magic_kind not in ("line", "cell", "line_cell"):
            raise ValueError("magic_kind must be one of ('line', 'cell', 'line_cell'), %s given" % (magic_kind,))
        load_all()  # evalkit's magics first, so a user's magic of the same name replaces them, as in IPython
        name = magic_name or func.__name__
        expand = not getattr(func, "_ipython_magic_no_var_expand", False)
        summary = _summary(func)
        if magic_kind in ("line", "line_cell"):
            registry.LINE[name] = (_line_adapter(func), expand, summary)
            self._originals["line"][name] = func
        if magic_kind in ("cell", "line_cell"):
            registry.CELL[name] = (_cell_adapter(func), expand, summary)
            self._originals["cell"][name] = func

    def register_magics(self, *objs):
        """Register Magics classes (instantiated with this shell) or instances: every magic they declare."""
        for obj in objs:
            if isinstance(obj, type):
                obj = obj(shell=self)
            table = getattr(obj, "magics", None)
            if not isinstance(table, dict):
                raise ValueError("%r is not a Magics class or instance (did you forget @magics_class?)" % (obj,))
            for kind in ("line", "cell"):
                for name, func in table.get(kind, {}).items():
                    self.register_magic_function(func, kind, name)

    def define_magic(self, magic_name, func):
        self.register_magic_function(func, "line", magic_name)

    def find_magic(self, magic_name, magic_kind="line"):
        from .catalog import load_all

        load_all()
        original = self._originals.get(magic_kind, {}).get(magic_name)
        if original is not None:
            return original
        table = registry.LINE if magic_kind == "line" else registry.CELL
        if magic_name not in table:
            return None
        if magic_kind == "line":
            return lambda line="": self.run_line_magic(magic_name, line)
        return lambda line, cell: self.run_cell_magic(magic_name, line, cell)

    def find_line_magic(self, magic_name):
        return self.find_magic(magic_name, "line")

    def find_cell_magic(self, magic_name):
        return self.find_magic(magic_name, "cell")

    def magic(self, arg_s):
        """The old spelling: magic("name args")."""
        name, _, rest = arg_s.lstrip("%").partition(" ")
        return self.run_line_magic(name, rest)

    # --- the user namespace -------------------------------------------------------------------------------
    def push(self, variables, interactive=True):
        """Put names into the user namespace: a dict, or names (a list or a space-separated string) of the caller."""
        if isinstance(variables, dict):
            values = variables
        else:
            names = variables.replace(",", " ").split() if isinstance(variables, str) else list(variables)
            frame = sys._getframe(1)
            values = {}
            for name in names:
                try:
                    values[name] = eval(name, frame.f_globals, frame.f_locals)
                except Exception:
                    print("Could not get variable %s from %s" % (name, frame.f_code.co_name))
        self.user_ns.update(values)

    def drop_by_id(self, variables):
        for name, value in variables.items():
            if name in self.user_ns and self.user_ns[name] is value:
                del self.user_ns[name]

    def del_var(self, varname, by_name=False):
        if varname in ("__builtin__", "__builtins__"):
            raise ValueError("Refusing to delete %s" % varname)
        self.user_ns.pop(varname, None)

    def ev(self, expr):
        return eval(expr, self.user_ns)

    def ex(self, cmd):
        exec(cmd, self.user_ns)

    def run_cell(self, raw_cell, store_history=False, silent=False, shell_futures=True, cell_id=None):
        """Run code in the user namespace (magics and a trailing expression included); an ExecutionResult."""
        from .shell_events import ExecutionInfo, ExecutionResult

        result = ExecutionResult(ExecutionInfo(raw_cell, store_history, silent, shell_futures, cell_id))
        try:
            ctx = registry.MagicContext("run_cell", "", "", None)
            result.result = registry.run_python(raw_cell, ctx)
        except Exception as exc:
            result.error_in_exec = exc
            self.showtraceback()
            return result
        if result.result is not None and not silent:
            from ..core import hooks, state

            formatted = hooks.format_result(result.result)
            if formatted is not None:
                state.emit_display(formatted[0], formatted[1])
        return result

    def showtraceback(self, *args, **kwargs):
        """The exception being handled, on stderr, from the first frame that is not evalkit's."""
        from .shell_events import print_user_traceback

        print_user_traceback()

    # --- extensions ---------------------------------------------------------------------------------------
    def load_extension(self, module_str):
        return self.extension_manager.load_extension(module_str)

    def __repr__(self):
        return "<evalkit shell (get_ipython() for code written for IPython)>"


def _summary(func):
    doc = (getattr(func, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else "registered with IPython's API"


def _local_kwargs(func, ctx):
    return {"local_ns": ctx.locals} if getattr(func, "needs_local_scope", False) else {}


def _line_adapter(func):
    def run(ctx):
        return func(ctx.args, **_local_kwargs(func, ctx))

    run.__doc__ = func.__doc__
    return run


def _cell_adapter(func):
    def run(ctx):
        body = ctx.body or ""
        if body and not body.endswith("\n"):
            body += "\n"  # IPython hands a cell magic its body with the cell's closing newline
        return func(ctx.args, body, **_local_kwargs(func, ctx))

    run.__doc__ = func.__doc__
    return run


def shell_for(namespace, magic, shell):
    """The kernel's one shell, now serving `namespace` (a %reset installs a fresh namespace)."""
    if not _shells:
        _shells.append(_IPythonShim(namespace, magic, shell))
        _pass_ipython_type_checks()
    _shells[0].user_ns = namespace
    return _shells[0]


def current_shell():
    """The shell evalkit's get_ipython() returns (for the stand-in IPython modules)."""
    return registry.shell()


def _pass_ipython_type_checks():
    # IPython's Magics declares `shell = Instance(InteractiveShellABC)`: an installed IPython's Magics classes
    # accept this shell once it is registered as a virtual subclass of that ABC (as soon as IPython is imported).
    from ..core import import_hooks

    def register(module):
        module.InteractiveShellABC.register(_IPythonShim)

    import_hooks.when_imported("IPython.core.interactiveshell", register)
