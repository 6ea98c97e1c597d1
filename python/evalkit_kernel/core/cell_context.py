"""One execute request as the runner serves it: its id, whether it may prompt, its secret, whether it was interrupted."""

# Frames that decide a cell's outcome carry the request's secret, so the host can tell them from frames a cell
# forged on a protocol descriptor it found (docs/protocol.md, "Forged frames").
_NONCE_FRAMES = ("result", "error", "done")


class CellContext(object):
    """Created per execute request and passed along (executor, interrupt gate, output API); IDLE between cells."""

    __slots__ = ("cell_id", "allow_stdin", "nonce", "interrupt_seen")

    def __init__(self, cell_id=None, allow_stdin=False, nonce=None):
        self.cell_id = cell_id
        self.allow_stdin = bool(allow_stdin)
        self.nonce = nonce if isinstance(nonce, str) else None
        # True once a SIGINT (the host's interrupt, or one sent by hand) reached this cell: a KeyboardInterrupt
        # the cell raised itself is an ordinary error, not a cancellation.
        self.interrupt_seen = False

    @property
    def is_running(self):
        return self.cell_id is not None

    def stamp(self, frame):
        """The frame with this request's secret on it, when it is one of the frames that decide the outcome."""
        if self.nonce is not None and frame.get("type") in _NONCE_FRAMES:
            frame["nonce"] = self.nonce
        return frame


IDLE = CellContext()
