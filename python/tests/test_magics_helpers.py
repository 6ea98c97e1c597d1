"""Magic helpers that need no kernel: interpolation, SList, streaming children, namespaces, timing, pip, help."""

import io
import os
import sys
import traceback
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from evalkit_kernel.magics import namespace_magics, pip, timing  # noqa: E402
from evalkit_kernel.magics.interpolate import expand  # noqa: E402
from evalkit_kernel.magics.introspect import describe  # noqa: E402
from evalkit_kernel.magics.runtime import MagicRuntime, UsageError  # noqa: E402
from evalkit_kernel.magics.shell import SList, run_streaming, shell_argv  # noqa: E402


class Obj(object):
    attr = "A"


class Interpolation(unittest.TestCase):
    ns = {"x": 5, "name": "world", "obj": Obj()}

    def test_braces_evaluate_python_and_dollar_names_are_substituted(self):
        self.assertEqual(expand("echo {x+1} $name $obj.attr", self.ns), "echo 6 world A")

    def test_unknown_names_reach_the_shell_untouched(self):
        self.assertEqual(expand("echo $HOME ${PATH}", self.ns), "echo $HOME ${PATH}")
        self.assertEqual(expand("awk '{print $1}' f", self.ns), "awk '{print $1}' f")
        self.assertEqual(expand("find . -exec rm {} \\;", self.ns), "find . -exec rm {} \\;")

    def test_escapes_give_literal_dollars_and_braces(self):
        self.assertEqual(expand("echo $$x {{x}}", self.ns), "echo $x {x}")
        self.assertEqual(expand("echo $$", self.ns), "echo $$")

    def test_conversions_and_locals(self):
        self.assertEqual(expand("{name!r}", self.ns), "'world'")
        self.assertEqual(expand("{y}", self.ns, {"y": 2}), "2")


class SListHelpers(unittest.TestCase):
    def make(self):
        out = SList(["a 1 x", "b 2 y", "c 3 z"])
        out.returncode = 0
        return out

    def test_joined_forms(self):
        out = self.make()
        self.assertEqual(out.n, "a 1 x\nb 2 y\nc 3 z")
        self.assertEqual(out.s, "a 1 x b 2 y c 3 z")
        self.assertEqual(out.l, ["a 1 x", "b 2 y", "c 3 z"])
        self.assertIs(type(out.l), list)

    def test_grep_and_fields_keep_the_type_and_returncode(self):
        out = self.make()
        self.assertEqual(out.grep("b|c"), ["b 2 y", "c 3 z"])
        self.assertEqual(out.grep("b", prune=True), ["a 1 x", "c 3 z"])
        self.assertEqual(out.grep("^2$", field=1), ["b 2 y"])
        self.assertEqual(out.fields(0, -1), ["a x", "b y", "c z"])
        self.assertEqual(out.fields()[0], ["a", "1", "x"])
        self.assertIsInstance(out.grep("a"), SList)
        self.assertEqual(out.grep("a").returncode, 0)


class Streaming(unittest.TestCase):
    def test_stdout_is_captured_and_stderr_streamed(self):
        err = io.StringIO()
        code, out = run_streaming(shell_argv("echo out; echo err >&2; exit 4"), capture_stdout=True, stderr=err)
        self.assertEqual((code, out, err.getvalue()), (4, "out\n", "err\n"))

    def test_binary_output_is_decoded_with_replacement(self):
        code, out = run_streaming(shell_argv("printf 'ok \\377\\376 \\303\\251\\n'"), capture_stdout=True)
        self.assertEqual(code, 0)
        self.assertEqual(out, "ok \ufffd\ufffd \xe9\n")

    def test_output_is_written_as_it_arrives(self):
        stream = io.StringIO()
        code, _ = run_streaming([sys.executable, "-c", "print('a'); print('b')"], stdout=stream)
        self.assertEqual((code, stream.getvalue()), (0, "a\nb\n"))

    def test_a_background_job_holding_the_pipe_does_not_block(self):
        import time

        started = time.time()
        code, out = run_streaming(shell_argv("sleep 5 & echo done"), capture_stdout=True)
        self.assertEqual((code, out), (0, "done\n"))
        self.assertLess(time.time() - started, 4)


class Namespaces(unittest.TestCase):
    def test_user_names_exclude_private_session_and_evalkit_names(self):
        from evalkit_kernel.core import hooks

        hooks.reserved_names.add("helper_x")
        fake_evalkit = types.FunctionType((lambda: 0).__code__, {})
        fake_evalkit.__module__ = "evalkit_kernel.prelude.api"
        ns = {"a": 1, "_b": 2, "In": [], "Out": {}, "helper_x": 3, "tool": fake_evalkit, "os": os, "__name__": "m"}
        self.assertEqual(namespace_magics.user_names(ns), ["a", "os"])
        self.assertEqual(namespace_magics.user_names(ns, ("int",)), ["a"])

    def test_reset_keeps_dunders_history_and_evalkit_names(self):
        from evalkit_kernel.core import hooks

        hooks.reserved_names.add("helper_x")
        ns = {"a": 1, "_b": 2, "_3": 3, "In": [], "Out": {}, "helper_x": 3, "__name__": "m", "__builtins__": {}}
        namespace_magics.reset_namespace(ns)
        self.assertEqual(sorted(ns), ["In", "Out", "__builtins__", "__name__", "helper_x"])


