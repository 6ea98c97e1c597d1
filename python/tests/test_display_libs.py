"""Library rich output through the real runner on Debian's /usr/bin/python3 (matplotlib, pandas, PIL)."""

import base64
import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runner_harness import Runner  # noqa: E402

LIB_PYTHON = "/usr/bin/python3"
REQUIRED = ("matplotlib", "pandas", "PIL", "numpy")


def _missing_libraries():
    if not os.path.exists(LIB_PYTHON):
        return list(REQUIRED)
    missing = []
    for name in REQUIRED:
        if subprocess.call([LIB_PYTHON, "-c", "import " + name], stderr=subprocess.DEVNULL) != 0:
            missing.append(name)
    return missing


MISSING = _missing_libraries()


def png_size(b64):
    raw = base64.b64decode(b64)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert raw[12:16] == b"IHDR"
    return struct.unpack(">II", raw[16:24])


class LibraryDisplayTest(unittest.TestCase):
    runner = None

    @classmethod
    def setUpClass(cls):
        if MISSING:
            # CI installs the libraries and sets EVALKIT_REQUIRE_PYTHON_LIBS=1: there a missing one fails.
            if os.environ.get("EVALKIT_REQUIRE_PYTHON_LIBS") == "1":
                raise AssertionError("%s lacks %s (install python3-matplotlib python3-pandas python3-pil "
                                     "python3-numpy)" % (LIB_PYTHON, ", ".join(MISSING)))
            reason = "%s lacks %s (CI installs them; EVALKIT_REQUIRE_PYTHON_LIBS=1 fails instead)" % (
                LIB_PYTHON, ", ".join(MISSING))
            # unittest's default output shows a skip as one "s": say why on stderr, so it is never silent.
            sys.stderr.write("\nskipping %s: %s\n" % (cls.__name__, reason))
            raise unittest.SkipTest(reason)
        env = dict(os.environ)
        env.pop("MPLBACKEND", None)
        cls.runner = Runner(python=LIB_PYTHON, env=env)
        cls.runner.execute("import matplotlib.pyplot as plt\nimport pandas as pd\nfrom PIL import Image as PILImage")

    @classmethod
    def tearDownClass(cls):
        if cls.runner is not None:
            cls.runner.close()

    def run_cell(self, code):
        frames = self.runner.execute(code)
        done = frames[-1]
        self.assertEqual(done.get("status"), "ok", frames)
        return frames

    def images(self, frames):
        return [f["bundle"]["image/png"] for f in frames if f.get("type") == "display" and "image/png" in f["bundle"]]

    def test_one_plot_gives_exactly_one_png_cropped_as_the_inline_backend_and_no_list_result(self):
        frames = self.run_cell("plt.figure(figsize=(4, 3), dpi=50)\nplt.plot([1, 2, 3]);")
        images = self.images(frames)
        self.assertEqual(len(images), 1)
        width, height = png_size(images[0])
        # bbox_inches='tight' at the figure's dpi, as ipykernel saves it: inside the 200x150 figure, around its axes
        self.assertTrue(150 < width < 200 and 110 < height < 150, (width, height))
        self.assertEqual([f for f in frames if f.get("type") == "result"], [])

    def test_two_figures_give_two_images_in_creation_order(self):
        frames = self.run_cell("plt.figure(figsize=(2, 2), dpi=50); plt.plot([1])\n"
                               "plt.figure(figsize=(3, 2), dpi=50); plt.plot([2]);")
        (w1, h1), (w2, h2) = [png_size(i) for i in self.images(frames)]
        self.assertGreater(w2 - w1, 25)  # 3 inches wide against 2, at 50 dpi, both cropped alike
        self.assertEqual(h1, h2)

    def test_show_displays_where_it_is_called_and_does_not_duplicate(self):
        frames = self.run_cell("plt.plot([1]); plt.show(); print('between'); plt.plot([2]); plt.show()")
        kinds = [f["type"] for f in frames if f["type"] in ("display", "stdout")]
        self.assertEqual(kinds, ["display", "stdout", "display"])
        self.assertEqual(len(self.images(frames)), 2)

    def test_a_figure_displayed_explicitly_is_not_flushed_again_unless_it_changed(self):
        frames = self.run_cell("fig, ax = plt.subplots(); ax.plot([1]); display(fig)")
        self.assertEqual(len(self.images(frames)), 1)
        frames = self.run_cell("fig, ax = plt.subplots(); ax.plot([1]); display(fig); ax.plot([3])")
        self.assertEqual(len(self.images(frames)), 2)
        frames = self.run_cell("fig, ax = plt.subplots(); ax.plot([1]); fig")
        self.assertEqual(len([f for f in frames if f["type"] == "result" and "image/png" in f["bundle"]]), 1)
        self.assertEqual(len(self.images(frames)), 0)

    def test_figures_do_not_leak_into_the_next_cell(self):
        self.run_cell("plt.plot([1]);")
        frames = self.run_cell("len(plt.get_fignums())")
        self.assertEqual(frames[-2]["bundle"]["text/plain"], "0")

    def test_a_dataframe_result_has_html_plain_and_a_markdown_table(self):
        frames = self.run_cell("pd.DataFrame({'name': ['a', 'b'], 'score': [1.5, None]})")
        bundle = [f for f in frames if f["type"] == "result"][0]["bundle"]
        self.assertIn("<table", bundle["text/html"])
        self.assertIn("name", bundle["text/plain"])
        self.assertEqual(bundle["text/markdown"],
                         "|  | name | score |\n|---|---|---|\n| 0 | a | 1.5 |\n| 1 | b | NaN |")

    def test_a_series_result_gets_a_table_and_its_dtype(self):
        frames = self.run_cell("pd.Series([1, 2], index=['x', 'y'], name='n')")
        bundle = [f for f in frames if f["type"] == "result"][0]["bundle"]
        self.assertEqual(bundle["text/markdown"], "|  | n |\n|---|---|\n| x | 1 |\n| y | 2 |\n\nName: n, dtype: int64")

    def test_a_pil_image_becomes_a_png_of_its_size(self):
        frames = self.run_cell("PILImage.new('CMYK', (7, 5))")
        bundle = [f for f in frames if f["type"] == "result"][0]["bundle"]
        self.assertEqual(png_size(bundle["image/png"]), (7, 5))

    def test_the_default_backend_is_agg_and_pandas_is_never_imported_by_evalkit(self):
        frames = self.run_cell("import matplotlib; matplotlib.get_backend()")
        self.assertEqual(frames[-2]["bundle"]["text/plain"], "'agg'")
        fresh = Runner(python=LIB_PYTHON)
        try:
            frames = fresh.execute("import sys; sorted(m for m in ('pandas', 'PIL', 'matplotlib', 'numpy') "
                                   "if m in sys.modules)")
            self.assertEqual(frames[-2]["bundle"]["text/plain"], "[]")
        finally:
            fresh.close()


if __name__ == "__main__":
    unittest.main()
