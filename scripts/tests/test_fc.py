"""The python scripts without fastchess or Brudno: engines, the command, the result read from
real fastchess output (data/, made by fastchess 1.8.2 with fake_engine.py and with Brudno against
Ethereal), the resume rules, the generator pause, the soak's plan, calibrate-elo's arithmetic, and
scripts/suite with the scripted engine (it plays the first legal move by UCI text)."""
import math
import os
import runpy
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)

from fc import command, engines, pause, result, runner   # noqa: E402

soak = runpy.run_path(os.path.join(SCRIPTS, "soak"))
cal = runpy.run_path(os.path.join(SCRIPTS, "calibrate-elo"))


def sample(name):
    return runner.read(os.path.join(HERE, "data", name))


def dry_run(script, *args):
    r = subprocess.run([os.path.join(SCRIPTS, script), *args, "--openings", "none", "--out", "/o", "--dry-run"],
                       capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout.splitlines()


class CommandTest(unittest.TestCase):
    def test_engines(self):
        e = engines.parse("new=/tmp/x/brudno").with_options(["Hash=64", "EvalFile=/n.nnue"])
        self.assertEqual(e.fastchess_args("st=0.05"), ["-engine", "name=new", "cmd=/tmp/x/brudno", "st=0.05",
                                                       "option.Threads=1", "option.Hash=64", "option.OwnBook=false",
                                                       "option.EvalFile=/n.nnue"])
        self.assertEqual(engines.parse("/tmp/x/brudno").name, "brudno")
        self.assertEqual(engines.parse("sf2500").options["UCI_Elo"], "2500")
        self.assertEqual(engines.parse("gnuchess").args, ["--uci"])
        self.assertRaises(ValueError, engines.parse, "no-such-engine")
        self.assertRaises(ValueError, e.with_options, ["Hash"])
        with tempfile.NamedTemporaryFile(suffix=".epd") as f:
            self.assertEqual(command.openings_args(f.name, 7)[2:], ["format=epd", "order=random", "-srand", "7"])
        self.assertRaises(ValueError, command.openings_args, "/no/such/file.pgn", 1)

    def test_match_sprt_and_gauntlet(self):
        code, lines = dry_run("match", "new=/bin/true", "base=/bin/true", "--each", "EvalFile=/n", "--games", "200")
        self.assertEqual((code, len(lines), lines[0].count("option.EvalFile=/n")), (0, 1, 2))
        self.assertIn("-repeat -rounds 100 -concurrency 2 -recover -resign movecount=3 score=600 twosided=true "
                      "-draw movenumber=40 movecount=8 score=10 -pgnout file=/o/games.pgn", lines[0])
        code, lines = dry_run("sprt", "new=/bin/true", "base=/bin/true", "--elo0", "-15", "--elo1", "0",
                              "--no-adjudication", "--tb", "/tb")
        self.assertIn("tc=4+0.04", lines[0])
        self.assertIn("-rounds 2000 -concurrency 2 -recover -tb /tb -sprt elo0=-15 elo1=0 alpha=0.05 beta=0.05 "
                      "model=normalized -pgnout", lines[0])
        self.assertEqual(dry_run("sprt", "a=/bin/true", "b=/bin/true", "--elo0", "5", "--elo1", "5")[0], 2)
        code, lines = dry_run("gauntlet", "me=/bin/true", "--opponents", "x=/bin/true,y=/bin/true", "--opt", "Hash=8")
        self.assertEqual([line.count("option.Hash=8") for line in lines], [1, 1])
        self.assertIn("name=x", lines[0])
        self.assertIn("file=/o/y/games.pgn", lines[1])


class ResultTest(unittest.TestCase):
    def test_match_totals_and_a_resume(self):
        r = result.parse(sample("fastchess-resumed.out"))
        self.assertEqual((r.first, r.second, r.games, r.wins, r.draws, r.losses), ("new", "ethereal", 12, 9, 0, 3))
        self.assertEqual((r.points, r.elo, r.elo_error, r.nelo), (9.0, 190.85, 238.40, 245.67))
        self.assertTrue(r.interrupted)          # the first run was stopped, then resumed
        self.assertEqual(r.faults, [])
        self.assertIn("games 12: +9 =0 -3, 9 points (75.0%)", r.summary())

    def test_faults(self):
        r = result.parse(sample("fastchess-late.out"))
        self.assertEqual([(g, k, n) for g, k, n, _ in r.faults], [(1, "time loss", "late"), (2, "time loss", "late")])
        self.assertIn("faults: late: time loss 2", r.summary())
        self.assertEqual({k for _, k, _, _ in result.parse(sample("fastchess-illegal.out")).faults}, {"illegal move"})
        r = result.parse(sample("fastchess-crash.out"))
        self.assertEqual([(k, n) for _, k, n, _ in r.faults], [("disconnect", "crashy")] * 2)

    def test_sprt_lines(self):
        text = ("Results of a vs b (4+0.04, 1t, 16MB, x.pgn):\n"
                "Elo: 30.10 +/- 20.00, nElo: 40.00 +/- 25.00\n"
                "Games: 500, Wins: 200, Losses: 157, Draws: 143, Points: 271.5 (54.30 %)\n"
                "LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 15.00]\n"
                "SPRT ([0.00, 15.00]) completed - H1 was accepted\n")
        self.assertTrue(result.parse(text).finished)
        self.assertIn("LLR 2.95 (-2.94, 2.94): H1 accepted", result.parse(text).summary())
        # fastchess says "H1 was accepted" also when it runs out of games undecided: the LLR decides.
        r = result.parse(text.replace("LLR: 2.95", "LLR: 1.00"))
        self.assertIn("LLR 1.00 (-2.94, 2.94): undecided", r.summary())


class RunnerTest(unittest.TestCase):
    def test_resume_finish_and_refusal(self):
        with tempfile.TemporaryDirectory() as d:
            # A stand-in for fastchess: prints out.txt, records its arguments, saves a state file.
            fake, out_txt, calls = (os.path.join(d, n) for n in ("fake-fastchess", "out.txt", "calls"))
            with open(fake, "w") as f:
                f.write(f'#!/bin/sh\necho "$@" >> {calls}\ncat {out_txt}\n'
                        "for a; do case $a in outname=*) echo {} > ${a#outname=};; esac; done\n")
            os.chmod(fake, 0o755)
            with open(out_txt, "w") as f:
                f.write("Started game 1 of 12 (a vs b)\nTournament was interrupted.\n")
            os.environ.update(FASTCHESS=fake, BRUDNO_DATA=d)       # no generator here
            out, args, quiet = os.path.join(d, "m"), ["-engine", "name=a", "-rounds", "6"], lambda *_: None
            self.assertTrue(runner.run(out, args, say=quiet).interrupted)
            with open(out_txt, "w") as f:
                f.write(sample("fastchess-resumed.out").split("--- resumed ---\n")[1])
            r = runner.run(out, args, say=quiet)        # the rerun resumes from the saved state
            want = [f"-engine name=a -rounds 6 -config outname={out}/config.json", f"-config file={out}/config.json"]
            self.assertEqual(runner.read(calls).splitlines(), want)
            self.assertEqual((r.games, r.interrupted), (12, False))   # the total; this run was not interrupted
            self.assertEqual(runner.run(out, args, say=quiet).games, 12)    # 12 games of 12: not played again
            self.assertEqual(len(runner.read(calls).splitlines()), 2)
            with self.assertRaises(SystemExit):     # another match in the same folder
                runner.run(out, ["-engine", "name=z", "-rounds", "6"], say=quiet)


class PauseTest(unittest.TestCase):
    def test_generator_stopped_then_continued_also_on_error(self):
        gen = subprocess.Popen(["sleep", "30"], start_new_session=True)
        self.addCleanup(gen.wait)
        self.addCleanup(gen.kill)
        state = lambda: runner.read(f"/proc/{gen.pid}/stat").rsplit(")", 1)[1].split()[0]  # noqa: E731
        with tempfile.NamedTemporaryFile("w") as pid_file:
            print(gen.pid, file=pid_file, flush=True)
            with self.assertRaises(RuntimeError):
                with pause.generator_paused(say=lambda *_: None, path=pid_file.name) as pgid:
                    self.assertEqual(pgid, gen.pid)
                    time.sleep(0.05)
                    self.assertEqual(state(), "T")
                    raise RuntimeError("the match failed")
            time.sleep(0.05)
            self.assertEqual(state(), "S")
            gen.kill()
            gen.wait()
            self.assertIsNone(pause.running_group(pid_file.name))   # gone: nothing to pause

    def test_overlapping_matches_the_last_one_out_continues(self):
        gen, other = (subprocess.Popen(["sleep", "30"], start_new_session=True) for _ in range(2))
        for p in (gen, other):
            self.addCleanup(p.wait)
            self.addCleanup(p.kill)
        state = lambda: runner.read(f"/proc/{gen.pid}/stat").rsplit(")", 1)[1].split()[0]  # noqa: E731
        with tempfile.TemporaryDirectory() as d:
            pid_file = os.path.join(d, "datagen.pid")
            with open(pid_file, "w") as f:
                print(gen.pid, file=f)
            os.makedirs(os.path.join(d, "paused-by"))
            open(os.path.join(d, "paused-by", f"paused-by.{other.pid}"), "w").close()  # another match plays
            with pause.generator_paused(say=lambda *_: None, path=pid_file):
                pass
            time.sleep(0.05)
            self.assertEqual(state(), "T")
            other.kill()
            other.wait()                    # it ended without its mark removed: a stale mark
            with pause.generator_paused(say=lambda *_: None, path=pid_file):
                pass
            time.sleep(0.05)
            self.assertEqual(state(), "S")


class ScriptsTest(unittest.TestCase):
    def test_suite_counts_best_and_avoid_moves(self):
        start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
        with tempfile.NamedTemporaryFile("w", suffix=".epd") as epd:
            epd.write(f'{start} bm a3; id "first";\n{start} bm e4; id "second";\n{start} am a3; id "third";\n'
                      f'{start} am e4; id "fourth";\nnot a position\n')      # the fake plays a2a3
            epd.flush()
            r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "suite"), f"{sys.executable} "
                                f"{os.path.join(HERE, 'fake_engine.py')}", epd.name, "--st", "0.05"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("skipping line 5", r.stdout)
        self.assertIn("failed: second third\n", r.stdout)
        self.assertTrue(r.stdout.endswith("solved 2/4\n"), r.stdout)

    def test_soak_plan(self):
        opps, plan, tcs = ["self", "sf1500", "ethereal"], soak["plan"], soak["TIME_CONTROLS"]
        self.assertEqual(len({plan(b, 1, opps)[:2] for b in range(len(opps) * len(tcs))}), len(opps) * len(tcs))
        self.assertEqual([plan(b, 3, opps) for b in range(20)], [plan(b, 3, opps) for b in range(20)])
        self.assertGreater(len({plan(b, 3, opps)[2]["Hash"] for b in range(20)}), 1)
        # Opponents that ignore `go nodes` get a move time instead.
        b = next(b for b in range(100) if plan(b, 1, ["ethereal"])[1].startswith("nodes="))
        cmd, _ = soak["batch_command"](engines.brudno("brudno", "/bin/true"), b, 1, 4, "none", "/o", ["ethereal"])
        self.assertEqual(cmd[cmd.index("name=ethereal") + 2], "st=0.02")
        self.assertIn("nodes=20000", cmd[:cmd.index("name=ethereal")])

    def test_soak_counts_both_brudnos_faults(self):
        faults = [(3, "time forfeit", "self", "5ms overrun"), (4, "time forfeit", "toga2", "1ms"),
                  (7, "illegal move", "brudno", "e2e5")]
        lines = soak["own_faults"](12, "self, st=0.05", faults)
        self.assertEqual(lines, ["batch 12 (self, st=0.05), game 3: time forfeit by self (5ms overrun)",
                                 "batch 12 (self, st=0.05), game 7: illegal move by brudno (e2e5)"])

    def test_calibration_levels_games_and_rating(self):
        levels, split, perf = cal["sf_levels"], cal["split_games"], cal["performance"]
        self.assertEqual([levels(2000, 150), levels(1300, 150), levels(1000, 150), levels(2800, 150)],
                         [[1850, 2150], [1350, 1450], [1350], [2650, 2850]])
        for games, n in ((g, n) for g in range(1, 101) for n in (1, 2, 3)):
            shares = split(games, n)
            self.assertEqual((len(shares), sum(shares)), (n, max(2, games + games % 2)))
            self.assertTrue(all(s % 2 == 0 for s in shares) and max(shares) - min(shares) <= 2)
        rating, margin = perf([(1500, 50, 100)])
        self.assertEqual((round(rating, 3), round(margin, 1)), (1500, 68.1))    # 1.96 × 400 / (ln 10 × √25)
        self.assertAlmostEqual(perf([(1400, 30, 40), (1600, 10, 40)])[0], 1500)  # 75% and 25%: midway
        self.assertAlmostEqual(perf([(1500, 75, 100)])[0], 1500 + 400 * math.log10(3))
        self.assertEqual([perf([(1500, 10, 10)])[0], perf([(1500, 0, 10)])[0], perf([])], [math.inf, -math.inf, None])


if __name__ == "__main__":
    unittest.main()
