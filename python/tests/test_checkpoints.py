"""Checkpoints in the real runner: parked forks that come back exactly, the root that survives the runner."""

import os
import signal
import sys
import unittest

from runner_harness import Runner, stream_text

IS_LINUX = sys.platform.startswith("linux")


@unittest.skipUnless(IS_LINUX, "checkpoints are Linux only")
class CheckpointTest(unittest.TestCase):
    def setUp(self):
        self.runner = Runner(config={"checkpoints": True})
        self.serial = 0

    def tearDown(self):
        self.runner.close()

    def ask(self, kind, **fields):
        self.serial += 1
        frame = {"type": kind, "id": "r%d" % self.serial}
        frame.update(fields)
        self.runner.send(frame)
        while True:
            reply = self.runner.next_frame()
            if reply.get("type") == "checkpoint_reply" and reply.get("id") == frame["id"]:
                return reply

    def out(self, code):
        return stream_text(self.runner.execute(code))

    def test_ready_names_the_live_runner_not_the_root(self):
        self.assertTrue(self.runner.ready["checkpoints"])
        self.assertEqual(self.out("import os; print(os.getpid())").strip(), str(self.runner.ready["pid"]))
        self.assertNotEqual(self.runner.ready["pid"], self.runner.proc.pid)

    def test_random_state_and_objects_come_back_exactly_twice(self):
        self.out("import random; random.seed(3); items = [1, {'a': 2}]")
        self.assertTrue(self.ask("checkpoint", name="a")["ok"])
        expected = self.out("print(random.random(), items)")
        for _ in range(2):
            self.out("items.append(9); random.random()")
            reply = self.ask("restore", name="a")
            self.assertTrue(reply["ok"], reply)
            self.assertEqual(self.out("print(random.random(), items)"), expected)

    def test_the_root_reports_a_killed_runner_and_serves_a_restore(self):
        self.out("kept = 42")
        self.ask("checkpoint", name="k")
        pid = int(self.out("import os; print(os.getpid())"))
        os.kill(pid, signal.SIGKILL)
        exit_frame = self.runner.next_frame()
        self.assertEqual(exit_frame, {"type": "runner_exit", "pid": pid, "exitCode": None, "signal": 9})
        info = self.ask("checkpoint_info", names=["k", "gone"])
        self.assertEqual([c["name"] for c in info["checkpoints"]], ["k", "gone", None])
        self.assertTrue(info["checkpoints"][1]["missing"])
        self.assertTrue(self.ask("restore", name="k")["ok"])
        self.assertEqual(self.out("print(kept)"), "42\n")

    def test_the_death_of_a_restored_runner_is_reported_by_its_checkpoint_through_the_root(self):
        self.out("kept = 'b'")
        self.ask("checkpoint", name="b")
        restored = self.ask("restore", name="b")
        pid = int(self.out("import os; print(os.getpid())"))
        self.assertEqual(pid, restored["livePid"])
        os.kill(pid, signal.SIGKILL)
        self.assertEqual(self.runner.next_frame(), {"type": "runner_exit", "pid": pid, "exitCode": None, "signal": 9})
        self.assertTrue(self.ask("restore", name="b")["ok"])
        self.assertEqual(self.out("print(kept)"), "b\n")

    def test_a_dropped_checkpoint_is_gone_and_names_are_unique(self):
        self.ask("checkpoint", name="x")
        again = self.ask("checkpoint", name="x")
        self.assertFalse(again["ok"])
        self.assertIn("already exists", again["error"])
        self.assertTrue(self.ask("drop", name="x")["ok"])
        missing = self.ask("restore", name="x")
        self.assertFalse(missing["ok"])
        self.assertTrue(missing["missing"])

    def test_output_capture_works_in_a_restored_runner(self):
        self.ask("checkpoint", name="c")
        self.ask("restore", name="c")
        self.assertEqual(self.out("import os; os.write(1, b'fd\\n'); os.system('echo child'); print('py')"), "fd\nchild\npy\n")


if __name__ == "__main__":
    unittest.main()
