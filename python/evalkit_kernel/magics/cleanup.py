"""IPython's whole-cell clean-ups before magics: pasted prompts, leading indentation, and automagic on one-line cells."""

from .names import MAGIC_NAME
from .registry import options

_patterns = None


def _load_patterns():
    """The prompt patterns, compiled at the first cell that may hold pasted prompts (`re` costs ~0.6 MB)."""
    global _patterns
    if _patterns is None:
        import re

        _patterns = (
            # `>>> ` starts a pasted Python session; `... ` continues it (only stripped once the block is one).
            re.compile(r"^(>>>|\.\.\.)( |$)"),
            re.compile(r"^>>>( |$)"),
            # `In [3]: ` (with vi-mode markers) and `   ...: ` from a pasted IPython session.
            re.compile(r"^((((\[nav\]|\[ins\])?\ )?In\ \[\d+\]:\ )|(\s*\.{3,}:\ ?))"),
        )
    return _patterns


def _strip_prompts(lines, any_re, first_re):
    if first_re.match(lines[0]) or (len(lines) > 1 and any_re.match(lines[1])):
        return [any_re.sub("", line, count=1) for line in lines]
    return lines


def _split_automagic(text):
    """(name, rest) when the one-line cell is `name` or `name <whitespace> rest`, else None (no `re` needed)."""
    parts = text.split(None, 1)
    name = parts[0]
    if not (name[:1].isascii() and (name[:1].isalpha() or name[:1] == "_") and name.isidentifier()):
        return None
    if not text[len(name):len(name) + 1].isspace() and len(text) > len(name):
        return None
    return name, text[len(name):]


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
    classic_any, classic_first, ipython_any = _load_patterns()
    body = _strip_prompts(body, classic_any, classic_first)
    body = _strip_prompts(body, ipython_any, ipython_any)
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
    split = _split_automagic(text)
    if split is None:
        return source
    name, rest = split[0], split[1].strip()
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
