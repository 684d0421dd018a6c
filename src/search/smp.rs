//! Lazy SMP: several threads search the same root at once and share nothing but the
//! transposition table. They help each other only through it: a helper's results become
//! hash moves and cut-offs for the main thread. Half the helpers run one ply ahead, so that
//! the threads spread over two depths. The main thread alone keeps time, reports and
//! decides when everyone stops; at the end a helper whose finished iteration went deeper
//! (with a score at least as good) may supply the move.
//!
//! The helpers are a pool of threads that live as long as the searcher, each with its own
//! `ThreadData`, waiting for the next search. The main thread never waits for them: it plays
//! as soon as its own search is done, with the results of the helpers that have finished by
//! then; a helper still unwinding (descheduled on a busy machine) finishes in the background
//! and takes up the next search's job when done (its late result carries its search's number
//! and is not taken); a resize, clear or new table waits for it. Helpers also watch the clock's
//! hard deadline themselves, so that on an oversubscribed machine they stop on time and give
//! the main thread the cores back.

use super::control::SearchControl;
use super::iterate::Deepening;
use super::tally::{Counting, NoTally, SearchStats, Tally};
use super::thread::ThreadData;
use super::tt::TranspositionTable;
use super::types::{Bound, Limits, LineInfo, Score, SearchEvent, SearchOptions, SearchResult};
use super::worker::Worker;
use crate::chess::Position;
use crate::util::cores;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// The `Threads` option's maximum.
pub const MAX_THREADS: usize = 1024;

/// Same as the main search thread (see `engine/`): the search keeps ~2.6 KB a ply.
const HELPER_STACK_BYTES: usize = 16 << 20;

/// Memory kept free when a helper is started, for what the threads allocate as they run (a
/// few KB each: the keys of a long game's line, a result's PV, the output's lines).
/// (Measured under `ulimit -v`: 256 KiB beside the data alone was not enough: with the
/// stack's 16 MiB taken after the check, a thread's 256-byte allocation failed.) Each helper
/// adds its own share: at a search's start it makes its root moves' lines and its line of
/// keys, 10–20 KB.
const SPARE_BYTES: usize = 1 << 20;
const SPARE_BYTES_PER_HELPER: usize = 64 << 10;

/// One search's work for the helpers, shared by all of them.
pub struct HelperJob {
    pub tt: Arc<TranspositionTable>,
    pub root: Position,
    pub history: Arc<Vec<u64>>,
    pub limits: Limits,
    pub options: SearchOptions,
    /// Stopped by the main thread when it is done (and by any helper past the deadline).
    pub control: Arc<SearchControl>,
    /// The helpers' node count, read by the main thread.
    pub nodes: Arc<AtomicU64>,
    /// Which search this is (set by `Pool::start`): a helper still unwinding from the last
    /// search leaves a result with the old number, which the new search must not take.
    pub search_id: u64,
    /// A counting search (`stats on`): each helper counts for itself and adds its counts
    /// here once, when it is done.
    pub stats: Option<Arc<Mutex<SearchStats>>>,
}

/// What a helper is asked to do.
enum Work {
    Search(Arc<HelperJob>),
    /// Forget what was learnt (`ucinewgame`).
    Clear,
}

struct Helper {
    jobs: Sender<Work>,
    /// The result of its last search, once it has finished it, with that search's number.
    result: Arc<Mutex<Option<(u64, SearchResult)>>>,
    thread: JoinHandle<()>,
}

/// The helper threads and how many of them are busy.
#[derive(Default)]
pub struct Pool {
    helpers: Vec<Helper>,
    busy: Arc<(Mutex<usize>, Condvar)>,
    /// The helpers run at a lower priority than the main thread (more threads than cores).
    yielding: bool,
    /// The number of the last search started (`HelperJob::search_id`).
    searches: u64,
    /// A size asked for and not reached for want of memory or threads: not asked again at
    /// every `go` (each try would wait for the helpers and read /proc on the clock), only
    /// for another size or after `clear`.
    short_of: Option<usize>,
}

/// How many of `wanted` more helpers fit in 90% of `available` bytes (the rule for the hash
/// table too); all of them when the memory is not known.
fn helpers_that_fit(wanted: usize, available: Option<u64>) -> usize {
    available.map_or(wanted, |bytes| {
        let each = ThreadData::HEAP_BYTES as u64;
        wanted.min(usize::try_from(bytes / 10 * 9 / each).unwrap_or(usize::MAX))
    })
}

