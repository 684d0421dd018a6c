//! The α-β search proper: a fail-soft principal-variation negamax over the interior nodes.
//! The numbered steps follow the order in which a node does its work; each pruning or
//! extension rule says why it is sound enough, which switch turns it off and what it was
//! measured to be worth. Quiescence (below the horizon) is in `qsearch.rs`; the node
//! prologue, the limits and the make-move path in `worker.rs`.

use super::counter::Counter;
use super::params::*;
use super::picker::{MovePicker, Stage};
use super::score::*;
use super::see::see_ge;
use super::tally::Tally;
use super::thread::LMR;
use super::tt::TtHit;
use super::types::Bound;
use super::worker::{NodeBest, Worker};
use crate::chess::legality::{gives_check, has_non_pawn_material, is_noisy};
use crate::chess::{Move, Position};
use crate::tablebase::Wdl;

/// Most quiet moves remembered per node for the history malus.
const MAX_TRIED: usize = 64;

// The Elo figures in the step comments: the engine with all defaults against the engine with
// that one option changed (± 95%); an option covers every rule that names it. How they were
// measured: docs/search.md, "What each method is worth".
//
// The pruning rules' margins and depth limits are in `params.rs`, where a tuner reaches them.
// The WAC figures in the comments are positions of `../shared/suites/wac.epd` solved (right
// move found and kept) within 60k nodes (`scripts/suite --wac --nodes 60000`).

