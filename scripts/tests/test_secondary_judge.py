"""scripts/secondary-judge with an engine that scores each searchmoves move as it is told."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)

# Scores e2e4 at 30 cp, d2d4 at 80 cp, g1f3 at mate in 2, anything else at -50 cp; a bound
# line first, which the judge must skip.
ENGINE = r'''
import os, sys
scores = {"e2e4": "cp 30", "d2d4": "cp 80", "g1f3": "mate 2"}
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "go":
        open(os.environ["TOLD"], "a").write(line)  # the go commands, for the test to read
        move = w[w.index("searchmoves") + 1]
        print("info depth 1 score cp 999 lowerbound", flush=True)
        print(f"info depth 2 score {scores.get(move, 'cp -50')} pv {move}", flush=True)
        print(f"bestmove {move}", flush=True)
    elif w and w[0] == "quit":
        break
'''


FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def run_judge(log_lines, *args):
    """Runs secondary-judge on a log of `log_lines` with the scripted engine; returns the
    finished process and the `go` commands the engine was told."""
    with tempfile.TemporaryDirectory() as d:
        engine = os.path.join(d, "engine")
        with open(engine, "w") as f:
            f.write(f"#!{sys.executable}\n{ENGINE}")
        os.chmod(engine, 0o755)
        log = os.path.join(d, "secondary.log")
        with open(log, "w") as f:
            f.writelines(line + "\n" for line in log_lines)
        told = os.path.join(d, "told")
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "secondary-judge"), log,
                            "--engine", engine, *args],
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "TOLD": told})
        with open(told) as f:
            return r, f.read().splitlines()


class SecondaryJudgeTest(unittest.TestCase):
    def test_tally_of_better_worse_and_equal_changes(self):
        r, _ = run_judge([
            f"[x INFO secondary] secondary changed e2e4 to d2d4 in {FEN}",  # better
            f"[x INFO secondary] secondary changed d2d4 to e2e4 in {FEN}",  # worse
            f"[x INFO secondary] secondary changed e2e4 to g1f3 in {FEN}",  # mate
            "[x INFO secondary] secondary depth 7 move e2e4 ...: holds",
        ], "--movetime", "10", "--jobs", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 changed moves judged at 10 ms each: changed move better 2, worse 1, "
                      "within 10 cp 0", r.stdout)
        self.assertIn("e2e4 30 (depth 2) -> d2d4 80 (depth 2): better", r.stdout)
        self.assertIn("depth of the judging searches: median 2, least 2", r.stdout)

    def test_a_node_limit_is_what_the_engine_is_told(self):
        r, gos = run_judge([f"[x INFO secondary] secondary changed e2e4 to d2d4 in {FEN}"],
                           "--nodes", "5000")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(gos, ["go nodes 5000 searchmoves e2e4", "go nodes 5000 searchmoves d2d4"])
        self.assertIn("1 changed moves judged at 5000 nodes each: changed move better 1", r.stdout)


if __name__ == "__main__":
    unittest.main()
