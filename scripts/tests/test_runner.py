"""The python-chess runner against scripted engines: results, adjudication, and every kind of
engine failure it must detect and attribute (illegal move, crash, time loss, disconnect, stall)."""
import os
import re
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import chess                                                    # noqa: E402

from matchlib.engines import EngineSpec, start_engine          # noqa: E402
from matchlib.openings import Opening                          # noqa: E402
from matchlib.play import Adjudication, MatchRunner, play_game, rules_outcome, parse_engine_move  # noqa: E402
from matchlib.tc import parse_tc                                # noqa: E402

FAKE = os.path.join(HERE, "fake_engine.py")


def spec(mode, tc="10+0.1", name=None, proto="uci"):
    return EngineSpec([sys.executable, FAKE, mode], name=name or mode, proto=proto, tc=parse_tc(tc))


def play(mode_a, mode_b, tc="10+0.1", adj=None, opening=None, margin=0.05):
    specs = [spec(mode_a, tc, name="A"), spec(mode_b, tc, name="B")]
    engines = [start_engine(s) for s in specs]
    try:
        return play_game(engines, specs, 0, opening or Opening(None, []), 0, 0, adj or Adjudication(),
                         margin=margin, hang_timeout=3.0)
    finally:
        for e in engines:
            e.quit()


