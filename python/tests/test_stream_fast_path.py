"""The bulk stream-frame encoder writes the JSON encoder's exact bytes; sys.stdout's fast write keeps every guarantee."""

import json
import os
import random
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.capture import router as router_module  # noqa: E402
from evalkit_kernel.capture.router import CHUNK_CHARS, FD_SYNC_INTERVAL, ORPHAN_LIMIT, StreamRouter  # noqa: E402
from evalkit_kernel.capture.stream_frames import encode_stream_frames, escape_text  # noqa: E402
from evalkit_kernel.capture.streams import CellTextStream  # noqa: E402

# Characters that take every branch of the encoder: verbatim, short escapes, other controls, DEL, non-ASCII, surrogates.
ALPHABET = list("abc xyz~{}") + ['"', "\\", "\n", "\t", "\r", "\x00", "\x1b", "\x7f", "\x0c", "é", "€", "\udcff", "😀"]


class Cell(object):
    def __init__(self):
        self.id = "c1"

    def __call__(self):
        return self.id


class RawSink(object):
    """Collects the router's encoded writes and decodes their lines."""

    def __init__(self):
        self.writes = []

    def __call__(self, data):
        self.writes.append(data)

    def frames(self):
        lines = b"".join(self.writes).split(b"\n")
        assert lines[-1] == b""
        return [json.loads(line.decode("ascii")) for line in lines[:-1]]


def make_router():
    raw = RawSink()
    cell = Cell()
    router = StreamRouter(None, cell, raw)
    return router, raw, cell


def joined(frames, name=None):
    return "".join(f["data"] for f in frames if name is None or f["type"] == name)


class EncoderTest(unittest.TestCase):
    def test_escaped_text_is_exactly_what_json_dumps_writes(self):
        rng = random.Random(7)
        for _ in range(3000):
            size = rng.choice([0, 1, 2, 5, 40, 300])
            pool = ALPHABET if rng.random() < 0.5 else ALPHABET[:15]  # half of them stay on the fast path
            text = "".join(rng.choice(pool) for _ in range(size))
            expected = json.dumps(text, ensure_ascii=True)[1:-1].encode("ascii")
            self.assertEqual(escape_text(text), expected, repr(text))

    def test_frames_are_the_json_encoder_s_lines_cut_at_the_chunk_size(self):
        text = ("line \"%d\"\t\\ of output\r\n" * 5000) % tuple(range(5000))
        out = []
        encode_stream_frames("stderr", 'k1-"7"', text, CHUNK_CHARS, out)
        lines = b"".join(out).split(b"\n")[:-1]
        pieces = [text[i : i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)]
        self.assertEqual(len(lines), len(pieces))
        for line, piece in zip(lines, pieces):
            frame = {"type": "stderr", "id": 'k1-"7"', "data": piece}
            self.assertEqual(line, json.dumps(frame, separators=(",", ":")).encode("ascii"))