impl<T: Tally> Worker<'_, T> {
    /// The tablebase verdict on `pos` if the tables decide this node (see Step 4b).
    fn probe_tablebases(
        &mut self,
        pos: &Position,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let tb = self.tablebases.as_ref()?;
        let pieces = pos.occupied().count();
        let limit = tb.probe_limit.min(tb.tables.max_pieces());
        if pieces > limit || (pieces == limit && depth < tb.probe_depth as i32) {
            return None;
        }
        let mut wdl = tb.tables.probe_wdl(pos)?;
        if !tb.rule50 {
            wdl = wdl.without_50_move_rule();
        }
        self.tbhits += 1;
        let (score, bound) = match wdl {
            Wdl::Win => (TB_WIN - ply as i32, Bound::Lower),
            Wdl::Loss => (-TB_WIN + ply as i32, Bound::Upper),
            Wdl::CursedWin => (DRAW + 1, Bound::Exact),
            Wdl::BlessedLoss => (DRAW - 1, Bound::Exact),
            Wdl::Draw => (DRAW, Bound::Exact),
        };
        bound.cuts(score, alpha, beta).then_some(score)
    }

    /// Principal-variation search at an interior node (`ply` ≥ 1): the value of `pos` within
    /// the window (fail-soft), `depth` plies from the horizon. `cut_node`: expected to fail
    /// high (a null-window child of a PV or all node). When a tree is traced, the node is
    /// entered in it here (a node at the horizon enters as a quiescence node).
    #[inline(always)]
    pub fn negamax<const PV: bool>(
        &mut self,
        pos: &Position,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        if !self.tally.tracing() || depth <= 0 {
            return self.negamax_node::<PV>(pos, alpha, beta, depth, ply, cut_node);
        }
        self.tally.enter(ply, alpha, beta, false);
        let v = self.negamax_node::<PV>(pos, alpha, beta, depth, ply, cut_node);
        self.tally.leave(v);
        v
    }

    /// The node itself (`negamax` is its door, where a traced tree enters it).
    fn negamax_node<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        debug_assert!(PV || alpha + 1 == beta);
        debug_assert!(ply > 0);

        // Step 1. Horizon: from here on only captures (and checks) can change much.
        if depth <= 0 {
            return self.qsearch::<PV>(pos, alpha, beta, ply, 0);
        }
        // Step 2. Draws by rule, and the ply limit (in `open_node`).
        self.tally.node(ply, false);
        if let Some(v) = self.open_node::<PV>(pos, ply) {
            return v;
        }
        let in_check = pos.in_check();

        // Step 3. Mate distance pruning: a mate found nearer the root is better than any
        // result here can be.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }

        // Step 4. Transposition table: a deep enough earlier result decides non-PV nodes.
        // (Not near the 50-move horizon, where the same key may mean a different result.)
        let excluded = self.td.stack[ply].excluded;
        let key = pos.key();
        let tt = if excluded.is_null() {
            self.tally.add(Counter::TtProbe);
            self.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = tt.map_or(Move::NULL, |h| h.mv);
        if let Some(h) = tt {
            self.tally.add(Counter::TtHit);
            if !PV
                && h.depth >= depth
                && pos.halfmove_clock() < 90
                && h.bound.cuts(h.score, alpha, beta)
            {
                self.tally.ended(Counter::TtCut);
                return h.score;
            }
        }

        // Step 4b. Endgame tables (SyzygyPath): right after a capture or pawn move, a WDL
        // probe gives the exact result; a win or loss only bounds the score (mates are better).
        if excluded.is_null() && pos.halfmove_clock() == 0 {
            if let Some(score) = self.probe_tablebases(pos, depth, ply, alpha, beta) {
                self.tally.ended(Counter::Tablebase);
                return score;
            }
        }

        // Step 5. Static evaluation, corrected by what searches found under the same pawns
        // and pieces and after the same two moves, then sharpened by the table's bound when
        // it says more.
        let moves = self.correction_moves(ply);
        let (raw_eval, static_eval, eval) = if in_check {
            (NONE, NONE, NONE)
        } else {
            let raw = match tt {
                Some(h) if h.eval != NONE => h.eval,
                _ => self.evaluate(pos, ply),
            };
            let corrected = clamp_eval(raw + self.td.correction.correction(pos, moves));
            (raw, corrected, sharpened(corrected, tt))
        };
        self.td.stack[ply].eval = static_eval;
        // Better than at our previous move (or the one before, if that was in check):
        // pruning may be bolder when we are not improving.
        let before = match ply {
            2.. if self.td.stack[ply - 2].eval != NONE => self.td.stack[ply - 2].eval,
            4.. => self.td.stack[ply - 4].eval,
            _ => NONE,
        };
        let improving = !in_check && before != NONE && static_eval > before;
        self.td.stack[ply + 2].killers = [Move::NULL; 2];

        if !PV && !in_check && excluded.is_null() {
            // Step 6. Reverse futility pruning (FutilityPruning): so far above beta that
            // losing a margin per ply of remaining depth would still leave us above it.
            // On the raw evaluation: the table's sharper score often comes from a capture
            // in quiescence, blind to the quiet threat that refutes it (WAC solved by 60k
            // nodes: 267 this way, 259 with the table's score). FutilityPruning as a whole
            // (this, Step 10's futility and delta pruning): +127 ± 45 Elo.
            if self.switches.futility
                && depth <= RFP_DEPTH.get()
                && static_eval - RFP_MARGIN.get() * (depth - improving as i32) >= beta
            {
                self.tally.ended(Counter::ReverseFutility);
                return (eval + beta) / 2;
            }
            // (Razoring, the mirror image below alpha, was tried and cost tactics: WAC
            // solved by 60k nodes fell from 252 to 246.)

            // Step 7. Null-move pruning (NullMovePruning): if passing still leaves us above
            // beta, a real move will too. Zugzwang, where passing would be best, is guarded
            // against by requiring pieces besides pawns, and at high depth by a verification
            // search with real moves. +85 ± 41 Elo.
            if self.switches.null_move
                && depth >= NMP_DEPTH.get()
                && eval >= beta
                && ply >= self.nmp_min_ply
                && !self.td.stack[ply - 1].mv.is_null()
                && !is_mate(beta)
                && has_non_pawn_material(pos)
            {
                let r = NMP_BASE.get()
                    + depth / NMP_DEPTH_DIVISOR.get()
                    + ((eval - beta) / NMP_EVAL_DIVISOR.get()).min(3);
                self.tally.add(Counter::NullMoveTry);
                self.tally.next_label("null");
                let child = self.make_null(pos, ply);
                let v =
                    -self.negamax::<false>(&child, -beta, -beta + 1, depth - r, ply + 1, !cut_node);
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    // A mate found after passing is not a proven mate.
                    let v = if is_mate(v) { beta } else { v };
                    if depth < NMP_VERIFY_DEPTH.get() || self.nmp_min_ply != 0 {
                        self.tally.ended(Counter::NullMoveCut);
                        return v;
                    }
                    self.nmp_min_ply = ply + 3 * (depth - r) as usize / 4;
                    self.tally.next_label("verify");
                    let w = self.negamax::<false>(pos, beta - 1, beta, depth - r, ply, false);
                    self.nmp_min_ply = 0;
                    if self.stopped {
                        return 0;
                    }
                    if w >= beta {
                        self.tally.ended(Counter::NullMoveCut);
                        return v;
                    }
                }
            }
        }

        // Step 8. Internal iterative reduction (LateMoveReductions): without a hash move
        // the ordering is poor, and a shallower search here costs less than a full one.
        // LateMoveReductions as a whole (this and Step 13): +203 ± 46 Elo.
        if self.switches.lmr && depth >= IIR_DEPTH.get() && tt_move.is_null() && (PV || cut_node) {
            self.tally.add(Counter::Iir);
            depth -= 1;
        }

        // Step 9. The moves, best first.
        let killers = self.td.stack[ply].killers;
        let prev = self.td.stack[ply - 1].piece_to;
        let cont = [
            prev,
            if ply >= 2 {
                self.td.stack[ply - 2].piece_to
            } else {
                None
            },
        ];
        let counter = self.td.history.counter(prev);
        let mut picker = MovePicker::new(pos, tt_move, killers, counter, cont);

        let mut best = NodeBest::new(alpha);
        let mut moves_searched = 0usize;
        let mut quiets = [Move::NULL; MAX_TRIED];
        let mut n_quiets = 0;
        let mut captures = [Move::NULL; MAX_TRIED];
        let mut n_captures = 0;
        let lmp_limit = (3 + depth * depth) as usize / (2 - improving as usize);
        let may_prune = has_non_pawn_material(pos);

        while let Some(m) = picker.next(pos, &self.td.history) {
            if m == excluded {
                continue;
            }
            // The child's table entry starts loading now, while the move is judged.
            self.tt.prefetch(pos.key_hint_after(m));
            let quiet = !is_noisy(pos, m);
            let gives_check = gives_check(pos, m);
            let lmr_depth = (depth - LMR.get(depth, moves_searched + 1)).max(0);

            // Step 10. Move pruning, once a move has saved us from being mated. Checks are
            // spared the quiet-move rules but the last: at the horizon they are where
            // combinations hide.
            if best.score > -MATE_BOUND && may_prune {
                // Late move pruning (LateMovePruning): at low depth, quiet moves this late in
                // a well-ordered list almost never matter, checks included, so the picker
                // stops yielding them. +51 ± 37 Elo.
                let late =
                    self.switches.lmp && depth <= LMP_DEPTH.get() && moves_searched >= lmp_limit;
                if late {
                    picker.skip_quiets();
                }
                if quiet && !gives_check {
                    if late {
                        self.tally.pruned(Counter::LateMovePrune, pos, m);
                        continue;
                    }
                    // Futility pruning (FutilityPruning): a quiet move cannot add enough
                    // to a static evaluation this far below alpha.
                    if self.switches.futility
                        && !in_check
                        && lmr_depth <= FUTILITY_DEPTH.get()
                        && eval + FUTILITY_BASE.get() + FUTILITY_PER_DEPTH.get() * lmr_depth
                            <= best.alpha
                    {
                        self.tally.pruned(Counter::Futility, pos, m);
                        continue;
                    }
                    // SEE pruning (SeePruning): quiet moves that hang material. SeePruning
                    // as a whole (here, captures below, quiescence): +139 ± 40 Elo.
                    if self.switches.see
                        && lmr_depth <= SEE_DEPTH.get()
                        && !see_ge(pos, m, -SEE_QUIET.get() * lmr_depth * lmr_depth)
                    {
                        self.tally.pruned(Counter::SeeQuiet, pos, m);
                        continue;
                    }
                } else if self.switches.see
                    && depth <= SEE_DEPTH.get()
                    && picker.stage() != Stage::GoodNoisy
                {
                    // SEE pruning (SeePruning): captures losing more than a pawn per ply of
                    // depth; checking sacrifices get three times the room.
                    let per_ply = if gives_check {
                        SEE_CHECK.get()
                    } else {
                        SEE_CAPTURE.get()
                    };
                    if !see_ge(pos, m, -per_ply * depth) {
                        self.tally.pruned(Counter::SeeNoisy, pos, m);
                        continue;
                    }
                }
            }

            // Step 11. Singular extension (SingularExtensions): when the hash move is far
            // better than every alternative (a reduced search without it fails low well
            // below its score), the line hangs on it: search it deeper. If even without it
            // we beat beta, two moves do: cut (multi-cut). +47 ± 39 Elo (on by default since;
            // no WAC gain: 276 with, 274 without).
            let mut extension = 0;
            if let Some(h) = tt.filter(|_| self.switches.singular && m == tt_move) {
                if depth >= SE_DEPTH.get()
                    && h.depth >= depth - 3
                    && h.bound != Bound::Upper
                    && !is_mate(h.score)
                    && ply < 2 * self.root_depth as usize
                {
                    let s_beta = h.score - SE_MARGIN.get() * depth;
                    self.td.stack[ply].excluded = m;
                    self.tally.next_label("singular");
                    let v = self.negamax::<false>(
                        pos,
                        s_beta - 1,
                        s_beta,
                        (depth - 1) / 2,
                        ply,
                        cut_node,
                    );
                    self.td.stack[ply].excluded = Move::NULL;
                    if self.stopped {
                        return 0;
                    }
                    if v < s_beta {
                        extension = 1 + (!PV && v < s_beta - SE_DOUBLE_MARGIN.get()) as i32;
                        self.tally.add(Counter::SingularExtension);
                        if extension == 2 {
                            self.tally.add(Counter::DoubleExtension);
                        }
                    } else if s_beta >= beta {
                        self.tally.ended(Counter::MultiCut);
                        return s_beta;
                    }
                }
            }

            // Step 12. Check extension (CheckExtension): a check may be the start of a
            // combination the horizon would cut in half. Bounded so lines cannot explode.
            // Off by default: at 8+0.08 it cost 30.3 ± 13.8 Elo (1000 games; it
            // had shown +10 ± 40 in 200 games at 1+0.01). Here for the ablation and for
            // whoever finds a form that pays (a check that loses material, say, not extended).
            if extension == 0
                && self.switches.check_extension
                && gives_check
                && ply < 2 * self.root_depth as usize
            {
                extension = 1;
                self.tally.add(Counter::CheckExtension);
            }
            let new_depth = depth - 1 + extension;

            self.tally.next_move(pos, m);
            let child = self.make(pos, m, ply);
            moves_searched += 1;
            if PV {
                self.td.pv_len[ply + 1] = ply + 1;
            }

            let alpha = best.alpha;
            let mut score;
            if moves_searched == 1 {
                score = -self.negamax::<PV>(
                    &child,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !PV && !cut_node,
                );
            } else {
                // Step 13. Late move reductions (LateMoveReductions): later quiet moves are
                // searched shallower with a null window, and again at full depth only if
                // they surprise. Checks and captures are not reduced (tactics).
                let mut r = 0;
                if self.switches.lmr && depth >= 3 && quiet && !gives_check {
                    r = LMR.get(depth, moves_searched);
                    r += cut_node as i32;
                    r += !improving as i32;
                    r -= self.td.history.quiet_score(pos, m, &cont) / LMR_HISTORY_DIVISOR.get();
                    r = r.clamp(0, new_depth - 1);
                    if r > 0 {
                        self.tally.add(Counter::LmrReduction);
                    }
                }
                score = -self.negamax::<false>(
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth - r,
                    ply + 1,
                    true,
                );
                if score > alpha && r > 0 {
                    self.tally.add(Counter::LmrResearch);
                    self.tally.next_move(pos, m);
                    score = -self.negamax::<false>(
                        &child,
                        -alpha - 1,
                        -alpha,
                        new_depth,
                        ply + 1,
                        !cut_node,
                    );
                }
                if PV && score > alpha && score < beta {
                    self.tally.next_move(pos, m);
                    score = -self.negamax::<true>(&child, -beta, -alpha, new_depth, ply + 1, false);
                }
            }
            if self.stopped {
                return 0;
            }

            if best.offer(m, score, beta, || {
                if PV {
                    self.update_pv(ply, m)
                }
            }) {
                self.tally.add(Counter::BetaCut);
                if moves_searched == 1 {
                    self.tally.add(Counter::FirstMoveCut);
                }
                if self.tally.tracing() {
                    let mut rest = Vec::new();
                    while let Some(r) = picker.next(pos, &self.td.history) {
                        if r != excluded {
                            rest.push(r);
                        }
                    }
                    self.tally.skipped(Counter::BetaCut, pos, &rest);
                }
                break;
            }
            if m != best.mv {
                if quiet && n_quiets < MAX_TRIED {
                    quiets[n_quiets] = m;
                    n_quiets += 1;
                } else if !quiet && n_captures < MAX_TRIED {
                    captures[n_captures] = m;
                    n_captures += 1;
                }
            }
        }

        // Step 14. No move: mate or stalemate (or every move but the excluded one pruned).
        if moves_searched == 0 {
            if !excluded.is_null() {
                return alpha;
            }
            return if in_check { mated_in(ply) } else { DRAW };
        }

        // Step 15. Learn from a cut-off: the move that cut, and the ones that did not.
        let best_move = best.mv;
        if best.score >= beta {
            let hist = &mut self.td.history;
            if !is_noisy(pos, best_move) {
                let k = &mut self.td.stack[ply].killers;
                if k[0] != best_move {
                    k[1] = k[0];
                    k[0] = best_move;
                }
                hist.update_quiets(pos, best_move, &quiets[..n_quiets], &cont, depth);
                hist.set_counter(prev, best_move);
            } else {
                hist.update_capture(pos, best_move, depth, true);
            }
            for &c in &captures[..n_captures] {
                hist.update_capture(pos, c, depth, false);
            }
        }

        // Step 16. Remember the result: in the table (with the raw evaluation, which the
        // correction is applied to afresh), and how far the evaluation was off — when the
        // result is about the position rather than a capture's gain, and its bound says the
        // error's sign.
        if excluded.is_null() {
            let bound = Bound::of_node(best.score, beta, PV && !best_move.is_null());
            self.tt
                .store(key, ply, best_move, best.score, raw_eval, depth, bound);
            if !in_check
                && (best_move.is_null() || !is_noisy(pos, best_move))
                && !is_mate(best.score)
                && match bound {
                    Bound::Lower => best.score > static_eval,
                    Bound::Upper => best.score < static_eval,
                    Bound::Exact => true,
                }
            {
                self.td
                    .correction
                    .update(pos, moves, depth, best.score, raw_eval);
            }
        }
        best.score
    }
}

/// The static evaluation, replaced by the table's score when its bound says the true value
/// lies beyond the evaluation in that direction.
#[inline(always)]
pub fn sharpened(eval: i32, tt: Option<TtHit>) -> i32 {
    match tt {
        Some(h)
            if !is_mate(h.score)
                && match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => h.score > eval,
                    Bound::Upper => h.score < eval,
                } =>
        {
            h.score
        }
        _ => eval,
    }
}
