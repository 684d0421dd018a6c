"""Engine drivers: UCI and xboard (CECP) engines as child processes, with every way an engine can
go wrong turned into an EngineError of a known kind.

Kinds of failure (reported per engine by the match runner):
    crash       the process died (non-zero exit status or a signal)
    disconnect  its output closed / the pipe broke while the process was still alive or exited 0
    stall       no answer at all, even after `stop` and a grace period (the process is killed)
    init        it did not complete the protocol handshake (or cannot play this setting)
    protocol    an xboard engine refused a move we sent (the boards disagree)
A late answer is not an EngineError: think() returns it with its elapsed time and the caller
decides whether the flag fell.
"""
import atexit
import collections
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

import chess

# The runner is the judge of every move's time, and a thread here that has a line to stamp
# must first take Python's interpreter lock. By default a thread holding it keeps it for up to
# 5 ms while another waits: with two games in one process (their info-line parsing, python-chess
# checking each move) that wait was charged to the engines' clocks. 2026-12-03, Brudno with
# pondering at 0.05 s a move against Phalanx, two games at a time, seeds 77 and 79: with the
# default, Phalanx lost 14 and 12 games in 200 on time and Brudno 5 and 5; with the lock handed
# over after 0.5 ms, Phalanx 3 and 7, Brudno 0 and 0 (results/README.md).
sys.setswitchinterval(0.0005)

EOF_MARK = object()
_LIVE = set()          # every engine process started and not yet reaped, killed at exit


def _kill_all():
    for proc in list(_LIVE):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def _on_sigterm(signum, frame):
    raise SystemExit(128 + signum)


atexit.register(_kill_all)
if threading.current_thread() is threading.main_thread():
    try:
        signal.signal(signal.SIGTERM, _on_sigterm)   # so that atexit runs on kill
    except ValueError:
        pass
MATE_CP = 100000  # mate scores are mapped to +/-(MATE_CP - plies)


class EngineError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Reply:
    def __init__(self, move_text, elapsed, score=None, depth=None, late=False, resigned=False, ponder_text=None):
        self.move_text = move_text  # as the engine wrote it (None when it resigned)
        self.ponder_text = ponder_text  # the reply it expects (`bestmove X ponder Y`), if it named one
        self.elapsed = elapsed      # seconds from `go` to the answer
        self.score = score          # centipawns from the engine's side (None if none seen)
        self.depth = depth
        self.late = late            # answered only after the hard deadline (time loss)
        self.resigned = resigned


def stockfish_level_options(elo):
    """UCI options for Stockfish at one of its UCI_Elo levels, as our scripts play it: 1 thread,
    16 MiB (the rating scale the gauntlet and calibrate-elo measure on)."""
    return {"Threads": "1", "Hash": "16", "UCI_LimitStrength": "true", "UCI_Elo": str(elo)}


class EngineSpec:
    """What is needed to start an engine: command, protocol, name, options, own time control."""

    RESERVED = {"cmd", "name", "proto", "arg", "args", "dir", "tc", "st", "nodes", "depth", "stderr", "ponder"}

    def __init__(self, cmd, name=None, proto="uci", options=None, tc=None, cwd=None, stderr=None,
                 ponder=False):
        self.cmd = cmd if isinstance(cmd, list) else shlex.split(cmd)
        self.name = name or os.path.basename(self.cmd[0])
        self.proto = proto
        self.options = dict(options or {})
        self.tc = tc
        self.cwd = cwd
        self.stderr = stderr
        self.ponder = ponder   # UCI: ponder on the expected reply between moves (go ponder / ponderhit)

    def __repr__(self):
        return (f"EngineSpec({self.name}: {' '.join(self.cmd)}, {self.proto}, {self.options}, tc={self.tc}"
                + (", ponder" if self.ponder else "") + ")")


def start_engine(spec, log=None):
    cls = UciEngine if spec.proto == "uci" else XboardEngine
    eng = cls(spec, log)
    try:
        eng.start()
    except Exception:
        eng.kill()
        raise
    return eng


