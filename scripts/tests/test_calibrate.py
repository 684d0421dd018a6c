"""scripts/calibrate-elo's pure logic: which Stockfish levels a setting meets, how the games are
split, and the line fitted through setting -> measured Elo (no games played)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from script_loader import load_script                            # noqa: E402

cal = load_script("calibrate-elo", "calibrate_script")


class LevelsTest(unittest.TestCase):
    def test_one_below_one_above(self):
        self.assertEqual(cal.sf_levels(2000, 150), [1850, 2150])

    def test_clamped_to_stockfish_range_and_merged(self):
        self.assertEqual(cal.sf_levels(1300, 150), [1350, 1450])
        self.assertEqual(cal.sf_levels(1000, 150), [1350])
        self.assertEqual(cal.sf_levels(2800, 150), [2650, 2850])
        self.assertEqual(cal.sf_levels(3000, 100), [2850])


class SplitTest(unittest.TestCase):
    def test_even_shares_that_add_up(self):
        for games in range(1, 101):
            for n in (1, 2, 3):
                shares = cal.split_games(games, n)
                self.assertEqual(len(shares), n)
                self.assertTrue(all(s % 2 == 0 for s in shares))
                self.assertEqual(sum(shares), max(2, games + games % 2))
                self.assertLessEqual(max(shares) - min(shares), 2)


class FitTest(unittest.TestCase):
    def test_recovers_a_line(self):
        a, b = cal.fit_line([(1000, 700), (1500, 1100), (2000, 1500)])
        self.assertAlmostEqual(a, -100.0)
        self.assertAlmostEqual(b, 0.8)

    def test_needs_two_settings(self):
        self.assertIsNone(cal.fit_line([(1000, 900)]))
        self.assertIsNone(cal.fit_line([(1000, 900), (1000, 950)]))

    def test_ratings_print_with_margin_or_as_a_bound(self):
        self.assertEqual(cal.fmt_rating(1523.4, 88.6), "1523 ± 89")
        self.assertEqual(cal.fmt_rating(float("inf"), float("inf")), "above the levels")
        self.assertEqual(cal.fmt_rating(float("-inf"), float("inf")), "below the levels")


if __name__ == "__main__":
    unittest.main()
