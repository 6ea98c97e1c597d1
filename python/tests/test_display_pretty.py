"""The pretty printer against IPython's own output: fixed expectations, plus a side-by-side run when IPython is here."""

import collections
import os
import re
import sys
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.display import formatting as display_format  # noqa: E402
from evalkit_kernel.display import formatters as display_formatters  # noqa: E402
from evalkit_kernel.display.pretty import pretty  # noqa: E402


class Plain(object):
    pass


class TwoLines(object):
    def __repr__(self):
        return "line1\nline2"


class WithPretty(object):
    def _repr_pretty_(self, p, cycle):
        with p.group(2, "W(", ")"):
            p.text("a,")
            p.breakable()
            p.pretty(list(range(30)))


def _sample(x, y=2):
    pass


def cases():
    """(value, IPython 8.5 and 9.x text/plain): each was checked against IPython.lib.pretty.pretty."""
    looped = [1]
    looped.append(looped)
    return [
        (type(1.0), "float"),
        (int, "int"),
        (Plain, "__main__.Plain" if __name__ == "__main__" else "%s.Plain" % __name__),
        ({"b": 1, "a": 2}, "{'b': 1, 'a': 2}"),
        ({3, 1, 2}, "{1, 2, 3}"),
        ({1, "a", 2.0}, "{1, 2.0, 'a'}"),
        (frozenset({2, 1}), "frozenset({1, 2})"),
        (set(), "set()"),
        ((1,), "(1,)"),
        (list(range(30)), "[" + ",\n ".join(str(i) for i in range(30)) + "]"),
        (["a" * 50, "b" * 50], "['%s',\n '%s']" % ("a" * 50, "b" * 50)),
        ({"k" * 30: list(range(12)), "z": {"a" * 40: "b" * 40}},
         "{'%s': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],\n 'z': {'%s': '%s'}}" % ("k" * 30, "a" * 40, "b" * 40)),
        (collections.OrderedDict(a=1), "OrderedDict([('a', 1)])"),
        (collections.defaultdict(list, a=[1]), "defaultdict(list, {'a': [1]})"),
        (collections.Counter("abca"), "Counter({'a': 2, 'b': 1, 'c': 1})"),
        (collections.deque([1, 2]), "deque([1, 2])"),
        (re.compile("a", re.I), "re.compile(r'a', re.IGNORECASE|re.UNICODE)"),
        (types.SimpleNamespace(a=1, b="x"), "namespace(a=1, b='x')"),
        (len, "<function len(obj, /)>"),
        (ValueError("x", 2), "ValueError('x', 2)"),
        ([TwoLines(), TwoLines()], "[line1\n line2,\n line1\n line2]"),
        (WithPretty(), "W(a,\n  [0,\n   1,\n" + "".join("   %d,\n" % i for i in range(2, 29)) + "   29])"),
        (looped, "[1, [...]]"),
        (list(range(1001))[-1:] + list(range(1001)), None),
    ]


class PrettyTest(unittest.TestCase):
    def test_matches_ipythons_text_for_builtin_and_stdlib_types(self):
        for value, expected in cases():
            if expected is not None:
                self.assertEqual(pretty(value), expected)

    def test_an_object_without_repr_shows_module_class_and_address(self):
        text = pretty(Plain())
        self.assertRegex(text, r"^<[\w.]+\.Plain at 0x[0-9a-f]+>$")

    def test_long_sequences_stop_after_a_thousand_items(self):
        text = pretty(list(range(5000)))
        self.assertTrue(text.endswith(" 999,\n ...]"), text[-30:])

    def test_results_use_the_pretty_printer_and_scalars_stay_repr(self):
        self.assertEqual(display_format.format_result(type(1.0))[0]["text/plain"], "float")
        self.assertEqual(display_format.format_result("x")[0]["text/plain"], "'x'")
        self.assertEqual(display_format.format_result({2, 1})[0]["text/plain"], "{1, 2}")

    def test_a_broken_repr_pretty_falls_back_to_repr(self):
        class Broken(object):
            def _repr_pretty_(self, p, cycle):
                raise RuntimeError("boom")

            def __repr__(self):
                return "Broken()"

        stderr, sys.stderr = sys.stderr, __import__("io").StringIO()
        try:
            self.assertEqual(display_format.format_result(Broken())[0]["text/plain"], "Broken()")
            self.assertIn("boom", sys.stderr.getvalue())
        finally:
            sys.stderr = stderr


def _ipython_pretty():
    try:
        from IPython.lib.pretty import pretty as ipython_pretty
    except ImportError:
        return None
    return ipython_pretty


class AgainstIPythonTest(unittest.TestCase):
    @unittest.skipIf(_ipython_pretty() is None, "IPython is not installed for %s: side-by-side check skipped"
                     % sys.executable)
    def test_every_case_prints_exactly_as_the_installed_ipython(self):
        ipython_pretty = _ipython_pretty()
        for value, _ in cases():
            self.assertEqual(pretty(value), ipython_pretty(value))
        self.assertEqual(re.sub("0x[0-9a-f]+", "", pretty(Plain())), re.sub("0x[0-9a-f]+", "", ipython_pretty(Plain())))


class FormatterTest(unittest.TestCase):
    def tearDown(self):
        del display_formatters._instance[:]

    def test_for_type_on_text_plain_and_html_changes_the_bundle(self):
        formatter = display_formatters.get()
        formatter.formatters["text/plain"].for_type(int, lambda n, p, cycle: p.text("int:%d" % n))
        formatter.formatters["text/html"].for_type_by_name(__name__, "Plain", lambda obj: "<i>plain</i>")
        self.assertEqual(display_format.format_result(5)[0], {"text/plain": "int:5"})
        self.assertEqual(display_format.format_object([5])[0]["text/plain"], "[int:5]")
        self.assertEqual(display_format.format_object(Plain())[0]["text/html"], "<i>plain</i>")
        self.assertIn(Plain, formatter.formatters["text/html"])

    def test_a_disabled_formatter_drops_its_mime_type(self):
        class Rich(object):
            def _repr_html_(self):
                return "<b>x</b>"

        display_formatters.get().formatters["text/html"].enabled = False
        self.assertNotIn("text/html", display_format.format_object(Rich())[0])
        self.assertNotIn("text/html", display_formatters.get().active_types)

    def test_objects_with_ipython_display_show_only_what_they_display(self):
        shown = []

        class Self(object):
            def _ipython_display_(self):
                shown.append(1)

        self.assertIsNone(display_format.format_result(Self()))
        self.assertEqual(display_formatters.get().format(Self()), ({}, {}))
        self.assertEqual(shown, [1, 1])


if __name__ == "__main__":
    unittest.main()
