"""Pondering in the UCI driver (go ponder / ponderhit / stop), with the scripted engine."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import chess                                                    # noqa: E402

from matchlib import cli                                        # noqa: E402
from matchlib.engines import EngineError, EngineSpec, start_engine  # noqa: E402
from matchlib.openings import Opening                          # noqa: E402
from matchlib.play import Adjudication, play_game               # noqa: E402
from matchlib.tc import parse_tc                                # noqa: E402

FAKE = os.path.join(HERE, "fake_engine.py")


def mv(*texts):
    return [chess.Move.from_uci(t) for t in texts]


class PonderDriverTest(unittest.TestCase):
    def start(self, mode="good", ponder=True):
        self.sent = []
        s = EngineSpec([sys.executable, FAKE, mode], name=mode, tc=parse_tc("st=0.1"), ponder=ponder)
        eng = start_engine(s, log=lambda line: self.sent.append(line.split(" < ", 1)[1]) if " < " in line else None)
        self.addCleanup(eng.quit)
        return eng

    def test_hit_miss_and_new_game(self):
        e = self.start()
        r = e.think(None, [], "movetime 100", 0.1, 0.05)
        self.assertEqual((r.move_text, r.ponder_text), ("a2a3", "a7a5"))  # first legal move, and a reply
        e.start_ponder(None, [], r, "movetime 100")
        self.assertEqual(self.sent[-2:], ["position startpos moves a2a3 a7a5", "go ponder movetime 100"])
        self.sent.clear()
        r = e.think(None, mv("a2a3", "a7a5"), "movetime 100", 0.1, 0.05)
        self.assertEqual(self.sent[0], "ponderhit")
        self.assertEqual(r.move_text, "a1a2")
        self.assertFalse(r.late)
        self.assertLess(r.elapsed, 0.1)
        self.assertEqual(e.ponderhits, 1)
        e.start_ponder(None, mv("a2a3", "a7a5"), r, "movetime 100")
        self.sent.clear()
        r = e.think(None, mv("a2a3", "a7a5", "a1a2", "h7h6"), "movetime 100", 0.1, 0.05)  # not its ponder move
        self.assertEqual(self.sent[:3], ["stop", "position startpos moves a2a3 a7a5 a1a2 h7h6", "go movetime 100"])
        self.assertEqual(r.move_text, "a2a1")
        self.assertEqual(e.ponder_misses, 1)
        e.start_ponder(None, mv("a2a3", "a7a5", "a1a2", "h7h6"), r, "movetime 100")
        self.sent.clear()
        e.new_game()
        self.assertEqual(self.sent[:2], ["stop", "ucinewgame"])
        e.sync()   # the stopped search's bestmove was consumed, nothing stale is left

    def test_no_answer_to_stop_is_a_stall(self):
        e = self.start("deafponder")
        e.PONDER_STOP_TIMEOUT = 0.5
        e.start_ponder(None, [], e.think(None, [], "movetime 100", 0.1, 0.05), "movetime 100")
        with self.assertRaises(EngineError) as cm:
            e.think(None, mv("a2a3", "h7h6"), "movetime 100", 0.1, 0.05)
        self.assertEqual(cm.exception.kind, "stall")

    def test_off_by_default(self):
        e = self.start(ponder=False)
        e.start_ponder(None, [], e.think(None, [], "movetime 100", 0.1, 0.05), "movetime 100")
        e.think(None, mv("a2a3", "a7a5"), "movetime 100", 0.1, 0.05)
        self.assertFalse(any("ponder" in line for line in self.sent))

    def test_game_with_pondering(self):
        specs = [EngineSpec([sys.executable, FAKE, "good"], name=n, tc=parse_tc("2+0.05"), ponder=p)
                 for n, p in (("P", True), ("N", False))]
        engines = [start_engine(s) for s in specs]
        try:
            for white in (0, 1):
                g = play_game(engines, specs, white, Opening(None, []), white, 0,
                              Adjudication(max_moves=12), hang_timeout=3.0)
                self.assertEqual(g.errors, [])
                self.assertGreaterEqual(g.plies, 8)
            self.assertGreater(engines[0].ponderhits, 4)   # the fake engines agree on every reply
        finally:
            for e in engines:
                e.quit()


    def test_ponder_search_gets_the_clocks_after_the_move(self):
        # A GUI sends `go ponder` with the clocks as they stand once the move is made. The runner
        # once re-sent the previous go's: with movestogo the engine then planned with time it had
        # already spent, and lost on time in the soak at 10/0.5+0.01.
        sent = []
        specs = [EngineSpec([sys.executable, FAKE, "good"], name="P", tc=parse_tc("5/2"), ponder=True),
                 EngineSpec([sys.executable, FAKE, "good"], name="N", tc=parse_tc("5/2"))]
        engines = [start_engine(specs[0], log=lambda line: sent.append(line.split(" < ", 1)[1]) if " < " in line else None),
                   start_engine(specs[1])]
        try:
            g = play_game(engines, specs, 0, Opening(None, []), 0, 0, Adjudication(max_moves=14), hang_timeout=3.0)
            self.assertEqual(g.errors, [])
        finally:
            for e in engines:
                e.quit()

        def field(line, name):
            w = line.split()
            return int(w[w.index(name) + 1])
        gos = [line for line in sent if line.startswith("go ")]
        pairs = [(a, b) for a, b in zip(gos, gos[1:]) if b.startswith("go ponder") and not a.startswith("go ponder")]
        self.assertGreater(len(pairs), 0, gos)
        for before, ponder in pairs:
            m = field(before, "movestogo")
            self.assertEqual(field(ponder, "movestogo"), m - 1 if m > 1 else 5, (before, ponder))
            if m > 1:
                self.assertLessEqual(field(ponder, "wtime"), field(before, "wtime"), (before, ponder))


class PonderKeyTest(unittest.TestCase):
    def test_runner_key_and_uci_option(self):
        s = cli.build_spec(cli.keyvals(["cmd=true", "ponder=true", "Ponder=true", "Hash=1"], "t"))
        self.assertTrue(s.ponder)
        self.assertEqual(s.options, {"Ponder": "true", "Hash": "1"})
        s = cli.build_spec(cli.keyvals(["cmd=true"], "t"))
        self.assertFalse(s.ponder)
        self.assertIn("ponder", cli.ENGINE_KEYS)


if __name__ == "__main__":
    unittest.main()
