"""tool, completion() and agent(): calls from a cell into the embedding program over the kernel's bridge."""

import time

from ..core import bridge
from ..core import state
from .parallel import owner_cell
from .schema import check_data, check_schema_argument, parse_answer


class BridgeError(bridge.HostError):
    """A host handler failed or is not registered; the message carries the host's message."""

    def __init__(self, helper, message, name="Error"):
        shown = message if name in ("Error", "EvalkitError", "HostError") else "%s: %s" % (name, message)
        bridge.HostError.__init__(self, "%s failed on the host: %s" % (helper, shown), name)
        self.helper = helper
        self.host_message = message


def call_host(helper, method, params, status_fields=None):
    """One bridge call with start/done status events; host failures become BridgeError."""
    owner = owner_cell()
    if owner is not None and owner != state.current_cell_id():
        raise RuntimeError("%s was called by a parallel() worker after its cell ended; nothing was sent" % helper)
    fields = status_fields or {}
    started = time.time()
    state.emit_status(method, state="start", **fields)
    try:
        value = bridge.call(method, params)
    except bridge.HostError as exc:
        _emit_for(owner, method, state="error", durationMs=_ms(started), error=str(exc)[:300], **fields)
        raise BridgeError(helper, str(exc), exc.name) from None
    except BaseException as exc:
        _emit_for(owner, method, state="error", durationMs=_ms(started), error=type(exc).__name__, **fields)
        raise
    _emit_for(owner, method, state="done", durationMs=_ms(started), **fields)
    return value


def _emit_for(owner, op, **fields):
    # A worker of an interrupted cell may get its reply while a later cell runs: its events are not that cell's.
    if owner is None or owner == state.current_cell_id():
        state.emit_status(op, **fields)


def completion(prompt, *, model=None, system=None, schema=None):
    """Ask the host's model once; the text, or parsed JSON checked against `schema` when one is given."""
    _check_text("completion()", "prompt", prompt)
    _check_optional_text("completion()", "model", model)
    _check_optional_text("completion()", "system", system)
    check_schema_argument("completion()", schema)
    params = _params(prompt=prompt, model=model, system=system, schema=schema)
    value = call_host("completion()", "completion", params, _fields(model=model, chars=len(prompt)))
    if schema is not None and isinstance(value, (dict, list)):
        return check_data("completion()", value, schema)
    text = _answer_text("completion()", value)
    if schema is not None:
        return parse_answer("completion()", text, schema)
    return text


def agent(prompt, *, agent=None, model=None, label=None, schema=None, handle=False):
    """Run one sub-agent on the host; its final text, parsed data with `schema`, or a handle dict."""
    helper = "agent()"
    _check_text(helper, "prompt", prompt)
    _check_optional_text(helper, "agent", agent)
    _check_optional_text(helper, "model", model)
    _check_optional_text(helper, "label", label)
    check_schema_argument(helper, schema)
    if not isinstance(handle, bool):
        raise TypeError("agent() handle must be True or False (got %s)" % type(handle).__name__)
    params = _params(prompt=prompt, agent=agent, model=model, label=label, schema=schema)
    if handle:
        params["handle"] = True
    value = call_host(helper, "agent", params, _fields(agent=agent, label=label, chars=len(prompt)))
    reply = value if isinstance(value, dict) else {}
    text = _answer_text(helper, value)
    if schema is not None:
        data = check_data(helper, reply["data"], schema, text) if "data" in reply else parse_answer(helper, text, schema)
    if not handle:
        return data if schema is not None else text
    node = {
        "text": text,
        "output": reply.get("output", text),
        "handle": reply.get("handle"),
        "id": reply.get("id"),
        "agent": reply.get("agent", agent),
    }
    if schema is not None:
        node["data"] = data
    return node


def _answer_text(helper, value):
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("text", "output"):
            if isinstance(value.get(key), str):
                return value[key]
    raise BridgeError(
        helper,
        "the handler returned %s; it must return a string or an object with a string `text`"
        % ("nothing" if value is None else "a " + type(value).__name__),
        "BadReply",
    )


def _check_text(helper, field, value):
    if not isinstance(value, str):
        raise TypeError("%s %s must be a str (got %s)" % (helper, field, type(value).__name__))
    if not value.strip():
        raise ValueError("%s %s is empty" % (helper, field))


def _check_optional_text(helper, field, value):
    if value is not None and not isinstance(value, str):
        raise TypeError("%s %s must be a str or None (got %s)" % (helper, field, type(value).__name__))


def _params(**fields):
    return dict((key, value) for key, value in fields.items() if value is not None)


def _fields(**fields):
    return dict((key, value) for key, value in fields.items() if value is not None)


def _ms(started):
    return int((time.time() - started) * 1000)
