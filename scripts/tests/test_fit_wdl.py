"""scripts/fit-wdl: the model's probabilities, the PGN reading and the fit itself."""
import importlib.machinery
import importlib.util
import io
import os
import random
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(os.path.dirname(HERE), "fit-wdl")
loader = importlib.machinery.SourceFileLoader("fit_wdl", PATH)
spec = importlib.util.spec_from_loader("fit_wdl", loader)
fit_wdl = importlib.util.module_from_spec(spec)
loader.exec_module(fit_wdl)


class ModelTest(unittest.TestCase):
    def test_probabilities_are_symmetric_and_sum_to_one(self):
        p = [120.0, 30.0, 60.0, 10.0]
        for s in (-400, -50, 0, 80, 300):
            w, d, l = fit_wdl.probs(p, s, 0.5)
            self.assertAlmostEqual(w + d + l, 1.0)
            w2, d2, l2 = fit_wdl.probs(p, -s, 0.5)
            self.assertAlmostEqual(w, l2)
            self.assertAlmostEqual(d, d2)

    def test_the_fit_recovers_the_parameters_that_made_the_data(self):
        truth = [140.0, -40.0, 70.0, 0.0]
        rng = random.Random(5)
        data = []
        for _ in range(3000):
            s, x = rng.randint(-500, 500), rng.random()
            w, d, _ = fit_wdl.probs(truth, s, x)
            r = rng.random()
            data.append((s, x, 1 if r < w else 0 if r < w + d else -1))
        p = fit_wdl.fit(data, [100.0, 0.0, 50.0, 0.0], 300, 2.0)
        self.assertLess(fit_wdl.loss(p, data), fit_wdl.loss([100.0, 0.0, 50.0, 0.0], data))
        self.assertAlmostEqual(p[0] + p[1] * 0.5, truth[0] + truth[1] * 0.5, delta=15)
        self.assertAlmostEqual(p[2] + p[3] * 0.5, truth[2], delta=12)

    def test_reads_the_players_scores_with_the_result_from_its_side(self):
        pgn = ('[White "Other"]\n[Black "Brudno dev"]\n[Result "0-1"]\n\n'
               '1. e4 { +0.30/10 0.1s } e5 { -0.25/12 0.1s } 2. Nf3 { +0.20/10 0.1s } '
               'Nc6 { #3/20 0.1s } 3. Bb5 { book } a6 { +M3/9 0.1s } 0-1\n')
        with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as f:
            f.write(pgn)
        try:
            got = fit_wdl.samples([f.name], "brudno", 0)
        finally:
            os.unlink(f.name)
        # Only Black's plain scores: -0.25 (e5); the mate scores are left out.
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][0], -25)
        self.assertEqual(got[0][2], 1)
        self.assertAlmostEqual(got[0][1], 78 / 78)


if __name__ == "__main__":
    unittest.main()
