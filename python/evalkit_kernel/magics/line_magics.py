"""Line magics about the filesystem, the environment and other files: %cd %pwd %ls %env %set_env %load %run."""

import os
import sys

from . import inspect_magics, namespace_magics, notebook_magics, profile_magics  # noqa: F401  (more line magics register themselves)
from .runtime import UsageError, line_magic, run_python
from .shell import run_streaming, shell_argv

_previous_dirs = []


def split_args(text):
    """Shell-like words, `# comments` dropped; falls back to whitespace splitting on unbalanced quotes."""
    import shlex

    try:
        return shlex.split(text, comments=True, posix=os.name != "nt")
    except ValueError:
        return text.split()


def _emit_status(op, **fields):
    try:
        from .. import state

        if state.writer is not None and state.current_cell_id() is not None:
            state.emit_status(op, **fields)
    except Exception:
        pass


@line_magic("cd", summary="change the working directory (~, -, no argument = home); persists across cells")
def magic_cd(ctx):
    """%cd [-q] [DIR]: change directory; `%cd` goes home, `%cd -` back to the previous directory."""
    words = split_args(ctx.args)
    quiet = "-q" in words
    words = [w for w in words if w != "-q"]
    target = " ".join(words) if words else "~"  # an unquoted path with spaces still works
    if target == "-":
        if not _previous_dirs:
            raise UsageError("%cd -: there is no previous directory")
        target = _previous_dirs[-1]
    path = os.path.abspath(os.path.expanduser(target))
    if not os.path.isdir(path):
        raise UsageError("%%cd: no such directory: %s" % path)
    before = os.getcwd()
    os.chdir(path)
    _previous_dirs.append(before)
    del _previous_dirs[:-20]
    if not quiet:
        print(path)
    _emit_status("cd", path=path)


@line_magic("pwd", summary="return the working directory")
def magic_pwd(ctx):
    """%pwd: the current working directory (a string)."""
    return os.getcwd()


@line_magic("env", summary="list, read or set environment variables")
def magic_env(ctx):
    """%env (all, a dict) | %env KEY (its value) | %env KEY=VALUE or %env KEY VALUE (set it)."""
    args = ctx.args.strip()
    if not args:
        return dict(os.environ)
    if "=" in args.split(None, 1)[0]:
        key, value = args.split("=", 1)
        return _set_env(key.strip(), value.strip())
    parts = args.split(None, 1)
    if len(parts) == 2:
        return _set_env(parts[0], parts[1].strip())
    if args not in os.environ:
        raise UsageError("Environment does not have key: %s" % args)
    return os.environ[args]


@line_magic("set_env", summary="set an environment variable: %set_env KEY VALUE")
def magic_set_env(ctx):
    """%set_env KEY VALUE (or KEY=VALUE): set os.environ[KEY]."""
    args = ctx.args.strip()
    first = args.split(None, 1)[0] if args else ""
    if "=" in first:
        key, value = args.split("=", 1)
    else:
        parts = args.split(None, 1)
        if len(parts) != 2:
            raise UsageError("usage: %set_env KEY VALUE")
        key, value = parts
    return _set_env(key.strip(), value.strip())


def _set_env(key, value):
    if not key:
        raise UsageError("usage: %env KEY=VALUE")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    os.environ[key] = value
    print("env: %s=%s" % (key, value))


def _read_source(path):
    import io

    path = os.path.expanduser(path)
    if not os.path.exists(path) and os.path.exists(path + ".py"):
        path = path + ".py"
    with io.open(path, "r", encoding="utf-8") as handle:
        return path, handle.read()


def _parse_ranges(spec, count):
    """IPython's -r: '5', '5-10', '5:10', '-10' ... comma or space separated, 1-based inclusive."""
    picked = []
    for part in spec.replace(",", " ").split():
        for sep in ("-", ":", ".."):
            if sep in part:
                lo, hi = part.split(sep, 1)
                lo = int(lo) if lo else 1
                hi = int(hi) if hi else count
                break
        else:
            lo = hi = int(part)
        picked.extend(range(max(lo, 1), min(hi, count) + 1))
    return picked


