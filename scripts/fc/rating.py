"""A player's rating from games against opponents of known rating (maximum likelihood)."""
import math

Z95 = 1.959964


def expected(diff):
    """Logistic expected score of a player `diff` Elo above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def performance(results, z=Z95):
    """(rating, half width) from (opponent rating, points, games) triples; None without games.

    An all-won or all-lost record has no finite estimate and is reported as ±inf."""
    results = [(r, s, n) for r, s, n in results if n > 0]
    if not results:
        return None
    points = sum(s for _, s, _ in results)
    games = sum(n for _, _, n in results)
    if points <= 0:
        return -math.inf, math.inf
    if points >= games:
        return math.inf, math.inf
    lo, hi = -10000.0, 15000.0
    for _ in range(100):   # the expected total rises with the rating: bisect for the observed one
        mid = (lo + hi) / 2
        if sum(n * expected(mid - r) for r, _, n in results) < points:
            lo = mid
        else:
            hi = mid
    rating = (lo + hi) / 2
    info = sum(n * expected(rating - r) * (1 - expected(rating - r)) for r, _, n in results)
    return rating, (z / (math.log(10) / 400.0 * math.sqrt(info)) if info > 0 else math.inf)
