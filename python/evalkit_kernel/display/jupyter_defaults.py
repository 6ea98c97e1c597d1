"""Library defaults that differ under a Jupyter kernel, set the way ipykernel's presence sets them.

pandas decides `display.max_columns` when it is imported: 0 ("fit the terminal") when it thinks it runs in a
terminal, 20 under a Jupyter kernel. evalkit's stdout is never a terminal, so 0 would measure a fallback
80-column terminal and drop columns instead of wrapping the frame at 80 with a trailing `\\`, which is what
notebooks store. The hook runs right after pandas registers its options, before any user code sees them.
"""

from ..core import import_hooks

_JUPYTER_MAX_COLUMNS = 20


def _pandas_jupyter_defaults(module):
    import sys

    config = sys.modules.get("pandas._config.config")
    options = getattr(config, "_registered_options", None)
    key = "display.max_columns"
    registered = options.get(key) if isinstance(options, dict) else None
    if registered is None or getattr(registered, "defval", None) != 0:
        return  # pandas chose Jupyter's default itself, or its internals changed: leave them alone
    if hasattr(registered, "_replace"):
        options[key] = registered._replace(defval=_JUPYTER_MAX_COLUMNS)  # so reset_option() keeps it
    if config.get_option(key) == 0:
        config.set_option(key, _JUPYTER_MAX_COLUMNS)


def install():
    import_hooks.when_imported("pandas.core.config_init", _pandas_jupyter_defaults)
