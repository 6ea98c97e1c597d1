"""Cell magics: %%bash %%sh %%script %%capture %%writefile and the display ones (%%html %%markdown ...)."""

import os
import sys

from .registry import UsageError, cell_magic, run_python


def _script_argv(program, path):
    return [program, path]


def run_script(program, body, options):
    """Write the body to a temporary file and run it with `program`; streams live unless captured."""
    import tempfile

    from .shell import run_streaming

    suffix = ".py" if "python" in os.path.basename(program) else ".sh"
    handle, path = tempfile.mkstemp(prefix="evalkit-cell-", suffix=suffix)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as script:
            script.write(body)
        capture = options.get("out") is not None
        errors = None
        if options.get("err") is not None:
            import io

            errors = io.StringIO()  # --err NAME: stderr goes to the variable instead of the cell's output
        code, out = run_streaming(_script_argv(program, path), capture_stdout=capture, stderr=errors)
        if errors is not None:
            options["err_text"] = errors.getvalue()
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    return code, out


def _parse_script_options(args):
    from .registry import split_args

    words = split_args(args)
    # IPython 8: a failing script fails the cell
    options = {"out": None, "err": None, "raise_error": True, "program": None}
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("--out", "--err") and i + 1 < len(words):
            options[word[2:]] = words[i + 1]
            i += 2
        elif word == "--raise-error":
            options["raise_error"] = True
            i += 1
        elif word == "--no-raise-error":
            options["raise_error"] = False
            i += 1
        elif word.startswith("-"):
            raise UsageError(
                "unsupported option %s (supported: --out NAME, --err NAME, --raise-error, --no-raise-error)" % word
            )
        elif options["program"] is None:
            options["program"] = word
            i += 1
        else:
            raise UsageError("unexpected argument %r" % word)
    return options


def _shell_program(name):
    if name == "bash":
        return "/bin/bash" if os.path.exists("/bin/bash") else "bash"
    return "/bin/sh" if os.path.exists("/bin/sh") else "sh"


def _run_script_magic(ctx, program):
    options = _parse_script_options(ctx.args)
    if options["program"] is not None:
        raise UsageError("%%%%%s takes no program argument (use %%%%script PROGRAM)" % ctx.name)
    _store_and_check(ctx, options, program, *run_script(program, ctx.body, options))


def _store_and_check(ctx, options, program, code, out):
    if options["out"]:
        ctx.globals[options["out"]] = out
    if options["err"]:
        ctx.globals[options["err"]] = options.get("err_text", "")
    ctx.globals["_exit_code"] = code
    if code != 0 and options["raise_error"]:
        import subprocess

        raise subprocess.CalledProcessError(code, os.path.basename(program))


@cell_magic("bash", summary="run the cell with bash (--out NAME, --err NAME, --no-raise-error)")
def cell_bash(ctx):
    """%%bash [--out NAME] [--err NAME] [--no-raise-error]: run the body with bash; a non-zero exit fails the cell."""
    _run_script_magic(ctx, _shell_program("bash"))


@cell_magic("sh", summary="run the cell with sh (--out NAME, --err NAME, --no-raise-error)")
def cell_sh(ctx):
    """%%sh [--out NAME] [--err NAME] [--no-raise-error]: run the body with /bin/sh; a non-zero exit fails the cell."""
    _run_script_magic(ctx, _shell_program("sh"))


@cell_magic("script", summary="run the cell with any program: %%script perl")
def cell_script(ctx):
    """%%script PROGRAM [--out NAME] [--err NAME] [--no-raise-error]: run the body as a script file with PROGRAM."""
    options = _parse_script_options(ctx.args)
    if not options["program"]:
        raise UsageError("usage: %%script PROGRAM")
    _run_program(ctx, options, options["program"])


def _run_program(ctx, options, program):
    if program in ("python", "python3"):
        program = sys.executable  # the kernel's own interpreter, with the packages this session sees
    try:
        result = run_script(program, ctx.body, options)
    except OSError:
        print("Couldn't find program: %r" % program)  # IPython's words; the cell still succeeds
        return
    _store_and_check(ctx, options, program, *result)


