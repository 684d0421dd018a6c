"""Run fastchess in a match folder: the command kept beside its state, so a rerun resumes."""
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys

from . import pause, result



def fastchess_program():
    prog = os.environ.get("FASTCHESS") or shutil.which("fastchess")
    if not prog:
        raise SystemExit("fastchess not found: build it with ../shared/tools/fastchess/build.sh "
                         "(or set FASTCHESS=/path/to/fastchess)")
    return prog


def run(out_dir, args, say=print, pause_generator=True):
    """Play (or resume) the match whose fastchess arguments are `args`; its Result."""
    os.makedirs(out_dir, exist_ok=True)
    state = os.path.join(out_dir, "config.json")
    command_file = os.path.join(out_dir, "command.txt")
    out_file = os.path.join(out_dir, "fastchess.out")
    text = shlex.join(args) + "\n"
    previous = _read(command_file) if os.path.exists(command_file) else None
    if previous is not None and previous != text:
        raise SystemExit(f"{out_dir} holds another match (its command.txt differs): "
                         "choose another --out or remove that folder")
    if previous is not None and _finished(out_file, _planned(args)):
        say(f"{out_dir}: this match has already finished")
        return result.parse(_read(out_file))
    prog = fastchess_program()
    if previous is not None and os.path.exists(state):
        say(f"{out_dir}: resuming from fastchess's saved state")
        cmd = [prog, "-config", f"file={state}"]
        with open(out_file, "a") as log:
            log.write("--- resumed ---\n")
    else:
        with open(command_file, "w") as f:
            f.write(text)
        cmd = [prog, *args, "-config", f"outname={state}"]
    busy = pause.busy_programs()
    if busy:
        say("warning: these compete with the games for the cores: " + ", ".join(busy))
    paused = pause.generator_paused(say) if pause_generator else contextlib.nullcontext()
    with paused, open(out_file, "a") as log:
        _play(cmd, log)
    text = _read(out_file)
    r = result.parse(text)  # the last result block is fastchess's running total, resumes included
    if result.parse(text.rsplit("--- resumed ---\n", 1)[-1]).interrupted:
        say(f"interrupted: the same command resumes from {state}")
    return r


def _play(cmd, log):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1, start_new_session=True)

    def stop(signum, frame):
        # fastchess saves its state when interrupted: let it, then resume later.
        proc.send_signal(signal.SIGINT)

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        for line in proc.stdout:
            log.write(line)
            log.flush()
            sys.stdout.write(line)
            sys.stdout.flush()
        proc.wait()
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode


def _read(path):
    with open(path) as f:
        return f.read()


def _planned(args):
    """Games the command asks for (`-rounds N` pairs with `-repeat`)."""
    return 2 * int(args[args.index("-rounds") + 1]) if "-rounds" in args else None


def _finished(out_file, planned):
    """All the games played, or an SPRT that stopped (fastchess prints the same end either way)."""
    if not os.path.exists(out_file):
        return False
    r = result.parse(_read(out_file))
    return r.finished or (planned is not None and r.games >= planned)
