"""What fastchess printed, read back: the last result block and the games lost by a fault."""
import collections
import re

_RESULTS = re.compile(r"^Results of (?P<first>.+?) vs (?P<second>.+?) \((?P<setting>.*)\):\s*$")
_NUM = r"-?[\d.]+|-?inf|-?nan"
_ELO = re.compile(rf"^Elo: (?P<elo>{_NUM}) \+/- (?P<err>{_NUM}), nElo: (?P<nelo>{_NUM}) \+/- (?P<nerr>{_NUM})")
_GAMES = re.compile(r"^Games: (?P<games>\d+), Wins: (?P<w>\d+), Losses: (?P<l>\d+), Draws: (?P<d>\d+), "
                    r"Points: (?P<points>[\d.]+) \((?P<pct>[\d.]+) %\)")
_LLR = re.compile(r"^LLR: (?P<llr>-?[\d.]+) \(.*?\) \((?P<lo>-?[\d.]+), (?P<hi>-?[\d.]+)\)")
_FINISHED = re.compile(r"^Finished game (?P<id>\d+) \((?P<white>.+) vs (?P<black>.+)\): \S+ \{(?P<why>.*)\}")
# How fastchess says that a game ended by a fault rather than by chess, and what the fault is.
_FAULTS = [("time loss", "loses on time"), ("illegal move", "makes an illegal move"),
           ("disconnect", "disconnects"), ("stall", "stalls")]


class Result:
    """The last result block of a run (fastchess repeats it every few games and at the end)."""

    first = second = setting = elo = elo_error = nelo = nelo_error = llr = llr_bounds = None
    games = wins = losses = draws = points = percent = 0
    finished = interrupted = False

    def __init__(self):
        self.faults = []      # (game number, kind, engine name, fastchess's words), in order

    def summary(self):
        if not self.first:
            return "no result block printed yet"
        lines = [f"{self.first} vs {self.second} ({self.setting})",
                 f"  games {self.games}: +{self.wins} ={self.draws} -{self.losses}, "
                 f"{self.points:g} points ({self.percent:.1f}%)"]
        if self.elo is not None:
            lines.append(f"  Elo {self.elo} +/- {self.elo_error}, nElo {self.nelo} +/- {self.nelo_error}")
        if self.llr is not None:     # the verdict by the LLR: fastchess says "H1 was accepted" also when undecided
            lo, hi = self.llr_bounds
            verdict = "H1 accepted" if self.llr >= hi else "H0 accepted" if self.llr <= lo else "undecided"
            lines.append(f"  LLR {self.llr:.2f} ({lo:.2f}, {hi:.2f}): {verdict}")
        faults = collections.Counter(f"{name}: {kind}" for _, kind, name, _ in self.faults)
        return "\n".join(lines + ["  faults: " + (", ".join(f"{k} {n}" for k, n in faults.items()) or "none")])


def _num(text):
    return None if "nan" in text else float(text)


def parse(text):
    """Reads fastchess's standard output."""
    r = Result()
    for line in text.splitlines():
        if m := _RESULTS.match(line):
            r.first, r.second, r.setting = m["first"], m["second"], m["setting"]
        elif m := _ELO.match(line):
            r.elo, r.elo_error, r.nelo, r.nelo_error = (_num(m[k]) for k in ("elo", "err", "nelo", "nerr"))
        elif m := _GAMES.match(line):
            r.games, r.wins, r.losses, r.draws = (int(m[k]) for k in ("games", "w", "l", "d"))
            r.points, r.percent = float(m["points"]), float(m["pct"])
        elif m := _LLR.match(line):
            r.llr, r.llr_bounds = float(m["llr"]), (float(m["lo"]), float(m["hi"]))
        elif m := _FINISHED.match(line):
            side = m["white"] if m["why"].startswith("White") else m["black"]
            r.faults += [(int(m["id"]), kind, side, m["why"]) for kind, words in _FAULTS if words in m["why"]]
        elif line.startswith("Tournament was interrupted"):
            r.interrupted = True
        elif line.startswith("SPRT (") and " completed - " in line:
            r.finished = True     # an SPRT that stopped (a match that ran out of games says nothing else)
    return r

