"""Shell escapes (`!cmd`, `x = !cmd`): live-streamed child processes in their own process group."""

import os
import re
import sys

from .interpolate import expand

INTERRUPT_GRACE = 0.5  # seconds between SIGINT to the child's group and SIGKILL
EXIT_DRAIN = 0.3  # seconds to keep reading after the child exits (background jobs may hold the pipes)


class SList(list):
    """Lines of a command's output (IPython's SList): `.n`, `.s`, `.l`, `.grep()`, `.fields()`, `.returncode`."""

    returncode = None

    @property
    def l(self):  # noqa: E743
        return list(self)

    @property
    def n(self):
        return "\n".join(self)

    @property
    def s(self):
        return " ".join(self)

    @property
    def p(self):
        return [os.path.abspath(x) for x in self if os.path.exists(x)]

    def get_list(self):
        return self.l

    def get_nlstr(self):
        return self.n

    def get_spstr(self):
        return self.s

    def _derive(self, items):
        out = SList(items)
        out.returncode = self.returncode
        return out

    def grep(self, pattern, prune=False, field=None):
        """Lines matching a regex (or a predicate); `prune=True` keeps the others; `field` tests one field."""
        if callable(pattern):
            test = pattern
        else:
            regex = re.compile(pattern, re.I) if isinstance(pattern, str) else pattern
            test = lambda text: regex.search(text) is not None  # noqa: E731

        def target(line):
            if field is None:
                return line
            parts = line.split()
            return parts[field] if -len(parts) <= field < len(parts) else ""

        return self._derive(line for line in self if bool(test(target(line))) != bool(prune))

    def fields(self, *idx):
        """Whitespace-split fields of every line; with indexes, those fields joined by spaces."""
        if not idx:
            return [line.split() for line in self]
        out = []
        for line in self:
            parts = line.split()
            picked = [parts[i] for i in idx if -len(parts) <= i < len(parts)]
            out.append(" ".join(picked))
        return self._derive(out)

    def __repr__(self):
        return list.__repr__(self)


def shell_argv(command):
    if os.name == "nt":
        return command  # run through cmd.exe with shell=True
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    return [shell, "-c", command]


def _state():
    try:
        from ..core import state

        if state.writer is not None:
            return state
    except Exception:
        pass
    return None


def run_streaming(argv, capture_stdout=False, env=None, cwd=None, stdout=None, stderr=None):
    """Run a child, writing its output to sys.stdout/sys.stderr as it arrives; returns (returncode, stdout).

    The child gets /dev/null as stdin and its own session (process group); an interrupt sends SIGINT
    to the whole group, then SIGKILL after a short grace, and re-raises KeyboardInterrupt.
    """
    import subprocess

    try:
        import queue
    except ImportError:  # pragma: no cover
        import Queue as queue

    kwargs = {}
    if os.name == "nt":
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        kwargs["shell"] = isinstance(argv, str)
    else:
        kwargs["start_new_session"] = True
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        bufsize=0,
        **kwargs
    )
    st = _state()
    group = proc.pid if os.name != "nt" else None
    # Everything after Popen is guarded: an interrupt that lands while the reader threads start (slow on a
    # loaded machine) must still stop the child's group, or it outlives the cell.
    try:
        if st is not None and group is not None:
            st.register_child_group(group)
        return _pump(proc, queue, capture_stdout, stdout, stderr)
    except KeyboardInterrupt:
        _stop_group(proc, group)
        # A fresh exception: the one caught here carries queue/threading frames the user never wrote.
        raise KeyboardInterrupt() from None
    except BaseException:
        _stop_group(proc, group)
        raise
    finally:
        if st is not None and group is not None:
            st.unregister_child_group(group)


def _pump(proc, queue, capture_stdout, stdout, stderr):
    """Stream the child's stdout/stderr until both close (or it exits leaving a background job)."""
    import codecs
    import subprocess
    import threading

    chunks = queue.Queue()

    def pump(name, pipe):
        try:
            while True:
                data = os.read(pipe.fileno(), 65536)
                if not data:
                    break
                chunks.put((name, data))
        except (OSError, ValueError):
            pass
        try:
            pipe.close()  # only here: closing under a blocked reader could hand its fd number to someone else
        except Exception:
            pass
        chunks.put((name, None))

    readers = [
        threading.Thread(target=pump, args=("stdout", proc.stdout), name="evalkit-shell-out"),
        threading.Thread(target=pump, args=("stderr", proc.stderr), name="evalkit-shell-err"),
    ]
    for reader in readers:
        reader.daemon = True
        reader.start()
    decoders = {
        "stdout": codecs.getincrementaldecoder("utf-8")("replace"),
        "stderr": codecs.getincrementaldecoder("utf-8")("replace"),
    }
    captured = []

    def deliver(name, data):
        final = data is None
        text = decoders[name].decode(b"" if final else data, final)
        if not text:
            return
        if name == "stdout" and capture_stdout:
            captured.append(text)
        else:
            stream = (stdout or sys.stdout) if name == "stdout" else (stderr or sys.stderr)
            stream.write(text)
            try:
                stream.flush()
            except Exception:
                pass

    import time

    open_streams = 2
    exited_at = None
    try:
        while open_streams:
            try:
                name, data = chunks.get(timeout=0.05)
            except queue.Empty:
                if exited_at is None and proc.poll() is not None:
                    exited_at = time.time()
                if exited_at is not None and time.time() - exited_at > EXIT_DRAIN:
                    break  # a background job still holds the pipes; do not wait for it
                continue
            deliver(name, data)
            if data is None:
                open_streams -= 1
        while True:
            try:
                proc.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                continue
    finally:
        for name in decoders:
            deliver(name, None)
    return proc.returncode, "".join(captured)


def _stop_group(proc, group):
    import signal
    import subprocess

    if group is None:
        proc.kill()
        return
    try:
        os.killpg(group, signal.SIGINT)
    except OSError:
        pass
    try:
        proc.wait(timeout=INTERRUPT_GRACE)
    except subprocess.TimeoutExpired:
        pass
    except KeyboardInterrupt:
        pass
    try:
        os.killpg(group, signal.SIGKILL)  # the rest of the group, even when the leader already left
    except OSError:
        pass
    try:
        proc.wait(timeout=2)
    except Exception:
        pass


class ShellRuntime(object):
    """`__evalkit_shell__`: what `!cmd`, `x = !cmd` and `!!cmd` turn into."""

    def system(self, command):
        """Run a command with live output; sets `_exit_code` in the caller's globals; returns None."""
        frame = sys._getframe(1)
        command = expand(command, frame.f_globals, frame.f_locals)
        code, _ = run_streaming(shell_argv(command))
        frame.f_globals["_exit_code"] = code
        return None

    def getoutput(self, command):
        """Run a command and return its stdout as an SList (stderr still streams live)."""
        frame = sys._getframe(1)
        command = expand(command, frame.f_globals, frame.f_locals)
        code, out = run_streaming(shell_argv(command), capture_stdout=True)
        frame.f_globals["_exit_code"] = code
        result = SList(out.splitlines())
        result.returncode = code
        return result
