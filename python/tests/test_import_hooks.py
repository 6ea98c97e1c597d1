"""Unit tests for import_hooks.when_imported: patches applied at a module's first import, the module left intact."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import import_hooks  # noqa: E402


class WhenImportedTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        sys.path.insert(0, self.dir)
        self.name = "evalkit_hook_probe_%d" % id(self)
        with open(os.path.join(self.dir, self.name + ".py"), "w") as f:
            f.write("VALUE = 1\n")

    def tearDown(self):
        sys.path.remove(self.dir)
        sys.modules.pop(self.name, None)
        import_hooks._callbacks.pop(self.name, None)
        shutil.rmtree(self.dir)

    def test_runs_the_callback_right_after_the_first_import(self):
        seen = []
        import_hooks.when_imported(self.name, lambda m: seen.append(m.VALUE))
        self.assertEqual(seen, [])
        module = __import__(self.name)
        self.assertEqual(seen, [1])
        __import__(self.name)
        self.assertEqual(seen, [1], "a second import must not run the callback again")
        self.assertEqual(module.VALUE, 1)

    def test_leaves_the_real_loader_on_the_module(self):
        import_hooks.when_imported(self.name, lambda m: None)
        module = __import__(self.name)
        self.assertNotIsInstance(module.__loader__, import_hooks._CallbackLoader)
        self.assertIs(module.__spec__.loader, module.__loader__)
        self.assertEqual(module.__loader__.get_source(self.name), "VALUE = 1\n")

    def test_calls_at_once_when_the_module_is_imported_already(self):
        module = __import__(self.name)
        seen = []
        import_hooks.when_imported(self.name, lambda m: seen.append(m))
        self.assertEqual(seen, [module])

    def test_a_failing_callback_does_not_break_the_import(self):
        def broken(module):
            raise RuntimeError("boom")

        stderr, sys.stderr = sys.stderr, open(os.devnull, "w")
        try:
            import_hooks.when_imported(self.name, broken)
            module = __import__(self.name)
        finally:
            sys.stderr.close()
            sys.stderr = stderr
        self.assertEqual(module.VALUE, 1)

    def test_an_unknown_module_still_raises_import_error(self):
        import_hooks.when_imported(self.name + "_missing", lambda m: None)
        with self.assertRaises(ImportError):
            __import__(self.name + "_missing")
        import_hooks._callbacks.pop(self.name + "_missing", None)


if __name__ == "__main__":
    unittest.main()
