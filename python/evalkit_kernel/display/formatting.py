"""Turns any object into an IPython-style MIME bundle: library types first, then _repr_*_ methods, then text/plain.

text/plain comes from the pretty printer (display_pretty), as in IPython.
"""

import sys
from _weakref import ref as _weak_ref  # the C type itself: `weakref` loads more modules (idle memory)

from ..core.state import warn
from .mime_values import normalize_value

# The individual repr methods, in IPython's order; text/plain always comes from repr().
REPR_METHODS = (
    ("text/html", "_repr_html_"),
    ("text/markdown", "_repr_markdown_"),
    ("image/svg+xml", "_repr_svg_"),
    ("image/png", "_repr_png_"),
    ("image/jpeg", "_repr_jpeg_"),
    ("text/latex", "_repr_latex_"),
    ("application/json", "_repr_json_"),
    ("application/javascript", "_repr_javascript_"),
    ("application/pdf", "_repr_pdf_"),
)



# (defining module, class name) anywhere in the MRO -> library kind; display_libs renders them. Nothing is
# imported to recognise them, so a kernel that never uses these libraries pays nothing.
_LIBRARY_KINDS = {
    ("pandas.core.frame", "DataFrame"): "dataframe",
    ("pandas.core.series", "Series"): "series",
    ("pandas", "DataFrame"): "dataframe",  # pandas 3 sets __module__ to the package
    ("pandas", "Series"): "series",
    ("polars.dataframe.frame", "DataFrame"): "polars_frame",
    ("polars.series.series", "Series"): "polars_series",
    ("PIL.Image", "Image"): "pil",
    ("matplotlib.figure", "Figure"): "figure",
    ("plotly.basedatatypes", "BaseFigure"): "plotly",
    ("altair.vegalite.v4.api", "TopLevelMixin"): "altair",
    ("altair.vegalite.v5.api", "TopLevelMixin"): "altair",
    ("altair.vegalite.v6.api", "TopLevelMixin"): "altair",
}
_LIBRARY_ROOTS = ("pandas", "PIL", "matplotlib", "plotly", "polars", "altair")
# Kinds whose _ipython_display_ is skipped: outside Jupyter plotly's prints the figure's whole repr (a wall of
# JSON); its bundle (libraries.py) is what a notebook shows, with a summary for the model.
_OWN_DISPLAY_KINDS = ("plotly",)

# Figures displayed during the running cell: id -> weakref. The end-of-cell flush skips them unless redrawn.
_shown_figures = {}


def library_kind(obj):
    """The library kind of obj ("dataframe", "pil", ...) or None, without importing any library."""
    modules = sys.modules
    if not any(root in modules for root in _LIBRARY_ROOTS):
        return None
    try:
        mro = type(obj).__mro__
    except Exception:
        return None
    for cls in mro:
        kind = _LIBRARY_KINDS.get((getattr(cls, "__module__", None), getattr(cls, "__name__", None)))
        if kind is not None:
            return kind
    return None


def note_displayed(obj):
    """Remember that a figure was shown in this cell, so the end-of-cell flush does not show it twice."""
    if library_kind(obj) == "figure":
        try:
            _shown_figures[id(obj)] = _weak_ref(obj)
            # savefig restores facecolor/dpi afterwards, which marks the figure stale although what was
            # shown is current; from here on only a real change marks it stale again.
            obj.stale = False
        except Exception:
            pass


def was_displayed(fig):
    """True when fig was displayed in this cell and has not changed since (matplotlib marks it stale)."""
    ref = _shown_figures.get(id(fig))
    return ref is not None and ref() is fig and not getattr(fig, "stale", True)


def forget_displayed():
    _shown_figures.clear()


def _is_wanted(mime, include, exclude):
    if include and mime not in include:
        return False
    return not (exclude and mime in exclude)


def _type_name(obj):
    return type(obj).__name__


def safe_repr(obj):
    try:
        text = repr(obj)
        if isinstance(text, str):
            return text
        raise TypeError("__repr__ returned %s" % (type(text).__name__,))
    except Exception as exc:
        warn("repr() of %s raised %s: %s" % (_type_name(obj), type(exc).__name__, exc))
        return "<%s object at %#x>" % (_type_name(obj), id(obj))


def _get_method(obj, name):
    # Like IPython: methods are looked up on instances, never on classes (a class has unbound _repr_*_).
    if isinstance(obj, type):
        return None
    try:
        method = getattr(obj, name, None)
        if callable(method) and callable(getattr(obj, "_ipython_canary_method_should_not_exist_", None)):
            return None  # a proxy that claims every attribute (IPython distrusts these the same way)
    except Exception:
        return None
    return method if callable(method) else None


def _call_repr(obj, name, mime, *args, **kwargs):
    method = _get_method(obj, name)
    if method is None:
        return None
    try:
        return method(*args, **kwargs)
    except Exception as exc:
        warn("%s.%s() raised %s: %s; %s skipped" % (_type_name(obj), name, type(exc).__name__, exc, mime))
        return None


def _split_data_metadata(value):
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
        return value[0], value[1]
    return value, None