@line_magic("load", summary="read a Python file and run it as a cell (-r RANGE for some lines)")
def magic_load(ctx):
    """%load [-r RANGE] PATH: run the file's code here, magics included; returns its trailing expression."""
    words = split_args(ctx.args)
    spec = None
    if "-r" in words:
        i = words.index("-r")
        if i + 1 >= len(words):
            raise UsageError("%load -r needs a range, e.g. -r 1-10")
        spec = words[i + 1]
        del words[i : i + 2]
    if len(words) != 1:
        raise UsageError("usage: %load [-r RANGE] PATH")
    path, text = _read_source(words[0])
    if spec is not None:
        lines = text.splitlines(True)
        text = "".join(lines[i - 1] for i in _parse_ranges(spec, len(lines)))

    class _LoadContext(object):
        globals = ctx.globals
        locals = ctx.locals
        filename = os.path.abspath(path) if spec is None else "<load %s>" % path
        body_line = 0

    return run_python(text, _LoadContext)


@line_magic("run", summary="run a Python file (runpy) and merge its globals into the namespace")
def magic_run(ctx):
    """%run [-i] SCRIPT [ARGS...] | %run -m MODULE [ARGS...]: run as __main__, then keep its globals."""
    import runpy

    words = split_args(ctx.args)
    interactive = False
    module = None
    while words and words[0].startswith("-") and words[0] in ("-i", "-m"):
        flag = words.pop(0)
        if flag == "-i":
            interactive = True
        elif words:
            module = words.pop(0)
    if module is None and not words:
        raise UsageError("usage: %run [-i] SCRIPT [ARGS...] or %run -m MODULE [ARGS...]")
    target = module if module is not None else os.path.expanduser(words.pop(0))
    if module is None and not os.path.exists(target):
        if os.path.exists(target + ".py"):
            target += ".py"
        else:
            raise UsageError("%%run: file not found: %s" % target)
    saved_argv = sys.argv
    sys.argv = [target] + words
    script_dir = None
    if module is None:
        script_dir = os.path.dirname(os.path.abspath(target))
        sys.path.insert(0, script_dir)
    try:
        if interactive and module is None:
            _, code = _read_source(target)
            ns = ctx.globals
            saved = ns.get("__file__")
            ns["__file__"] = os.path.abspath(target)
            try:
                exec(compile(code, os.path.abspath(target), "exec", dont_inherit=True), ns)
            finally:
                ns.pop("__file__", None) if saved is None else ns.__setitem__("__file__", saved)
            return None
        if module is not None:
            result = runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            result = runpy.run_path(target, run_name="__main__")
    except SystemExit as exc:
        if exc.code in (None, 0):
            return None
        raise
    finally:
        sys.argv = saved_argv
        if script_dir is not None:
            try:
                sys.path.remove(script_dir)
            except ValueError:
                pass
    for name, value in result.items():
        if not (name.startswith("__") and name.endswith("__")):
            ctx.globals[name] = value
    return None


def _alias(name, command, summary):
    def run(ctx):
        # IPython's alias syntax: %l is replaced by the arguments, which otherwise go at the end.
        line = command.replace("%l", ctx.args) if "%l" in command else (command + " " + ctx.args).strip()
        run_streaming(shell_argv(line))

    run.__doc__ = "%%%s ARGS: runs `%s` in the shell (one of IPython's default aliases)." % (name, command)
    line_magic(name, summary=summary)(run)


# IPython's default shell aliases on POSIX (without --color: the output is read, not looked at in a terminal).
for _name, _command, _summary in (
    ("ls", "ls -F", "list files (shell ls -F)"),
    ("ll", "ls -F -o", "long listing (shell ls -F -o)"),
    ("lf", "ls -F -o %l | grep ^-", "plain files only"),
    ("lk", "ls -F -o %l | grep ^l", "symbolic links only"),
    ("ldir", "ls -F -o %l | grep /$", "directories only"),
    ("lx", "ls -F -o %l | grep ^-..x", "executables only"),
    ("cat", "cat", "print files (shell cat)"),
    ("cp", "cp", "copy files (shell cp)"),
    ("mv", "mv", "move files (shell mv)"),
    ("rm", "rm", "remove files (shell rm)"),
    ("mkdir", "mkdir", "make directories (shell mkdir)"),
    ("rmdir", "rmdir", "remove empty directories (shell rmdir)"),
):
    _alias(_name, _command, _summary)
