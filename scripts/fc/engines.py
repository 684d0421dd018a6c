"""Engines by name: Brudno binaries and the Debian opponents, as fastchess `-engine` arguments."""
import os
import shutil

GAMES = "/usr/games"

# What every measured game gives each side: one thread, a small table, no own book (the
# openings file chooses the opening), so that the engines decide the result, not the setting.
BRUDNO_DEFAULTS = {"Threads": "1", "Hash": "16", "OwnBook": "false"}

PRESETS = {
    "ethereal": ("ethereal-chess", [], {"Threads": "1", "Hash": "16"}),
    "stockfish": ("stockfish", [], {"Threads": "1", "Hash": "16"}),
    "toga2": ("toga2", [], {"Hash": "16", "OwnBook": "false"}),
    "glaurung": ("glaurung", [], {"Threads": "1", "Hash": "16", "OwnBook": "false"}),
    "gnuchess": ("gnuchess", ["--uci"], {"Hash": "16", "OwnBook": "false"}),
}


class Engine:
    """One side of a match: a name, a command, its arguments and its UCI options."""

    def __init__(self, name, cmd, args=(), options=None):
        self.name = name
        self.cmd = cmd
        self.args = list(args)
        self.options = dict(options or {})

    def with_options(self, pairs):
        """A copy with `Name=Value` pairs set (later pairs win)."""
        options = dict(self.options)
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key:
                raise ValueError(f"an option is Name=Value, not {pair!r}")
            options[key] = value
        return Engine(self.name, self.cmd, self.args, options)

    def fastchess_args(self, tc=None):
        out = ["-engine", f"name={self.name}", f"cmd={self.cmd}"]
        if self.args:
            out.append("args=" + " ".join(self.args))
        if tc:
            out += tc_args(tc)
        out += [f"option.{k}={v}" for k, v in self.options.items()]
        return out


def tc_args(tc):
    """A time control as fastchess settings: `8+0.08`, `40/10+0`, `st=0.05`, `nodes=20000`."""
    if tc.startswith(("st=", "nodes=", "depth=")):
        return [tc]
    return [f"tc={tc}"]


def find_program(program):
    """A program on PATH or in Debian's games folder (not on root's PATH)."""
    found = shutil.which(program)
    if found:
        return found
    path = os.path.join(GAMES, program)
    return path if os.access(path, os.X_OK) else None


def parse(spec):
    """`ethereal`, `sf2500` (Stockfish at UCI_Elo 2500), `PATH` or `NAME=PATH` (a Brudno binary)."""
    name, sep, rest = spec.partition("=")
    if sep and rest:
        return _brudno(name, rest)
    if spec in PRESETS:
        program, args, options = PRESETS[spec]
        return Engine(spec, find_program(program) or program, args, options)
    if spec.startswith("sf") and spec[2:].isdigit():
        _, args, options = PRESETS["stockfish"]
        options = dict(options, UCI_LimitStrength="true", UCI_Elo=spec[2:])
        return Engine(spec, find_program("stockfish") or "stockfish", args, options)
    if os.sep in spec or os.path.exists(spec):
        return _brudno(os.path.basename(spec.rstrip("/")), spec)
    known = ", ".join(list(PRESETS) + ["sfNNNN"])
    raise ValueError(f"unknown engine {spec!r}: give a path, NAME=PATH or one of {known}")


def _brudno(name, path):
    return Engine(name, os.path.abspath(path), [], BRUDNO_DEFAULTS)


def missing(engines):
    """The engines whose program cannot be found, as `name (cmd)` strings."""
    return [f"{e.name} ({e.cmd})" for e in engines
            if not (os.access(e.cmd, os.X_OK) or shutil.which(e.cmd))]
