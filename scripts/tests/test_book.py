"""python-chess reads the books Brudno makes, and Brudno reads books as python-chess does.

    python3 -m unittest discover -s scripts/tests -v

Needs cargo (it runs `cargo run --release -p brudno-tools -- book`, honouring CARGO_TARGET_DIR)
and python-chess.
"""
import collections
import os
import random
import struct
import subprocess
import tempfile
import unittest

import chess
import chess.pgn
import chess.polyglot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAMES = os.path.join(ROOT, "tests", "data", "book-games.txt")
DEFAULT_BOOK = os.path.join(ROOT, "src", "book", "default.bin")
ENTRY = struct.Struct(">QHHI")


def book_tool(*args, stdin=None):
    cmd = ["cargo", "run", "--quiet", "--release", "-p", "brudno-tools", "--", "book", *args]
    return subprocess.run(cmd, cwd=ROOT, input=stdin, capture_output=True, text=True, check=True).stdout


def write_pgn(lines, path):
    """The games of `RESULT uci uci ...` lines as a PGN file, written by python-chess."""
    with open(path, "w") as f:
        for line in lines:
            result, *moves = line.split()
            game = chess.pgn.Game()
            game.headers["Result"] = result
            node = game
            for uci in moves:
                node = node.add_variation(chess.Move.from_uci(uci))
            print(game, file=f, end="\n\n")


def brudno_probe(book, fens):
    """What Brudno's reader finds: {fen: [(uci, weight), ...]} in file order."""
    out = book_tool("probe", book, stdin="\n".join(fens) + "\n")
    found = {}
    for line in out.splitlines():
        fen, _, moves = line.partition("\t")
        found[fen] = [(m.split(":")[0], int(m.split(":")[1])) for m in moves.split()]
    return found


def python_chess_finds(reader, board):
    return [(e.move.uci(), e.weight) for e in reader.find_all(board)]


class MadeBookTest(unittest.TestCase):
    """A book made from tests/data/book-games.txt reads back in python-chess with exactly the
    weights the games give (2 x wins + draws of the side to move), computed here independently.
    The games reach the book maker as a PGN file that python-chess writes."""

    MAX_PLY, MIN_GAMES = 32, 2

    def test_python_chess_reads_made_book(self):
        with open(GAMES) as f:
            lines = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            book = os.path.join(tmp, "made.bin")
            pgn = os.path.join(tmp, "games.pgn")
            write_pgn(lines.splitlines(), pgn)
            book_tool("build", "--pgn", pgn, "--max-ply", str(self.MAX_PLY), "--min-games",
                      str(self.MIN_GAMES), "--min-share", "0", "--out", book)

            # Independent statistics: (fen-key, uci) -> [wins, draws, losses] of the mover.
            stats = collections.defaultdict(lambda: [0, 0, 0])
            boards = {}
            for line in lines.splitlines():
                result, *moves = line.split()
                board = chess.Board()
                for ply, uci in enumerate(moves[: self.MAX_PLY]):
                    key = chess.polyglot.zobrist_hash(board)
                    boards.setdefault(key, board.copy(stack=False))
                    if result == "1/2-1/2":
                        stats[key, uci][1] += 1
                    elif (result == "1-0") == (board.turn == chess.WHITE):
                        stats[key, uci][0] += 1
                    else:
                        stats[key, uci][2] += 1
                    board.push_uci(uci)
            expected = collections.defaultdict(list)
            for (key, uci), (w, d, l) in stats.items():
                if w + d + l >= self.MIN_GAMES and 2 * w + d > 0:
                    expected[key].append((uci, 2 * w + d))

            with chess.polyglot.open_reader(book) as reader:
                self.assertEqual(len(reader), sum(len(v) for v in expected.values()))
                keys = [e.key for e in reader]
                self.assertEqual(keys, sorted(keys))
                for key, board in boards.items():
                    got = python_chess_finds(reader, board)
                    want = sorted(expected.get(key, []), key=lambda mw: -mw[1])
                    self.assertEqual(sorted(got), sorted(want), board.fen())
                    self.assertEqual([w for _, w in got], [w for _, w in want], board.fen())
                # Castling was written king-takes-rook, and python-chess turns it into e1g1/e1c1.
                raw = {(e.raw_move >> 6 & 63, e.raw_move & 63) for e in reader}
                self.assertTrue(raw & {(4, 7), (60, 63)}, "some O-O in the book")
                self.assertFalse(raw & {(4, 6), (60, 62), (4, 2), (60, 58)}, "castling as e1g1")

            fens = [b.fen() for b in boards.values()]
            ours = brudno_probe(book, fens)
            with chess.polyglot.open_reader(book) as reader:
                for fen in fens:
                    self.assertEqual(ours[fen], python_chess_finds(reader, chess.Board(fen)), fen)


