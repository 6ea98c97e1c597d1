"""Calls from cell code into the host over the protocol channel: `call` out, block until the matching `reply`."""

import itertools
import threading

from . import state

_pending = {}
_lock = threading.Lock()
_ids = itertools.count(1)


class HostError(RuntimeError):
    """A host handler failed; `name` is the host-side error name."""

    def __init__(self, message, name="Error"):
        RuntimeError.__init__(self, message)
        self.name = name


class _Slot(object):
    __slots__ = ("event", "frame")

    def __init__(self):
        self.event = threading.Event()
        self.frame = None


def _await(key, frame, on_interrupt):
    slot = _Slot()
    with _lock:
        _pending[key] = slot
    try:
        state.writer.send(frame)
        while not slot.event.wait(0.5 if state.writer.broken else None):
            if state.writer.broken:
                raise HostError("the host went away while waiting for a reply", "HostGone")
    except KeyboardInterrupt:
        on_interrupt()
        raise
    finally:
        with _lock:
            _pending.pop(key, None)
    return slot.frame


def call(method, params=None, cell_id=None):
    """Run `method` on the host and return its value; raises HostError with the host's message.

    `cell_id` pins the call to the cell a worker thread was started for (default: the running cell).
    """
    if cell_id is None:
        cell_id = state.current_cell_id()
    if cell_id is None:
        raise RuntimeError("%s() can only be called while a cell is running" % method)
    call_id = "c%d" % next(_ids)
    frame = {"type": "call", "id": cell_id, "callId": call_id, "method": method, "params": params or {}}

    def cancel():
        state.writer.send({"type": "cancel_call", "id": cell_id, "callId": call_id})

    reply = _await(call_id, frame, cancel)
    if reply.get("ok"):
        return reply.get("value")
    error = reply.get("error") or {}
    raise HostError(str(error.get("message") or "host call failed"), str(error.get("name") or "Error"))


def request_input(cell_id, prompt, password):
    frame = {"type": "input_request", "id": cell_id, "prompt": prompt, "password": password}
    reply = _await("input:" + cell_id, frame, lambda: None)
    if reply.get("error"):
        raise EOFError(str(reply.get("error")))
    return str(reply.get("value", ""))


def deliver(frame):
    """Called by the reader thread with a `reply` or `input_reply` frame."""
    if frame.get("type") == "input_reply":
        key = "input:" + str(frame.get("id"))
    else:
        key = str(frame.get("callId"))
    with _lock:
        slot = _pending.get(key)
    if slot is None:
        return False
    slot.frame = frame
    slot.event.set()
    return True
