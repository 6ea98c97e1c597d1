"""The runner's shared state and the API the optional modules use to emit outputs for the running cell."""

import os
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums
import sys
import threading

from .. import STATUS_MIME
from . import big_values
from .cell_context import IDLE
from .frame_encoding import encode_plain_result

writer = None  # protocol.FrameWriter
router = None  # capture.StreamRouter
fd_capture = None  # capture.FdCapture or None
main_module = None  # the module registered as __main__

cell = IDLE  # the CellContext of the request being served; IDLE between cells
_execution_count = 0
_child_groups = set()
_child_lock = threading.Lock()


def current_cell_id():
    return cell.cell_id


def begin_cell(context):
    global cell
    cell = context


def end_cell():
    global cell
    cell = IDLE


def with_nonce(frame):
    return cell.stamp(frame)


def warn(message):
    """Report a problem on the cell's stderr without failing the cell."""
    try:
        sys.stderr.write("evalkit: %s\n" % (message,))
    except Exception:
        pass


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
    context = cell
    if context.is_running:
        big_values.fit(frame, router.write)  # a full text too big for one frame goes out as stream output first
    _flush_before_frame()
    if not context.is_running:
        return
    frame["id"] = context.cell_id
    if router.sinks:
        router.sinks[-1].on_output(frame)
    else:
        writer.send(context.stamp(frame), hold)


def send_plain_result(text, execution_count):
    """send_output() of the result frame {"text/plain": text} (no metadata), held, for a text shorter than
    frame_encoding.PLAIN_RESULT_MAX_CHARS: the same steps, the frame formatted directly."""
    if router.sinks:  # %%capture takes the frame itself
        send_output({"type": "result", "bundle": {"text/plain": text}, "executionCount": execution_count}, hold=True)
        return
    context = cell
    _flush_before_frame()
    if context.is_running:
        writer.hold_raw(encode_plain_result(context.cell_id, text, execution_count, context.nonce))


def _flush_before_frame():
    # What the cell printed so far (Python-level and fd-level) goes out before the frame that follows it.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    sync_streams()


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
