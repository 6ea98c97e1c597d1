"""json_codec gives what the json module gives, for every value shape the protocol carries."""

import json
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import json_codec  # noqa: E402

STRINGS = ["", "a", "quote \" and \\ slash", "\n\t\r\x00\x1f", "caf\u00e9 \u2603 \U0001f600", "\ud800 lone", "</script>"]


def random_value(rng, depth=0):
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.randint(-(2 ** 70), 2 ** 70)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, 1e300, -2.5e-300, rng.random()])
    if kind in (4, 5):
        return rng.choice(STRINGS) + str(rng.random())
    if kind == 6:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return tuple(random_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    return {rng.choice(STRINGS) + str(i): random_value(rng, depth + 1) for i in range(rng.randrange(4))}


class JsonCodecTest(unittest.TestCase):
    def test_dumps_matches_json_for_random_values(self):
        rng = random.Random(7)
        for _ in range(2000):
            value = random_value(rng)
            expected = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
            self.assertEqual(json_codec.dumps(value), expected)

    def test_loads_reads_back_what_json_writes(self):
        rng = random.Random(11)
        for _ in range(2000):
            text = json.dumps(random_value(rng), ensure_ascii=rng.choice([True, False]))
            padded = rng.choice(["", " ", "\n"]) + text + rng.choice(["", "\r\n", "  "])
            self.assertEqual(json_codec.loads(padded), json.loads(padded))

    def test_dumps_refuses_nan_and_foreign_types_like_json(self):
        for bad in (float("nan"), float("inf"), {"k": object()}, b"bytes", {1j: 1}):
            with self.assertRaises((ValueError, TypeError)):
                json_codec.dumps(bad)

    def test_dumps_turns_int_keys_into_strings_like_json(self):
        self.assertEqual(json_codec.dumps({1: "a", True: "b"}), json.dumps({1: "a", True: "b"}, separators=(",", ":")))

    def test_one_shared_encoder_refuses_a_cyclic_value_and_the_frame_encoder_still_sends_valid_json(self):
        from evalkit_kernel.core.frame_encoding import encode_frame

        cyclic = {"k": [1]}
        cyclic["k"].append(cyclic)
        with self.assertRaises((ValueError, RecursionError)):
            json_codec.dumps(cyclic)
        frame = {"type": "display", "id": "c1", "bundle": {"application/json": cyclic}}
        decoded = json.loads(encode_frame(frame).decode("ascii"))
        self.assertEqual(decoded["bundle"]["application/json"]["k"][0], 1)
        # The encoder is shared: the failure left nothing behind for the next value.
        self.assertEqual(json_codec.dumps({"a": [cyclic["k"][0]]}), '{"a":[1]}')

    def test_the_shared_encoder_gives_each_thread_its_own_output(self):
        import threading

        failures = []

        def work(seed):
            rng = random.Random(seed)
            for _ in range(300):
                value = random_value(rng)
                expected = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
                if json_codec.dumps(value) != expected:
                    failures.append(seed)

        threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(failures, [])

    def test_loads_rejects_what_is_not_one_json_value(self):
        for bad in ("", "  ", "{", "[1,]", "1 2", '{"a":1}x', "nul", '"\\x"'):
            with self.assertRaises(ValueError):
                json_codec.loads(bad)

    def test_loads_accepts_bytes_and_the_json_constants(self):
        self.assertEqual(json_codec.loads(b'{"a":[1,2.5,"x"]}'), {"a": [1, 2.5, "x"]})
        value = json_codec.loads("[NaN, Infinity, -Infinity]")
        self.assertNotEqual(value[0], value[0])
        self.assertEqual(value[1:], [float("inf"), float("-inf")])


if __name__ == "__main__":
    unittest.main()
