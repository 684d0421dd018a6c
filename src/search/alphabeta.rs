//! The α-β search proper: a fail-soft principal-variation negamax and the quiescence search
//! below its horizon. The numbered steps follow the order in which a node does its work; each
//! pruning or extension rule says why it is sound enough, and which switch turns it off.

use super::history::{piece_to, Histories, PieceTo};
use super::legality::{gives_check, has_non_pawn_material, insufficient_material, is_noisy};
use super::picker::{MovePicker, Stage};
use super::score::*;
use super::see::see_ge;
use super::time::TimeBudget;
use super::tt::TranspositionTable;
use super::tune_tmp::P;
use super::{Bound, SearchControl, SearchOptions};
use crate::chess::{GenType, Move, MoveList, PieceType, Position};
use crate::eval::PIECE_VALUES;
use std::time::Instant;

/// Which of the switchable methods are on, resolved once per search (the master switch
/// `forward_pruning` already folded in), so that a node tests plain booleans.
#[derive(Clone, Copy, Debug)]
pub struct Switches {
    pub null_move: bool,
    pub lmr: bool,
    pub futility: bool,
    pub lmp: bool,
    pub see: bool,
    pub quiescence: bool,
    pub check_extension: bool,
}

impl Switches {
    pub fn from_options(o: &SearchOptions) -> Switches {
        let off = std::env::var("OFF").unwrap_or_default();
        let on = |w: &str| !off.split(',').any(|x| x == w);
        let fp = o.forward_pruning && on("fp");
        Switches {
            null_move: fp && o.null_move_pruning && on("null"),
            lmr: fp && o.late_move_reductions && on("lmr"),
            futility: fp && o.futility_pruning && on("fut"),
            lmp: fp && o.late_move_pruning && on("lmp"),
            see: fp && o.see_pruning && on("see"),
            quiescence: o.quiescence && on("qs"),
            check_extension: o.check_extension && on("chk"),
        }
    }
}

/// What the search remembers about each ply of the current line.
#[derive(Clone, Copy)]
pub struct Frame {
    /// Static evaluation (`NONE` in check).
    pub eval: i32,
    pub killers: [Move; 2],
    /// The move played from this ply (`NULL` for a null move).
    pub mv: Move,
    /// Its piece-to slot for continuation history (`None` for a null move).
    pub piece_to: Option<PieceTo>,
    /// A move to leave out (singular-extension searches).
    pub excluded: Move,
    /// Plies since the last null move: repetitions are not looked for across one.
    pub plies_from_null: usize,
}

impl Frame {
    const EMPTY: Frame = Frame {
        eval: NONE,
        killers: [Move::NULL; 2],
        mv: Move::NULL,
        piece_to: None,
        excluded: Move::NULL,
        plies_from_null: 0,
    };
}

/// Late-move-reduction table, `[depth][move number]`, log-based: reductions grow with both
/// the remaining depth and how late the move comes in the ordering.
pub struct LmrTable([[i32; 64]; 64]);

impl LmrTable {
    fn new() -> LmrTable {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (P.lmr_base as f64 / 100.0
                    + (d as f64).ln() * (m as f64).ln() / (P.lmr_div as f64 / 100.0))
                    as i32;
            }
        }
        LmrTable(t)
    }

    #[inline(always)]
    pub fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[(depth as usize).min(63)][moves.min(63)]
    }
}

/// What lives across searches and is too large for the stack.
pub struct Tables {
    pub hist: Box<Histories>,
    pub stack: [Frame; MAX_PLY + 4],
    /// Triangular PV table: `pv[ply][ply..pv_len[ply]]` is the best line found from `ply`.
    pub pv: [[Move; MAX_PLY + 1]; MAX_PLY + 1],
    pub pv_len: [usize; MAX_PLY + 1],
    pub lmr: LmrTable,
    /// Keys of the game's positions, then of the current line (`root_idx + ply`).
    pub keys: Vec<u64>,
}

