"""Bundles for library types (pandas, polars, PIL, matplotlib, plotly); loaded only once such an object is shown."""

import io
import json

PLOTLY_MIME = "application/vnd.plotly.v1+json"


def format_library_object(obj, kind):
    """(data, metadata) for a library object of the given kind, or None to use the generic dispatch."""
    try:
        return _FORMATTERS[kind](obj)
    except Exception as exc:
        from ..core.state import warn

        warn("could not render %s as rich output (%s: %s); showing its repr" % (kind, type(exc).__name__, exc))
        return None


def figure_png(fig):
    """PNG bytes of a matplotlib figure, saved as IPython's inline backend saves it (pylabtools.print_figure):
    at the figure's own dpi and colours, cropped to its drawn area (bbox_inches='tight')."""
    buf = io.BytesIO()
    canvas = getattr(fig, "canvas", None)
    if canvas is None:
        from matplotlib.backend_bases import FigureCanvasBase

        FigureCanvasBase(fig)
    fig.canvas.print_figure(buf, format="png", facecolor=fig.get_facecolor(), edgecolor=fig.get_edgecolor(),
                            dpi=fig.dpi, bbox_inches="tight")
    return buf.getvalue()


def figure_bundle(fig):
    if figure_is_empty(fig):
        return {"text/plain": repr(fig)}, {}
    return {"image/png": figure_png(fig), "text/plain": repr(fig)}, {}


def figure_is_empty(fig):
    # IPython's test (pylabtools.print_figure): a figure without axes and lines gets no image, only its
    # `<Figure size 640x480 with 0 Axes>` text.
    return not getattr(fig, "axes", None) and not getattr(fig, "lines", None)


def _pil_bundle(img):
    buf = io.BytesIO()
    try:
        img.save(buf, format="PNG")
    except Exception:
        # Modes PNG cannot store (CMYK, float, YCbCr...) are converted the way a viewer would show them.
        buf = io.BytesIO()
        img.convert("RGBA" if "A" in img.mode else "RGB").save(buf, format="PNG")
    return {"image/png": buf.getvalue()}, {}


# Metadata key naming the MIME types evalkit added for the model's view, which IPython would not show: a saved
# notebook leaves them out (the host's notebook writer reads it), so Jupyter shows what it always showed.
MODEL_ONLY = "modelOnly"


def _table_bundle(html, footer, html_is_ours=False):
    """The library's HTML table, plus the markdown table the model reads with `footer` under it."""
    from . import tables  # html.parser costs milliseconds: only load it once a frame is shown

    data = {}
    added = []
    if html:
        data["text/html"] = html
        if html_is_ours:
            added.append("text/html")
        table = tables.html_table_to_markdown(html)
        if table:
            data["text/markdown"] = table + footer
            added.append("text/markdown")
    return data, ({"evalkit": {MODEL_ONLY: added}} if added else {})


def _dataframe_bundle(df):
    return _table_bundle(df._repr_html_(), "")


def _series_bundle(series):
    # pandas gives a Series no HTML: IPython shows its text, so the table built here is for the model only
    name = "" if series.name is None else "Name: %s, " % (series.name,)
    return _table_bundle(series.to_frame()._repr_html_(), "\n\n%sdtype: %s" % (name, series.dtype), True)


def _polars_bundle(obj, shape, footer):
    # The header row already names each column's dtype ("a / i64"), as polars' own table does.
    return _table_bundle(obj._repr_html_(), "\n\nshape: %s%s" % (shape, footer))


def _polars_frame_bundle(df):
    return _polars_bundle(df, "(%d, %d)" % df.shape, "")


def _polars_series_bundle(series):
    return _polars_bundle(series, "(%d,)" % len(series), ", name: %s, dtype: %s" % (series.name, series.dtype))


def _plotly_bundle(fig):
    spec = json.loads(fig.to_json())
    data = {PLOTLY_MIME: spec}
    data["text/html"] = fig.to_html(include_plotlyjs="cdn", full_html=False)
    png, why = _plotly_png(fig)
    added = ["text/plain"]
    if png is not None:
        data["image/png"] = png
        added.append("image/png")
    data["text/plain"] = _plotly_summary(spec, why)
    # Jupyter stores plotly's JSON and HTML; the summary (and kaleido's PNG) are what the model reads
    return data, {"evalkit": {MODEL_ONLY: added}}


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


def _altair_bundle(chart):
    """What Altair's renderer shows (HTML with vega-embed by default, or the Vega-Lite JSON), plus the Vega-Lite
    spec for the model when the renderer gives none: the host draws it to PNG, and saved notebooks leave it out."""
    shown = chart._repr_mimebundle_()
    metadata = {}
    if isinstance(shown, tuple):
        shown, metadata = shown[0], dict(shown[1] or {})
    data = dict(shown or {})
    added = []
    if "image/png" not in data and not any(str(mime).startswith("application/vnd.vegalite.") for mime in data):
        version = type(chart).__module__.split(".")[2]  # altair.vegalite.v5.api -> v5
        mime = "application/vnd.vegalite.%s+json" % version
        data[mime] = chart.to_dict()
        added.append(mime)
    if added:
        metadata["evalkit"] = {MODEL_ONLY: added}
    return data, metadata


_FORMATTERS = {
    "altair": _altair_bundle,
    "dataframe": _dataframe_bundle,
    "series": _series_bundle,
    "polars_frame": _polars_frame_bundle,
    "polars_series": _polars_series_bundle,
    "pil": _pil_bundle,
    "figure": figure_bundle,
    "plotly": _plotly_bundle,
}
