"""Unit tests for display dispatch, display()/update_display()/clear_output() and the IPython-style wrappers."""

import base64
import io
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.display import publish as display  # noqa: E402
from evalkit_kernel.display import formatting as display_format  # noqa: E402
from evalkit_kernel.display import mime_values  # noqa: E402
from evalkit_kernel.display import tables as display_tables  # noqa: E402
from evalkit_kernel.core import hooks  # noqa: E402
from evalkit_kernel.core import import_hooks  # noqa: E402
from evalkit_kernel.core import state  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


class Recorder(unittest.TestCase):
    """Collects what display code emits by replacing the state emitters, and captures stderr."""

    def setUp(self):
        self.frames = []
        self._saved = (state.emit_display, state.emit_clear_output, sys.stderr)

        def emit_display(bundle, metadata=None, display_id=None, update=False):
            self.frames.append({"bundle": bundle, "metadata": metadata, "displayId": display_id, "update": update})

        def emit_clear_output(wait=False):
            self.frames.append({"clear": True, "wait": wait})

        state.emit_display = emit_display
        state.emit_clear_output = emit_clear_output
        self.stderr = io.StringIO()
        sys.stderr = self.stderr

    def tearDown(self):
        state.emit_display, state.emit_clear_output, sys.stderr = self._saved


class Everything(object):
    def _repr_html_(self):
        return "<b>html</b>"

    def _repr_markdown_(self):
        return "**md**"

    def _repr_svg_(self):
        return "<svg/>"

    def _repr_png_(self):
        return PNG

    def _repr_jpeg_(self):
        return b"\xff\xd8jpeg", {"width": 3}

    def _repr_json_(self):
        return {"a": (1, 2)}

    def _repr_latex_(self):
        return "$x$"

    def __repr__(self):
        return "Everything()"


class FormatObjectTest(Recorder):
    def test_each_repr_method_fills_its_mime_type_and_text_plain_comes_from_repr(self):
        data, metadata = display_format.format_object(Everything())
        self.assertEqual(data["text/html"], "<b>html</b>")
        self.assertEqual(data["text/markdown"], "**md**")
        self.assertEqual(data["image/svg+xml"], "<svg/>")
        self.assertEqual(base64.b64decode(data["image/png"]), PNG)
        self.assertEqual(base64.b64decode(data["image/jpeg"]), b"\xff\xd8jpeg")
        self.assertEqual(data["application/json"], {"a": [1, 2]})
        self.assertEqual(data["text/latex"], "$x$")
        self.assertEqual(data["text/plain"], "Everything()")
        self.assertEqual(metadata, {"image/jpeg": {"width": 3}})

    def test_mimebundle_comes_first_and_honours_include_and_exclude(self):
        seen = {}

        class Bundled(object):
            def _repr_mimebundle_(self, include=None, exclude=None):
                seen["include"], seen["exclude"] = include, exclude
                return {"text/html": "<i>b</i>", "text/markdown": "*b*"}, {"text/html": {"isolated": True}}

            def _repr_html_(self):
                return "<i>ignored because the bundle has html</i>"

            def _repr_latex_(self):
                return "$b$"

        data, metadata = display_format.format_object(Bundled())
        self.assertEqual(data["text/html"], "<i>b</i>")
        self.assertEqual(data["text/latex"], "$b$")
        self.assertEqual(metadata, {"text/html": {"isolated": True}})
        data, _ = display_format.format_object(Bundled(), include=["text/markdown"])
        self.assertEqual(sorted(data), ["text/markdown"])
        self.assertEqual(seen["include"], {"text/markdown"})
        data, _ = display_format.format_object(Bundled(), exclude=["text/html", "text/latex"])
        self.assertEqual(sorted(data), ["text/markdown", "text/plain"])

    def test_a_raising_repr_is_skipped_with_a_warning_and_the_rest_still_shows(self):
        class Broken(object):
            def _repr_html_(self):
                raise ValueError("no html today")

            def _repr_markdown_(self):
                return "fine"

        data, _ = display_format.format_object(Broken())
        self.assertNotIn("text/html", data)
        self.assertEqual(data["text/markdown"], "fine")
        self.assertIn("Broken._repr_html_() raised ValueError: no html today", self.stderr.getvalue())

    def test_a_raising_repr_falls_back_to_a_default_text(self):
        class NoRepr(object):
            def __repr__(self):
                raise RuntimeError("nope")

        data, _ = display_format.format_object(NoRepr())
        self.assertTrue(data["text/plain"].startswith("<NoRepr object at 0x"))
        self.assertIn("repr() of NoRepr raised RuntimeError", self.stderr.getvalue())

    def test_classes_are_not_rendered_through_their_unbound_repr_methods(self):
        data, _ = display_format.format_object(Everything)
        self.assertEqual(list(data), ["text/plain"])

    def test_none_results_and_text_mimes_given_as_bytes(self):
        class Odd(object):
            def _repr_html_(self):
                return None

            def _repr_svg_(self):
                return b"<svg>\xc3\xa9</svg>"

        data, _ = display_format.format_object(Odd())
        self.assertNotIn("text/html", data)
        self.assertEqual(data["image/svg+xml"], "<svg>\u00e9</svg>")

    def test_json_values_become_plain_json_data(self):
        value = mime_values.normalize_value("application/json", '{"a": [1, 2]}')
        self.assertEqual(value, {"a": [1, 2]})
        value = mime_values.normalize_value("application/json", {1: {2, 3}, "b": b"\x00"})
        self.assertEqual(sorted(value["1"]), [2, 3])
        self.assertEqual(value["b"], "AA==")

    def test_result_formatter_never_returns_an_empty_bundle(self):
        bundle, _ = display_format.format_result([1, 2])
        self.assertEqual(bundle, {"text/plain": "[1, 2]"})


