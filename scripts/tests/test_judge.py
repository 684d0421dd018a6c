"""The judge's watch on its own pauses (matchlib/judge.py)."""
import gc
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from matchlib import judge                                      # noqa: E402


class PauseWatchTest(unittest.TestCase):
    def test_a_garbage_collection_is_seen_as_a_pause(self):
        # Enough objects in reference cycles that a full collection holds every thread for
        # 20 ms or more (300,000 do here; a faster machine gets more); the watch must see it,
        # and place it in time.
        junk = []
        while len(junk) < 5_000_000:
            for _ in range(300_000):
                a = []
                a.append(a)
                junk.append(a)
            t = time.monotonic()
            gc.collect()
            if time.monotonic() - t >= 0.02:
                break
        watch = judge.PauseWatch().start()
        try:
            time.sleep(0.05)
            t0 = time.monotonic()
            gc.collect()
            t1 = time.monotonic()
            time.sleep(0.05)
            took = t1 - t0
            self.assertGreater(took, 0.01, "the collection was too quick to test with")
            self.assertGreaterEqual(watch.longest_gc, 0.8 * took)
            # The watch thread asked to sleep 5 ms just before; the rest of the collection
            # kept it away.
            self.assertGreaterEqual(watch.longest, took - 0.006)
            self.assertGreaterEqual(judge.pause_between(t0, t1), took - 0.006)
            self.assertEqual(judge.pause_between(t1 + 1.0, t1 + 2.0), 0.0)
        finally:
            watch.stop()
            del junk
        self.assertIsNone(judge.pause_between(t0, t1))     # no watch runs now
        self.assertIn("longest garbage collection", watch.text())


if __name__ == "__main__":
    unittest.main()
