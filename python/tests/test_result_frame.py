"""The directly formatted short `result` frame is byte for byte what encode_frame gives for the same dict."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import frame_encoding  # noqa: E402

PIECES = ["2", "'text'", "quote \" and \\ slash", "caf\u00e9 \u2603 \U0001f600", "\ud800 lone", "\n\t\x00\x7f", "x" * 70]


def reference(cell_id, text, count, nonce):
    frame = {"type": "result", "bundle": {"text/plain": text}, "executionCount": count, "id": cell_id}
    if nonce is not None:
        frame["nonce"] = nonce
    return frame_encoding.encode_frame(frame)


class ResultFrameTest(unittest.TestCase):
    def test_random_result_frames_match_the_general_encoder(self):
        rng = random.Random(11)
        for _ in range(3000):
            text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(6)))
            args = (
                rng.choice(PIECES) + str(rng.randrange(10**6)),
                text,
                rng.choice((None, 0, 1, rng.randrange(10**7))),
                rng.choice((None, "9f2c" + str(rng.randrange(10**9)), "n\u00e9")),
            )
            self.assertEqual(frame_encoding.encode_plain_result(*args), reference(*args), args)

    def test_the_limit_is_below_the_size_where_big_values_are_spliced(self):
        # encode_frame splices values of 64 KiB and more: the direct form is only used far below that.
        self.assertLess(frame_encoding.PLAIN_RESULT_MAX_CHARS, frame_encoding._RAW_MIN_CHARS)


if __name__ == "__main__":
    unittest.main()