class DisplayTest(Recorder):
    def test_display_emits_one_frame_per_object_and_returns_none(self):
        self.assertIsNone(display.display(1, "x"))
        self.assertEqual([f["bundle"] for f in self.frames], [{"text/plain": "1"}, {"text/plain": "'x'"}])

    def test_raw_display_takes_a_ready_bundle_and_encodes_bytes(self):
        display.display({"text/plain": "hi", "image/png": PNG}, raw=True, metadata={"k": 1})
        frame = self.frames[0]
        self.assertEqual(frame["bundle"]["text/plain"], "hi")
        self.assertEqual(base64.b64decode(frame["bundle"]["image/png"]), PNG)
        self.assertEqual(frame["metadata"], {"k": 1})
        with self.assertRaises(TypeError):
            display.display("not a bundle", raw=True)

    def test_display_id_true_makes_a_fresh_id_and_the_handle_updates_it(self):
        handle = display.display("first", display_id=True)
        self.assertIsInstance(handle, display.DisplayHandle)
        self.assertRegex(handle.display_id, "^[0-9a-f]{32}$")
        handle.update("second")
        handle.display("third")
        display.update_display("fourth", display_id=handle.display_id)
        ids = set(f["displayId"] for f in self.frames)
        self.assertEqual(ids, {handle.display_id})
        self.assertEqual([f["update"] for f in self.frames], [False, True, False, True])
        self.assertEqual(self.frames[1]["bundle"], {"text/plain": "'second'"})
        self.assertNotEqual(display.display(1, display_id=True).display_id, handle.display_id)

    def test_update_display_without_an_id_is_a_clear_error(self):
        with self.assertRaises(TypeError):
            display.update_display("x")
        with self.assertRaises(TypeError):
            display.display("x", unknown=1)

    def test_clear_output_sends_the_wait_flag(self):
        display.clear_output()
        display.clear_output(wait=True)
        self.assertEqual(self.frames, [{"clear": True, "wait": False}, {"clear": True, "wait": True}])

    def test_wrappers_show_their_content_under_the_right_mime_type(self):
        display.display(display.HTML("<p>x</p>"), display.Markdown("# t"), display.JSON('{"a": 1}'))
        display.display(display.Image(PNG, width=10), display.SVG("<svg/>"), display.Latex("$y$"))
        bundles = [f["bundle"] for f in self.frames]
        self.assertEqual(bundles[0]["text/html"], "<p>x</p>")
        self.assertEqual(bundles[1]["text/markdown"], "# t")
        self.assertEqual(bundles[2]["application/json"], {"a": 1})
        self.assertEqual(base64.b64decode(bundles[3]["image/png"]), PNG)
        self.assertEqual(self.frames[3]["metadata"], {"image/png": {"width": 10}})
        self.assertEqual(bundles[4]["image/svg+xml"], "<svg/>")
        self.assertEqual(bundles[5]["text/latex"], "$y$")
        self.assertEqual(bundles[0]["text/plain"], "<IPython.core.display.HTML object>")

    def test_image_reads_a_file_and_guesses_jpeg(self):
        folder = tempfile.mkdtemp()
        try:
            path = os.path.join(folder, "photo.jpg")
            with open(path, "wb") as handle:
                handle.write(b"\xff\xd8\xff\xe0rest")
            display.display(display.Image(filename=path))
            display.display(display.Image(path))
        finally:
            shutil.rmtree(folder)
        for frame in self.frames:
            self.assertEqual(base64.b64decode(frame["bundle"]["image/jpeg"]), b"\xff\xd8\xff\xe0rest")


