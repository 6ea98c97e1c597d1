"""%%capture's result object (IPython's CapturedIO) and the sink that collects a cell body's outputs."""

import sys


def _state():
    from ..core import state

    return state


class RichOutput(object):
    """One captured display/result/clear_output frame; `.display()` shows it again."""

    def __init__(self, frame):
        self.type = frame.get("type", "display")
        self.data = frame.get("bundle") or {}
        self.metadata = frame.get("metadata") or {}
        self.display_id = frame.get("displayId")
        self.update = bool(frame.get("update"))
        self.wait = bool(frame.get("wait"))

    def display(self):
        st = _state()
        if self.type == "clear_output":
            st.emit_clear_output(self.wait)
        elif self.data:
            st.emit_display(self.data, self.metadata or None, display_id=self.display_id, update=self.update)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.data, self.metadata

    def __repr__(self):
        return "<RichOutput %s %s>" % (self.type, ", ".join(sorted(self.data)))


class CapturedIO(object):
    """What `%%capture name` stores: `.stdout`, `.stderr`, `.outputs`, `.show()` (also `name()`)."""

    def __init__(self):
        self._stdout = []
        self._stderr = []
        self.outputs = []

    @property
    def stdout(self):
        return "".join(self._stdout)

    @property
    def stderr(self):
        return "".join(self._stderr)

    def show(self):
        """Write the captured streams and re-display the captured outputs, in that order."""
        if self._stdout:
            sys.stdout.write(self.stdout)
            sys.stdout.flush()
        if self._stderr:
            sys.stderr.write(self.stderr)
            sys.stderr.flush()
        for output in self.outputs:
            output.display()

    __call__ = show


# Printed as IPython's own class (`<IPython.utils.capture.CapturedIO at 0x...>`), as notebooks store it.
CapturedIO.__module__ = "IPython.utils.capture"


class CaptureSink(object):
    """Receives the running cell's streams and frames while pushed with state.push_capture."""

    def __init__(self, captured, stdout=True, stderr=True, display=True):
        self.captured = captured
        self._keep = {"stdout": stdout, "stderr": stderr, "display": display}

    def on_stream(self, name, text):
        if self._keep.get(name, True):
            (self.captured._stdout if name == "stdout" else self.captured._stderr).append(text)
        else:
            self._pass_stream(name, text)

    def on_output(self, frame):
        if self._keep["display"]:
            self.captured.outputs.append(RichOutput(frame))
        else:
            self._pass_output(frame)

    def _outer(self):
        router = _state().router
        sinks = router.sinks
        index = sinks.index(self) if self in sinks else len(sinks)
        return router, sinks, index

    def _pass_stream(self, name, text):
        # Called under the router's (re-entrant) lock: stepping aside for one write is safe.
        router, sinks, index = self._outer()
        if index > 0:
            sinks[index - 1].on_stream(name, text)
            return
        if self in sinks:
            sinks.remove(self)
            try:
                router.write(name, text)
            finally:
                sinks.insert(index, self)
        else:
            router.write(name, text)

    def _pass_output(self, frame):
        router, sinks, index = self._outer()
        if index > 0:
            sinks[index - 1].on_output(frame)
        else:
            _state().writer.send(_state().with_nonce(frame))


def capture_result(captured, value):
    """Record a body's trailing expression value as a `result` output of the capture."""
    if value is None:
        return
    from ..core import hooks

    formatted = hooks.format_result(value)
    if formatted is None:
        return
    bundle, metadata = formatted
    frame = {"type": "result", "bundle": bundle}
    if metadata:
        frame["metadata"] = metadata
    captured.outputs.append(RichOutput(frame))
