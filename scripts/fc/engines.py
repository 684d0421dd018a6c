"""Engines by name: Brudno binaries and the Debian opponents, as fastchess `-engine` arguments."""
import os
import shutil

# Every measured game gives each side one thread, a small table and no own book (the openings
# file chooses the opening), so that the engines decide the result, not the setting.
BRUDNO = {"Threads": "1", "Hash": "16", "OwnBook": "false"}
PRESETS = {  # name: (program, arguments, options)
    "ethereal": ("ethereal-chess", [], {"Threads": "1", "Hash": "16"}),
    "stockfish": ("stockfish", [], {"Threads": "1", "Hash": "16"}),
    "toga2": ("toga2", [], {"Hash": "16", "OwnBook": "false"}),
    "glaurung": ("glaurung", [], BRUDNO),
    "gnuchess": ("gnuchess", ["--uci"], {"Hash": "16", "OwnBook": "false"}),
}


class Engine:
    def __init__(self, name, cmd, args=(), options=None):
        self.name, self.cmd, self.args, self.options = name, cmd, list(args), dict(options or {})

    def with_options(self, pairs):
        """A copy with `Name=Value` pairs set (later pairs win)."""
        options = dict(self.options)
        for key, sep, value in (pair.partition("=") for pair in pairs):
            if not sep or not key:
                raise ValueError(f"an option is Name=Value, not {key + sep + value!r}")
            options[key] = value
        return Engine(self.name, self.cmd, self.args, options)

    def fastchess_args(self, tc):
        """`tc`: 8+0.08, 40/10+0, st=0.05 (seconds a move), nodes=20000 or depth=N."""
        return (["-engine", f"name={self.name}", f"cmd={self.cmd}"] + ["args=" + " ".join(self.args)] * bool(self.args)
                + [tc if tc.startswith(("st=", "nodes=", "depth=")) else f"tc={tc}"]
                + [f"option.{k}={v}" for k, v in self.options.items()])

    def installed(self):
        return bool(os.access(self.cmd, os.X_OK) or shutil.which(self.cmd))


def find_program(program):
    """On PATH or in Debian's /usr/games (not on root's PATH); else the bare name."""
    return shutil.which(program) or shutil.which(program, path="/usr/games") or program


def brudno(name, path):
    return Engine(name, os.path.abspath(path), [], BRUDNO)


def parse(spec):
    """`ethereal`, `sf2500` (Stockfish at UCI_Elo 2500), `PATH` or `NAME=PATH` (a Brudno binary)."""
    name, sep, path = spec.partition("=")
    if sep and path:
        return brudno(name, path)
    if spec in PRESETS:
        program, args, options = PRESETS[spec]
        return Engine(spec, find_program(program), args, options)
    if spec.startswith("sf") and spec[2:].isdigit():
        return Engine(spec, find_program("stockfish"), [], dict(PRESETS["stockfish"][2], UCI_LimitStrength="true",
                                                                UCI_Elo=spec[2:]))
    if os.sep in spec or os.path.exists(spec):
        return brudno(os.path.basename(spec.rstrip("/")), spec)
    raise ValueError(f"unknown engine {spec!r}: give a path, NAME=PATH or one of {', '.join(PRESETS)}, sfNNNN")


ME = "brudno"      # the Brudno under test, in a soak
SELF = "self"      # a second copy of it, as an opponent


def is_brudno(name):
    """Whether a soak's engine `name` is Brudno: the one under test or its "self" copy (a fault
    by either is Brudno's)."""
    return name in (ME, SELF)


def opponent(spec, own_path):
    """An opponent for a soak: `self` is a second copy of the Brudno under test (default options;
    its faults are Brudno's too), anything else as `parse` reads it."""
    return brudno(SELF, own_path) if spec == SELF else parse(spec)


def check(players):
    lost = [f"{e.name} ({e.cmd})" for e in players if not e.installed()]
    if lost:
        raise ValueError(f"not installed: {', '.join(lost)} (Debian: apt-get install "
                         "ethereal-chess stockfish toga2 glaurung gnuchess)")
