"""Serves IPython's magic-writing modules when IPython is not installed, so extensions written for it still load.

The finder sits LAST on sys.meta_path: it is asked only after every real finder failed, so an installed IPython
always wins and ordinary imports never reach it. It answers for `IPython.core.magic`, `.magic_arguments`,
`.error` and `.getipython`, and for their parents `IPython` and `IPython.core` only while one of those is being
imported: `import IPython` on its own still fails, so libraries that probe for IPython see it missing. The
stand-in parents leave sys.modules after the cell (drop_parents), for the same reason.
"""

import sys
import types

_SERVED = ("IPython.core.magic", "IPython.core.magic_arguments", "IPython.core.error", "IPython.core.getipython")
_PARENTS = ("IPython", "IPython.core")
MARK = "__evalkit_stand_in__"
_dropping = []  # the post-execute hook that drops the stand-in parents is registered once, at first use


def _importing_served_module():
    # importlib's frames hold the full name being imported (`name`) while it imports the parents first.
    frame = sys._getframe(2)
    depth = 0
    while frame is not None and depth < 40:
        if frame.f_code.co_name in ("_find_and_load", "_find_and_load_unlocked", "_gcd_import"):
            if frame.f_locals.get("name") in _SERVED:
                return True
        frame = frame.f_back
        depth += 1
    return False


class _StandInLoader(object):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        setattr(module, MARK, True)
        if not _dropping:
            from ..core import hooks

            _dropping.append(True)
            hooks.register_post_execute(drop_parents)
        if name in _PARENTS:
            module.__path__ = []
            if name == "IPython":
                from .shell_shim import current_shell

                module.get_ipython = current_shell
            return
        if name == "IPython.core.magic":
            from .ipython_api import install_into

            install_into(module)
        elif name == "IPython.core.magic_arguments":
            from .magic_arguments import install_into

            install_into(module)
        elif name == "IPython.core.error":
            from .registry import UsageError

            module.UsageError = UsageError
            module.IPythonCoreError = Exception
            module.TryNext = type("TryNext", (Exception,), {})
        elif name == "IPython.core.getipython":
            from .shell_shim import current_shell

            module.get_ipython = current_shell


class StandInFinder(object):
    def find_spec(self, name, path=None, target=None):
        if name in _SERVED or (name in _PARENTS and _importing_served_module()):
            import importlib.util

            return importlib.util.spec_from_loader(name, _StandInLoader(), is_package=name in _PARENTS)
        return None


_finder = StandInFinder()


def install():
    if _finder not in sys.meta_path:
        sys.meta_path.append(_finder)


def drop_parents():
    """After a cell: the stand-in `IPython` and `IPython.core` go, the served modules stay (they are imported)."""
    for name in _PARENTS:
        module = sys.modules.get(name)
        if module is not None and getattr(module, MARK, False):
            del sys.modules[name]