impl Tables {
    pub fn new() -> Box<Tables> {
        Box::new(Tables {
            hist: Histories::new(),
            stack: [Frame::EMPTY; MAX_PLY + 4],
            pv: [[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            lmr: LmrTable::new(),
            keys: Vec::new(),
        })
    }

    pub fn clear(&mut self) {
        self.hist.clear();
        self.stack = [Frame::EMPTY; MAX_PLY + 4];
    }
}

/// One search in progress.
pub struct Search<'a> {
    pub tt: &'a TranspositionTable,
    pub t: &'a mut Tables,
    pub control: &'a SearchControl,
    pub sw: Switches,
    pub nodes: u64,
    /// Highest ply reached (plus one) in the current iteration.
    pub seldepth: usize,
    pub stopped: bool,
    pub root_idx: usize,
    pub node_limit: u64,
    pub budget: Option<TimeBudget>,
    /// When the clock started: the search start, or the ponderhit.
    pub clock_start: Instant,
    pub start: Instant,
    pub pondering: bool,
    /// Limits other than an explicit stop apply only once depth 1 is done.
    pub depth1_done: bool,
    pub root_depth: i32,
    /// Null-move verification: no null move for the side to move below this ply.
    nmp_min_ply: usize,
}

/// Most quiet moves remembered per node for the history malus.
const MAX_TRIED: usize = 64;

impl<'a> Search<'a> {
    pub fn new(
        tt: &'a TranspositionTable,
        t: &'a mut Tables,
        control: &'a SearchControl,
        sw: Switches,
    ) -> Search<'a> {
        let now = Instant::now();
        Search {
            tt,
            t,
            control,
            sw,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_idx: 0,
            node_limit: u64::MAX,
            budget: None,
            clock_start: now,
            start: now,
            pondering: control.pondering(),
            depth1_done: false,
            root_depth: 0,
            nmp_min_ply: 0,
        }
    }

    /// Milliseconds on the move's clock (since the search began or the ponderhit).
    pub fn clock_ms(&self) -> u64 {
        self.clock_start.elapsed().as_millis() as u64
    }

    /// Polled every 1024 nodes (and at every node past a node limit).
    #[cold]
    pub fn check_limits(&mut self) {
        if self.control.stop_requested() {
            self.stopped = true;
            return;
        }
        if self.pondering && !self.control.pondering() {
            // Ponderhit: from now on this is our move, on our clock.
            self.pondering = false;
            self.clock_start = Instant::now();
        }
        if !self.depth1_done {
            return;
        }
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if let Some(b) = self.budget {
            if !self.pondering && self.clock_ms() >= b.hard_ms {
                self.stopped = true;
            }
        }
    }

