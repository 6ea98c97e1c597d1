"""Host frames into the runner: the main thread reads between cells, a helper thread while a long cell runs."""

import os
import threading

from ..capture.channel_fds import private_pipe


class RequestChannel(object):
    """Host frames reach the runner here, with no thread hand-off on the way to a cell.

    Between cells the main thread reads requests itself. While a cell runs, frames must still be seen
    (interrupt, bridge replies, is_complete, EOF): a helper thread takes over the reading, but only once the
    cell has outlived one tick (TICK seconds) or made a host request (`call`, `input_request`). Waking it at
    every cell would put a cross-thread wake-up and a GIL hand-off on the path of every short cell, which is
    most of the per-cell cost on small machines. `dispatch(frame)` handles frames that are not execute/exit
    requests (from either thread); requests the helper reads wait in a queue for the main thread.
    """

    TICK = 0.02

    def __init__(self, reader, dispatch, start_daemon, on_tick=None):
        self._reader = reader
        self._dispatch = dispatch
        self._on_tick = on_tick or (lambda: None)
        self._cond = threading.Condition()
        self._cell = 0  # serial of the running cell, 0 between cells
        self._reading = False  # the helper owns the reader
        self._urgent = False
        self._queue = []
        self._wake_r, self._wake_w = private_pipe()
        start_daemon(self._helper_loop, "evalkit-reader")

    def next_request(self):
        """Main thread, between cells: the next execute frame, {"type": "exit"}, or None at EOF."""
        with self._cond:
            while self._reading:
                self._cond.wait()
            if self._queue:
                return self._queue.pop(0)
        while True:
            frame = self._reader.read_frame()
            if frame is None or _is_request(frame):
                return frame
            self._dispatch(frame)

    def has_pending_input(self):
        """Between cells (from the SIGINT handler): is a request already on its way to the main thread?"""
        return bool(self._queue) or self._reader.has_input()

    def begin_cell(self, serial):
        self._cell = serial  # no wake-up: the helper notices at its next tick

    def end_cell(self):
        with self._cond:
            self._cell = 0
            self._urgent = False
            reading = self._reading
        if reading:
            try:
                os.write(self._wake_w, b"x")  # get the helper out of poll()
            except OSError:
                pass

    def read_now(self):
        """The running cell waits on the host (a bridge call): start reading at once."""
        with self._cond:
            if self._cell and not self._reading:
                self._urgent = True
                self._cond.notify_all()

    def _helper_loop(self):
        import select

        poller = select.poll()
        poller.register(self._reader._fd, select.POLLIN | select.POLLHUP)
        poller.register(self._wake_r, select.POLLIN)
        cond = self._cond
        seen = 0
        while True:
            with cond:
                if not self._urgent:
                    cond.wait(self.TICK)
                cell = self._cell
            if cell:
                self._on_tick()
            with cond:
                # A cell seen at two ticks in a row has run for at least one tick. Ownership of the reader
                # only ever passes while that cell still runs (the main thread reads only between cells).
                if not cell or self._cell != cell or (cell != seen and not self._urgent):
                    seen = cell
                    continue
                self._reading = True
            self._read_while_cell_runs(poller)
            seen = 0

    def _read_while_cell_runs(self, poller):
        try:
            while True:
                self._drain_buffered()  # frames read together with the execute request come first
                with self._cond:
                    if not self._cell:
                        return
                try:
                    events = poller.poll(self.TICK * 1000)
                except InterruptedError:
                    continue
                self._on_tick()
                for fd, _ in events:
                    if fd == self._wake_r:
                        os.read(self._wake_r, 512)
                    elif not self._reader.fill():
                        self._deliver(None)
                        return
        finally:
            with self._cond:
                self._reading = False
                self._urgent = False
                self._cond.notify_all()

    def _drain_buffered(self):
        while True:
            frame = self._reader.take_buffered()
            if frame is None:
                return
            self._deliver(frame)

    def _deliver(self, frame):
        if frame is None or _is_request(frame):
            with self._cond:
                self._queue.append(frame)
            if frame is None:
                self._dispatch(None)  # EOF: the runner leaves at once
        else:
            self._dispatch(frame)


def _is_request(frame):
    return frame.get("type", "execute") in _REQUEST_TYPES


# Served by the main thread between cells: cells, exit, and time travel (core/time_travel.py).
_REQUEST_TYPES = ("execute", "exit", "checkpoint", "restore", "drop", "checkpoint_info")
