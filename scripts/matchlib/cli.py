"""Command line of scripts/match (shared with the external runners' translation)."""
import argparse
import os
import shlex
import shutil

from .engines import EngineSpec
from .tc import parse_tc

ENGINE_KEYS = {"cmd", "name", "proto", "arg", "args", "dir", "tc", "st", "nodes", "depth", "stderr", "ponder"}
ENGINE_DIRS = ["/usr/games", "/usr/local/games"]


def keyvals(tokens, what):
    """['a=1', 'option.Hash=16', 'Move Overhead=30'] -> [('a','1'), ...] (split at the first '=')."""
    pairs = []
    for tok in tokens:
        if "=" not in tok:
            raise SystemExit(f"{what}: expected KEY=VALUE, got '{tok}'")
        k, v = tok.split("=", 1)
        pairs.append((k.strip(), v.strip()))
    return pairs


def find_command(cmd):
    """Resolve an engine command: as given, on PATH, or in /usr/games (Debian's engines)."""
    if os.sep in cmd or os.path.exists(cmd):
        return os.path.abspath(cmd)  # engines run in their own directory
    found = shutil.which(cmd)
    if found:
        return found
    for d in ENGINE_DIRS:
        p = os.path.join(d, cmd)
        if os.path.exists(p):
            return p
    return cmd


def build_spec(pairs, each_pairs=()):
    """An EngineSpec from -each then -engine KEY=VALUE pairs (the engine's own win)."""
    cmd = None
    name = None
    proto = "uci"
    args = []
    options = {}
    tc = None
    cwd = None
    stderr = None
    ponder = False
    for k, v in list(each_pairs) + list(pairs):
        kl = k.lower()
        if kl == "cmd":
            cmd = v
        elif kl == "name":
            name = v
        elif kl == "proto":
            if v not in ("uci", "xboard"):
                raise SystemExit(f"proto={v}: use uci or xboard")
            proto = v
        elif kl in ("arg", "args"):
            args += shlex.split(v)
        elif kl == "dir":
            cwd = v
        elif kl == "stderr":
            stderr = v
        elif k == "ponder":   # lower case only: Ponder=... is the engine's UCI option
            if v.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise SystemExit(f"ponder={v}: use true or false")
            ponder = v.lower() in ("true", "1", "yes", "on")
        elif kl == "tc":
            tc = parse_tc(v)
        elif kl in ("st", "nodes", "depth"):
            tc = parse_tc(f"{kl}={v}")
        else:
            if kl.startswith("option."):
                k = k[len("option."):]
            options[k] = v
    if cmd is None:
        raise SystemExit("an engine needs cmd=PATH")
    argv = shlex.split(cmd)
    argv[0] = find_command(argv[0])
    return EngineSpec(argv + args, name=name, proto=proto, options=options, tc=tc, cwd=cwd, stderr=stderr,
                      ponder=ponder)


def dedupe_names(specs):
    names = [s.name for s in specs]
    if len(set(names)) < len(names):
        for i, s in enumerate(specs):
            s.name = f"{s.name}-{i + 1}"


def parse_sprt(tokens):
    d = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05}
    for k, v in keyvals(tokens, "-sprt"):
        if k not in d:
            raise SystemExit(f"-sprt: unknown key '{k}' (elo0, elo1, alpha, beta)")
        d[k] = float(v)
    if d["elo1"] <= d["elo0"] or not (0 < d["alpha"] < 1 and 0 < d["beta"] < 1):
        raise SystemExit("-sprt: need elo0 < elo1 and 0 < alpha, beta < 1")
    return d


