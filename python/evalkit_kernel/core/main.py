"""The runner's entry: take over the standard descriptors, announce `ready`, then serve requests until exit or EOF."""

import builtins
import os
import _signal as signal  # `signal` imports enum (~2 ms of start-up) to wrap these in enums
import sys
import types

from .. import PROTOCOL_VERSION
from . import bridge
from ..lifetime import fork_guard
from ..lifetime import idle_memory
from . import hooks
from ..lifetime import limits
from ..lifetime import reaper
from . import state
from . import stdin_policy
from ..lifetime import usage
from ..capture.channel_fds import move_high, reset_blocking
from ..capture.fd_capture import FdCapture, enlarge_pipe
from ..capture.router import StreamRouter
from ..capture.streams import install_streams, restore_streams
from .cell_context import CellContext
from .executor import INITIAL_UNDERS, Executor
from .interrupt_gate import InterruptGate
from .frame_encoding import encode_done, encode_started
from .protocol import FrameReader, FrameWriter
from .request_channel import RequestChannel
from . import shutdown
from .shutdown import exit_now, start_parent_watchdog
from .threads import start_daemon

OPTIONAL_MODULES = ("display.publish", "magics", "prelude.api")

def main(config=None):
    config = config or {}
    for name in config.get("dropEnv") or ():
        os.environ.pop(str(name), None)  # set by the host for this process only (malloc tuning)
    limits.apply(config.get("limits"))
    group = bool(config.get("interruptGroup")) and limits.lead_own_group()
    shutdown.note_kernel_group()
    gate = InterruptGate(signal_group=limits.interrupt_group if group else None)
    trace = _make_trace() if os.environ.get("EVALKIT_PYTHON_IPC_TRACE") == "1" else None
    # High, close-on-exec numbers: a cell that closes low descriptors and opens files cannot take them over.
    proto_out = move_high(os.dup(1))
    proto_in = move_high(os.dup(0))
    if not config.get("guardedOutside"):
        # Before any thread exists: ends the kernel with the host even if C code holds the GIL. Only where nothing
        # outside does: a local host runs one guard for all its kernels (python/host_guard.py), a sandbox ends
        # with its host (bwrap --die-with-parent), so an idle kernel there is one process.
        from ..lifetime import guard

        guard.start(proto_out)
    reaper.install()  # daemons a cell double-forks stay our descendants, so the kernel's end takes them along
    enlarge_pipe(proto_out)  # a 1 MB image frame then leaves in one write instead of 16 hand-offs
    _keep_fatal_errors_visible()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    state.writer = FrameWriter(proto_out, trace)
    state.router = StreamRouter(state.writer.send, state.current_cell_id, state.writer.send_raw)
    try:
        state.fd_capture = FdCapture(state.router)
    except (OSError, AttributeError):
        state.fd_capture = None  # no fd-level capture (exotic platform); Python-level capture still works
    install_streams(state.router)
    fork_guard.install()
    stdin_policy.install()

    _apply_context(config.get("cwd"), config.get("env"))
    state.main_module = _make_main_module()
    _load_optional_modules()
    hooks.install_namespace(state.user_namespace())
    # Whatever is in __main__ before the first cell is evalkit's, whichever module put it there.
    # (_, __ and ___ are the user's history names, as in IPython: listed by %who's rules, deleted by %reset.)
    hooks.reserved_names.update(
        name for name in state.user_namespace() if not name.startswith("__") and name not in INITIAL_UNDERS
    )
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    requests = RequestChannel(
        FrameReader(proto_in), lambda frame: _dispatch_frame(frame, gate), start_daemon, state.writer.flush_held
    )
    gate.has_pending_input = requests.has_pending_input
    state.writer.on_host_request = requests.read_now
    start_parent_watchdog()
    # With checkpoints, this process stays behind as the root and a fork of it runs the cells (time_travel.py).
    is_first = True
    if _wants_checkpoints(config):
        from . import root

        _load_time_travel(requests)
        is_first = root.start_root(requests)
    limits.apply_process_limit(config.get("limits"))  # last: the runner's own threads are not the cell's N
    if is_first:
        _announce_ready()
    idle_memory.release()  # after `ready`: the host's first request waits in the pipe meanwhile
    _serve(requests, gate)


