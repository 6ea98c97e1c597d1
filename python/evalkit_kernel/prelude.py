"""The prelude: the helpers every cell namespace gets (files, env, stored outputs, host bridge, parallel, progress)."""

from . import hooks, state
from .display import display
from .prelude_files import env, output, read, write
from .prelude_host import BridgeError, agent, completion, tool
from .prelude_parallel import ParallelResults, parallel, pipeline

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

# Reachable as evalkit_kernel.prelude.<name> for code that wants to catch or check them.
EXTRA_NAMES = (BridgeError, ParallelResults)

_installed = [False]


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
