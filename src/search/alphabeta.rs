//! The α-β search proper: a fail-soft principal-variation negamax and the quiescence search
//! below its horizon. The numbered steps follow the order in which a node does its work; each
//! pruning or extension rule says why it is sound enough, and which switch turns it off.

use super::history::{piece_to, Histories, PieceTo};
use super::legality::{gives_check, has_non_pawn_material, insufficient_material, is_noisy};
use super::picker::{MovePicker, Stage};
use super::score::*;
use super::see::see_ge;
use super::time::TimeBudget;
use super::tt::{TranspositionTable, TtHit};
use super::{Bound, SearchControl, SearchOptions, TablebaseProbing};
use crate::chess::{GenType, Move, MoveList, Position};
use crate::eval::PIECE_VALUES;
use crate::tablebase::Wdl;
use std::sync::atomic::{AtomicU64, Ordering};
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
    pub singular: bool,
}

impl Switches {
    pub fn from_options(o: &SearchOptions) -> Switches {
        let fp = o.forward_pruning;
        Switches {
            null_move: fp && o.null_move_pruning,
            lmr: fp && o.late_move_reductions,
            futility: fp && o.futility_pruning,
            lmp: fp && o.late_move_pruning,
            see: fp && o.see_pruning,
            quiescence: o.quiescence,
            check_extension: o.check_extension,
            singular: o.singular_extensions,
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
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
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
    pub tablebases: Option<TablebaseProbing>,
    pub tbhits: u64,
    /// Lazy SMP: the node count of the helper threads. The main thread reads it (reports and
    /// the node limit count every thread's nodes); a helper adds its own to it as it goes.
    pub shared_nodes: Option<&'a AtomicU64>,
    pub is_helper: bool,
    /// A helper's nodes already added to `shared_nodes`.
    published_nodes: u64,
    /// Fault injection for the robustness tests: panic once this many nodes are searched
    /// (environment variable `BRUDNO_FAULT_PANIC_AFTER_NODES`; never set in play).
    pub panic_after_nodes: u64,
}

/// Most quiet moves remembered per node for the history malus.
const MAX_TRIED: usize = 64;

// The Elo figures in the step comments: the engine with all defaults against the engine with
// that one option changed, 200 games at 1+0.01 (`scripts/ablation`, 2026-11-30, commit 51c9c53,
// ± 95%); an option covers every rule that names it. README, "What each method is worth".
//
// The pruning rules' margins and depth limits. The WAC figures in the comments are positions
// of `../shared/suites/wac.epd` solved (right move found and kept) within 60k nodes.

/// Reverse futility pruning: centipawns per ply of depth, up to this depth.
const RFP_MARGIN: i32 = 80;
const RFP_DEPTH: i32 = 8;
/// Null-move pruning from this depth on; verified from `NMP_VERIFY_DEPTH` on.
const NMP_DEPTH: i32 = 3;
const NMP_VERIFY_DEPTH: i32 = 12;
/// Internal iterative reduction from this depth on.
const IIR_DEPTH: i32 = 4;
/// Futility pruning of quiet moves: margin = base + per depth × (reduced) depth.
const FUTILITY_BASE: i32 = 100;
const FUTILITY_PER_DEPTH: i32 = 100;
const FUTILITY_DEPTH: i32 = 8;
/// Late move pruning up to this depth, after (3 + depth²) / (2 − improving) moves.
const LMP_DEPTH: i32 = 8;
/// SEE pruning up to this depth: quiet moves losing more than `SEE_QUIET`·depth², captures
/// more than `SEE_CAPTURE`·depth, checks more than `SEE_CHECK`·depth (WAC: 262 with the
/// larger room for checks, 257 with the same as captures).
const SEE_DEPTH: i32 = 8;
const SEE_QUIET: i32 = 25;
const SEE_CAPTURE: i32 = 100;
const SEE_CHECK: i32 = 300;
/// Delta pruning in quiescence: the margin over the captured piece's value.
const DELTA_MARGIN: i32 = 200;
/// Singular extensions: from this depth, with a margin of this many centipawns per ply, and
/// a second ply when the alternatives fail by more than `SE_DOUBLE_MARGIN`.
const SE_DEPTH: i32 = 8;
const SE_MARGIN: i32 = 2;
const SE_DOUBLE_MARGIN: i32 = 20;

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
            tablebases: None,
            tbhits: 0,
            shared_nodes: None,
            is_helper: false,
            published_nodes: 0,
            panic_after_nodes: u64::MAX,
        }
    }

    /// A search of the root whose game history fills `t.keys[..root_idx]`, set up from the
    /// options (switches, tablebases) and counting its nodes into `shared_nodes` (a helper)
    /// or reading the helpers' count from it (the main thread).
    pub fn for_root(
        tt: &'a TranspositionTable,
        t: &'a mut Tables,
        control: &'a SearchControl,
        options: &SearchOptions,
        root_idx: usize,
        shared_nodes: &'a AtomicU64,
        is_helper: bool,
    ) -> Search<'a> {
        let mut search = Search::new(tt, t, control, Switches::from_options(options));
        search.tablebases = options.tablebases.clone();
        search.root_idx = root_idx;
        search.shared_nodes = Some(shared_nodes);
        search.is_helper = is_helper;
        search
    }

    /// Nodes searched by every thread (a helper knows only its own).
    pub fn total_nodes(&self) -> u64 {
        match (self.is_helper, self.shared_nodes) {
            (false, Some(shared)) => self.nodes + shared.load(Ordering::Relaxed),
            _ => self.nodes,
        }
    }

    /// Milliseconds on the move's clock (since the search began or the ponderhit).
    pub fn clock_ms(&self) -> u64 {
        self.clock_start.elapsed().as_millis() as u64
    }

    /// Ponderhit: from now on this is our move, on our clock (the hard limit counts from
    /// here). The time already pondered counts as thinking done: a search that has pondered
    /// past its planned time answers at once (once depth 1 is done).
    pub fn on_ponderhit(&mut self) {
        self.pondering = false;
        self.clock_start = Instant::now();
        if let Some(b) = self.budget {
            if self.depth1_done && self.thinking_ms() >= b.soft_ms {
                self.stopped = true;
            }
        }
    }

    /// Milliseconds of thinking on this move: since the search began, pondering included.
    pub fn thinking_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Polled every 1024 nodes (and at every node past a node limit).
    #[cold]
    pub fn check_limits(&mut self) {
        if self.nodes >= self.panic_after_nodes {
            panic!("fault injected after {} nodes", self.nodes);
        }
        if let (true, Some(shared)) = (self.is_helper, self.shared_nodes) {
            shared.fetch_add(self.nodes - self.published_nodes, Ordering::Relaxed);
            self.published_nodes = self.nodes;
        }
        if self.control.stop_requested() {
            self.stopped = true;
            return;
        }
        if self.pondering && !self.control.pondering() {
            self.on_ponderhit();
        }
        if !self.depth1_done {
            return;
        }
        if self.total_nodes() >= self.node_limit {
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

    /// What every node of the main and the quiescence search does first: count itself, take
    /// its place in the line (PV length, selective depth, repetition keys), and end at once
    /// with a value when the search is stopped, the position is a draw by rule, or the ply
    /// limit is reached.
    #[inline(always)]
    fn open_node<const PV: bool>(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        self.count_node();
        if self.stopped {
            return Some(0);
        }
        if PV {
            self.t.pv_len[ply] = ply;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        self.t.keys[self.root_idx + ply] = pos.key();
        if self.is_draw(pos, ply) {
            return Some(DRAW);
        }
        if ply >= MAX_PLY - 1 {
            return Some(if pos.in_check() {
                DRAW
            } else {
                self.evaluate(pos)
            });
        }
        None
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
        let decides = match bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        decides.then_some(score)
    }

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

        // Step 1. Horizon: from here on only captures (and checks) can change much.
        if depth <= 0 {
            return self.qsearch::<PV>(pos, alpha, beta, ply, 0);
        }
        // Step 2. Draws by rule, and the ply limit (in `open_node`).
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
                && cuts(h.bound, h.score, alpha, beta)
            {
                return h.score;
            }
        }

        // Step 4b. Endgame tables (SyzygyPath): right after a capture or pawn move, a WDL
        // probe gives the exact result; a win or loss only bounds the score (mates are better).
        if excluded.is_null() && pos.halfmove_clock() == 0 {
            if let Some(score) = self.probe_tablebases(pos, depth, ply, alpha, beta) {
                return score;
            }
        }

        // Step 5. Static evaluation, sharpened by the table's bound when it says more.
        let (raw_eval, eval) = if in_check {
            (NONE, NONE)
        } else {
            let raw = match tt {
                Some(h) if h.eval != NONE => h.eval,
                _ => self.evaluate(pos),
            };
            (raw, sharpened(raw, tt))
        };
        self.t.stack[ply].eval = raw_eval;
        // Better than at our previous move (or the one before, if that was in check):
        // pruning may be bolder when we are not improving.
        let before = match ply {
            2.. if self.t.stack[ply - 2].eval != NONE => self.t.stack[ply - 2].eval,
            4.. => self.t.stack[ply - 4].eval,
            _ => NONE,
        };
        let improving = !in_check && before != NONE && raw_eval > before;
        self.t.stack[ply + 2].killers = [Move::NULL; 2];

        if !PV && !in_check && excluded.is_null() {
            // Step 6. Reverse futility pruning (FutilityPruning): so far above beta that
            // losing a margin per ply of remaining depth would still leave us above it.
            // On the raw evaluation: the table's sharper score often comes from a capture
            // in quiescence, blind to the quiet threat that refutes it (WAC solved by 60k
            // nodes: 267 this way, 259 with the table's score). FutilityPruning as a whole
            // (this, Step 10's futility and delta pruning): +127 ± 45 Elo.
            if self.sw.futility
                && depth <= RFP_DEPTH
                && raw_eval - RFP_MARGIN * (depth - improving as i32) >= beta
            {
                return (eval + beta) / 2;
            }
            // (Razoring, the mirror image below alpha, was tried and cost tactics: WAC
            // solved by 60k nodes fell from 252 to 246.)

            // Step 7. Null-move pruning (NullMovePruning): if passing still leaves us above
            // beta, a real move will too. Zugzwang, where passing would be best, is guarded
            // against by requiring pieces besides pawns, and at high depth by a verification
            // search with real moves. +85 ± 41 Elo.
            if self.sw.null_move
                && depth >= NMP_DEPTH
                && eval >= beta
                && ply >= self.nmp_min_ply
                && !self.t.stack[ply - 1].mv.is_null()
                && !is_mate(beta)
                && has_non_pawn_material(pos)
            {
                let r = 3 + depth / 3 + ((eval - beta) / 200).min(3);
                let mut child = *pos;
                child.play_null();
                self.tt.prefetch(child.key());
                self.enter(pos, Move::NULL, ply);
                let v =
                    -self.negamax::<false>(&child, -beta, -beta + 1, depth - r, ply + 1, !cut_node);
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    // A mate found after passing is not a proven mate.
                    let v = if is_mate(v) { beta } else { v };
                    if depth < NMP_VERIFY_DEPTH || self.nmp_min_ply != 0 {
                        return v;
                    }
                    self.nmp_min_ply = ply + 3 * (depth - r) as usize / 4;
                    let w = self.negamax::<false>(pos, beta - 1, beta, depth - r, ply, false);
                    self.nmp_min_ply = 0;
                    if self.stopped {
                        return 0;
                    }
                    if w >= beta {
                        return v;
                    }
                }
            }
        }

        // Step 8. Internal iterative reduction (LateMoveReductions): without a hash move
        // the ordering is poor, and a shallower search here costs less than a full one.
        // LateMoveReductions as a whole (this and Step 13): +203 ± 46 Elo.
        if self.sw.lmr && depth >= IIR_DEPTH && tt_move.is_null() && (PV || cut_node) {
            depth -= 1;
        }

        // Step 9. The moves, best first.
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
        let lmp_limit = (3 + depth * depth) as usize / (2 - improving as usize);
        let may_prune = has_non_pawn_material(pos);

        while let Some(m) = picker.next(pos, &self.t.hist) {
            if m == excluded {
                continue;
            }
            let quiet = !is_noisy(pos, m);
            let gives_check = gives_check(pos, m);
            let lmr_depth = (depth - self.t.lmr.get(depth, moves_searched + 1)).max(0);

            // Step 10. Move pruning, once a move has saved us from being mated. Checks are
            // spared the quiet-move rules: at the horizon they are where combinations hide.
            if best > -MATE_BOUND && may_prune {
                if quiet && !gives_check {
                    // Late move pruning (LateMovePruning): at low depth, quiet moves this
                    // late in a well-ordered list almost never matter. +51 ± 37 Elo.
                    if self.sw.lmp && depth <= LMP_DEPTH && moves_searched >= lmp_limit {
                        continue;
                    }
                    // Futility pruning (FutilityPruning): a quiet move cannot add enough
                    // to a static evaluation this far below alpha.
                    if self.sw.futility
                        && !in_check
                        && lmr_depth <= FUTILITY_DEPTH
                        && eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * lmr_depth <= alpha
                    {
                        continue;
                    }
                    // SEE pruning (SeePruning): quiet moves that hang material. SeePruning
                    // as a whole (here, captures below, quiescence): +139 ± 40 Elo.
                    if self.sw.see
                        && lmr_depth <= SEE_DEPTH
                        && !see_ge(pos, m, -SEE_QUIET * lmr_depth * lmr_depth)
                    {
                        continue;
                    }
                } else if self.sw.see && depth <= SEE_DEPTH && picker.stage() != Stage::GoodNoisy {
                    // SEE pruning (SeePruning): captures losing more than a pawn per ply of
                    // depth; checking sacrifices get three times the room.
                    let per_ply = if gives_check { SEE_CHECK } else { SEE_CAPTURE };
                    if !see_ge(pos, m, -per_ply * depth) {
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
            if let Some(h) = tt.filter(|_| self.sw.singular && m == tt_move) {
                if depth >= SE_DEPTH
                    && h.depth >= depth - 3
                    && h.bound != Bound::Upper
                    && !is_mate(h.score)
                    && ply < 2 * self.root_depth as usize
                {
                    let s_beta = h.score - SE_MARGIN * depth;
                    self.t.stack[ply].excluded = m;
                    let v = self.negamax::<false>(
                        pos,
                        s_beta - 1,
                        s_beta,
                        (depth - 1) / 2,
                        ply,
                        cut_node,
                    );
                    self.t.stack[ply].excluded = Move::NULL;
                    if self.stopped {
                        return 0;
                    }
                    if v < s_beta {
                        extension = 1 + (!PV && v < s_beta - SE_DOUBLE_MARGIN) as i32;
                    } else if s_beta >= beta {
                        return s_beta;
                    }
                }
            }

            // Step 12. Check extension (CheckExtension): a check may be the start of a
            // combination the horizon would cut in half. Bounded so lines cannot explode.
            // +10 ± 40 Elo: no clear gain in games yet (WAC 274 with, 272 without).
            if extension == 0
                && self.sw.check_extension
                && gives_check
                && ply < 2 * self.root_depth as usize
            {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;

            let child = pos.after(m);
            self.tt.prefetch(child.key());
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
                // Step 13. Late move reductions (LateMoveReductions): later quiet moves are
                // searched shallower with a null window, and again at full depth only if
                // they surprise. Checks and captures are not reduced (tactics).
                let mut r = 0;
                if self.sw.lmr && depth >= 3 && quiet && !gives_check {
                    r = self.t.lmr.get(depth, moves_searched);
                    r += cut_node as i32;
                    r += !improving as i32;
                    r -= self.t.hist.quiet_score(pos, m, &cont) / 8192;
                    r = r.clamp(0, new_depth - 1);
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

        // Step 14. No move: mate or stalemate (or every move but the excluded one pruned).
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

    /// Quiescence search: captures and promotions (every evasion when in check, and quiet
    /// checks at its first ply), with the static evaluation as a floor the side to move can
    /// "stand pat" on. Quiescence against the static evaluation at depth 0: +180 ± 44 Elo.
    pub fn qsearch<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> i32 {
        if let Some(v) = self.open_node::<PV>(pos, ply) {
            return v;
        }
        let in_check = pos.in_check();
        // Quiescence off: the horizon is the static evaluation (checks still get their
        // evasions searched, or mates would go unseen).
        if !self.sw.quiescence && !in_check {
            return self.evaluate(pos);
        }

        let key = pos.key();
        let tt = self.tt.probe(key, ply);
        if let Some(h) = tt {
            if !PV && cuts(h.bound, h.score, alpha, beta) {
                return h.score;
            }
        }

        // Stand pat: the side to move need not capture (unless in check).
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
            best = sharpened(raw_eval, tt);
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
                    if stand_pat + gain + DELTA_MARGIN <= alpha {
                        best = best.max(stand_pat + gain + DELTA_MARGIN);
                        continue;
                    }
                }
            }
            moves_searched += 1;
            if self.qsearch_move::<PV>(
                pos,
                m,
                &mut alpha,
                beta,
                &mut best,
                &mut best_move,
                ply,
                qdepth,
            ) {
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
        if qdepth == 0 && !in_check && best < beta {
            let mut quiets = MoveList::new();
            pos.generate(GenType::Quiet, &mut quiets);
            for &m in quiets.iter() {
                if !gives_check(pos, m) || !see_ge(pos, m, 0) {
                    continue;
                }
                if self.qsearch_move::<PV>(
                    pos,
                    m,
                    &mut alpha,
                    beta,
                    &mut best,
                    &mut best_move,
                    ply,
                    qdepth,
                ) {
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

    /// Searches one move in quiescence and updates the node's bounds; true on a cut-off.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn qsearch_move<const PV: bool>(
        &mut self,
        pos: &Position,
        m: Move,
        alpha: &mut i32,
        beta: i32,
        best: &mut i32,
        best_move: &mut Move,
        ply: usize,
        qdepth: i32,
    ) -> bool {
        let child = pos.after(m);
        self.tt.prefetch(child.key());
        self.enter(pos, m, ply);
        if PV {
            self.t.pv_len[ply + 1] = ply + 1;
        }
        let score = -self.qsearch::<PV>(&child, -beta, -*alpha, ply + 1, qdepth - 1);
        if self.stopped {
            return false;
        }
        if score > *best {
            *best = score;
            if score > *alpha {
                *best_move = m;
                if PV {
                    self.update_pv(ply, m);
                }
                if score >= beta {
                    return true;
                }
                *alpha = score;
            }
        }
        false
    }
}

/// Whether a table result with this bound decides a node with this window.
#[inline(always)]
fn cuts(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// The static evaluation, replaced by the table's score when its bound says the true value
/// lies beyond the evaluation in that direction.
#[inline(always)]
fn sharpened(eval: i32, tt: Option<TtHit>) -> i32 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A search over `history` (oldest first) with the current line's keys after it.
    fn with_keys(history: &[u64], line: &[u64], f: impl FnOnce(&mut Search)) {
        let tt = TranspositionTable::new(1);
        let mut t = Tables::new();
        t.keys = history.iter().chain(line).copied().collect();
        t.keys.resize(history.len() + MAX_PLY + 4, 0);
        t.stack[0].plies_from_null = usize::MAX / 2;
        for ply in 1..=line.len() {
            t.stack[ply].plies_from_null = t.stack[ply - 1].plies_from_null + 1;
        }
        let control = SearchControl::new();
        let sw = Switches::from_options(&SearchOptions::default());
        let mut s = Search::new(&tt, &mut t, &control, sw);
        s.root_idx = history.len();
        f(&mut s);
    }

    /// The start position's key and those after Nf3 Nf6 Ng1 Ng8 (back to the start).
    fn knights_out_and_back() -> (Position, Vec<u64>) {
        let mut p = Position::startpos();
        let mut keys = vec![p.key()];
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            p.play(p.parse_uci_move(m).unwrap());
            keys.push(p.key());
        }
        assert_eq!(p.key(), keys[0]);
        (p, keys)
    }

    #[test]
    fn repetitions() {
        let (p, keys) = knights_out_and_back();
        // Once since the root: a draw inside the tree.
        with_keys(&[], &keys[..4], |s| assert!(s.is_repetition(&p, 4)));
        // Once in the game before the root: the game goes on.
        with_keys(&keys[..4], &[], |s| assert!(!s.is_repetition(&p, 0)));
        // Twice before the root: this is the third time.
        let twice: Vec<u64> = keys[..4].iter().chain(&keys[..4]).copied().collect();
        let p8 =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5").unwrap();
        with_keys(&twice, &[], |s| assert!(s.is_repetition(&p8, 0)));
        // Not beyond the last irreversible move (the halfmove clock says 4 plies).
        with_keys(&twice, &[], |s| assert!(!s.is_repetition(&p, 0)));
    }

    #[test]
    fn no_repetition_across_a_null_move() {
        let root = Position::startpos();
        let mut p = root;
        let mut keys = vec![root.key()];
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            p.play(p.parse_uci_move(m).unwrap());
            keys.push(p.key());
        }
        with_keys(&[], &keys[..4], |s| {
            s.t.stack[2].plies_from_null = 0;
            s.t.stack[3].plies_from_null = 1;
            s.t.stack[4].plies_from_null = 2;
            assert!(!s.is_repetition(&p, 4));
        });
    }
}
