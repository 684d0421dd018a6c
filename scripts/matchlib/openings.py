"""Opening files: PGN (each game's moves from its start position, or from a FEN tag) and EPD
(one position a line). Large files are indexed once and only the openings used are parsed."""
import io
import random

import chess
import chess.pgn


class Opening:
    def __init__(self, fen, moves, name=""):
        self.fen = fen            # start position (FEN); None for the standard start
        self.moves = moves        # list of chess.Move played from it
        self.name = name

    def board(self):
        b = chess.Board(self.fen) if self.fen else chess.Board()
        for m in self.moves:
            b.push(m)
        return b

    def __repr__(self):
        return f"Opening({self.fen!r}, {[m.uci() for m in self.moves]})"


def split_pgn(text):
    """Split PGN text into one string per game (tag section + movetext), cheaply."""
    games, current, in_moves = [], [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("[") and in_moves:
            games.append("\n".join(current))
            current, in_moves = [], False
        if s and not s.startswith("[") and not s.startswith("%"):
            in_moves = True
        current.append(line)
    if any(l.strip() for l in current):
        games.append("\n".join(current))
    return games


def parse_pgn_opening(chunk, max_plies=None):
    game = chess.pgn.read_game(io.StringIO(chunk))
    if game is None:
        raise ValueError("no game in PGN chunk")
    if game.errors:
        raise ValueError(f"PGN error: {game.errors[0]}")
    fen = game.headers.get("FEN") or None
    moves = list(game.mainline_moves())
    if max_plies is not None:
        moves = moves[:max_plies]
    name = game.headers.get("Opening", "") or game.headers.get("Event", "")
    if name == "?":
        name = ""
    return Opening(fen, moves, name)


def parse_epd_opening(line):
    """An EPD line, or a plain FEN line (files named .epd often hold FENs with move counters)."""
    parts = line.split()
    if len(parts) == 6 and parts[4].isdigit() and parts[5].isdigit():
        return Opening(chess.Board(line).fen(), [], "")
    board = chess.Board()
    ops = board.set_epd(line)
    name = ops.get("id", "") if isinstance(ops.get("id", ""), str) else ""
    return Opening(board.fen(), [], name)


class OpeningBook:
    """Openings from a file, served in order (from `start`, 1-based) or at random (seeded),
    cycling when exhausted."""

    def __init__(self, path, fmt=None, order="random", seed=None, start=1, plies=None):
        self.path = path
        fmt = (fmt or path.rsplit(".", 1)[-1]).lower()
        if fmt not in ("pgn", "epd"):
            raise ValueError(f"opening file format '{fmt}': use pgn or epd")
        self.fmt = fmt
        self.plies = plies
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if fmt == "pgn":
            self.chunks = split_pgn(text)
        else:
            self.chunks = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
        if not self.chunks:
            raise ValueError(f"no openings in {path}")
        self.order = list(range(len(self.chunks)))
        if order == "random":
            random.Random(seed).shuffle(self.order)
        elif order != "sequential":
            raise ValueError(f"opening order '{order}': use random or sequential")
        self.next = (max(1, start) - 1) % len(self.chunks) if order == "sequential" else 0

    def __len__(self):
        return len(self.chunks)

    def get(self, i):
        """The i-th opening (0-based) of this book's chosen order."""
        idx = self.order[(self.next + i) % len(self.order)]
        chunk = self.chunks[idx]
        if self.fmt == "pgn":
            return parse_pgn_opening(chunk, self.plies)
        return parse_epd_opening(chunk)
