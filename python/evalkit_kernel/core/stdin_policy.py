"""input(), getpass() and sys.stdin inside cells: answered by the host when it allows, else a clear error at once."""

import builtins
import io
import sys

from . import import_hooks
from . import state


def _input(prompt=""):
    return state.request_input(prompt, False)


def _getpass(prompt="Password: ", stream=None):
    return state.request_input(prompt, True)


class CellStdin(io.TextIOBase):
    """sys.stdin: every read becomes an input request for the running cell."""

    @property
    def name(self):
        return "<stdin>"

    @property
    def encoding(self):
        return "utf-8"

    def readable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return 0

    def readline(self, size=-1):
        line = state.request_input("", False)
        return line if line.endswith("\n") else line + "\n"

    def read(self, size=-1):
        return self.readline()


def install():
    builtins.input = _input
    sys.stdin = CellStdin()
    sys.__stdin__ = sys.stdin
    import_hooks.when_imported("getpass", _patch_getpass)


def _patch_getpass(module):
    module.getpass = _getpass


def keep_getpass_patched():
    """Before each cell: a reloaded getpass (or a cell's own assignment) gets the host-answered one back."""
    module = sys.modules.get("getpass")
    if module is not None and getattr(module, "getpass", None) is not _getpass:
        _patch_getpass(module)
