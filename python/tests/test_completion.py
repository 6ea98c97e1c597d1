"""Tab completion from the live namespace: names, attributes, dict keys, paths, magics; fast on big namespaces."""

import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from evalkit_kernel.core.completion import complete, complete_utf16, utf16_length  # noqa: E402


class Thing(object):
    alpha = 1
    _hidden = 2

    def beta(self):
        return 3


class CompletionTest(unittest.TestCase):
    def test_names_come_from_the_namespace_builtins_and_keywords(self):
        ns = {"dataframe": 1, "data_rows": 2, "other": 3}
        self.assertEqual(complete("dat", 3, ns), (0, ["data_rows", "dataframe"]))
        self.assertIn("print", complete("x = pri", 7, ns)[1])
        self.assertIn("while", complete("whi", 3, ns)[1])

    def test_cursor_and_start_count_utf16_code_units_as_the_host_does(self):
        ns = {"conformance_value": 1}
        code = 'x = "\U0001F600"; conformance_v'
        # The host's offsets are JavaScript string indexes: the emoji counts twice there.
        self.assertEqual(complete_utf16(code, len(code) + 1, ns), (len(code) + 1 - 13, ["conformance_value"]))
        self.assertEqual(complete_utf16("conf", 4, ns), (0, ["conformance_value"]))
        self.assertEqual(utf16_length(code), len(code) + 1)

    def test_attributes_of_a_name_chain_without_private_ones_unless_asked(self):
        ns = {"t": Thing(), "os": os}
        self.assertEqual(complete("t.", 2, ns), (2, ["alpha", "beta"]))
        self.assertEqual(complete("t._h", 4, ns), (2, ["_hidden"]))
        self.assertIn("join", complete("os.path.jo", 10, ns)[1])

    def test_module_names_after_import_and_from_not_builtins(self):
        start, matches = complete("import o", 8, {"other": 1})
        self.assertEqual(start, 7)
        self.assertIn("os", matches)
        self.assertNotIn("object", matches)  # a builtin, not a module
        self.assertNotIn("other", matches)  # a variable, not a module
        self.assertIn("json", complete("import sys, js", 14, {})[1])
        self.assertIn("os", complete("from o", 6, {})[1])
        self.assertEqual(complete("import xml.e", 12, {}), (11, ["etree"]))
        self.assertEqual(complete("from xml.etree.Element", 22, {})[1], ["ElementInclude", "ElementPath", "ElementTree"])

    def test_names_of_a_module_after_from_import(self):
        self.assertIn("path", complete("from os import pa", 17, {})[1])
        self.assertIn("ElementTree", complete("from xml.etree import (Elem", 27, {})[1])

    def test_completing_a_module_name_does_not_import_it(self):
        for name in ("xml.dom", "xml.dom.minidom", "wsgiref"):
            sys.modules.pop(name, None)
        self.assertIn("minidom", complete("import xml.dom.mini", 19, {})[1])
        self.assertIn("simple_server", complete("from wsgiref import s", 21, {})[1])
        for name in ("xml.dom", "xml.dom.minidom", "wsgiref"):
            self.assertNotIn(name, sys.modules)

    def test_dict_keys_close_the_subscript(self):
        ns = {"config": {"learning_rate": 1, "layers": 2, 3: "x"}}
        self.assertEqual(complete("config['l", 9, ns), (8, ["layers']", "learning_rate']"]))

    def test_file_paths_inside_a_string(self):
        with tempfile.TemporaryDirectory() as folder:
            os.mkdir(os.path.join(folder, "data"))
            open(os.path.join(folder, "data.csv"), "w").close()
            code = "open('%s/da" % folder
            start, matches = complete(code, len(code), {})
            self.assertEqual(start, 6)
            self.assertEqual(matches, [folder + "/data.csv", folder + "/data" + os.sep])

    def test_magics_line_and_cell(self):
        from evalkit_kernel.core import hooks
        from evalkit_kernel.magics.catalog import magic_names

        hooks.set_magic_names(magic_names)  # what the magics module's install() registers
        self.assertIn("%timeit", complete("%tim", 4, {})[1])
        self.assertIn("%%bash", complete("%%ba", 4, {})[1])

    def test_only_the_cursor_line_counts_and_nothing_is_called(self):
        class Explodes(object):
            def __getattr__(self, name):
                raise RuntimeError("boom")

        ns = {"value": 1, "bad": Explodes()}
        self.assertEqual(complete("x = 1\nval", 9, ns), (6, ["value"]))
        self.assertEqual(complete("bad.sth.x", 9, ns), (8, []))

    def test_a_large_namespace_stays_fast(self):
        ns = dict(("name_%06d" % i, i) for i in range(200000))
        started = time.time()
        start, matches = complete("name_0001", 9, ns)
        self.assertEqual(len(matches), 100)
        # Generous: the point is that it ends in interactive time, not a benchmark.
        self.assertLess(time.time() - started, 5)


if __name__ == "__main__":
    unittest.main()