class Timing(unittest.TestCase):
    def test_timeit_options_are_parsed(self):
        options, stmt = timing._parse_timeit("-n 10 -r3 -q -o x = [1, -2]")
        self.assertEqual((options["n"], options["r"], options["q"], options["o"], stmt), (10, 3, True, True, "x = [1, -2]"))

    def test_timeit_warns_like_ipython_when_one_run_is_much_slower(self):
        class Ctx(object):
            globals = {"calls": []}
            locals = globals

        # The first run sleeps, the others do not: worst > 4 x best, so IPython's warning comes first.
        stmt = "calls.append(1)\nif len(calls) == 1: __import__('time').sleep(0.02)"
        out = io.StringIO()
        saved, sys.stdout = sys.stdout, out
        try:
            timing.timeit_run(stmt, "", {"n": 1, "r": 5, "q": False, "o": False, "p": 3}, Ctx())
        finally:
            sys.stdout = saved
        lines = out.getvalue().splitlines()
        self.assertRegex(lines[0], r"^The slowest run took [\d.]+ times longer than the fastest\. This could mean "
                         r"that an intermediate result is being cached\.$")
        self.assertIn("per loop (mean \xb1 std. dev. of 5 runs, 1 loop each)", lines[1])

    def test_times_are_formatted_like_ipython(self):
        self.assertEqual(timing.format_time(0.00123), "1.23 ms")
        self.assertEqual(timing.format_time(2.5), "2.5 s")
        self.assertIn(timing.format_time(5e-6), ("5 \xb5s", "5 us"))
        self.assertEqual(timing.format_time(5e-7), "500 ns")


class FakeDist(object):
    def __init__(self, files, top=None):
        self.files = files
        self._top = top

    def read_text(self, name):
        return self._top if name == "top_level.txt" else None


class Pip(unittest.TestCase):
    def test_top_level_modules_come_from_top_level_txt_or_record(self):
        self.assertEqual(pip.top_level_modules(FakeDist([], "alpha\nbeta\n")), ["alpha", "beta"])
        files = ["gamma/__init__.py", "gamma/x.py", "delta.py", "gamma-1.0.dist-info/RECORD", "../../bin/tool"]
        self.assertEqual(pip.top_level_modules(FakeDist(files)), ["delta", "gamma"])

    def test_new_and_upgraded_distributions_are_changes(self):
        before = {"a": ("1.0", None), "b": ("1.0", None)}
        after = {"a": ("1.0", None), "b": ("2.0", None), "c": ("0.1", None)}
        self.assertEqual(pip.changed_distributions(before, after), ["b", "c"])

    def test_eviction_finds_submodules(self):
        sys.modules["evk_fake_pkg"] = types.ModuleType("evk_fake_pkg")
        sys.modules["evk_fake_pkg.sub"] = types.ModuleType("evk_fake_pkg.sub")
        try:
            found = pip.evict_modules(["evk_fake_pkg", "not_there"])
            self.assertEqual(sorted(found["evk_fake_pkg"]), ["evk_fake_pkg", "evk_fake_pkg.sub"])
            self.assertNotIn("not_there", found)
        finally:
            sys.modules.pop("evk_fake_pkg", None)
            sys.modules.pop("evk_fake_pkg.sub", None)


def documented(a, b=2):
    """Adds things."""
    return a + b


class Help(unittest.TestCase):
    def test_single_question_mark_shows_signature_and_docstring(self):
        text = describe("documented", globals(), {}, 1)
        self.assertIn("Signature: documented(a, b=2)", text)
        self.assertIn("Adds things.", text)
        self.assertNotIn("return a + b", text)

    def test_double_question_mark_shows_the_source(self):
        self.assertIn("return a + b", describe("documented", globals(), {}, 2))

    def test_unknown_object_is_a_usage_error(self):
        with self.assertRaises(UsageError):
            describe("no_such_thing", {}, {}, 1)


class Dispatch(unittest.TestCase):
    def test_unknown_magic_names_itself_and_prints_as_usage_error(self):
        with self.assertRaises(UsageError) as caught:
            MagicRuntime().line("frobnicate", "")
        self.assertIn("%frobnicate", str(caught.exception))
        self.assertIn("%pip", str(caught.exception))
        last = traceback.format_exception_only(type(caught.exception), caught.exception)[-1]
        self.assertTrue(last.startswith("UsageError: "), last)
        self.assertIsInstance(caught.exception, NameError)

    def test_line_magic_arguments_are_interpolated_from_the_caller(self):
        where = "/"  # noqa: F841 (read by the magic through the frame)
        before = os.getcwd()
        try:
            MagicRuntime().line("cd", "-q {where}")
            self.assertEqual(os.getcwd(), "/")
        finally:
            os.chdir(before)


if __name__ == "__main__":
    unittest.main()
