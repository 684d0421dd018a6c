//! The search: iterative-deepening principal-variation α-β over the rules core.
//! It is a library API: a position, its game history and limits go in; events and a result
//! come out. It knows nothing about text protocols (the UCI layer formats its events).

mod alphabeta;
pub mod bench;
pub mod history;
mod iterate;
pub mod picker;
mod qsearch;
mod root;
pub mod score;
mod secondary;
pub mod see;
mod smp;
pub use smp::MAX_THREADS;
pub mod strength;
mod thread;
pub mod time;
pub mod tt;
mod worker;

use crate::chess::{Move, Position};
use iterate::Deepening;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use thread::ThreadData;
use tt::TranspositionTable;
use worker::Worker;

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
            // Off since checkext8: 1000 games at 8+0.08, on against off -30.3 ± 13.8 Elo
            // (README, "What each method is worth").
            check_extension: false,
            singular_extensions: true,
            // Off since exp8b: 3000 games at 8+0.08 against the plain time manager,
            // -3.2 ± 7.9 Elo (README, "The secondary search").
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

/// Shared between the searching thread and the protocol thread (and, for the helpers,
/// between the main search thread and them).
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    /// When the helpers must stop by themselves: nanoseconds after `EPOCH` (`u64::MAX`: no
    /// deadline).
    deadline_ns: AtomicU64,
    /// When the `ponderhit` was read, in nanoseconds after `EPOCH` (`u64::MAX`: not known).
    ponderhit_ns: AtomicU64,
    /// When the move is due, for the answer's guard (`engine/`): set by the main search
    /// thread once its clock's hard limit is known.
    answer: Mutex<AnswerClock>,
    answer_changed: Condvar,
    /// The last search (by `AnswerClock::search`) whose `bestmove` has been claimed: by the
    /// search thread when it ends, or by the guard when the search thread is late.
    answered: AtomicU64,
    /// Where a pondering thread naps (`nap_while_pondering`), and how many nap there: `stop`
    /// and the `ponderhit` take the lock only when one does (a helper of idle priority that
    /// lost its core holding it would hold up every `stop`).
    ponder_nap: Mutex<()>,
    ponder_napped: Condvar,
    nappers: AtomicUsize,
}

/// The answer's due time, per search.
#[derive(Debug, Default)]
struct AnswerClock {
    /// Which search this is (counted by `reset`).
    search: u64,
    due: Option<Instant>,
    /// While pondering: the hard limit, due that long after the `ponderhit`.
    after_ponderhit: Option<Duration>,
    /// The search thread has ended: nothing left to guard.
    finished: bool,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            deadline_ns: AtomicU64::new(u64::MAX),
            ponderhit_ns: AtomicU64::new(u64::MAX),
            answer: Mutex::new(AnswerClock::default()),
            answer_changed: Condvar::new(),
            answered: AtomicU64::new(0),
            ponder_nap: Mutex::new(()),
            ponder_napped: Condvar::new(),
            nappers: AtomicUsize::new(0),
        }
    }
}

/// The origin of deadlines (any fixed instant will do).
static EPOCH: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

impl SearchControl {
    pub fn new() -> Self {
        Self::default()
    }

    /// Searches sharing this control stop by themselves at `at` (the clock's hard limit).
    pub fn set_deadline(&self, at: std::time::Instant) {
        let ns = at.saturating_duration_since(*EPOCH).as_nanos() as u64;
        self.deadline_ns.store(ns, Ordering::Relaxed);
    }

