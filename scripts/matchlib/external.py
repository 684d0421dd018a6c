"""Delegation to cutechess-cli or fastchess when one is on PATH: our command line is translated
to theirs, their console output is streamed, and the summary is computed by us from the PGN they
write, so it reads the same as with the python-chess runner."""
import os
import re
import shutil
import subprocess
import tempfile

import chess.pgn

from .play import GameRecord, Tally


def choose(wanted, specs):
    """Which runner to use: 'python', 'cutechess' or 'fastchess'."""
    if wanted == "python":
        return "python"
    found = {"cutechess": shutil.which("cutechess-cli"), "fastchess": shutil.which("fastchess")}
    uci_only = all(s.proto == "uci" for s in specs)
    if wanted in found:
        if not found[wanted]:
            raise SystemExit(f"-runner {wanted}: not on PATH")
        if wanted == "fastchess" and not uci_only:
            raise SystemExit("fastchess plays UCI engines only")
        return wanted
    if found["fastchess"] and uci_only:
        return "fastchess"
    if found["cutechess"]:
        return "cutechess"
    return "python"


def _tc_args(tc):
    if tc.kind == "clock":
        return [f"tc={tc}"]
    if tc.kind == "st":
        return [f"st={tc.value:g}", "tc=inf"]
    if tc.kind == "nodes":
        return [f"nodes={int(tc.value)}", "tc=inf"]
    if tc.kind == "depth":
        return [f"depth={int(tc.value)}", "tc=inf"]
    return ["tc=inf"]


def build_command(runner, args, specs, games, op, seed, sprt, adj, pgnout):
    """The cutechess-cli / fastchess argument list for our options."""
    exe = "cutechess-cli" if runner == "cutechess" else "fastchess"
    cmd = [exe]
    for s in specs:
        e = ["-engine", f"cmd={s.cmd[0]}", f"name={s.name}"]
        for a in s.cmd[1:]:
            e.append(f"arg={a}")
        if runner == "cutechess":
            e.append(f"proto={s.proto}")
        if s.cwd:
            e.append(f"dir={s.cwd}")
        e += _tc_args(s.tc)
        for k, v in s.options.items():
            e.append(f"option.{k}={v}")
        cmd += e
    cmd += ["-games", "2", "-rounds", str(games // 2), "-repeat", "-concurrency", str(args.concurrency)]
    if runner == "cutechess":
        cmd += ["-recover"]
    if op:
        o = ["-openings", f"file={op['file']}", f"format={op['format'] or op['file'].rsplit('.', 1)[-1]}",
             f"order={op['order']}"]
        if op["order"] == "sequential":
            o.append(f"start={op['start']}")
        if op.get("plies"):
            o.append(f"plies={op['plies']}")
        cmd += o
        cmd += ["-srand", str(seed)]
    if adj.resign_moves:
        cmd += ["-resign", f"movecount={adj.resign_moves}", f"score={adj.resign_score}",
                f"twosided={'true' if adj.resign_twosided else 'false'}"]
    if adj.draw_moves:
        cmd += ["-draw", f"movenumber={adj.draw_movenumber}", f"movecount={adj.draw_moves}", f"score={adj.draw_score}"]
    if adj.max_moves:
        cmd += ["-maxmoves", str(adj.max_moves)]
    if args.tb:
        cmd += ["-tb", args.tb[0]]
    if sprt:
        cmd += ["-sprt", f"elo0={sprt['elo0']:g}", f"elo1={sprt['elo1']:g}", f"alpha={sprt['alpha']:g}",
                f"beta={sprt['beta']:g}"]
    if args.timemargin:
        if runner == "cutechess":
            cmd += ["-each", f"timemargin={args.timemargin}"]
        else:
            cmd += ["-each", f"timemargin={args.timemargin}"]
    cmd += ["-pgnout", pgnout] if runner == "cutechess" else ["-pgnout", f"file={pgnout}"]
    return cmd


# Reasons cutechess-cli / fastchess write into the last comment or Termination tag.
_PROBLEMS = [
    (re.compile(r"loses on time|time forfeit|timeout", re.I), "timeloss"),
    (re.compile(r"illegal move", re.I), "illegal"),
    (re.compile(r"disconnect|connection stalls|stalls", re.I), "disconnect"),
    (re.compile(r"crash|terminated", re.I), "crash"),
]


def records_from_pgn(path, names):
    """GameRecords (for our Tally) from a PGN written by cutechess-cli or fastchess. Games are
    paired by round number (both games of an opening share a round with -games 2 -repeat)."""
    records = []
    if not os.path.exists(path):
        return records
    with open(path, encoding="utf-8", errors="replace") as f:
        index = 0
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            h = game.headers
            white_slot = 0 if h.get("White") == names[0] else 1
            rnd = h.get("Round", str(index // 2 + 1))
            try:
                pair = int(rnd.split(".")[0]) - 1
            except ValueError:
                pair = index // 2
            end = game.end()
            reason = (end.comment or game.comment or h.get("Termination", "")).strip()
            term_tag = h.get("Termination", "normal")
            errors = []
            for rx, kind in _PROBLEMS:
                if rx.search(reason) or rx.search(term_tag):
                    loser_white = h.get("Result") == "0-1"
                    loser_slot = white_slot if loser_white else 1 - white_slot
                    errors.append((loser_slot, kind, reason))
                    break
            termination = errors[0][1] if errors else ("adjudication" if "adjudication" in (reason + term_tag).lower()
                                                       else term_tag)
            records.append(GameRecord(index, pair, white_slot, h.get("Result", "*"), termination, reason,
                                      errors, end.ply(), game))
            index += 1
    return records


def run(runner, args, specs, games, op, seed, sprt, adj):
    pgnout = args.pgnout or os.path.join(tempfile.mkdtemp(prefix="match-"), "games.pgn")
    start = 0
    if os.path.exists(pgnout):
        with open(pgnout, encoding="utf-8", errors="replace") as f:
            start = sum(1 for line in f if line.startswith("[Event "))
    cmd = build_command(runner, args, specs, games, op, seed, sprt, adj, pgnout)
    print("running: " + " ".join(cmd), flush=True)
    subprocess.run(cmd)
    tally = Tally([s.name for s in specs])
    for rec in records_from_pgn(pgnout, tally.names)[start:]:
        tally.add(rec)
    return tally
