"""Runs a callback when a module is first imported (to patch pyplot.show and plotly's show lazily)."""

import sys

# module name -> list of callbacks still waiting for that module.
_pending = {}
_finder = None


class _ImportWatcher(object):
    """A meta path finder that only ever answers for watched modules, wrapping their loader."""

    def find_spec(self, fullname, path=None, target=None):
        callbacks = _pending.get(fullname)
        if not callbacks:
            return None
        spec = None
        for finder in list(sys.meta_path):
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                spec = finder.find_spec(fullname, path, target)
            except Exception:
                spec = None
            if spec is not None:
                break
        loader = getattr(spec, "loader", None)
        original = getattr(loader, "exec_module", None)
        if original is None:
            return spec  # run_pending() patches it after the cell instead

        def exec_module(module):
            original(module)
            _fire(fullname, module)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):
            pass
        return spec


def _fire(name, module):
    for callback in _pending.pop(name, ()):
        try:
            callback(module)
        except Exception as exc:
            sys.stderr.write("evalkit: setting up %s failed: %r\n" % (name, exc))


def when_imported(name, callback):
    """callback(module) now if name is loaded, else right after its first import."""
    global _finder
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    _pending.setdefault(name, []).append(callback)
    if _finder is None:
        _finder = _ImportWatcher()
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def run_pending():
    """Fire callbacks for watched modules that got imported without our loader wrapper."""
    for name in list(_pending):
        module = sys.modules.get(name)
        if module is not None:
            _fire(name, module)
