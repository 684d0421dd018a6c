//! Helpers shared by the integration tests: the EPD perft suites and a small PRNG.
//!
//! Each test crate uses only part of this module.
#![allow(dead_code)]

/// `tests/data/perft.epd`: standard-chess positions with perft counts.
pub const PERFT_EPD: &str = include_str!("../data/perft.epd");
/// `tests/data/frc-perft.epd`: Chess960 positions (Shredder-FEN castling) with perft counts.
pub const FRC_PERFT_EPD: &str = include_str!("../data/frc-perft.epd");

/// One line of a perft suite: `FEN ;D1 n ;D2 n ...`.
#[derive(Clone, Debug)]
pub struct PerftCase {
    /// 1-based line number in the file, for messages.
    pub line: usize,
    pub fen: String,
    /// (depth, node count), in the order the file lists them.
    pub counts: Vec<(u32, u64)>,
}

/// Parses a perft EPD file; panics on a malformed line (the data is ours).
pub fn parse_perft_epd(text: &str) -> Vec<PerftCase> {
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        let counts = parts
            .map(|p| {
                let p = p.trim();
                let (d, n) = p
                    .split_once(' ')
                    .unwrap_or_else(|| panic!("line {}: bad field '{p}'", i + 1));
                let depth = d
                    .strip_prefix('D')
                    .and_then(|d| d.parse().ok())
                    .unwrap_or_else(|| panic!("line {}: bad depth '{d}'", i + 1));
                let nodes = n
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("line {}: bad count '{n}'", i + 1));
                (depth, nodes)
            })
            .collect();
        cases.push(PerftCase {
            line: i + 1,
            fen,
            counts,
        });
    }
    cases
}

/// The engine's generator (`brudno::util::Rng`, SplitMix64) with the helpers tests use.
#[derive(Clone)]
pub struct Rng(brudno::util::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(brudno::util::Rng::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    /// One of `items` (not empty), uniform-ish.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
}

/// Runs `f` on every item, spread over the machine's cores; returns the results in order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= items.len() {
                            break out;
                        }
                        out.push((i, f(&items[i])));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
