"""`obj?` / `obj??` / %pinfo / %pinfo2: signature, type, docstring and (for ??) the source, printed as text."""

import inspect

from .registry import UsageError


def _resolve(target, g, l):
    if not target:
        raise UsageError("Object `` not found: write `name?` or %pinfo name")
    try:
        return eval(target, g, l)
    except Exception:
        raise UsageError("Object `%s` not found." % target)


def _signature(value):
    if not callable(value):
        return None
    try:
        return str(inspect.signature(value))
    except (TypeError, ValueError):
        return None


def _short(text, limit=200):
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(target, g, l, detail=1):
    """The help text for `target` evaluated in the given namespaces."""
    value = _resolve(target, g, l)
    lines = []
    sig = _signature(value)
    if sig is not None:
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or target
        lines.append("Signature: %s%s" % (name if inspect.isclass(value) else target.split(".")[-1], sig))
    lines.append("Type:      %s" % type(value).__name__)
    if not (inspect.isroutine(value) or inspect.isclass(value) or inspect.ismodule(value)):
        try:
            lines.append("String form: %s" % _short(repr(value)))
        except Exception:
            pass
        if hasattr(value, "__len__"):
            try:
                lines.append("Length:    %d" % len(value))
            except Exception:
                pass
    try:
        filename = inspect.getsourcefile(value) or inspect.getfile(value)
    except (TypeError, OSError):
        filename = None
    if filename:
        lines.append("File:      %s" % filename)
    source = None
    if detail >= 2:
        try:
            source = inspect.getsource(value)
        except (TypeError, OSError):
            source = None
    if source is not None:
        lines.append("Source:")
        lines.append(source.rstrip("\n"))
    else:
        doc = inspect.getdoc(value)
        own = getattr(value, "__doc__", None)
        if doc and (own or inspect.isclass(value) or callable(value) or inspect.ismodule(value)):
            lines.append("Docstring:")
            lines.append(doc)
        else:
            lines.append("Docstring: <no docstring>")
        if detail >= 2:
            lines.append("Source:    <not available>")
    if inspect.isclass(value):
        init_doc = inspect.getdoc(value.__init__) if "__init__" in vars(value) else None
        if init_doc and init_doc != inspect.getdoc(value):
            lines.append("Init docstring:")
            lines.append(init_doc)
    return "\n".join(lines)


def print_info(target, g, l, detail=1):
    from .registry import page

    page(describe(target, g, l, detail))


def search(pattern, g, l, ignore_case=False):
    """Sorted names matching a wildcard pattern, as %psearch: `*int*`, `np.*sum*` (attributes of np)."""
    import builtins
    import fnmatch

    owner, _, leaf = pattern.rpartition(".")
    if owner:
        names = dir(_resolve(owner, g, l))
        prefix = owner + "."
    else:
        names = set(l) | set(g) | set(dir(builtins))
        prefix = ""
    matcher = fnmatch.fnmatch if ignore_case else fnmatch.fnmatchcase
    show_private = leaf.startswith("_")
    return sorted(prefix + name for name in names
                  if matcher(name, leaf) and (show_private or not name.startswith("_")))
