"""Answers complete requests for the REPL's Tab: names, attributes, dict keys, file paths, magics and module names
after `import` / `from`, from the live namespace. Nothing is evaluated but name lookups (no calls, no properties of
unknown objects' results), so completing never runs user code beyond attribute access, and it stays fast on large
namespaces. Module names come from the import path's directories: no module is imported to complete one."""

import builtins
import keyword
import os
import re

from . import hooks

MAX_MATCHES = 500

_NAME_CHAIN = re.compile(r"([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
_NAME = re.compile(r"[A-Za-z_]\w*$")
_DICT_KEY = re.compile(r"([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\[\s*(['\"])([^'\"]*)$")
_STRING = re.compile(r"(['\"])([^'\"]*)$")
_MAGIC = re.compile(r"^\s*(%%?)(\w*)$")
# `import a, b.c` and `from a.b` (cursor in a module name); `from a.b import x, y` (cursor in a name of a.b).
_IMPORT_MODULE = re.compile(r"^\s*(?:import\s+(?:[\w.]+\s*(?:\s+as\s+\w+\s*)?,\s*)*|from\s+)([\w.]*)$")
_FROM_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(?:\(?\s*(?:\w+\s*(?:\s+as\s+\w+\s*)?,\s*)*)(\w*)$")


def complete(code, cursor, namespace):
    """(start, matches): replace code[start:cursor] with one of matches."""
    text = code[:cursor]
    line = text.rsplit("\n", 1)[-1]
    line_start = len(text) - len(line)
    for finder in (_magics, _imports, _from_imports, _dict_keys, _paths, _attributes, _names):
        found = finder(line, namespace)
        if found is not None:
            start, matches = found
            return line_start + start, sorted(set(matches))[:MAX_MATCHES]
    return cursor, []


def complete_utf16(code, cursor, namespace):
    """complete() with `cursor` and the returned start counted in UTF-16 code units, as the host counts them
    (JavaScript strings): after a character outside the BMP they differ from Python's indexes."""
    index = _index_of_utf16(code, cursor)
    start, matches = complete(code, index, namespace)
    return start + _astral_count(code[:start]), matches


def _index_of_utf16(text, units):
    if _astral_count(text) == 0:
        return min(units, len(text))
    counted = 0
    for index, char in enumerate(text):
        if counted >= units:
            return index
        counted += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def utf16_length(text):
    """len() of `text` as a JavaScript string."""
    return len(text) + _astral_count(text)


def _astral_count(text):
    """Characters of `text` outside the BMP (each two UTF-16 code units); one C-speed scan when there are none."""
    if max(text, default="\0") < "\U00010000":
        return 0
    return sum(1 for char in text if ord(char) > 0xFFFF)


def _magics(line, namespace):
    match = _MAGIC.match(line)
    if not match:
        return None
    prefix, word = match.group(1), match.group(2)
    names = hooks.magic_names(prefix == "%%")
    return match.start(1), [prefix + name for name in names if name.startswith(word)]


def _module_names(package):
    """Top-level module names (package "") or the submodules of `package`, found on disk, never imported."""
    import pkgutil
    import sys

    if not package:
        names = set(sys.builtin_module_names)
        names.update(name for name in sys.modules if "." not in name)
        names.update(info[1] for info in pkgutil.iter_modules())
        return names
    loaded = sys.modules.get(package)
    locations = getattr(loaded, "__path__", None)
    if locations is None:
        locations = _package_path(package.split("."))
    # Direct children only: a loaded grandchild (xml.dom.expatbuilder) is not a name after "import xml.".
    prefix = package + "."
    names = set(name[len(prefix) :] for name in sys.modules if name.startswith(prefix))
    names.update(info[1] for info in pkgutil.iter_modules(list(locations or [])))
    return set(name for name in names if "." not in name)


def _package_path(parts):
    """Where a dotted package's modules are, walked with PathFinder: finding a spec this way runs no package code."""
    from importlib.machinery import PathFinder

    locations = None
    for depth in range(len(parts)):
        try:
            spec = PathFinder.find_spec(".".join(parts[: depth + 1]), locations)
        except Exception:
            return None
        if spec is None or spec.submodule_search_locations is None:
            return None
        locations = list(spec.submodule_search_locations)
    return locations


def _imports(line, namespace):
    match = _IMPORT_MODULE.match(line)
    if not match:
        return None
    typed = match.group(1)
    package, _, partial = typed.rpartition(".")
    try:
        names = _module_names(package)
    except Exception:
        return match.end(1), []
    visible = [name for name in names if name.startswith(partial) and (partial.startswith("_") or not name.startswith("_"))]
    return match.end(1) - len(partial), visible


def _from_imports(line, namespace):
    match = _FROM_IMPORT.match(line)
    if not match:
        return None
    import sys

    package, typed = match.group(1), match.group(2)
    try:
        names = _module_names(package)
    except Exception:
        names = set()
    # The names a module defines only when it is already imported: importing it to look would run its code.
    loaded = sys.modules.get(package)
    if loaded is not None:
        try:
            names.update(dir(loaded))
        except Exception:
            pass
    visible = [name for name in names if name.startswith(typed) and (typed.startswith("_") or not name.startswith("_"))]
    return match.start(2), visible


def _lookup(chain, namespace):
    parts = chain.split(".")
    if parts[0] in namespace:
        obj = namespace[parts[0]]
    elif hasattr(builtins, parts[0]):
        obj = getattr(builtins, parts[0])
    else:
        raise LookupError(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


def _dict_keys(line, namespace):
    match = _DICT_KEY.search(line)
    if not match:
        return None
    try:
        obj = _lookup(match.group(1), namespace)
    except Exception:
        return None
    if not isinstance(obj, dict):
        return None
    quote, typed = match.group(2), match.group(3)
    keys = [key for key in obj if isinstance(key, str) and key.startswith(typed)]
    return match.start(3), [key + quote + "]" for key in keys]


def _paths(line, namespace):
    match = _STRING.search(line)
    # An odd number of quotes before the cursor: the cursor is inside a string literal.
    if not match or line[: match.start()].count(match.group(1)) % 2 == 1:
        return None
    typed = match.group(2)
    directory, partial = os.path.split(typed)
    try:
        entries = os.listdir(os.path.expanduser(directory) or ".")
    except OSError:
        return match.start(2), []
    matches = []
    for entry in entries:
        if not entry.startswith(partial) or (entry.startswith(".") and not partial.startswith(".")):
            continue
        full = os.path.join(directory, entry)
        if os.path.isdir(os.path.expanduser(full) or "."):
            full += os.sep
        matches.append(full)
    return match.start(2), matches


def _attributes(line, namespace):
    match = _NAME_CHAIN.search(line)
    if not match:
        return None
    try:
        obj = _lookup(match.group(1), namespace)
        names = dir(obj)
    except Exception:
        return match.start(2), []
    typed = match.group(2)
    # Private names only when asked for, as IPython does.
    visible = [name for name in names if name.startswith(typed) and (typed.startswith("_") or not name.startswith("_"))]
    return match.start(2), visible


def _names(line, namespace):
    match = _NAME.search(line)
    if not match:
        return None
    typed = match.group(0)
    candidates = [name for name in namespace if name.startswith(typed)]
    candidates.extend(name for name in dir(builtins) if name.startswith(typed))
    candidates.extend(word for word in keyword.kwlist if word.startswith(typed))
    if not typed.startswith("_"):
        candidates = [name for name in candidates if not name.startswith("_")]
    return match.start(), candidates
