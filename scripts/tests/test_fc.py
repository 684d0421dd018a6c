"""The fastchess wrappers without fastchess: engines, the command, the result read from real
fastchess output (tests/data/fastchess-*.out, made by fastchess 1.8.2 with fake_engine.py and
with Brudno against Ethereal), the resume rules, the generator pause, the soak's plan."""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")
sys.path.insert(0, HERE)
sys.path.insert(0, SCRIPTS)

from fc import command, engines, pause, rating, result, runner   # noqa: E402
from script_loader import load_script                              # noqa: E402

soak = load_script("soak", "soak_script")


def read(path):
    with open(path) as f:
        return f.read()


def sample(name):
    return read(os.path.join(DATA, name))


def common(**kw):
    a = argparse.Namespace(tc="8+0.08", concurrency=2, openings="none", seed=1, tb=None, each=[],
                           no_adjudication=False, out=None, dry_run=False)
    vars(a).update(kw)
    return a


class EnginesTest(unittest.TestCase):
    def test_brudno_path_gets_the_measuring_defaults(self):
        e = engines.parse("new=/tmp/x/brudno")
        self.assertEqual(e.name, "new")
        self.assertEqual(e.cmd, "/tmp/x/brudno")
        self.assertEqual(e.options, {"Threads": "1", "Hash": "16", "OwnBook": "false"})
        self.assertEqual(engines.parse("/tmp/x/brudno").name, "brudno")

    def test_stockfish_level(self):
        e = engines.parse("sf2500")
        self.assertEqual(e.options["UCI_LimitStrength"], "true")
        self.assertEqual(e.options["UCI_Elo"], "2500")

    def test_presets_and_unknown(self):
        self.assertEqual(engines.parse("gnuchess").args, ["--uci"])
        self.assertNotIn("OwnBook", engines.parse("ethereal").options)
        with self.assertRaises(ValueError):
            engines.parse("no-such-engine")

    def test_options_override_and_refuse_malformed(self):
        e = engines.parse("a=/bin/true").with_options(["Hash=64", "EvalFile=/n.nnue"])
        self.assertEqual(e.options["Hash"], "64")
        self.assertEqual(e.options["EvalFile"], "/n.nnue")
        with self.assertRaises(ValueError):
            e.with_options(["Hash"])

    def test_time_controls(self):
        self.assertEqual(engines.tc_args("8+0.08"), ["tc=8+0.08"])
        self.assertEqual(engines.tc_args("st=0.05"), ["st=0.05"])
        self.assertEqual(engines.tc_args("nodes=20000"), ["nodes=20000"])


class CommandTest(unittest.TestCase):
    def players(self):
        return [engines.parse("new=/bin/true"), engines.parse("base=/bin/false")]

    def test_match_command(self):
        cmd = command.build(self.players(), common(each=["EvalFile=/n"]), 100, "/o")
        text = " ".join(cmd)
        self.assertEqual(cmd.count("-engine"), 2)
        self.assertEqual(text.count("option.EvalFile=/n"), 2)
        self.assertIn("-repeat -rounds 100 -concurrency 2 -recover", text)
        self.assertIn("-resign movecount=3 score=600 twosided=true", text)
        self.assertIn("-draw movenumber=40 movecount=8 score=10", text)
        self.assertIn("-pgnout file=/o/games.pgn", text)
        self.assertNotIn("-sprt", text)
        self.assertNotIn("-openings", text)

    def test_sprt_tb_and_no_adjudication(self):
        cmd = command.build(self.players(), common(no_adjudication=True, tb="/tb"), 2000, "/o",
                            sprt=["elo0=0", "elo1=15", "model=normalized"])
        text = " ".join(cmd)
        self.assertIn("-sprt elo0=0 elo1=15 model=normalized", text)
        self.assertIn("-tb /tb", text)
        self.assertNotIn("-resign", text)

    def test_openings(self):
        with tempfile.NamedTemporaryFile(suffix=".epd") as f:
            args = command.openings_args(f.name, 7)
            self.assertIn("format=epd", args)
            self.assertEqual(args[-2:], ["-srand", "7"])
        with self.assertRaises(ValueError):
            command.openings_args("/no/such/file.pgn", 1)


