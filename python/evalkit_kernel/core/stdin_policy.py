"""input(), getpass() and sys.stdin inside cells: answered by the host when it allows, else a clear error at once."""

import builtins
import io
import sys

from . import bridge
from . import import_hooks
from . import state


class StdinNotImplementedError(EOFError):
    """Raised by input() when the caller of the cell cannot answer prompts."""

    __module__ = "builtins"  # shown as plain StdinNotImplementedError in tracebacks


def request_input(prompt="", password=False):
    """Ask the host for a line of input, or fail at once when the caller cannot answer."""
    cell = state.cell
    if not cell.allow_stdin or not cell.is_running:
        raise StdinNotImplementedError(
            "input() is not available here: this cell runs without an interactive stdin. "
            "Pass data to the code directly (a variable, a file, or an argument) instead of prompting."
        )
    return bridge.request_input(cell.cell_id, str(prompt), bool(password))


def _input(prompt=""):
    return request_input(prompt, False)


def _getpass(prompt="Password: ", stream=None):
    return request_input(prompt, True)


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
        line = request_input("", False)
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
