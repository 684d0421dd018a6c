//! Iterative deepening at the root: depth 1, 2, 3, … each searched with an aspiration window
//! around the last score, MultiPV lines one after the other, and the time manager consulted
//! between iterations. The root moves are a list of their own (with their PVs and node
//! counts), so that `searchmoves`, MultiPV and "the best move so far" are simple.

use super::counter::Counter;
use super::params::{ASPIRATION_DELTA, ASPIRATION_DEPTH};
use super::root::{verified, RootMove};
use super::score::*;
use super::secondary::{self, Judged, Secondary};
use super::strength;
use super::tally::{NoTally, Tally};
use super::thread::LMR;
use super::time::{self, TimeBudget};
use super::types::{Bound, Limits, LineInfo, SearchEvent, SearchOptions, SearchResult};
use super::worker::Worker;
use crate::chess::legality::is_legal;
use crate::chess::{Move, MoveKind, Position};
use crate::util::cores;
use crate::util::sched::StallWatch;

/// Iterative deepening for one thread: the root moves and the iterations over them.
pub struct Deepening<'s, 'a, 'r, T: Tally = NoTally> {
    pub worker: &'s mut Worker<'a, T>,
    pub root: Position,
    pub moves: Vec<RootMove>,
    pub report: &'r mut dyn FnMut(SearchEvent),
    pub multipv: usize,
    /// 0 for the main thread, 1, 2, … for Lazy SMP helpers.
    pub helper_id: usize,
    /// The line the last search expected, when the game has followed it to this root: the
    /// secondary search verifies the planned answer early (`secondary.rs`).
    pub expected: Option<secondary::ExpectedLine>,
}

/// A machine whose recent delays (`Limits::machine_delay_ms`: the reader's waits for a core and
/// the searches' longest stalls) reach this is crowded: a ponder search there stops after depth
/// 1 and waits for the `ponderhit` (`Worker::wait_out_pondering`).
const CROWDED_MACHINE_MS: u64 = 4;

