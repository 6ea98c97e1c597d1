"""Extension points the optional runner modules (display, magics, prelude) plug into at start-up."""

import sys

# Each takes the cell source and returns the source to compile; they run in registration order.
source_transformers = []
# Called after every executed cell, before `done` (matplotlib figure flushing lives here).
post_execute = []
# Called with the user namespace at start-up and after %reset, to (re)inject helpers.
namespace_installers = []
# Names that belong to evalkit, not the user: hidden from %who and kept by %reset.
reserved_names = set()
# What the installers last put under each name: a reserved name the user rebinds (`from IPython.display
# import HTML`) is the user's again for %who, as IPython lists a rebound name of its own.
installed_values = {}

# IPython's shell events (magics.shell_events): set at the first events.register, so cells without listeners skip it.
cell_observer = None
_result_formatter = None
_magic_names = None  # set by the magics module: the names completion offers after % and %%


def register_transformer(fn):
    source_transformers.append(fn)


def register_post_execute(fn):
    post_execute.append(fn)


def register_namespace_installer(fn):
    namespace_installers.append(fn)


def set_result_formatter(fn):
    """fn(value) -> (bundle, metadata) or None; used for the trailing-expression result."""
    global _result_formatter
    _result_formatter = fn


def set_cell_observer(observer):
    """observer.before_cell(code, silent, store_history) and .after_cell(..., value, error, execution_count)."""
    global cell_observer
    cell_observer = observer


def set_magic_names(fn):
    """fn(cell) -> the cell magic names (cell=True) or line magic names."""
    global _magic_names
    _magic_names = fn


def magic_names(cell):
    return list(_magic_names(cell)) if _magic_names is not None else []


def transform_source(source):
    for fn in source_transformers:
        source = fn(source)
    return source


def format_result(value):
    if _result_formatter is not None:
        return _result_formatter(value)
    return {"text/plain": repr(value)}, {}


def run_post_execute():
    for fn in list(post_execute):
        try:
            fn()
        except Exception as exc:  # a broken hook must never fail the cell
            sys.stderr.write("evalkit: post-execute hook failed: %r\n" % (exc,))


def install_namespace(namespace):
    for fn in list(namespace_installers):
        fn(namespace)
    installed_values.clear()
    installed_values.update((name, value) for name, value in namespace.items() if name in reserved_names)


def is_evalkit_binding(name, value):
    """True when `name` is evalkit's and still holds what evalkit installed there."""
    if name not in reserved_names:
        return False
    return name not in installed_values or installed_values[name] is value
