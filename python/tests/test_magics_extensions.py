"""IPython's extension API without a kernel: the stand-in magic modules, shell events and the extension manager."""

import contextlib
import io
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from evalkit_kernel.magics import ipython_api, magic_arguments  # noqa: E402
from evalkit_kernel.magics.extensions import ExtensionManager, load, unload  # noqa: E402
from evalkit_kernel.magics.registry import UsageError  # noqa: E402
from evalkit_kernel.magics.shell_events import EventManager  # noqa: E402


@ipython_api.magics_class
class Sample(ipython_api.Magics):
    @ipython_api.line_magic
    def plain(self, line):
        return "plain " + line

    @ipython_api.cell_magic("renamed")
    def cell_one(self, line, cell):
        return cell

    @ipython_api.line_cell_magic
    def both(self, line, cell=None):
        return line, cell


class StandInMagicModule(unittest.TestCase):
    def test_magics_class_collects_line_cell_and_line_cell_methods_under_their_names(self):
        self.assertEqual(Sample.magics, {"line": {"plain": "plain", "both": "both"},
                                         "cell": {"renamed": "cell_one", "both": "both"}})

    def test_an_instance_maps_each_name_to_its_bound_method(self):
        magics = Sample(shell="the shell")
        self.assertEqual(magics.shell, "the shell")
        self.assertEqual(magics.magics["line"]["plain"]("x"), "plain x")
        self.assertEqual(magics.magics["cell"]["renamed"]("", "body\n"), "body\n")

    def test_a_magics_subclass_without_the_class_decorator_is_refused_as_in_ipython(self):
        class Forgot(ipython_api.Magics):
            pass

        with self.assertRaises(ValueError) as caught:
            Forgot()
        self.assertIn("@magics_class", str(caught.exception))

    def test_parse_options_returns_options_and_the_rest_of_the_line(self):
        opts, rest = Sample().parse_options("-n 3 -q some 'quoted arg'", "n:q")
        self.assertEqual((opts.n, opts["q"], rest), ("3", "", "some quoted arg"))
        with self.assertRaises(UsageError):
            Sample().parse_options("-z", "n:")

    def test_needs_local_scope_and_no_var_expand_mark_the_function_as_ipython_reads_them(self):
        def magic(line, local_ns=None):
            return line

        ipython_api.needs_local_scope(magic)
        ipython_api.no_var_expand(magic)
        self.assertTrue(magic.needs_local_scope)
        self.assertTrue(magic._ipython_magic_no_var_expand)


class StandInMagicArguments(unittest.TestCase):
    def setUp(self):
        @magic_arguments.magic_arguments()
        @magic_arguments.argument("-o", "--override", action="store_true", help="override")
        @magic_arguments.argument("path", nargs="?", default=".env")
        def dotenv(line):
            """Load a file."""
            return magic_arguments.parse_argstring(dotenv, line)

        self.magic = dotenv

    def test_arguments_parse_in_declaration_order_with_defaults(self):
        self.assertEqual(vars(self.magic("")), {"override": False, "path": ".env"})
        self.assertEqual(vars(self.magic("-o 'my file'")), {"override": True, "path": "my file"})

    def test_bad_arguments_raise_usage_error_never_system_exit(self):
        with self.assertRaises(UsageError) as caught:
            self.magic("--bogus")
        self.assertIn("unrecognized arguments: --bogus", str(caught.exception))

    def test_the_docstring_gains_the_usage_as_in_ipython(self):
        self.assertIn("Load a file.", self.magic.__doc__)
        self.assertIn("%dotenv", self.magic.__doc__)
        self.assertIn("--override", self.magic.__doc__)


