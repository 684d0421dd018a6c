"""The python-chess game runner: plays games between two engines with clocks, adjudication and
error accounting, in parallel, with progress lines, PGN output, and an SPRT stop."""
import datetime
import gc
import threading
import time
from dataclasses import dataclass, field

import chess
import chess.pgn

from . import stats
from .engines import EngineError, start_engine, MATE_CP
from .judge import PauseWatch, freeze_startup_objects, pause_between
from .tc import Clock

PROBLEM_KINDS = ("illegal", "crash", "timeloss", "disconnect", "stall", "protocol", "init")


@dataclass
class Adjudication:
    resign_moves: int = 0        # 0 = off
    resign_score: int = 600      # centipawns
    resign_twosided: bool = True
    draw_movenumber: int = 40
    draw_moves: int = 0          # 0 = off
    draw_score: int = 10
    max_moves: int = 0           # 0 = off; full moves after which the game is drawn
    tb: object = None            # chess.syzygy.Tablebase
    tb_pieces: int = 0


@dataclass
class GameRecord:
    index: int                   # 0-based game number
    pair: int                    # opening number (two games per opening)
    white_slot: int              # which engine (0 or 1) had White
    result: str                  # "1-0", "0-1", "1/2-1/2", "*"
    termination: str             # short category, e.g. "checkmate", "time forfeit", "adjudication: resign"
    reason: str                  # sentence for the PGN, e.g. "Black loses on time"
    errors: list = field(default_factory=list)   # (slot, kind, message)
    plies: int = 0
    pgn: object = None           # chess.pgn.Game
    # Per engine slot, from the runner's own clock (exact, not the PGN's rounded times): the
    # least seconds left after a move (negative: an overstep; None: no clock) and how many
    # oversteps the margin forgave.
    least_left: list = field(default_factory=lambda: [None, None])
    forgiven: list = field(default_factory=lambda: [0, 0])

    def to_json(self):
        """The record without its PGN (the journal's form; the PGN went to -pgnout)."""
        return {"index": self.index, "pair": self.pair, "white_slot": self.white_slot,
                "result": self.result, "termination": self.termination, "reason": self.reason,
                "errors": [list(e) for e in self.errors], "plies": self.plies,
                "least_left": list(self.least_left), "forgiven": list(self.forgiven)}

    @staticmethod
    def from_json(d):
        return GameRecord(d["index"], d["pair"], d["white_slot"], d["result"], d["termination"],
                          d["reason"], [tuple(e) for e in d["errors"]], d["plies"], None,
                          list(d["least_left"]), list(d["forgiven"]))

    def score(self, slot):
        if self.result == "1/2-1/2":
            return 0.5
        if self.result == "*":
            return None
        white_won = self.result == "1-0"
        return 1.0 if white_won == (self.white_slot == slot) else 0.0


def _ms(seconds):
    return max(0, int(round(seconds * 1000)))


def rules_outcome(board):
    """(result, termination) if the game is over by the rules, else None."""
    if board.is_checkmate():
        return ("0-1" if board.turn == chess.WHITE else "1-0"), "checkmate"
    if board.is_stalemate():
        return "1/2-1/2", "stalemate"
    if board.is_insufficient_material():
        return "1/2-1/2", "insufficient material"
    if board.halfmove_clock >= 100:
        return "1/2-1/2", "fifty moves"
    if board.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    return None


def parse_engine_move(board, text):
    """The legal move an engine wrote (UCI, king-takes-rook castling, or SAN), or None."""
    if not text or text in ("(none)", "0000", "none", "null"):
        return None
    try:
        move = board.parse_uci(text)
        if move in board.legal_moves:
            return move
    except ValueError:
        pass
    try:
        return board.parse_san(text)
    except ValueError:
        return None


def _colour(side):
    return "White" if side == chess.WHITE else "Black"


