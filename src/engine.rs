//! The engine facade between the protocol layer and the search: set up a search, start it
//! on its own thread, stop it, tell it the ponder move was played, wait for it.
//! It owns the searcher (and so the transposition table) across searches.

use crate::chess::{GenType, Move, MoveList, Position};
use crate::search::{Limits, SearchControl, SearchEvent, SearchOptions, SearchResult, Searcher};
use std::panic::AssertUnwindSafe;
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

/// A panic's message, if it has one.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// What to play when the search failed: the best move it had shown, else a legal capture or
/// promotion, else any legal move; none when there is none.
fn fallback_result(root: &Position, shown_best: Option<Move>) -> SearchResult {
    let best = shown_best.or_else(|| {
        let mut noisy = MoveList::new();
        root.generate(GenType::Noisy, &mut noisy);
        noisy
            .first()
            .copied()
            .or_else(|| root.legal_moves().first().copied())
    });
    SearchResult {
        best,
        ponder: None,
        score: None,
        depth: 0,
        nodes: 0,
        pv: best.into_iter().collect(),
    }
}

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
                // The first move of the last line shown: what to play should the search fail.
                let mut shown_best: Option<Move> = None;
                let mut forward = |e: SearchEvent| {
                    if let SearchEvent::Line(line) = &e {
                        if line.multipv == 1 && !line.pv.is_empty() {
                            shown_best = Some(line.pv[0]);
                        }
                    }
                    on_event(e);
                };
                // A panic in the search (a bug) must not cost the game: it is reported, a
                // legal move still goes out, and the engine keeps answering.
                let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    searcher.search(
                        &job.root,
                        &job.history,
                        &job.limits,
                        &job.options,
                        &control,
                        &mut forward,
                    )
                }));
                match outcome {
                    Ok(result) => result,
                    Err(payload) => {
                        let what = panic_text(payload.as_ref());
                        log::error!("the search panicked: {what}");
                        forward(SearchEvent::Message(format!(
                            "error: the search failed ({what}); playing a legal move instead"
                        )));
                        // Tables may be half-updated: start afresh.
                        searcher.clear();
                        fallback_result(&job.root, shown_best)
                    }
                }
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