def _from_mimebundle(obj, include, exclude, data, metadata):
    result = _call_repr(obj, "_repr_mimebundle_", "_repr_mimebundle_", include=include, exclude=exclude)
    if result is None:
        return
    bundle, md = _split_data_metadata(result)
    if not isinstance(bundle, dict):
        warn("%s._repr_mimebundle_() returned %s, not a dict; ignored" % (_type_name(obj), type(bundle).__name__))
        return
    for mime, value in bundle.items():
        if value is not None and _is_wanted(mime, include, exclude):
            data[str(mime)] = normalize_value(str(mime), value)
    if isinstance(md, dict):
        for mime, value in md.items():
            if mime in data or not mime.count("/"):
                metadata[str(mime)] = value


def _from_repr_methods(obj, include, exclude, data, metadata):
    for mime, name in REPR_METHODS:
        if mime in data or not _is_wanted(mime, include, exclude):
            continue
        value, md = _split_data_metadata(_call_repr(obj, name, mime))
        if value is None:
            continue
        data[mime] = normalize_value(mime, value)
        if md:
            metadata[mime] = md


def format_object(obj, include=None, exclude=None):
    """(bundle, metadata) for obj, or None when include/exclude leave nothing."""
    include = set(include) if include else None
    exclude = set(exclude) if exclude else None
    data = {}
    metadata = {}
    kind = library_kind(obj)
    library = None
    if kind is not None:
        from . import libraries

        library = libraries.format_library_object(obj, kind)
    if library is not None:
        lib_data, lib_md = library
        for mime, value in lib_data.items():
            if _is_wanted(mime, include, exclude):
                data[mime] = normalize_value(mime, value)
                if mime in lib_md:
                    metadata[mime] = lib_md[mime]
        added = [mime for mime in lib_md.get("evalkit", {}).get("modelOnly", ()) if mime in data]
        if added:
            metadata["evalkit"] = {"modelOnly": added}
    else:
        _from_mimebundle(obj, include, exclude, data, metadata)
        _from_repr_methods(obj, include, exclude, data, metadata)
    formatters = active_formatters()
    if formatters is not None:
        _apply_registered(formatters, obj, include, exclude, data)
    if "text/plain" not in data and _is_wanted("text/plain", include, exclude):
        text = plain_text(obj)
        if text is not None:
            data["text/plain"] = text
    if not data:
        return None
    return data, metadata


def active_formatters():
    """get_ipython().display_formatter once a cell has asked for it, else None (no import either way)."""
    module = sys.modules.get(__name__.rpartition(".")[0] + ".formatters")
    return module.active() if module is not None else None


def _apply_registered(formatters, obj, include, exclude, data):
    # Printers registered with for_type/for_type_by_name win over the object's own reprs; a disabled
    # formatter drops its MIME type, as in IPython.
    for mime, formatter in formatters.formatters.items():
        if not formatter.enabled:
            data.pop(mime, None)
            continue
        if mime == "text/plain" or not _is_wanted(mime, include, exclude):
            continue
        printer = formatter.registered(obj)
        if printer is None:
            continue
        try:
            value = printer(obj)
        except Exception as exc:
            warn("the %s printer for %s raised %s: %s" % (mime, _type_name(obj), type(exc).__name__, exc))
            continue
        if value is not None:
            data[mime] = normalize_value(mime, value)
    text = formatters.formatters.get("text/plain")
    if text is not None and text.enabled and _is_wanted("text/plain", include, exclude) and text.registered(obj):
        data.pop("text/plain", None)  # recomputed below with the registered printer


def plain_text(obj):
    """IPython's text/plain for obj: the pretty printer (79 columns, sorted sets), repr() when that fails."""
    formatters = active_formatters()
    try:
        if formatters is not None:
            text = formatters.formatters.get("text/plain")
            return text(obj) if text is not None else None
        from .pretty import pretty

        return pretty(obj)
    except Exception as exc:
        fallback = safe_repr(obj)
        warn("pretty-printing %s raised %s: %s; showing its repr" % (_type_name(obj), type(exc).__name__, exc))
        return fallback


def displays_itself(obj):
    """Call obj._ipython_display_() (or a printer registered for it): True when it showed itself."""
    formatters = active_formatters()
    try:
        if formatters is not None:
            return bool(formatters.ipython_display_formatter(obj))
        if library_kind(obj) in _OWN_DISPLAY_KINDS:
            return False
        method = _get_method(obj, "_ipython_display_")
        if method is None:
            return False
        method()
        return True
    except Exception as exc:
        warn("%s._ipython_display_() raised %s: %s" % (_type_name(obj), type(exc).__name__, exc))
        return False


# Exact built-in scalars have no _repr_*_ methods and are no library object: repr() is the whole answer.
_SCALAR_TYPES = frozenset((int, float, complex, bool, str, bytes, type(None)))


def format_result(value):
    """The runner's result formatter: the same dispatch as display(); None when the value showed itself."""
    if type(value) in _SCALAR_TYPES and active_formatters() is None:
        return {"text/plain": safe_repr(value)}, {}
    if displays_itself(value):
        return None
    formatted = format_object(value)
    if formatted is None:
        return None
    note_displayed(value)
    return formatted
