"""IPython extensions: %load_ext / %unload_ext / %reload_ext for any module defining load_ipython_extension(ip).

The same states and messages as IPython's ExtensionManager. autoreload and storemagic stay accepted no-ops:
they drive IPython's own machinery (module reloading, its database), which evalkit's shell does not have.
"""

import importlib
import sys

NO_OP_EXTENSIONS = ("autoreload", "storemagic")


class ExtensionManager(object):
    def __init__(self, shell):
        self.shell = shell
        self.loaded = set()

    def load_extension(self, module_str):
        """Import the module and call its load_ipython_extension(shell): None, "already loaded" or
        "no load function"."""
        if module_str in NO_OP_EXTENSIONS:
            return None
        if module_str in self.loaded:
            return "already loaded"
        if module_str not in sys.modules:
            importlib.import_module(module_str)
        module = sys.modules[module_str]
        if self._call(module, "load_ipython_extension"):
            self.loaded.add(module_str)
            return None
        return "no load function"

    def unload_extension(self, module_str):
        """Call the module's unload_ipython_extension(shell): None, "not loaded" or "no unload function"."""
        if module_str in NO_OP_EXTENSIONS:
            return None
        if module_str not in self.loaded:
            return "not loaded"
        if module_str in sys.modules and self._call(sys.modules[module_str], "unload_ipython_extension"):
            self.loaded.discard(module_str)
            return None
        return "no unload function"

    def reload_extension(self, module_str):
        """Unload, re-import (importlib.reload) and load again; loads it when it was not loaded."""
        if module_str in NO_OP_EXTENSIONS:
            return None
        if module_str in self.loaded and module_str in sys.modules:
            self.unload_extension(module_str)
            module = importlib.reload(sys.modules[module_str])
            if self._call(module, "load_ipython_extension"):
                self.loaded.add(module_str)
            return None
        return self.load_extension(module_str)

    def _call(self, module, name):
        function = getattr(module, name, None)
        if function is None:
            return False
        function(self.shell)
        return True


def load(shell, module_str):
    """%load_ext's message for each outcome, as IPython prints it."""
    outcome = shell.extension_manager.load_extension(module_str)
    if outcome == "already loaded":
        print("The %s extension is already loaded. To reload it, use:\n  %%reload_ext %s" % (module_str, module_str))
    elif outcome == "no load function":
        print("The %s module is not an IPython extension." % module_str)


def unload(shell, module_str):
    outcome = shell.extension_manager.unload_extension(module_str)
    if outcome == "no unload function":
        print("The %s extension doesn't define how to unload it." % module_str)
    elif outcome == "not loaded":
        print("The %s extension is not loaded." % module_str)


def reload(shell, module_str):
    shell.extension_manager.reload_extension(module_str)
