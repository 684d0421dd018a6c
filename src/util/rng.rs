//! The one pseudo-random generator of the engine and its tools: SplitMix64. Small, fast,
//! seedable and good enough for choices that only need to differ (openings, book moves,
//! weaker play, weight initialisation). Not for anything that must be unpredictable.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Seeded from the clock and the process: every run differs.
    pub fn from_time() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Rng::new(nanos ^ (std::process::id() as u64).rotate_left(32))
    }

    /// A generator for one item of a family (a stream, a game), independent of the others.
    pub fn derive(seed: u64, parts: &[u64]) -> Rng {
        let mut r = Rng::new(seed);
        for &p in parts {
            r = Rng::new(r.next_u64() ^ p.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0), without modulo bias worth speaking of for small `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_below_stays_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut counts = [0u32; 5];
        for _ in 0..5000 {
            counts[a.below(5) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
        assert!((0..1000).all(|_| (0.0..1.0).contains(&a.next_f64())));
    }

    #[test]
    fn derived_streams_differ() {
        let x = Rng::derive(1, &[0, 5]).next_u64();
        let y = Rng::derive(1, &[0, 6]).next_u64();
        let z = Rng::derive(1, &[1, 5]).next_u64();
        assert!(x != y && x != z && y != z);
        assert_eq!(x, Rng::derive(1, &[0, 5]).next_u64());
    }
}
