"""scripts/soak's pure logic: the batch plan and the timing bookkeeping (no games played)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from script_loader import load_script                            # noqa: E402

soak = load_script("soak", "soak_script")
OPPS = list(soak.OPPONENTS)


class PlanTest(unittest.TestCase):
    def test_deterministic_for_a_seed(self):
        a = [b.key() for b in soak.plan(1000, 20, 42, OPPS)]
        self.assertEqual(a, [b.key() for b in soak.plan(1000, 20, 42, OPPS)])
        self.assertNotEqual(a, [b.key() for b in soak.plan(1000, 20, 43, OPPS)])

    def test_covers_everything(self):
        for seed in range(20):
            bs = soak.plan(1000, 20, seed, OPPS)
            self.assertEqual(len(bs), 50)
            self.assertGreaterEqual(sum(b.games for b in bs), 1000)
            self.assertEqual({b.tc for b in bs}, set(soak.TIME_CONTROLS))
            self.assertEqual({b.ponder for b in bs}, {True, False})
            self.assertEqual({b.book for b in bs}, {True, False})
            self.assertEqual({b.opponent for b in bs}, set(OPPS))
            self.assertTrue({b.threads for b in bs} <= {1, 2, 3, 4})
            self.assertTrue({b.hash for b in bs} <= set(soak.HASHES))
        # opponents × time controls batches pair every opponent with every time control
        bs = soak.plan(20 * len(OPPS) * len(soak.TIME_CONTROLS), 20, 1, OPPS)
        self.assertEqual(len({(b.opponent, b.tc) for b in bs}), len(OPPS) * len(soak.TIME_CONTROLS))

    def test_quick_plan(self):
        for seed in range(50):
            bs = soak.plan(12, 2, seed, OPPS)
            self.assertEqual(len(bs), 6)
            self.assertEqual({b.tc for b in bs}, set(soak.TIME_CONTROLS))
            self.assertEqual({b.ponder for b in bs}, {True, False})
        self.assertEqual(soak.plan(5, 3, 0, ["self"])[0].games, 4)   # batches are even
        self.assertEqual(len({(b.opponent, b.tc) for b in soak.plan(360, 20, 0, ["a", "b", "c"])}), 18)


class OpponentTcTest(unittest.TestCase):
    def test_engines_without_go_nodes_get_a_movetime(self):
        self.assertEqual(soak.opponent_tc("toga2", "nodes=20000"), "st=0.02")
        self.assertEqual(soak.opponent_tc("toga2", "1+0.01"), "1+0.01")
        self.assertEqual(soak.opponent_tc("sf1500", "nodes=20000"), "nodes=20000")

    def test_xboard_engines_get_whole_second_clocks(self):
        for tc in ("0.3+0.05", "10/0.5+0.01", "st=0.05", "nodes=20000"):
            self.assertEqual(soak.opponent_tc("phalanx", tc), soak.XBOARD_TC)
        self.assertEqual(soak.opponent_tc("fairymax", "1+0.05"), "1+0.05")


class JournalTest(unittest.TestCase):
    def record(self, games, worst_ms, rss, timeloss=0):
        bs = soak.new_state(0)
        bs["games"] = games
        bs["problems"] = {"Brudno": {"timeloss": timeloss, "crash": 0}}
        bs["engine_games"] = {"Brudno": games}
        bs["timing"].add_game("1+0.01", "clock", [(0.5, 0.5 - worst_ms / 1000)], "g")
        bs["rss"] = {16: {"first": rss, "max": rss, "last": rss, "n": games}}
        return soak.to_json(bs)

    def test_resume_skips_finished_batches_and_totals_agree(self):
        import json
        import tempfile
        bs = soak.plan(8, 2, 5, ["self"])
        recs = [self.record(2, 40 - i, 1000 + i, timeloss=int(i == 2)) for i in range(len(bs))]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "j.jsonl")
            j = soak.Journal(path, {"seed": 5})
            for b, rec in zip(bs[:3], recs[:3]):
                j.add(b.key(), rec)
            with open(path, "a") as f:
                f.write('{"batch": [3, "se')           # a line cut off by a kill
            j = soak.Journal(path, {"seed": 5})
            self.assertEqual([j.done(b.key()) is not None for b in bs], [True, True, True, False])
            j.add(bs[3].key(), recs[3])
            with open(path) as f:
                self.assertEqual([json.loads(line)["key"][0] for line in list(f)[1:]], [0, 1, 2, 3])
            with self.assertRaises(SystemExit):
                soak.Journal(path, {"seed": 6})
            cut = os.path.join(d, "cut.jsonl")
            with open(cut, "w") as f:
                f.write('{"plan": {"se')                 # killed while writing the plan line
            self.assertIsNone(soak.Journal(cut, {"seed": 5}).done(bs[0].key()))
            with open(cut) as f:
                self.assertEqual(json.loads(f.readline()), {"plan": {"seed": 5}})
        state = soak.new_state(8)
        for rec in recs:
            soak.merge(state, rec)
        self.assertEqual(state["games"], 8)
        self.assertEqual(state["problems"]["Brudno"]["timeloss"], 1)
        self.assertAlmostEqual(state["timing"].worst["1+0.01"][0], 37)
        self.assertEqual(state["timing"].games["1+0.01"], 4)
        self.assertEqual(state["rss"][16], {"first": 1000, "max": 1003, "last": 1003, "n": 8})

    def test_the_most_growth_within_a_process_is_kept(self):
        state = soak.new_state(6)
        for growth in (120, 300, -50):
            rec = self.record(2, 40, 1000)
            rec["rss"]["16"].update(growth=growth, growth_games=10)
            soak.merge(state, rec)
        self.assertEqual(state["rss"][16]["growth"], 300)
        state = soak.new_state(2)
        soak.merge(state, self.record(2, 40, 1000))      # one game a process: no growth known
        self.assertNotIn("growth", state["rss"][16])


class ConcurrencyTest(unittest.TestCase):
    def test_games_at_a_time_fit_the_cores_unless_oversubscribing(self):
        fit = [soak.batch_concurrency(2, t, False, cores=2) for t in (1, 2, 3, 4)]
        self.assertEqual(fit, [2, 1, 1, 1])
        self.assertEqual([soak.batch_concurrency(2, t, True, cores=2) for t in (1, 4)], [2, 2])
        self.assertEqual(soak.batch_concurrency(3, 2, False, cores=8), 3)
        self.assertEqual(soak.batch_concurrency(1, 1, False, cores=8), 1)


class TimingTest(unittest.TestCase):
    def test_worst_values(self):
        t = soak.Timing()
        t.add_game("st=0.05", "st", [(0.05, 0.04), (0.05, 0.08)], "g1")
        t.add_game("1+0.01", "clock", [(1.0, 0.1), (0.5, 0.48), (0.3, 0.1)], "g2")
        t.add_game("1+0.01", "clock", [(0.02, 0.05)], "g3")
        t.add_game("nodes=20000", "nodes", [(None, 0.2), (None, 0.05)], "g4")
        self.assertAlmostEqual(t.worst["st=0.05"][0], 30, places=3)
        self.assertAlmostEqual(t.worst["1+0.01"][0], -30, places=3)
        self.assertEqual(t.worst["1+0.01"][1], "g3")
        self.assertAlmostEqual(t.worst["nodes=20000"][0], 200, places=3)
        self.assertEqual(t.games["1+0.01"], 2)

    def test_a_move_over_its_time_is_named_with_its_process_and_time(self):
        import threading

        class Reply:
            elapsed = 0.06

        class Inner:
            proc = None

            def new_game(self, tc=None):
                return None

            def think(self, *args, **kwargs):
                return Reply()

        local = threading.local()
        probe = soak.Probe(Inner(), local)
        probe.new_game()
        probe.think("startpos", [], "", 0.05, 0)     # 60 ms of 50: late
        probe.think("startpos", [], "", 0.1, 0)      # 60 ms of 100: in time
        probe.think("startpos", [], "", None, 0)     # untimed
        self.assertEqual(len(local.moves), 3)
        self.assertEqual(len(local.late), 1)
        move, elapsed, allowed, pid, at = local.late[0]
        self.assertEqual((move, elapsed, allowed, pid), (1, 0.06, 0.05, None))
        self.assertRegex(at, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")

    def test_vm_rss_of_self(self):
        self.assertGreater(soak.vm_rss_kb(os.getpid()), 0)
        self.assertIsNone(soak.vm_rss_kb(2 ** 22 + 12345))


if __name__ == "__main__":
    unittest.main()