impl<T: Tally> Deepening<'_, '_, '_, T> {
    fn line(&self, i: usize, depth: u32) -> LineInfo {
        let rm = &self.moves[i];
        let score = if rm.shown_score == -INF {
            rm.prev_score
        } else {
            rm.shown_score
        };
        LineInfo {
            depth,
            seldepth: rm.seldepth.max(1) as u32,
            multipv: i + 1,
            score: to_public(score),
            bound: rm.bound,
            nodes: self.worker.total_nodes(),
            time_ms: self.worker.thinking_ms(),
            hashfull: self.worker.tt.hashfull(),
            tbhits: self.worker.tbhits,
            pv: verified(&self.root, &rm.pv),
        }
    }

    /// Runs the iterations and returns the result.
    pub fn run(&mut self, limits: &Limits, options: &SearchOptions) -> SearchResult {
        let root = self.root;
        self.worker.budget = time::budget(limits, root.side_to_move(), options);
        if let Some(at) = limits.received {
            self.worker.count_time_from(at);
        }
        self.worker.publish_deadline();
        // The main thread of a `movetime` search watches its waits for a core (for the next
        // movetimes' reserve); every pondering thread does, to ponder politely. A search under
        // a game clock does not: it keeps nothing for them (`time::budget`), and without the
        // watch it runs exactly as before the watch existed.
        self.worker.ponder_deferred =
            self.worker.pondering && limits.machine_delay_ms >= CROWDED_MACHINE_MS;
        if (limits.movetime.is_some() && self.helper_id == 0) || self.worker.pondering {
            self.worker.stall_watch = StallWatch::of_this_thread();
        }
        if self.helper_id == 0 && limits.movetime.is_some() && options.threads > cores() {
            (self.report)(SearchEvent::Debug(format!(
                "a floor of {} ms under what this movetime keeps back: more threads ({}) than cores ({})",
                time::OVERSUBSCRIBED_RESERVE_MS,
                options.threads,
                cores()
            )));
        }
        if self.helper_id == 0 && limits.movetime.is_some() && limits.machine_delay_ms > 0 {
            (self.report)(SearchEvent::Debug(format!(
                "{} ms kept in hand for this machine's delays (its recent waits for a core)",
                limits.machine_delay_ms
            )));
        }
        self.worker.node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
        let max_depth = limits.depth.map_or(MAX_PLY as i32 - 2, |d| {
            d.clamp(1, MAX_PLY as u32 - 2) as i32
        });
        self.order_initially();

        let mut completed = 0;
        let mut last_best = Move::NULL;
        let mut stable = 0u32;
        let mut scores: Vec<i32> = Vec::new();
        let mut secondary = Secondary::for_search(
            limits,
            options,
            self.worker.budget,
            self.multipv,
            self.moves.len(),
            self.helper_id,
            self.expected,
        );

        // Lazy SMP: half the helpers search one ply ahead of the others, so that the threads
        // spread over two depths and fill the shared table with different work.
        let first_depth = 1 + (self.helper_id % 2) as i32;
        for depth in first_depth..=max_depth {
            self.worker.root_depth = depth;
            self.worker.seldepth = 0;
            for rm in &mut self.moves {
                rm.nodes = 0;
            }
            let iteration_start_nodes = self.worker.nodes;
            let iteration_start_total = self.worker.total_nodes();
            let mut failed_low = false;
            for pv_idx in 0..self.multipv {
                failed_low |= self.aspiration(depth, pv_idx) && pv_idx == 0;
                if self.worker.stopped {
                    break;
                }
            }
            if self.worker.stopped {
                break;
            }
            // A later line may have scored above an earlier one (each is searched with the
            // earlier ones left out); GUIs expect the lines best first.
            self.moves[..self.multipv].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            completed = depth;
            self.worker.depth1_done = true;
            let iteration_nodes = self.worker.nodes - iteration_start_nodes;
            self.worker.tally.iteration(depth, iteration_nodes);
            for i in 0..self.moves.len() {
                let rm = &mut self.moves[i];
                if rm.score != -INF {
                    rm.prev_score = rm.score;
                }
            }
            for i in 0..self.multipv {
                let line = self.line(i, depth as u32);
                (self.report)(SearchEvent::Line(line));
            }

            // Between iterations: the limits.
            let best = &self.moves[0];
            if let Some(n) = limits.mate {
                if best.score > MATE_BOUND && (MATE - best.score + 1) / 2 <= n as i32 {
                    break;
                }
            }
            if self.worker.control.stop_requested() {
                break;
            }
            let nodes = self.worker.total_nodes();
            if nodes >= self.worker.node_limit || limits.soft_nodes.is_some_and(|n| nodes >= n) {
                break;
            }
            if self.worker.pondering && !self.worker.control.pondering() {
                self.worker.on_ponderhit();
            }
            stable = if best.mv == last_best { stable + 1 } else { 0 };
            last_best = best.mv;
            scores.push(best.score);
            let mut finishing = depth == max_depth;
            if let Some(b) = self.worker.budget {
                let iter_nodes = (self.worker.nodes - iteration_start_nodes).max(1);
                let best_nodes = best.nodes as f64 / iter_nodes as f64;
                let soft = self.soft_target(b, stable, &scores, best_nodes);
                let judged = Judged {
                    depth,
                    failed_low,
                    stable,
                    scores: &scores,
                    start_total: iteration_start_total,
                    soft,
                    hard_ms: b.hard_ms,
                };
                let at = secondary.after_iteration(
                    &judged,
                    self.worker,
                    &root,
                    &mut self.moves,
                    &mut *self.report,
                    options,
                );
                // The verification may have stopped the search (time, `stop`, nodes).
                let Some(target) = at else { break };
                if !self.worker.pondering {
                    finishing |= self.worker.thinking_ms() as f64 >= target;
                }
            }
            if finishing {
                break;
            }
        }
        secondary.report_change(&root, self.moves[0].mv, &mut *self.report);

        // After an interrupted iteration, a move that proved better than the previous best
        // in it (it is first after the sorting) is played, and shown.
        let best = &self.moves[0];
        if self.worker.stopped && best.shown_score != -INF && completed > 0 && best.mv != last_best
        {
            let line = self.line(0, completed as u32 + 1);
            (self.report)(SearchEvent::Line(LineInfo {
                bound: Bound::Lower,
                ..line
            }));
        }
        let best = &self.moves[self.strength_choice(options)];
        let pv = verified(&root, &best.pv);
        let ponder = pv.get(1).copied().or_else(|| self.ponder_from_tt(best.mv));
        let score = if best.shown_score != -INF {
            best.shown_score
        } else {
            best.prev_score
        };
        if let Some(b) = self
            .worker
            .budget
            .filter(|_| self.helper_id == 0 && !self.worker.pondering)
        {
            log::debug!(
                target: "time",
                "answered at {} ms of {} on the clock ({} ms kept for the machine's delays); longest wait for a core {:?}",
                self.worker.clock_ms(),
                b.hard_ms,
                limits.movetime.map_or(0, |mt| {
                    (mt - options.move_overhead_ms as i64).max(0) as u64
                }).saturating_sub(b.hard_ms),
                self.worker.longest_stall(),
            );
        }
        SearchResult {
            best: Some(best.mv),
            ponder,
            score: (score != -INF).then(|| to_public(score)),
            depth: completed.max(0) as u32,
            nodes: self.worker.total_nodes(),
            pv,
            surprise_depth: secondary.surprise_depth,
            longest_stall: self.worker.longest_stall(),
        }
    }

    /// The time manager's target after an iteration, in thinking milliseconds (pondering
    /// counts: the soft limits are on thinking time, the hard one on the clock): the soft
    /// limit scaled by how settled the search is, at most the hard limit.
    fn soft_target(&self, b: TimeBudget, stable: u32, scores: &[i32], best_nodes: f64) -> f64 {
        if !b.scalable {
            // A fixed time per move: all of it for iterations, one root move or many
            // (`go movetime T searchmoves M` is how a tool asks for the score of one move).
            return b.soft_ms as f64;
        }
        if self.moves.len() == 1 {
            // A forced move under a clock: one iteration for a score and a ponder move.
            return 0.0;
        }
        let n = scores.len();
        // The score drop against the average of the two iterations before.
        let drop = if n >= 3 {
            (scores[n - 2] + scores[n - 3]) / 2 - scores[n - 1]
        } else {
            0
        };
        let soft = b.soft_ms as f64 * time::soft_scale(stable, drop, best_nodes);
        soft.min(b.hard_ms as f64)
    }

    /// One depth for MultiPV line `pv_idx`, widening the window until the score fits.
    /// Returns whether the line failed low on the way.
    fn aspiration(&mut self, depth: i32, pv_idx: usize) -> bool {
        let mut failed_low = false;
        let centre = self.moves[pv_idx].prev_score;
        let mut delta = ASPIRATION_DELTA.get() + centre.abs() / 64;
        let (mut alpha, mut beta) = if depth >= ASPIRATION_DEPTH.get() && centre.abs() < MATE_BOUND
        {
            ((centre - delta).max(-INF), (centre + delta).min(INF))
        } else {
            (-INF, INF)
        };
        // Each fail high searches the next window one ply shallower: the line is already
        // known to be good, and the shallower search finds how good sooner.
        let mut fail_highs = 0;
        loop {
            let score = self.root_search((depth - fail_highs).max(1), alpha, beta, pv_idx);
            // Best first; moves that did not get a score this time keep their order.
            self.moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.worker.stopped {
                return failed_low;
            }
            if score <= alpha {
                failed_low = true;
                // Fail low: the line is worse than we thought; look lower, and keep beta
                // close, since the new best is likely just below.
                self.moves[pv_idx].bound = Bound::Upper;
                self.report_bound(pv_idx, depth);
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
                fail_highs = 0;
            } else if score >= beta {
                self.moves[pv_idx].bound = Bound::Lower;
                self.report_bound(pv_idx, depth);
                // Raise alpha too: the true score is at least beta, so a window from just
                // below it wastes nothing below.
                alpha = alpha.max(beta - delta);
                beta = (score + delta).min(INF);
                fail_highs = (fail_highs + 1).min(3);
            } else {
                self.moves[pv_idx].bound = Bound::Exact;
                return failed_low;
            }
            delta += delta / 2;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    fn report_bound(&mut self, pv_idx: usize, depth: i32) {
        let line = self.line(pv_idx, depth as u32);
        (self.report)(SearchEvent::Line(line));
    }

    /// The root node: like an interior PV node, but over the root move list, with
    /// `CurrMove` reports and per-move node counts.
    fn root_search(&mut self, depth: i32, mut alpha: i32, beta: i32, pv_idx: usize) -> i32 {
        let root = self.root;
        let w = &mut *self.worker;
        w.tally.node(0, false);
        w.tally.new_tree();
        w.tally.enter(0, alpha, beta, false);
        w.nodes += 1;
        w.begin_root(&root);
        w.td.stack[0].eval = if root.in_check() {
            NONE
        } else {
            w.evaluate(&root, 0)
        };
        w.td.stack[2].killers = [Move::NULL; 2];
        for rm in &mut self.moves[pv_idx..] {
            rm.score = -INF;
        }

        let mut best = -INF;
        for i in pv_idx..self.moves.len() {
            let m = self.moves[i].mv;
            let time_ms = self.worker.thinking_ms();
            (self.report)(SearchEvent::CurrMove {
                depth: depth as u32,
                mv: m,
                number: i + 1,
                time_ms,
            });
            let w = &mut *self.worker;
            let child = w.make(&root, m, 0);
            let gives_check = child.in_check();
            let extension = (w.switches.check_extension && gives_check) as i32;
            if extension > 0 {
                w.tally.add(Counter::CheckExtension);
            }
            let new_depth = depth - 1 + extension;
            w.td.pv_len[1] = 1;
            let nodes_before = w.nodes;

            w.tally.next_move(&root, m);
            let score = if i == pv_idx {
                -w.negamax::<true>(&child, -beta, -alpha, new_depth, 1, false)
            } else {
                let quiet = root.captured(m).is_none() && m.kind() != MoveKind::Promotion;
                let mut r = 0;
                if w.switches.lmr && depth >= 3 && i - pv_idx >= 3 && quiet && !gives_check {
                    r = (LMR.get(depth, i - pv_idx + 1) - 1).clamp(0, new_depth - 1);
                    if r > 0 {
                        w.tally.add(Counter::LmrReduction);
                    }
                }
                let mut v = -w.negamax::<false>(&child, -alpha - 1, -alpha, new_depth - r, 1, true);
                if v > alpha && r > 0 {
                    w.tally.add(Counter::LmrResearch);
                    w.tally.next_move(&root, m);
                    v = -w.negamax::<false>(&child, -alpha - 1, -alpha, new_depth, 1, true);
                }
                if v > alpha && v < beta {
                    w.td.pv_len[1] = 1;
                    w.tally.next_move(&root, m);
                    v = -w.negamax::<true>(&child, -beta, -alpha, new_depth, 1, false);
                }
                v
            };
            let spent = w.nodes - nodes_before;
            let seldepth = w.seldepth;
            self.moves[i].nodes += spent;
            if self.worker.stopped {
                break;
            }
            best = best.max(score);
            if i == pv_idx || score > alpha {
                let rm = &mut self.moves[i];
                rm.score = score;
                rm.shown_score = score;
                rm.seldepth = seldepth;
                rm.bound = Bound::of_node(score, beta, score > alpha);
                rm.pv.clear();
                rm.pv.push(m);
                let td = &self.worker.td;
                rm.pv.extend_from_slice(&td.pv[1][1..td.pv_len[1].max(1)]);
                if score >= beta {
                    if self.worker.tally.tracing() {
                        let rest: Vec<Move> = self.moves[i + 1..].iter().map(|rm| rm.mv).collect();
                        self.worker.tally.skipped(Counter::BetaCut, &root, &rest);
                    }
                    break;
                }
                alpha = alpha.max(score);
            }
        }
        self.worker.tally.leave(best);
        best
    }

    /// Before depth 1: order the root moves by a quiescence search of each, so that even a
    /// search stopped at once has a sensible first move.
    fn order_initially(&mut self) {
        let root = self.root;
        let w = &mut *self.worker;
        w.begin_root(&root);
        for rm in &mut self.moves {
            let child = w.make(&root, rm.mv, 0);
            rm.prev_score = -w.qsearch::<false>(&child, -INF, INF, 1, 0);
        }
        self.moves
            .sort_by_key(|rm| std::cmp::Reverse(rm.prev_score));
        for rm in &mut self.moves {
            rm.pv.push(rm.mv);
        }
    }

    /// `UCI_LimitStrength`: the index of the root move to play, chosen among the MultiPV
    /// lines of the last completed iteration (0 = the best, when strength is not limited).
    fn strength_choice(&self, options: &SearchOptions) -> usize {
        let Some(elo) = options.strength_elo else {
            return 0;
        };
        let mut lines: Vec<(i32, usize)> = (0..self.multipv)
            .filter(|&i| self.moves[i].prev_score != -INF)
            .map(|i| (self.moves[i].prev_score, i))
            .collect();
        if lines.len() < 2 {
            return 0;
        }
        lines.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        let scores: Vec<i32> = lines.iter().map(|l| l.0).collect();
        let mut rng = strength::Rng::from_time();
        lines[strength::choose(&scores, elo, &mut rng)].1
    }

    /// A reply to ponder on when the PV has only the best move: the table's move after it.
    fn ponder_from_tt(&self, best: Move) -> Option<Move> {
        let next = self.root.after(best);
        let hit = self.worker.tt.probe(next.key(), 1)?;
        is_legal(&next, hit.mv).then_some(hit.mv)
    }
}
