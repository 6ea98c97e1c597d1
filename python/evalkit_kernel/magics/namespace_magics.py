"""Line magics about the user's names: %who %who_ls %whos %reset %reset_selective."""

import types

from .registry import UsageError, line_magic, user_namespace

# IPython hides these too: they are the session's, not the user's.
_HIDDEN = frozenset(["In", "Out", "exit", "quit", "get_ipython"])


def _reserved():
    try:
        from ..core import hooks

        return hooks.reserved_names
    except Exception:
        return set()


def _is_evalkit_binding(name, value, reserved):
    try:
        from ..core import hooks
    except Exception:
        return name in reserved
    if reserved is hooks.reserved_names:
        return hooks.is_evalkit_binding(name, value)
    return name in reserved


def is_evalkit_object(value):
    """Functions, classes and modules that come from evalkit itself (prelude helpers, display, ...)."""
    if isinstance(value, types.ModuleType):
        name = getattr(value, "__name__", "") or ""
    elif isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        name = getattr(value, "__module__", "") or ""
    else:
        return False
    return name == "evalkit_kernel" or name.startswith("evalkit_kernel.")


def is_user_name(name, value, reserved=None):
    """True for names the user made: not private, not evalkit's, not the session's history."""
    if name.startswith("_") or name in _HIDDEN:
        return False
    if _is_evalkit_binding(name, value, reserved if reserved is not None else _reserved()):
        return False
    return not is_evalkit_object(value)


def user_names(ns, type_names=()):
    reserved = _reserved()
    names = []
    for name, value in list(ns.items()):
        if not is_user_name(name, value, reserved):
            continue
        if type_names and type(value).__name__ not in type_names:
            continue
        names.append(name)
    return sorted(names)


@line_magic("who_ls", summary="sorted list of your variable names")
def magic_who_ls(ctx):
    """%who_ls [TYPE...]: your names as a sorted list, optionally only values of the given type names."""
    return user_names(user_namespace(), tuple(ctx.args.split()))


@line_magic("who", summary="print your variable names")
def magic_who(ctx):
    """%who [TYPE...]: print your names (never evalkit's), optionally filtered by type name (int, str, ...)."""
    names = user_names(user_namespace(), tuple(ctx.args.split()))
    if not names:
        print("Interactive namespace is empty." if not ctx.args.split() else "No variables match your requested type.")
        return None
    # IPython's layout, byte for byte: each name and a tab, then a space; a line break after every 9 names.
    out = []
    for count, name in enumerate(names, 1):
        out.append(name + "\t ")
        if count % 9 == 0:
            out.append("\n")
    print("".join(out))


def _describe(value, type_name):
    # IPython's Data/Info column: len() of dicts, lists and tuples, a summary of numpy arrays, the shape of
    # DataFrames and Series (since IPython 9.4), else str() with its middle cut past 50 characters.
    if type_name in ("dict", "list", "tuple"):
        return "n=%d" % len(value)
    if type_name == "ndarray" and type(value).__module__ == "numpy":
        shape = str(value.shape).replace(",", "").replace(" ", "x")[1:-1]
        size = value.size * value.itemsize
        text = "%s: %s elems, type `%s`, %s bytes" % (shape, value.size, value.dtype, size)
        if size >= 100000:
            text += " (%s kb)" % (size / 1024.0,) if size < 1048576 else " (%s Mb)" % (size / 1048576.0,)
        return text
    if type_name in ("DataFrame", "Series") and _shapes_frames():
        return "Shape: %s" % (getattr(value, "shape", "?"),)
    try:
        text = str(value).replace("\n", "\\n")
    except Exception:
        text = "<object with id %d (str() failed)>" % id(value)
    return text if len(text) < 50 else text[:25] + "<...>" + text[-25:]


def _shapes_frames():
    from ..core import ipython_version

    return ipython_version.at_least(9, 4)


@line_magic("whos", summary="table of your variables with type and value")
def magic_whos(ctx):
    """%whos [TYPE...]: a table of your names with their type and a short value."""
    ns = user_namespace()
    names = user_names(ns, tuple(ctx.args.split()))
    if not names:
        print("Interactive namespace is empty." if not ctx.args.split() else "No variables match your requested type.")
        return None
    types_ = [type(ns[name]).__name__ for name in names]
    name_w = max(len("Variable"), max(len(n) for n in names)) + 3
    type_w = max(len("Type"), max(len(t) for t in types_)) + 3
    lines = ["Variable".ljust(name_w) + "Type".ljust(type_w) + " Data/Info",
             "-" * (name_w + type_w + len("Data/Info") + 1)]
    for name, type_name in zip(names, types_):
        lines.append(name.ljust(name_w) + type_name.ljust(type_w) + " " + _describe(ns[name], type_name))
    print("\n".join(lines))


def _keep_on_reset(name, value, reserved):
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        return True  # __name__, __builtins__, __doc__ ...
    return name in _HIDDEN or name in reserved or is_evalkit_object(value)


def reset_namespace(ns, predicate=None):
    """Delete the user's names (all of them, or those predicate(name) accepts); returns how many went."""
    reserved = _reserved()
    doomed = [
        name
        for name, value in list(ns.items())
        if not _keep_on_reset(name, value, reserved) and (predicate is None or predicate(name))
    ]
    for name in doomed:
        ns.pop(name, None)
    return len(doomed)


def _reinstall(ns):
    try:
        from ..core import hooks

        hooks.install_namespace(ns)
    except Exception as exc:
        import sys

        sys.stderr.write("evalkit: re-installing helpers after %%reset failed: %r\n" % (exc,))


@line_magic("reset", summary="delete your variables (keeps evalkit's helpers); -f accepted")
def magic_reset(ctx):
    """%reset [-f]: delete every name you defined and the output history; evalkit's helpers stay.

    There is no confirmation prompt (cells have no interactive stdin), so `-f` is implied.
    """
    words = ctx.args.split()
    unknown = [w for w in words if w not in ("-f", "-s", "--aggressive")]
    if unknown:
        raise UsageError("%%reset: unsupported argument(s): %s (use %%reset or %%reset -f)" % " ".join(unknown))
    ns = user_namespace()
    reset_namespace(ns)
    out = ns.get("Out")
    if isinstance(out, dict):
        out.clear()  # the output history keeps objects alive; IPython's %reset drops it too
    _reinstall(ns)


@line_magic("reset_selective", expand_args=False, summary="delete your variables whose names match a regex")
def magic_reset_selective(ctx):
    """%reset_selective [-f] REGEX: delete your names matching REGEX (re.search)."""
    import re

    words = [w for w in ctx.args.split() if w != "-f"]
    if len(words) != 1:
        raise UsageError("usage: %reset_selective [-f] REGEX")
    pattern = re.compile(words[0])
    reset_namespace(user_namespace(), lambda name: pattern.search(name) is not None)


@line_magic("xdel", expand_args=False, summary="delete a variable and the references IPython's history keeps")
def magic_xdel(ctx):
    """%xdel NAME: delete NAME and every reference the output history (Out, _, _N) holds to its value."""
    name = ctx.args.strip()
    ns = user_namespace()
    if not name.isidentifier() or name not in ns:
        raise NameError("name '%s' is not defined" % name)
    value = ns.pop(name)
    out = ns.get("Out")
    if isinstance(out, dict):
        for key in [k for k, v in out.items() if v is value]:
            del out[key]
    history = [k for k, v in ns.items() if v is value and (k in ("_", "__", "___") or (k[:1] == "_" and k[1:].isdigit()))]
    for key in history:
        del ns[key]