    pub fn past_deadline(&self) -> bool {
        let deadline = self.deadline_ns.load(Ordering::Relaxed);
        deadline != u64::MAX && EPOCH.elapsed().as_nanos() as u64 >= deadline
    }
    /// Ask the search to end as soon as possible.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake_napping_ponderer();
    }
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    /// While pondering, no clock limit applies; `ponderhit` ends pondering and the search
    /// then runs as a timed search: its hard limit counts from that moment, its planned
    /// time from the start of the ponder search (the time pondered counts as thinking).
    pub fn set_pondering(&self, on: bool) {
        self.pondering.store(on, Ordering::SeqCst);
        if !on {
            self.wake_napping_ponderer();
        }
    }
    /// A pondering thread giving way on a crowded machine (`Worker::ponder_politely`) sleeps
    /// up to `nap`, and less when pondering ends (`stop`, `ponderhit`): one wake-up instead
    /// of one per millisecond of polling, each of which took a core from a busy thread.
    pub fn nap_while_pondering(&self, nap: Duration) {
        let guard = self.ponder_nap.lock().unwrap_or_else(|e| e.into_inner());
        // Counted before the flags are read: a `stop` that comes after this sees the napper
        // and takes the lock, which it gets only once the nap has begun.
        self.nappers.fetch_add(1, Ordering::SeqCst);
        if !self.stop.load(Ordering::SeqCst) && self.pondering.load(Ordering::SeqCst) {
            let _ = self.ponder_napped.wait_timeout(guard, nap);
        }
        self.nappers.fetch_sub(1, Ordering::SeqCst);
    }
    /// Sleeps until `stop`, or, unless `infinite`, until pondering ends (at once if neither
    /// applies): a search that ended early holds its answer until the GUI asks for it.
    pub fn wait_for_stop_or_ponderhit(&self, infinite: bool) {
        let mut guard = self.ponder_nap.lock().unwrap_or_else(|e| e.into_inner());
        self.nappers.fetch_add(1, Ordering::SeqCst);
        while !self.stop.load(Ordering::SeqCst)
            && (infinite || self.pondering.load(Ordering::SeqCst))
        {
            guard = self
                .ponder_napped
                .wait_timeout(guard, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        self.nappers.fetch_sub(1, Ordering::SeqCst);
    }
    fn wake_napping_ponderer(&self) {
        // The flag was stored (SeqCst) before this: a thread about to nap has either seen it
        // or is counted here, and then waits (the lock is free once it does) or is waiting.
        if self.nappers.load(Ordering::SeqCst) > 0 {
            let _guard = self.ponder_nap.lock().unwrap_or_else(|e| e.into_inner());
            self.ponder_napped.notify_all();
        }
    }

    /// Stops the search, if it is still search `search` (the guard, which may have lost its
    /// core since it claimed the answer, must not stop the next one).
    pub fn stop_search(&self, search: u64) {
        let clock = self.answer_clock();
        if clock.search == search {
            self.stop();
        }
    }
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }
    /// The ponderhit read at `at`: pondering ends, and the move's clock runs from `at`.
    pub fn ponderhit(&self, at: std::time::Instant) {
        let ns = at.saturating_duration_since(*EPOCH).as_nanos() as u64;
        self.ponderhit_ns.store(ns, Ordering::SeqCst);
        self.set_pondering(false);
        let mut clock = self.answer_clock();
        if let Some(hard) = clock.after_ponderhit {
            clock.due = Some(at + hard);
            self.answer_changed.notify_all();
        }
    }
    /// When the ponderhit was read, if it came through `ponderhit`.
    pub fn ponderhit_at(&self) -> Option<std::time::Instant> {
        match self.ponderhit_ns.load(Ordering::SeqCst) {
            u64::MAX => None,
            ns => Some(*EPOCH + std::time::Duration::from_nanos(ns)),
        }
    }
    /// Readies the control for a new search; returns the search's number (for the answer).
    pub fn reset(&self) -> u64 {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(false, Ordering::SeqCst);
        self.deadline_ns.store(u64::MAX, Ordering::SeqCst);
        self.ponderhit_ns.store(u64::MAX, Ordering::SeqCst);
        let mut clock = self.answer_clock();
        clock.search += 1;
        clock.due = None;
        clock.after_ponderhit = None;
        clock.finished = false;
        self.answer_changed.notify_all();
        clock.search
    }

    fn answer_clock(&self) -> std::sync::MutexGuard<'_, AnswerClock> {
        self.answer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The move is due at `at` (the main search thread, when its hard limit is known).
    pub fn set_answer_due(&self, at: Instant) {
        self.answer_clock().due = Some(at);
        self.answer_changed.notify_all();
    }

    /// The move will be due `hard` after the `ponderhit` (the main search thread, while it
    /// ponders).
    pub fn set_answer_after_ponderhit(&self, hard: Duration) {
        let mut clock = self.answer_clock();
        clock.after_ponderhit = Some(hard);
        if let (Some(at), None) = (self.ponderhit_at(), clock.due) {
            clock.due = Some(at + hard);
            self.answer_changed.notify_all();
        }
    }

    /// When the move is due, if known.
    pub fn answer_due(&self) -> Option<Instant> {
        self.answer_clock().due
    }

    /// The search thread of search `search` has ended (its guard can go).
    pub fn finish_search(&self, search: u64) {
        let mut clock = self.answer_clock();
        if clock.search == search {
            clock.finished = true;
        }
        self.answer_changed.notify_all();
    }

    /// For the answer's guard of search `search`: sleeps until the move is `grace` past due
    /// (true) or the search has ended or been replaced (false).
    pub fn wait_until_answer_due(&self, search: u64, grace: Duration) -> bool {
        let mut clock = self.answer_clock();
        loop {
            if clock.search != search || clock.finished {
                return false;
            }
            match clock.due.map(|due| due + grace) {
                Some(at) => {
                    let now = Instant::now();
                    if now >= at {
                        return true;
                    }
                    clock = self
                        .answer_changed
                        .wait_timeout(clock, at - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                None => {
                    clock = self
                        .answer_changed
                        .wait(clock)
                        .unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }

    /// Whether this caller answers search `search`: true exactly once per search, for the
    /// first to ask (the search thread at its end, or its guard).
    pub fn claim_answer(&self, search: u64) -> bool {
        self.answered.fetch_max(search, Ordering::SeqCst) < search
    }

    /// Whether search `search` has been answered.
    pub fn answered(&self, search: u64) -> bool {
        self.answered.load(Ordering::SeqCst) >= search
    }
}

/// The searcher keeps what lives across searches: the transposition table, the main
/// thread's data, and the pool of Lazy SMP helper threads (each with its own data).
pub struct Searcher {
    /// Shared with the helpers while they search; changed only when they are idle.
    tt: Arc<TranspositionTable>,
    main: Box<ThreadData>,
    pool: smp::Pool,
    /// The line the last search expected (the secondary search checks the next move
    /// against it when the game follows it).
    expected: Option<secondary::ExpectedLine>,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            main: ThreadData::new(),
            pool: smp::Pool::default(),
            expected: None,
        }
    }

    /// Resizes the transposition table (clearing it). A size the machine cannot give is an
    /// error, and the table stays as it was (cleared).
    pub fn set_hash_size(&mut self, mb: usize) -> Result<(), String> {
        self.pool.wait_idle();
        let previous = self.tt.size_mb();
        // Free the old table first, so that both never need to fit in memory at once.
        self.tt = Arc::new(TranspositionTable::new(1));
        crate::util::memory::release_freed_memory();
        match TranspositionTable::try_new(mb) {
            Ok(tt) => {
                self.tt = Arc::new(tt);
                Ok(())
            }
            Err(e) => {
                let kept = TranspositionTable::try_new(previous)
                    .unwrap_or_else(|_| TranspositionTable::new(1));
                self.tt = Arc::new(kept);
                Err(format!("{e}; the table stays at {} MiB", self.tt.size_mb()))
            }
        }
    }

    /// The table, for changes: the helpers are idle and hold no reference to it.
    fn tt_mut(&mut self) -> &mut TranspositionTable {
        self.pool.wait_idle();
        Arc::get_mut(&mut self.tt).expect("idle helpers hold no reference to the table")
    }

    /// The table's move for `root`, if it has a legal one.
    pub fn table_move(&self, root: &Position) -> Option<Move> {
        let hit = self.tt.probe(root.key(), 0)?;
        (!hit.mv.is_null() && crate::chess::legality::is_legal(root, hit.mv)).then_some(hit.mv)
    }

    /// Forgets everything learnt (`ucinewgame`, `Clear Hash`).
    pub fn clear(&mut self) {
        self.tt_mut().clear();
        self.main.clear();
        self.pool.clear();
        self.expected = None;
    }

    /// Searches `root`. `history` holds the keys of the game's earlier positions, oldest
    /// first, root excluded, for repetition detection. Returns when a limit is reached or
    /// `control.stop()` is called; never returns a move before depth 1 completed, unless
    /// stopped. Returns at once when the root has no legal move.
    ///
    /// With `options.threads` > 1 this is Lazy SMP: helper threads search the same root
    /// with their own histories, sharing only the transposition table, until the main
    /// thread (which alone keeps time and reports) is done.
    pub fn search(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: &Limits,
        options: &SearchOptions,
        control: &SearchControl,
        report: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        let moves = root::root_moves(root, &limits.searchmoves);
        if moves.is_empty() {
            let score = if root.in_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            return SearchResult {
                best: None,
                ponder: None,
                score: Some(score),
                depth: 0,
                nodes: 0,
                pv: Vec::new(),
                surprise_depth: 0,
                longest_stall: Duration::ZERO,
            };
        }
        // A limited strength: a node budget, one thread, and a choice among the best lines.
        let limited;
        let (limits, options) = match options.strength_elo {
            None => (limits, options),
            Some(elo) => {
                let budget = strength::node_budget(elo);
                limited = (
                    Limits {
                        nodes: Some(limits.nodes.map_or(budget, |n| n.min(budget))),
                        ..limits.clone()
                    },
                    SearchOptions {
                        threads: 1,
                        multipv: options.multipv.max(strength::candidate_lines(elo)),
                        secondary_search: false,
                        ..options.clone()
                    },
                );
                (&limited.0, &limited.1)
            }
        };
        // No wait for helpers still unwinding from the last search (on a loaded machine a
        // descheduled one could hold up this search's start by many milliseconds, with the
        // clock already running): the generation is atomic, and they join when done.
        self.tt.new_search();
        let threads = options.threads.clamp(1, smp::MAX_THREADS);
        if self.pool.wants_resize(threads - 1) {
            if let Some(message) = self.pool.resize(threads - 1) {
                report(SearchEvent::Message(message));
            }
        }
        let multipv = options.multipv.clamp(1, moves.len());
        let helpers = Arc::new(SearchControl::new());
        // Helpers ponder too, and as politely (`Worker::ponder_politely`), until the ponderhit.
        helpers.set_pondering(control.pondering());
        // The helpers stop however this search ends, a panic included (the engine then
        // clears the tables, which waits for them).
        let _stop_helpers = StopOnDrop(&helpers);
        let helper_nodes = Arc::new(AtomicU64::new(0));
        if self.pool.len() > 0 {
            self.pool.start(smp::HelperJob {
                tt: Arc::clone(&self.tt),
                root: *root,
                history: Arc::new(history.to_vec()),
                limits: limits.clone(),
                options: options.clone(),
                control: Arc::clone(&helpers),
                nodes: Arc::clone(&helper_nodes),
                search_id: 0,
            });
        }
        self.main.prepare(history, &options.evaluation);
        let mut worker = Worker::for_root(
            &self.tt,
            &mut self.main,
            control,
            options,
            history.len(),
            &helper_nodes,
            false,
        );
        worker.helper_control = Some(&helpers);
        // A `ponderhit` read since the helpers were told: they follow this thread, which
        // tells them of a later one (`Worker::on_ponderhit`).
        helpers.set_pondering(worker.pondering);
        worker.panic_after_nodes = fault_injection();
        let main = Deepening {
            worker: &mut worker,
            root: *root,
            moves,
            report: &mut *report,
            multipv,
            helper_id: 0,
            expected: self.expected.take().filter(|e| e.key == root.key()),
        }
        .run(limits, options);
        // The helpers stop now; whoever is still unwinding is not waited for.
        helpers.stop();
        let results = self.pool.finished_results();
        let result = smp::choose(main, results, multipv, &worker, report);
        self.expected = secondary::ExpectedLine::of(root, &result.pv, result.score);
        result
    }
}

/// Stops a search's helpers when dropped.
struct StopOnDrop<'a>(&'a SearchControl);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Fault injection for the robustness tests: the main search panics after this many nodes
/// (`BRUDNO_FAULT_PANIC_AFTER_NODES`, read once; never set in play).
fn fault_injection() -> u64 {
    static AFTER: std::sync::LazyLock<u64> = std::sync::LazyLock::new(|| {
        std::env::var("BRUDNO_FAULT_PANIC_AFTER_NODES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX)
    });
    *AFTER
}

/// Fault injection for the time-safety tests, each read once from its environment variable
/// (never set in play): the search thread stalls this long, as if it had lost its core.
#[derive(Clone, Copy)]
pub(crate) enum Fault {
    /// At its hard limit, before it ends (`BRUDNO_FAULT_STALL_AT_DEADLINE_MS`).
    StallAtDeadline,
    /// Before the search begins (`BRUDNO_FAULT_STALL_AT_START_MS`).
    StallAtStart,
}

/// How long `fault` stalls the search thread (zero in play).
pub(crate) fn fault_stall_ms(fault: Fault) -> Duration {
    fn read(name: &str) -> Duration {
        Duration::from_millis(
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        )
    }
    static AT_DEADLINE: std::sync::LazyLock<Duration> =
        std::sync::LazyLock::new(|| read("BRUDNO_FAULT_STALL_AT_DEADLINE_MS"));
    static AT_START: std::sync::LazyLock<Duration> =
        std::sync::LazyLock::new(|| read("BRUDNO_FAULT_STALL_AT_START_MS"));
    match fault {
        Fault::StallAtDeadline => *AT_DEADLINE,
        Fault::StallAtStart => *AT_START,
    }
}

/// Stalls the calling thread as `fault` asks (not at all in play).
pub(crate) fn fault_stall(fault: Fault) {
    let stall = fault_stall_ms(fault);
    if !stall.is_zero() {
        std::thread::sleep(stall);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_search_is_answered_once_by_whoever_claims_first() {
        let control = SearchControl::new();
        let first = control.reset();
        assert!(!control.answered(first));
        assert!(control.claim_answer(first));
        assert!(
            !control.claim_answer(first),
            "a second answer to the same search"
        );
        assert!(control.answered(first));
        let second = control.reset();
        assert!(second > first);
        assert!(!control.answered(second));
        assert!(control.claim_answer(second));
        // A late claim for the old search changes nothing.
        assert!(!control.claim_answer(first));
    }

    #[test]
    fn the_guard_wakes_when_the_move_is_due_and_not_after_the_search_ended() {
        let control = Arc::new(SearchControl::new());
        let search = control.reset();
        let grace = Duration::from_millis(2);
        // Due in 30 ms: the guard sleeps until then.
        let start = Instant::now();
        control.set_answer_due(start + Duration::from_millis(30));
        assert!(control.wait_until_answer_due(search, grace));
        assert!(start.elapsed() >= Duration::from_millis(32));
        // A search that ends first releases its guard at once.
        let search = control.reset();
        let guard = {
            let control = Arc::clone(&control);
            std::thread::spawn(move || control.wait_until_answer_due(search, grace))
        };
        control.set_answer_due(Instant::now() + Duration::from_secs(60));
        control.finish_search(search);
        assert!(!guard.join().unwrap());
        // So does the next search's start.
        let search = control.reset();
        let guard = {
            let control = Arc::clone(&control);
            std::thread::spawn(move || control.wait_until_answer_due(search, grace))
        };
        std::thread::sleep(Duration::from_millis(5));
        control.reset();
        assert!(!guard.join().unwrap());
    }

    #[test]
    fn while_pondering_the_move_is_due_from_the_ponderhit() {
        let hard = Duration::from_millis(40);
        // The hard limit known before the ponderhit...
        let control = SearchControl::new();
        control.reset();
        control.set_answer_after_ponderhit(hard);
        assert!(
            control.answer_clock().due.is_none(),
            "no limit while pondering"
        );
        let at = Instant::now();
        control.ponderhit(at);
        assert_eq!(control.answer_clock().due, Some(at + hard));
        // ...or after it.
        let control = SearchControl::new();
        control.reset();
        let at = Instant::now();
        control.ponderhit(at);
        control.set_answer_after_ponderhit(hard);
        assert_eq!(control.answer_clock().due, Some(at + hard));
    }
}
