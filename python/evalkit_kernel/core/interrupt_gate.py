"""What a SIGINT means right now: KeyboardInterrupt inside a cell, remembered while one starts, ignored between cells."""

import sys
import threading
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums


class InterruptGate(object):
    """One permanent SIGINT handler (no sigaction per cell) and the interrupt frames, for the cell being served.

    main creates one and passes it along: the request loop opens and closes it around each cell, the frame
    dispatcher hands it interrupt frames, and the handler consults it from the main thread.
    """

    def __init__(self, signal_group=None):
        self.cell = None  # the running CellContext, None between cells
        self.starting = False  # an execute request was taken; the cell is being set up
        self.pending = False  # a SIGINT arrived while the cell was being set up
        self.early = []  # ids of cells interrupted before they started (the frame overtook the request)
        self.has_pending_input = lambda: False  # set by main: is a request already on its way?
        # Sandboxed kernels cannot receive the host's SIGINT; interrupt frames signal the runner's group instead.
        self.signal_group = signal_group
        self._dropped_hooks = None
        # One bound method, kept: `self.on_sigint` makes a new object each time, so `is` would never match it.
        self._handler = self.on_sigint

    def claim(self):
        """Puts the gate's handler back: a cell may have installed its own (or SIG_IGN/SIG_DFL)."""
        if hasattr(signal, "SIGINT") and signal.getsignal(signal.SIGINT) is not self._handler:
            signal.signal(signal.SIGINT, self._handler)

    def take(self):
        """An execute request was read: a SIGINT from now on is meant for the cell it starts."""
        self.starting = True

    def open(self, cell):
        """The cell starts; raises KeyboardInterrupt at once if the host interrupted it before it began."""
        self.claim()
        self.cell = cell
        self.starting = False
        if cell.cell_id in self.early:
            self.early.remove(cell.cell_id)
            self.pending = True
        if self.pending:
            # The host interrupted this cell before it started (e.g. an already-aborted signal): cancel it now
            # instead of letting it run until the host's kill ladder ends the whole kernel.
            self.pending = False
            cell.interrupt_seen = True
            raise KeyboardInterrupt()

    def close(self):
        self.cell = None
        self.starting = False
        self.pending = False

    def on_sigint(self, signum, frame):
        cell = self.cell
        if cell is not None:
            cell.interrupt_seen = True
            self._drop_trace_hooks()
            raise KeyboardInterrupt()
        # Between cells a stray SIGINT is ignored, unless the host already sent the cell it meant to interrupt.
        if self.starting or self.has_pending_input():
            self.pending = True

    def interrupt(self, cell_id, running_id):
        """An interrupt frame (from a reader thread) for `cell_id`; `running_id` is the cell being served."""
        if running_id is None or (cell_id is not None and str(cell_id) != running_id):
            if cell_id is not None:
                # Read before its cell started (the frame can overtake the hand-over between reader threads):
                # remember it, so the cell is cancelled as it starts. Ids are unique; old ones just age out.
                self.early.append(str(cell_id))
                del self.early[:-16]
            return
        if self.signal_group is not None:
            self.signal_group()
        elif hasattr(signal, "pthread_kill"):
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        else:
            import _thread

            _thread.interrupt_main()

    def take_dropped_hooks(self):
        """The names of the trace hooks the last interrupt removed (said on stderr as the cell ends), once."""
        names, self._dropped_hooks = self._dropped_hooks, None
        return names

    def _drop_trace_hooks(self):
        # A cell's sys.settrace/sys.setprofile hook would also run for every line and call of the runner's own
        # clean-up (traceback, frames): a slow one made an interrupted cell miss the grace and its kernel killed.
        # An interrupt removes it; a C-level profiler (cProfile) cannot be put back from Python anyway.
        dropped = [name for name, get in (("settrace", sys.gettrace), ("setprofile", sys.getprofile)) if get() is not None]
        if dropped:
            sys.settrace(None)
            sys.setprofile(None)
            self._dropped_hooks = dropped  # never write from inside a signal handler
