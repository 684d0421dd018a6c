"""What fastchess printed, read back: the last result block, the players' faults, the PGN's games."""
import re

_RESULTS = re.compile(r"^Results of (?P<first>.+?) vs (?P<second>.+?) \((?P<setting>.*)\):\s*$")
_ELO = re.compile(r"^Elo: (?P<elo>-?[\d.]+|inf|-inf|nan) \+/- (?P<err>[\d.]+|inf|nan|-nan), "
                  r"nElo: (?P<nelo>-?[\d.]+|inf|-inf|nan) \+/- (?P<nerr>[\d.]+|inf|nan|-nan)")
_GAMES = re.compile(r"^Games: (?P<games>\d+), Wins: (?P<w>\d+), Losses: (?P<l>\d+), Draws: (?P<d>\d+), "
                    r"Points: (?P<points>[\d.]+) \((?P<pct>[\d.]+) %\)")
_PTNML = re.compile(r"^Ptnml\(0-2\): \[(?P<p>[\d, ]+)\]")
_LLR = re.compile(r"^LLR: (?P<llr>-?[\d.]+) \(.*?\) \((?P<lo>-?[\d.]+), (?P<hi>-?[\d.]+)\)")
_PLAYER = re.compile(r"^Player: (?P<name>.+)$")
_COUNT = re.compile(r"^\s+(?P<what>Timeouts|Crashed): (?P<n>\d+)$")
_FINISHED = re.compile(r"^Finished game (?P<id>\d+) \((?P<white>.+) vs (?P<black>.+)\): (?P<result>\S+) \{(?P<why>.*)\}")
# How fastchess says a game ended by a fault rather than by chess ("White loses on time (100ms
# overrun)"), and what the fault is.
_FAULTS = [("time loss", "loses on time"), ("illegal move", "makes an illegal move"),
           ("disconnect", "disconnects"), ("stall", "stalls")]


def is_final(line):
    """fastchess's line for an SPRT that stopped (a match that ran out of games says nothing else)."""
    return line.startswith("SPRT (") and " completed - " in line


class Result:
    """The last result block of a run (fastchess repeats it every few games and at the end)."""

    def __init__(self):
        self.first = self.second = self.setting = None
        self.games = self.wins = self.losses = self.draws = 0
        self.points = self.percent = 0.0
        self.elo = self.elo_error = self.nelo = self.nelo_error = None
        self.ptnml = None
        self.llr = self.llr_bounds = None
        self.timeouts = {}
        self.crashes = {}
        self.faults = []          # (game number, kind, engine name, fastchess's words), in order
        self.finished = False
        self.games_seen = 0       # "Finished game" lines: counted before any result block
        self.interrupted = False

    def summary(self):
        if not self.first:
            return f"{self.games_seen} game(s) finished, no result block printed yet"
        lines = [f"{self.first} vs {self.second} ({self.setting})",
                 f"  games {self.games}: +{self.wins} ={self.draws} -{self.losses}, "
                 f"{self.points:g} points ({self.percent:.1f}%)"]
        if self.elo is not None:
            lines.append(f"  Elo {self.elo} +/- {self.elo_error}, nElo {self.nelo} +/- {self.nelo_error}")
        if self.ptnml:
            lines.append(f"  pentanomial {self.ptnml}")
        if self.llr is not None:
            lo, hi = self.llr_bounds
            verdict = "H1 accepted" if self.llr >= hi else "H0 accepted" if self.llr <= lo else "undecided"
            lines.append(f"  LLR {self.llr:.2f} ({lo:.2f}, {hi:.2f}): {verdict}")
        faults = ", ".join(f"{k} {n}" for k, n in self.fault_counts().items()) or "none"
        lines.append(f"  faults: {faults}")
        return "\n".join(lines)

    def sprt_verdict(self):
        if self.llr is None:
            return None
        lo, hi = self.llr_bounds
        return "H1" if self.llr >= hi else "H0" if self.llr <= lo else None

    def fault_counts(self):
        counts = {}
        for _, kind, name, _ in self.faults:
            key = f"{name}: {kind}"
            counts[key] = counts.get(key, 0) + 1
        return counts


def _num(text):
    return float(text) if text not in ("nan", "-nan") else None


def parse(text):
    """Read fastchess's standard output (its `fastchess` output format)."""
    r = Result()
    player = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if m := _RESULTS.match(line):
            r.first, r.second, r.setting = m["first"], m["second"], m["setting"]
        elif m := _ELO.match(line):
            r.elo, r.elo_error = _num(m["elo"]), _num(m["err"])
            r.nelo, r.nelo_error = _num(m["nelo"]), _num(m["nerr"])
        elif m := _GAMES.match(line):
            r.games, r.wins, r.losses, r.draws = (int(m[k]) for k in ("games", "w", "l", "d"))
            r.points, r.percent = float(m["points"]), float(m["pct"])
        elif m := _PTNML.match(line):
            r.ptnml = [int(x) for x in m["p"].split(",")]
        elif m := _LLR.match(line):
            r.llr, r.llr_bounds = float(m["llr"]), (float(m["lo"]), float(m["hi"]))
        elif m := _PLAYER.match(line):
            player = m["name"]
        elif (m := _COUNT.match(line)) and player:
            (r.timeouts if m["what"] == "Timeouts" else r.crashes)[player] = int(m["n"])
        elif m := _FINISHED.match(line):
            r.games_seen += 1
            for kind, words in _FAULTS:
                if words in m["why"]:
                    side = m["white"] if m["why"].startswith("White") else m["black"]
                    r.faults.append((int(m["id"]), kind, side, m["why"]))
        elif line.startswith("Tournament was interrupted"):
            r.interrupted = True
        elif is_final(line):
            r.finished = True
    return r


_TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')


def pgn_games(text):
    """The tag pairs of each game of a PGN file (the moves are not needed here)."""
    games, tags = [], {}
    for line in text.splitlines():
        if m := _TAG.match(line):
            if m[1] == "Event" and tags:
                games.append(tags)
                tags = {}
            tags[m[1]] = m[2]
    if tags:
        games.append(tags)
    return games


BAD_TERMINATIONS = {"time forfeit", "illegal move", "abandoned"}


def bad_games(games, engine):
    """(round, termination, result) for the games `engine` lost by a fault, not by chess."""
    bad = []
    for g in games:
        term = g.get("Termination", "")
        if term not in BAD_TERMINATIONS:
            continue
        loser = g.get("White") if g.get("Result") == "0-1" else g.get("Black") if g.get("Result") == "1-0" else None
        if loser == engine or (loser is None and engine in (g.get("White"), g.get("Black"))):
            bad.append((g.get("Round", "?"), term, g.get("Result", "*")))
    return bad
