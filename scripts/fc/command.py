"""The fastchess command line shared by every wrapper, built from their common arguments."""
import os

from . import engines as eng

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OPENINGS = os.path.join(os.path.dirname(REPO), "shared", "openings", "8moves_v3_half.pgn")
# Resign when both sides agree for 3 moves that one is 600 cp ahead; draw from move 40 when both
# have said |score| ≤ 10 cp for 8 moves. These save about a quarter of the time and change few
# results.
RESIGN = "movecount=3 score=600 twosided=true"
DRAW = "movenumber=40 movecount=8 score=10"


def add_common(parser, tc="8+0.08", concurrency=2):
    parser.add_argument("--tc", default=tc,
                        help=f"time control: 8+0.08, 40/10+0, st=0.05 (s a move), nodes=20000 (default {tc})")
    parser.add_argument("--concurrency", type=int, default=concurrency,
                        help=f"games at a time (default {concurrency}; one per core)")
    parser.add_argument("--openings", default=DEFAULT_OPENINGS,
                        help="openings file, .pgn or .epd (default: shared/openings/8moves_v3_half.pgn)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings' order (default 1)")
    parser.add_argument("--tb", help="Syzygy folders: adjudicate positions the tables know")
    parser.add_argument("--each", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option for every engine (repeatable)")
    parser.add_argument("--no-adjudication", action="store_true",
                        help=f"play every game out (default: resign {RESIGN}; draw {DRAW})")
    parser.add_argument("--out", help="folder for the PGN, the log and fastchess's state (a rerun resumes)")
    parser.add_argument("--dry-run", action="store_true", help="print the fastchess command and stop")


def openings_args(path, seed):
    if not path or path == "none":
        return []
    if not os.path.exists(path):
        raise ValueError(f"openings file {path} not found (give --openings FILE or --openings none)")
    fmt = "epd" if path.lower().endswith(".epd") else "pgn"
    return ["-openings", f"file={os.path.abspath(path)}", f"format={fmt}", "order=random", "-srand", str(seed)]


def build(players, args, rounds, out_dir, sprt=None, extra=()):
    """The argument list after `fastchess` for `players` (engines.Engine) playing `rounds` pairs."""
    cmd = []
    for e in players:
        cmd += e.with_options(args.each).fastchess_args(args.tc)
    cmd += openings_args(args.openings, args.seed)
    cmd += ["-repeat", "-rounds", str(rounds), "-concurrency", str(args.concurrency), "-recover"]
    if not args.no_adjudication:
        cmd += ["-resign", *RESIGN.split(), "-draw", *DRAW.split()]
    if args.tb:
        cmd += ["-tb", args.tb]
    if sprt:
        cmd += ["-sprt", *sprt]
    cmd += ["-pgnout", f"file={os.path.join(out_dir, 'games.pgn')}", "timeleft=true",
            "-log", f"file={os.path.join(out_dir, 'fastchess.log')}", "level=warn", "append=true"]
    cmd += list(extra)
    return cmd


def default_out(*parts):
    base = os.environ.get("BRUDNO_MATCHES") or os.path.join(REPO, "matches")
    name = "-".join(p.replace("/", "_").replace("+", "p").replace("=", "") for p in parts)
    return os.path.join(base, name)


def check_engines(players):
    lost = eng.missing(players)
    if lost:
        raise ValueError("not installed: " + ", ".join(lost) +
                         " (Debian: apt-get install ethereal-chess stockfish toga2 glaurung gnuchess)")
