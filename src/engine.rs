//! The engine facade between the protocol layer and the search: set up a search, start it
//! on its own thread, stop it, tell it the ponder move was played, wait for it.
//! It owns the searcher (and so the transposition table) across searches.

use crate::chess::Position;
use crate::search::{Limits, SearchControl, SearchEvent, SearchOptions, SearchResult, Searcher};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Everything one search needs.
pub struct SearchJob {
    pub root: Position,
    /// Keys of the game's earlier positions, oldest first, root excluded.
    pub history: Vec<u64>,
    pub limits: Limits,
    pub options: SearchOptions,
}

const SEARCH_STACK_BYTES: usize = 16 << 20;

pub struct Engine {
    searcher: Arc<Mutex<Searcher>>,
    control: Arc<SearchControl>,
    worker: Option<JoinHandle<()>>,
}

impl Engine {
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            searcher: Arc::new(Mutex::new(Searcher::new(hash_mb))),
            control: Arc::new(SearchControl::new()),
            worker: None,
        }
    }

    /// Starts a search and returns at once. `on_event` receives the search's reports;
    /// `on_done` receives the result exactly once — and, for `go infinite` and `go ponder`,
    /// never before `stop` (or `ponderhit`) even if the search ends early.
    pub fn go(
        &mut self,
        job: SearchJob,
        mut on_event: impl FnMut(SearchEvent) + Send + 'static,
        on_done: impl FnOnce(SearchResult) + Send + 'static,
    ) {
        self.wait();
        self.control.reset();
        self.control.set_pondering(job.limits.ponder);
        let control = Arc::clone(&self.control);
        let searcher = Arc::clone(&self.searcher);
        // The search keeps ~2.6 KB per ply on the stack; give it room well beyond the default.
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES);
        let spawned = thread.spawn(move || {
            let result = {
                let mut searcher = searcher.lock().unwrap_or_else(|e| e.into_inner());
                searcher.search(
                    &job.root,
                    &job.history,
                    &job.limits,
                    &job.options,
                    &control,
                    &mut on_event,
                )
            };
            // The GUI must not see a best move before it asked for one.
            while (job.limits.infinite || control.pondering()) && !control.stop_requested() {
                std::thread::sleep(Duration::from_millis(1));
            }
            on_done(result);
        });
        self.worker = Some(spawned.expect("spawn the search thread"));
    }

    pub fn stop(&self) {
        self.control.stop();
    }

    /// The opponent played the move we pondered on: the search goes on as a timed search.
    pub fn ponderhit(&self) {
        self.control.set_pondering(false);
    }

    /// Blocks until the running search (if any) has delivered its result.
    pub fn wait(&mut self) {
        if let Some(worker) = self.worker.take() {
            if worker.join().is_err() {
                log::error!("the search thread panicked");
            }
        }
    }

    pub fn is_searching(&self) -> bool {
        self.worker.as_ref().is_some_and(|w| !w.is_finished())
    }

    /// Runs `f` on the idle searcher (waits for a running search first).
    pub fn with_searcher<R>(&mut self, f: impl FnOnce(&mut Searcher) -> R) -> R {
        self.wait();
        let mut searcher = self.searcher.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut searcher)
    }

    pub fn new_game(&mut self) {
        self.with_searcher(|s| s.clear());
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
