"""Games that measure need idle cores: the data generator (scripts/datagen-bg, its process group in
$BRUDNO_DATA/datagen.pid) is stopped while they run and continued after, also if they fail."""
import contextlib
import os
import signal


def running_group(path=None):
    """The generator's process group if the pid file names one that is alive, else None."""
    data = os.environ.get("BRUDNO_DATA") or os.path.expanduser("~/brudno-data")
    try:
        with open(path or os.path.join(data, "datagen.pid")) as f:
            pgid = int(f.read().split()[0])
        os.killpg(pgid, 0)
        return pgid
    except (OSError, ValueError, IndexError):
        return None


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
