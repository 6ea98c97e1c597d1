"""StreamRouter keeps every write, in order, whether it takes the owner's lock-free path or the locked one."""

import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.capture.streams import CHUNK_CHARS, ORPHAN_LIMIT, StreamRouter  # noqa: E402


class Cell(object):
    def __init__(self):
        self.id = "c1"

    def __call__(self):
        return self.id


def make_router():
    frames = []
    cell = Cell()
    router = StreamRouter(frames.append, cell)
    return router, frames, cell


def joined(frames, name=None):
    return "".join(f["data"] for f in frames if name is None or f["type"] == name)


def stream_runs(frames):
    """[(stream, text)] with consecutive frames of one stream merged."""
    runs = []
    for frame in frames:
        if runs and runs[-1][0] == frame["type"]:
            runs[-1] = (frame["type"], runs[-1][1] + frame["data"])
        else:
            runs.append((frame["type"], frame["data"]))
    return runs


class StreamRouterTest(unittest.TestCase):
    def test_the_owner_s_writes_arrive_whole_and_in_order(self):
        router, frames, _ = make_router()
        expected = []
        for i in range(20000):
            text = "line %d\n" % i
            router.write("stdout", text)
            expected.append(text)
        router.flush()
        self.assertEqual(joined(frames), "".join(expected))
        self.assertTrue(all(len(f["data"]) <= CHUNK_CHARS for f in frames))

    def test_switching_streams_keeps_the_order_of_writes(self):
        router, frames, _ = make_router()
        for i in range(50):
            router.write("stdout", "o%d " % i)
            router.write("stdout", "O%d " % i)
            router.write("stderr", "e%d " % i)
        router.flush()
        runs = stream_runs(frames)
        self.assertEqual(len(runs), 100)
        self.assertEqual(runs[0], ("stdout", "o0 O0 "))
        self.assertEqual(runs[1], ("stderr", "e0 "))
        self.assertEqual(runs[-1], ("stderr", "e49 "))

    def test_another_thread_s_write_lands_after_what_the_owner_wrote_before_it(self):
        router, frames, _ = make_router()
        for i in range(200):
            router.write("stdout", "a%d," % i)  # owner: lock-free once the stream is known
            done = threading.Event()

            def other(i=i, done=done):
                router.write("stdout", "b%d," % i)
                done.set()

            threading.Thread(target=other).start()
            done.wait()
        router.flush()
        expected = "".join("a%d,b%d," % (i, i) for i in range(200))
        self.assertEqual(joined(frames), expected)

    def test_concurrent_writers_lose_nothing_and_keep_their_own_order(self):
        router, frames, _ = make_router()
        count = 20000

        def worker():
            for i in range(count):
                router.write("stdout", "w%d\n" % i)

        thread = threading.Thread(target=worker)
        thread.start()
        for i in range(count):
            router.write("stdout", "m%d\n" % i)
        thread.join()
        router.flush()
        lines = joined(frames).splitlines()
        self.assertEqual([x for x in lines if x[0] == "m"], ["m%d" % i for i in range(count)])
        self.assertEqual([x for x in lines if x[0] == "w"], ["w%d" % i for i in range(count)])

    def test_text_written_between_cells_is_kept_for_the_next_cell(self):
        router, frames, cell = make_router()
        router.write("stdout", "in cell\n")
        router.flush()
        cell.id = None
        router.write("stdout", "between\n")
        router.flush()
        self.assertEqual(joined(frames), "in cell\n")
        cell.id = "c2"
        router.write("stdout", "next\n")
        router.flush()
        self.assertEqual([f["id"] for f in frames][-1], "c2")
        self.assertEqual(joined(frames), "in cell\nbetween\nnext\n")

    def test_a_flood_between_cells_keeps_the_newest_text_and_the_next_cell_says_how_much_was_dropped(self):
        router, frames, cell = make_router()
        cell.id = None
        line = "x" * 99 + "\n"
        for _ in range(3 * ORPHAN_LIMIT // len(line)):
            router.write("stdout", line)
        router.write("stdout", "last\n")
        cell.id = "c2"
        router.flush()
        self.assertEqual(frames[0]["type"], "stderr")
        self.assertRegex(frames[0]["data"], r"^evalkit: [\d,]+ characters of output written between cells were dropped")
        dropped = int(frames[0]["data"].split()[1].replace(",", ""))
        kept = joined(frames, "stdout")
        self.assertLessEqual(len(kept), ORPHAN_LIMIT)
        self.assertEqual(dropped + len(kept), 3 * ORPHAN_LIMIT // len(line) * len(line) + len("last\n"))
        self.assertTrue(kept.endswith("last\n"))
        router.write("stdout", "more\n")
        router.flush()
        self.assertEqual(len([f for f in frames if f["type"] == "stderr"]), 1)

    def test_a_capture_sink_gets_only_what_is_written_while_it_is_active(self):
        router, frames, _ = make_router()

        class Sink(object):
            def __init__(self):
                self.text = []

            def on_stream(self, name, text):
                self.text.append(text)

        router.write("stdout", "before ")
        router.write("stdout", "still before ")
        sink = Sink()
        router.flush()  # what state.push_capture does before adding a sink
        router.sinks.append(sink)
        router.write("stdout", "captured")
        router.flush()
        router.sinks.remove(sink)
        router.write("stdout", " after")
        router.flush()
        self.assertEqual("".join(sink.text), "captured")
        self.assertEqual(joined(frames), "before still before  after")


if __name__ == "__main__":
    unittest.main()
