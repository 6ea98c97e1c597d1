"""The watchdog against a frozen host: a process stopped by a signal without a terminal counts as frozen (the guard and
the subreaper parent resume it); a running one, or a stop by job control (terminal handed back), does not."""

import os
import signal
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import subreaper_parent  # noqa: E402  (python/subreaper_parent.py, beside the package)
from evalkit_kernel.lifetime import process_tree  # noqa: E402


def _wait_state(pid, wanted):
    for _ in range(200):
        state = process_tree.host_state(pid)
        if state is not None and state[0] == wanted:
            return
        time.sleep(0.01)


@unittest.skipUnless(os.path.exists("/proc/self/stat"), "needs /proc")
class HostWatchTest(unittest.TestCase):
    def setUp(self):
        # No terminal (a new session), like `evalkit mcp` under an agent.
        self.child = subprocess.Popen(["sleep", "30"], start_new_session=True)

    def tearDown(self):
        self.child.kill()
        self.child.wait()

    def test_a_running_process_is_not_frozen(self):
        self.assertFalse(process_tree.is_frozen(self.child.pid))
        self.assertFalse(subreaper_parent.is_frozen(self.child.pid))

    def test_a_process_stopped_by_a_signal_without_a_terminal_is_frozen(self):
        os.kill(self.child.pid, signal.SIGSTOP)
        _wait_state(self.child.pid, b"T")
        self.assertTrue(process_tree.is_frozen(self.child.pid))
        self.assertTrue(subreaper_parent.is_frozen(self.child.pid))
        os.kill(self.child.pid, signal.SIGCONT)

    def test_a_process_that_is_gone_is_not_frozen(self):
        self.child.kill()
        self.child.wait()
        self.assertFalse(process_tree.is_frozen(self.child.pid))
        self.assertFalse(subreaper_parent.is_frozen(self.child.pid))


if __name__ == "__main__":
    unittest.main()
