//! The secondary search — the lecture's third method: once the algorithm has chosen its move,
//! do not stop at once; search further along the expected line and look for a surprise. If
//! none appears, play the move now (the time not spent is kept for later moves); if one does,
//! keep searching.
//!
//! It runs only under a game clock (never for `go depth`, `go nodes`, `movetime`, `infinite`,
//! `bench`, MultiPV or a limited strength), on the main thread, once per move: after an
//! iteration of depth ≥ `MIN_DEPTH`, once the thinking time passes `KAPPA` of the time
//! manager's (scaled) soft target. The verdict:
//! - a fail low of the best line in that last iteration, with a score more than `MARGIN`
//!   below the iteration before's, is a surprise already, at no cost;
//! - otherwise the chosen move is searched one ply deeper than the iteration did, with a null
//!   window `MARGIN` below its score and at most half the last iteration's nodes. At or above
//!   the window it *holds*; below, it is a *surprise*; cut by the node cap, no verdict (the
//!   plain time manager decides).
//!
//! Holds → stop now. Surprise → iterations go on (the surprised score seeds the next
//! aspiration window) until `SURPRISE_TARGET` times the soft target, never past the hard
//! limit. A placebo (`SecondaryPlacebo`) runs the same verification and then lets a coin
//! decide, so that games can tell the method from a mere shift of time.

use super::score::*;
use super::worker::Worker;
use crate::chess::{Move, Position};

/// The verdict waits for an iteration at least this deep (shallower ones are too noisy).
pub const MIN_DEPTH: i32 = 6;
/// The verdict is taken once the thinking time reaches this fraction of the soft target.
pub const KAPPA: f64 = 0.55;
/// A drop of the chosen move by more than this (cp) is a surprise.
pub const MARGIN: i32 = 30;
/// After a surprise, iterations may go on until this multiple of the soft target.
pub const SURPRISE_TARGET: f64 = 2.0;

/// What the secondary search concluded about the chosen move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The deeper search confirms the move: play it now.
    Holds,
    /// The best line failed low in the last iteration: think on.
    FailedLow,
    /// The deeper search found the move worse by more than the margin: think on.
    Dropped,
    /// The node cap ended the verification first: the plain time manager decides.
    Inconclusive,
}

impl Verdict {
    pub fn is_surprise(self) -> bool {
        matches!(self, Verdict::FailedLow | Verdict::Dropped)
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::FailedLow => "surprise (fail low)",
            Verdict::Dropped => "surprise (deeper search)",
            Verdict::Inconclusive => "inconclusive (node cap)",
        }
    }
}

/// The search of the chosen move one ply deeper: `Holds`, `Dropped` or `Inconclusive`, and
/// the score it found (an upper bound when it dropped). The worker's `stopped` flag stays set
/// only when the search as a whole must stop (time, `stop`, node limit), not for the cap.
pub fn verify(
    worker: &mut Worker,
    root: &Position,
    best: Move,
    score: i32,
    depth: i32,
    node_cap: u64,
) -> (Verdict, i32) {
    let target = score - MARGIN;
    let limit = worker.node_limit;
    let capped = worker.total_nodes().saturating_add(node_cap.max(1));
    worker.node_limit = limit.min(capped);
    worker.root_depth = depth + 1;
    worker.begin_root(root);
    let child = worker.make(root, best, 0);
    let check = (worker.switches.check_extension && child.in_check()) as i32;
    let v = -worker.negamax::<false>(&child, -target, -target + 1, depth + check, 1, true);
    worker.node_limit = limit;
    if worker.stopped {
        // The cap alone (not the clock, `stop` or the search's own node limit) ended it:
        // the search goes on without a verdict.
        let cap_only = !worker.control.stop_requested()
            && worker.total_nodes() < limit
            && !worker.past_hard_limit();
        if cap_only {
            worker.stopped = false;
        }
        return (Verdict::Inconclusive, score);
    }
    if v >= target {
        (Verdict::Holds, score)
    } else {
        (Verdict::Dropped, v)
    }
}

/// The placebo's coin: "surprise" with `percent` % probability, from the root and the nodes
/// so far (reproducible for one search, different from move to move).
pub fn coin(root: &Position, nodes: u64, percent: u32) -> bool {
    let mut rng = crate::util::Rng::new(root.key() ^ nodes.rotate_left(32));
    rng.below(100) < percent as u64
}

/// Whether a score is one the verification can judge (not a mate: those are exact enough).
pub fn judgeable(score: i32) -> bool {
    score != -INF && !is_mate(score)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::iterate::Deepening;
    use crate::search::thread::ThreadData;
    use crate::search::tt::TranspositionTable;
    use crate::search::{Limits, SearchControl, SearchOptions};
    use std::sync::atomic::AtomicU64;

    /// Searches `fen` to `depth`, then verifies its best move against `score_shift` plus the
    /// score found, with `cap` nodes: the verdict and whether the search was left stopped.
    fn verdict_after(fen: &str, depth: u32, score_shift: i32, cap: u64) -> (Verdict, bool) {
        crate::chess::attacks::init();
        let root = Position::from_fen(fen).unwrap();
        let tt = TranspositionTable::new(8);
        let mut td = ThreadData::new();
        let options = SearchOptions::default();
        td.prepare(&[], &options.evaluation);
        let control = SearchControl::new();
        let shared = AtomicU64::new(0);
        let mut worker = Worker::for_root(&tt, &mut td, &control, &options, 0, &shared, false);
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        let mut deepening = Deepening {
            worker: &mut worker,
            root,
            moves: Deepening::root_moves(&root, &[]),
            report: &mut |_| {},
            multipv: 1,
            helper_id: 0,
        };
        deepening.run(&limits, &options);
        let (best, score) = (deepening.moves[0].mv, deepening.moves[0].prev_score);
        assert!(judgeable(score));
        let (v, found) = verify(
            deepening.worker,
            &root,
            best,
            score + score_shift,
            depth as i32,
            cap,
        );
        if v == Verdict::Dropped {
            assert!(found < score + score_shift - MARGIN, "{found} {score}");
        }
        (v, deepening.worker.stopped)
    }

    const MIDDLEGAME: &str = "r1bq1rk1/p1pn2bp/1p4p1/3Ppn2/P7/BPNQ1NP1/5PBP/R4RK1 b - - 1 17";

    #[test]
    fn a_move_that_keeps_its_score_holds_and_one_that_cannot_reach_it_drops() {
        // Scored 300 cp below what the search found: one ply more cannot make it fall that far.
        assert_eq!(
            verdict_after(MIDDLEGAME, 7, -300, u64::MAX),
            (Verdict::Holds, false)
        );
        // Scored 300 cp above: the deeper search finds it well below that.
        assert_eq!(
            verdict_after(MIDDLEGAME, 7, 300, u64::MAX),
            (Verdict::Dropped, false)
        );
    }

    #[test]
    fn the_node_cap_gives_no_verdict_and_does_not_stop_the_search() {
        assert_eq!(
            verdict_after(MIDDLEGAME, 7, 0, 50),
            (Verdict::Inconclusive, false)
        );
    }

    #[test]
    fn the_placebo_coin_follows_its_percentage() {
        let root = Position::from_fen(MIDDLEGAME).unwrap();
        let heads = (0..2000u64).filter(|&n| coin(&root, n * 7919, 30)).count();
        assert!((500..700).contains(&heads), "{heads} of 2000");
        assert!((0..100).all(|n| !coin(&root, n, 0)));
        assert!((0..100).all(|n| coin(&root, n, 100)));
    }
}