    #[inline(always)]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & 1023 == 0 || self.nodes >= self.node_limit {
            self.check_limits();
        }
    }

    #[inline(always)]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        clamp_eval(crate::eval::evaluate(pos))
    }

    /// Sets up the frames for the move `m` (or a null move) played at `ply`.
    #[inline(always)]
    pub fn enter(&mut self, pos: &Position, m: Move, ply: usize) {
        let f = &mut self.t.stack[ply];
        f.mv = m;
        f.piece_to = if m.is_null() {
            None
        } else {
            pos.piece_at(m.from()).map(|p| piece_to(p, m))
        };
        let from_null = if m.is_null() {
            0
        } else {
            f.plies_from_null + 1
        };
        self.t.stack[ply + 1].plies_from_null = from_null;
    }

    /// Repetition: twice in the game before the root, or once anywhere since the root (the
    /// side that could repeat can do so again, so the line is a draw).
    fn is_repetition(&self, pos: &Position, ply: usize) -> bool {
        let cur = self.root_idx + ply;
        let reach = (pos.halfmove_clock() as usize)
            .min(self.t.stack[ply].plies_from_null)
            .min(cur);
        let key = pos.key();
        let mut seen_before_root = 0;
        let mut back = 4;
        while back <= reach {
            let i = cur - back;
            if self.t.keys[i] == key {
                if i >= self.root_idx {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root == 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// Draws by rule inside the tree. The 50-move rule yields to a mate on the 100th ply.
    #[inline(always)]
    fn is_draw(&self, pos: &Position, ply: usize) -> bool {
        if pos.halfmove_clock() >= 100 {
            return !pos.in_check() || pos.has_legal_move();
        }
        self.is_repetition(pos, ply) || insufficient_material(pos)
    }

    /// Updates the triangular PV at `ply` with `m` followed by the child's line.
    #[inline(always)]
    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.t.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.t.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[ply] = m;
        row[ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.t.pv_len[ply] = child_len;
    }

    /// Principal-variation search at an interior node (`ply` ≥ 1).
    pub fn negamax<const PV: bool>(
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

        // Step 1. Horizon: from here on only captures can change the score much.
        if depth <= 0 {
            return self.qsearch::<PV>(pos, alpha, beta, ply, 0);
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        if PV {
            self.t.pv_len[ply] = ply;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        self.t.keys[self.root_idx + ply] = pos.key();
        let in_check = pos.in_check();

        // Step 2. Draws by rule, and the ply limit.
        if self.is_draw(pos, ply) {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { self.evaluate(pos) };
        }

        // Step 3. Mate distance pruning: a mate found nearer the root is better than any
        // result here can be.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }

        // Step 4. Transposition table: a deep enough earlier result decides non-PV nodes.
        // (Not near the 50-move horizon, where the same key may mean a different result.)
        let excluded = self.t.stack[ply].excluded;
        let key = pos.key();
        let tt = if excluded.is_null() {
            self.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = tt.map_or(Move::NULL, |h| h.mv);
        if let Some(h) = tt {
            if !PV
                && h.depth >= depth
                && pos.halfmove_clock() < 90
                && match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => h.score >= beta,
                    Bound::Upper => h.score <= alpha,
                }
            {
                return h.score;
            }
        }

        // Step 5. Static evaluation, sharpened by the table's bound when it says more.
        let raw_eval;
        let mut eval;
        if in_check {
            raw_eval = NONE;
            eval = NONE;
        } else {
            raw_eval = match tt {
                Some(h) if h.eval != NONE => h.eval,
                _ => self.evaluate(pos),
            };
            eval = raw_eval;
            if let Some(h) = tt {
                if !is_mate(h.score)
                    && match h.bound {
                        Bound::Exact => true,
                        Bound::Lower => h.score > eval,
                        Bound::Upper => h.score < eval,
                    }
                {
                    eval = h.score;
                }
            }
        }
        self.t.stack[ply].eval = raw_eval;
        // Better than two plies ago: pruning may be bolder when we are not improving.
        let improving = !in_check && ply >= 2 && raw_eval > self.t.stack[ply - 2].eval;
        self.t.stack[ply + 2].killers = [Move::NULL; 2];

        let mut mate_threat = false;
        if !PV && !in_check && excluded.is_null() {
            // Step 6. Reverse futility pruning (FutilityPruning): so far above beta that
            // losing a margin per ply of remaining depth would still leave us above it.
            if self.sw.futility
                && depth <= P.rfp_depth
                && eval < MATE_BOUND
                && eval - P.rfp_margin * (depth - improving as i32) >= beta
            {
                return (eval + beta) / 2;
            }

            // Step 7. Razoring (FutilityPruning): hopelessly below alpha at low depth; if
            // the captures cannot lift us either, give up on this node.
            if self.sw.futility
                && depth <= P.razor_depth
                && eval + P.razor_base + P.razor_mul * depth <= alpha
            {
                let v = self.qsearch::<false>(pos, alpha, alpha + 1, ply, 0);
                if v <= alpha {
                    return v;
                }
            }

            // Step 8. Null-move pruning (NullMovePruning): if passing still leaves us above
            // beta, a real move will too (unless in zugzwang: none without pieces; verified
            // by a reduced real search at high depth).
            if self.sw.null_move
                && depth >= 3
                && eval >= beta
                && ply >= self.nmp_min_ply
                && !self.t.stack[ply - 1].mv.is_null()
                && !is_mate(beta)
                && has_non_pawn_material(pos)
            {
                let r = 3 + depth / P.nmp_div + ((eval - beta) / 200).min(3);
                let mut child = *pos;
                child.play_null();
                self.enter(pos, Move::NULL, ply);
                let v =
                    -self.negamax::<false>(&child, -beta, -beta + 1, depth - r, ply + 1, !cut_node);
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    let v = if is_mate(v) { beta } else { v };
                    if depth < P.nmp_verify || self.nmp_min_ply != 0 {
                        return v;
                    }
                    // Verification: the same reduced search with real moves, null moves off
                    // for us for the next plies.
                    self.nmp_min_ply = ply + 3 * (depth - r) as usize / 4;
                    let w = self.negamax::<false>(pos, beta - 1, beta, depth - r, ply, false);
                    self.nmp_min_ply = 0;
                    if self.stopped {
                        return 0;
                    }
                    if w >= beta {
                        return v;
                    }
                } else if P.mate_threat != 0 && v < -MATE_BOUND {
                    mate_threat = true;
                }
            }
        }

        // Step 9. Internal iterative reduction (LateMoveReductions): with no hash move the
        // ordering is poor and a shallower search here is cheaper than a full one.
        if P.iir != 0 && self.sw.lmr && depth >= 4 && tt_move.is_null() && (PV || cut_node) {
            depth -= 1;
        }

        if mate_threat {
            depth += 1;
        }

        // Step 10. The moves.
        let killers = self.t.stack[ply].killers;
        let prev = self.t.stack[ply - 1].piece_to;
        let cont = [
            prev,
            if ply >= 2 {
                self.t.stack[ply - 2].piece_to
            } else {
                None
            },
        ];
        let counter = self.t.hist.counter(prev);
        let mut picker = MovePicker::new(pos, tt_move, killers, counter, cont);

        let mut best = -INF;
        let mut best_move = Move::NULL;
        let mut moves_searched = 0usize;
        let mut quiets = [Move::NULL; MAX_TRIED];
        let mut n_quiets = 0;
        let mut captures = [Move::NULL; MAX_TRIED];
        let mut n_captures = 0;
        let lmp_limit = (P.lmp_base + depth * depth) as usize / (2 - improving as usize);

        while let Some(m) = picker.next(pos, &self.t.hist) {
            if m == excluded {
                continue;
            }
            let quiet = !is_noisy(pos, m);
            let gives_check = gives_check(pos, m);
            let lmr_depth = (depth - self.t.lmr.get(depth, moves_searched + 1)).max(0);

            // Step 11. Move pruning, once a move has saved us from being mated. Checks are
            // spared the quiet-move rules: at the horizon they are where combinations hide.
            if best > -MATE_BOUND && has_non_pawn_material(pos) {
                let advanced_pawn = P.pawn_push_exempt != 0
                    && pos
                        .piece_at(m.from())
                        .is_some_and(|p| p.kind() == PieceType::Pawn)
                    && pos.side_to_move().relative_rank(m.to().rank()) >= 5;
                if quiet && !gives_check && !advanced_pawn {
                    // Late move pruning (LateMovePruning): at low depth, quiet moves this
                    // late in a well-ordered list almost never matter.
                    if self.sw.lmp && depth <= 8 && moves_searched >= lmp_limit {
                        continue;
                    }
                    // Futility pruning (FutilityPruning): a quiet move cannot add enough
                    // to a static evaluation this far below alpha.
                    if self.sw.futility
                        && !in_check
                        && lmr_depth <= P.fut_depth
                        && eval + P.fut_base + P.fut_mul * lmr_depth <= alpha
                    {
                        continue;
                    }
                    // SEE pruning (SeePruning): quiet moves that hang material.
                    if self.sw.see
                        && lmr_depth <= 8
                        && !see_ge(pos, m, -P.see_quiet * lmr_depth * lmr_depth)
                    {
                        continue;
                    }
                } else if self.sw.see
                    && depth <= 8
                    && !see_ge(
                        pos,
                        m,
                        -(if gives_check {
                            P.see_check
                        } else {
                            P.see_noisy
                        }) * depth,
                    )
                {
                    // SEE pruning (SeePruning): captures and checks losing more than a pawn
                    // per ply of depth.
                    continue;
                }
            }

            let child = pos.after(m);

            // Step 12. Check extension (CheckExtension): a check may be the start of a
            // combination the horizon would cut in half. Bounded so lines cannot explode.
            let mut extension = 0;
            if self.sw.check_extension
                && gives_check
                && ply < 2 * self.root_depth as usize
                && (P.chk_see == 0 || see_ge(pos, m, 0))
            {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;

            moves_searched += 1;
            self.enter(pos, m, ply);
            if PV {
                self.t.pv_len[ply + 1] = ply + 1;
            }

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
                // Step 13. Late move reductions (LateMoveReductions): later moves are
                // searched shallower with a null window, and again at full depth only if
                // they surprise.
                let mut r = 0;
                if self.sw.lmr && depth >= 3 && moves_searched > 1 + PV as usize {
                    if quiet || (P.lmr_noisy != 0 && picker.stage() == Stage::BadNoisy) {
                        r = self.t.lmr.get(depth, moves_searched);
                        r += P.lmr_nonpv * !PV as i32;
                        r += P.lmr_cut * cut_node as i32;
                        r += P.lmr_impr * !improving as i32;
                        r -= P.lmr_check * gives_check as i32;
                        if quiet {
                            r -= self.t.hist.quiet_score(pos, m, &cont) / P.lmr_hist;
                        }
                        r = r.clamp(0, new_depth - 1);
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
                    score = -self.negamax::<true>(&child, -beta, -alpha, new_depth, ply + 1, false);
                }
            }
            if self.stopped {
                return 0;
            }

            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    if PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
            if m != best_move {
                if quiet && n_quiets < MAX_TRIED {
                    quiets[n_quiets] = m;
                    n_quiets += 1;
                } else if !quiet && n_captures < MAX_TRIED {
                    captures[n_captures] = m;
                    n_captures += 1;
                }
            }
        }

        // Step 14. No move: mate or stalemate (or every move was excluded).
        if moves_searched == 0 {
            if !excluded.is_null() {
                return alpha;
            }
            return if in_check { mated_in(ply) } else { DRAW };
        }

        // Step 15. Learn from a cut-off: the move that cut, and the ones that did not.
        if best >= beta {
            let hist = &mut self.t.hist;
            if !is_noisy(pos, best_move) {
                let k = &mut self.t.stack[ply].killers;
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

        // Step 16. Remember the result.
        if excluded.is_null() {
            let bound = if best >= beta {
                Bound::Lower
            } else if PV && !best_move.is_null() {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt
                .store(key, ply, best_move, best, raw_eval, depth, bound);
        }
        best
    }

    /// Quiescence search: only captures and promotions (every evasion when in check), with
    /// the static evaluation as a floor the side to move can "stand pat" on.
    pub fn qsearch<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> i32 {
        self.count_node();
        if self.stopped {
            return 0;
        }
        if PV {
            self.t.pv_len[ply] = ply;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        self.t.keys[self.root_idx + ply] = pos.key();
        let in_check = pos.in_check();

        if self.is_draw(pos, ply) {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { self.evaluate(pos) };
        }
        // Quiescence off: the horizon is the static evaluation (checks still get their
        // evasions searched, or mates would go unseen).
        if !self.sw.quiescence && !in_check {
            return self.evaluate(pos);
        }

        let key = pos.key();
        let tt = self.tt.probe(key, ply);
        if let Some(h) = tt {
            if !PV
                && match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => h.score >= beta,
                    Bound::Upper => h.score <= alpha,
                }
            {
                return h.score;
            }
        }

        // Stand pat: the side to move need not capture.
        let raw_eval;
        let mut best;
        if in_check {
            raw_eval = NONE;
            best = -INF;
        } else {
            raw_eval = match tt {
                Some(h) if h.eval != NONE => h.eval,
                _ => self.evaluate(pos),
            };
            best = raw_eval;
            if let Some(h) = tt {
                if !is_mate(h.score)
                    && match h.bound {
                        Bound::Exact => true,
                        Bound::Lower => h.score > best,
                        Bound::Upper => h.score < best,
                    }
                {
                    best = h.score;
                }
            }
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }
        let stand_pat = best;

        let mut picker = MovePicker::quiescence(pos, tt.map_or(Move::NULL, |h| h.mv));
        let mut best_move = Move::NULL;
        let mut moves_searched = 0;
        while let Some(m) = picker.next(pos, &self.t.hist) {
            if !in_check {
                // SEE pruning (SeePruning): losing captures (they come last) cannot raise
                // the score above standing pat.
                if self.sw.see && picker.stage() == Stage::BadNoisy {
                    break;
                }
                // Delta pruning (FutilityPruning): even winning the piece outright with a
                // margin to spare would not reach alpha.
                if self.sw.futility && m.promotion_piece().is_none() {
                    let gain = pos.captured(m).map_or(0, |t| PIECE_VALUES[t.index()]);
                    if stand_pat + gain + P.delta <= alpha {
                        best = best.max(stand_pat + gain + P.delta);
                        continue;
                    }
                }
            }
            let child = pos.after(m);
            moves_searched += 1;
            self.enter(pos, m, ply);
            if PV {
                self.t.pv_len[ply + 1] = ply + 1;
            }
            let score = -self.qsearch::<PV>(&child, -beta, -alpha, ply + 1, qdepth - 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    if PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        if in_check && moves_searched == 0 {
            return mated_in(ply);
        }
        // Quiet checks at the first quiescence ply: mates and forks the captures miss.
        if P.qs_checks != 0 && qdepth == 0 && !in_check && best < beta && !self.stopped {
            let mut quiets = MoveList::new();
            pos.generate(GenType::Quiet, &mut quiets);
            for &m in quiets.iter() {
                if !gives_check(pos, m) || !see_ge(pos, m, 0) {
                    continue;
                }
                let child = pos.after(m);
                self.enter(pos, m, ply);
                if PV {
                    self.t.pv_len[ply + 1] = ply + 1;
                }
                let score = -self.qsearch::<PV>(&child, -beta, -alpha, ply + 1, qdepth - 1);
                if self.stopped {
                    return 0;
                }
                if score > best {
                    best = score;
                    if score > alpha {
                        best_move = m;
                        if PV {
                            self.update_pv(ply, m);
                        }
                        if score >= beta {
                            break;
                        }
                        alpha = score;
                    }
                }
            }
        }

        let bound = if best >= beta {
            Bound::Lower
        } else if PV && !best_move.is_null() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, ply, best_move, best, raw_eval, 0, bound);
        best
    }
}