def checkpoints_token():
    from ..lifetime import checkpoints

    return checkpoints.token if checkpoints.is_enabled else None


def _checkpoints_enabled():
    # Not loaded means not enabled: a kernel without checkpoints never imports them (idle memory).
    checkpoints = sys.modules.get(__package__.rpartition(".")[0] + ".lifetime.checkpoints")
    return checkpoints is not None and checkpoints.is_enabled


def _wants_checkpoints(config):
    if not config.get("checkpoints"):
        return False
    from ..lifetime import checkpoints

    return checkpoints.is_supported()


def _announce_ready():
    frame = {
        "type": "ready",
        "pid": os.getpid(),
        "python": "%d.%d.%d" % sys.version_info[:3],
        "implementation": sys.implementation.name,
        "executable": sys.executable,
        "protocol": PROTOCOL_VERSION,
        "cwd": os.getcwd(),
    }
    if _checkpoints_enabled():  # only then: a forked session's runner and a plain one say nothing of them
        frame["checkpoints"] = True
        frame["checkpointToken"] = checkpoints_token()
    state.writer.send(frame)


# The checkpoint requests (core/time_travel.py): their modules load with the first one, or with checkpoints.
TIME_TRAVEL_REQUESTS = ("checkpoint", "restore", "drop", "checkpoint_info")


def _load_time_travel(requests):
    """time_travel and relive, imported on first need (an idle kernel without checkpoints never loads them)."""
    from . import relive
    from . import time_travel

    relive.requests = requests
    relive.announce_ready = _announce_ready
    return time_travel, relive


def _serve(requests, gate):
    executor = Executor()
    while True:
        request = requests.next_request()
        if request is None:
            exit_now(0, graceful=False)
        kind = request.get("type")
        if kind == "exit":
            exit_now(0, graceful=True)
        if kind in TIME_TRAVEL_REQUESTS:
            time_travel, relive = _load_time_travel(requests)
            try:
                time_travel.handle(request)
            except time_travel.BecomeLive as live:  # a checkpoint of ours was restored: we are its new runner
                relive.finish_becoming_live(live)
            continue
        gate.take()
        try:
            _handle_execute(executor, request, requests, gate)
        except KeyboardInterrupt:
            pass  # a stray interrupt between cells is ignored, as promised


def _handle_execute(executor, request, requests, gate):
    global _cell_serial
    cell = CellContext(str(request.get("id")), request.get("allowStdin"), request.get("nonce"))
    _apply_context(request.get("cwd"), request.get("env"))
    stdin_policy.keep_getpass_patched()
    state.begin_cell(cell)
    state.writer.hold_raw(encode_started(cell.cell_id))  # out with the first frame or tick
    state.router.flush()  # output written between cells belongs to this one
    for name in restore_streams():
        sys.stderr.write("evalkit: sys.%s was None or closed after an earlier cell; restored it\n" % name)
    state.router.fd_sync_due = 0.0
    outcome = None
    meter = usage.CellMeter()
    try:
        _cell_serial += 1
        requests.begin_cell(_cell_serial)
        gate.open(cell)
        outcome = executor.run(
            str(request.get("code", "")),
            cell,
            silent=bool(request.get("silent")),
            store_history=request.get("storeHistory", True) is not False,
        )
    except KeyboardInterrupt:
        pass
    finally:
        fork_guard.exit_if_forked_child()
        gate.close()
        if outcome is None:
            status, cancelled, count = "error", True, state.execution_count()
        else:
            status, cancelled, count = outcome.status, outcome.cancelled, outcome.execution_count
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        dropped = gate.take_dropped_hooks()
        if dropped:
            state.router.write("stderr", "evalkit: the interrupt removed this cell's sys.%s hook\n" % " and sys.".join(dropped))
        state.sync_streams()
        used = meter.finish()
        state.writer.send_raw(
            encode_done(cell.cell_id, status, count, cancelled, used["cpuMs"], used["peakRssBytes"], cell.nonce)
        )
        # The request channel learns the cell ended after `done`, like the state: only this thread reads
        # between cells, so the next request waits for this either way.
        requests.end_cell()
        state.end_cell()
        usage.reset_peak()
        # After `done`, so the host is not kept waiting: undo what the cell may have done to fd 1/2, and
        # clear the O_NONBLOCK a child of the cell (node) may have left on them: later children would see
        # EAGAIN on a full pipe and lose output without a word.
        if state.fd_capture is not None:
            state.fd_capture.repair()
        reset_blocking()
        if reaper.reap_adopted():
            usage.forget_children_baseline()