class ShellEvents(unittest.TestCase):
    def setUp(self):
        from evalkit_kernel.core import hooks

        self.addCleanup(hooks.set_cell_observer, hooks.cell_observer)
        self.events = EventManager()
        self.seen = []

    def test_a_cell_triggers_pre_execute_pre_run_cell_post_execute_post_run_cell_in_ipythons_order(self):
        for name in ("pre_execute", "post_execute"):
            self.events.register(name, lambda name=name: self.seen.append(name))
        self.events.register("pre_run_cell", lambda info: self.seen.append(("pre_run_cell", info.raw_cell)))
        self.events.register("post_run_cell", lambda r: self.seen.append(("post_run_cell", r.success, r.result)))
        self.events.before_cell("1 + 1", False, True)
        self.events.after_cell("1 + 1", False, True, 2, None, 1)
        self.assertEqual(self.seen, ["pre_execute", ("pre_run_cell", "1 + 1"), "post_execute",
                                     ("post_run_cell", True, 2)])

    def test_silent_cells_fire_only_the_execute_events(self):
        self.events.register("pre_run_cell", lambda info: self.seen.append("pre_run_cell"))
        self.events.register("pre_execute", lambda: self.seen.append("pre_execute"))
        self.events.before_cell("x", True, False)
        self.events.after_cell("x", True, False, None, None, 0)
        self.assertEqual(self.seen, ["pre_execute"])

    def test_callbacks_without_parameters_and_unregistering_them_work_as_in_ipython(self):
        def ping():
            self.seen.append("ping")

        self.events.register("post_run_cell", ping)
        self.events.trigger("post_run_cell", object())
        self.events.unregister("post_run_cell", ping)
        self.events.trigger("post_run_cell", object())
        self.assertEqual(self.seen, ["ping"])
        with self.assertRaises(ValueError):
            self.events.unregister("post_run_cell", ping)

    def test_a_failing_callback_is_reported_and_the_others_still_run(self):
        def broken(info):
            raise RuntimeError("boom")

        self.events.register("pre_run_cell", broken)
        self.events.register("pre_run_cell", lambda info: self.seen.append("after"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            self.events.trigger("pre_run_cell", object())
        self.assertIn("Error in callback", out.getvalue())
        self.assertIn("RuntimeError: boom", err.getvalue())
        self.assertEqual(self.seen, ["after"])

    def test_unknown_events_and_non_callables_are_refused(self):
        with self.assertRaises(KeyError):
            self.events.register("no_such_event", print)
        with self.assertRaises(TypeError):
            self.events.register("pre_run_cell", "not callable")


class Extensions(unittest.TestCase):
    def setUp(self):
        self.calls = []
        module = types.ModuleType("evalkit_test_extension")
        module.load_ipython_extension = lambda ip: self.calls.append(("load", ip))
        module.unload_ipython_extension = lambda ip: self.calls.append(("unload", ip))
        sys.modules[module.__name__] = module
        self.addCleanup(sys.modules.pop, module.__name__, None)
        self.shell = types.SimpleNamespace()
        self.shell.extension_manager = ExtensionManager(self.shell)

    def _printed(self, fn, name):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            fn(self.shell, name)
        return out.getvalue()

    def test_load_calls_load_ipython_extension_with_the_shell_once(self):
        self.assertEqual(self._printed(load, "evalkit_test_extension"), "")
        self.assertEqual(self.calls, [("load", self.shell)])
        self.assertIn("already loaded", self._printed(load, "evalkit_test_extension"))
        self.assertEqual(len(self.calls), 1)

    def test_unload_calls_unload_ipython_extension_and_says_when_not_loaded(self):
        self.assertEqual(self._printed(unload, "evalkit_test_extension"),
                         "The evalkit_test_extension extension is not loaded.\n")
        load(self.shell, "evalkit_test_extension")
        self.assertEqual(self._printed(unload, "evalkit_test_extension"), "")
        self.assertEqual([c[0] for c in self.calls], ["load", "unload"])

    def test_a_module_without_load_ipython_extension_is_not_an_extension(self):
        self.assertEqual(self._printed(load, "json"), "The json module is not an IPython extension.\n")

    def test_a_missing_module_fails_with_module_not_found_as_in_ipython(self):
        with self.assertRaises(ModuleNotFoundError):
            load(self.shell, "evalkit_no_such_extension")


if __name__ == "__main__":
    unittest.main()
