"""big_values keeps every result, display and error frame under the host's line bound and spills full texts."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import big_values  # noqa: E402
from evalkit_kernel.core.frame_encoding import encode_frame  # noqa: E402


class BigValuesTest(unittest.TestCase):
    def setUp(self):
        self.spilled = []

    def spill(self, name, text):
        self.spilled.append((name, text))

    def test_a_small_result_is_left_alone_and_nothing_is_spilled(self):
        frame = {"type": "result", "bundle": {"text/plain": "'x' * 3"}}
        self.assertEqual(big_values.fit(dict(frame), self.spill), frame)
        self.assertEqual(self.spilled, [])

    def test_a_huge_text_value_is_capped_with_a_marker_and_spilled_whole_to_stdout(self):
        text = "é" * (big_values.TEXT_CAP * 3) + "END"
        frame = big_values.fit({"type": "result", "bundle": {"text/plain": text}}, self.spill)
        capped = frame["bundle"]["text/plain"]
        self.assertLess(len(capped), big_values.TEXT_CAP + 500)
        self.assertIn("characters left out here", capped)
        self.assertTrue(capped.endswith("END"))
        self.assertEqual(len(self.spilled), 1)
        self.assertEqual(self.spilled[0][0], "stdout")
        self.assertIn(text, self.spilled[0][1])
        self.assertLess(len(encode_frame(frame)), 8 << 20)

    def test_binary_values_over_the_frame_budget_are_dropped_biggest_first(self):
        size = big_values.FRAME_BUDGET // 2 + 10
        bundle = {"image/png": "A" * size, "image/jpeg": "B" * size, "text/plain": "<Figure>"}
        frame = big_values.fit({"type": "display", "bundle": bundle}, self.spill)
        dropped = [mime for mime, value in frame["bundle"].items() if value.startswith("[evalkit: this")]
        self.assertEqual(len(dropped), 1)
        self.assertEqual(frame["bundle"]["text/plain"], "<Figure>")
        self.assertEqual(self.spilled, [])

    def test_a_huge_traceback_is_capped_and_spilled_whole_to_stderr(self):
        evalue = "ü" * (big_values.TEXT_CAP * 2)
        lines = ["Traceback (most recent call last):", '  File "<cell 1>", line 1', "ValueError: " + evalue]
        frame = {"type": "error", "ename": "ValueError", "evalue": evalue, "traceback": lines}
        big_values.fit(frame, self.spill)
        self.assertEqual(frame["ename"], "ValueError")
        self.assertLess(len(frame["evalue"]), big_values.TEXT_CAP + 500)
        self.assertLess(sum(map(len, frame["traceback"])), big_values.TEXT_CAP + 1000)
        self.assertEqual(frame["traceback"][0], lines[0])
        self.assertEqual(self.spilled[0][0], "stderr")
        self.assertIn(evalue, self.spilled[0][1])

    def test_an_oversized_frame_of_any_other_shape_gets_a_small_stand_in(self):
        frame = {"type": "display", "id": "c1", "bundle": {"text/plain": "x"}, "metadata": {"m": "y" * 100}}
        small = big_values.replacement(frame, 70 << 20)
        self.assertEqual(small["id"], "c1")
        self.assertIn("was dropped", small["bundle"]["text/plain"])
        with self.assertRaises(ValueError):
            big_values.replacement({"type": "call", "id": "c1"}, 70 << 20)


if __name__ == "__main__":
    unittest.main()