class ResultTest(unittest.TestCase):
    def test_match_totals_and_a_resume(self):
        r = result.parse(sample("fastchess-resumed.out"))
        self.assertEqual((r.first, r.second), ("new", "ethereal"))
        self.assertEqual((r.games, r.wins, r.draws, r.losses), (12, 9, 0, 3))
        self.assertEqual(r.points, 9.0)
        self.assertEqual(r.ptnml, [0, 0, 3, 0, 3])
        self.assertAlmostEqual(r.elo, 190.85)
        self.assertTrue(r.interrupted)          # the first run was stopped, then resumed
        self.assertEqual(r.faults, [])

    def test_time_losses(self):
        r = result.parse(sample("fastchess-late.out"))
        self.assertEqual([(g, k, n) for g, k, n, _ in r.faults], [(1, "time loss", "late"), (2, "time loss", "late")])
        self.assertEqual(r.timeouts, {"late": 2})
        self.assertEqual(r.fault_counts(), {"late: time loss": 2})

    def test_illegal_moves_and_crashes(self):
        self.assertEqual({k for _, k, _, _ in result.parse(sample("fastchess-illegal.out")).faults}, {"illegal move"})
        r = result.parse(sample("fastchess-crash.out"))
        self.assertEqual(r.crashes, {"crashy": 2})
        self.assertEqual([n for _, k, n, _ in r.faults if k == "disconnect"], ["crashy", "crashy"])

    def test_pgn_faults_name_the_loser(self):
        for name, engine, term in (("late", "late", "time forfeit"), ("illegal", "bad", "illegal move"),
                                   ("crash", "crashy", "abandoned")):
            games = result.pgn_games(sample(f"fastchess-{name}.pgn"))
            self.assertEqual(len(games), 2)
            self.assertEqual([t for _, t, _ in result.bad_games(games, engine)], [term, term])
            self.assertEqual(result.bad_games(games, "good"), [])

    def test_sprt_lines(self):
        r = result.parse("Results of a vs b (4+0.04, 1t, 16MB, x.pgn):\n"
                         "Elo: 30.10 +/- 20.00, nElo: 40.00 +/- 25.00\n"
                         "Games: 500, Wins: 200, Losses: 157, Draws: 143, Points: 271.5 (54.30 %)\n"
                         "LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 15.00]\n"
                         "SPRT ([0.00, 15.00]) completed - H1 was accepted\n")
        self.assertEqual(r.sprt_verdict(), "H1")
        self.assertTrue(r.finished)
        # fastchess says "H1 was accepted" also when it runs out of games undecided: the LLR decides.
        r = result.parse("LLR: 1.00 (34.0%) (-2.94, 2.94) [0.00, 15.00]\n"
                         "SPRT ([0.00, 15.00]) completed - H1 was accepted\n")
        self.assertIsNone(r.sprt_verdict())


