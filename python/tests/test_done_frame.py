"""The directly formatted `done` frame is byte for byte what encode_frame gives for the same dict."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import frame_encoding  # noqa: E402

IDS = ["k1-1", "", "quote \" and \\ slash", "caf\u00e9 \u2603 \U0001f600", "\ud800 lone", "\n\t\x00"]


def reference(cell_id, status, count, cancelled, cpu_ms, peak, nonce):
    frame = {"type": "done", "id": cell_id, "status": status, "executionCount": count, "cancelled": cancelled}
    frame["usage"] = {"cpuMs": cpu_ms, "peakRssBytes": peak}
    if nonce is not None:
        frame["nonce"] = nonce
    return frame_encoding.encode_frame(frame)


class DoneFrameTest(unittest.TestCase):
    def test_random_done_frames_match_the_general_encoder(self):
        rng = random.Random(7)
        for _ in range(3000):
            args = (
                rng.choice(IDS) + str(rng.randrange(10**6)),
                rng.choice(("ok", "error")),
                rng.randrange(10**7),
                rng.random() < 0.3,
                rng.choice((0.0, 0.041, 1e-3, 123456.789, round(rng.random() * 1000, 3))),
                rng.randrange(1 << 40),
                rng.choice((None, "9f2c" + str(rng.randrange(10**9)), "n\u00e9")),
            )
            self.assertEqual(frame_encoding.encode_done(*args), reference(*args), args)


if __name__ == "__main__":
    unittest.main()
