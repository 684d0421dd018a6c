//! The `Searcher`: what lives across searches, and one search from its root to its result
//! (the main thread's iterative deepening, with the Lazy SMP helpers beside it).

use super::control::SearchControl;
use super::faults::fault_injection;
use super::iterate::Deepening;
use super::root::root_moves;
use super::secondary;
use super::smp;
use super::strength;
use super::tally::{Counting, NoTally, SearchStats, Tally};
use super::thread::ThreadData;
use super::trace::TreeLog;
use super::tt::TranspositionTable;
use super::types::{Limits, Score, SearchEvent, SearchOptions, SearchResult};
use super::worker::Worker;
use crate::chess::{Move, Position};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// `stats on`: searches are counted (`tally.rs`).
    counting: bool,
    /// The last search's counts, if it was counted: the main thread's, and the sum the
    /// helpers add theirs to as they finish.
    last_stats: Option<(Box<SearchStats>, Arc<Mutex<SearchStats>>)>,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            main: ThreadData::new(),
            pool: smp::Pool::default(),
            expected: None,
            counting: false,
            last_stats: None,
        }
    }

    /// Whether the searches from now on are counted (slower; the same tree).
    pub fn set_counting(&mut self, on: bool) {
        self.counting = on;
    }

    pub fn counting(&self) -> bool {
        self.counting
    }

    /// What the last search counted, every thread's counts summed (waits for helpers still
    /// finishing); `None` when it was not counted.
    pub fn last_stats(&self) -> Option<SearchStats> {
        let (main, helpers) = self.last_stats.as_ref()?;
        self.pool.wait_idle();
        let mut stats = (**main).clone();
        stats.add_thread(&helpers.lock().unwrap_or_else(|e| e.into_inner()));
        Some(stats)
    }

    /// No search to tell of (the move came from the book).
    pub fn forget_stats(&mut self) {
        self.last_stats = None;
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
    ///
    /// Counted (`set_counting`), it searches the same tree and keeps what it counted for
    /// `last_stats`.
    pub fn search(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: &Limits,
        options: &SearchOptions,
        control: &SearchControl,
        report: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        self.last_stats = None;
        if !self.counting {
            return self
                .run(
                    root, history, limits, options, control, report, NoTally, None,
                )
                .0;
        }
        let helpers = Arc::new(Mutex::new(SearchStats::default()));
        let (result, counted) = self.run(
            root,
            history,
            limits,
            options,
            control,
            report,
            Counting::default(),
            Some(&helpers),
        );
        self.last_stats = Some((counted.stats, helpers));
        result
    }

    /// Searches `root` to `depth` on one thread, counting, and records the tree of its last
    /// root search (at most `cap` nodes: see `TreeLog::overflowed`).
    pub fn trace(
        &mut self,
        root: &Position,
        limits: &Limits,
        options: &SearchOptions,
        cap: usize,
    ) -> (SearchResult, TreeLog, SearchStats) {
        let options = SearchOptions {
            threads: 1,
            multipv: 1,
            secondary_search: false,
            strength_elo: None,
            ..options.clone()
        };
        let tally = Counting::new(Some(Box::new(TreeLog::new(cap))));
        let control = SearchControl::new();
        let (result, counted) = self.run(
            root,
            &[],
            limits,
            &options,
            &control,
            &mut |_| {},
            tally,
            None,
        );
        let log = counted.tree.map_or_else(TreeLog::default, |t| *t);
        (result, log, *counted.stats)
    }

    #[allow(clippy::too_many_arguments)]
    fn run<T: Tally>(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: &Limits,
        options: &SearchOptions,
        control: &SearchControl,
        report: &mut dyn FnMut(SearchEvent),
        tally: T,
        helper_stats: Option<&Arc<Mutex<SearchStats>>>,
    ) -> (SearchResult, T) {
        let moves = root_moves(root, &limits.searchmoves);
        if moves.is_empty() {
            let score = if root.in_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            let result = SearchResult {
                best: None,
                ponder: None,
                score: Some(score),
                depth: 0,
                nodes: 0,
                pv: Vec::new(),
                surprise_depth: 0,
                longest_stall: Duration::ZERO,
            };
            return (result, tally);
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
                stats: helper_stats.cloned(),
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
            tally,
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
        (result, worker.tally)
    }
}

/// Stops a search's helpers when dropped.
struct StopOnDrop<'a>(&'a SearchControl);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}
