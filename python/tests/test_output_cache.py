"""IPython's output cache limit: the oldest fifth of a full Out and their _N names go; other entries stay."""

import os
import sys
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import output_cache  # noqa: E402


class OutputCacheTest(unittest.TestCase):
    def test_a_full_cache_loses_its_oldest_fifth_with_a_warning(self):
        out = {n: n * 10 for n in range(5, 5 + output_cache.CACHE_SIZE)}
        ns = dict(("_%d" % n, v) for n, v in out.items())
        ns["_i5"] = "kept"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            output_cache.make_room(ns, out)
        self.assertEqual(len(out), 800)
        self.assertEqual(min(out), 205)
        self.assertNotIn("_204", ns)
        self.assertEqual(ns["_205"], 2050)
        self.assertEqual(ns["_i5"], "kept")
        self.assertEqual(
            [str(w.message) for w in caught],
            ["Output cache limit (currently 1000 entries) hit.\nFlushing oldest 200 entries."],
        )

    def test_a_cache_with_room_is_left_alone(self):
        out = {1: "a", 2: "b"}
        ns = {"_1": "a", "_2": "b"}
        output_cache.make_room(ns, out)
        self.assertEqual((out, ns), ({1: "a", 2: "b"}, {"_1": "a", "_2": "b"}))

    def test_keys_a_cell_added_that_are_not_counts_stay(self):
        out = dict((n, n) for n in range(output_cache.CACHE_SIZE - 1))
        out["mine"] = "x"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            output_cache.make_room({}, out)
        self.assertEqual(out["mine"], "x")
        self.assertEqual(len(out), 800)


if __name__ == "__main__":
    unittest.main()
