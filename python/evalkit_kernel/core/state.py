"""The runner's shared state and the API the optional modules use to emit outputs for the running cell."""

import os
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums
import sys
import threading

from .. import STATUS_MIME
from . import big_values

writer = None  # protocol.FrameWriter
router = None  # capture.StreamRouter
fd_capture = None  # capture.FdCapture or None
main_module = None  # the module registered as __main__

_cell_id = None
_execution_count = 0
_allow_stdin = False
_child_groups = set()
_child_lock = threading.Lock()


class StdinNotImplementedError(EOFError):
    """Raised by input() when the caller of the cell cannot answer prompts."""

    __module__ = "builtins"  # shown as plain StdinNotImplementedError in tracebacks


def current_cell_id():
    return _cell_id


# True once a SIGINT (the host's interrupt, or one sent by hand) reached the running cell: a KeyboardInterrupt
# the cell raised itself is an ordinary error, not a cancellation.
interrupt_seen = False


def set_cell(cell_id, allow_stdin=False, nonce=None):
    global _cell_id, _allow_stdin, _nonce, interrupt_seen
    _cell_id = cell_id
    _allow_stdin = allow_stdin
    _nonce = nonce if isinstance(nonce, str) else None
    interrupt_seen = False


# The execute request's secret, echoed on the frames that decide a cell's outcome (result, error, done), so
# the host can tell them from frames a cell forged on a protocol descriptor it found (docs/protocol.md).
_nonce = None
_NONCE_FRAMES = ("result", "error", "done")


def with_nonce(frame):
    if _nonce is not None and frame.get("type") in _NONCE_FRAMES:
        frame["nonce"] = _nonce
    return frame


def execution_count():
    return _execution_count


def next_execution_count():
    global _execution_count
    _execution_count += 1
    return _execution_count


def user_namespace():
    return main_module.__dict__


def sync_streams():
    """Push every byte written so far out before a frame that must come after it."""
    if fd_capture is not None:
        fd_capture.sync()
    router.flush()


def send_output(frame, hold=False):
    """Send a display/result/clear_output/error frame in order with the streams.

    hold: the frame may wait for the next frame (or the next tick): for frames `done` follows at once.
    """
    if _cell_id is not None:
        big_values.fit(frame, router.write)  # a full text too big for one frame goes out as stream output first
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    sync_streams()
    if _cell_id is None:
        return
    frame["id"] = _cell_id
    if router.sinks:
        router.sinks[-1].on_output(frame)
    else:
        writer.send(with_nonce(frame), hold)


def emit_display(bundle, metadata=None, display_id=None, update=False, kind="display"):
    frame = {"type": kind, "bundle": bundle}
    if metadata:
        frame["metadata"] = metadata
    if display_id is not None:
        frame["displayId"] = str(display_id)
    if update:
        frame["update"] = True
    send_output(frame)


def emit_clear_output(wait=False):
    send_output({"type": "clear_output", "wait": bool(wait)})


def emit_status(op, **fields):
    event = {"op": op}
    event.update(fields)
    emit_display({STATUS_MIME: event})


def push_capture(sink):
    sync_streams()
    router.sinks.append(sink)


def pop_capture(sink):
    sync_streams()
    if sink in router.sinks:
        router.sinks.remove(sink)


def request_input(prompt="", password=False):
    """Ask the host for a line of input, or fail at once when the caller cannot answer."""
    if not _allow_stdin or _cell_id is None:
        raise StdinNotImplementedError(
            "input() is not available here: this cell runs without an interactive stdin. "
            "Pass data to the code directly (a variable, a file, or an argument) instead of prompting."
        )
    from . import bridge

    return bridge.request_input(_cell_id, str(prompt), bool(password))


def register_child_group(pgid):
    with _child_lock:
        _child_groups.add(pgid)


def unregister_child_group(pgid):
    with _child_lock:
        _child_groups.discard(pgid)


def kill_child_groups(sig=None):
    """Signal every process group a cell started in its own session (shell escapes)."""
    if sig is None:
        sig = getattr(signal, "SIGKILL", signal.SIGTERM)
    with _child_lock:
        groups = list(_child_groups)
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except (OSError, AttributeError):
            pass
