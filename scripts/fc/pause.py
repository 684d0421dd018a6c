"""Games that measure need idle cores: the data generator (scripts/datagen-bg, its process group in
$BRUDNO_DATA/datagen.pid) is stopped while they run and continued after, also if they fail; of
overlapping matches, the last to end continues it."""
import contextlib
import os
import signal


def pid_file(path=None):
    """`path`, or the generator's pid file in $BRUDNO_DATA."""
    data = os.environ.get("BRUDNO_DATA") or os.path.expanduser("~/brudno-data")
    return path or os.path.join(data, "datagen.pid")


def running_group(path=None):
    """The generator's process group if the pid file names one that is alive, else None."""
    try:
        with open(pid_file(path)) as f:
            pgid = int(f.read().split()[0])
        os.killpg(pgid, 0)
        return pgid
    except (OSError, ValueError, IndexError):
        return None


def others_playing(marks):
    """Whether another live match has the generator paused (its mark names its pid)."""
    for m in os.listdir(marks):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(m.removeprefix("paused-by.")), 0)
            return True
    return False


@contextlib.contextmanager
def generator_paused(say=print, path=None):
    pgid = running_group(path)
    if pgid is None:
        yield None
        return
    # Matches may overlap: each leaves a mark, and the last one out continues the generator.
    marks = os.path.join(os.path.dirname(pid_file(path)), "paused-by")
    os.makedirs(marks, exist_ok=True)
    mine = os.path.join(marks, f"paused-by.{os.getpid()}")
    open(mine, "w").close()
    os.killpg(pgid, signal.SIGSTOP)
    say(f"data generator (process group {pgid}) paused while the games run")
    try:
        yield pgid
    finally:
        os.remove(mine)
        if others_playing(marks):
            say(f"data generator (process group {pgid}) stays paused: another match plays")
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGCONT)
            say(f"data generator (process group {pgid}) continued")
