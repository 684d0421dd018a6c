"""Elo, confidence interval, LOS and SPRT formulas against known values."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from matchlib import stats  # noqa: E402


class EloTest(unittest.TestCase):
    def test_expected_score(self):
        self.assertAlmostEqual(stats.expected_score(0), 0.5)
        # 400 points: odds 10:1
        self.assertAlmostEqual(stats.expected_score(400), 10 / 11)
        self.assertAlmostEqual(stats.expected_score(-400), 1 / 11)

    def test_elo_from_score(self):
        self.assertAlmostEqual(stats.elo_from_score(0.5), 0.0)
        self.assertAlmostEqual(stats.elo_from_score(0.75), 400 * math.log10(3), places=9)  # 190.85
        self.assertAlmostEqual(stats.elo_from_score(10 / 11), 400.0, places=9)
        self.assertEqual(stats.elo_from_score(1.0), math.inf)
        self.assertEqual(stats.elo_from_score(0.0), -math.inf)
        for elo in (-350, -20, 0, 5, 123.4):
            self.assertAlmostEqual(stats.elo_from_score(stats.expected_score(elo)), elo, places=9)

    def test_cutechess_reference_results(self):
        # (wins, losses, draws) -> Elo, +/- margin and LOS as printed by cutechess-cli
        # for three 1000-game matches (values rounded to 0.1 as it prints them).
        cases = [((449, 276, 275), 60.7, 18.5, 100.0),
                 ((382, 320, 298), 21.6, 18.1, 99.0),
                 ((435, 293, 272), 49.7, 18.5, 100.0)]
        for (w, l, d), elo, margin, los in cases:
            e, m = stats.trinomial_elo(w, d, l)
            self.assertAlmostEqual(e, elo, delta=0.051)
            self.assertAlmostEqual(m, margin, delta=0.051)
            self.assertAlmostEqual(100 * stats.los(w, l), los, delta=0.051)

    def test_interval_hand_computed(self):
        # 10 wins, 10 losses, 0 draws: mean .5, variance .25, stderr sqrt(.25/20)
        e, m = stats.trinomial_elo(10, 0, 10)
        se = math.sqrt(0.25 / 20)
        want = (stats.elo_from_score(0.5 + stats.Z95 * se) - stats.elo_from_score(0.5 - stats.Z95 * se)) / 2
        self.assertEqual(e, 0.0)
        self.assertAlmostEqual(m, want, places=9)

    def test_pentanomial_interval_is_narrower_with_correlated_pairs(self):
        # Pairs that split 1-1 (WL) are common when openings are biased: the pentanomial view
        # sees less variance than the trinomial view of the same games.
        penta = [5, 20, 50, 20, 5]      # 100 pairs
        # the same games: LL->2L, LD->L+D, WL->W+L (all 50 DD+WL taken as WL), WD->W+D, WW->2W
        wins, draws, losses = 50 + 20 + 10, 20 + 20, 10 + 20 + 50
        _, m_tri = stats.trinomial_elo(wins, draws, losses)
        _, m_penta = stats.pentanomial_elo(penta)
        self.assertLess(m_penta, m_tri)

    def test_los(self):
        self.assertAlmostEqual(stats.los(10, 10), 0.5)
        self.assertAlmostEqual(stats.los(0, 0), 0.5)
        self.assertGreater(stats.los(60, 40), 0.97)


class SprtTest(unittest.TestCase):
    def test_bounds(self):
        lo, hi = stats.sprt_bounds(0.05, 0.05)
        self.assertAlmostEqual(lo, -2.944438979, places=8)
        self.assertAlmostEqual(hi, 2.944438979, places=8)
        lo, hi = stats.sprt_bounds(0.05, 0.10)
        self.assertAlmostEqual(lo, math.log(0.10 / 0.95))
        self.assertAlmostEqual(hi, math.log(0.90 / 0.05))

    def test_no_draws_equals_classic_binomial_sprt(self):
        # With only wins and losses the constrained maximum likelihood is exact: the GSPRT is
        # Wald's binomial SPRT, LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0)).
        for w, l, e0, e1 in ((60, 40, 0, 10), (500, 520, -5, 5), (7, 3, 0, 50)):
            s0, s1 = stats.expected_score(e0), stats.expected_score(e1)
            want = w * math.log(s1 / s0) + l * math.log((1 - s1) / (1 - s0))
            got = stats.llr_exact(stats.TRI_OUTCOMES, (l, 0, w), e0, e1)
            # the regularizing pseudo-count of 1e-3 draws moves the value by ~1e-4
            self.assertAlmostEqual(got, want, delta=2e-3 * max(1, abs(want)))

    def test_hand_computed_trinomial(self):
        # 40 wins, 30 draws, 30 losses, elo0=0, elo1=50. Under H0 (mean .5) the MLE distribution is
        # p_j = q_j / (1 + lam (a_j - .5)) with lam solving sum q_j (a_j-.5)/(1+lam(a_j-.5)) = 0:
        # .4*.5/(1+.5 lam) - .3*.5/(1-.5 lam) = 0  ->  lam = 2/7.
        q = {1.0: 0.4, 0.5: 0.3, 0.0: 0.3}
        lam0 = 2 / 7
        p0 = {a: qa / (1 + lam0 * (a - 0.5)) for a, qa in q.items()}
        self.assertAlmostEqual(sum(p0.values()), 1.0)
        s1 = stats.expected_score(50)
        # H1 multiplier by a fine bisection, independent of the code under test
        lo, hi = -1 / (1 - s1) + 1e-12, 1 / s1 - 1e-12
        for _ in range(300):
            mid = (lo + hi) / 2
            g = sum(qa * (a - s1) / (1 + mid * (a - s1)) for a, qa in q.items())
            lo, hi = (mid, hi) if g > 0 else (lo, mid)
        p1 = {a: qa / (1 + lo * (a - s1)) for a, qa in q.items()}
        want = 100 * sum(qa * math.log(p1[a] / p0[a]) for a, qa in q.items())
        self.assertAlmostEqual(stats.llr_exact(stats.TRI_OUTCOMES, (30, 30, 40), 0, 50), want, places=6)

    def test_hand_computed_approximation(self):
        # 40 W, 30 D, 30 L: mean .55, variance .4*.45^2 + .3*.05^2 + .3*.55^2 = .1725;
        # s0 = .5, s1 = 1/(1+10^(-5/400)) = .5071950817...; LLR = N (s1-s0)(2 mean-s0-s1)/(2 var)
        s1 = 1 / (1 + 10 ** (-5 / 400))
        self.assertAlmostEqual(s1, 0.50719508, places=8)
        want = 100 * (s1 - 0.5) * (1.1 - 0.5 - s1) / (2 * 0.1725)
        self.assertAlmostEqual(want, 0.19355, places=5)
        got = stats.llr_normal_approx(stats.TRI_OUTCOMES, (30, 30, 40), 0, 5)
        self.assertAlmostEqual(got, want, delta=1e-3)
        # the exact GSPRT the runner uses is within 2% of it here
        self.assertAlmostEqual(stats.llr_trinomial(40, 30, 30, 0, 5), want, delta=0.02 * want)

    def test_lopsided_small_samples_do_not_decide(self):
        # 2 pairs won 2-0: no verdict yet (the normal approximation would already say H1)
        self.assertIsNone(stats.sprt_verdict(stats.llr_pentanomial([0, 0, 0, 0, 2], 0, 5), 0.05, 0.05))
        self.assertGreater(stats.llr_normal_approx(stats.PENTA_OUTCOMES, [0, 0, 0, 0, 2], 0, 5), 2.95)
        # all pairs won: the best H0 fit is half WW, half LL, so the LLR per pair is ln(s1/s0)
        n = 50
        want = n * math.log(stats.expected_score(5) / 0.5)
        self.assertAlmostEqual(stats.llr_pentanomial([0, 0, 0, 0, n], 0, 5), want, delta=0.01 * want)

    def test_exact_close_to_normal_approximation(self):
        for counts, e0, e1 in (([300, 400, 330], 0, 5), ([1000, 1500, 1100], 0, 5), ([120, 250, 110], -5, 0)):
            exact = stats.llr_exact(stats.TRI_OUTCOMES, counts, e0, e1)
            approx = stats.llr_normal_approx(stats.TRI_OUTCOMES, counts, e0, e1)
            self.assertAlmostEqual(exact, approx, delta=0.02 * max(1.0, abs(exact)))
        penta = [40, 250, 500, 260, 50]
        exact = stats.llr_pentanomial(penta, 0, 5)
        approx = stats.llr_normal_approx(stats.PENTA_OUTCOMES, penta, 0, 5)
        self.assertAlmostEqual(exact, approx, delta=0.02 * max(1.0, abs(exact)))

    def test_signs_and_verdicts(self):
        self.assertEqual(stats.llr_trinomial(0, 0, 0, 0, 5), 0.0)
        self.assertEqual(stats.llr_pentanomial([0, 0, 0, 0, 0], 0, 5), 0.0)
        # symmetric results sit between elo0=-5 and elo1=5: LLR 0
        self.assertAlmostEqual(stats.llr_pentanomial([10, 5, 2, 5, 10], -5, 5), 0.0, places=9)
        strong = stats.llr_pentanomial([1, 10, 30, 40, 20], 0, 5)
        weak = stats.llr_pentanomial([20, 40, 30, 10, 1], 0, 5)
        self.assertGreater(strong, 0)
        self.assertLess(weak, 0)
        self.assertEqual(stats.sprt_verdict(3.0, 0.05, 0.05), "H1")
        self.assertEqual(stats.sprt_verdict(-3.0, 0.05, 0.05), "H0")
        self.assertIsNone(stats.sprt_verdict(1.0, 0.05, 0.05))
        # a crushing result must cross the upper bound
        self.assertEqual(stats.sprt_verdict(stats.llr_pentanomial([2, 20, 60, 80, 40], 0, 10), 0.05, 0.05), "H1")

    def test_all_wins_is_finite(self):
        llr = stats.llr_trinomial(20, 0, 0, 0, 5)
        self.assertTrue(math.isfinite(llr))
        self.assertGreater(llr, 0)

    def test_pair_index(self):
        self.assertEqual(stats.pair_index(0, 0), 0)
        self.assertEqual(stats.pair_index(0.5, 0), 1)
        self.assertEqual(stats.pair_index(1, 0), 2)
        self.assertEqual(stats.pair_index(0.5, 0.5), 2)
        self.assertEqual(stats.pair_index(1, 0.5), 3)
        self.assertEqual(stats.pair_index(1, 1), 4)


class PerformanceTest(unittest.TestCase):
    def test_even_score_against_one_opponent(self):
        r, m = stats.performance([(2000, 20, 40)])
        self.assertAlmostEqual(r, 2000, places=3)
        # Fisher information: 40 * .25 games -> se = 1 / (ln10/400 * sqrt(10))
        self.assertAlmostEqual(m, stats.Z95 * 400 / (math.log(10) * math.sqrt(10)), places=3)

    def test_75_percent(self):
        r, _ = stats.performance([(1500, 30, 40)])
        self.assertAlmostEqual(r, 1500 + 400 * math.log10(3), places=3)

    def test_two_opponents(self):
        # 50% against 1800 and 2200 with equal games: 2000 by symmetry
        r, _ = stats.performance([(1800, 10, 20), (2200, 10, 20)])
        self.assertAlmostEqual(r, 2000, places=3)

    def test_extremes(self):
        self.assertEqual(stats.performance([(1500, 0, 10)])[0], -math.inf)
        self.assertEqual(stats.performance([(1500, 10, 10)])[0], math.inf)
        self.assertIsNone(stats.performance([]))


if __name__ == "__main__":
    unittest.main()
