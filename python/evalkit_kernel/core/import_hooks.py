"""Run a callback right after a module is first imported, so the runner patches it without importing it itself.

Used for modules that are slow to import and rarely needed (linecache, getpass) and for libraries the user
may import at any time (matplotlib.pyplot, plotly, IPython.display). The finder steps in only for watched
names, wraps the real loader for that one import, and puts the real loader back once the module has run, so
the module looks exactly as if imported normally.
"""

import sys

_callbacks = {}


class _CallbackLoader(object):
    def __init__(self, loader, callbacks):
        self._loader = loader
        self._callbacks = callbacks

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        spec = getattr(module, "__spec__", None)
        if spec is not None:
            spec.loader = self._loader
        _run(self._callbacks, module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _PostImportFinder(object):
    def __init__(self):
        self._searching = set()

    def find_spec(self, name, path=None, target=None):
        if name not in _callbacks or name in self._searching:
            return None
        self._searching.add(name)
        try:
            spec = None
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                try:
                    spec = find(name, path, target)
                except Exception:
                    spec = None  # a broken third-party finder must not make our hook fail the import
                if spec is not None:
                    break
        finally:
            self._searching.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # run_pending() fires the callbacks after the cell instead
        spec.loader = _CallbackLoader(spec.loader, _callbacks.pop(name))
        return spec


_finder = _PostImportFinder()


def _run(callbacks, module):
    for fn in callbacks:
        try:
            fn(module)
        except Exception as exc:  # a broken hook must never break the user's import
            sys.stderr.write("evalkit: import hook for %s failed: %r\n" % (module.__name__, exc))


def when_imported(name, fn):
    """Calls fn(module) now if `name` is imported already, else right after its first import."""
    module = sys.modules.get(name)
    if module is not None:
        _run([fn], module)
        return
    _callbacks.setdefault(name, []).append(fn)
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def run_pending():
    """Fires callbacks of watched modules that were imported without passing through the finder."""
    for name in list(_callbacks):
        module = sys.modules.get(name)
        if module is not None:
            _run(_callbacks.pop(name), module)