def _interpreter_magic(name):
    def run(ctx):
        options = _parse_script_options(ctx.args)
        if options["program"] is not None:
            raise UsageError("%%%%%s takes no program argument (use %%%%script PROGRAM)" % name)
        _run_program(ctx, options, name)

    run.__doc__ = "%%%%%s [--out NAME] [--err NAME] [--no-raise-error]: run the body with %s (like %%%%script %s)." % (
        name, name, name)
    cell_magic(name, summary="run the cell with %s" % name)(run)


# IPython's script magics named after their interpreter (%%bash and %%sh are above).
for _interpreter in ("perl", "ruby", "python", "python2", "python3", "pypy"):
    _interpreter_magic(_interpreter)


@cell_magic("capture", summary="capture the cell's output into a variable: %%capture [name]")
def cell_capture(ctx):
    """%%capture [--no-stdout] [--no-stderr] [--no-display] [NAME]: run the body silently.

    NAME (if given) gets an object with .stdout, .stderr, .outputs and .show().
    """
    from ..core import state
    from .capture import CapturedIO, CaptureSink, capture_result

    words = ctx.args.split()
    flags = set(w for w in words if w.startswith("--"))
    unknown = flags - {"--no-stdout", "--no-stderr", "--no-display"}
    if unknown:
        raise UsageError("%%%%capture: unsupported option(s) %s" % " ".join(sorted(unknown)))
    names = [w for w in words if not w.startswith("--")]
    if len(names) > 1:
        raise UsageError("usage: %%capture [--no-stdout] [--no-stderr] [--no-display] [NAME]")
    captured = CapturedIO()
    sink = CaptureSink(captured, "--no-stdout" not in flags, "--no-stderr" not in flags, "--no-display" not in flags)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    state.push_capture(sink)
    try:
        value = run_python(ctx.body, ctx)
        capture_result(captured, value)
        try:
            from ..core import hooks

            hooks.run_post_execute()  # figures drawn in the body are captured with it
        except Exception:
            pass
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
    finally:
        state.pop_capture(sink)
        if names:
            ctx.globals[names[0]] = captured


@cell_magic("file", summary="same as %%writefile")
@cell_magic("writefile", summary="write the cell to a file: %%writefile [-a] PATH")
def cell_writefile(ctx):
    """%%writefile [-a] PATH: write (or with -a append) the body to PATH; a final newline is ensured."""
    import io

    from .registry import split_args

    words = split_args(ctx.args)
    append = "-a" in words or "--append" in words
    words = [w for w in words if w not in ("-a", "--append")]
    if len(words) != 1:
        raise UsageError("usage: %%writefile [-a] PATH")
    path = os.path.expanduser(words[0])
    existed = os.path.exists(path)
    body = ctx.body
    if body and not body.endswith("\n"):
        body += "\n"
    if append:
        print("Appending to %s" % path)
    else:
        print("%s %s" % ("Overwriting" if existed else "Writing", path))
    with io.open(path, "a" if append else "w", encoding="utf-8") as handle:
        handle.write(body)


def _display_magic(name, mime, cls, summary):
    def show(ctx):
        from ..core import state

        # IPython displays an HTML/Markdown/... object: its text/plain is the object's repr, not the body.
        state.emit_display({mime: ctx.body, "text/plain": "<IPython.core.display.%s object>" % cls})

    show.__doc__ = "%%%%%s: display the body as %s." % (name, mime)
    cell_magic(name, summary=summary)(show)


_display_magic("html", "text/html", "HTML", "display the cell as HTML")
_display_magic("markdown", "text/markdown", "Markdown", "display the cell as Markdown")
_display_magic("latex", "text/latex", "Latex", "display the cell as LaTeX")
_display_magic("svg", "image/svg+xml", "SVG", "display the cell as SVG")
_display_magic("javascript", "application/javascript", "Javascript", "show the cell as JavaScript (not run)")
_display_magic("js", "application/javascript", "Javascript", "same as %%javascript")
