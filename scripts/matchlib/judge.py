"""The judge's own delays. The runner times every move, and a move is timed late by as long as
the runner itself cannot run: while Python collects garbage every thread stands still, and a
`bestmove` that arrives then is stamped when the collection ends.

2026-12-05: the series ts1-c2 on 9386ee2 (1+0.01, two games at a time, 1000 games) lost one
game on time in each of two runs, at games 811 and 828. In the logged run the engine put at
most 196 ms between reading any `go` and writing its `bestmove`, with a hard limit of 55 ms
for the move in question, yet the runner saw 252 ms. The runner kept every game's PGN tree
(hundreds of objects in reference cycles a game) until the match ended; with 1000 games' trees
in memory a full collection walked 627,167 objects and took 150 ms. Hence the two rules here: a finished
game's tree is dropped once written (MatchRunner._finished), and what the runner holds when
play begins is frozen out of the collector's walks. `PauseWatch` measures what is left, so
that a late move can be set beside the judge's own worst pause."""
import collections
import gc
import threading
import time

_current = None   # the PauseWatch of the match being played, if any


def freeze_startup_objects():
    """Move everything alive now (modules, python-chess's tables, the openings) out of the
    collector's walks: a full collection then only walks what the match has made since."""
    gc.collect()
    gc.freeze()


class PauseWatch:
    """A thread that asks to sleep `tick` seconds at a time and records how much longer it was
    away: the longest stretch in which no runner thread could have stamped a line. Garbage
    collections are timed apart as well (their share of the pauses)."""

    def __init__(self, tick=0.005):
        self.tick = tick
        self.longest = 0.0          # seconds beyond the tick
        self.over_20ms = 0          # pauses longer than 20 ms
        self.longest_gc = 0.0       # seconds, the longest collection
        self._gc_start = None
        self.recent = collections.deque(maxlen=512)   # (start, end) of pauses over 2 ms
        self._stop = threading.Event()
        self._thread = None

    def _on_gc(self, phase, info):
        if phase == "start":
            self._gc_start = time.perf_counter()
        elif self._gc_start is not None:
            self.longest_gc = max(self.longest_gc, time.perf_counter() - self._gc_start)
            self._gc_start = None

    def _run(self):
        while not self._stop.is_set():
            t0 = time.monotonic()
            time.sleep(self.tick)
            now = time.monotonic()
            late = now - t0 - self.tick
            if late > 0.002:
                self.recent.append((now - late, now))
            if late > 0.020:
                self.over_20ms += 1
            if late > self.longest:
                self.longest = late

    def start(self):
        global _current
        _current = self
        gc.callbacks.append(self._on_gc)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        global _current
        if _current is self:
            _current = None
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        return self

    def text(self):
        return (f"longest pause {self.longest * 1000:.0f} ms ({self.over_20ms} over 20 ms), "
                f"longest garbage collection {self.longest_gc * 1000:.0f} ms")


def pause_between(t0, t1):
    """The judge's longest pause (seconds) that overlapped the stretch t0..t1 of time.monotonic(),
    or None when no watch runs. A pause still going on at t1 is not seen yet."""
    watch = _current
    if watch is None:
        return None
    return max((min(end, t1) - max(start, t0) for start, end in list(watch.recent)
                if end > t0 and start < t1), default=0.0)
