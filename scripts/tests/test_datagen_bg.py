"""scripts/datagen-bg with a fake binary (a shell script that records its arguments and
sleeps): the pinned copy, the pid file that match scripts read, SIGCONT instead of a second
generator, status and stop. Each run takes well under a second."""
import os
import signal
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "datagen-bg")

# One process that never forks, so that signals find it in a plain state at once; its name
# keeps "datagen", by which the script knows its generator from a reused pid.
FAKE = """#!/bin/bash
echo "$0 $*" > "$BRUDNO_DATA/args"
exec -a "fake-brudno datagen" sleep 30
"""


def read(path):
    with open(path) as f:
        return f.read()


def wait_state(pid, stopped):
    """Waits until the process is stopped (or running): a signal takes effect a little later."""
    for _ in range(500):
        state = read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[0]
        if (state == "T") == stopped:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} is not {'stopped' if stopped else 'running'}")


class DatagenBgTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.data = os.path.join(self.tmp.name, "data")
        self.fake = os.path.join(self.tmp.name, "brudno")
        with open(self.fake, "w") as f:
            f.write(FAKE)
        os.chmod(self.fake, 0o755)
        self.pidfile = os.path.join(self.data, "datagen.pid")

    def tearDown(self):
        # Whatever a failed test left running goes.
        if os.path.exists(self.pidfile):
            try:
                os.killpg(int(read(self.pidfile)), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        self.tmp.cleanup()

    def run_bg(self, *args):
        env = dict(os.environ, BRUDNO_DATA=self.data)
        return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env,
                              timeout=20)

    def wait_for(self, path):
        # The generator runs at the lowest priority: on a busy machine it starts late.
        for _ in range(500):
            if os.path.exists(path) and read(path):
                return read(path)
            time.sleep(0.02)
        self.fail(f"no {path}")

    def test_start_status_continue_and_stop(self):
        r = self.run_bg("--bin", self.fake, "--name", "g1", "--seed", "7", "--nodes", "2500",
                        "--", "--verify-factor", "10")
        self.assertEqual(r.returncode, 0, r.stderr)
        pgid = int(read(self.pidfile))
        self.assertEqual(os.getpgid(pgid), pgid)
        args = self.wait_for(os.path.join(self.data, "args")).split()
        pinned = [f for f in os.listdir(os.path.join(self.data, "bin"))
                  if not f.endswith(".sha256")]
        self.assertEqual(len(pinned), 1)
        self.assertEqual(args, [os.path.join(self.data, "bin", pinned[0]), "datagen", "--out", os.path.join(self.data, "g1"), "--threads",
                                "2", "--seed", "7", "--nodes", "2500", "--verify-factor", "10"])
        # The binary that runs is a copy named by its SHA-256, which is recorded.
        sha = subprocess.run(["sha256sum", self.fake], capture_output=True, text=True)
        digest = sha.stdout.split()[0]
        self.assertEqual(pinned[0], "brudno-" + digest[:16])
        with open(os.path.join(self.data, "bin", pinned[0] + ".sha256")) as f:
            self.assertTrue(f.read().startswith(digest))
        r = self.run_bg("status")
        self.assertEqual(r.returncode, 0)
        self.assertIn(f"running, process group {pgid}", r.stdout)
        # Stopped (as a match does): a second start continues it and starts nothing.
        os.killpg(pgid, signal.SIGSTOP)
        wait_state(pgid, stopped=True)
        self.assertIn("stopped", self.run_bg("status").stdout)
        r = self.run_bg("--bin", self.fake, "--name", "g2", "--seed", "8")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("sent it SIGCONT", r.stdout)
        wait_state(pgid, stopped=False)
        self.assertEqual(int(read(self.pidfile)), pgid)
        self.assertIn("running", self.run_bg("status").stdout)
        self.assertFalse(os.path.exists(os.path.join(self.data, "g2.log")))
        # Stop works on a stopped group too.
        os.killpg(pgid, signal.SIGSTOP)
        wait_state(pgid, stopped=True)
        r = self.run_bg("stop")
        self.assertEqual(r.returncode, 0, r.stderr)
        with self.assertRaises(ProcessLookupError):
            os.killpg(pgid, 0)
        self.assertFalse(os.path.exists(self.pidfile))
        self.assertEqual(self.run_bg("status").returncode, 1)

    def test_bad_arguments_exit_2_and_start_nothing(self):
        for args in (["--name", "g"], ["--name", "g", "--seed", "x", "--bin", self.fake],
                     ["--name", "../g", "--seed", "1", "--bin", self.fake],
                     ["--name", "g", "--seed", "1", "--bin", "/nonexistent"],
                     ["--bogus"], ["--seed"], ["status", "extra"]):
            r = self.run_bg(*args)
            self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
        self.assertFalse(os.path.exists(self.pidfile))
        for args in (["--help"], ["start", "--help"]):
            r = self.run_bg(*args)
            self.assertEqual(r.returncode, 0, args)
            self.assertIn("datagen.pid", r.stderr)

    def test_a_dead_group_in_the_pid_file_is_replaced(self):
        os.makedirs(self.data)
        dead = subprocess.Popen(["true"])
        dead.wait()
        with open(self.pidfile, "w") as f:
            f.write(f"{dead.pid}\n")
        r = self.run_bg("--bin", self.fake, "--name", "g", "--seed", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        pgid = int(read(self.pidfile))
        self.assertNotEqual(pgid, dead.pid)
        self.assertEqual(self.run_bg("stop").returncode, 0)


if __name__ == "__main__":
    unittest.main()
