"""python-chess reads the books Brudno makes, and Brudno reads books as python-chess does.
Needs cargo: it runs `cargo run --release -p brudno-tools -- book` (honouring CARGO_TARGET_DIR)."""
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
ENTRY = struct.Struct(">QHHI")


def book_tool(*args, stdin=None):
    cmd = ["cargo", "run", "--quiet", "--release", "-p", "brudno-tools", "--", "book", *args]
    return subprocess.run(cmd, cwd=ROOT, input=stdin, capture_output=True, text=True, check=True).stdout


def finds(reader, board):
    return [(e.move.uci(), e.weight) for e in reader.find_all(board)]


class BookTest(unittest.TestCase):
    def assert_brudno_reads_as_python_chess(self, book, fens):
        """Brudno's reader (`book probe`) finds the moves and weights python-chess finds, in order."""
        lines = (line.partition("\t") for line in book_tool("probe", book, stdin="\n".join(fens) + "\n").splitlines())
        ours = {fen: [(m.split(":")[0], int(m.split(":")[1])) for m in moves.split()] for fen, _, moves in lines}
        with chess.polyglot.open_reader(book) as reader:
            for fen in fens:
                self.assertEqual(ours[fen], finds(reader, chess.Board(fen)), fen)

    def test_made_book_holds_the_games_weights(self):
        """A book made from tests/data/book-games.txt, as a PGN python-chess writes, has for each
        move played at least twice in the first 32 plies 2 × wins + draws of its side, computed
        here independently."""
        stats, boards = collections.defaultdict(lambda: [0, 0]), {}   # (key, move): [weight, games]
        with tempfile.TemporaryDirectory() as tmp, open(os.path.join(ROOT, "tests", "data", "book-games.txt")) as f:
            pgn, book = os.path.join(tmp, "games.pgn"), os.path.join(tmp, "made.bin")
            with open(pgn, "w") as out:
                for result, *moves in (line.split() for line in f):
                    game = chess.pgn.Game()
                    game.headers["Result"] = result
                    game.add_line(chess.Move.from_uci(m) for m in moves)
                    print(game, file=out, end="\n\n")
                    board = chess.Board()
                    for uci in moves[:32]:
                        key = chess.polyglot.zobrist_hash(board)
                        boards.setdefault(key, board.copy(stack=False))
                        stats[key, uci][0] += 2 if result == ("1-0" if board.turn else "0-1") else result == "1/2-1/2"
                        stats[key, uci][1] += 1
                        board.push_uci(uci)
            book_tool("build", "--pgn", pgn, "--max-ply", "32", "--min-games", "2", "--min-share", "0", "--out", book)
            expected = collections.defaultdict(list)
            for (key, uci), (weight, games) in stats.items():
                if games >= 2 and weight > 0:
                    expected[key].append((uci, weight))
            with chess.polyglot.open_reader(book) as reader:
                self.assertEqual(len(reader), sum(map(len, expected.values())))
                for key, board in boards.items():
                    got = finds(reader, board)
                    self.assertEqual(sorted(got), sorted(expected[key]), board.fen())
                    self.assertEqual([w for _, w in got], sorted((w for _, w in got), reverse=True))
            self.assert_brudno_reads_as_python_chess(book, [b.fen() for b in boards.values()])

    def test_default_book(self):
        book = os.path.join(ROOT, "src", "book", "default.bin")
        self.assertLessEqual(os.path.getsize(book), 1 << 20)
        with chess.polyglot.open_reader(book) as reader:
            keys = [e.key for e in reader]
            self.assertEqual(keys, sorted(keys))
            self.assertTrue(all(e.weight > 0 for e in reader))
            fens, queue = {}, collections.deque([chess.Board()])
            while queue and len(fens) < 3000:     # the book's tree, breadth-first
                board = queue.popleft()
                if board.fen() in fens:
                    continue
                fens[board.fen()] = None
                entries = list(reader.find_all(board))
                # Every stored entry of the key is legal: find_all drops none.
                self.assertEqual(len(list(reader.find_all(chess.polyglot.zobrist_hash(board)))), len(entries))
                for e in entries:
                    queue.append(board.copy(stack=False))
                    queue[-1].push(e.move)
        self.assert_brudno_reads_as_python_chess(book, list(fens))

    def test_rare_entries(self):
        """Entries no real game reached: promotions, castling written both ways, weight 0, illegal
        moves, entries of other keys around."""
        moves = {  # FEN: moves as stored (king takes rook or two squares; promotions n b r q)
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1": "e1h1 e1c1 b7a8q b7b8n b7b8b b7a8r e1e5 a1a7",
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1": "e8a8 e8g8 g2g1q g2h1n g2h1q",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2": "e5d6 e5e6 e1g1",
            chess.STARTING_FEN: "e2e4 d2d4 g1f3 e1g1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1": "e1h1 e1c1 e1g1 a1a8 e1a1",
        }
        sq = chess.parse_square
        raw = lambda m: sq(m[2:4]) | sq(m[:2]) << 6 | " nbrq".index(m[4:] or " ") << 12  # noqa: E731
        rng = random.Random(3)
        records = [(chess.polyglot.zobrist_hash(chess.Board(fen)), raw(m), 0 if j == 3 else rng.randint(1, 65535), 0)
                   for fen, ms in moves.items() for j, m in enumerate(ms.split())]
        records += [(rng.getrandbits(64), rng.getrandbits(15), rng.randint(1, 99), 0) for _ in range(500)]
        records.sort(key=lambda r: r[0])  # stable: the file order within a key kept
        with tempfile.TemporaryDirectory() as tmp:
            book = os.path.join(tmp, "synthetic.bin")
            with open(book, "wb") as f:
                f.write(b"".join(ENTRY.pack(*r) for r in records))
            with chess.polyglot.open_reader(book) as reader:
                self.assertTrue(all(finds(reader, chess.Board(fen)) for fen in moves))
            self.assert_brudno_reads_as_python_chess(book, list(moves))


if __name__ == "__main__":
    unittest.main()
