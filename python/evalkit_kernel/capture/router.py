"""The stream router: orders text from every source and turns it into <=32 KB stdout/stderr frames of the running cell."""

import os
import threading
import time

from .stream_frames import encode_stream_frames
from ..core.threads import start_daemon

_monotonic = time.monotonic
_get_ident = threading.get_ident

CHUNK_CHARS = 32 * 1024  # bigger frames were measured much slower in the child
FLUSH_DELAY = 0.004  # batch small writes for a few ms; never hold output longer
ORPHAN_LIMIT = 1 << 20  # output written between cells, kept for the next cell
FD_SYNC_INTERVAL = 0.001  # Python-level writes pull earlier fd-level bytes in at most this often
_NEVER = float("inf")


class StreamRouter(object):
    """Orders stream text from every source and turns it into <=32 KB stdout/stderr frames."""

    def __init__(self, send, cell_id, send_raw=None):
        self._send = send
        # send_raw(bytes) writes encoded lines (FrameWriter.send_raw): stream frames are then encoded here with
        # the bulk encoder (stream_frames.py), and all frames of one flush leave in one write.
        self._send_raw = send_raw
        self._cell_id = cell_id  # callable -> current cell id or None
        self._lock = threading.RLock()
        self._pending = []  # [name, [parts], size]
        self._size = 0
        self._orphans_dropped = 0  # characters written between cells and dropped past ORPHAN_LIMIT
        self._wake = threading.Event()
        self._wake_pending = False
        # Single-writer fast path: the thread that made the router (the runner's main thread, which runs
        # cells) appends its text to _fast without the lock while a cell runs, no %%capture sink is active
        # and it keeps writing to the same stream. Everyone else (the flush thread, other threads, the
        # other stream) first moves _fast into _pending under the lock, so the order of text is the order
        # of the writes. _fast is only ever appended to by the owner and emptied from the front with
        # `del buf[:n]` (one atomic step under the GIL), so no text is lost or reordered.
        # Only the owner sets _fast_name, and only while a cell runs; the owner's own flush() clears it (the
        # end of every cell flushes on the main thread), so the next write decides afresh.
        self._owner = threading.get_ident()
        self._fast = []
        self._fast_name = None  # the stream _fast holds text of
        self._fast_size = 0  # owner's estimate; reset when _fast is flushed
        self.sinks = []  # %%capture sinks, innermost last
        # Set when fd 1/2 are captured: Python-level writes first pull in bytes already written to the fds
        # (os.write, C code, children), so `os.write(1, a); print(b)` arrives as a, b. Checked on the first
        # write of a cell and then at most every FD_SYNC_INTERVAL (one poll(0) when nothing is pending).
        self.fd_sync = None
        self.fd_sync_due = 0.0
        if hasattr(os, "register_at_fork"):
            # A forked child has no flush thread and writes whole lines itself (lifetime/fork_guard.py): text
            # must never again take the lock-free path there, where nobody would send it.
            os.register_at_fork(after_in_child=self._forget_fast_path)
        start_daemon(self._flush_loop, "evalkit-flush")

    def pull_fd_output(self):
        sync = self.fd_sync
        if sync is None:
            self.fd_sync_due = _NEVER  # nothing to pull: keep the check off the stream's fast path
            return
        now = _monotonic()
        if now >= self.fd_sync_due:
            self.fd_sync_due = now + FD_SYNC_INTERVAL
            sync()

    def stream_writer(self, name, slow):
        """The `write` of sys.<name>: a few bytecodes while the owner keeps writing text to this stream.

        Any other case — another thread, another stream, a %%capture sink, fd-level bytes due to be pulled
        in, no fast path taken yet this cell, a str subclass or a non-str — goes to slow(text), the full
        path. The checks are all here on every call, so a caller that kept this function (a logging
        handler holding `sys.stdout.write`) stays correct when ownership changes.
        """
        router = self
        owner = self._owner
        append = self._fast.append
        get_ident = _get_ident
        monotonic = _monotonic
        limit = CHUNK_CHARS

        def write(text):
            if (
                router._fast_name is name
                and text.__class__ is str
                and get_ident() == owner
                and not router.sinks
                and monotonic() < router.fd_sync_due
            ):
                append(text)
                size = router._fast_size + len(text)
                router._fast_size = size
                if size >= limit:
                    router.flush(keep_fast=True)
                elif not router._wake_pending:
                    router._wake_pending = True
                    router._wake.set()
                return len(text)
            return slow(text)

        return write

    def write(self, name, text):
        if not text:
            return
        if name is self._fast_name and _get_ident() == self._owner and not self.sinks:
            if self._cell_id() is not None:
                self._fast.append(text)
                size = self._fast_size + len(text)
                self._fast_size = size
                if size >= CHUNK_CHARS:
                    self.flush(keep_fast=True)
                elif not self._wake_pending:
                    self._wake_pending = True
                    self._wake.set()
                return
        with self._lock:
            self._drain_fast_locked()
            cell_id = self._cell_id()
            if self.sinks and cell_id is not None:
                self.sinks[-1].on_stream(name, text)
                return
            if cell_id is not None and _get_ident() == self._owner:
                self._fast_name = name  # the owner's next writes to this stream take the fast path
            pending = self._pending
            if pending and pending[-1][0] == name:
                pending[-1][1].append(text)
            else:
                pending.append([name, [text]])
            self._size += len(text)
            if cell_id is not None:
                if self._size >= CHUNK_CHARS:
                    self._flush_locked()
                    return  # nothing left for the flush thread
                if self._fast_name is name:
                    self._fast_size = self._size  # what waits ahead of the fast path's text fills its chunk too
            elif self._size > ORPHAN_LIMIT:
                self._drop_oldest_locked()
        if not self._wake_pending:  # Event.set() takes a lock: skip it while a wake-up is pending
            self._wake_pending = True
            self._wake.set()

    def flush(self, keep_fast=False):
        """Sends what is pending. keep_fast: the fast path's own flush of a full chunk, mid-cell (the next write
        then stays on the fast path, and each 32 KB leaves as one frame instead of a frame and a sliver)."""
        if not self._fast and not self._pending:
            # Nothing to send (most flushes of a short cell): no lock. Text another thread appends meanwhile
            # was written after this call began, which is as if it came a moment later.
            if not keep_fast and _get_ident() == self._owner:
                self._fast_name = None
            return
        with self._lock:
            self._drain_fast_locked()
            if not keep_fast and _get_ident() == self._owner:
                self._fast_name = None  # see __init__: the owner's next write re-checks that a cell runs
            if self._cell_id() is None:
                if self._size > ORPHAN_LIMIT:
                    self._drop_oldest_locked()
                return
            self._flush_locked()

    def _forget_fast_path(self):
        self._fast_name = None

    def _drain_fast_locked(self):
        """Moves the owner's lock-free text into _pending, in order (called under the lock)."""
        buf = self._fast
        count = len(buf)
        if count == 0:
            return
        parts = buf[:count]
        del buf[:count]  # the owner may have appended meanwhile: that text stays for the next drain
        self._fast_size = 0
        name = self._fast_name
        pending = self._pending
        if pending and pending[-1][0] == name:
            pending[-1][1].extend(parts)
        else:
            pending.append([name, parts])
        self._size += sum(map(len, parts))

    def _flush_locked(self):
        cell_id = self._cell_id()
        if cell_id is None or not self._pending:
            return
        pending, self._pending, self._size = self._pending, [], 0
        if self._send_raw is None:
            self._send_frames(cell_id, pending)
            return
        lines = []
        if self._orphans_dropped:
            # Say so before the text that was kept: a background flood between cells is capped, never silent.
            dropped, self._orphans_dropped = self._orphans_dropped, 0
            encode_stream_frames("stderr", cell_id, _orphan_note(dropped), CHUNK_CHARS, lines)
        for name, parts in pending:
            encode_stream_frames(name, cell_id, "".join(parts), CHUNK_CHARS, lines)
        self._send_raw(b"".join(lines))

    def _send_frames(self, cell_id, pending):
        send = self._send
        if self._orphans_dropped:
            dropped, self._orphans_dropped = self._orphans_dropped, 0
            send({"type": "stderr", "id": cell_id, "data": _orphan_note(dropped)})
        for name, parts in pending:
            text = "".join(parts)
            for start in range(0, len(text), CHUNK_CHARS):
                send({"type": name, "id": cell_id, "data": text[start : start + CHUNK_CHARS]})

    def _drop_oldest_locked(self):
        while self._size > ORPHAN_LIMIT and self._pending:
            name, parts = self._pending[0]
            size = len(parts.pop(0))
            self._size -= size
            self._orphans_dropped += size
            if not parts:
                self._pending.pop(0)

    def _flush_loop(self):
        wake = self._wake
        pause = threading.Event()  # never set: a GIL-free timed sleep
        while True:
            wake.wait()
            # A short pause lets a burst of small writes share one frame.
            pause.wait(FLUSH_DELAY)
            wake.clear()
            self._wake_pending = False  # after clear(): a write in between still has its text flushed below
            try:
                self.flush()
            except Exception:
                pass


def _orphan_note(dropped):
    return (
        "evalkit: %s characters of output written between cells were dropped; the last %s are kept below\n"
        % ("{:,}".format(dropped), "{:,}".format(ORPHAN_LIMIT))
    )
