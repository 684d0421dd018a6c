//! `UCI_LimitStrength` / `UCI_Elo`: weaker play for human opponents, made the way a weaker
//! player is weaker — it sees less (a node budget per move) and it sometimes prefers a move
//! that is not the best (a choice among the best few lines, weighted by how much worse each
//! one is, with more tolerance the lower the rating). The engine never sleeps to look weak:
//! a limited search simply ends sooner.
//!
//! The numbers here map a rating to a node budget and a tolerance, through a table measured
//! by games against Stockfish's own levels (docs/search.md, "Playing weaker:
//! UCI_LimitStrength").

use super::score::MATE_BOUND;

/// The range of `UCI_Elo`. Measured by games from 1000 to 2200; the ends follow the fitted
/// line (full strength measured about 2200 at 2+0.02, more at slower time controls).
pub const MIN_ELO: u32 = 800;
pub const MAX_ELO: u32 = 2400;

/// How many of the best lines the move is chosen from, when there is a choice at all.
const CANDIDATE_LINES: usize = 4;

/// Below this tolerance the choice would nearly always be the best line anyway, and searching
/// several lines costs depth that the rating was measured without: one line is searched.
const MIN_CHOICE_TOLERANCE_CP: f64 = 3.0;

/// The lines to search at `elo`: several to choose from, or only the best.
pub fn candidate_lines(elo: u32) -> usize {
    if tolerance_cp(elo) >= MIN_CHOICE_TOLERANCE_CP {
        CANDIDATE_LINES
    } else {
        1
    }
}

/// The internal strength scale: at level 800 a move gets 200 nodes and lines ~200 cp worse
/// are often chosen; every 200 levels double the nodes, and the tolerance falls with the
/// square of the distance to `TOLERANCE_ENDS`, where the best line is always played.
const LEVEL_NODES_200: f64 = 800.0;
const TOLERANCE_ENDS: f64 = 2800.0;

/// `UCI_Elo` setting -> internal level, from games against Stockfish 15.1's own `UCI_Elo`
/// levels (`scripts/calibrate-elo`, 2+0.02; docs/search.md): levels
/// 1000 … 2600 played at 1031, 1250, 1500, 1806, 2137, a line rating = 299 + 0.692 × level,
/// inverted here. Linear in between.
const CALIBRATION: &[(u32, f64)] = &[(MIN_ELO, 724.0), (MAX_ELO, 3036.0)];

/// The internal level of a setting (clamped to the range).
fn level(elo: u32) -> f64 {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    for pair in CALIBRATION.windows(2) {
        let ((e0, l0), (e1, l1)) = (pair[0], pair[1]);
        if elo <= e1 {
            return l0 + (l1 - l0) * (elo - e0) as f64 / (e1 - e0) as f64;
        }
    }
    CALIBRATION[CALIBRATION.len() - 1].1
}

/// Nodes per move: 200 at level 800, doubling every 200 levels (at least 50).
pub fn node_budget(elo: u32) -> u64 {
    let doublings = (level(elo) - LEVEL_NODES_200) / 200.0;
    ((200.0 * doublings.exp2()) as u64).max(50)
}

/// Centipawns of "temperature": a line `x` cp worse than the best is chosen with weight
/// `exp(-x / t)`. 200 cp at level 800, falling with the square of the strength to 0 at
/// level 2800 and above (where the best move is always played).
pub fn tolerance_cp(elo: u32) -> f64 {
    let w = ((TOLERANCE_ENDS - level(elo)) / (TOLERANCE_ENDS - LEVEL_NODES_200)).clamp(0.0, 1.5);
    200.0 * w * w
}

pub use crate::util::Rng;

/// Which of the candidate lines to play, given their scores (best first, internal units).
/// A forced mate is never given away, and a line that gets mated is never chosen over one
/// that does not.
pub fn choose(scores: &[i32], elo: u32, rng: &mut Rng) -> usize {
    let Some(&best) = scores.first() else {
        return 0;
    };
    let t = tolerance_cp(elo);
    if t < 1.0 || best > MATE_BOUND {
        return 0;
    }
    let weights: Vec<f64> = scores
        .iter()
        .map(|&s| {
            if s < -MATE_BOUND && best >= -MATE_BOUND {
                0.0
            } else {
                (-((best - s).max(0) as f64) / t).exp()
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.next_f64() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_grow_and_tolerance_shrinks_with_the_rating() {
        let elos = [800, 1200, 1600, 2000, 2200];
        for w in elos.windows(2) {
            assert!(node_budget(w[0]) < node_budget(w[1]));
            assert!(tolerance_cp(w[0]) > tolerance_cp(w[1]));
        }
        assert!(node_budget(2200) < node_budget(2400));
        // The bottom: ~150 nodes and a wide choice; the top: ~460,000 nodes, the best line.
        assert!((100..200).contains(&node_budget(MIN_ELO)));
        assert!((200.0..260.0).contains(&tolerance_cp(MIN_ELO)));
        assert!((400_000..550_000).contains(&node_budget(MAX_ELO)));
        assert_eq!(tolerance_cp(MAX_ELO), 0.0);
        assert_eq!(node_budget(100), node_budget(MIN_ELO));
        assert_eq!(node_budget(9999), node_budget(MAX_ELO));
        // Several lines only where the choice matters.
        assert_eq!(candidate_lines(1000), 4);
        assert_eq!(candidate_lines(MAX_ELO), 1);
    }

    #[test]
    fn the_calibration_table_is_a_rising_map_over_the_whole_range() {
        assert_eq!(CALIBRATION[0].0, MIN_ELO);
        assert_eq!(CALIBRATION[CALIBRATION.len() - 1].0, MAX_ELO);
        for w in CALIBRATION.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{w:?}");
        }
        for &(elo, lvl) in CALIBRATION {
            assert!((level(elo) - lvl).abs() < 1e-9);
        }
        let mut last = 0.0;
        for elo in MIN_ELO..=MAX_ELO {
            assert!(level(elo) > last);
            last = level(elo);
        }
    }

    #[test]
    fn the_top_of_the_range_always_plays_the_best_line() {
        let mut rng = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(choose(&[30, 29, 28, 27], MAX_ELO, &mut rng), 0);
        }
    }

    #[test]
    fn low_ratings_spread_their_choice_by_how_much_worse_a_line_is() {
        let mut rng = Rng::new(11);
        let mut counts = [0; 4];
        for _ in 0..10_000 {
            counts[choose(&[50, 40, -100, -600], 1000, &mut rng)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3]);
        assert!(counts[1] > 2000, "{counts:?}");
        let mut strong = [0; 4];
        for _ in 0..10_000 {
            strong[choose(&[50, 40, -100, -600], 2000, &mut rng)] += 1;
        }
        assert!(
            strong[0] > counts[0] && strong[2] + strong[3] < 10,
            "{strong:?}"
        );
    }

    #[test]
    fn mates_are_neither_missed_nor_walked_into() {
        let mut rng = Rng::new(3);
        for _ in 0..1000 {
            assert_eq!(choose(&[MATE_BOUND + 10, 200, 100], 800, &mut rng), 0);
            assert_ne!(choose(&[0, -5, -MATE_BOUND - 10], 800, &mut rng), 2);
        }
    }
}
