"""scripts/secondary-stats: verdict counts from a log and per-player time and depth from a PGN."""
import unittest

from script_loader import load_script

stats = load_script("secondary-stats", "secondary_stats")

LOG = """\
[2026-12-02T00:37:35Z INFO  secondary] secondary depth 14 move g2g3 score cp 0 verify cp 0: holds at 259 ms of 468, the planned answer on the expected line (so far 1 holds)
[2026-12-02T00:37:36Z INFO  secondary] secondary depth 16 move g5f6 score cp -36 verify cp -36: holds at 539 ms of 411
[2026-12-02T00:37:37Z INFO  secondary] secondary depth 12 move e2e4 score cp 40 verify cp -10: surprise (deeper search) at 120 ms of 300
[2026-12-02T00:37:37Z INFO  secondary] secondary changed e2e4 to d2d4 in 8/8/8/8/8/8/8/K1k5 w - - 0 1
[2026-12-02T00:37:38Z INFO  secondary] secondary depth 10 move a2a3 score cp 5 verify cp 5: surprise (fail low) at 200 ms of 250
[2026-12-02T00:37:39Z INFO  secondary] secondary depth 8 move h2h3 score cp 5 verify cp 5: holds by the placebo's coin at 10 ms of 250
[2026-12-02T00:37:39Z INFO  secondary] secondary depth 8 move h2h3 score cp 5 verify cp 5: inconclusive (node cap) at 10 ms of 250
"""

PGN = """\
[Event "Brudno match"]
[White "plain"]
[Black "secondary"]
[Result "1/2-1/2"]

1. d4 Nf6 { book } 2. c4 { +0.03/17 0.860s } 2... e6 { -0.01/15 0.440s } 3. Nf3 { +M3/20 0.100s }
3... d5 { -M3/9 0.200s, threefold repetition } 1/2-1/2

[Event "Brudno match"]
[White "secondary"]
[Black "plain"]
[Result "1-0"]

1. e4 { +0.10/12 0.300s } 1... e5 { -0.10/14 0.500s } 1-0
"""


class SecondaryStatsTest(unittest.TestCase):
    def test_verdicts_are_counted_by_kind_with_the_placebo_as_its_verdict(self):
        counts, early, changed, depths, planned = stats.verdicts(LOG.splitlines())
        self.assertEqual(counts["holds"], 3)
        self.assertEqual(counts["surprise (deeper search)"], 1)
        self.assertEqual(counts["surprise (fail low)"], 1)
        self.assertEqual(counts["inconclusive (node cap)"], 1)
        self.assertEqual(early, 2)          # 259 of 468 and the placebo's 10 of 250; not 539 of 411
        self.assertEqual(changed, 1)
        self.assertEqual(depths, [14, 16, 12, 10, 8, 8])
        self.assertEqual(planned["holds"], 1)   # the first line only
        self.assertEqual(sum(planned.values()), 1)

    def test_moves_are_given_to_the_side_that_played_them_book_left_out(self):
        players = stats.moves_by_player(PGN)
        self.assertEqual(players["plain"], [(17, 0.86), (20, 0.1), (14, 0.5)])
        self.assertEqual(players["secondary"], [(15, 0.44), (9, 0.2), (12, 0.3)])


if __name__ == "__main__":
    unittest.main()
