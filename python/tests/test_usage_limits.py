"""usage measures a cell's CPU time and peak memory; limits sets rlimits a memory hog turns into MemoryError."""

import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from evalkit_kernel.lifetime import usage  # noqa: E402


class UsageTest(unittest.TestCase):
    def test_a_busy_cell_reports_its_cpu_time_and_a_growing_cell_its_peak(self):
        meter = usage.CellMeter()
        total = 0
        for i in range(2000000):
            total += i
        busy = meter.finish()
        self.assertGreater(busy["cpuMs"], 1.0)
        usage.reset_peak()
        meter = usage.CellMeter()
        block = bytearray(64 * 1024 * 1024)
        block[::4096] = b"x" * len(block[::4096])  # touch every page so it is resident
        grown = meter.finish()
        del block
        self.assertGreaterEqual(grown["peakRssBytes"], 64 * 1024 * 1024)

    def test_a_child_waited_for_counts_in_the_cell_that_waited_and_not_in_the_next(self):
        spin = "t = 0\nfor i in range(3000000): t += i"
        meter = usage.CellMeter()
        subprocess.run([sys.executable, "-c", spin], check=True)
        with_child = meter.finish()["cpuMs"]
        meter = usage.CellMeter()
        without = meter.finish()["cpuMs"]
        self.assertGreater(with_child, 20.0)  # the child's loop, which this process did not run itself
        self.assertLess(without, 5.0)

    def test_a_child_reaped_between_cells_is_read_afresh_once_forgotten(self):
        meter = usage.CellMeter()
        meter.finish()
        subprocess.run([sys.executable, "-c", "t = 0\nfor i in range(3000000): t += i"], check=True)
        usage.forget_children_baseline()  # what main does when the reaper waited for a child after `done`
        self.assertLess(usage.CellMeter().finish()["cpuMs"], 5.0)

    @unittest.skipUnless(sys.platform.startswith("linux"), "the peak resets per cell on Linux only")
    def test_the_peak_starts_again_after_a_reset(self):
        block = bytearray(96 * 1024 * 1024)
        block[::4096] = b"x" * len(block[::4096])
        del block
        usage.reset_peak()
        self.assertLess(usage.CellMeter().finish()["peakRssBytes"], 96 * 1024 * 1024)


@unittest.skipUnless(os.name == "posix", "rlimits are POSIX")
class LimitsTest(unittest.TestCase):
    def run_limited(self, code):
        program = "import sys; sys.path.insert(0, %r)\nfrom evalkit_kernel.lifetime import limits\n%s" % (ROOT, code)
        return subprocess.run([sys.executable, "-c", program], stdout=subprocess.PIPE, universal_newlines=True)

    def test_memory_past_the_limit_is_a_memory_error_and_the_process_carries_on(self):
        done = self.run_limited(
            "limits.apply({'memoryMb': 150})\n"
            "try:\n    bytearray(400 * 1024 * 1024)\nexcept MemoryError:\n    print('MemoryError')\n"
            "print(len(bytearray(10 * 1024 * 1024)))"
        )
        self.assertEqual(done.stdout.split(), ["MemoryError", str(10 * 1024 * 1024)])

    def test_limits_are_only_ever_lowered_and_nothing_is_set_without_limits(self):
        done = self.run_limited(
            "import resource\nbefore = resource.getrlimit(resource.RLIMIT_DATA)\nlimits.apply({})\nlimits.apply(None)\n"
            "print(resource.getrlimit(resource.RLIMIT_DATA) == before)\n"
            "limits.apply({'cpuSeconds': 100})\nprint(resource.getrlimit(resource.RLIMIT_CPU))"
        )
        self.assertEqual(done.stdout.split("\n")[:2], ["True", "(100, 102)"])


if __name__ == "__main__":
    unittest.main()
