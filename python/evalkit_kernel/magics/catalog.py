"""Loads every magic module once, so each registers its magics in the tables (registry.py)."""

_loaded = []


def load_all():
    if _loaded:
        return
    _loaded.append(True)
    from . import (  # noqa: F401
        cell_magics,
        inspect_magics,
        line_magics,
        namespace_magics,
        notebook_magics,
        pip,
        profile_magics,
        timing,
    )


def magic_names(cell):
    """The names of the cell magics (cell=True) or line magics, for completion."""
    from .registry import CELL, LINE

    load_all()
    return sorted(CELL if cell else LINE)
