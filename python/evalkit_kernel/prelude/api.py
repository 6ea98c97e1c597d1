"""The prelude: the helpers every cell namespace gets (files, env, stored outputs, host bridge, parallel, progress).

Only this module and prelude_tool load at start-up; each helper imports its implementation on first use,
because the runner compiles its modules from source at every start and cold start is a budget.
"""

from ..core import hooks
from ..core import state
from ..display.publish import display
from .tool import tool

# Exactly what the tool description tells the model; injected into the namespace, kept by %reset.
__all__ = [
    "display",
    "env",
    "read",
    "write",
    "output",
    "tool",
    "completion",
    "agent",
    "parallel",
    "pipeline",
    "log",
    "phase",
]

_installed = [False]


def env(key=None, value=None):
    """env() -> dict copy of os.environ; env(key) -> value or None; env(key, value) sets it and returns value."""
    from .files import env as impl

    return impl(key, value)


def read(path, offset=1, limit=None):
    """The UTF-8 text of a file from line `offset` (1-based), at most `limit` lines; line endings kept."""
    from .files import read as impl

    return impl(path, offset, limit)


def write(path, content):
    """Write str (UTF-8) or bytes to `path`, creating parent folders; returns the path."""
    from .files import write as impl

    return impl(path, content)


def output(*ids, format="raw", query=None, offset=None, limit=None):
    """Stored full outputs by id ('artifact://<id>' or '<id>'): format 'raw', 'stripped' (no ANSI) or 'json';
    `query` keeps lines containing it; `offset`/`limit` page through lines (1-based). No ids: list them."""
    from .files import output as impl

    return impl(*ids, format=format, query=query, offset=offset, limit=limit)


def completion(prompt, *, model=None, system=None, schema=None):
    """One model completion from the host: its text, or JSON data checked against `schema` when given."""
    from .host import completion as impl

    return impl(prompt, model=model, system=system, schema=schema)


def agent(prompt, *, agent=None, model=None, label=None, schema=None, handle=False):
    """Run a sub-agent on the host: its final text; parsed data with `schema`; with handle=True a dict
    {text, output, handle, id, agent[, data]}."""
    from .host import agent as impl

    return impl(prompt, agent=agent, model=model, label=label, schema=schema, handle=handle)


def parallel(thunks, *, workers=None):
    """Run zero-argument callables concurrently (up to 8 threads); results in input order. The lowest-index
    exception is raised. `parallel(...)` and `await parallel(...)` both give the list."""
    from .parallel import parallel as impl

    return impl(thunks, workers)


def pipeline(items, *stages, workers=None):
    """Pass each item through every stage; each stage runs as one parallel() wave over all items."""
    from .parallel import pipeline as impl

    return impl(items, *stages, workers=workers)


def log(message):
    """Report progress: a status event renderers show (not written to stdout)."""
    if not isinstance(message, str):
        message = str(message)
    state.emit_status("log", message=message)


def phase(title):
    """Start a named phase of the work: a status event renderers show as a heading."""
    if not isinstance(title, str):
        raise TypeError("phase() title must be a str (got %s)" % type(title).__name__)
    if not title.strip():
        raise ValueError("phase() title is empty")
    state.emit_status("phase", title=title)


def install_names(namespace):
    """Put every helper into `namespace` (start-up and %reset); user rebindings are replaced."""
    helpers = globals()
    for name in __all__:
        namespace[name] = helpers[name]
    hooks.reserved_names.update(__all__)


def install():
    if _installed[0]:
        return
    _installed[0] = True
    hooks.reserved_names.update(__all__)
    hooks.register_namespace_installer(install_names)
