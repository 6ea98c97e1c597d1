"""A cell that calls os.fork(): the child must never speak the protocol or serve requests as a second kernel.

Without this, a forked child that returns from the cell goes back to the runner loop, reads the host's next
requests from the shared stdin and answers on the shared protocol fd, so cells alternate between two
processes. In the child, frames are switched off, Python-level output is written straight to fd 1/2 (whose
pipes the parent drains, so the output still shows in the cell), and the runner exits the child as soon as
the cell's code returns.
"""

import os
import sys
import threading

from ..core import state

_runner_pid = os.getpid()
suspended = False  # set around the runner's own forks (checkpoints, lifetime/checkpoints.py): not a cell's child


def is_forked_child():
    return os.getpid() != _runner_pid


def _write_fd(fd, data):
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        pass


class _FdLines(object):
    """The child's Python-level output, written to fd 1/2 a line at a time (print() writes in pieces)."""

    def __init__(self):
        self._parts = {"stdout": [], "stderr": []}

    def write(self, name, text):
        parts = self._parts["stdout" if name == "stdout" else "stderr"]
        parts.append(text)
        if "\n" in text:
            joined = "".join(parts)
            cut = joined.rindex("\n") + 1
            parts[:] = [joined[cut:]] if cut < len(joined) else []
            self._emit(name, joined[:cut])

    def flush(self):
        for name, parts in self._parts.items():
            if parts:
                text = "".join(parts)
                del parts[:]
                self._emit(name, text)

    def _emit(self, name, text):
        _write_fd(1 if name == "stdout" else 2, text.encode("utf-8", "replace"))


def _send_output_as_text(frame, hold=False):
    """In the child, a result or error becomes text on fd 1/2 (its frames could not reach the host)."""
    if frame.get("type") == "error":
        lines = frame.get("traceback") or ["%s: %s" % (frame.get("ename"), frame.get("evalue"))]
        _write_fd(2, ("\n".join(lines) + "\n").encode("utf-8", "replace"))
        return
    text = (frame.get("bundle") or {}).get("text/plain")
    if isinstance(text, str):
        _write_fd(1, (text + "\n").encode("utf-8", "replace"))


def adopt_current_process():
    """This process is the live runner now (a restored checkpoint): it speaks the protocol."""
    global _runner_pid
    _runner_pid = os.getpid()


def _after_fork_in_child():
    if suspended:
        return
    writer = state.writer
    if writer is not None:
        writer.broken = True  # never a frame: it could interleave with the parent's frames mid-line
        writer._lock = threading.Lock()  # another thread may have held it at the fork
    state.send_output = _send_output_as_text
    router = state.router
    if router is not None:
        router.fd_sync = None  # the drain threads it would wait for do not exist in the child
        router._lock = threading.RLock()
        router.sinks = []
        lines = _FdLines()  # the child has no flush thread: write whole lines at once instead
        router.write = lines.write
        router.flush = lines.flush


def exit_if_forked_child():
    """Called when a cell's code returned: a forked child ends here instead of serving requests."""
    if not is_forked_child():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


def install():
    global _runner_pid
    _runner_pid = os.getpid()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
