//! The search's API types: what goes in (`Limits`, `SearchOptions`) and what comes out
//! (`SearchEvent`s while it runs, a `SearchResult` at the end).

use crate::chess::Move;
use std::time::{Duration, Instant};

/// What `go` asked for. Times are in milliseconds as the GUI sent them (they may be negative:
/// a GUI that lets the clock run out sends that; treat them as zero).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// No new iteration once this many nodes are searched (data generation: a soft node
    /// limit, with `nodes` as the hard one). Not a UCI parameter.
    pub soft_nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Restrict the root to these moves (empty = all).
    pub searchmoves: Vec<Move>,
    /// When the `go` was read: the clock runs from then, not from when the search thread
    /// got going (on a loaded machine that can be many milliseconds later). None: now.
    pub received: Option<Instant>,
    /// How late an answer may come on this machine now (ms), kept in hand beside `Move
    /// Overhead` by a `movetime` search (a game clock has its own reserve): the search
    /// thread may lose its core just before its deadline (as long as its recent longest
    /// stall) and the runner that reads the `bestmove` may wait for one (as long as our
    /// reader's recent worst wait). 0 on an idle machine.
    pub machine_delay_ms: u64,
}

/// Settings that come from UCI options rather than from `go`.
///
/// The switches turn the search methods of the lecture's closing slides on and off, so that
/// each one's worth can be measured. `forward_pruning` is the master switch over the five
/// pruning methods below it; `quiescence` and `check_extension` are separate.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// `Threads`: 1 = a single deterministic search; more = Lazy SMP helpers.
    pub threads: usize,
    pub multipv: usize,
    /// Syzygy tables to probe inside the tree (`SyzygyPath` and its options), if any.
    pub tablebases: Option<TablebaseProbing>,
    pub move_overhead_ms: u64,
    /// `ForwardPruning`: off disables null move, LMR, futility, LMP and SEE pruning (together
    /// worth +541 ± 128 Elo at 1+0.01: 711× the nodes to depth 8).
    pub forward_pruning: bool,
    /// `NullMovePruning` (with a zugzwang guard and verification at high depth).
    pub null_move_pruning: bool,
    /// `LateMoveReductions` (log table, re-search; includes internal iterative reduction).
    pub late_move_reductions: bool,
    /// `FutilityPruning`: reverse futility, futility, and delta pruning in quiescence
    /// (razoring was tried and did not prove itself).
    pub futility_pruning: bool,
    /// `LateMovePruning`.
    pub late_move_pruning: bool,
    /// `SeePruning`: losing captures and quiet moves that hang material, in the main search
    /// and in quiescence.
    pub see_pruning: bool,
    /// `Quiescence`: off = the static evaluation at depth 0 (evasions are still searched
    /// when in check, so that mates are seen).
    pub quiescence: bool,
    /// `CheckExtension`.
    pub check_extension: bool,
    /// `SingularExtensions` (on: +47 ± 39 Elo in 200 games at 1+0.01, though no WAC gain).
    pub singular_extensions: bool,
    /// `SecondarySearch`: under a game clock, once the move is chosen, verify it one ply
    /// deeper; play it at once if it holds, think on if it does not (`secondary.rs`).
    pub secondary_search: bool,
    /// `SecondaryPlacebo`: 0 = the real verdict; N = the same verification, then a coin
    /// that says "surprise" N % of the time (to measure the method against a time shift).
    pub secondary_placebo: u32,
    /// `UCI_LimitStrength` on: play at about this `UCI_Elo` (see `strength.rs`).
    pub strength_elo: Option<u32>,
    /// `Evaluation` (and `EvalFile`): the hand-crafted evaluation or a network.
    pub evaluation: crate::eval::EvalChoice,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            multipv: 1,
            tablebases: None,
            move_overhead_ms: 10,
            forward_pruning: true,
            null_move_pruning: true,
            late_move_reductions: true,
            futility_pruning: true,
            late_move_pruning: true,
            see_pruning: true,
            quiescence: true,
            // Off by default: 1000 games at 8+0.08, on against off -30.3 ± 13.8 Elo
            // (docs/search.md, "What each method is worth").
            check_extension: false,
            singular_extensions: true,
            // Off by default: 3000 games at 8+0.08 against the plain time manager,
            // -3.2 ± 7.9 Elo (docs/secondary-search.md).
            secondary_search: false,
            secondary_placebo: 0,
            strength_elo: None,
            evaluation: crate::eval::EvalChoice::default(),
        }
    }
}

/// How the search uses Syzygy tables: WDL probes cut the tree at positions with few enough
/// pieces, right after a capture or pawn move (where the table's result is exact).
#[derive(Clone, Debug)]
pub struct TablebaseProbing {
    pub tables: std::sync::Arc<crate::tablebase::Tablebases>,
    /// `SyzygyProbeDepth`: probe only with at least this much depth left (positions with
    /// fewer pieces than the limit are always probed).
    pub probe_depth: u32,
    /// `SyzygyProbeLimit`: at most this many pieces.
    pub probe_limit: u32,
    /// `Syzygy50MoveRule`: cursed wins and blessed losses count as draws.
    pub rule50: bool,
}

impl PartialEq for TablebaseProbing {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.tables, &other.tables)
            && (self.probe_depth, self.probe_limit, self.rule50)
                == (other.probe_depth, other.probe_limit, other.rule50)
    }
}

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

impl Bound {
    /// The bound on a finished node's score: at least `beta` is a lower bound (a cut-off);
    /// otherwise exact when a move raised alpha (`raised`), an upper bound when none did.
    #[inline(always)]
    pub fn of_node(score: i32, beta: i32, raised: bool) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if raised {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a score with this bound decides a node searched with this window.
    #[inline(always)]
    pub fn cuts(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

/// One line of analysis, reported after each iteration (and on aspiration fails).
#[derive(Clone, Debug, PartialEq)]
pub struct LineInfo {
    pub depth: u32,
    pub seldepth: u32,
    /// 1-based index of this line among MultiPV lines.
    pub multipv: usize,
    pub score: Score,
    pub bound: Bound,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    /// Tablebase probes that decided a node.
    pub tbhits: u64,
    /// A legal move sequence from the root.
    pub pv: Vec<Move>,
}

/// What the search reports while it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchEvent {
    Line(LineInfo),
    /// The root move now being searched (the UCI layer shows these after the first second).
    CurrMove {
        depth: u32,
        mv: Move,
        number: usize,
        time_ms: u64,
    },
    /// Free text for the user (`info string`).
    Message(String),
    /// Free text for a user who asked for it (`info string` in `debug on` mode only).
    Debug(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// `None` only when the root has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Option<Score>,
    pub depth: u32,
    pub nodes: u64,
    /// The line behind `best` (legal from the root; may be just the move).
    pub pv: Vec<Move>,
    /// The depth at which the secondary search found a surprise (0: none): a helper's
    /// result replaces this one only when it is deeper than that too.
    pub surprise_depth: u32,
    /// The longest the main search thread waited for a core in one go (`StallWatch`; zero
    /// when not watched: no `movetime` and no pondering, or no kernel support).
    pub longest_stall: Duration,
}
