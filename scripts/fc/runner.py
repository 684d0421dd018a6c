"""Runs fastchess in a match folder, its command kept beside its state, so that a rerun resumes."""
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys

from . import pause, result


def read(path):
    with open(path) as f:
        return f.read()


def run(out_dir, args, say=print, pause_generator=True):
    """Plays (or resumes, or only reads back) the match of fastchess arguments `args`; its Result."""
    os.makedirs(out_dir, exist_ok=True)
    state, out_file, command_file = (os.path.join(out_dir, n) for n in ("config.json", "fastchess.out", "command.txt"))
    text = shlex.join(args) + "\n"
    previous = read(command_file) if os.path.exists(command_file) else None
    if previous not in (None, text):
        raise SystemExit(f"{out_dir} holds another match (its command.txt differs): choose another --out or remove it")
    if previous and os.path.exists(out_file):
        r = result.parse(read(out_file))
        if r.finished or r.games >= 2 * int(args[args.index("-rounds") + 1]):
            say(f"{out_dir}: this match has already finished")
            return r
    prog = os.environ.get("FASTCHESS") or shutil.which("fastchess")
    if not prog:
        raise SystemExit("fastchess not found: build it with ../shared/tools/fastchess/build.sh (or set FASTCHESS)")
    if previous and os.path.exists(state):
        say(f"{out_dir}: resuming from fastchess's saved state")
        cmd, mark = [prog, "-config", f"file={state}"], "--- resumed ---\n"
    else:
        with open(command_file, "w") as f:
            f.write(text)
        cmd, mark = [prog, *args, "-config", f"outname={state}"], ""
    with pause.generator_paused(say) if pause_generator else contextlib.nullcontext(), open(out_file, "a") as log:
        log.write(mark)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        # fastchess saves its state when interrupted: let it, then resume later.
        old = {s: signal.signal(s, lambda *_: proc.send_signal(signal.SIGINT))
               for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
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
            proc.stdout.close()
    text = read(out_file)
    r = result.parse(text)  # the last result block is fastchess's running total, resumes included
    r.interrupted = result.parse(text.rsplit("--- resumed ---\n", 1)[-1]).interrupted  # this run's
    if r.interrupted:
        say(f"interrupted: the same command resumes from {state}")
    return r
