"""Which IPython is installed beside this kernel, read once from its package metadata (IPython is not imported).

Where IPython's output changed between versions, evalkit prints as the installed one does, since notebooks
were stored by the Jupyter of their machine; without IPython it prints as the newest one.
"""

import re

_version = []


def installed():
    """(major, minor) of the installed IPython, or None."""
    if not _version:
        found = None
        try:
            from importlib import metadata

            numbers = re.match(r"(\d+)\.(\d+)", metadata.version("ipython"))
            if numbers is not None:
                found = (int(numbers.group(1)), int(numbers.group(2)))
        except Exception:
            pass  # not installed, or no metadata to read
        _version.append(found)
    return _version[0]


def at_least(major, minor):
    """True when the installed IPython is major.minor or newer, or when there is none."""
    version = installed()
    return version is None or version >= (major, minor)
