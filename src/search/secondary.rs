//! The secondary search — the lecture's third method: once the algorithm has chosen its move,
//! do not stop at once; search further along the expected line and look for a surprise. If
//! none appears, play the move now (the time not spent is kept for later moves); if one does,
//! keep searching.
//!
//! It runs only under a game clock (never for `go depth`, `go nodes`, `movetime`, `infinite`,
//! `bench`, MultiPV or a limited strength), on the main thread, at most once per move, when an
//! iteration of depth ≥ `MIN_DEPTH` ends past the time manager's (scaled) soft target times
//! `TARGET_RAISE` — a little after the plain time manager would stop, its move chosen. The
//! verdict:
//! - a fail low of the best line in that last iteration, with a score more than `MARGIN`
//!   below the iteration before's, is a surprise already, at no cost;
//! - otherwise a move that changed in the last `SETTLED` iterations is searched one ply deeper
//!   than the iteration did, with a null window `MARGIN` below its score and at most
//!   `NODE_CAP` of the last iteration's nodes. At or above the window it *holds*; below, it is
//!   a *surprise*; cut by the node cap, no verdict (the plain time manager decides);
//! - a settled move that did not fall gets no verdict (verifying every move cost more than the
//!   rare news was worth: −32.5 ± 33.8 Elo at 8+0.08, 182 games, 93% of verdicts holding).
//!
//! Holds → the move is played. Surprise → iterations go on (the surprised score seeds the
//! next aspiration window) until `SURPRISE_TARGET` times the soft target, never past the hard
//! limit. A placebo (`SecondaryPlacebo`) runs the same verification and then lets a coin
//! decide, so that games can tell the method from a mere shift of time; it also chooses the
//! moves it checks early by a coin (`PLACEBO_PLANNED`), blind to the expected line.
//!
//! Along the expected line into the next move: each search leaves its line behind (our move,
//! the predicted reply, the planned answer). When the opponent plays the predicted reply, the
//! next search starts where the last one looked ahead; if the planned answer is its best move
//! once the thinking time reaches `EXPECTED_KAPPA` of the target, still within `MARGIN` of
//! the score expected for it, it is verified then, settled or not — a hold plays it early,
//! a surprise thinks on. Every move's target is raised by `TARGET_RAISE`, so that the time
//! those early moves save goes to the others (not the ponderhit's check, which keeps the
//! plain soft limit when no verdict was given). An early check cut by the node cap is this
//! move's verdict: no second one comes at the target.
//!
//! Off by default (`SecondarySearch`): against the plain time manager at 8+0.08 this form
//! scored −3.2 ± 7.9 Elo over 3000 games, though the moves it changed in the first 1000 were
//! better by a deeper search 131 times to 74 (docs/secondary-search.md).

use super::counter::Counter;
use super::root::RootMove;
use super::score::*;
use super::tally::Tally;
use super::time::TimeBudget;
use super::types::{Limits, Score, SearchEvent, SearchOptions};
use super::worker::Worker;
use crate::chess::{Move, Position};
use std::sync::atomic::{AtomicU64, Ordering};

/// The verdict waits for an iteration at least this deep (shallower ones are too noisy).
pub const MIN_DEPTH: i32 = 6;
/// The verdict is taken once the thinking time reaches this fraction of the soft target.
/// At 0.55 (a hold then played the move before the plain target: 12% less time a move) it
/// lost 63 ± 47 Elo at 8+0.08 (docs/secondary-search.md); at 1, it checks the move the
/// plain time manager has chosen, as the lecture says.
pub const KAPPA: f64 = 1.0;
/// A drop of the chosen move by more than this (cp) is a surprise.
pub const MARGIN: i32 = 30;
/// After a surprise, iterations may go on until this multiple of the soft target.
pub const SURPRISE_TARGET: f64 = 2.5;
/// A move that has stayed best for this many iterations is settled: it is not verified (at
/// the plain stop point 93% of the verifications of all moves held, a cost with little news).
pub const SETTLED: u32 = 2;
/// The verification's node cap, as a fraction of the last iteration's nodes.
pub const NODE_CAP: f64 = 0.25;
/// On the expected line, the verdict is taken once the thinking time reaches this fraction
/// of the target.
pub const EXPECTED_KAPPA: f64 = 0.4;
/// Every move's target is raised by this factor while the secondary search is on: the time
/// that early holds on the expected line save is spent on the other moves.
pub const TARGET_RAISE: f64 = 1.15;

/// The placebo checks this share of moves (%) early, chosen by a coin: as many as the real
/// method checks on the expected line (about half of its moves at 8+0.08).
pub const PLACEBO_PLANNED: u32 = 50;