class _Process:
    """A child process with line-based I/O on threads, so reads can time out."""

    def __init__(self, spec, log=None):
        self.spec = spec
        self.log = log
        self.cwd = spec.cwd or tempfile.mkdtemp(prefix="match-engine-")
        try:
            self.proc = subprocess.Popen(
                spec.cmd, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, bufsize=1, errors="replace",
                start_new_session=True)
        except OSError as e:
            raise EngineError("init", f"cannot start {spec.cmd}: {e}")
        _LIVE.add(self.proc)
        self.lines = queue.Queue()
        self.line_time = time.monotonic()   # when the line readline last returned was read
        self.stderr_tail = collections.deque(maxlen=40)
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self):
        try:
            for line in self.proc.stdout:
                # Stamped as read, so that a move's time is not charged with the game
                # thread's own delay in taking the line (the GIL, a backlog of info lines).
                self.lines.put((time.monotonic(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        self.lines.put(EOF_MARK)

    def _read_err(self):
        try:
            for line in self.proc.stderr:
                self.stderr_tail.append(line.rstrip("\r\n"))
                if self.spec.stderr:
                    with open(self.spec.stderr, "a") as f:
                        f.write(line)
        except (OSError, ValueError):
            pass

    def send(self, line):
        if self.log:
            self.log(f"{self.spec.name} < {line}")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise self._dead_error(f"write failed ({e.__class__.__name__})")

    def readline(self, deadline):
        """Next line, or None at the deadline; raises EngineError at end of output."""
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.0, remaining)) if remaining > 0 else self.lines.get_nowait()
            except queue.Empty:
                return None
            if line is EOF_MARK:
                self.lines.put(EOF_MARK)  # stays at end of output
                raise self._dead_error("output closed")
            self.line_time, line = line
            if self.log:
                self.log(f"{self.spec.name} > {line}")
            return line

    def _dead_error(self, what):
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        tail = " | ".join(list(self.stderr_tail)[-3:])
        tail = f"; stderr: {tail}" if tail else ""
        if code is None:
            return EngineError("disconnect", f"{what}, process still running{tail}")
        if code < 0:
            try:
                sig = signal.Signals(-code).name
            except ValueError:
                sig = str(-code)
            return EngineError("crash", f"{what}: killed by {sig}{tail}")
        if code != 0:
            return EngineError("crash", f"{what}: exit status {code}{tail}")
        return EngineError("disconnect", f"{what}: exited with status 0{tail}")

    def alive(self):
        return self.proc.poll() is None

    def kill(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                try:
                    self.proc.kill()
                except OSError:
                    pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        _LIVE.discard(self.proc)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    def close(self, quit_line="quit", grace=1.0):
        """Ask politely, then kill (gnuchess --uci ignores quit)."""
        if self.proc.poll() is None:
            try:
                self.send(quit_line)
            except EngineError:
                pass
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()


def _mate_to_cp(plies_or_moves, moves=True):
    n = plies_or_moves
    plies = (2 * abs(n) - 1) if moves else abs(n)
    return (MATE_CP - plies) if n > 0 else -(MATE_CP - plies)


def _position_cmd(start_fen, move_texts):
    pos = "position startpos" if start_fen is None else f"position fen {start_fen}"
    if move_texts:
        pos += " moves " + " ".join(move_texts)
    return pos


class UciEngine:
    """A UCI engine. With spec.ponder, after `bestmove X ponder Y` the caller's start_ponder() sends
    the game plus X Y and `go ponder` with the clocks as they stand after X (what a GUI sends:
    the clocks of the move before would promise time already spent); the next think() sends
    `ponderhit` when the game went
    that way (the move's time counts from the ponderhit) and otherwise `stop`s and discards that
    search before searching the real position."""
    proto = "uci"
    PONDER_STOP_TIMEOUT = 5.0   # seconds for the bestmove of a stopped ponder search

    def __init__(self, spec, log=None):
        self.spec = spec
        self.log = log
        self.proc = None
        self.name = spec.name
        self.id_name = None
        self.options = {}  # lower-case name -> declared name
        self.ponder_line = None   # (start_fen, [uci texts]) of the running ponder search, or None
        self.ponderhits = 0       # counts, for reports and tests
        self.ponder_misses = 0

    def start(self, timeout=15.0):
        self.proc = _Process(self.spec, self.log)
        self.proc.send("uci")
        deadline = time.monotonic() + timeout
        while True:
            line = self.proc.readline(deadline)
            if line is None:
                raise EngineError("init", f"no 'uciok' within {timeout:g} s")
            if line.startswith("id name "):
                self.id_name = line[8:].strip()
            elif line.startswith("option name "):
                m = re.match(r"option name (.*?) type ", line)
                if m:
                    self.options[m.group(1).strip().lower()] = m.group(1).strip()
            elif line.strip() == "uciok":
                break
        for name, value in self.spec.options.items():
            declared = self.options.get(name.lower())
            if declared is None:
                raise EngineError("init", f"{self.name} has no option '{name}' "
                                  f"(it offers: {', '.join(sorted(self.options.values()))})")
            self.proc.send(f"setoption name {declared} value {value}")
        self.sync(30.0)

    def _wait_for(self, done, timeout, stall_message):
        """Read lines until `done(line)`; none within `timeout` seconds is a 'stall'."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.proc.readline(deadline)
            if line is None:
                raise EngineError("stall", stall_message)
            if done(line):
                return

    def sync(self, timeout=10.0):
        self.proc.send("isready")
        self._wait_for(lambda l: l.strip() == "readyok", timeout, f"no 'readyok' within {timeout:g} s")

    def new_game(self, tc=None):
        self.end_ponder()
        self.proc.send("ucinewgame")
        self.sync(30.0)

    def end_ponder(self, timeout=None):
        """Stop a running ponder search and discard its bestmove (none: a 'stall')."""
        if self.ponder_line is None:
            return
        self.ponder_line = None
        timeout = self.PONDER_STOP_TIMEOUT if timeout is None else timeout
        self.proc.send("stop")
        self._wait_for(lambda l: l.startswith("bestmove"), timeout,
                       f"no bestmove {timeout:g} s after stopping a ponder search")

    def start_ponder(self, start_fen, moves, reply, go_args):
        """After `reply` (bestmove X ponder Y) to the game `moves`: ponder on X Y if pondering is
        on and both are legal there. `go_args`: the clocks after X (this engine to move again)."""
        if not self.spec.ponder or reply.late or not reply.move_text or not reply.ponder_text:
            return
        board = chess.Board(start_fen) if start_fen else chess.Board()
        try:
            for m in moves:
                board.push(m)
            for text in reply.move_text, reply.ponder_text:
                move = chess.Move.from_uci(text)
                if move not in board.legal_moves:
                    return   # an illegal X is judged by the caller; an illegal Y is not pondered on
                board.push(move)
        except ValueError:
            return
        line = [m.uci() for m in moves] + [reply.move_text, reply.ponder_text]
        self.proc.send(_position_cmd(start_fen, line))
        self.proc.send("go ponder " + go_args)
        self.ponder_line = (start_fen, line)

    def think(self, start_fen, moves, go_args, allowed, margin, hang_timeout=60.0):
        """Search the position; `allowed` = seconds it may use (None = untimed)."""
        texts = [m.uci() for m in moves]
        if self.ponder_line is not None and self.ponder_line == (start_fen, texts):
            self.ponder_line = None
            t0 = time.monotonic()   # the clock runs from before the line is written
            self.proc.send("ponderhit")
            self.ponderhits += 1
        else:
            if self.ponder_line is not None:
                self.ponder_misses += 1
                self.end_ponder()
            self.proc.send(_position_cmd(start_fen, texts))
            t0 = time.monotonic()
            self.proc.send("go " + go_args)
        hard = t0 + (allowed + margin if allowed is not None else hang_timeout)
        score = depth = None
        stopped = False
        late = False
        while True:
            line = self.proc.readline(hard)
            if line is None:
                if stopped:
                    raise EngineError("stall", f"no bestmove {time.monotonic() - t0:.1f} s after go, even after stop")
                if allowed is None:
                    raise EngineError("stall", f"no bestmove {hang_timeout:g} s after an untimed go")
                # The flag fell: stop the search and give it a grace period to stay in sync.
                late = True
                self.proc.send("stop")
                stopped = True
                hard = time.monotonic() + 2.0
                continue
            if line.startswith("info "):
                s, d = _parse_uci_info(line)
                if s is not None:
                    score = s
                if d is not None:
                    depth = d
            elif line.startswith("bestmove"):
                elapsed = max(0.0, self.proc.line_time - t0)
                parts = line.split()
                move = parts[1] if len(parts) > 1 else ""
                ponder = parts[3] if len(parts) > 3 and parts[2] == "ponder" else None
                return Reply(move, elapsed, score, depth, late=late or (allowed is not None and elapsed > allowed + margin),
                             ponder_text=ponder)

    def alive(self):
        return self.proc is not None and self.proc.alive()

    def quit(self):
        if self.proc:
            if self.ponder_line is not None and self.proc.alive():
                try:
                    self.end_ponder()
                except EngineError:
                    pass   # it is killed below anyway
            self.ponder_line = None
            self.proc.close("quit")

    def kill(self):
        self.ponder_line = None
        if self.proc:
            self.proc.kill()


def _parse_uci_info(line):
    tokens = line.split()
    score = depth = None
    bound = False
    i = 1
    while i < len(tokens):
        t = tokens[i]
        if t == "depth" and i + 1 < len(tokens):
            try:
                depth = int(tokens[i + 1])
            except ValueError:
                pass
            i += 2
        elif t == "score" and i + 2 < len(tokens):
            kind, val = tokens[i + 1], tokens[i + 2]
            try:
                score = int(val) if kind == "cp" else _mate_to_cp(int(val)) if kind == "mate" else None
            except ValueError:
                score = None
            i += 3
        elif t in ("lowerbound", "upperbound"):
            bound = True
            i += 1
        elif t in ("pv", "string"):
            break
        else:
            i += 1
    if bound:
        score = None  # keep the last exact score
    if "multipv" in tokens:
        k = tokens.index("multipv")
        if k + 1 < len(tokens) and tokens[k + 1] != "1":
            score = None
    return score, depth


_XB_THINK = re.compile(r"^\s*(\d+)[.&]?\s+([-+]?\d+)\s+\d+\s+\d+")


class XboardEngine:
    """A CECP (xboard/WinBoard) engine. The engine is kept in force mode; for each of its moves
    it is sent the moves it has not seen, its clocks, and `go`."""
    proto = "xboard"

    def __init__(self, spec, log=None):
        self.spec = spec
        self.log = log
        self.proc = None
        self.name = spec.name
        self.id_name = None
        self.features = {}
        self.sent = 0
        self.tc = None

    def start(self, timeout=5.0):
        self.proc = _Process(self.spec, self.log)
        self.proc.send("xboard")
        self.proc.send("protover 2")
        deadline = time.monotonic() + 2.0  # protover 1 engines never say done
        while True:
            line = self.proc.readline(deadline)
            if line is None:
                break
            if line.startswith("feature "):
                for key, val in re.findall(r'(\w+)=("[^"]*"|\S+)', line[8:]):
                    val = val.strip('"')
                    if key == "option":
                        self.features.setdefault("options", []).append(val)
                        continue
                    self.features[key] = val
                    if key in ("done",):
                        continue
                    self.proc.send(f"accepted {key}")
                if self.features.get("done") == "1":
                    break
                if self.features.get("done") == "0":
                    deadline = time.monotonic() + timeout
        self.id_name = self.features.get("myname")
        declared = {o.split(" -")[0].strip().lower(): o.split(" -")[0].strip() for o in self.features.get("options", [])}
        for name, value in self.spec.options.items():
            if name.lower() == "hash" and self.features.get("memory") == "1":
                self.proc.send(f"memory {value}")
            elif name.lower() in declared:
                self.proc.send(f"option {declared[name.lower()]}={value}")
            else:
                raise EngineError("init", f"{self.name} (xboard) has no option '{name}'")
        self.ping(10.0)

    def ping(self, timeout):
        if self.features.get("ping") != "1":
            return
        self.proc.send("ping 1")
        deadline = time.monotonic() + timeout
        while True:
            line = self.proc.readline(deadline)
            if line is None:
                raise EngineError("stall", f"no 'pong' within {timeout:g} s")
            if line.strip() == "pong 1":
                return

    def start_ponder(self, start_fen, moves, reply, go_args):
        """Pondering is driven for UCI engines only."""

    def new_game(self, tc=None):
        self.tc = tc
        self.proc.send("new")
        self.proc.send("force")
        self.proc.send("post")
        self.proc.send("easy")
        if tc is not None:
            if tc.kind == "clock":
                mins, secs = divmod(max(1, round(tc.base)), 60)
                base = f"{mins}:{secs:02d}" if secs else f"{mins}"
                self.proc.send(f"level {tc.moves} {base} {tc.inc:g}")
            elif tc.kind == "st":
                # CECP's st takes whole seconds (many engines read "st 0.1" as 0)
                self.proc.send(f"st {max(1, round(tc.value))}")
            elif tc.kind == "depth":
                self.proc.send(f"sd {int(tc.value)}")
            elif tc.kind == "nodes":
                raise EngineError("init", f"{self.name}: xboard engines cannot play a node limit here")
        self.sent = 0
        self.ping(10.0)

    def _send_move(self, board, move):
        if self.features.get("san") == "1":
            text = board.san(move)
        else:
            text = move.uci()
        if self.features.get("usermove") == "1":
            text = "usermove " + text
        self.proc.send(text)

    def think(self, start_fen, moves, go_args, allowed, margin, hang_timeout=60.0,
              my_clock=None, opp_clock=None):
        board = chess.Board(start_fen) if start_fen else chess.Board()
        if self.sent == 0 and start_fen is not None and start_fen != chess.STARTING_FEN:
            if self.features.get("setboard") != "1":
                raise EngineError("init", f"{self.name} cannot set up a position (no setboard)")
            self.proc.send(f"setboard {start_fen}")
        self.proc.send("force")
        for i, m in enumerate(moves):
            if i >= self.sent:
                self._send_move(board, m)
            board.push(m)
        self.sent = len(moves)
        if my_clock is not None:
            self.proc.send(f"time {max(1, int(my_clock * 100))}")
        if opp_clock is not None:
            self.proc.send(f"otim {max(1, int(opp_clock * 100))}")
        t0 = time.monotonic()
        self.proc.send("go")
        hard = t0 + (allowed + margin if allowed is not None else hang_timeout)
        score = depth = None
        late = False
        stopped = False
        while True:
            line = self.proc.readline(hard)
            if line is None:
                if stopped:
                    raise EngineError("stall", f"no move {time.monotonic() - t0:.1f} s after go, even after ?")
                if allowed is None:
                    raise EngineError("stall", f"no move {hang_timeout:g} s after an untimed go")
                late = True
                self.proc.send("?")  # move now
                stopped = True
                hard = time.monotonic() + 2.0
                continue
            s = line.strip()
            m = _XB_THINK.match(s)
            if m:
                depth, score = int(m.group(1)), int(m.group(2))
                if abs(score) >= 100000:  # xboard convention for mates: 100000 + moves
                    score = MATE_CP - 1 if score > 0 else -(MATE_CP - 1)
                continue
            if s.startswith("move "):
                elapsed = max(0.0, self.proc.line_time - t0)
                self.sent += 1
                return Reply(s[5:].strip(), elapsed, score, depth,
                             late=late or (allowed is not None and elapsed > allowed + margin))
            if s == "resign" or s.startswith("tellics resign"):
                return Reply(None, time.monotonic() - t0, score, depth, resigned=True)
            if s.lower().startswith("illegal move"):
                raise EngineError("protocol", f"{self.name} refused our move: {s}")

    def alive(self):
        return self.proc is not None and self.proc.alive()

    def quit(self):
        if self.proc:
            self.proc.close("quit")

    def kill(self):
        if self.proc:
            self.proc.kill()
