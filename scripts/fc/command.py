"""The fastchess command line every wrapper shares, built from their common arguments."""
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OPENINGS = os.path.join(os.path.dirname(REPO), "shared", "openings", "8moves_v3_half.pgn")
# Resign when both sides agree for 3 moves that one is 600 cp ahead; draw from move 40 when both
# have said |score| <= 10 cp for 8 moves: a quarter of the time saved, few results changed.
ADJUDICATION = "-resign movecount=3 score=600 twosided=true -draw movenumber=40 movecount=8 score=10".split()


def add_common(parser, tc="8+0.08"):
    a = parser.add_argument
    a("--tc", default=tc, help=f"8+0.08, 40/10+0, st=0.05 (s a move), nodes=20000 (default {tc})")
    a("--concurrency", type=int, default=2, help="games at a time (default 2: one per core)")
    a("--openings", default=DEFAULT_OPENINGS, help=".pgn, .epd or none (default ../shared/openings/8moves_v3_half.pgn)")
    a("--seed", type=int, default=1, help="seed of the openings' order (default 1)")
    a("--tb", help="Syzygy folders: adjudicate positions the tables know")
    a("--each", action="append", default=[], metavar="NAME=VALUE", help="a UCI option for every engine")
    a("--no-adjudication", action="store_true", help="play every game out")
    a("--out", help="folder for the PGN, the log and fastchess's state (a rerun resumes)")
    a("--dry-run", action="store_true", help="print the fastchess command and stop")


def openings_args(path, seed):
    if path == "none":
        return []
    if not os.path.exists(path):
        raise ValueError(f"openings file {path} not found (give --openings FILE or --openings none)")
    fmt = "epd" if path.lower().endswith(".epd") else "pgn"
    return ["-openings", f"file={os.path.abspath(path)}", f"format={fmt}", "order=random", "-srand", str(seed)]


def build(players, args, rounds, out_dir, extra=(), tcs=None):
    """The arguments after `fastchess` for `players` (engines.Engine) playing `rounds` pairs of
    games; `tcs` gives each player its own time control (default: all args.tc)."""
    cmd = sum((e.with_options(args.each).fastchess_args(tc) for e, tc in zip(players, tcs or [args.tc] * 2)), [])
    cmd += openings_args(args.openings, args.seed)
    cmd += ["-repeat", "-rounds", str(rounds), "-concurrency", str(args.concurrency), "-recover"]
    cmd += ([] if args.no_adjudication else ADJUDICATION) + (["-tb", args.tb] if args.tb else []) + list(extra)
    return cmd + ["-pgnout", f"file={os.path.join(out_dir, 'games.pgn')}", "timeleft=true",
                  "-log", f"file={os.path.join(out_dir, 'fastchess.log')}", "level=warn", "append=true"]


def default_out(*parts):
    base = os.environ.get("BRUDNO_MATCHES") or os.path.join(REPO, "matches")
    return os.path.join(base, "-".join(p.replace("/", "_").replace("+", "p").replace("=", "") for p in parts))