class RunnerTest(unittest.TestCase):
    def fake_fastchess(self, d, text):
        """A stand-in for fastchess: prints `text`, records its arguments, saves a state file."""
        path = os.path.join(d, "fake-fastchess")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> %s/calls\ncat %s\n"
                    "for a; do case $a in outname=*) echo {} > ${a#outname=};; esac; done\n"
                    % (d, os.path.join(d, "out.txt")))
        with open(os.path.join(d, "out.txt"), "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
        return path

    def test_resume_finish_and_refusal(self):
        with tempfile.TemporaryDirectory() as d:
            os.environ["FASTCHESS"] = self.fake_fastchess(d, "Started game 1 of 24 (a vs b)\n"
                                                            "Tournament was interrupted.\n")
            os.environ["BRUDNO_DATA"] = d       # no generator here
            out = os.path.join(d, "m")
            args = ["-engine", "name=a", "-rounds", "12"]
            quiet = lambda *_: None
            r = runner.run(out, args, say=quiet)
            self.assertTrue(r.interrupted)
            self.assertTrue(os.path.exists(os.path.join(out, "config.json")))
            runner.run(out, args, say=quiet)        # the rerun resumes from the saved state
            calls = read(os.path.join(d, "calls")).splitlines()
            self.assertIn("-rounds 12", calls[0])
            self.assertEqual(calls[1], f"-config file={out}/config.json")
            with self.assertRaises(SystemExit):     # another match in the same folder
                runner.run(out, ["-engine", "name=z", "-rounds", "12"], say=quiet)
            with open(os.path.join(d, "out.txt"), "w") as f:
                f.write(sample("fastchess-resumed.out").replace("Tournament was interrupted", ""))
            out2 = os.path.join(d, "m2")
            runner.run(out2, ["-rounds", "6"], say=quiet)
            n = len(read(os.path.join(d, "calls")).splitlines())
            r = runner.run(out2, ["-rounds", "6"], say=quiet)   # 12 games of 12: not played again
            self.assertEqual(len(read(os.path.join(d, "calls")).splitlines()), n)
            self.assertEqual(r.games, 12)


class PauseTest(unittest.TestCase):
    def state(self, pid):
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]

    def test_generator_stopped_then_continued_also_on_error(self):
        with tempfile.TemporaryDirectory() as d:
            gen = subprocess.Popen(["sleep", "30"], start_new_session=True)
            try:
                pid_file = os.path.join(d, "datagen.pid")
                with open(pid_file, "w") as f:
                    f.write(f"{gen.pid}\n")
                with self.assertRaises(RuntimeError):
                    with pause.generator_paused(say=lambda *_: None, path=pid_file) as pgid:
                        self.assertEqual(pgid, gen.pid)
                        time.sleep(0.05)
                        self.assertEqual(self.state(gen.pid), "T")
                        raise RuntimeError("the match failed")
                time.sleep(0.05)
                self.assertEqual(self.state(gen.pid), "S")
            finally:
                gen.kill()
                gen.wait()
            self.assertIsNone(pause.running_group(pid_file))   # gone: nothing to pause

    def test_no_pid_file(self):
        with pause.generator_paused(say=lambda *_: None, path="/no/such/datagen.pid") as pgid:
            self.assertIsNone(pgid)


class SoakPlanTest(unittest.TestCase):
    def test_every_opponent_meets_every_time_control(self):
        opps = ["self", "sf1500", "ethereal"]
        seen = {(soak.plan(b, 1, opps)[0], soak.plan(b, 1, opps)[1])
                for b in range(len(opps) * len(soak.TIME_CONTROLS))}
        self.assertEqual(len(seen), len(opps) * len(soak.TIME_CONTROLS))

    def test_settings_are_seeded_and_in_range(self):
        for b in range(50):
            _, _, s = soak.plan(b, 3, ["self"])
            self.assertEqual(s, soak.plan(b, 3, ["self"])[2])
            self.assertIn(int(s["Threads"]), range(1, 5))
            self.assertIn(s["Hash"], soak.HASHES)

    def test_nodes_become_movetime_for_engines_that_ignore_them(self):
        me = engines.parse("brudno=/bin/true")
        opps = ["ethereal"]
        b = next(b for b in range(100) if soak.plan(b, 1, opps)[1].startswith("nodes="))
        cmd, _ = soak.batch_command(me, b, 1, 4, "none", "/o", opps)
        self.assertIn("st=0.02", cmd)
        self.assertIn("nodes=20000", cmd)


class RatingTest(unittest.TestCase):
    def test_even_score_is_the_opponents_rating(self):
        r, margin = rating.performance([(1500, 50, 100)])
        self.assertAlmostEqual(r, 1500, places=3)
        self.assertGreater(margin, 0)

    def test_bounds(self):
        self.assertEqual(rating.performance([(1500, 10, 10)])[0], float("inf"))
        self.assertIsNone(rating.performance([]))


if __name__ == "__main__":
    unittest.main()