/// The line a search expected, as the next search needs it: the key of the position after
/// our move and the predicted reply, the answer planned there and the score expected for it
/// (the side to move is ours again, so the score is from the same side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedLine {
    pub key: u64,
    pub answer: Move,
    pub score: i32,
}

impl ExpectedLine {
    /// The line a search's result expects, when its PV reaches our next move and its score is
    /// one the verification can judge.
    pub fn of(root: &Position, pv: &[Move], score: Option<Score>) -> Option<ExpectedLine> {
        let (Some(Score::Cp(cp)), [ours, reply, answer, ..]) = (score, pv) else {
            return None;
        };
        let line = super::root::verified(root, &[*ours, *reply, *answer]);
        if line.len() < 3 {
            return None;
        }
        let next = root.after(*ours).after(*reply);
        Some(ExpectedLine {
            key: next.key(),
            answer: *answer,
            score: cp,
        })
    }
}

/// What iterative deepening tells the secondary search after a completed iteration.
pub struct Judged<'a> {
    pub depth: i32,
    /// Whether the best line failed low in this iteration.
    pub failed_low: bool,
    /// For how many iterations the best move has not changed.
    pub stable: u32,
    /// The best move's score after each iteration so far, this one last.
    pub scores: &'a [i32],
    /// The total node count (helpers included) when this iteration began.
    pub start_total: u64,
    /// The plain time manager's soft target (thinking milliseconds) and the hard limit.
    pub soft: f64,
    pub hard_ms: u64,
}

/// The secondary search over one search's iterations: whether it applies, and at most one
/// verdict per move with the move it was given on.
pub struct Secondary {
    on: bool,
    /// The line the last search expected, when the game has followed it to this root.
    expected: Option<ExpectedLine>,
    verdict: Option<(Verdict, Move)>,
    /// The depth the verification searched when it found a surprise (0: none): a helper's
    /// result must be deeper than that to replace the main thread's.
    pub surprise_depth: u32,
}

impl Secondary {
    /// Only under a game clock (a scalable budget) with no depth, node or mate limit beside
    /// it, on the main thread, with one line and a choice to make.
    pub fn for_search(
        limits: &Limits,
        options: &SearchOptions,
        budget: Option<TimeBudget>,
        multipv: usize,
        root_moves: usize,
        helper_id: usize,
        expected: Option<ExpectedLine>,
    ) -> Secondary {
        let on = options.secondary_search
            && budget.is_some_and(|b| b.scalable)
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.mate.is_none()
            && multipv == 1
            && root_moves > 1
            && helper_id == 0;
        Secondary {
            on,
            expected,
            verdict: None,
            surprise_depth: 0,
        }
    }

    /// After a completed iteration under a clock: the thinking time (ms) after which the move
    /// is played (the plain soft target when the method is off or gave no verdict), or `None`
    /// when the verification stopped the search as a whole. `moves` is sorted, best first.
    pub fn after_iteration<T: Tally>(
        &mut self,
        it: &Judged,
        worker: &mut Worker<'_, T>,
        root: &Position,
        moves: &mut [RootMove],
        report: &mut dyn FnMut(SearchEvent),
        options: &SearchOptions,
    ) -> Option<f64> {
        let mut soft = it.soft;
        if self.on {
            // The time early holds on the expected line save, for the other moves.
            soft = (soft * TARGET_RAISE).min(it.hard_ms as f64);
        }
        // A fail low counts when the score fell by more than the margin since the
        // iteration before (narrow windows fail low on a few centipawns).
        let scores = it.scores;
        let n = scores.len();
        let fell = it.failed_low && n >= 2 && scores[n - 2] - scores[n - 1] > MARGIN;
        // While pondering, iterations go on after a hold: a later one that changes the
        // move or falls voids it, and the plain time manager decides again.
        if let Some((Verdict::Holds, chosen)) = self.verdict {
            if moves[0].mv != chosen || fell {
                self.verdict = Some((Verdict::Inconclusive, chosen));
                worker.ponderhit_stop_ms = None;
            }
        }
        // The verdict, taken while pondering too (a ponderhit then honours it); not once a
        // ponderhit has stopped the search. A fail low is a surprise for any move; a move
        // that changed in the last iterations is verified; a settled move that did not fall
        // needs no verdict — unless it is the answer the last search planned for this
        // position, which is verified early, settled or not.
        let planned = if options.secondary_placebo > 0 {
            // The placebo picks as many moves to check early, by a coin blind to the
            // expected line.
            coin(root, 0, PLACEBO_PLANNED)
        } else {
            self.expected
                .is_some_and(|e| e.answer == moves[0].mv && moves[0].score >= e.score - MARGIN)
        };
        let kappa = if planned { EXPECTED_KAPPA } else { KAPPA };
        if self.on
            && self.verdict.is_none()
            && !worker.stopped
            && it.depth >= MIN_DEPTH
            && worker.thinking_ms() as f64 >= kappa * soft
            && judgeable(moves[0].score)
            && (fell || it.stable < SETTLED || planned)
        {
            let iteration_total = worker.total_nodes() - it.start_total;
            let v = judge(
                worker,
                root,
                &mut moves[0],
                report,
                it.depth,
                fell,
                iteration_total,
                soft,
                planned,
                options,
            );
            self.verdict = Some((v, moves[0].mv));
            worker.tally.add(match v {
                Verdict::Holds => Counter::Holds,
                Verdict::FailedLow => Counter::FailedLow,
                Verdict::Dropped => Counter::Dropped,
                Verdict::Inconclusive => Counter::Inconclusive,
            });
            if v.is_surprise() {
                self.surprise_depth = it.depth as u32 + (v == Verdict::Dropped) as u32;
            }
            if worker.stopped {
                return None;
            }
        }
        let target = stop_target(self.verdict.map(|v| v.0), soft, it.hard_ms);
        // Without a verdict (or with none reached) a ponderhit keeps the plain rule.
        if self.verdict.is_some_and(|v| v.0 != Verdict::Inconclusive) {
            worker.ponderhit_stop_ms = Some(target as u64);
        }
        Some(target)
    }