class GameTest(unittest.TestCase):
    def test_good_game_ends_by_rules(self):
        g = play("good", "good")
        self.assertIn(g.result, ("1-0", "0-1", "1/2-1/2"))
        self.assertEqual(g.errors, [])
        board = chess.Board()
        for m in g.pgn.mainline_moves():
            board.push(m)
        self.assertIsNotNone(rules_outcome(board))

    def test_illegal_move_loses(self):
        g = play("good", "illegal")
        self.assertEqual(g.result, "1-0")
        self.assertEqual(g.termination, "illegal move")
        self.assertEqual([(s, k) for s, k, _ in g.errors], [(1, "illegal")])
        self.assertEqual(g.pgn.headers["Termination"], "rules infraction")

    def test_crash_loses(self):
        g = play("crash", "good")
        self.assertEqual(g.result, "0-1")
        self.assertEqual([(s, k) for s, k, _ in g.errors], [(0, "crash")])
        self.assertIn("exit status 3", g.errors[0][2])

    def test_signal_is_a_crash(self):
        g = play("good", "segv")
        self.assertEqual(g.result, "1-0")
        self.assertEqual(g.errors[0][1], "crash")
        self.assertIn("SIGSEGV", g.errors[0][2])

    def test_time_loss(self):
        g = play("slow", "good", tc="1+0")
        self.assertEqual(g.result, "0-1")
        self.assertEqual(g.termination, "time forfeit")
        self.assertEqual(g.errors[0][:2], (0, "timeloss"))
        g = play("good", "slow", tc="st=0.1")
        self.assertEqual(g.result, "1-0")
        self.assertEqual(g.errors[0][:2], (1, "timeloss"))

    def test_clock_keeps_the_least_left_and_the_forgiven_oversteps(self):
        from matchlib.tc import Clock
        c = Clock(parse_tc("1+0.1"))
        self.assertTrue(c.spend(0.4, margin=0.05))     # 0.6 left, then + 0.1
        self.assertTrue(c.spend(0.72, margin=0.05))    # -0.02: forgiven, restarts at 0 + 0.1
        self.assertAlmostEqual(c.least_left, -0.02)
        self.assertEqual(c.forgiven, 1)
        self.assertAlmostEqual(c.left, 0.1)
        self.assertFalse(c.spend(0.2, margin=0.05))    # -0.1: the flag falls
        self.assertAlmostEqual(c.least_left, -0.1)
        self.assertEqual(c.forgiven, 1)

    def test_game_record_has_exact_clock_figures_and_ms_comments(self):
        g = play("slow", "good", tc="1+0")
        self.assertLess(g.least_left[0], -0.05)          # slow lost on time: beyond the margin
        self.assertGreater(g.least_left[1], 0.0)
        comments = [n.comment for n in g.pgn.mainline() if n.comment]
        timed = [c for c in comments if re.search(r"\b\d+\.\d{3}s\b", c)]
        self.assertTrue(timed, comments)

    def test_late_answer_after_stop_is_time_loss(self):
        g = play("good", "late", tc="st=0.1")
        self.assertEqual(g.result, "1-0")
        self.assertEqual(g.errors[0][:2], (1, "timeloss"))

    def test_stall(self):
        g = play("silent", "good", tc="st=0.1")
        self.assertEqual(g.result, "0-1")
        self.assertEqual(g.errors[0][:2], (0, "stall"))

    def test_disconnect(self):
        g = play("good", "close")
        self.assertEqual(g.result, "1-0")
        self.assertEqual(g.errors[0][:2], (1, "disconnect"))

    def test_resign_adjudication(self):
        adj = Adjudication(resign_moves=3, resign_score=600)
        g = play("winner", "resigner", adj=adj)
        self.assertEqual(g.result, "1-0")
        self.assertEqual(g.termination, "adjudication: resign")
        # one-sided opinion is not enough with twosided (the default)
        g = play("good", "resigner", adj=adj)
        self.assertNotEqual(g.termination, "adjudication: resign")

    def test_draw_adjudication(self):
        adj = Adjudication(draw_movenumber=1, draw_moves=4, draw_score=10)
        g = play("good", "good", adj=adj)
        self.assertEqual(g.result, "1/2-1/2")
        self.assertEqual(g.termination, "adjudication: draw")
        self.assertEqual(g.plies, 8)

    def test_opening_from_fen_and_moves(self):
        op = Opening("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", [chess.Move.from_uci("e2e4")])
        g = play("good", "good", opening=op)
        self.assertEqual(g.pgn.headers["FEN"], "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
        first = next(iter(g.pgn.mainline()))
        self.assertEqual(first.move.uci(), "e2e4")
        self.assertEqual(first.comment, "book")

    def test_xboard_driver(self):
        specs = [spec("good", name="A"), spec("xboard", name="X", proto="xboard")]
        engines = [start_engine(s) for s in specs]
        try:
            for white in (0, 1):
                g = play_game(engines, specs, white, Opening(None, [chess.Move.from_uci("d2d4")]), white, 0,
                              Adjudication(max_moves=20), hang_timeout=3.0)
                self.assertEqual(g.errors, [])
                self.assertEqual(g.plies, 40 if g.termination.startswith("adjudication") else g.plies)
        finally:
            for e in engines:
                e.quit()

    def test_quit_ignored_is_killed(self):
        e = start_engine(spec("noquit"))
        t = time.monotonic()
        e.quit()
        self.assertFalse(e.alive())
        self.assertLess(time.monotonic() - t, 5)

    def test_unknown_option_is_refused(self):
        s = spec("good")
        s.options = {"NoSuchOption": "1"}
        with self.assertRaises(Exception):
            start_engine(s)


class MoveParsingTest(unittest.TestCase):
    def test_forms(self):
        b = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
        self.assertEqual(parse_engine_move(b, "e1g1"), chess.Move.from_uci("e1g1"))
        self.assertEqual(parse_engine_move(b, "e1h1"), chess.Move.from_uci("e1g1"))  # king takes rook
        self.assertEqual(parse_engine_move(b, "O-O-O"), chess.Move.from_uci("e1c1"))
        self.assertIsNone(parse_engine_move(b, "e1e3"))
        self.assertIsNone(parse_engine_move(b, "(none)"))
        self.assertIsNone(parse_engine_move(b, ""))


class MatchTest(unittest.TestCase):
    def test_match_counts_pairs_and_recovers_from_crashes(self):
        with tempfile.TemporaryDirectory() as d:
            pgn = os.path.join(d, "out.pgn")
            lines = []
            r = MatchRunner([spec("good", name="G"), spec("crash", name="C")], 6, 1, None,
                            Adjudication(max_moves=10), pgnout=pgn, out=lines.append, hang_timeout=3.0)
            t = r.run()
            self.assertEqual(t.n, 6)
            self.assertEqual(sum(t.penta), 3)
            self.assertEqual(t.problems[1]["crash"], 6)  # restarted for every game
            self.assertEqual(t.problems[0]["crash"], 0)
            self.assertEqual(t.w, 6)
            with open(pgn) as f:
                self.assertEqual(f.read().count("[Event "), 6)
            self.assertTrue(any(line.startswith("[6/6]") for line in lines))

    def test_match_keeps_no_game_trees_and_judges_its_own_pauses(self):
        """A finished game's PGN tree is dropped once written (kept, a thousand of them made
        each garbage collection stop the judge for 150 ms: matchlib/judge.py); the summary
        gives the judge's own longest pause, and a time loss says how long the judge itself
        stood still while the move was timed."""
        import gc
        import chess.pgn
        from matchlib.play import summary
        with tempfile.TemporaryDirectory() as d:
            pgn = os.path.join(d, "out.pgn")
            lines = []
            r = MatchRunner([spec("good", tc="st=0.1", name="G"), spec("slow", tc="st=0.1", name="S")], 4, 2,
                            None, Adjudication(max_moves=10), pgnout=pgn, out=lines.append, hang_timeout=3.0)
            t = r.run()
            self.assertEqual((t.n, t.problems[1]["timeloss"]), (4, 4))
            with open(pgn) as f:
                self.assertEqual(f.read().count("[Event "), 4)
        self.assertTrue(all(g.pgn is None for g in t.games))
        gc.collect()
        self.assertEqual([o for o in gc.get_objects() if isinstance(o, chess.pgn.Game)], [])
        losses = [line for line in lines if line.startswith("!! game")]
        self.assertEqual(len(losses), 4)
        for line in losses:
            self.assertRegex(line, r"timeloss: move \d+: answered after .*; the judge paused up to \d+ ms meanwhile$")
        self.assertRegex(summary(t), r"Judge \(this runner\): longest pause \d+ ms \(\d+ over 20 ms\), "
                                     r"longest garbage collection \d+ ms")

    def test_sprt_stops_early(self):
        lines = []
        sprt = {"elo0": 0, "elo1": 200, "alpha": 0.05, "beta": 0.05}
        r = MatchRunner([spec("good", name="G"), spec("illegal", name="I")], 1000, 2, None,
                        Adjudication(), out=lines.append, sprt=sprt, hang_timeout=3.0)
        t = r.run()
        self.assertEqual(r.verdict, "H1")
        self.assertLess(t.n, 1000)

    def test_journal_resumes_and_extends_a_match(self):
        """A rerun with the journal plays only the games not yet recorded (a larger -games
        extends the match), and the tally counts the recorded games as if just played."""
        from matchlib.journal import Journal
        plan = {"engines": ["G", "C"], "seed": 1}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "match.jsonl")
            pgn = os.path.join(d, "out.pgn")

            def run(games):
                lines = []
                r = MatchRunner([spec("good", name="G"), spec("crash", name="C")], games, 2, None,
                                Adjudication(max_moves=10), pgnout=pgn, out=lines.append, hang_timeout=3.0,
                                journal=Journal(path, plan))
                return r, r.run(), lines

            r, t, _ = run(4)
            self.assertEqual((len(r.done), t.n), (0, 4))
            r, t, lines = run(6)
            self.assertEqual(r.done, {0, 1, 2, 3})
            self.assertEqual(t.n, 6)
            self.assertEqual((t.w, sum(t.penta), t.problems[1]["crash"]), (6, 3, 6))
            played = sorted(int(re.match(r"\[\d+/6\] #(\d+) ", line).group(1))
                            for line in lines if line.startswith("["))
            self.assertEqual(played, [5, 6])        # only the two new games were played
            with open(pgn) as f:
                self.assertEqual(f.read().count("[Event "), 6)
            r, t, lines = run(6)                      # nothing left to play
            self.assertEqual((t.n, [line for line in lines if line.startswith("[")]), (6, []))
            with self.assertRaises(SystemExit):       # another plan: refused, not mixed in
                Journal(path, dict(plan, seed=2))
            # Another file named by mistake is refused and left as it was.
            other = os.path.join(d, "games.pgn")
            for text in ('[Event "x"]\n\n1. e4 *\n', '[Event "x"]'):
                with open(other, "w") as f:
                    f.write(text)
                with self.assertRaises(SystemExit):
                    Journal(other, plan)
                with open(other) as f:
                    self.assertEqual(f.read(), text)
            # A gauntlet keeps each opponent's games apart in one journal.
            from matchlib.journal import Scope
            both = os.path.join(d, "gauntlet.jsonl")
            Scope(Journal(both, plan), "ethereal").add(0, {"result": "1-0"})
            again = Journal(both, plan)
            self.assertEqual(Scope(again, "ethereal").done(0), {"result": "1-0"})
            self.assertIsNone(Scope(again, "toga2").done(0))


if __name__ == "__main__":
    unittest.main()
