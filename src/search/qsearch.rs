//! Quiescence search: below the horizon only captures and promotions are searched (every
//! evasion when in check, and quiet checks at its first ply), with the static evaluation as a
//! floor the side to move can "stand pat" on — the lecture's "search on until the position is
//! quiet". Quiescence against the static evaluation at depth 0: +180 ± 44 Elo.

use super::alphabeta::sharpened;
use super::counter::Counter;
use super::params::DELTA_MARGIN;
use super::picker::{MovePicker, Stage};
use super::score::*;
use super::see::see_ge;
use super::tally::Tally;
use super::types::Bound;
use super::worker::{NodeBest, Worker};
use crate::chess::legality::gives_check;
use crate::chess::PIECE_VALUES;
use crate::chess::{GenType, Move, MoveList, Position};

impl<T: Tally> Worker<'_, T> {
    /// The quiescence value of `pos` within the window; `qdepth` counts down from 0 at the
    /// horizon (quiet checks are tried only at 0). A traced tree enters the node here.
    #[inline(always)]
    pub fn qsearch<const PV: bool>(
        &mut self,
        pos: &Position,
        alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> i32 {
        if !self.tally.tracing() {
            return self.qsearch_node::<PV>(pos, alpha, beta, ply, qdepth);
        }
        self.tally.enter(ply, alpha, beta, true);
        let v = self.qsearch_node::<PV>(pos, alpha, beta, ply, qdepth);
        self.tally.leave(v);
        v
    }

    /// The node itself (`qsearch` is its door, where a traced tree enters it).
    fn qsearch_node<const PV: bool>(
        &mut self,
        pos: &Position,
        alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> i32 {
        self.tally.node(ply, true);
        if let Some(v) = self.open_node::<PV>(pos, ply) {
            return v;
        }
        let in_check = pos.in_check();
        // Quiescence off: the horizon is the static evaluation (checks still get their
        // evasions searched, or mates would go unseen).
        if !self.switches.quiescence && !in_check {
            return self.evaluate(pos, ply);
        }

        let key = pos.key();
        self.tally.add(Counter::TtProbe);
        let tt = self.tt.probe(key, ply);
        if let Some(h) = tt {
            self.tally.add(Counter::TtHit);
            if !PV && h.bound.cuts(h.score, alpha, beta) {
                self.tally.ended(Counter::TtCut);
                return h.score;
            }
        }

        // Stand pat: the side to move need not capture (unless in check).
        let raw_eval;
        let mut best = NodeBest::new(alpha);
        if in_check {
            raw_eval = NONE;
        } else {
            raw_eval = match tt {
                Some(h) if h.eval != NONE => h.eval,
                _ => self.evaluate(pos, ply),
            };
            let moves = self.correction_moves(ply);
            let corrected = clamp_eval(raw_eval + self.td.correction.correction(pos, moves));
            best.score = sharpened(corrected, tt);
            if best.score >= beta {
                self.tally.ended(Counter::StandPat);
                return best.score;
            }
            best.alpha = alpha.max(best.score);
        }
        let stand_pat = best.score;

        let mut picker = MovePicker::quiescence(pos, tt.map_or(Move::NULL, |h| h.mv));
        let mut moves_searched = 0;
        while let Some(m) = picker.next(pos, &self.td.history) {
            self.tt.prefetch(pos.key_hint_after(m));
            if !in_check {
                // SEE pruning (SeePruning): losing captures (they come last) cannot raise
                // the score above standing pat.
                if self.switches.see && picker.stage() == Stage::BadNoisy {
                    self.tally.add(Counter::SeeQuiescence);
                    if self.tally.tracing() {
                        let mut rest = vec![m];
                        while let Some(r) = picker.next(pos, &self.td.history) {
                            rest.push(r);
                        }
                        self.tally.skipped(Counter::SeeQuiescence, pos, &rest);
                    }
                    break;
                }
                // Delta pruning (FutilityPruning): even winning the piece outright with a
                // margin to spare would not reach alpha.
                if self.switches.futility && m.promotion_piece().is_none() {
                    let gain = pos.captured(m).map_or(0, |t| PIECE_VALUES[t.index()]);
                    let margin = DELTA_MARGIN.get();
                    if stand_pat + gain + margin <= best.alpha {
                        best.score = best.score.max(stand_pat + gain + margin);
                        self.tally.pruned(Counter::Delta, pos, m);
                        continue;
                    }
                }
            }
            moves_searched += 1;
            if self.qsearch_move::<PV>(pos, m, &mut best, beta, ply, qdepth) {
                self.tally.add(Counter::QuiescenceCut);
                if self.tally.tracing() {
                    let mut rest = Vec::new();
                    while let Some(r) = picker.next(pos, &self.td.history) {
                        rest.push(r);
                    }
                    self.tally.skipped(Counter::QuiescenceCut, pos, &rest);
                }
                break;
            }
            if self.stopped {
                return 0;
            }
        }
        if in_check && moves_searched == 0 {
            return mated_in(ply);
        }

        // Quiet checks at the first quiescence ply: the mates and forks that captures alone
        // miss at the horizon (WAC solved by 60k nodes: 258 with them, 250 without).
        if qdepth == 0 && !in_check && best.score < beta {
            let mut quiets = MoveList::new();
            pos.generate(GenType::Quiet, &mut quiets);
            for &m in quiets.iter() {
                if !gives_check(pos, m) || !see_ge(pos, m, 0) {
                    continue;
                }
                if self.qsearch_move::<PV>(pos, m, &mut best, beta, ply, qdepth) {
                    self.tally.add(Counter::QuiescenceCut);
                    break;
                }
                if self.stopped {
                    return 0;
                }
            }
        }
        if self.stopped {
            return 0;
        }

        let bound = Bound::of_node(best.score, beta, PV && !best.mv.is_null());
        self.tt
            .store(key, ply, best.mv, best.score, raw_eval, 0, bound);
        best.score
    }

    /// Searches one move in quiescence and takes its score into `best`; true on a cut-off.
    #[inline(always)]
    fn qsearch_move<const PV: bool>(
        &mut self,
        pos: &Position,
        m: Move,
        best: &mut NodeBest,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> bool {
        self.tally.next_move(pos, m);
        let child = self.make(pos, m, ply);
        if PV {
            self.td.pv_len[ply + 1] = ply + 1;
        }
        let score = -self.qsearch::<PV>(&child, -beta, -best.alpha, ply + 1, qdepth - 1);
        if self.stopped {
            return false;
        }
        best.offer(m, score, beta, || {
            if PV {
                self.update_pv(ply, m)
            }
        })
    }
}
