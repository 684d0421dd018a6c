"""Time controls as written on the command line.

    40/60        40 moves in 60 s, repeating          40/1:30+0.5   with an increment
    10+0.1       10 s for the game, 0.1 s a move      1:00+1        minutes:seconds
    st=0.1       0.1 s for every move (go movetime)
    nodes=5000   5000 nodes a move (go nodes)         depth=8       (go depth)
    inf          no limit (the engine must stop on its own, e.g. with a depth option)
"""
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    kind: str            # "clock", "st", "nodes", "depth", "inf"
    base: float = 0.0    # clock: seconds per period
    inc: float = 0.0     # clock: seconds added after each move
    moves: int = 0       # clock: moves per period (0 = whole game)
    value: float = 0.0   # st: seconds; nodes; depth

    def __str__(self):
        if self.kind == "clock":
            s = (f"{self.moves}/" if self.moves else "") + _num(self.base)
            return s + (f"+{_num(self.inc)}" if self.inc else "")
        if self.kind == "st":
            return f"st={_num(self.value)}"
        if self.kind in ("nodes", "depth"):
            return f"{self.kind}={int(self.value)}"
        return "inf"

    def pgn_tag(self):
        """PGN TimeControl tag value (seconds)."""
        if self.kind == "clock":
            s = (f"{self.moves}/" if self.moves else "") + _num(self.base)
            return s + (f"+{_num(self.inc)}" if self.inc else "")
        if self.kind == "st":
            return f"{_num(self.value)}/move"
        return "-"

    @property
    def timed(self):
        return self.kind in ("clock", "st")


def _num(x):
    return f"{x:g}"


def _seconds(text):
    """'60', '0.5', '1:30' (m:ss) or '1:00:00' to seconds."""
    parts = text.split(":")
    if not 1 <= len(parts) <= 3 or any(p == "" for p in parts):
        raise ValueError(f"bad time '{text}'")
    value = 0.0
    for p in parts:
        value = value * 60 + float(p)
    return value


def parse_tc(text):
    t = text.strip().lower()
    if t in ("inf", "infinite"):
        return TimeControl("inf")
    m = re.fullmatch(r"(st|movetime|nodes|depth)\s*=\s*([0-9.]+)", t)
    if m:
        kind, value = m.group(1), float(m.group(2))
        if kind == "movetime":
            kind = "st"
        if value <= 0:
            raise ValueError(f"time control '{text}': the value must be positive")
        if kind in ("nodes", "depth"):
            value = int(value)
        return TimeControl(kind, value=value)
    m = re.fullmatch(r"(?:(\d+)/)?([0-9.:]+)(?:\+([0-9.]+))?", t)
    if not m:
        raise ValueError(f"bad time control '{text}' (try 40/60, 10+0.1, st=0.1, nodes=5000, depth=8)")
    moves = int(m.group(1)) if m.group(1) else 0
    base = _seconds(m.group(2))
    inc = float(m.group(3)) if m.group(3) else 0.0
    if base <= 0 and inc <= 0:
        raise ValueError(f"time control '{text}' gives no time")
    return TimeControl("clock", base=base, inc=inc, moves=moves)


class Clock:
    """One side's clock under a TimeControl."""

    def __init__(self, tc):
        self.tc = tc
        self.left = tc.base if tc.kind == "clock" else 0.0
        self.moves_made = 0
        self.least_left = None   # least seconds left after a move, before the increment
        self.forgiven = 0        # oversteps within the margin

    def moves_to_go(self):
        if self.tc.kind != "clock" or not self.tc.moves:
            return 0
        return self.tc.moves - self.moves_made % self.tc.moves

    def allowed(self):
        """Seconds the engine may use for the coming move (None = untimed)."""
        if self.tc.kind == "clock":
            return self.left
        if self.tc.kind == "st":
            return self.tc.value
        return None

    def spend(self, seconds, margin=0.0):
        """Charge a move; returns False when the flag fell (the clock went below -margin).
        An overstep within the margin is forgiven: the clock restarts from zero."""
        self.moves_made += 1
        if self.tc.kind != "clock":
            return True
        self.left -= seconds
        if self.least_left is None or self.left < self.least_left:
            self.least_left = self.left
        if self.left < -margin:
            return False
        if self.left < 0:
            self.forgiven += 1
        self.left = max(self.left, 0.0) + self.tc.inc
        if self.tc.moves and self.moves_made % self.tc.moves == 0:
            self.left += self.tc.base
        return True