_cell_serial = 0


def _dispatch_frame(frame, gate):
    """Host frames other than execute/exit, from whichever thread is reading; None is EOF."""
    if frame is None:
        exit_now(0, graceful=False)
    kind = frame.get("type", "execute")
    if kind in ("reply", "input_reply"):
        bridge.deliver(frame)
    elif kind == "interrupt":
        gate.interrupt(frame.get("id"), state.current_cell_id())
    elif kind == "is_complete":
        from .completeness import check_complete

        status, indent = check_complete(str(frame.get("code", "")))
        state.writer.send({"type": "is_complete_reply", "id": frame.get("id"), "status": status, "indent": indent})
    elif kind == "complete":
        from .completion import complete_utf16, utf16_length

        code = str(frame.get("code", ""))
        cursor = frame.get("cursor")
        # The host counts UTF-16 code units, as JavaScript strings do (docs/protocol.md).
        end = utf16_length(code)
        cursor = cursor if isinstance(cursor, int) and 0 <= cursor <= end else end
        try:
            start, matches = complete_utf16(code, cursor, state.user_namespace())
        except Exception:
            start, matches = cursor, []
        state.writer.send({"type": "complete_reply", "id": frame.get("id"), "start": start, "matches": matches})
    elif kind == "__invalid__":
        state.writer.send({"type": "protocol_error", "reason": frame.get("reason")})
    else:
        state.writer.send({"type": "protocol_error", "reason": "unknown frame type %r" % (kind,)})


def _apply_context(cwd, env):
    if env:
        for key, value in env.items():
            if value is None:
                os.environ.pop(str(key), None)
            else:
                os.environ[str(key)] = str(value)
    if cwd:
        os.chdir(cwd)


def _make_main_module():
    module = types.ModuleType("__main__")
    module.__dict__.update({"__builtins__": builtins, "In": [""], "Out": {}})
    module.__dict__.update(INITIAL_UNDERS)
    sys.modules["__main__"] = module
    if "" not in sys.path:
        sys.path.insert(0, "")
    return module


def _load_optional_modules():
    import importlib

    for name in OPTIONAL_MODULES:
        full = "evalkit_kernel." + name
        try:
            module = importlib.import_module(full)
        except ImportError as exc:
            if getattr(exc, "name", None) == full:
                continue  # not shipped in this bundle
            sys.stderr.write("evalkit: could not load %s: %r\n" % (full, exc))
            continue
        except Exception as exc:
            sys.stderr.write("evalkit: could not load %s: %r\n" % (full, exc))
            continue
        install = getattr(module, "install", None)
        if install is not None:
            try:
                install()
            except Exception as exc:
                sys.stderr.write("evalkit: %s.install() failed: %r\n" % (full, exc))


def _keep_fatal_errors_visible():
    # fd 2 becomes a capture pipe that dies with us; a segfault report must reach the host's stderr tail.
    global _fatal_stream
    try:
        import faulthandler

        _fatal_stream = os.fdopen(move_high(os.dup(2)), "w")
        faulthandler.enable(_fatal_stream)
    except (ImportError, OSError, ValueError, AttributeError):
        _fatal_stream = None


_fatal_stream = None


def _make_trace():
    real_stderr = move_high(os.dup(2))

    def trace(data):
        text = data[:300].decode("ascii", "replace").rstrip("\n")
        try:
            os.write(real_stderr, ("evalkit-runner >> %s\n" % text).encode("ascii", "replace"))
        except OSError:
            pass

    return trace
