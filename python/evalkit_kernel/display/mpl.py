"""matplotlib integration: flush open pyplot figures as PNG displays after each cell, and make plt.show() do it."""

import sys

from . import formatting
from ..core import import_hooks

# Backends that draw off-screen: only then do figures become displays (a GUI backend the user chose keeps
# its windows and its own show()).
_OFFSCREEN_BACKENDS = ("agg", "cairo", "pdf", "pgf", "ps", "svg", "template")

_publish = None


def install(publish):
    """publish(data, metadata) sends one display; pyplot.show is patched once pyplot is imported."""
    global _publish
    _publish = publish
    import_hooks.when_imported("matplotlib.pyplot", patch_pyplot)


def is_offscreen_backend():
    mpl = sys.modules.get("matplotlib")
    if mpl is None:
        return False
    try:
        name = str(mpl.get_backend()).lower()
    except Exception:
        return False
    return name in _OFFSCREEN_BACKENDS


def patch_pyplot(plt):
    original = plt.show
    if getattr(original, "_evalkit_show", False):
        return

    def show(*args, **kwargs):
        if not is_offscreen_backend():
            return original(*args, **kwargs)
        flush_figures()
        return None

    show._evalkit_show = True
    show.__wrapped__ = original
    show.__doc__ = original.__doc__
    plt.show = show


def _open_figures(plt):
    helpers = sys.modules.get("matplotlib._pylab_helpers")
    if helpers is not None:
        managers = sorted(helpers.Gcf.get_all_fig_managers(), key=lambda m: m.num)
        return [m.canvas.figure for m in managers]
    return [plt.figure(num) for num in plt.get_fignums()]


def flush_figures():
    """Emit every open pyplot figure as image/png (unless already shown unchanged in this cell), then close it."""
    plt = sys.modules.get("matplotlib.pyplot")
    try:
        if plt is None:
            return
        if not getattr(plt.show, "_evalkit_show", False):
            import_hooks.run_pending()
        if not is_offscreen_backend():
            return
        for fig in _open_figures(plt):
            try:
                from . import libraries

                # As ipykernel's inline backend, an empty figure still shows its text (`<Figure size 640x480
                # with 0 Axes>`), even when it was the cell's result: notebooks store that line.
                if libraries.figure_is_empty(fig) or not formatting.was_displayed(fig):
                    data, metadata = libraries.figure_bundle(fig)
                    if _publish is not None:
                        _publish(data, metadata)
            except Exception as exc:
                sys.stderr.write("evalkit: could not render a matplotlib figure: %s: %s\n" % (type(exc).__name__, exc))
            finally:
                plt.close(fig)
    finally:
        formatting.forget_displayed()
