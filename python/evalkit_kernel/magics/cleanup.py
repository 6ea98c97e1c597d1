"""IPython's whole-cell clean-ups before magics: pasted prompts, leading indentation, and automagic on one-line cells."""

import re

from .names import MAGIC_NAME
from .registry import options

# `>>> ` starts a pasted Python session; `... ` continues it (only stripped once the block is known to be one).
_CLASSIC_ANY = re.compile(r"^(>>>|\.\.\.)( |$)")
_CLASSIC_FIRST = re.compile(r"^>>>( |$)")
# `In [3]: ` (with vi-mode markers) and `   ...: ` from a pasted IPython session.
_IPYTHON_ANY = re.compile(r"^((((\[nav\]|\[ins\])?\ )?In\ \[\d+\]:\ )|(\s*\.{3,}:\ ?))")
# A one-line cell `name rest`: the name may be a magic called without its `%` (automagic).
_AUTOMAGIC = re.compile(r"^([A-Za-z_][\w]*)((?:\s.*)?)$", re.S)

def _strip_prompts(lines, any_re, first_re):
    if first_re.match(lines[0]) or (len(lines) > 1 and any_re.match(lines[1])):
        return [any_re.sub("", line, count=1) for line in lines]
    return lines


def _dedent(lines):
    import textwrap

    return textwrap.dedent("".join(lines)).splitlines(True)


def clean(source):
    """The cell as IPython's cleanup transforms leave it (the line count is kept, so tracebacks still match)."""
    lines = source.splitlines(True)
    first = 0
    while first < len(lines) and lines[first].isspace():
        first += 1
    if first == len(lines):
        return source
    head = lines[first]
    if not (head.startswith((">>>", "In [", "[nav]", "[ins]", " ", "\t", "...")) or
            (first + 1 < len(lines) and lines[first + 1].lstrip().startswith("..."))):
        return source
    body = lines[first:]
    if head[:1] in " \t":
        body = _dedent(body)
    body = _strip_prompts(body, _CLASSIC_ANY, _CLASSIC_FIRST)
    body = _strip_prompts(body, _IPYTHON_ANY, _IPYTHON_ANY)
    return "".join(lines[:first] + body)


def _is_shadowed(name, namespace):
    import builtins
    import keyword

    return name in namespace or hasattr(builtins, name) or keyword.iskeyword(name)


def apply_automagic(source):
    """`ls -la`, `pwd`, `cd dir` alone in a cell run as line magics unless the name is a Python name there."""
    if not options.automagic:
        return source
    text = source.strip()
    if not text or "\n" in text:
        return source  # IPython's automagic only looks at one-line cells
    m = _AUTOMAGIC.match(text)
    if m is None:
        return source
    name, rest = m.group(1), m.group(2).strip()
    if rest[:1] in ("=", ",") and rest[:2] != "==":
        return source  # an assignment or tuple, as IPython's AssignmentChecker decides
    from ..core import state

    try:
        namespace = state.user_namespace()
    except Exception:
        return source
    if _is_shadowed(name, namespace):
        return source
    from .catalog import load_all
    from .registry import LINE

    load_all()
    if name not in LINE:
        return source
    return "%s.line(%r, %r)\n" % (MAGIC_NAME, name, rest)
