"""scripts/host-steal: the /proc/stat parse and the burst window."""
import unittest

from script_loader import load_script

hs = load_script("host-steal", "host_steal")

STAT = """cpu  2356284 0 160195 2388607 1905 0 1364 203977 0 0
cpu0 1178000 0 80000 1194000 900 0 700 101000 0 0
cpu1 1178284 0 80195 1194607 1005 0 664 102977 0 0
intr 123 4 5
cpu9 1 2 3 4 5 6 7 8 9 10
"""


class HostStealTest(unittest.TestCase):
    def test_the_eighth_field_of_the_cpu_lines(self):
        self.assertEqual(hs.parse_steal(STAT), {"cpu": 203977, "cpu0": 101000, "cpu1": 102977})

    def test_a_burst_is_what_the_window_took_and_is_told_once(self):
        f = hs.BurstFinder(window_s=0.25, burst_ticks=6)
        self.assertEqual(f.add(0.00, {"cpu": 0, "cpu0": 0, "cpu1": 0}), [])
        self.assertEqual(f.add(0.10, {"cpu": 3, "cpu0": 3, "cpu1": 0}), [])
        bursts = f.add(0.20, {"cpu": 7, "cpu0": 7, "cpu1": 0})
        self.assertEqual([(c, n) for c, n, _ in bursts], [("cpu0", 7)])
        self.assertAlmostEqual(bursts[0][2], 0.20)
        # Still inside its quiet window: not told again.
        self.assertEqual(f.add(0.30, {"cpu": 9, "cpu0": 9, "cpu1": 0}), [])

    def test_steal_spread_thin_is_no_burst(self):
        f = hs.BurstFinder(window_s=0.25, burst_ticks=6)
        for i in range(100):  # one tick every 0.1 s: at most 3 in any window
            self.assertEqual(f.add(0.1 * i, {"cpu": i, "cpu0": i}), [])


if __name__ == "__main__":
    unittest.main()