class InstallTest(unittest.TestCase):
    def test_install_sets_the_formatter_flush_hook_and_namespace_names(self):
        saved = (hooks._result_formatter, list(hooks.post_execute), list(hooks.namespace_installers),
                 set(hooks.reserved_names), list(sys.meta_path), os.environ.get("MPLBACKEND"))
        try:
            os.environ.pop("MPLBACKEND", None)
            display.install()
            self.assertEqual(os.environ["MPLBACKEND"], "Agg")
            self.assertIs(hooks._result_formatter, display.format_result)
            self.assertIn(display.mpl.flush_figures, hooks.post_execute)
            namespace = {}
            hooks.install_namespace(namespace)
            for name in ("display", "update_display", "clear_output", "HTML", "Markdown", "Image", "JSON"):
                self.assertIn(name, namespace)
                self.assertIn(name, hooks.reserved_names)
            os.environ["MPLBACKEND"] = "svg"
            display.install()
            self.assertEqual(os.environ["MPLBACKEND"], "svg")
        finally:
            hooks._result_formatter = saved[0]
            hooks.post_execute[:] = saved[1]
            hooks.namespace_installers[:] = saved[2]
            hooks.reserved_names.clear()
            hooks.reserved_names.update(saved[3])
            sys.meta_path[:] = saved[4]
            if saved[5] is None:
                os.environ.pop("MPLBACKEND", None)
            else:
                os.environ["MPLBACKEND"] = saved[5]


class ImportHookTest(unittest.TestCase):
    def test_a_callback_runs_right_after_the_watched_module_is_first_imported(self):
        folder = tempfile.mkdtemp()
        saved_meta = list(sys.meta_path)
        sys.path.insert(0, folder)
        try:
            with open(os.path.join(folder, "evalkit_watched_mod.py"), "w") as handle:
                handle.write("def show():\n    return 'original'\n")
            seen = []

            def patch(module):
                seen.append(module.__name__)
                module.show = lambda: "patched"

            import_hooks.when_imported("evalkit_watched_mod", patch)
            self.assertEqual(seen, [])
            import evalkit_watched_mod

            self.assertEqual(seen, ["evalkit_watched_mod"])
            self.assertEqual(evalkit_watched_mod.show(), "patched")
            import_hooks.when_imported("evalkit_watched_mod", patch)  # already loaded: runs at once
            self.assertEqual(len(seen), 2)
        finally:
            sys.path.remove(folder)
            sys.meta_path[:] = saved_meta
            sys.modules.pop("evalkit_watched_mod", None)
            shutil.rmtree(folder)