    /// After the iterations: tells (in debug mode and the log) of a surprise that changed the
    /// move to `best`, with the position, so that the change can be judged afterwards.
    pub fn report_change(&self, root: &Position, best: Move, report: &mut dyn FnMut(SearchEvent)) {
        if let Some((v, chosen)) = self.verdict {
            if v.is_surprise() && best != chosen {
                let text = format!(
                    "secondary changed {} to {} in {}",
                    root.move_to_uci(chosen, false),
                    root.move_to_uci(best, false),
                    root.to_fen()
                );
                log::info!(target: "secondary", "{text}");
                report(SearchEvent::Debug(text));
            }
        }
    }
}

/// The verdict on the chosen move `best` after iteration `depth`; a surprise found by the
/// deeper search seeds the next window (`best.prev_score`). The parts of the deepening it
/// reads come apart, so that this module does not depend on the one that calls it.
#[allow(clippy::too_many_arguments)]
fn judge<T: Tally>(
    worker: &mut Worker<'_, T>,
    root: &Position,
    best: &mut RootMove,
    report: &mut dyn FnMut(SearchEvent),
    depth: i32,
    failed_low: bool,
    iteration_nodes: u64,
    soft: f64,
    planned: bool,
    options: &SearchOptions,
) -> Verdict {
    let (mv, score) = (best.mv, best.score);
    let (mut v, found) = if failed_low {
        (Verdict::FailedLow, score)
    } else {
        let cap = (iteration_nodes as f64 * NODE_CAP) as u64;
        verify(worker, root, mv, score, depth, cap)
    };
    let placebo_on = options.secondary_placebo > 0;
    let placebo = placebo_on && v != Verdict::Inconclusive;
    if placebo {
        let nodes = worker.total_nodes();
        v = if coin(root, nodes, options.secondary_placebo) {
            Verdict::Dropped
        } else {
            Verdict::Holds
        };
    } else if v == Verdict::Dropped {
        best.prev_score = found;
    }
    let so_far = count(v);
    let text = format!(
        "secondary depth {depth} move {} score {} verify {}: {}{} at {} ms of {:.0}{} ({so_far})",
        root.move_to_uci(mv, false),
        to_uci_text(score),
        to_uci_text(found),
        v.name(),
        if placebo {
            " by the placebo's coin"
        } else {
            ""
        },
        worker.thinking_ms(),
        soft,
        match (planned, placebo_on) {
            (true, false) => ", the planned answer on the expected line",
            (true, true) => ", checked early by the placebo's coin",
            _ => "",
        },
    );
    log::info!(target: "secondary", "{text}");
    report(SearchEvent::Debug(text));
    v
}

