"""The root: with checkpoints, the process the host started stays behind while a fork of it runs the cells.

It keeps the pid the host (and bwrap) wait on, holds the fresh interpreter (a restore of "no checkpoint" forks
it), is the child subreaper under which runners end up, reports the live runner's end (`runner_exit`: reaped
itself, or told `died` by the checkpoint that spawned it), keeps the pids of forked sessions' runners (which a
restore spares), and while no runner lives reads the host's requests itself so a restore can bring one back.
"""

import os
import select
import _signal as signal

from . import relive
from . import state
from . import time_travel
from ..lifetime import checkpoint_limits
from ..lifetime import checkpoints
from .shutdown import exit_now

BecomeLive = checkpoints.BecomeLive


def start_root(requests):
    """In the process the host started: fork the live runner and return in it; the parent serves as root.

    Returns True in the first live runner (it announces `ready`), False in one the root started later.
    """
    relive.requests = requests
    checkpoints.make_token()
    checkpoint_limits.note_own_sockets()
    listener = checkpoints.listen(None)
    checkpoints.is_enabled = True
    checkpoints.save_random()
    pid = checkpoints.fork_quietly()
    if pid == 0:
        listener.close()
        checkpoints.restore_random()
        relive.finish_becoming_live(BecomeLive())
        return True
    try:
        _Root(listener, pid).serve()
    except BecomeLive as live:
        relive.finish_becoming_live(live)
    return False


class _Root(object):
    """The process the host started, once it has forked the live runner: see the module's docstring."""

    def __init__(self, listener, live):
        self.listener = listener
        self.live = live
        self.forks = set()  # runners of forked sessions started from this kernel's checkpoints
        self.reader = relive.requests._reader

    def serve(self):
        checkpoints.is_root = True
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, _ignore)
        signal.set_wakeup_fd(wake_w)
        listener = self.listener.fileno()
        stdin = self.reader._fd
        while True:
            self._reap()
            poller = select.poll()
            poller.register(listener, select.POLLIN)
            poller.register(wake_r, select.POLLIN)
            if self.live is None:
                poller.register(stdin, select.POLLIN | select.POLLHUP)
            try:
                events = poller.poll()
            except InterruptedError:
                continue
            for fd, _ in events:
                if fd == wake_r:
                    checkpoints.drain_wakeup(wake_r)
                elif fd == listener:
                    self._answer()
                elif fd == stdin and self.live is None:
                    self._read_requests()

    def _reap(self):
        for pid, code, sig in checkpoints.reap_children():
            self.forks.discard(pid)
            if pid == self.live:
                self.live = None
                state.writer.send({"type": "runner_exit", "pid": pid, "exitCode": code, "signal": sig})

    def _answer(self):
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        command = checkpoints._read_command(conn) or ""
        if command.startswith("adopt "):
            try:
                self.live = int(command.split()[1])
            except (ValueError, IndexError):
                pass
            checkpoints.reply(conn, {"ok": True})
        elif command.startswith("died "):
            # A checkpoint reaped a runner it spawned: the live one's end is reported like a child's.
            parts = command.split()
            try:
                pid = int(parts[1])
                code = None if parts[2] == "None" else int(parts[2])
                sig = None if parts[3] == "None" else int(parts[3])
            except (ValueError, IndexError):
                pid = None
            self.forks.discard(pid)
            if pid is not None and pid == self.live:
                self.live = None
                state.writer.send({"type": "runner_exit", "pid": pid, "exitCode": code, "signal": sig})
            checkpoints.reply(conn, {"ok": True})
        elif command.startswith("fork "):
            try:
                self.forks.add(int(command.split()[1]))
            except (ValueError, IndexError):
                pass
            checkpoints.reply(conn, {"ok": True})
        elif command == "forks":
            checkpoints.reply(conn, {"pids": sorted(self.forks)})
        elif command == "info":
            checkpoints.reply(conn, {"pid": os.getpid(), "privateBytes": checkpoints.private_bytes()})
        conn.close()

    def _read_requests(self):
        """No runner lives: the root serves what the host may ask (restore, info, drop, exit)."""
        if not self.reader.fill():
            exit_now(0, graceful=False)
        while self.live is None:
            frame = self.reader.take_buffered()
            if frame is None:
                return
            kind = frame.get("type", "execute")
            if kind == "exit":
                exit_now(0, graceful=True)
            elif kind == "restore":
                self._restore(frame)
            elif kind in ("drop", "checkpoint_info"):
                time_travel.handle(frame)
            elif kind == "execute":
                state.writer.send(
                    {"type": "done", "id": frame.get("id"), "status": "error", "executionCount": None,
                     "cancelled": True, "noRunner": True}
                )
            else:
                state.writer.send({"type": "protocol_error", "reason": "no runner is live: %r ignored" % (kind,)})

    def _restore(self, frame):
        rid = frame.get("id")
        name = frame.get("name")
        announce = {"type": "checkpoint_reply", "id": rid, "ok": True, "name": name}
        if name is None:
            checkpoints.save_random()
            pid = checkpoints.fork_quietly()
            if pid == 0:
                self.listener.close()
                checkpoints.restore_random()
                raise BecomeLive(None, announce)
            self.live = pid
            return
        try:
            time_travel.check_name(name)
            self.live = checkpoints.ask(name, "spawn")["pid"]
            frame = dict(announce)
            frame["livePid"] = self.live
            state.writer.send(frame)
        except LookupError:
            time_travel.send_reply(rid, ok=False, name=name, error="no checkpoint named %r" % (name,), missing=True)
        except Exception as exc:
            time_travel.send_reply(rid, ok=False, name=name, error="%s: %s" % (type(exc).__name__, exc))


def _ignore(signum, frame):
    pass