class FastWriteTest(unittest.TestCase):
    def setUp(self):
        self.router, self.raw, self.cell = make_router()
        self.out = CellTextStream(self.router, "stdout", 1)
        self.err = CellTextStream(self.router, "stderr", 2)

    def test_prints_arrive_whole_in_order_and_a_flush_leaves_in_one_write(self):
        for i in range(3000):
            print("line %d" % i, file=self.out)
        self.out.flush()
        frames = self.raw.frames()
        self.assertEqual(joined(frames), "".join("line %d\n" % i for i in range(3000)))
        self.assertTrue(all(len(f["data"]) <= CHUNK_CHARS for f in frames))
        self.router.write("stdout", "x" * (3 * CHUNK_CHARS))
        self.router.flush()
        self.assertEqual(len(self.raw.frames()) - len(frames), 3)
        self.assertEqual(self.raw.writes[-1].count(b"\n"), 3)

    def test_a_long_print_loop_leaves_as_full_frames(self):
        saved = router_module.FLUSH_DELAY
        router_module.FLUSH_DELAY = 60  # keep the timed flush out of the way: only full chunks leave
        try:
            for _ in range(320):
                print("z" * 1023, file=self.out)
            sizes = [len(f["data"]) for f in self.raw.frames()]
        finally:
            router_module.FLUSH_DELAY = saved
        self.assertEqual(sizes, [CHUNK_CHARS] * 10)

    def test_stream_switches_and_other_threads_keep_the_order_of_writes(self):
        cached = self.out.write  # a logging handler keeps the bound write; it must stay correct

        for i in range(300):
            self.out.write("o%d " % i)
            if i % 7 == 0:
                self.err.write("e%d " % i)
            done = threading.Event()

            def other(i=i, done=done):
                cached("t%d " % i)
                done.set()

            threading.Thread(target=other).start()
            done.wait()
        self.out.flush()
        expected = []
        for i in range(300):
            expected.append(("stdout", "o%d " % i))
            if i % 7 == 0:
                expected.append(("stderr", "e%d " % i))
            expected.append(("stdout", "t%d " % i))
        runs = []
        for frame in self.raw.frames():
            runs.append((frame["type"], frame["data"]))
        self.assertEqual("".join(t for _, t in runs), "".join(t for _, t in expected))
        self.assertEqual(joined(self.raw.frames(), "stderr"), "".join(t for n, t in expected if n == "stderr"))

    def test_a_capture_sink_takes_the_fast_writers_text(self):
        class Sink(object):
            text = ""

            def on_stream(self, name, text):
                Sink.text += text

        self.out.write("before ")
        self.out.write("still before ")
        self.router.flush()
        self.router.sinks.append(Sink())
        self.out.write("captured")
        self.router.flush()
        self.router.sinks.pop()
        self.out.write(" after")
        self.out.flush()
        self.assertEqual(Sink.text, "captured")
        self.assertEqual(joined(self.raw.frames()), "before still before  after")

    def test_fd_level_bytes_are_pulled_in_once_a_millisecond_has_passed(self):
        calls = []
        self.router.fd_sync = lambda: calls.append(1)
        before = time.monotonic()
        self.out.write("a")
        after = time.monotonic()
        self.assertEqual(len(calls), 1)
        # The next check is due one interval after the write (bounds taken around it, so load cannot fail this).
        self.assertGreaterEqual(self.router.fd_sync_due, before + FD_SYNC_INTERVAL)
        self.assertLessEqual(self.router.fd_sync_due, after + FD_SYNC_INTERVAL)
        self.router.fd_sync_due = float("inf")  # still within the interval, however long this line took
        self.out.write("b")
        self.assertEqual(len(calls), 1)
        self.router.fd_sync_due = 0.0  # the interval is over
        self.out.write("c")
        self.assertEqual(len(calls), 2)

    def test_non_text_is_refused_and_str_subclasses_are_kept(self):
        class Text(str):
            pass

        with self.assertRaises(TypeError):
            self.out.write(b"bytes")
        self.assertEqual(self.out.write(Text("sub")), 3)
        self.out.flush()
        self.assertEqual(joined(self.raw.frames()), "sub")

    def test_text_written_between_cells_goes_to_the_next_cell_and_stays_bounded(self):
        self.out.write("in cell\n")
        self.out.flush()  # the end of a cell flushes on the main thread
        self.cell.id = None
        line = "y" * 99 + "\n"
        for _ in range(2 * ORPHAN_LIMIT // len(line)):
            self.out.write(line)
        self.router.flush()
        self.assertLessEqual(self.router._size, ORPHAN_LIMIT)
        self.cell.id = "c2"
        self.router.flush()
        frames = self.raw.frames()
        self.assertEqual(frames[0]["data"], "in cell\n")
        self.assertEqual({f["id"] for f in frames[1:]}, {"c2"})
        self.assertRegex(frames[1]["data"], r"^evalkit: [\d,]+ characters of output written between cells")

    @unittest.skipUnless(hasattr(os, "fork"), "needs fork")
    def test_a_forked_child_never_takes_the_lock_free_path(self):
        self.out.write("warm ")  # the parent's fast path is on
        self.router.fd_sync_due = float("inf")
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            seen = []
            self.router.write = lambda name, text: seen.append(text)
            self.out.write("child")
            os.write(write_fd, ("".join(seen) or "lost").encode())
            os._exit(0)
        os.close(write_fd)
        answer = os.read(read_fd, 100)
        os.waitpid(pid, 0)
        os.close(read_fd)
        self.assertEqual(answer, b"child")


if __name__ == "__main__":
    unittest.main()
