"""IPython.core.magic_arguments for interpreters without IPython: argparse-declared magic options.

@magic_arguments() + @argument(...) build an argparse parser on the magic function; parse_argstring() splits the
line like a shell and parses it, raising UsageError (never SystemExit) on bad arguments, as IPython does.
"""

import argparse

from .registry import UsageError, split_args

__all__ = ["magic_arguments", "argument", "argument_group", "kwds", "defaults", "parse_argstring"]


class MagicArgumentParser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("add_help", False)
        super(MagicArgumentParser, self).__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(message)

    def parse_argstring(self, argstring):
        return self.parse_args(split_args(argstring))


def _real_name(func):
    return getattr(func, "argcmd_name", func.__name__)


def construct_parser(func):
    kwds = getattr(func, "_evalkit_argparse_kwds", {})
    if "description" not in kwds:
        kwds["description"] = (func.__doc__ or "").strip()
    parser = MagicArgumentParser(prog="%" + _real_name(func), **kwds)
    group = None
    for decorator in getattr(func, "decorators", [])[::-1]:
        result = decorator.add_to_parser(parser, group)
        if result is not None:
            group = result
    usage = parser.format_help()
    func.__doc__ = usage if not func.__doc__ else func.__doc__ + "\n\n" + usage
    return parser


def parse_argstring(magic_func, argstring):
    """The parsed namespace of `argstring` for a function decorated with @magic_arguments()."""
    return magic_func.parser.parse_argstring(argstring)


class _ArgDecorator(object):
    def __call__(self, func):
        if not hasattr(func, "decorators"):
            func.decorators = []
        func.decorators.append(self)
        return func

    def add_to_parser(self, parser, group):
        return None


class magic_arguments(_ArgDecorator):
    """Marks the function as taking argparse arguments and builds its parser (the outermost decorator)."""

    def __init__(self, name=None):
        self.name = name

    def __call__(self, func):
        if not hasattr(func, "decorators"):
            func.decorators = []
        if self.name is not None:
            func.argcmd_name = self.name
        func.parser = construct_parser(func)
        return func


class argument(_ArgDecorator):
    """@argument(*args, **kwargs): the same arguments as ArgumentParser.add_argument."""

    def __init__(self, *args, **kwds):
        self.args = args
        self.kwds = kwds

    def add_to_parser(self, parser, group):
        (group if group is not None else parser).add_argument(*self.args, **self.kwds)
        return None


class argument_group(argument):
    def add_to_parser(self, parser, group):
        return parser.add_argument_group(*self.args, **self.kwds)


class defaults(argument):
    def add_to_parser(self, parser, group):
        parser.set_defaults(*self.args, **self.kwds)
        return None


class kwds(_ArgDecorator):
    """@kwds(**kwargs): keyword arguments for the ArgumentParser itself (epilog, ...)."""

    def __init__(self, **kwds):
        self.kwds = kwds

    def __call__(self, func):
        func = super(kwds, self).__call__(func)
        func._evalkit_argparse_kwds = self.kwds
        return func


def install_into(module):
    """Fills the stand-in `IPython.core.magic_arguments` module with this API."""
    for name in __all__ + ["MagicArgumentParser", "construct_parser"]:
        setattr(module, name, globals()[name])
    return module
