#!/usr/bin/env python3
"""A scripted UCI engine: plays the first legal move (by UCI text), and on its third `go`, as its
argument says, `illegal` answers a nonsense move, `crash` exits, `late` answers only at `stop`,
`slow` answers after half a second. `ponder` names the reply it expects (`bestmove M ponder R`);
`go ponder` is answered at `ponderhit` or `stop`, in every mode. The fastchess output in data/ was
made with it (`crash` named crashy there)."""
import sys
import time

import chess

mode, board, gos, pondering = (sys.argv[1:] or ["good"])[0], chess.Board(), 0, False


def answer(board, pick):
    """`bestmove`, with the expected reply in `ponder` mode."""
    reply = ""
    if mode == "ponder" and pick != "0000":
        after = board.copy()
        after.push_uci(pick)
        reply = min((m.uci() for m in after.legal_moves), default="")
    return f"bestmove {pick}" + (f" ponder {reply}" if reply else "")


sys.stdout.reconfigure(line_buffering=True)

for line in sys.stdin:
    cmd, *args = line.split() or [""]
    pick = min((m.uci() for m in board.legal_moves), default="0000")
    if cmd == "uci":
        print(f"id name Fake {mode}\noption name Hash type spin default 16 min 1 max 1024\nuciok")
    elif cmd == "isready":
        print("readyok")
    elif cmd == "position":
        board = chess.Board(chess.STARTING_FEN if args[0] == "startpos" else " ".join(args[1:7]))
        for m in args[args.index("moves") + 1:] if "moves" in args else []:
            board.push_uci(m)
    elif cmd == "go" and "ponder" in args:
        pondering = True
    elif cmd in ("ponderhit", "stop") and pondering:
        pondering = False
        print(answer(board, pick))
    elif cmd == "go":
        gos += 1
        if gos >= 3 and mode == "crash":
            sys.exit(3)
        if gos >= 3 and mode == "slow":
            time.sleep(0.5)
        if gos < 3 or mode != "late":      # a late engine answers at `stop`
            print(f"info depth 3 score cp 0 nodes 10 pv {pick}")
            print(("bestmove " + ("e2e5" if board.turn else "e7e4")) if gos >= 3 and mode == "illegal"
                  else answer(board, pick))
    elif cmd == "stop" and mode == "late" and gos >= 3:
        print(f"bestmove {pick}")
    elif cmd == "quit":
        break
