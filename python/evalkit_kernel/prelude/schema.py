"""Turning a model's text answer into data for `schema=`: JSON parsing (code fences tolerated) and a small schema check."""

_MAX_SHOWN = 4000
_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


class AnswerError(ValueError):
    """The host's answer is not JSON or does not match the schema; `text` holds the full answer."""

    def __init__(self, message, text):
        ValueError.__init__(self, message)
        self.text = text


def check_schema_argument(helper, schema):
    if schema is None:
        return
    if not isinstance(schema, dict):
        raise TypeError(
            "%s schema must be a JSON Schema dict such as {'type': 'object', 'properties': {...}} (got %s)"
            % (helper, type(schema).__name__)
        )
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    for item in kinds:
        if item is not None and item not in _JSON_TYPES:
            raise ValueError("%s schema type %r is not a JSON Schema type (one of %s)" % (helper, item, ", ".join(_JSON_TYPES)))


def parse_answer(helper, text, schema):
    """Parse `text` as JSON and check it against `schema`; AnswerError (a ValueError) quotes the text."""
    import json

    body = _strip_fence(text.strip())
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise AnswerError("%s was given a schema but the answer is not JSON (%s). The answer was:\n%s"
                          % (helper, exc, _clip(text)), text) from None
    check_data(helper, data, schema, text)
    return data


def check_data(helper, data, schema, text=None):
    problem = _mismatch(data, schema, "$")
    if problem is not None:
        shown = text if text is not None else repr(data)
        raise AnswerError("%s answer does not match the schema: %s. The answer was:\n%s"
                          % (helper, problem, _clip(shown)), shown)
    return data


def _strip_fence(body):
    # Models often wrap JSON in ```json ... ``` even when asked not to.
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        inner = body[3:-3]
        newline = inner.find("\n")
        if newline >= 0 and inner[:newline].strip().isalnum():
            inner = inner[newline + 1:]
        elif newline >= 0 and not inner[:newline].strip():
            inner = inner[newline + 1:]
        return inner.strip()
    return body


def _mismatch(value, schema, path):
    """The first way `value` breaks `schema` (type, enum, const, required, properties, items), or None."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema and value != schema["const"]:
        return "%s: expected %r, got %r" % (path, schema["const"], value)
    if "enum" in schema and isinstance(schema["enum"], list) and value not in schema["enum"]:
        return "%s: %r is not one of %r" % (path, value, schema["enum"])
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is_type(value, item) for item in kinds):
            return "%s: expected %s, got %s" % (path, " or ".join(str(k) for k in kinds), _type_of(value))
    if isinstance(value, dict):
        for key in schema.get("required") or ():
            if key not in value:
                return "%s: missing required property %r" % (path, key)
        properties = schema.get("properties") or {}
        for key, sub in properties.items():
            if key in value:
                problem = _mismatch(value[key], sub, "%s.%s" % (path, key))
                if problem is not None:
                    return problem
        if schema.get("additionalProperties") is False:
            extra = sorted(key for key in value if key not in properties)
            if extra:
                return "%s: unexpected properties %s" % (path, ", ".join(repr(k) for k in extra))
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problem = _mismatch(item, schema["items"], "%s[%d]" % (path, index))
            if problem is not None:
                return problem
    return None


def _is_type(value, kind):
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return True  # unknown types are the host's business


def _type_of(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return type(value).__name__


def _clip(text):
    if len(text) <= _MAX_SHOWN:
        return text
    return text[:_MAX_SHOWN] + "\n... (%d more characters; the full answer is in the exception's .text)" % (
        len(text) - _MAX_SHOWN
    )
