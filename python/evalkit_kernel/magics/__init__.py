"""IPython-style magics and shell escapes: a source transformer plus the helpers the rewritten code calls.

install() only registers hooks; the transformer module is imported at the first cell and the magic
implementations (subprocess, timeit, runpy, ...) at the first magic that runs.
"""

from .names import MAGIC_NAME, SHELL_NAME  # noqa: F401  (the package's public names)


def transform_source(source):
    if source[:1] in _CLEANUP_STARTS or ">>>" in source or "In [" in source or "...:" in source:
        from .cleanup import clean

        source = clean(source)
    if "%" not in source and "!" not in source and "?" not in source:
        if "\n" in source.strip() or not source.strip()[:1].isalpha():
            return source  # plain cells skip the scanner and its import
        from .cleanup import apply_automagic

        return apply_automagic(source)  # `ls`, `pwd`, `cd dir`: a one-line cell may be a magic
    from .transform import transform

    transformed = transform(source)
    if transformed is source and "\n" not in source.strip():
        from .cleanup import apply_automagic

        return apply_automagic(source)
    return transformed


# A cell that starts like this may hold pasted prompts or a common indentation (IPython strips both).
_CLEANUP_STARTS = (" ", "\t", "\n", "\r")


class _LazyHelper(object):
    """Stands in the user namespace for a runtime object until its first use (keeps start-up cheap)."""

    __slots__ = ("_module", "_attr", "_target")

    def __init__(self, module, attr):
        self._module = module
        self._attr = attr
        self._target = None

    def _resolve(self):
        if self._target is None:
            import importlib

            module = importlib.import_module(__name__ + "." + self._module)
            self._target = getattr(module, self._attr)()
        return self._target

    def __getattr__(self, name):
        return getattr(self._resolve(), name)

    def __repr__(self):
        return "<evalkit %s helper>" % self._attr


_helpers = {
    MAGIC_NAME: _LazyHelper("runtime", "MagicRuntime"),
    SHELL_NAME: _LazyHelper("shell", "ShellRuntime"),
}


def _make_get_ipython(namespace):
    def get_ipython():
        """evalkit's stand-in for IPython's shell: magics, events, extensions, user_ns, system, getoutput."""
        from .shell_shim import shell_for

        return shell_for(namespace, _helpers[MAGIC_NAME]._resolve(), _helpers[SHELL_NAME]._resolve())

    return get_ipython


def _for_libraries(get_ipython):
    """The builtins' get_ipython, as IPython puts one there: libraries (sympy's init_printing, pandas) call it
    to find the shell and then import IPython themselves, so it answers None when IPython is not installed."""

    def library_get_ipython():
        if not _ipython_installed:
            import importlib.util

            if importlib.util.find_spec("IPython") is None:
                return None  # not cached: a later %pip install ipython counts
            _ipython_installed.append(True)
        return get_ipython()

    library_get_ipython.__name__ = library_get_ipython.__qualname__ = "get_ipython"
    library_get_ipython.__doc__ = get_ipython.__doc__
    return library_get_ipython


_ipython_installed = []


def _install_namespace(namespace):
    import builtins

    namespace.update(_helpers)
    namespace["get_ipython"] = get_ipython = _make_get_ipython(namespace)
    builtins.get_ipython = _for_libraries(get_ipython)


def install():
    from ..core import hooks

    hooks.reserved_names.update(_helpers)
    hooks.reserved_names.add("get_ipython")
    hooks.register_transformer(transform_source)
    hooks.register_namespace_installer(_install_namespace)
    hooks.set_magic_names(_magic_names)
    from .ipython_stub import install as install_stand_in

    install_stand_in()  # IPython.core.magic & co. for interpreters without IPython (last on sys.meta_path)


def _magic_names(cell):
    from .catalog import magic_names

    return magic_names(cell)
