"""Games that measure need idle cores: the background data generator is stopped while they run.

`scripts/datagen-bg` records the generator's process group in `$BRUDNO_DATA/datagen.pid`
(default `~/brudno-data`). `generator_paused()` sends the group SIGSTOP on entry and SIGCONT on
the way out, also when the match fails or is interrupted; a wrapper killed outright (SIGKILL)
leaves it stopped, and `scripts/datagen-bg` continues it on its next start.
"""
import contextlib
import os
import signal


def pid_file():
    data = os.environ.get("BRUDNO_DATA") or os.path.join(os.path.expanduser("~"), "brudno-data")
    return os.path.join(data, "datagen.pid")


def running_group(path=None):
    """The generator's process group if the pid file names one that is alive, else None."""
    try:
        with open(path or pid_file()) as f:
            pgid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return None
    return pgid


@contextlib.contextmanager
def generator_paused(say=print, path=None):
    pgid = running_group(path)
    if pgid is None:
        yield None
        return
    os.killpg(pgid, signal.SIGSTOP)
    say(f"data generator (process group {pgid}) paused while the games run")
    try:
        yield pgid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGCONT)
        say(f"data generator (process group {pgid}) continued")


def busy_programs(names=("rustc", "cargo", "brudno-tools")):
    """Running programs (by name) that would compete with measured games for the cores."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        state = stat[stat.rfind(")") + 2:][:1]
        if comm in names and state != "T":
            found.append(f"{comm} ({pid})")
    return found
