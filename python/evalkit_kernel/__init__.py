"""evalkit's kernel runner: the code that runs inside the interpreter (stdlib only, CPython 3.8+)."""

PROTOCOL_VERSION = 1
STATUS_MIME = "application/x-evalkit-status"
