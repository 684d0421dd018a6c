"""scripts/match and scripts/suite end to end, with the scripted engine."""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
FAKE = os.path.join(HERE, "fake_engine.py")


def run(args):
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, timeout=120)


class MatchScriptTest(unittest.TestCase):
    def test_match_with_openings_pgn_and_summary(self):
        with tempfile.TemporaryDirectory() as d:
            book = os.path.join(d, "o.epd")
            with open(book, "w") as f:
                f.write("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
                f.write("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n")
            pgn = os.path.join(d, "out.pgn")
            r = run([os.path.join(SCRIPTS, "match"),
                     "-engine", f"cmd={sys.executable} {FAKE} good", "name=one",
                     "-engine", f"cmd={sys.executable} {FAKE} good", "name=two",
                     "-each", "tc=5+0.05", "Hash=8", "-games", "4", "-openings", f"file={book}", "order=sequential",
                     "-maxmoves", "30", "-pgnout", pgn, "-runner", "python"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("[4/4]", r.stdout)
            self.assertIn("Score of one vs two:", r.stdout)
            self.assertIn("Problems of two: 0 illegal moves, 0 crashes, 0 time losses", r.stdout)
            with open(pgn) as f:
                text = f.read()
            self.assertEqual(text.count("[Event "), 4)
            self.assertEqual(text.count('[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]'), 2)

    def test_strict_exit_status_and_problem_report(self):
        r = run([os.path.join(SCRIPTS, "match"),
                 "-engine", f"cmd={sys.executable} {FAKE} good", "name=good",
                 "-engine", f"cmd={sys.executable} {FAKE} illegal", "name=bad",
                 "-tc", "st=0.05", "-games", "2", "-strict", "-runner", "python"])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("!! game 1: bad: illegal:", r.stdout)
        self.assertIn("Problems of bad: 2 illegal moves", r.stdout)

    def test_journal_continues_a_stopped_match(self):
        with tempfile.TemporaryDirectory() as d:
            journal = os.path.join(d, "m.jsonl")
            book = os.path.join(d, "o.epd")
            with open(book, "w") as f:
                f.write("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
                f.write("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n")

            def match(games, *extra):
                return run([os.path.join(SCRIPTS, "match"),
                            "-engine", f"cmd={sys.executable} {FAKE} good", "name=one",
                            "-engine", f"cmd={sys.executable} {FAKE} good", "name=two",
                            "-each", "tc=st=0.02", *extra, "-games", str(games), "-maxmoves", "20", "-openings", book,
                            "-runner", "python", "-journal", journal])
            r = match(2)
            self.assertNotEqual(r.returncode, 0)       # no -seed: the openings' order is not repeatable
            self.assertIn("-journal needs -seed", r.stdout + r.stderr)
            self.assertFalse(os.path.exists(journal))
            r = match(2, "-seed", "7")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = match(4, "-seed", "7")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("2 games already played, 2 to go", r.stdout)
            self.assertNotIn("[2/4]", r.stdout)
            self.assertIn("[4/4]", r.stdout)
            self.assertIn("W/D/L: 0/4/0", r.stdout)
            r = match(4, "-seed", "8")                 # another plan: refused
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("written for another plan", r.stdout + r.stderr)

    def test_a_stopped_match_does_not_exit_as_finished(self):
        # A queue marks a job done on exit status 0: a match stopped by SIGTERM (a session's
        # end) finishes its game in progress, prints its summary and exits 130.
        p = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "match"),
                              "-engine", f"cmd={sys.executable} {FAKE} good", "name=one",
                              "-engine", f"cmd={sys.executable} {FAKE} good", "name=two",
                              "-tc", "st=0.05", "-games", "200", "-maxmoves", "20", "-runner", "python"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = p.stdout.readline()                 # the match's head line: it has started
        self.assertIn("one vs two: 200 games", first)
        time.sleep(1.0)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, out + err)
        self.assertIn("interrupted: finishing games in progress", out)
        self.assertIn("Score of one vs two:", out)

    def test_bad_command_line(self):
        r = run([os.path.join(SCRIPTS, "match"), "only-one-engine", "-tc", "1+0"])
        self.assertNotEqual(r.returncode, 0)
        r = run([os.path.join(SCRIPTS, "match"), "a", "b", "-tc", "banana"])
        self.assertNotEqual(r.returncode, 0)


class SuiteScriptTest(unittest.TestCase):
    def test_suite_counts(self):
        # The scripted engine plays the first legal move in UCI order: a1a2 here.
        with tempfile.TemporaryDirectory() as d:
            epd = os.path.join(d, "s.epd")
            with open(epd, "w") as f:
                f.write('7k/8/8/8/8/8/8/R6K w - - bm Ra2; id "yes";\n')
                f.write('7k/8/8/8/8/8/8/R6K w - - bm Ra8+; id "no";\n')
                f.write('7k/8/8/8/8/8/8/R6K w - - am Ra2; id "avoid";\n')
                f.write('7k/8/8/8/8/8/8/R6K w - - c0 "Ra2=3, Ra8+=10"; id "points";\n')
            r = run([os.path.join(SCRIPTS, "suite"), f"{sys.executable} {FAKE} good", epd, "-depth", "2"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            lines = r.stdout.strip().splitlines()
            self.assertEqual(lines[-1], "solved 1/4")
            self.assertEqual(lines[-2], "points 3/10")
            self.assertIn("failed: no avoid points", r.stdout)


if __name__ == "__main__":
    unittest.main()
