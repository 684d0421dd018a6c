"""Match statistics: Elo from a score, confidence intervals (trinomial and pentanomial),
likelihood of superiority, and the generalized SPRT (GSPRT) log-likelihood ratio for logistic Elo.

Conventions: a game scores 1, 1/2 or 0 for the first engine. A *pair* is the two games of one
opening with colours swapped; its score (0, 1/2, 1, 3/2, 2) is kept halved (0 .. 1) so that
per-game and per-pair means are the same number.
"""
import math

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


def expected_score(elo):
    """Expected score of a player `elo` logistic Elo points stronger than the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score):
    """Logistic Elo difference for a mean score in (0, 1); +/-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _mean_var(outcomes, counts):
    n = sum(counts)
    if n == 0:
        return 0.0, 0.0, 0
    mean = sum(a * c for a, c in zip(outcomes, counts)) / n
    var = sum(c * (a - mean) ** 2 for a, c in zip(outcomes, counts)) / n
    return mean, var, n


TRI_OUTCOMES = (0.0, 0.5, 1.0)                 # loss, draw, win
PENTA_OUTCOMES = (0.0, 0.25, 0.5, 0.75, 1.0)   # LL, LD, DD+WL, WD, WW (pair score halved)


def elo_interval(outcomes, counts, z=Z95):
    """(elo, margin): Elo of the mean score and the half width of its `z` interval, computed
    like cutechess-cli does: the score interval mean +/- z*stderr mapped through elo_from_score."""
    mean, var, n = _mean_var(outcomes, counts)
    if n == 0:
        return 0.0, math.inf
    elo = elo_from_score(mean)
    stderr = math.sqrt(var / n)
    lo, hi = mean - z * stderr, mean + z * stderr
    if lo <= 0.0 or hi >= 1.0 or stderr == 0.0:
        margin = math.inf if (lo <= 0.0 or hi >= 1.0) else 0.0
    else:
        margin = (elo_from_score(hi) - elo_from_score(lo)) / 2.0
    return elo, margin


def trinomial_elo(wins, draws, losses):
    return elo_interval(TRI_OUTCOMES, (losses, draws, wins))


def pentanomial_elo(penta):
    """penta = [LL, LD, DD+WL, WD, WW] pair counts."""
    return elo_interval(PENTA_OUTCOMES, penta)


def los(wins, losses):
    """Likelihood of superiority (draws ignored), in 0..1."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def sprt_bounds(alpha, beta):
    """(lower, upper) LLR bounds of Wald's SPRT."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _regularize(counts, eps=1e-3):
    # An empty category makes the constrained maximum-likelihood problem degenerate (e.g. only
    # wins so far); a tiny pseudo-count keeps it well posed and changes nothing measurable.
    return [c if c > 0 else eps for c in counts]


def _mle_lambda(outcomes, probs, s):
    """Lagrange multiplier of the maximum-likelihood distribution with mean s:
    p_j = q_j / (1 + lam (a_j - s)), where sum q_j (a_j - s) / (1 + lam (a_j - s)) = 0."""
    d = [a - s for a in outcomes]
    dmax, dmin = max(d), min(d)
    if dmax <= 0 or dmin >= 0:
        raise ValueError("expected score outside the outcome range")
    lo, hi = -1.0 / dmax, -1.0 / dmin      # 1 + lam*d_j > 0 for every j
    lo += (hi - lo) * 1e-12
    hi -= (hi - lo) * 1e-12

    def g(lam):
        return sum(q * dj / (1.0 + lam * dj) for q, dj in zip(probs, d))

    for _ in range(200):                   # g is decreasing in lam
        mid = (lo + hi) / 2.0
        if g(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def llr_exact(outcomes, counts, elo0, elo1):
    """GSPRT log-likelihood ratio of H1 (logistic Elo = elo1) against H0 (elo0): the ratio of
    the multinomial likelihoods maximized under each hypothesis' expected score."""
    n = sum(counts)
    if n == 0:
        return 0.0
    reg = _regularize(counts)
    total = sum(reg)
    q = [c / total for c in reg]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    lam0 = _mle_lambda(outcomes, q, s0)
    lam1 = _mle_lambda(outcomes, q, s1)
    llr = 0.0
    for a, qj in zip(outcomes, q):
        llr += qj * (math.log(1.0 + lam0 * (a - s0)) - math.log(1.0 + lam1 * (a - s1)))
    return n * llr


def llr_normal_approx(outcomes, counts, elo0, elo1):
    """The usual normal approximation of the same LLR:
    N (s1 - s0) (2 mean - s0 - s1) / (2 var)."""
    mean, var, n = _mean_var(outcomes, _regularize(counts))
    n = sum(counts)
    if n == 0 or var == 0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


# The match runner uses the exact GSPRT (as fishtest does). The normal approximation agrees with
# it for the small Elo differences an SPRT is meant for, but breaks down on lopsided or tiny
# samples: with all wins so far the observed variance is ~0 and it would accept H1 after a pair
# or two. The exact form never does: there H0's best fit may put the unseen mass on losses, so
# a crushing result still needs a few hundred games to pass elo1=5 (use wider bounds for those).
def llr_trinomial(wins, draws, losses, elo0, elo1):
    return llr_exact(TRI_OUTCOMES, (losses, draws, wins), elo0, elo1)


def llr_pentanomial(penta, elo0, elo1):
    return llr_exact(PENTA_OUTCOMES, penta, elo0, elo1)


def sprt_verdict(llr, alpha, beta):
    lower, upper = sprt_bounds(alpha, beta)
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def pair_index(score_a, score_b):
    """Pentanomial bucket (0..4) of a pair of games scoring score_a and score_b (each 0, .5, 1)."""
    return int(round((score_a + score_b) * 2))


def performance(results, z=Z95):
    """Maximum-likelihood rating of a player from (opponent_rating, score, games) triples,
    with a z interval half width from the Fisher information; None if no games.
    A perfect or zero total score has no finite estimate: it is reported as +/-inf."""
    results = [(r, s, n) for r, s, n in results if n > 0]
    if not results:
        return None
    total = sum(s for _, s, _ in results)
    games = sum(n for _, _, n in results)
    if total <= 0:
        return -math.inf, math.inf
    if total >= games:
        return math.inf, math.inf

    def f(rating):
        return sum(n * expected_score(rating - r) for r, _, n in results) - total

    lo, hi = -10000.0, 15000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    rating = (lo + hi) / 2
    info = sum(n * expected_score(rating - r) * (1 - expected_score(rating - r)) for r, _, n in results)
    c = math.log(10) / 400.0
    margin = z / (c * math.sqrt(info)) if info > 0 else math.inf
    return rating, margin
