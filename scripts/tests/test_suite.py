"""scripts/suite end to end with the scripted engine (it plays the first legal move by UCI text)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(os.path.dirname(HERE), "suite")
FAKE = os.path.join(HERE, "fake_engine.py")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"


class SuiteTest(unittest.TestCase):
    def test_counts_best_and_avoid_moves(self):
        with tempfile.TemporaryDirectory() as d:
            epd = os.path.join(d, "s.epd")
            with open(epd, "w") as f:
                f.write(f'{START} bm a3; id "first";\n')     # a2a3 is what the fake plays
                f.write(f'{START} bm e4; id "second";\n')
                f.write(f'{START} am a3; id "third";\n')
                f.write("not a position\n")
            r = subprocess.run([sys.executable, SUITE, f"{sys.executable} {FAKE} good", epd, "--st", "0.05"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("skipping line 4", r.stdout)
            self.assertIn("failed: second third", r.stdout)
            self.assertTrue(r.stdout.rstrip().endswith("solved 1/3"), r.stdout)


if __name__ == "__main__":
    unittest.main()