class Adjudicator:
    def __init__(self, adj):
        self.adj = adj
        self.losing = {chess.WHITE: 0, chess.BLACK: 0}
        self.winning = {chess.WHITE: 0, chess.BLACK: 0}
        self.drawish = 0

    def after_move(self, board, side, score, game_moves):
        """Call after `side` moved with `score` (its own view); returns (result, why) or None."""
        a = self.adj
        if score is not None:
            self.losing[side] = self.losing[side] + 1 if score <= -a.resign_score else 0
            self.winning[side] = self.winning[side] + 1 if score >= a.resign_score else 0
            self.drawish = self.drawish + 1 if abs(score) <= a.draw_score else 0
        else:
            self.losing[side] = self.winning[side] = 0
            self.drawish = 0
        if a.resign_moves:
            for s in (chess.WHITE, chess.BLACK):
                if self.losing[s] >= a.resign_moves and (
                        not a.resign_twosided or self.winning[not s] >= a.resign_moves):
                    return ("0-1" if s == chess.WHITE else "1-0"), f"{_colour(s)} resigns (adjudication)"
        if a.draw_moves and board.fullmove_number >= a.draw_movenumber and self.drawish >= 2 * a.draw_moves:
            return "1/2-1/2", "draw by adjudication (score)"
        if a.max_moves and game_moves >= 2 * a.max_moves:
            return "1/2-1/2", f"draw by adjudication (move limit {a.max_moves})"
        if a.tb is not None and chess.popcount(board.occupied) <= a.tb_pieces and not board.castling_rights:
            try:
                wdl = a.tb.probe_wdl(board)
            except (KeyError, IndexError, Exception):  # missing table
                wdl = None
            if wdl is not None:
                if wdl == 2:
                    return ("1-0" if board.turn == chess.WHITE else "0-1"), "tablebase win (adjudication)"
                if wdl == -2:
                    return ("0-1" if board.turn == chess.WHITE else "1-0"), "tablebase win (adjudication)"
                return "1/2-1/2", "tablebase draw (adjudication)"
        return None


def _go_args(tc_side, clocks, side, tcs):
    tc = tc_side
    if tc.kind == "clock":
        w, b = clocks[chess.WHITE], clocks[chess.BLACK]
        args = (f"wtime {_ms(w.left)} btime {_ms(b.left)} "
                f"winc {_ms(tcs[chess.WHITE].inc if tcs[chess.WHITE].kind == 'clock' else 0)} "
                f"binc {_ms(tcs[chess.BLACK].inc if tcs[chess.BLACK].kind == 'clock' else 0)}")
        mtg = clocks[side].moves_to_go()
        if mtg:
            args += f" movestogo {mtg}"
        return args
    if tc.kind == "st":
        return f"movetime {_ms(tc.value)}"
    if tc.kind == "nodes":
        return f"nodes {int(tc.value)}"
    if tc.kind == "depth":
        return f"depth {int(tc.value)}"
    raise ValueError(f"cannot play time control {tc}")


def _score_comment(score, depth, elapsed):
    if score is None:
        s = ""
    elif abs(score) >= MATE_CP - 1000:
        plies = MATE_CP - abs(score)
        s = f"{'+' if score > 0 else '-'}M{(plies + 1) // 2}"
    else:
        s = f"{score / 100:+.2f}"
    if s and depth is not None:
        s += f"/{depth}"
    # Milliseconds, as cutechess-cli and fastchess write them, so that a clock replayed from
    # the PGN (scripts/pgn-clock-stats) is exact to the millisecond.
    return (s + " " if s else "") + f"{elapsed:.3f}s"