class FakePlotlyTest(Recorder):
    """plotly is recognised by class name; a stand-in package proves it is never imported by us."""

    def test_a_plotly_figure_gives_its_json_html_and_a_text_fallback_without_kaleido(self):
        folder = tempfile.mkdtemp()
        os.makedirs(os.path.join(folder, "plotly"))
        with open(os.path.join(folder, "plotly", "__init__.py"), "w") as handle:
            handle.write("")
        with open(os.path.join(folder, "plotly", "basedatatypes.py"), "w") as handle:
            handle.write(
                "import json\n"
                "class BaseFigure(object):\n"
                "    def to_json(self):\n"
                "        return json.dumps({'data': [{'type': 'bar', 'y': [1]}, {'y': [2]}],\n"
                "                           'layout': {'title': {'text': 'Sales'}}})\n"
                "    def to_html(self, **kw):\n"
                "        return '<div>plot</div>'\n"
                "class Figure(BaseFigure):\n"
                "    pass\n"
            )
        sys.path.insert(0, folder)
        try:
            from plotly.basedatatypes import Figure

            data, _ = display_format.format_object(Figure())
        finally:
            sys.path.remove(folder)
            for name in ("plotly", "plotly.basedatatypes"):
                sys.modules.pop(name, None)
            shutil.rmtree(folder)
        self.assertEqual(data["application/vnd.plotly.v1+json"]["layout"]["title"]["text"], "Sales")
        self.assertEqual(data["text/html"], "<div>plot</div>")
        self.assertNotIn("image/png", data)
        self.assertIn("Plotly figure: 2 traces (bar, scatter); title 'Sales'.", data["text/plain"])
        self.assertIn("kaleido", data["text/plain"])

    def test_plotly_show_displays_the_figure_in_the_cell(self):
        class BaseFigure(object):
            def show(self, *args, **kwargs):
                return "browser"

            def __repr__(self):
                return "Fig()"

        module = type(sys)("fake_plotly_basedatatypes")
        module.BaseFigure = BaseFigure
        display._patch_plotly_show(module)
        self.assertIsNone(BaseFigure().show())
        self.assertEqual(self.frames[0]["bundle"], {"text/plain": "Fig()"})
        self.assertEqual(BaseFigure().show(renderer="browser"), "browser")

    def test_library_detection_costs_nothing_when_no_library_is_loaded(self):
        self.assertIsNone(display_format.library_kind(object()))


class HtmlTableTest(unittest.TestCase):
    def test_a_pandas_style_table_becomes_a_markdown_table_with_its_footer(self):
        html = (
            "<div><style scoped>.x{}</style><table border='1' class='dataframe'><thead>"
            "<tr><th></th><th>a|b</th><th>c</th></tr><tr><th>idx</th><th></th><th></th></tr></thead>"
            "<tbody><tr><th rowspan='2'>k</th><td>1</td><td>x &amp; y</td></tr>"
            "<tr><td>2</td><td>z</td></tr></tbody></table><p>2 rows \u00d7 2 columns</p></div>"
        )
        self.assertEqual(
            display_tables.html_table_to_markdown(html),
            "| idx | a\\|b | c |\n|---|---|---|\n| k | 1 | x & y |\n| k | 2 | z |\n\n2 rows \u00d7 2 columns",
        )

    def test_column_spans_merge_into_the_header_labels(self):
        html = (
            "<table><thead><tr><th></th><th colspan='2'>x</th></tr><tr><th></th><th>p</th><th>q</th></tr></thead>"
            "<tbody><tr><th>0</th><td>1</td><td>2</td></tr></tbody></table>"
        )
        self.assertEqual(
            display_tables.html_table_to_markdown(html), "|  | x / p | x / q |\n|---|---|---|\n| 0 | 1 | 2 |"
        )

    def test_no_table_gives_none(self):
        self.assertIsNone(display_tables.html_table_to_markdown("<p>hello</p>"))


if __name__ == "__main__":
    unittest.main()
