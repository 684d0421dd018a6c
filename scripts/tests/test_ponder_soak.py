"""scripts/ponder-soak with the scripted engine (fake_engine.py): pondering really reaches the
engine (`ponderhit` is sent), and each kind of fault is found and blamed on the right side."""
import json
import os
import runpy
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)

from fc import engines   # noqa: E402

soak = runpy.run_path(os.path.join(SCRIPTS, "ponder-soak"))


def fake(mode, directory):
    """An executable that runs the scripted engine in `mode`."""
    path = os.path.join(directory, mode)
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {os.path.join(HERE, 'fake_engine.py')} {mode}\n")
    os.chmod(path, 0o755)
    return path


class PonderSoakTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def run_soak(self, me, opponent, *args, out="out"):
        out = os.path.join(self.dir.name, out)
        opponent = opponent if opponent == engines.SELF else f"opp={fake(opponent, self.dir.name)}"
        r = subprocess.run([os.path.join(SCRIPTS, "ponder-soak"), fake(me, self.dir.name),
                            "--opponents", opponent, "--openings", "none",
                            "--out", out, *args], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, BRUDNO_DATA=self.dir.name))
        with open(os.path.join(out, "games.jsonl")) as f:
            return r, [json.loads(line) for line in f]

    def test_ponderhits_are_sent_and_counted(self):
        me = engines.brudno("brudno", fake("ponder", self.dir.name))
        opp = engines.brudno("opp", fake("good", self.dir.name))
        with self.assertLogs("chess.engine", level="DEBUG") as logs:
            rec = soak["play"](me, opp, "5+0.1", True, {"Hash": "16"}, [])
        sent = sum(line.endswith("<< ponderhit") for line in logs.output)
        self.assertIsNone(rec["fault"])
        self.assertGreater(rec["ponderhits"], 2)
        self.assertEqual(rec["ponderhits"], sent)

    def test_faults_are_blamed_on_their_engine(self):
        for mode, kind in (("slow", "time loss"), ("illegal", "illegal move"), ("crash", "crash")):
            r, games = self.run_soak(mode, "good", "--games", "2", "--tc", "0.3+0", out=f"out-{mode}")
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertTrue(games[0]["fault"][0].startswith(kind), games[0]["fault"])
            self.assertEqual(games[0]["fault"][1], "brudno")
            self.assertEqual(games[0]["result"], "0-1")      # Brudno has white in even games
            self.assertIn("2 fault(s) by Brudno", r.stdout)

    def test_an_opponents_fault_is_not_brudnos_and_a_rerun_resumes(self):
        r, games = self.run_soak("ponder", "slow", "--games", "1", "--tc", "0.3+0")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual((games[0]["fault"][:2], games[0]["result"]), (["time loss", "opp"], "1-0"))
        r, games = self.run_soak("ponder", "slow", "--games", "2", "--tc", "0.3+0")
        self.assertEqual([g["game"] for g in games], [0, 1])
        self.assertIn("0 fault(s) by Brudno, 2 by the opponents", r.stdout)

    def test_a_fault_of_the_self_copy_is_brudnos(self):
        # Game 1 gives the copy white: it moves first and overruns its clock before Brudno moves.
        r, games = self.run_soak("slow", engines.SELF, "--games", "2", "--tc", "0.3+0")
        self.assertEqual([g["fault"][1] for g in games], ["brudno", "self"])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("2 fault(s) by Brudno, 0 by the opponents", r.stdout)

    def test_time_controls(self):
        self.assertEqual(soak["parse_tc"]("10/0.5+0.01"), (10, 0.5, 0.01))
        self.assertEqual(soak["parse_tc"]("1+0.05"), (None, 1.0, 0.05))
        self.assertEqual(soak["parse_tc"]("8"), (None, 8.0, 0.0))


if __name__ == "__main__":
    unittest.main()