def play_game(engines, specs, white_slot, opening, index, pair, adj, margin=0.05,
              hang_timeout=60.0, event="Brudno match", round_text=None):
    """Play one game. engines[slot] are started engines (a dead one raises EngineError on use);
    specs[slot].tc is each engine's time control."""
    start_board = chess.Board(opening.fen) if opening.fen else chess.Board()
    board = start_board.copy()
    for m in opening.moves:
        board.push(m)
    moves = list(opening.moves)
    slot_of = {chess.WHITE: white_slot, chess.BLACK: 1 - white_slot}
    tcs = {side: specs[slot_of[side]].tc for side in (chess.WHITE, chess.BLACK)}
    clocks = {side: Clock(tcs[side]) for side in (chess.WHITE, chess.BLACK)}
    comments = []
    errors = []
    adjud = Adjudicator(adj)
    result = termination = reason = None

    def fail(side, kind, message, term, why):
        nonlocal result, termination, reason
        errors.append((slot_of[side], kind, message))
        result = "0-1" if side == chess.WHITE else "1-0"
        termination, reason = term, why

    for side in (chess.WHITE, chess.BLACK):
        try:
            engines[slot_of[side]].new_game(tcs[side])
        except EngineError as e:
            fail(side, e.kind, str(e), e.kind, f"{_colour(side)} {e.kind}: {e}")
            break

    game_moves = 0
    while result is None:
        over = rules_outcome(board)
        if over:
            result, termination = over
            reason = termination
            break
        side = board.turn
        slot = slot_of[side]
        eng = engines[slot]
        clock = clocks[side]
        allowed_before = clock.allowed()
        try:
            go_args = _go_args(tcs[side], clocks, side, tcs)
            kwargs = {}
            if eng.proto == "xboard" and tcs[side].kind == "clock":
                kwargs = {"my_clock": clock.left, "opp_clock": clocks[not side].left}
            asked = time.monotonic()
            reply = eng.think(opening.fen, moves, go_args, clock.allowed(), margin, hang_timeout, **kwargs)
        except EngineError as e:
            fail(side, e.kind, str(e), e.kind, f"{_colour(side)} {'crashes' if e.kind == 'crash' else e.kind}: {e}")
            break
        if reply.resigned:
            result = "0-1" if side == chess.WHITE else "1-0"
            termination, reason = "resign", f"{_colour(side)} resigns"
            break
        flag_ok = clock.spend(reply.elapsed, margin)
        if reply.late or not flag_ok:
            msg = (f"move {board.fullmove_number}: answered after {reply.elapsed:.3f} s "
                   f"with {allowed_before:.3f} s allowed (margin {margin:g} s)")
            # Whether the judge itself stood still meanwhile (a wait it charged to the engine).
            # Measured a little after the move, so that a pause ending with it is seen whole.
            time.sleep(0.01)
            paused = pause_between(asked, asked + reply.elapsed + 0.005)
            if paused is not None:
                msg += f"; the judge paused up to {paused * 1000:.0f} ms meanwhile"
            if board.has_insufficient_material(not side):
                errors.append((slot, "timeloss", msg))
                result, termination = "1/2-1/2", "time forfeit"
                reason = f"{_colour(side)} loses on time, but {_colour(not side)} cannot mate"
            else:
                fail(side, "timeloss", msg, "time forfeit", f"{_colour(side)} loses on time")
            break
        move = parse_engine_move(board, reply.move_text)
        if move is None:
            fail(side, "illegal", f"illegal move '{reply.move_text}' in {board.fen()}", "illegal move",
                 f"{_colour(side)} makes an illegal move: {reply.move_text}")
            break
        board.push(move)
        moves.append(move)
        game_moves += 1
        comments.append(_score_comment(reply.score, reply.depth, reply.elapsed))
        verdict = adjud.after_move(board, side, reply.score, game_moves)
        if verdict and not board.is_checkmate():
            result, reason = verdict
            termination = "adjudication: " + ("tablebase" if "tablebase" in reason else
                                              "resign" if "resign" in reason else "draw")
            break
        if reply.ponder_text:
            # Ponder with the clocks as they now stand: this side to move again after the reply.
            eng.start_ponder(opening.fen, moves[:-1], reply, _go_args(tcs[side], clocks, side, tcs))

    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = event
    h["Site"] = "?"
    h["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    h["Round"] = round_text or f"{pair + 1}.{index % 2 + 1}"
    h["White"] = specs[slot_of[chess.WHITE]].name
    h["Black"] = specs[slot_of[chess.BLACK]].name
    h["Result"] = result
    if opening.fen:
        game.setup(chess.Board(opening.fen))
    tw, tb = tcs[chess.WHITE].pgn_tag(), tcs[chess.BLACK].pgn_tag()
    if tw == tb:
        h["TimeControl"] = tw
    else:
        h["WhiteTimeControl"], h["BlackTimeControl"] = tw, tb
    h["PlyCount"] = str(len(moves))
    h["Termination"] = _pgn_termination(termination)
    node = game
    for i, m in enumerate(moves):
        node = node.add_variation(m)
        if i < len(opening.moves):
            if i == len(opening.moves) - 1:
                node.comment = "book"
        else:
            node.comment = comments[i - len(opening.moves)]
    if node is game:
        game.comment = reason
    else:
        node.comment = (node.comment + ", " if node.comment else "") + reason
    record = GameRecord(index, pair, white_slot, result, termination, reason, errors, len(moves), game)
    for side in (chess.WHITE, chess.BLACK):
        record.least_left[slot_of[side]] = clocks[side].least_left
        record.forgiven[slot_of[side]] = clocks[side].forgiven
    return record


def _pgn_termination(termination):
    if termination in ("crash", "disconnect", "stall", "protocol", "init"):
        return "abandoned"
    if termination == "illegal move":
        return "rules infraction"
    if termination == "time forfeit":
        return "time forfeit"
    if termination.startswith("adjudication"):
        return "adjudication"
    return "normal"


class Tally:
    """Running statistics of a match, from engine 0's point of view."""

    def __init__(self, names):
        self.names = names
        self.games = []
        self.w = self.d = self.l = 0
        self.colour = {0: [0, 0, 0], 1: [0, 0, 0]}  # engine 0 as white / black: W D L
        self.pairs = {}
        self.penta = [0, 0, 0, 0, 0]
        self.problems = [{k: 0 for k in PROBLEM_KINDS} for _ in names]
        self.terminations = {}
        self.least_left = [None for _ in names]   # seconds, over all games (None: untimed)
        self.forgiven = [0 for _ in names]
        self.judge = None                         # judge.PauseWatch of the run, when it ended

    def add(self, g):
        self.games.append(g)
        s = g.score(0)
        for slot, kind, _ in g.errors:
            self.problems[slot][kind if kind in PROBLEM_KINDS else "protocol"] += 1
        self.terminations[g.termination] = self.terminations.get(g.termination, 0) + 1
        for slot in range(len(self.names)):
            left = g.least_left[slot]
            if left is not None and (self.least_left[slot] is None or left < self.least_left[slot]):
                self.least_left[slot] = left
            self.forgiven[slot] += g.forgiven[slot]
        if s is None:
            return
        col = self.colour[0 if g.white_slot == 0 else 1]
        if s == 1.0:
            self.w += 1
            col[0] += 1
        elif s == 0.5:
            self.d += 1
            col[1] += 1
        else:
            self.l += 1
            col[2] += 1
        self.pairs.setdefault(g.pair, []).append(s)
        if len(self.pairs[g.pair]) == 2:
            self.penta[stats.pair_index(*self.pairs[g.pair])] += 1

    @property
    def n(self):
        return self.w + self.d + self.l

    def score(self):
        return self.w + self.d / 2

    def elo(self):
        if sum(self.penta) >= 2:
            return stats.pentanomial_elo(self.penta)
        return stats.trinomial_elo(self.w, self.d, self.l)

    def llr(self, sprt):
        if sum(self.penta) > 0:
            return stats.llr_pentanomial(self.penta, sprt["elo0"], sprt["elo1"])
        return stats.llr_trinomial(self.w, self.d, self.l, sprt["elo0"], sprt["elo1"])


def fmt_elo(elo, margin):
    e = "+inf" if elo == float("inf") else "-inf" if elo == float("-inf") else f"{elo:+.1f}"
    m = "inf" if margin == float("inf") else f"{margin:.1f}"
    return f"{e} +/- {m}"


def progress_line(t, total, g, sprt=None):
    names = t.names
    white, black = names[g.white_slot], names[1 - g.white_slot]
    elo, margin = t.elo()
    line = (f"[{t.n}/{total}] #{g.index + 1} {white} - {black} {g.result} ({g.termination}) | "
            f"{names[0]} {t.score():g}/{t.n} +{t.w} ={t.d} -{t.l} Elo {fmt_elo(elo, margin)}")
    if sprt:
        lo, hi = stats.sprt_bounds(sprt["alpha"], sprt["beta"])
        line += f" | LLR {t.llr(sprt):.2f} [{lo:.2f}, {hi:.2f}]"
    return line


def summary(t, sprt=None, title=None):
    names = t.names
    out = []
    if title:
        out.append(title)
    n = t.n
    if n == 0:
        out.append("No finished games.")
    else:
        elo, margin = t.elo()
        tri_elo, tri_margin = stats.trinomial_elo(t.w, t.d, t.l)
        out.append(f"Score of {names[0]} vs {names[1]}: {t.w} - {t.l} - {t.d}  [{t.score() / n:.3f}] {n}")
        out.append(f"  W/D/L: {t.w}/{t.d}/{t.l}, score {t.score():g}/{n} ({100 * t.score() / n:.1f}%)")
        cw, cb = t.colour[0], t.colour[1]
        out.append(f"  {names[0]} as White: +{cw[0]} ={cw[1]} -{cw[2]}; as Black: +{cb[0]} ={cb[1]} -{cb[2]}")
        out.append(f"  Elo difference: {fmt_elo(elo, margin)} (95%, "
                   f"{'pentanomial' if sum(t.penta) >= 2 else 'trinomial'}), "
                   f"LOS {100 * stats.los(t.w, t.l):.1f}%, draw ratio {100 * t.d / n:.1f}%")
        if sum(t.penta) >= 2:
            out.append(f"  trinomial: {fmt_elo(tri_elo, tri_margin)}; pentanomial [LL, LD, DD+WL, WD, WW]: "
                       f"{t.penta} ({sum(t.penta)} pairs)")
    if sprt:
        lo, hi = stats.sprt_bounds(sprt["alpha"], sprt["beta"])
        llr = t.llr(sprt)
        verdict = stats.sprt_verdict(llr, sprt["alpha"], sprt["beta"])
        text = {"H1": "H1 accepted (the first engine is stronger by at least elo1: PASS)",
                "H0": "H0 accepted (not stronger by elo1: FAIL)",
                None: "inconclusive (no bound reached)"}[verdict]
        model = "pentanomial" if sum(t.penta) > 0 else "trinomial"
        out.append(f"  SPRT ({model}, logistic Elo) elo0={sprt['elo0']:g} elo1={sprt['elo1']:g} "
                   f"alpha={sprt['alpha']:g} beta={sprt['beta']:g}: LLR {llr:.2f} [{lo:.2f}, {hi:.2f}] -> {text}")
    terms = ", ".join(f"{k} {v}" for k, v in sorted(t.terminations.items(), key=lambda kv: -kv[1]))
    if terms:
        out.append(f"  Endings: {terms}")
    for slot, name in enumerate(names):
        p = t.problems[slot]
        out.append(f"  Problems of {name}: " + ", ".join(
            f"{p[k]} {label}" for k, label in (("illegal", "illegal moves"), ("crash", "crashes"),
                                              ("timeloss", "time losses"), ("disconnect", "disconnects"),
                                              ("stall", "stalls"), ("protocol", "protocol errors"),
                                              ("init", "start-up failures"))))
        if t.least_left[slot] is not None:
            out.append(f"  Clock of {name}: least left after a move {t.least_left[slot] * 1000:.0f} ms, "
                       f"{t.forgiven[slot]} overstep(s) forgiven by the margin")
    if t.judge is not None:
        out.append(f"  Judge (this runner): {t.judge.text()}")
    return "\n".join(out)


class MatchRunner:
    """Plays `games` games between specs[0] and specs[1]: game 2k and 2k+1 use opening k with
    colours swapped. Thread-parallel (`concurrency` games at once, each thread with its own
    engine processes, restarted after a failure)."""

    def __init__(self, specs, games, concurrency=1, book=None, adj=None, margin=0.05,
                 pgnout=None, sprt=None, out=print, event="Brudno match", hang_timeout=60.0,
                 log=None, verbose=True, journal=None):
        self.specs = specs
        self.games = games
        self.concurrency = max(1, concurrency)
        self.book = book
        self.adj = adj or Adjudication()
        self.margin = margin
        self.pgnout = pgnout
        self.sprt = sprt
        self.out = out
        self.event = event
        self.hang_timeout = hang_timeout
        self.log = log
        self.verbose = verbose
        self.tally = Tally([s.name for s in specs])
        self.lock = threading.Lock()
        self.next_index = 0
        self.stop = False
        self.fatal = None
        self.verdict = None
        self.interrupted = False
        # A journal (matchlib.journal) holds the games an earlier run of the same plan finished:
        # they count in the tally and are not played again; every new game is added to it.
        self.journal = journal
        self.done = set()
        if journal is not None:
            for index in range(games):
                rec = journal.done(index)
                if rec is not None:
                    self.tally.add(GameRecord.from_json(rec))
                    self.done.add(index)
            self._check_sprt(resumed=True)

    def _opening(self, pair):
        if self.book is None:
            from .openings import Opening
            return Opening(None, [])
        return self.book.get(pair)

    def _engine(self, engines, slot, failures):
        eng = engines[slot]
        if eng is not None and eng.alive():
            return eng
        if eng is not None:
            eng.kill()
        for attempt in range(3):
            try:
                engines[slot] = start_engine(self.specs[slot], self.log)
                return engines[slot]
            except EngineError as e:
                failures.append((slot, "init", str(e)))
                time.sleep(0.5)
        raise RuntimeError(f"cannot start {self.specs[slot].name}: {failures[-1][2]}")

    def _worker(self):
        engines = [None, None]
        try:
            while True:
                with self.lock:
                    while self.next_index in self.done:
                        self.next_index += 1
                    if self.stop or self.next_index >= self.games:
                        return
                    index = self.next_index
                    self.next_index += 1
                pair = index // 2
                white_slot = index % 2
                failures = []
                try:
                    for slot in (0, 1):
                        self._engine(engines, slot, failures)
                except RuntimeError as e:
                    with self.lock:
                        self.fatal = str(e)
                        self.stop = True
                    return
                opening = self._opening(pair)
                g = play_game(engines, self.specs, white_slot, opening, index, pair, self.adj,
                              self.margin, self.hang_timeout, self.event)
                g.errors = failures + g.errors
                for slot, kind, _ in g.errors:
                    # a late answer leaves the engine usable; anything else: start it afresh
                    if kind not in ("timeloss", "illegal") and engines[slot] is not None:
                        engines[slot].kill()
                self._finished(g)
        finally:
            for eng in engines:
                if eng is not None:
                    eng.quit()

    def _finished(self, g):
        with self.lock:
            self.tally.add(g)
            for slot, kind, msg in g.errors:
                self.out(f"!! game {g.index + 1}: {self.specs[slot].name}: {kind}: {msg}")
            # A game that ended because the match is being shut down (its engines killed with
            # it) is not a result: it is not journalled, so a rerun plays it again. The journal
            # is written before the PGN: it is what a rerun counts.
            cut_short = self.interrupted and any(k in ("crash", "disconnect", "stall", "init")
                                                 for _, k, _ in g.errors)
            if self.journal is not None and not cut_short:
                self.journal.add(g.index, g.to_json())
            if self.pgnout:
                with open(self.pgnout, "a", encoding="utf-8") as f:
                    print(g.pgn, file=f, end="\n\n")
            # The tree is written: kept, a thousand of them made a full garbage collection
            # stop every thread for 150 ms, charged to whichever engine was thinking (judge.py).
            g.pgn = None
            if self.verbose:
                self.out(progress_line(self.tally, self.games, g, self.sprt))
            self._check_sprt()

    def _check_sprt(self, resumed=False):
        if self.sprt and self.verdict is None and self.tally.n:
            v = stats.sprt_verdict(self.tally.llr(self.sprt), self.sprt["alpha"], self.sprt["beta"])
            if v:
                self.verdict = v
                self.stop = True
                self.out(f"SPRT: {v} accepted after {self.tally.n} games"
                         + (" (decided by the journal's games)" if resumed else "; finishing games in progress"))

    def _run_worker(self):
        try:
            self._worker()
        finally:
            with self.lock:
                self.active -= 1

    def run(self):
        # Waits on a counter, not Thread.join: a join interrupted by Ctrl-C may later return
        # before the thread has ended (CPython issue 90978).
        self.active = self.concurrency
        freeze_startup_objects()
        watch = PauseWatch().start()
        try:
            return self._play()
        finally:
            self.tally.judge = watch.stop()
            gc.unfreeze()   # a later run (the soak's next batch) freezes what is alive then

    def _play(self):
        threads = [threading.Thread(target=self._run_worker, daemon=True) for _ in range(self.concurrency)]
        for th in threads:
            th.start()
        try:
            while self.active > 0:
                time.sleep(0.2)
        except KeyboardInterrupt:
            self.stop = True
            self.interrupted = True
            self.out("interrupted: finishing games in progress (Ctrl-C again to abandon them)")
            try:
                while self.active > 0:
                    time.sleep(0.2)
            except KeyboardInterrupt:
                # Abandoned: the games still running are killed with their engines; none of
                # them may reach the journal as a loss.
                with self.lock:
                    self.journal = None
                raise
        return self.tally
