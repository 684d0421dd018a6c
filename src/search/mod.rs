//! The search: iterative-deepening principal-variation α-β over the rules core.
//! It is a library API: a position, its game history and limits go in; events and a result
//! come out. It knows nothing about text protocols (the UCI layer formats its events).

use crate::chess::{Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Restrict the root to these moves (empty = all).
    pub searchmoves: Vec<Move>,
}

/// Settings that come from UCI options rather than from `go`.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    pub multipv: usize,
    pub move_overhead_ms: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            multipv: 1,
            move_overhead_ms: 10,
        }
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
}

#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// `None` only when the root has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Option<Score>,
    pub depth: u32,
    pub nodes: u64,
}

/// Shared between the searching thread and the protocol thread.
#[derive(Debug, Default)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
}

impl SearchControl {
    pub fn new() -> Self {
        Self::default()
    }
    /// Ask the search to end as soon as possible.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    /// While pondering, no clock limit applies; `ponderhit` ends pondering and the search
    /// then runs as a normal timed search whose clock starts at that moment.
    pub fn set_pondering(&self, on: bool) {
        self.pondering.store(on, Ordering::SeqCst);
    }
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }
    pub fn reset(&self) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(false, Ordering::SeqCst);
    }
}

/// The searcher keeps what lives across searches (transposition table, histories).
pub struct Searcher {
    hash_mb: usize,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher { hash_mb }
    }

    /// Resizes the transposition table (clearing it).
    pub fn set_hash_size(&mut self, mb: usize) {
        self.hash_mb = mb;
    }

    /// Forgets everything learnt (`ucinewgame`, `Clear Hash`).
    pub fn clear(&mut self) {}

    /// Searches `root`. `history` holds the keys of the game's earlier positions, oldest
    /// first, root excluded, for repetition detection. Returns when a limit is reached or
    /// `control.stop()` is called; never returns a move before depth 1 completed, unless
    /// stopped. Returns at once when the root has no legal move.
    pub fn search(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: &Limits,
        options: &SearchOptions,
        control: &SearchControl,
        report: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        // Placeholder until the real search lands: the first legal move, after waiting for a stop
        // when told to search without limit.
        let _ = (history, options, self.hash_mb);
        let moves = root.legal_moves();
        let best = moves.first().copied();
        if let Some(m) = best {
            report(SearchEvent::Line(LineInfo {
                depth: 1,
                seldepth: 1,
                multipv: 1,
                score: Score::Cp(0),
                bound: Bound::Exact,
                nodes: 1,
                time_ms: 0,
                hashfull: 0,
                pv: vec![m],
            }));
        }
        while (limits.infinite || control.pondering()) && !control.stop_requested() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        SearchResult {
            best,
            ponder: None,
            score: Some(Score::Cp(0)),
            depth: 1,
            nodes: 1,
        }
    }
}