impl Pool {
    /// Blocks until no helper is searching (after a stop they end within a few thousand nodes).
    pub fn wait_idle(&self) {
        let (count, idle) = &*self.busy;
        let mut busy = count.lock().unwrap_or_else(|e| e.into_inner());
        while *busy > 0 {
            busy = idle.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether the pool should be made `n` helpers strong: it is not, and `n` is not a size
    /// it has already fallen short of.
    pub fn wants_resize(&self, n: usize) -> bool {
        self.helpers.len() != n && self.short_of != Some(n)
    }

    /// Makes the pool `n` helpers strong (the pool is idle). Returns a message if fewer
    /// threads than asked could be started.
    pub fn resize(&mut self, n: usize) -> Option<String> {
        self.wait_idle();
        // Each helper's data is allocated in full as it starts; more helpers than memory
        // would be the out-of-memory killer's (Linux overcommits), so they are refused here.
        let available = crate::util::memory::available_bytes();
        let fit = if n > self.helpers.len() {
            self.helpers.len() + helpers_that_fit(n - self.helpers.len(), available)
        } else {
            n
        };
        // With more search threads than cores the helpers run under the idle scheduling
        // policy, so that the main thread, which alone keeps time and answers, always gets a
        // core when it wants one. With ordinary priorities (nice 10 was measured) a core's
        // scheduling period grows with the number of runnable threads, and the main thread
        // waited up to ~300 ms for its turn among 255 helpers (docs/robustness.md,
        // "Time"). A thread can lower its priority but not raise it again, so a change of
        // regime starts the helpers afresh.
        let yielding = fit + 1 > cores();
        if yielding != self.yielding {
            self.stop_all();
            self.yielding = yielding;
        }
        while self.helpers.len() > n {
            // Dropping the sender ends the thread's loop.
            let h = self.helpers.pop().expect("a helper to stop");
            drop(h.jobs);
            let _ = h.thread.join();
        }
        self.short_of = None;
        while self.helpers.len() < fit {
            // The helper's data is made here, not in its thread: it is the only sizeable
            // allocation a helper needs, and here a failure can be refused — an allocation
            // that fails anywhere aborts the process. Under an address-space limit (`ulimit
            // -v`, which `available_bytes` does not see) the data, the thread's stack and
            // room for what every thread still allocates as it runs (lines of keys, results,
            // output) are asked for first, together.
            let needed = ThreadData::HEAP_BYTES
                + HELPER_STACK_BYTES
                + SPARE_BYTES
                + SPARE_BYTES_PER_HELPER * (self.helpers.len() + 1);
            if !crate::util::memory::can_allocate(needed) {
                return self.fell_short(
                    n,
                    format!(
                        "no room for another: its data, {} KiB, and its stack, {} MiB",
                        ThreadData::HEAP_BYTES >> 10,
                        HELPER_STACK_BYTES >> 20
                    ),
                );
            }
            let td = ThreadData::new();
            let (jobs, inbox) = mpsc::channel::<Work>();
            let result = Arc::new(Mutex::new(None));
            let id = self.helpers.len() + 1;
            let (slot, busy) = (Arc::clone(&result), Arc::clone(&self.busy));
            let spawned = std::thread::Builder::new()
                .name(format!("search helper {id}"))
                .stack_size(HELPER_STACK_BYTES)
                .spawn(move || {
                    if yielding {
                        lower_own_priority();
                    }
                    helper_loop(id, td, inbox, slot, busy)
                });
            match spawned {
                Ok(thread) => self.helpers.push(Helper {
                    jobs,
                    result,
                    thread,
                }),
                Err(e) => return self.fell_short(n, e.to_string()),
            }
        }
        if fit < n {
            return self.fell_short(
                n,
                format!(
                    "a thread's data takes {} KiB; {} MiB of memory available",
                    ThreadData::HEAP_BYTES >> 10,
                    available.unwrap_or(0) >> 20
                ),
            );
        }
        None
    }

    /// The pool stays as it is, short of `n` helpers for the reason `why`: not tried again
    /// for `n` (see `wants_resize`); the error line says how many threads search.
    fn fell_short(&mut self, n: usize, why: String) -> Option<String> {
        self.short_of = Some(n);
        let threads = self.helpers.len() + 1;
        Some(format!(
            "error: only {threads} of {} threads could be started ({why}); searching with \
             {threads}",
            n + 1
        ))
    }

    pub fn len(&self) -> usize {
        self.helpers.len()
    }

    /// Starts every helper on `job` (numbering it), without waiting for helpers still
    /// unwinding from the last search: they take the job up when they are done.
    pub fn start(&mut self, mut job: HelperJob) {
        self.searches += 1;
        job.search_id = self.searches;
        let job = Arc::new(job);
        for h in &self.helpers {
            *h.result.lock().unwrap_or_else(|e| e.into_inner()) = None;
            self.send(h, Work::Search(Arc::clone(&job)));
        }
    }

    fn send(&self, h: &Helper, work: Work) {
        let (count, _) = &*self.busy;
        *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        if h.jobs.send(work).is_err() {
            // The thread is gone: it will never report back.
            *count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        }
    }

    /// The results of the helpers that have finished the last search started, without
    /// waiting for the others.
    pub fn finished_results(&self) -> Vec<SearchResult> {
        self.helpers
            .iter()
            .filter_map(|h| {
                let mut slot = h.result.try_lock().ok()?;
                match slot.take() {
                    Some((id, result)) if id == self.searches => Some(result),
                    _ => None,
                }
            })
            .collect()
    }

    /// Forgets what every helper learnt (`ucinewgame`); the pool is idle.
    pub fn clear(&mut self) {
        self.short_of = None;
        self.wait_idle();
        for h in &self.helpers {
            self.send(h, Work::Clear);
        }
        self.wait_idle();
    }
}

impl Pool {
    fn stop_all(&mut self) {
        self.wait_idle();
        for h in self.helpers.drain(..) {
            drop(h.jobs);
            let _ = h.thread.join();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// Puts the calling thread under the idle scheduling policy (Linux; elsewhere nothing).
fn lower_own_priority() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` is a valid sched_param for the call's duration; pid 0 is the
        // calling thread. A failure only leaves the thread's policy as it was.
        unsafe {
            libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
        }
    }
}

/// A helper thread: waits for a job, searches it until stopped, leaves its result, repeats.
fn helper_loop(
    id: usize,
    mut td: Box<ThreadData>,
    inbox: Receiver<Work>,
    result: Arc<Mutex<Option<(u64, SearchResult)>>>,
    busy: Arc<(Mutex<usize>, Condvar)>,
) {
    while let Ok(work) = inbox.recv() {
        let outcome = match work {
            Work::Clear => {
                td.clear();
                None
            }
            Work::Search(job) => {
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_helper(&job, &mut td, id)
                }));
                let search_id = job.search_id;
                // Let go of the job (and its hold on the table) before reporting idle.
                drop(job);
                run.map_err(|_| {
                    log::error!("search helper {id} panicked; its tables are cleared");
                    td.clear();
                })
                .ok()
                .map(|r| (search_id, r))
            }
        };
        *result.lock().unwrap_or_else(|e| e.into_inner()) = outcome;
        let (count, idle) = &*busy;
        *count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        idle.notify_all();
    }
}

/// A helper's search, counting if the job asks for it.
fn run_helper(job: &HelperJob, td: &mut ThreadData, id: usize) -> SearchResult {
    match &job.stats {
        None => helper_search(job, td, id, NoTally).0,
        Some(sum) => {
            let (result, counted) = helper_search(job, td, id, Counting::default());
            sum.lock()
                .unwrap_or_else(|e| e.into_inner())
                .add_thread(&counted.stats);
            result
        }
    }
}

/// A helper's search: iterative deepening without limits but the clock's hard deadline
/// (until the main thread stops it), without reports, MultiPV or secondary search.
fn helper_search<T: Tally>(
    job: &HelperJob,
    td: &mut ThreadData,
    id: usize,
    tally: T,
) -> (SearchResult, T) {
    let limits = Limits {
        infinite: true,
        searchmoves: job.limits.searchmoves.clone(),
        // On a crowded machine a pondering helper waits after depth 1, as the main thread does.
        machine_delay_ms: job.limits.machine_delay_ms,
        ..Limits::default()
    };
    let options = SearchOptions {
        multipv: 1,
        secondary_search: false,
        ..job.options.clone()
    };
    td.prepare(&job.history, &job.options.evaluation);
    let mut worker = Worker::for_root(
        &job.tt,
        td,
        &job.control,
        &options,
        job.history.len(),
        &job.nodes,
        true,
        tally,
    );
    let mut silent = |_: SearchEvent| {};
    let mut deepening = Deepening {
        worker: &mut worker,
        root: job.root,
        moves: super::root::root_moves(&job.root, &job.limits.searchmoves),
        report: &mut silent,
        multipv: 1,
        helper_id: id,
        expected: None,
    };
    let result = deepening.run(&limits, &options);
    // Stop the others too: a helper that stopped by the deadline saw the time run out.
    job.control.stop();
    (result, worker.tally)
}

/// Orders scores: mates first by distance, then centipawns.
fn score_key(s: Option<Score>) -> i64 {
    match s {
        None => i64::MIN,
        Some(Score::Cp(cp)) => cp as i64,
        Some(Score::Mate(n)) if n > 0 => 1_000_000 - n as i64,
        Some(Score::Mate(n)) => -1_000_000 - n as i64,
    }
}

/// The result to play: the main thread's, unless a helper finished a deeper iteration with a
/// score at least as good (then its line is reported, so the last PV starts with the move).
/// With MultiPV the main thread's lines stand.
pub fn choose<T: Tally>(
    main: SearchResult,
    helpers: Vec<SearchResult>,
    multipv: usize,
    worker: &Worker<'_, T>,
    report: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let nodes = worker.total_nodes();
    // The stall is the main thread's, whichever thread's move is played.
    let longest_stall = main.longest_stall;
    let mut best = main;
    let mut from_helper = false;
    if multipv == 1 {
        for h in helpers {
            if h.best.is_some()
                && h.depth > best.depth.max(best.surprise_depth)
                && score_key(h.score) >= score_key(best.score)
            {
                best = h;
                from_helper = true;
            }
        }
    }
    best.nodes = nodes;
    best.longest_stall = longest_stall;
    if from_helper {
        if let Some(score) = best.score {
            report(SearchEvent::Line(LineInfo {
                depth: best.depth,
                seldepth: best.depth,
                multipv: 1,
                score,
                bound: Bound::Exact,
                nodes,
                time_ms: worker.thinking_ms(),
                hashfull: worker.tt.hashfull(),
                tbhits: worker.tbhits,
                pv: best.pv.clone(),
            }));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn helpers_beyond_the_memory_are_not_started() {
        let each = ThreadData::HEAP_BYTES as u64;
        assert!(each > 1 << 20, "a thread's data is over 1 MiB: {each}");
        assert_eq!(helpers_that_fit(63, None), 63);
        assert_eq!(helpers_that_fit(63, Some(u64::MAX)), 63);
        // 90% of ten threads' worth: nine.
        assert_eq!(helpers_that_fit(63, Some(10 * each)), 9);
        assert_eq!(helpers_that_fit(63, Some(each / 2)), 0);
    }

    #[test]
    fn a_result_left_by_the_last_search_is_not_taken() {
        // A helper still unwinding from search 1 when search 2 began writes its result late;
        // search 2 must not play a move of search 1's position.
        let mut pool = Pool::default();
        assert!(pool.resize(1).is_none());
        pool.searches = 2;
        let stale = SearchResult {
            best: None,
            ponder: None,
            score: Some(Score::Cp(0)),
            depth: 30,
            nodes: 1,
            pv: Vec::new(),
            surprise_depth: 0,
            longest_stall: Duration::ZERO,
        };
        *pool.helpers[0].result.lock().unwrap() = Some((1, stale.clone()));
        assert!(pool.finished_results().is_empty());
        *pool.helpers[0].result.lock().unwrap() = Some((2, stale));
        assert_eq!(pool.finished_results().len(), 1);
    }

    #[test]
    fn scores_order_mates_around_centipawns() {
        let keys: Vec<i64> = [
            Some(Score::Mate(-1)),
            Some(Score::Mate(-5)),
            Some(Score::Cp(-300)),
            Some(Score::Cp(0)),
            Some(Score::Cp(250)),
            Some(Score::Mate(7)),
            Some(Score::Mate(2)),
        ]
        .into_iter()
        .map(score_key)
        .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert!(score_key(None) < keys[0]);
    }
}
