"""Rich output for cells: display(), update_display(), clear_output() and the runner's result formatter."""

import binascii
import os

from . import formatting
from . import jupyter_defaults
from . import mime_values
from . import mpl
from . import objects
from ..core import hooks
from ..core import import_hooks
from ..core import state
from .formatting import format_object, format_result

__all__ = [
    "DisplayHandle",
    "display",
    "update_display",
    "clear_output",
    "format_object",
    "format_result",
    "install",
    "HTML",
    "Markdown",
    "Latex",
    "SVG",
    "JSON",
    "Image",
]

HTML = objects.HTML
Markdown = objects.Markdown
Latex = objects.Latex
SVG = objects.SVG
JSON = objects.JSON
Image = objects.Image

# Injected into every user namespace (and kept by %reset, hidden from %who).
NAMESPACE_NAMES = ("display", "update_display", "clear_output", "DisplayHandle", "HTML", "Markdown", "Latex",
                   "SVG", "JSON", "Image")


def new_display_id():
    return binascii.hexlify(os.urandom(16)).decode("ascii")


def _merge_metadata(own, extra):
    if not extra:
        return own
    merged = dict(own)
    merged.update(extra)
    return merged


def _publish(data, metadata=None, display_id=None, update=False):
    data, metadata = mime_values.normalize_bundle(data, metadata)
    state.emit_display(data, metadata or None, display_id=display_id, update=update)


def _display_one(obj, raw, include, exclude, metadata, display_id, update):
    if raw:
        if not isinstance(obj, dict):
            raise TypeError("display(raw=True) takes {mime: value} dicts, not %s" % (type(obj).__name__,))
        data, own = obj, {}
    else:
        if formatting.displays_itself(obj):
            return  # _ipython_display_ published what it wanted; IPython adds nothing
        formatted = format_object(obj, include=include, exclude=exclude)
        if formatted is None:
            return
        data, own = formatted
        if type(obj) in (dict, list) and "application/json" not in data:
            if formatting._is_wanted("application/json", include and set(include), exclude and set(exclude)):
                data["application/json"] = mime_values.to_jsonable(obj)  # the seed's rule: data stays data
        formatting.note_displayed(obj)
    _publish(data, _merge_metadata(own, metadata), display_id=display_id, update=update)


def display(*objs, **kwargs):
    """display(*objs, raw=False, include=None, exclude=None, metadata=None, display_id=None)

    Shows each object as a rich output of the running cell. With display_id (True for a fresh one) it
    returns a DisplayHandle whose update() replaces what was shown.
    """
    raw = kwargs.pop("raw", False)
    include = kwargs.pop("include", None)
    exclude = kwargs.pop("exclude", None)
    metadata = kwargs.pop("metadata", None)
    display_id = kwargs.pop("display_id", None)
    update = kwargs.pop("update", False)
    kwargs.pop("transient", None)  # IPython-only, accepted for compatibility
    if kwargs:
        raise TypeError("display() got unexpected keyword argument(s): %s" % ", ".join(sorted(kwargs)))
    if display_id is True:
        display_id = new_display_id()
    elif display_id is not None and display_id is not False:
        display_id = str(display_id)
    else:
        display_id = None
    if update and display_id is None:
        raise TypeError("update=True needs a display_id")
    for obj in objs:
        _display_one(obj, raw, include, exclude, metadata, display_id, bool(update))
    if display_id is not None:
        return DisplayHandle(display_id)
    return None


def update_display(obj, display_id=None, **kwargs):
    """Replace what every earlier display with this display_id shows."""
    if display_id is None or display_id is True or display_id is False:
        raise TypeError("update_display() needs the display_id of an earlier display")
    kwargs["display_id"] = display_id
    kwargs["update"] = True
    display(obj, **kwargs)


def clear_output(wait=False):
    """Clear the cell's output so far; with wait=True the clear takes effect just before the next output."""
    state.emit_clear_output(wait=bool(wait))


class DisplayHandle(object):
    """A handle on a display id: display() shows an object under it, update() replaces what it shows."""

    def __init__(self, display_id=None):
        self.display_id = new_display_id() if display_id is None else str(display_id)

    def __repr__(self):
        return "<DisplayHandle display_id=%s>" % (self.display_id,)

    def display(self, obj, **kwargs):
        kwargs["display_id"] = self.display_id
        display(obj, **kwargs)

    def update(self, obj, **kwargs):
        update_display(obj, display_id=self.display_id, **kwargs)


def _install_names(namespace):
    current = globals()
    for name in NAMESPACE_NAMES:
        namespace[name] = current[name]


def _patch_plotly_show(module):
    """fig.show() would open a browser (or need IPython): show the figure in the cell instead."""
    base = getattr(module, "BaseFigure", None)
    original = getattr(base, "show", None)
    if original is None or getattr(original, "_evalkit_show", False):
        return

    def show(self, *args, **kwargs):
        if args or kwargs.get("renderer"):
            return original(self, *args, **kwargs)  # an explicit renderer is the user's choice
        display(self)
        return None

    show._evalkit_show = True
    show.__wrapped__ = original
    show.__doc__ = original.__doc__
    base.show = show


# Where IPython defines its display functions (by version); notebooks import them from IPython.display.
_IPYTHON_DISPLAY_MODULES = ("IPython.core.display_functions", "IPython.core.display", "IPython.display")


def _adopt_ipython_display(module):
    """IPython's display() prints a repr when no IPython shell runs; cells written for Jupyter get ours."""
    import warnings

    for name, fn in (("display", display), ("update_display", update_display), ("clear_output", clear_output)):
        # IPython.core.display serves these names through a module __getattr__ that warns they moved; looking
        # must not print that warning (ours replace them there, so the cell's own import never warns either).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            found = hasattr(module, name)
        if found:
            setattr(module, name, fn)


def install():
    """Called by the runner at start-up: result formatter, figure flushing, names in the user namespace."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    hooks.set_result_formatter(format_result)
    mpl.install(_publish)
    jupyter_defaults.install()
    import_hooks.when_imported("plotly.basedatatypes", _patch_plotly_show)
    for name in _IPYTHON_DISPLAY_MODULES:
        import_hooks.when_imported(name, _adopt_ipython_display)
    hooks.register_post_execute(mpl.flush_figures)
    hooks.register_namespace_installer(_install_names)
    hooks.reserved_names.update(NAMESPACE_NAMES)