/// A score as UCI would write it after `score` (for messages).
fn to_uci_text(score: i32) -> String {
    match to_public(score) {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

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

/// Verdicts given since the engine started, by kind (`Verdict as usize`).
static COUNTS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Counts one verdict; the tally so far, as the debug line shows it.
pub fn count(v: Verdict) -> String {
    COUNTS[v as usize].fetch_add(1, Ordering::Relaxed);
    let n = |k: Verdict| COUNTS[k as usize].load(Ordering::Relaxed);
    format!(
        "so far {} holds, {} fail lows, {} drops, {} inconclusive",
        n(Verdict::Holds),
        n(Verdict::FailedLow),
        n(Verdict::Dropped),
        n(Verdict::Inconclusive)
    )
}

/// The search of the chosen move one ply deeper: `Holds`, `Dropped` or `Inconclusive`, and
/// the score it found (an upper bound when it dropped). The worker's `stopped` flag stays set
/// only when the search as a whole must stop (time, `stop`, node limit), not for the cap.
pub fn verify<T: Tally>(
    worker: &mut Worker<'_, T>,
    root: &Position,
    best: Move,
    score: i32,
    depth: i32,
    node_cap: u64,
) -> (Verdict, i32) {
    let target = score - MARGIN;
    let pondering = worker.pondering;
    let limit = worker.node_limit;
    let capped = worker.total_nodes().saturating_add(node_cap.max(1));
    worker.node_limit = limit.min(capped);
    worker.root_depth = depth + 1;
    worker.begin_root(root);
    let child = worker.make(root, best, 0);
    let check = (worker.switches.check_extension && child.in_check()) as i32;
    // Expected to hold: the reply's node is then an all-node, not a cut-node.
    worker.tally.next_move(root, best);
    let v = -worker.negamax::<false>(&child, -target, -target + 1, depth + check, 1, false);
    worker.node_limit = limit;
    if worker.stopped {
        // The cap alone (not the clock, `stop`, the search's own node limit or a ponderhit
        // whose time was already thought) ended it: the search goes on without a verdict.
        let hit_due = pondering && !worker.pondering && worker.ponderhit_due();
        let cap_only = worker.total_nodes() >= capped
            && !worker.control.stop_requested()
            && worker.total_nodes() < limit
            && !worker.past_hard_limit()
            && !hit_due;
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

/// The thinking time (ms) after which the move is played, given the verdict so far and the
/// plain time manager's soft target: at once after a hold, up to `SURPRISE_TARGET` times the
/// target after a surprise, the plain target without a verdict; never past the hard limit.
pub fn stop_target(verdict: Option<Verdict>, soft: f64, hard_ms: u64) -> f64 {
    match verdict {
        Some(Verdict::Holds) => 0.0,
        Some(v) if v.is_surprise() => SURPRISE_TARGET * soft,
        _ => soft,
    }
    .min(hard_ms as f64)
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
        verdict_after_with(fen, depth, score_shift, cap, |_| {})
    }

    /// The same, with `set_up` applied to the worker between the search and the verification.
    fn verdict_after_with(
        fen: &str,
        depth: u32,
        score_shift: i32,
        cap: u64,
        set_up: impl FnOnce(&mut Worker),
    ) -> (Verdict, bool) {
        crate::chess::attacks::init();
        let root = Position::from_fen(fen).unwrap();
        let tt = TranspositionTable::new(8);
        let mut td = ThreadData::new();
        let options = SearchOptions::default();
        td.prepare(&[], &options.evaluation);
        let control = SearchControl::new();
        let shared = AtomicU64::new(0);
        let mut worker = Worker::for_root(
            &tt,
            &mut td,
            &control,
            &options,
            0,
            &shared,
            false,
            super::super::tally::NoTally,
        );
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        let mut deepening = Deepening {
            worker: &mut worker,
            root,
            moves: crate::search::root::root_moves(&root, &[]),
            report: &mut |_| {},
            multipv: 1,
            helper_id: 0,
            expected: None,
        };
        deepening.run(&limits, &options);
        let (best, score) = (deepening.moves[0].mv, deepening.moves[0].prev_score);
        assert!(judgeable(score));
        set_up(deepening.worker);
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
    fn a_hold_plays_at_once_a_surprise_thinks_on_and_the_hard_limit_stands() {
        assert_eq!(stop_target(Some(Verdict::Holds), 400.0, 2000), 0.0);
        assert_eq!(stop_target(Some(Verdict::Dropped), 400.0, 2000), 1000.0);
        assert_eq!(stop_target(Some(Verdict::FailedLow), 400.0, 2000), 1000.0);
        assert_eq!(stop_target(Some(Verdict::FailedLow), 400.0, 600), 600.0);
        assert_eq!(stop_target(Some(Verdict::Inconclusive), 400.0, 2000), 400.0);
        assert_eq!(stop_target(None, 400.0, 2000), 400.0);
        assert_eq!(stop_target(None, 400.0, 300), 300.0);
    }

    #[test]
    fn the_node_cap_gives_no_verdict_and_does_not_stop_the_search() {
        assert_eq!(
            verdict_after(MIDDLEGAME, 7, 0, 50),
            (Verdict::Inconclusive, false)
        );
    }

    /// A worker that ponders on `MIDDLEGAME` with depth 1 done and the given soft limit; the
    /// control says the ponderhit has come (the worker has not noticed yet).
    fn hit_worker<'a>(
        tt: &'a TranspositionTable,
        td: &'a mut ThreadData,
        control: &'a SearchControl,
        options: &'a SearchOptions,
        shared: &'a AtomicU64,
        soft_ms: u64,
    ) -> Worker<'a> {
        crate::chess::attacks::init();
        td.prepare(&[], &options.evaluation);
        let mut worker = Worker::for_root(
            tt,
            td,
            control,
            options,
            0,
            shared,
            false,
            super::super::tally::NoTally,
        );
        worker.depth1_done = true;
        hit_pending(soft_ms)(&mut worker);
        worker
    }

    /// Pondering, with the ponderhit come but not yet noticed, and the given soft limit.
    fn hit_pending(soft_ms: u64) -> impl FnOnce(&mut Worker) {
        move |w: &mut Worker| {
            w.pondering = true;
            w.check_mask = 0; // the limits polled at every node: the ponderhit is seen
            w.budget = Some(crate::search::time::TimeBudget {
                soft_ms,
                hard_ms: 600_000,
                scalable: true,
            });
        }
    }

    #[test]
    fn a_ponderhit_during_the_verification_stops_it_when_the_time_was_thought() {
        // Thought long enough (a soft limit of 0 ms): the ponderhit stops the search, and
        // the verification must not take that stop for its node cap's.
        let (v, stopped) = verdict_after_with(MIDDLEGAME, 7, 300, u64::MAX, hit_pending(0));
        assert_eq!((v, stopped), (Verdict::Inconclusive, true));
        // Not thought long enough: the ponderhit only starts the clock; the verdict comes.
        let (v, stopped) = verdict_after_with(MIDDLEGAME, 7, 300, u64::MAX, hit_pending(600_000));
        assert_eq!((v, stopped), (Verdict::Dropped, false));
    }

    #[test]
    fn a_ponderhit_honours_the_verdicts_target() {
        let (tt, control, options) = (
            TranspositionTable::new(8),
            SearchControl::new(),
            SearchOptions::default(),
        );
        let shared = AtomicU64::new(0);
        let mut td = ThreadData::new();
        let mut worker = hit_worker(&tt, &mut td, &control, &options, &shared, 600_000);
        // A hold while pondering: play at once on the ponderhit, though the plain soft
        // limit is far away.
        worker.ponderhit_stop_ms = Some(0);
        worker.on_ponderhit();
        assert!(worker.stopped);
        // A surprise: think on past the plain soft limit (here 0 ms).
        let mut td = ThreadData::new();
        let mut worker = hit_worker(&tt, &mut td, &control, &options, &shared, 0);
        worker.ponderhit_stop_ms = Some(600_000);
        worker.on_ponderhit();
        assert!(!worker.stopped);
        // No verdict: the plain rule.
        let mut td = ThreadData::new();
        let mut worker = hit_worker(&tt, &mut td, &control, &options, &shared, 0);
        worker.on_ponderhit();
        assert!(worker.stopped);
    }

    #[test]
    fn the_expected_line_is_the_position_after_the_predicted_reply() {
        crate::chess::attacks::init();
        let root = Position::startpos();
        let line: Vec<Move> = ["e2e4", "e7e5", "g1f3", "b8c6"]
            .iter()
            .scan(root, |pos, t| {
                let m = pos.parse_uci_move(t).unwrap();
                pos.play(m);
                Some(m)
            })
            .collect();
        let cp = |v| Some(crate::search::Score::Cp(v));
        let e = ExpectedLine::of(&root, &line, cp(35)).unwrap();
        let next = root.after(line[0]).after(line[1]);
        assert_eq!((e.key, e.answer, e.score), (next.key(), line[2], 35));
        // Too short a line, a mate score or an illegal answer: nothing expected.
        assert_eq!(ExpectedLine::of(&root, &line[..2], cp(35)), None);
        let mate = Some(crate::search::Score::Mate(3));
        assert_eq!(ExpectedLine::of(&root, &line, mate), None);
        let wrong = [line[0], line[1], line[3]];
        assert_eq!(ExpectedLine::of(&root, &wrong, cp(35)), None);
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