def parser():
    p = argparse.ArgumentParser(
        prog="scripts/match",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play games between two chess engines (UCI or xboard) and judge the result.",
        epilog="""examples:
  scripts/match target/release/brudno /tmp/old/brudno -tc 8+0.08 -games 200 \\
      -openings ../shared/openings/8moves_v3_half.pgn -each OwnBook=false Hash=16 Threads=1
  scripts/match -engine cmd=target/release/brudno name=new -engine cmd=/tmp/old/brudno name=old \\
      -each tc=10+0.1 Hash=16 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -games 20000 \\
      -openings file=../shared/openings/2moves_v1.epd order=random -pgnout sprt.pgn
  scripts/match -engine cmd=target/release/brudno -engine cmd=fairymax proto=xboard -tc 40/60

engine keys: cmd= name= proto=uci|xboard args= dir= stderr= tc= st= nodes= depth= ponder=true|false
(ponder: UCI go ponder / ponderhit between moves; set the engine's Ponder=true option too);
any other KEY=VALUE (or option.KEY=VALUE) is an engine option (UCI setoption / xboard option).
time controls: 40/60, 40/1:30+0.5, 10+0.1, st=0.1, nodes=5000, depth=8.""")
    p.add_argument("engines", nargs="*", metavar="ENGINE", help="engine command (shorthand for -engine cmd=...)")
    p.add_argument("-engine", "--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE")
    p.add_argument("-each", "--each", nargs="+", default=[], metavar="KEY=VALUE", help="applies to both engines")
    p.add_argument("-tc", "--tc", help="time control for both engines (same as -each tc=...)")
    p.add_argument("-games", "--games", type=int, default=100, help="games to play (rounded up to even; default 100)")
    p.add_argument("-concurrency", "--concurrency", type=int, default=1)
    p.add_argument("-openings", "--openings", nargs="+", metavar="KEY=VALUE", help="file=PATH (or just PATH) order=random|sequential start=N plies=N format=pgn|epd")
    p.add_argument("-seed", "--seed", type=int, default=None, help="seed for the opening order")
    p.add_argument("-pgnout", "--pgnout", help="append the games to this PGN file")
    p.add_argument("-resign", "--resign", nargs="+", metavar="KEY=VALUE", help="movecount=N score=CP [twosided=true]: a side losing by score for N moves (and its opponent agreeing) loses")
    p.add_argument("-draw", "--draw", nargs="+", metavar="KEY=VALUE", help="movenumber=N movecount=N score=CP: |score| <= CP for N moves of each side after move N is a draw")
    p.add_argument("-maxmoves", "--maxmoves", type=int, default=0, help="draw after this many full moves")
    p.add_argument("-tb", "--tb", nargs="+", metavar="ARG", help="PATH [pieces=N]: Syzygy tables for adjudication")
    p.add_argument("-sprt", "--sprt", nargs="+", metavar="KEY=VALUE", help="elo0=0 elo1=5 alpha=0.05 beta=0.05: stop at a verdict")
    p.add_argument("-timemargin", "--timemargin", type=int, default=50, metavar="MS",
                   help="overstep of the clock tolerated before a time loss (default 50 ms)")
    p.add_argument("-hangtimeout", "--hangtimeout", type=float, default=60.0, metavar="S",
                   help="seconds an untimed (nodes/depth) move may take before the engine counts as stalled")
    p.add_argument("-journal", "--journal", metavar="FILE",
                   help="record each finished game in FILE; a rerun with the same engines and settings "
                        "continues where it stopped (needs -seed; the python runner only)")
    p.add_argument("-event", "--event", default="Brudno match")
    p.add_argument("-runner", "--runner", choices=["auto", "python", "cutechess", "fastchess"], default="auto",
                   help="auto: cutechess-cli or fastchess when on PATH, else the python-chess runner")
    p.add_argument("-debug", "--debug", action="store_true", help="print all engine I/O to stderr")
    p.add_argument("-quiet", "--quiet", action="store_true", help="no line per game")
    p.add_argument("-strict", "--strict", action="store_true",
                   help="exit with status 2 if any engine had an illegal move, crash, time loss, ...")
    return p


def parse_openings(tokens):
    if not tokens:
        return None
    d = {"order": "random", "start": "1", "plies": None, "format": None}
    for tok in tokens:
        if "=" not in tok:
            d["file"] = tok
        else:
            k, v = tok.split("=", 1)
            d[k] = v
    if "file" not in d:
        raise SystemExit("-openings: need file=PATH")
    return d


def open_tables(path, pieces=7):
    """Syzygy tables for adjudication: (tablebase, the most pieces it can be probed with)."""
    import chess.syzygy
    tb = chess.syzygy.open_tablebase(path)
    # the largest table present bounds what can be probed
    biggest = 0
    for root, _, files in os.walk(path):
        for f in files:
            if f.endswith(".rtbw"):
                biggest = max(biggest, len(f.split(".")[0]) - 1)  # "KQvK" -> 3 pieces
    return tb, min(pieces, biggest)


