"""Time controls, opening files (PGN and EPD), EPD suites (bm/am/c0), the command line, and the
translation to cutechess-cli / fastchess with the PGN read back."""
import argparse
import os
import sys
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..")
sys.path.insert(0, SCRIPTS)

import chess                                                    # noqa: E402

from matchlib import cli, external                              # noqa: E402
from matchlib.openings import OpeningBook, split_pgn            # noqa: E402
from matchlib.play import Adjudication                          # noqa: E402
from matchlib.tc import Clock, parse_tc                         # noqa: E402

suite = SourceFileLoader("suite_script", os.path.join(SCRIPTS, "suite")).load_module()

PGN = """[Event "?"]
[Site "?"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *

[Event "second"]
[Opening "Queen's Gambit"]

1. d4 d5 2. c4 {a comment} e6 (2... c6 3. Nc3) 3. Nc3 *
[Event "from a FEN"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e4 Kd7 *
"""

EPD = """rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id "e4";
# a comment line

rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - id "d4";
"""


class TimeControlTest(unittest.TestCase):
    def test_parse(self):
        tc = parse_tc("40/60")
        self.assertEqual((tc.kind, tc.moves, tc.base, tc.inc), ("clock", 40, 60.0, 0.0))
        tc = parse_tc("10+0.1")
        self.assertEqual((tc.kind, tc.moves, tc.base, tc.inc), ("clock", 0, 10.0, 0.1))
        tc = parse_tc("40/1:30+0.5")
        self.assertEqual((tc.moves, tc.base, tc.inc), (40, 90.0, 0.5))
        self.assertEqual(parse_tc("st=0.1").value, 0.1)
        self.assertEqual(parse_tc("movetime=0.2").kind, "st")
        self.assertEqual(parse_tc("nodes=5000").value, 5000)
        self.assertEqual(parse_tc("depth=8").value, 8)
        for bad in ("", "abc", "10+", "st=", "0+0", "st=0", "40/"):
            with self.assertRaises(ValueError, msg=bad):
                parse_tc(bad)
        self.assertEqual(str(parse_tc("8+0.08")), "8+0.08")
        self.assertEqual(str(parse_tc("40/60")), "40/60")
        self.assertEqual(parse_tc("st=0.1").pgn_tag(), "0.1/move")

    def test_clock_increment_and_flag(self):
        c = Clock(parse_tc("1+0.5"))
        self.assertTrue(c.spend(0.4))
        self.assertAlmostEqual(c.left, 1.1)
        self.assertTrue(c.spend(1.12, margin=0.05))   # 0.02 over: forgiven
        self.assertAlmostEqual(c.left, 0.5)
        self.assertFalse(c.spend(0.6, margin=0.05))

    def test_clock_moves_per_period(self):
        c = Clock(parse_tc("2/10"))
        self.assertEqual(c.moves_to_go(), 2)
        c.spend(3)
        self.assertEqual(c.moves_to_go(), 1)
        c.spend(3)
        self.assertAlmostEqual(c.left, 14)  # 10 - 6 + 10 at the control
        self.assertEqual(c.moves_to_go(), 2)


class OpeningTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.pgn = os.path.join(self.dir.name, "o.pgn")
        self.epd = os.path.join(self.dir.name, "o.epd")
        with open(self.pgn, "w") as f:
            f.write(PGN)
        with open(self.epd, "w") as f:
            f.write(EPD)

    def tearDown(self):
        self.dir.cleanup()

    def test_split_pgn(self):
        self.assertEqual(len(split_pgn(PGN)), 3)

    def test_pgn_sequential(self):
        book = OpeningBook(self.pgn, order="sequential")
        self.assertEqual(len(book), 3)
        o = book.get(0)
        self.assertIsNone(o.fen)
        self.assertEqual([m.uci() for m in o.moves], ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"])
        o = book.get(1)
        self.assertEqual([m.uci() for m in o.moves], ["d2d4", "d7d5", "c2c4", "e7e6", "b1c3"])  # mainline only
        self.assertEqual(o.name, "Queen's Gambit")
        o = book.get(2)
        self.assertEqual(o.fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
        self.assertEqual(o.board().fen(), "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2")
        self.assertEqual(book.get(3).moves, book.get(0).moves)  # cycles

    def test_pgn_start_and_plies(self):
        book = OpeningBook(self.pgn, order="sequential", start=2, plies=2)
        self.assertEqual([m.uci() for m in book.get(0).moves], ["d2d4", "d7d5"])

    def test_random_order_is_a_seeded_permutation(self):
        a = OpeningBook(self.pgn, order="random", seed=7)
        b = OpeningBook(self.pgn, order="random", seed=7)
        self.assertEqual([a.get(i).moves for i in range(3)], [b.get(i).moves for i in range(3)])
        self.assertEqual(sorted(len(a.get(i).moves) for i in range(3)), [2, 5, 6])

    def test_epd(self):
        book = OpeningBook(self.epd, order="sequential")
        self.assertEqual(len(book), 2)
        o = book.get(1)
        self.assertEqual(o.moves, [])
        self.assertEqual(o.board().piece_at(chess.D4), chess.Piece.from_symbol("P"))
        self.assertEqual(o.board().turn, chess.BLACK)
        self.assertEqual(o.name, "d4")

    def test_shared_files_if_present(self):
        base = os.path.join(SCRIPTS, "..", "..", "shared", "openings")
        p = os.path.join(base, "8moves_v3_half.pgn")
        if not os.path.exists(p):
            self.skipTest("../shared not here")
        book = OpeningBook(p, order="sequential")
        self.assertEqual(len(book), 17350)
        self.assertEqual(len(book.get(0).moves), 16)
        e = OpeningBook(os.path.join(base, "2moves_v1.epd"), order="sequential")
        self.assertEqual(len(e), 40457)
        self.assertEqual(e.get(40456).board().fen(), "rnbqkbnr/ppp1p1pp/3p4/5p2/8/N6P/PPPPPPP1/R1BQKBNR w KQkq - 0 3")


class SuiteTest(unittest.TestCase):
    def test_bm_am_and_points(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.epd")
            with open(p, "w") as f:
                f.write('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";\n')
                f.write('r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - am Nxc6; id "am";\n')
                f.write('1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; '
                        'c0 "f5=10, Be5+=2, Bf2=3, Bg4=2"; id "STS(v1.0) Undermine.001";\n')
                f.write('this is not a position\n')
            positions, bad = suite.read_suite(p)
        self.assertEqual(len(positions), 3)
        self.assertEqual(len(bad), 1)
        wac, am, sts = positions
        self.assertEqual(wac.id, "WAC.001")
        self.assertEqual(wac.judge(wac.board.parse_san("Qg6")), (True, 0))
        self.assertEqual(wac.judge(wac.board.parse_san("Qh4"))[0], False)
        self.assertFalse(am.judge(am.board.parse_san("Nxc6"))[0])
        self.assertTrue(am.judge(am.board.parse_san("Nb3"))[0])
        self.assertEqual(sts.judge(sts.board.parse_san("f5")), (True, 10))
        self.assertEqual(sts.judge(sts.board.parse_san("Bf2")), (False, 3))
        self.assertEqual(sts.judge(sts.board.parse_san("Kh1")), (False, 0))

    def test_c8_c9_points(self):
        b = chess.Board()
        pts = suite.parse_points(b, {"c8": "10 4", "c9": "e2e4 d2d4"})
        self.assertEqual(pts, {chess.Move.from_uci("e2e4"): 10, chess.Move.from_uci("d2d4"): 4})

    def test_wac_file_reads_whole(self):
        p = os.path.join(SCRIPTS, "..", "..", "shared", "suites", "wac.epd")
        if not os.path.exists(p):
            self.skipTest("../shared not here")
        positions, bad = suite.read_suite(p)
        self.assertEqual((len(positions), bad), (300, []))
        self.assertTrue(all(pos.bm for pos in positions))


class CommandLineTest(unittest.TestCase):
    def parse(self, argv):
        args = cli.parser().parse_args(argv)
        return args, cli.specs_from_args(args)

    def test_engines_and_options(self):
        args, specs = self.parse(["-engine", "cmd=/bin/true", "name=new", "Hash=32", "Move Overhead=30",
                                  "-engine", "cmd=/bin/false", "proto=xboard", "st=0.5", "args=-x -y",
                                  "-each", "tc=10+0.1", "OwnBook=false", "option.Threads=1"])
        a, b = specs
        self.assertEqual(a.name, "new")
        self.assertEqual(a.options, {"OwnBook": "false", "Threads": "1", "Hash": "32", "Move Overhead": "30"})
        self.assertEqual(str(a.tc), "10+0.1")
        self.assertEqual(b.proto, "xboard")
        self.assertEqual(b.cmd, ["/bin/false", "-x", "-y"])
        self.assertEqual(str(b.tc), "st=0.5")   # the engine's own setting wins over -each

    def test_positional_engines_get_distinct_names(self):
        _, specs = self.parse(["/bin/true", "/bin/true", "-tc", "40/60"])
        self.assertEqual([s.name for s in specs], ["true-1", "true-2"])

    def test_sprt_and_adjudication(self):
        self.assertEqual(cli.parse_sprt(["elo0=0", "elo1=5", "alpha=0.05", "beta=0.1"]),
                         {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.1})
        with self.assertRaises(SystemExit):
            cli.parse_sprt(["elo0=5", "elo1=0"])
        args = cli.parser().parse_args(["a", "b", "-resign", "movecount=3", "score=500", "twosided=false",
                                        "-draw", "movenumber=30", "movecount=6", "score=5", "-maxmoves", "200"])
        adj = cli.parse_adjudication(args)
        self.assertEqual((adj.resign_moves, adj.resign_score, adj.resign_twosided), (3, 500, False))
        self.assertEqual((adj.draw_movenumber, adj.draw_moves, adj.draw_score, adj.max_moves), (30, 6, 5, 200))

    def test_syzygy_piece_count(self):
        p = os.path.join(SCRIPTS, "..", "..", "shared", "data", "syzygy")
        if not os.path.isdir(p):
            self.skipTest("../shared not here")
        args = argparse.Namespace(resign=None, draw=None, maxmoves=0, tb=[p])
        adj = cli.parse_adjudication(args)
        self.assertEqual(adj.tb_pieces, 4)
        self.assertEqual(adj.tb.probe_wdl(chess.Board("8/8/8/4k3/8/8/8/K1Q5 b - - 0 1")), -2)


    def test_standard_adjudication(self):
        # the one setting the gauntlet, the soak and calibrate-elo share
        adj = cli.standard_adjudication()
        self.assertEqual((adj.resign_moves, adj.resign_score, adj.resign_twosided), (3, 600, True))
        self.assertEqual((adj.draw_movenumber, adj.draw_moves, adj.draw_score), (40, 8, 10))
        self.assertIsNone(adj.tb)
        self.assertIsNone(cli.standard_adjudication("/nonexistent/tables").tb)
        tables = os.path.join(SCRIPTS, "..", "tests", "data", "syzygy")
        adj = cli.standard_adjudication(tables)
        self.assertGreaterEqual(adj.tb_pieces, 3)
        self.assertEqual(adj.tb.probe_wdl(chess.Board("8/8/8/4k3/8/8/8/K1Q5 b - - 0 1")), -2)

    def test_stockfish_level_options(self):
        from matchlib.engines import stockfish_level_options
        self.assertEqual(stockfish_level_options(1500),
                         {"Threads": "1", "Hash": "16", "UCI_LimitStrength": "true", "UCI_Elo": "1500"})


class ExternalTest(unittest.TestCase):
    def test_cutechess_and_fastchess_arguments(self):
        args, specs = cli.parser().parse_args(
            ["-engine", "cmd=/bin/true", "name=A", "Hash=16", "-engine", "cmd=/bin/false", "name=B",
             "-tc", "8+0.08", "-concurrency", "2", "-sprt", "elo0=0", "elo1=5"]), None
        specs = cli.specs_from_args(args)
        op = {"file": "o.pgn", "format": None, "order": "random", "start": "1", "plies": None}
        adj = Adjudication(resign_moves=3, resign_score=600)
        sprt = cli.parse_sprt(args.sprt)
        c = external.build_command("cutechess", args, specs, 100, op, 42, sprt, adj, "x.pgn")
        s = " ".join(c)
        self.assertTrue(s.startswith("cutechess-cli -engine cmd=/bin/true name=A proto=uci tc=8+0.08 option.Hash=16"))
        self.assertIn("-games 2 -rounds 50 -repeat -concurrency 2", s)
        self.assertIn("-openings file=o.pgn format=pgn order=random", s)
        self.assertIn("-resign movecount=3 score=600 twosided=true", s)
        self.assertIn("-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05", s)
        self.assertTrue(s.endswith("-pgnout x.pgn"))
        f = external.build_command("fastchess", args, specs, 100, op, 42, sprt, adj, "x.pgn")
        self.assertNotIn("proto=uci", " ".join(f))
        self.assertEqual(f[-2:], ["-pgnout", "file=x.pgn"])

    def test_records_from_cutechess_pgn(self):
        text = """[Event "?"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]
[Termination "time forfeit"]

1. e4 e5 {Black loses on time} 1-0

[Event "?"]
[Round "1"]
[White "B"]
[Black "A"]
[Result "1/2-1/2"]

1. e4 e5 {Draw by 3-fold repetition} 1/2-1/2

[Event "?"]
[Round "2"]
[White "A"]
[Black "B"]
[Result "0-1"]
[Termination "rules infraction"]

1. e4 e5 {White makes an illegal move: e1e3} 0-1
"""
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "g.pgn")
            with open(p, "w") as f:
                f.write(text)
            recs = external.records_from_pgn(p, ["A", "B"])
        self.assertEqual([r.score(0) for r in recs], [1.0, 0.5, 0.0])
        self.assertEqual([r.pair for r in recs], [0, 0, 1])
        self.assertEqual(recs[0].errors[0][:2], (1, "timeloss"))
        self.assertEqual(recs[1].errors, [])
        self.assertEqual(recs[2].errors[0][:2], (0, "illegal"))


if __name__ == "__main__":
    unittest.main()
