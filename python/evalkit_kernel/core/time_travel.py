"""Time-travel requests in the live runner: checkpoint, restore, drop, checkpoint_info (docs/checkpoints.md).

Checkpoints are parked forks (lifetime/checkpoints.py); a restore makes one spawn a new runner (core/relive.py
re-creates in it what a fork does not copy) and the old runner ends here (`_retire`). The process the host started
stays behind as the root (core/root.py). docs/protocol.md has the frames.
"""

import os
import _signal as signal

from . import state
from . import threads
from ..lifetime import checkpoint_limits
from ..lifetime import checkpoints
from ..lifetime import process_tree

REQUEST_TYPES = ("checkpoint", "restore", "drop", "checkpoint_info")
BecomeLive = checkpoints.BecomeLive


def handle(request):
    """A time-travel request in the live runner (main thread, between cells)."""
    kind = request.get("type")
    rid = request.get("id")
    name = request.get("name")
    try:
        if not checkpoints.is_enabled:
            raise RuntimeError("this kernel was started without checkpoints")
        if kind == "checkpoint":
            check_name(name)
            state.sync_streams()
            pid, limits = checkpoints.fork_checkpoint(name, threads.started)
            send_reply(rid, name=name, pid=pid, limits=limits, livePid=os.getpid())
        elif kind == "restore":
            if name is not None:
                check_name(name)
            new_pid = checkpoints.ask(name, "spawn")["pid"] if name is not None else None
            if new_pid is None:
                raise RuntimeError("the checkpoint did not start a runner")
            checkpoints.ask(None, "adopt %d" % new_pid)
            send_reply(rid, name=name, livePid=new_pid)
            _retire(new_pid)
        elif kind == "drop":
            check_name(name)
            if request.get("wait") is False:
                checkpoints.tell(name, "drop")  # an automatic one: it ends on its own, nobody waits for it
            else:
                checkpoints.ask(name, "drop")
            send_reply(rid, name=name)
        elif kind == "checkpoint_info":
            send_reply(rid, checkpoints=describe(request.get("names")), livePid=os.getpid())
    except BecomeLive:
        raise
    except LookupError:
        send_reply(rid, ok=False, name=name, error="no checkpoint named %r" % (name,), missing=True)
    except FileExistsError:
        send_reply(rid, ok=False, name=name, error="a checkpoint named %r already exists" % (name,))
    except Exception as exc:
        send_reply(rid, ok=False, name=name, error="%s: %s" % (type(exc).__name__, exc))


def describe(names):
    """pid and private memory of each named checkpoint, and of the root; a missing one says so."""
    out = []
    for name in list(names or ())[:1000]:
        if not isinstance(name, str):
            continue
        try:
            info = checkpoints.ask(name, "info") or {}
            out.append({"name": name, "pid": info.get("pid"), "privateBytes": info.get("privateBytes")})
        except LookupError:
            out.append({"name": name, "missing": True})
        except Exception as exc:
            out.append({"name": name, "missing": True, "error": str(exc)})
    try:
        if checkpoints.is_root:  # asking itself would wait for its own answer
            info = {"pid": os.getpid(), "privateBytes": checkpoints.private_bytes()}
        else:
            info = checkpoints.ask(None, "info") or {}
        out.append({"name": None, "pid": info.get("pid"), "privateBytes": info.get("privateBytes")})
    except Exception:
        pass
    return out


def check_name(name):
    if not isinstance(name, str) or not name or len(name) > 200:
        raise ValueError("a checkpoint name is a non-empty string of at most 200 characters")


def send_reply(rid, ok=True, **fields):
    frame = {"type": "checkpoint_reply", "id": rid, "ok": ok}
    frame.update(fields)
    state.writer.send(frame)


def _retire(new_pid):
    """The old live runner after a restore: its own processes end (the restored state never had them), it exits.

    Its checkpoints and the new runner (which may be its child for a moment) stay; they pass to the root.
    """
    keep = set(checkpoints.checkpoint_pids) | {new_pid}
    try:
        keep.update(checkpoints.ask(None, "forks").get("pids", ()))  # forked sessions' runners are not ours
    except Exception:
        pass
    try:
        state.writer.flush_held()
    except Exception:
        pass
    for pid in checkpoint_limits.children():
        if pid in keep or checkpoint_limits.is_guard(pid):
            continue
        below, groups = process_tree.find_descendants(pid)
        for target in [pid] + below:
            _kill(target)
    os._exit(0)


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