def standard_adjudication(tb_path=None):
    """The adjudication our own scripts (gauntlet, soak, calibrate-elo) play with: resign when both
    engines agree for 3 moves that one side is 600 cp down, draw from move 40 after 8 moves within
    10 cp, and Syzygy adjudication when tb_path is a directory of tables."""
    from .play import Adjudication
    a = Adjudication(resign_moves=3, resign_score=600, resign_twosided=True,
                     draw_movenumber=40, draw_moves=8, draw_score=10)
    if tb_path and os.path.isdir(tb_path):
        a.tb, a.tb_pieces = open_tables(tb_path)
    return a


def parse_adjudication(args):
    from .play import Adjudication
    a = Adjudication()
    if args.resign:
        for k, v in keyvals(args.resign, "-resign"):
            if k == "movecount":
                a.resign_moves = int(v)
            elif k == "score":
                a.resign_score = int(v)
            elif k == "twosided":
                a.resign_twosided = v.lower() in ("true", "1", "yes")
            else:
                raise SystemExit(f"-resign: unknown key {k}")
    if args.draw:
        for k, v in keyvals(args.draw, "-draw"):
            if k == "movenumber":
                a.draw_movenumber = int(v)
            elif k == "movecount":
                a.draw_moves = int(v)
            elif k == "score":
                a.draw_score = int(v)
            else:
                raise SystemExit(f"-draw: unknown key {k}")
    a.max_moves = args.maxmoves
    if args.tb:
        pieces = 7
        for k, v in keyvals(args.tb[1:], "-tb"):
            if k == "pieces":
                pieces = int(v)
        a.tb, a.tb_pieces = open_tables(args.tb[0], pieces)
    return a


def specs_from_args(args):
    engine_lists = [["cmd=" + e] for e in args.engines] + args.engine
    if len(engine_lists) != 2:
        raise SystemExit(f"need exactly two engines, got {len(engine_lists)}")
    each = keyvals(args.each, "-each")
    if args.tc:
        each = [("tc", args.tc)] + each
    specs = [build_spec(keyvals(lst, "-engine"), each) for lst in engine_lists]
    for s in specs:
        if s.tc is None:
            raise SystemExit(f"{s.name}: no time control (use -tc, -each tc=..., or tc= on the engine)")
    dedupe_names(specs)
    return specs


def file_identity(path):
    """[size, modification time] of a file: a rebuilt binary or an edited openings file is
    another plan."""
    st = os.stat(path)
    return [st.st_size, int(st.st_mtime)]


def command_files(cmd):
    """[path, size, modification time] of every file in an engine's command line."""
    return [[a, *file_identity(a)] for a in cmd if os.path.isfile(a)]


def journal_plan(specs, op, seed, adj, args):
    """What a match journal must agree on to be continued: the engines (command, the size and
    modification time of every file in it — the binary, or a wrapper's script —, options, time
    control), openings (with the file's size and time) and seed, adjudication, the clock margin,
    the hang timeout and an SPRT's bounds. The number of games is not part of it: a rerun with
    -games larger extends the match."""
    engines = []
    for s in specs:
        engines.append({"name": s.name, "cmd": s.cmd, "files": command_files(s.cmd), "proto": s.proto,
                        "options": s.options, "tc": str(s.tc), "ponder": s.ponder})
    adjud = {k: getattr(adj, k) for k in ("resign_moves", "resign_score", "resign_twosided", "draw_movenumber",
                                          "draw_moves", "draw_score", "max_moves", "tb_pieces")}
    adjud["tb"] = os.path.abspath(args.tb[0]) if args.tb else None
    openings = None
    if op:
        path = os.path.abspath(op["file"])
        openings = dict(op, file=path, identity=file_identity(path))
    return {"engines": engines, "openings": openings, "seed": seed, "adjudication": adjud,
            "timemargin": args.timemargin, "hangtimeout": args.hangtimeout,
            "sprt": parse_sprt(args.sprt) if args.sprt else None}
