"""Bundles for library types (pandas, PIL, matplotlib, plotly), recognised by class name so nothing is imported."""

import io
import json
import sys
import weakref

from . import display_tables

# (defining module, class name) anywhere in the MRO -> kind. Subclasses are recognised through the MRO.
_KINDS = {
    ("pandas.core.frame", "DataFrame"): "dataframe",
    ("pandas.core.series", "Series"): "series",
    ("PIL.Image", "Image"): "pil",
    ("matplotlib.figure", "Figure"): "figure",
    ("plotly.basedatatypes", "BaseFigure"): "plotly",
}
_ROOTS = ("pandas", "PIL", "matplotlib", "plotly")

PLOTLY_MIME = "application/vnd.plotly.v1+json"

# Figures displayed during the running cell: id -> weakref. The end-of-cell flush skips them unless redrawn.
_shown_figures = {}


def library_kind(obj):
    """The library kind of obj ("dataframe", "pil", ...) or None, without importing any library."""
    modules = sys.modules
    if not any(root in modules for root in _ROOTS):
        return None
    try:
        mro = type(obj).__mro__
    except Exception:
        return None
    for cls in mro:
        kind = _KINDS.get((getattr(cls, "__module__", None), getattr(cls, "__name__", None)))
        if kind is not None:
            return kind
    return None


def format_library_object(obj):
    """(data, metadata) for a recognised library object, or None to use the generic dispatch."""
    kind = library_kind(obj)
    if kind is None:
        return None
    try:
        return _FORMATTERS[kind](obj)
    except Exception as exc:
        from .display_format import warn

        warn("could not render %s as rich output (%s: %s); showing its repr" % (kind, type(exc).__name__, exc))
        return None


def figure_png(fig):
    """PNG bytes of a matplotlib figure; savefig honours the user's rcParams (savefig.dpi, savefig.bbox, ...)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def figure_bundle(fig):
    return {"image/png": figure_png(fig), "text/plain": repr(fig)}, {}


def figure_is_empty(fig):
    names = ("axes", "artists", "texts", "images", "lines", "patches", "legends")
    return not any(getattr(fig, name, None) for name in names)


def note_displayed(obj):
    """Remember that a figure was shown in this cell, so the end-of-cell flush does not show it twice."""
    if library_kind(obj) == "figure":
        try:
            _shown_figures[id(obj)] = weakref.ref(obj)
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


def _pil_bundle(img):
    buf = io.BytesIO()
    try:
        img.save(buf, format="PNG")
    except Exception:
        # Modes PNG cannot store (CMYK, float, YCbCr...) are converted the way a viewer would show them.
        buf = io.BytesIO()
        img.convert("RGBA" if "A" in img.mode else "RGB").save(buf, format="PNG")
    return {"image/png": buf.getvalue()}, {}


def _pandas_bundle(obj, frame, footer):
    data = {}
    html = frame._repr_html_()
    if html:
        data["text/html"] = html
        table = display_tables.html_table_to_markdown(html)
        if table:
            data["text/markdown"] = table + footer
    return data, {}


def _dataframe_bundle(df):
    return _pandas_bundle(df, df, "")


def _series_bundle(series):
    name = "" if series.name is None else "Name: %s, " % (series.name,)
    return _pandas_bundle(series, series.to_frame(), "\n\n%sdtype: %s" % (name, series.dtype))


def _plotly_bundle(fig):
    spec = json.loads(fig.to_json())
    data = {PLOTLY_MIME: spec}
    data["text/html"] = fig.to_html(include_plotlyjs="cdn", full_html=False)
    png, why = _plotly_png(fig)
    if png is not None:
        data["image/png"] = png
    data["text/plain"] = _plotly_summary(spec, why)
    return data, {}


def _plotly_png(fig):
    import importlib.util

    if importlib.util.find_spec("kaleido") is None:
        return None, "no static image: the kaleido package is not installed (pip install kaleido)"
    try:
        return fig.to_image(format="png"), None
    except Exception as exc:
        return None, "no static image: kaleido failed (%s: %s)" % (type(exc).__name__, exc)


def _plotly_summary(spec, why):
    traces = spec.get("data") or []
    kinds = []
    for trace in traces:
        kind = trace.get("type", "scatter") if isinstance(trace, dict) else "?"
        if kind not in kinds:
            kinds.append(kind)
    title = (spec.get("layout") or {}).get("title")
    if isinstance(title, dict):
        title = title.get("text")
    parts = ["Plotly figure: %d trace%s" % (len(traces), "" if len(traces) == 1 else "s")]
    if kinds:
        parts[0] += " (%s)" % ", ".join(str(k) for k in kinds)
    if title:
        parts.append("title %r" % (title,))
    text = "; ".join(parts) + "."
    if why:
        text += " " + why[0].upper() + why[1:] + "; the interactive figure is in text/html and %s." % PLOTLY_MIME
    return text


_FORMATTERS = {
    "dataframe": _dataframe_bundle,
    "series": _series_bundle,
    "pil": _pil_bundle,
    "figure": figure_bundle,
    "plotly": _plotly_bundle,
}