class DefaultBookTest(unittest.TestCase):
    def test_default_book_agrees_with_python_chess(self):
        with chess.polyglot.open_reader(DEFAULT_BOOK) as reader:
            self.assertLessEqual(os.path.getsize(DEFAULT_BOOK), 1 << 20)
            keys = [e.key for e in reader]
            self.assertEqual(keys, sorted(keys))
            self.assertTrue(all(e.weight > 0 for e in reader))
            # Walk the book's tree breadth-first.
            fens, seen, queue = [], set(), collections.deque([chess.Board()])
            while queue and len(fens) < 3000:
                board = queue.popleft()
                if board.fen() in seen:
                    continue
                seen.add(board.fen())
                fens.append(board.fen())
                entries = list(reader.find_all(board))
                # Every stored entry of the key is legal (nothing is dropped by find_all).
                raw = sum(1 for e in reader.find_all(chess.polyglot.zobrist_hash(board)))
                self.assertEqual(raw, len(entries), board.fen())
                for e in entries:
                    child = board.copy(stack=False)
                    child.push(e.move)
                    queue.append(child)
            ours = brudno_probe(DEFAULT_BOOK, fens)
            for fen in fens:
                self.assertEqual(ours[fen], python_chess_finds(reader, chess.Board(fen)), fen)


class SyntheticBookTest(unittest.TestCase):
    """Entries no real game reached: promotions, castling written both ways, weight 0, illegal
    moves, entries of other keys around."""

    def test_rare_entries(self):
        fens = [
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
            chess.STARTING_FEN,
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        ]

        def sq(name):
            return chess.parse_square(name)

        def raw(frm, to, promo=0):
            return sq(to) | sq(frm) << 6 | promo << 12

        rng = random.Random(3)
        records = []
        moves = {
            0: [raw("e1", "h1"), raw("e1", "c1"), raw("b7", "a8", 4), raw("b7", "b8", 1),
                raw("b7", "b8", 2), raw("b7", "a8", 3), raw("e1", "e5"), raw("a1", "a7")],
            1: [raw("e8", "a8"), raw("e8", "g8"), raw("g2", "g1", 4), raw("g2", "h1", 1),
                raw("g2", "h1", 4)],
            2: [raw("e5", "d6"), raw("e5", "e6"), raw("e1", "g1")],
            3: [raw("e2", "e4"), raw("d2", "d4"), raw("g1", "f3"), raw("e1", "g1")],
            4: [raw("e1", "h1"), raw("e1", "c1"), raw("e1", "g1"), raw("a1", "a8"), raw("e1", "a1")],
        }
        for i, fen in enumerate(fens):
            key = chess.polyglot.zobrist_hash(chess.Board(fen))
            for j, m in enumerate(moves[i]):
                records.append((key, m, 0 if j == 3 else rng.randint(1, 65535), 0))
        for _ in range(500):
            records.append((rng.getrandbits(64), rng.getrandbits(15), rng.randint(1, 99), 0))
        records.sort(key=lambda r: r[0])  # stable: file order within a key kept
        with tempfile.TemporaryDirectory() as tmp:
            book = os.path.join(tmp, "synthetic.bin")
            with open(book, "wb") as f:
                for r in records:
                    f.write(ENTRY.pack(*r))
            ours = brudno_probe(book, fens)
            with chess.polyglot.open_reader(book) as reader:
                for fen in fens:
                    want = python_chess_finds(reader, chess.Board(fen))
                    self.assertTrue(want, fen)
                    self.assertEqual(ours[fen], want, fen)


if __name__ == "__main__":
    unittest.main()
