"""IPython's output cache limit: `Out` and the `_N` names keep the last ~1000 results, not every one of a session."""

# IPython's defaults: InteractiveShell.cache_size and DisplayHook.cull_fraction.
CACHE_SIZE = 1000
CULL_FRACTION = 0.2


def make_room(ns, out):
    """Before a result is stored in a full `Out`: drop the oldest fifth of it and their `_N` names, with a warning.

    As IPython's DisplayHook.cull_cache: results stay alive only while a name holds them, so a long session of
    big results does not keep them all. The warning goes through `warnings`, so with the default filters it
    shows once per session, as in IPython.
    """
    size = len(out)
    if size < CACHE_SIZE:
        return
    drop = max(int(size * CULL_FRACTION), 2)
    import warnings

    warnings.warn(
        "Output cache limit (currently %d entries) hit.\nFlushing oldest %d entries." % (size, drop), UserWarning
    )
    # Keys a cell put there itself that are not numbers cannot be ordered with the counts: they stay.
    for key in sorted(key for key in out if key.__class__ is int)[:drop]:
        ns.pop("_%d" % key, None)
        out.pop(key, None)
