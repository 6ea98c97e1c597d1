"""%pip: the kernel's own `python -m pip`, streamed live; what it installs or upgrades is importable at once."""

import os
import sys

from .registry import line_magic

_EXTENSION_SUFFIXES = (".so", ".pyd", ".dylib")


def installed_distributions():
    """{normalised name: (version, dist)} of everything importlib.metadata sees right now."""
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover (3.8+ has it)
        return {}
    found = {}
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:
            name = None
        if not name:
            continue
        key = name.lower().replace("_", "-").replace(".", "-")
        found.setdefault(key, (dist.version, dist))
    return found


def top_level_modules(dist):
    """The importable top-level names a distribution provides (top_level.txt, else its RECORD)."""
    names = set()
    try:
        text = dist.read_text("top_level.txt")
    except Exception:
        text = None
    if text:
        names.update(line.strip() for line in text.splitlines() if line.strip())
    try:
        files = dist.files or []
    except Exception:
        files = []
    for path in files:
        parts = str(path).replace("\\", "/").split("/")
        head = parts[0]
        if head.endswith((".dist-info", ".egg-info", ".data")) or head in ("..", "__pycache__", "bin", "Scripts"):
            continue
        if len(parts) == 1:
            if head.endswith(".py"):
                names.add(head[:-3])
            elif head.endswith(_EXTENSION_SUFFIXES):
                names.add(head.split(".")[0])
        else:
            names.add(head)
    return sorted(n for n in names if n and n.replace("_", "a").isalnum())


def changed_distributions(before, after):
    """Names whose version is new or different after the install."""
    return sorted(key for key, (version, _) in after.items() if key not in before or before[key][0] != version)


def _has_extension(module_names):
    for name in module_names:
        module = sys.modules.get(name)
        filename = getattr(module, "__file__", None) or ""
        if filename.endswith(_EXTENSION_SUFFIXES) or ".cpython-" in os.path.basename(filename):
            return True
    return False


def evict_modules(top_names):
    """Drop the given top-level modules and their submodules from sys.modules.

    Returns {top: [evicted names]} for those that were imported before.
    """
    evicted = {}
    for top in top_names:
        prefix = top + "."
        names = [name for name in list(sys.modules) if name == top or name.startswith(prefix)]
        if names:
            evicted[top] = names
    return evicted


def refresh_after_install(before, stderr=None):
    """Evict what the install added or upgraded and warn about modules that were already in use."""
    import importlib

    stderr = stderr or sys.stderr
    importlib.invalidate_caches()
    after = installed_distributions()
    changed = changed_distributions(before, after)
    for key in changed:
        tops = top_level_modules(after[key][1])
        evicted = evict_modules(tops)
        for top, names in sorted(evicted.items()):
            if _has_extension(names):
                stderr.write(
                    "warning: %s was already imported and contains compiled extensions that cannot be reloaded; "
                    "restart the kernel to use %s %s\n" % (top, key, after[key][0])
                )
            for name in names:
                sys.modules.pop(name, None)
            if not _has_extension(names):
                stderr.write(
                    "note: %s was already imported; it was unloaded so `import %s` now loads %s %s "
                    "(objects created before still use the old code)\n" % (top, top, key, after[key][0])
                )
    # Packages installed into a site directory that did not exist at start-up need it on sys.path.
    _add_new_site_dirs()
    return changed


def _add_new_site_dirs():
    try:
        import site

        for path in site.getsitepackages() + [site.getusersitepackages()]:
            if os.path.isdir(path) and path not in sys.path:
                site.addsitedir(path)
    except Exception:
        pass


@line_magic("pip", summary="run this kernel's pip (install/uninstall/list...) with live output")
def magic_pip(ctx):
    """%pip ARGS: `python -m pip ARGS` with this kernel's interpreter; new versions import without a restart.

    A non-zero pip exit fails the cell (CalledProcessError).
    """
    import subprocess

    from .registry import split_args
    from .shell import run_streaming

    args = split_args(ctx.args)
    if not args:
        args = ["--help"]
    changes_packages = args[0] in ("install", "uninstall")
    before = installed_distributions() if changes_packages else {}
    removing = {}
    if args[0] == "uninstall":
        for word in args[1:]:
            key = word.lower().replace("_", "-").replace(".", "-")
            if key in before:
                removing[key] = top_level_modules(before[key][1])
    env = dict(os.environ)
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    env["PYTHONUNBUFFERED"] = "1"
    argv = [sys.executable, "-m", "pip"] + args
    code, _ = run_streaming(argv, env=env)
    if changes_packages:
        refresh_after_install(before)
        for tops in removing.values():
            for names in evict_modules(tops).values():
                for name in names:
                    sys.modules.pop(name, None)
    if code != 0:
        raise subprocess.CalledProcessError(code, ["pip"] + args)
    return None
