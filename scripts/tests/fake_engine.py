#!/usr/bin/env python3
"""A scripted UCI engine for the runner's tests: plays the first legal move (sorted by UCI text)
and misbehaves as told by its first argument:

    good        behaves
    illegal     answers e2e5-style nonsense on its 3rd move
    crash       exits with status 3 on its 3rd go
    segv        kills itself with SIGSEGV on its 3rd go
    slow        sleeps 0.5 s before each answer from its 3rd move on
    silent      never answers its 3rd go, not even after stop (stall)
    late        answers its 3rd go only after stop (time loss)
    close       closes its output on its 3rd go but keeps running (disconnect)
    resigner    reports score cp -1000 from its 2nd move on; its opponent's view is +1000
    winner      reports score cp +1000
    noquit      ignores quit (like gnuchess --uci)
    deafponder  behaves, but never answers `stop` during a `go ponder` (stall)
    spin        behaves, but on `go movetime N` keeps a core busy until N - 10 ms after its
                `position` line was read (an engine with 10 ms of overhead and nothing else in
                hand): its lateness beside real engines is the machine's and the runner's
Every bestmove names a ponder move (the reply it would play). `go ponder` answers only at
`ponderhit` (with the same move as a normal go) or `stop`.
    xboard      speaks CECP (feature setboard=1 usermove=1 ping=1) and behaves
"""
import os
import signal
import sys
import time

import chess

mode = sys.argv[1] if len(sys.argv) > 1 else "good"
board = chess.Board()
gos = 0
pondering = False


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def pick():
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    return moves[0] if moves else None


def bestmove_line():
    move = pick()
    if move is None:
        return "bestmove (none)"
    board.push(move)
    reply = pick()
    board.pop()
    return f"bestmove {move.uci()}" + (f" ponder {reply.uci()}" if reply else "")


def uci_loop():
    global board, gos, pondering
    read_at = time.monotonic()
    for raw in sys.stdin:
        if not raw.startswith("go"):
            read_at = time.monotonic()
        parts = raw.split()
        if not parts:
            continue
        cmd = parts[0]
        if cmd == "uci":
            out("id name Fake " + mode)
            out("option name Hash type spin default 16 min 1 max 1024")
            out("uciok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "position":
            if parts[1] == "startpos":
                board = chess.Board()
                rest = parts[2:]
            else:
                fen = " ".join(parts[2:8])
                board = chess.Board(fen)
                rest = parts[8:]
            if rest and rest[0] == "moves":
                for m in rest[1:]:
                    board.push_uci(m)
        elif cmd == "go" and "ponder" in parts:
            pondering = True
        elif cmd == "ponderhit" and pondering:
            pondering = False
            out(f"info depth 3 score cp 0 nodes 10 pv {pick().uci()}")
            out(bestmove_line())
        elif cmd == "stop" and pondering:
            pondering = False
            if mode != "deafponder":
                out(bestmove_line())
        elif cmd == "go":
            gos += 1
            third = gos >= 3
            if mode == "crash" and third:
                sys.exit(3)
            if mode == "segv" and third:
                os.kill(os.getpid(), signal.SIGSEGV)
            if mode == "close" and third:
                os.close(1)
                time.sleep(30)
                return
            if mode == "silent" and third:
                continue
            if mode == "late" and third:
                continue  # the answer comes at "stop"
            if mode == "slow" and third:
                time.sleep(0.5)
            if mode == "spin" and "movetime" in parts:
                line = bestmove_line()
                until = read_at + (int(parts[parts.index("movetime") + 1]) - 10) / 1000
                while time.monotonic() < until:
                    pass
                out(f"info depth 1 score cp 0 nodes 1 pv {line.split()[1]}")
                out(line)
                continue
            score = -1000 if mode == "resigner" and gos >= 2 else 1000 if mode == "winner" else 0
            out(f"info depth 3 score cp {score} nodes 10 pv {pick().uci()}")
            if mode == "illegal" and third:
                out("bestmove e2e5" if board.turn == chess.WHITE else "bestmove e7e4")
            else:
                out(bestmove_line())
        elif cmd == "stop":
            if mode == "late" and gos >= 3:
                out(f"bestmove {pick().uci()}")
        elif cmd == "quit":
            if mode == "noquit":
                continue
            return


def xboard_loop():
    global board
    force = True
    for raw in sys.stdin:
        line = raw.strip()
        parts = line.split()
        if not parts:
            continue
        cmd = parts[0]
        if cmd == "protover":
            out('feature myname="Fake xboard" setboard=1 usermove=1 ping=1 san=0 done=1')
        elif cmd == "ping":
            out("pong " + parts[1])
        elif cmd == "new":
            board = chess.Board()
            force = False
        elif cmd == "force":
            force = True
        elif cmd == "setboard":
            board = chess.Board(" ".join(parts[1:]))
        elif cmd == "usermove":
            try:
                board.push_uci(parts[1])
            except ValueError:
                out("Illegal move: " + parts[1])
        elif cmd == "go":
            force = False
            m = pick()
            out(f" 3 0 1 10 {m.uci()}")
            board.push(m)
            out("move " + m.uci())
        elif cmd == "quit":
            return
    del force


if __name__ == "__main__":
    if mode == "xboard":
        xboard_loop()
    else:
        uci_loop()
