"""scripts/datagen-bg with a fake binary (a shell script that records its arguments and sleeps):
the pinned copy, the pid file the match scripts read, SIGCONT instead of a second generator,
status and stop, bad command lines."""
import os
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "datagen-bg")
# One process that never forks, so that signals find it in a plain state at once; its name
# keeps "datagen", by which the script knows its generator from a reused pid.
FAKE = '#!/bin/bash\necho "$0 $*" > "$BRUDNO_DATA/args"\nexec -a "fake-brudno datagen" sleep 30\n'


def wait_until(check):
    for _ in range(500):     # a signal takes effect a little later; the generator starts late
        if check():
            return True
        time.sleep(0.01)
    return False


class DatagenBgTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.data, self.fake = os.path.join(tmp.name, "data"), os.path.join(tmp.name, "brudno")
        self.pidfile = os.path.join(self.data, "datagen.pid")
        with open(self.fake, "w") as f:
            f.write(FAKE)
        os.chmod(self.fake, 0o755)
        os.makedirs(self.data)

    def run_bg(self, *args):
        env = dict(os.environ, BRUDNO_DATA=self.data)
        return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env, timeout=20)

    def test_start_status_continue_and_stop(self):
        dead = subprocess.Popen(["true"])
        dead.wait()
        with open(self.pidfile, "w") as f:     # a dead group in the pid file is replaced
            f.write(f"{dead.pid}\n")
        r = self.run_bg("--bin", self.fake, "--name", "g1", "--seed", "7", "--nodes", "2500",
                        "--", "--verify-factor", "9")
        self.assertEqual(r.returncode, 0, r.stderr)
        pgid = int(Path(self.pidfile).read_text())
        self.addCleanup(self.run_bg, "stop")
        self.assertEqual(os.getpgid(pgid), pgid)
        args_file = os.path.join(self.data, "args")
        self.assertTrue(wait_until(lambda: os.path.exists(args_file) and Path(args_file).read_text()))
        # The binary that runs is a copy named by its SHA-256, which the log records.
        digest = subprocess.run(["sha256sum", self.fake], capture_output=True, text=True).stdout.split()[0]
        pinned = os.path.join(self.data, "bin", "brudno-" + digest[:16])
        self.assertIn(f"{pinned} (sha256 {digest})", Path(os.path.join(self.data, "g1.log")).read_text())
        self.assertEqual(Path(args_file).read_text().split(), [pinned, "datagen", "--out", f"{self.data}/g1",
                         "--threads", "2", "--seed", "7", "--nodes", "2500", "--verify-factor", "9"])
        stopped = lambda: Path(f"/proc/{pgid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"  # noqa: E731
        for state in ("running", "stopped"):    # as a match leaves it; a second start continues it, starts nothing
            self.assertIn(f"{state}, process group {pgid}", self.run_bg("status").stdout)
            os.killpg(pgid, signal.SIGSTOP)
            self.assertTrue(wait_until(stopped))
        self.assertIn("sent it SIGCONT", self.run_bg("--bin", self.fake, "--name", "g2", "--seed", "8").stdout)
        self.assertTrue(wait_until(lambda: not stopped()))
        self.assertEqual(int(Path(self.pidfile).read_text()), pgid)
        self.assertFalse(os.path.exists(os.path.join(self.data, "g2.log")))
        os.killpg(pgid, signal.SIGSTOP)      # stop works on a stopped group too
        self.assertTrue(wait_until(stopped))
        self.assertEqual(self.run_bg("stop").returncode, 0)
        self.assertRaises(ProcessLookupError, os.killpg, pgid, 0)
        self.assertFalse(os.path.exists(self.pidfile))
        self.assertEqual(self.run_bg("status").returncode, 1)

    def test_bad_arguments_exit_2_and_start_nothing(self):
        for args in (["--name", "g"], ["--name", "g", "--seed", "x", "--bin", self.fake], ["--bogus"], ["--seed"],
                     ["--name", "../g", "--seed", "1", "--bin", self.fake], ["status", "extra"],
                     ["--name", "g", "--seed", "1", "--bin", "/nonexistent"]):
            self.assertEqual(self.run_bg(*args).returncode, 2, args)
        self.assertFalse(os.path.exists(self.pidfile))
        r = self.run_bg("start", "--help")
        self.assertEqual((r.returncode, "datagen.pid" in r.stderr), (0, True))


if __name__ == "__main__":
    unittest.main()
