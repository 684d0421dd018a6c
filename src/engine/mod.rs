//! The engine facade: what a GUI, a data generator or a library user talks to. It owns the
//! game (position and history), the settings the options make, the opening book and the
//! tablebases, and the searcher (and so the transposition table) across searches; it decides
//! whether a move comes from the book or a search, sets the search up, runs it on its own
//! thread, stops it, tells it the ponder move was played, and waits for it. It speaks no
//! protocol: the UCI layer turns text into these calls and events into text.

pub mod options;
pub mod settings;
pub mod setup;
mod threads;

use crate::book::Book;
use crate::chess::game::{Game, IllegalMove};
use crate::chess::Position;
use crate::eval::nnue::network::{Network, MAX_FILE_BYTES};
use crate::search::{
    Limits, SearchControl, SearchEvent, SearchOptions, SearchResult, SearchStats, Searcher,
};
use crate::tablebase::Tablebases;
use options::{Effect, OptionSpec, Value};
use settings::Settings;
use std::panic::AssertUnwindSafe;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use threads::{
    fallback_result, panic_text, unchosen_move, AnswerGuard, GuardJob, SearchThread, SearchWork,
    ShownLine,
};

/// Everything one search needs.
struct SearchJob {
    pub root: Position,
    /// Keys of the game's earlier positions, oldest first, root excluded.
    pub history: Vec<u64>,
    pub limits: Limits,
    pub options: SearchOptions,
}

/// An option that was set, and what the user should be told about it.
pub struct Applied {
    pub spec: &'static OptionSpec,
    pub notes: Vec<String>,
    /// Told only in debug mode.
    pub debug_notes: Vec<String>,
}

pub struct Engine {
    searcher: Arc<Mutex<Searcher>>,
    control: Arc<SearchControl>,
    /// The thread the searches run on (started with the engine; again if it died).
    search_thread: Option<SearchThread>,
    /// The number of the latest search (`SearchControl::reset`).
    latest_search: u64,
    settings: Settings,
    game: Game,
    /// The book from `BookFile`; `None` means the embedded book.
    book: Option<Book>,
    tablebases: Option<Arc<Tablebases>>,
    /// The network of `EvalFile` (the embedded one when it is empty).
    network: Arc<Network>,
    /// The answer's guard (started with the engine; again if it failed to start).
    guard: Option<mpsc::Sender<GuardJob>>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        crate::chess::attacks::init();
        crate::chess::cuckoo::init();
        crate::endgame::kpk::init();
        let settings = Settings::default();
        let control = Arc::new(SearchControl::new());
        // Both threads start now, so that they have slept before the first `go` (a new
        // thread waits for its first turn on a core; a sleeping one is woken at once).
        Engine {
            searcher: Arc::new(Mutex::new(Searcher::new(settings.hash_mb))),
            search_thread: SearchThread::start()
                .map_err(|e| log::warn!("the search thread could not be started yet ({e})"))
                .ok(),
            guard: AnswerGuard::start(Arc::clone(&control))
                .map_err(|e| log::warn!("the answer's guard could not be started yet ({e})"))
                .ok(),
            control,
            latest_search: 0,
            settings,
            game: Game::default(),
            book: None,
            tablebases: None,
            network: crate::eval::nnue::network::embedded(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// `ucinewgame`: the start position, and nothing learnt kept.
    pub fn new_game(&mut self) {
        self.with_searcher(|s| s.clear());
        self.game = Game::default();
    }

    /// Sets the game to `start` followed by `moves` (UCI notation); all or nothing: an illegal
    /// move leaves the previous game as it was.
    pub fn set_position(&mut self, start: Position, moves: &[String]) -> Result<(), IllegalMove> {
        self.game = Game::from_uci_moves(start, moves)?;
        Ok(())
    }

    /// Sets an option by name from its text value. An unknown name or a bad value is an error
    /// and changes nothing; so does a file that cannot be used (the previous one stays).
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<Applied, String> {
        let spec = options::find(name).ok_or_else(|| format!("unknown option '{name}'"))?;
        let value = spec.check(value)?;
        let mut notes = Vec::new();
        let mut debug_notes = Vec::new();
        match spec.effect {
            Effect::None | Effect::OpenLog => {}
            Effect::ResizeHash => {
                let Value::Int(mb) = value else {
                    unreachable!()
                };
                self.with_searcher(|se| se.set_hash_size(mb as usize))
                    .map_err(|e| format!("Hash {mb} MiB not used: {e}"))?;
                debug_notes.push(format!("hash table set to {mb} MiB"));
            }
            Effect::ClearHash => self.with_searcher(|se| se.clear()),
            Effect::LoadBook => notes.extend(self.load_book(&value)?),
            Effect::LoadTablebases => notes.extend(self.load_tablebases(&value)?),
            Effect::LoadNetwork => notes.extend(self.load_network(&value)?),
        }
        // The table stores static evaluations: another evaluation must not reuse them.
        let evaluation_before = setup::evaluation(&self.settings, &self.network);
        (spec.set)(&mut self.settings, value);
        if setup::evaluation(&self.settings, &self.network) != evaluation_before
            || spec.effect == Effect::LoadNetwork
        {
            self.with_searcher(|se| se.clear());
        }
        Ok(Applied {
            spec,
            notes,
            debug_notes,
        })
    }

    fn load_book(&mut self, value: &Value) -> Result<Option<String>, String> {
        let Value::Text(path) = value else {
            unreachable!()
        };
        if path.is_empty() {
            self.book = None;
            return Ok(None);
        }
        match Book::open(path) {
            Ok(b) => {
                let note = format!("book file {path}: {} entries", b.len());
                self.book = Some(b);
                Ok(Some(note))
            }
            Err(e) => {
                self.book = None;
                self.settings.book_file.clear();
                Err(format!(
                    "book file {path} not used: {e}; using the embedded book"
                ))
            }
        }
    }

    fn load_tablebases(&mut self, value: &Value) -> Result<Vec<String>, String> {
        let Value::Text(path) = value else {
            unreachable!()
        };
        self.tablebases = None;
        if path.is_empty() {
            return Ok(Vec::new());
        }
        let tb = Tablebases::open(path).map_err(|e| format!("SyzygyPath not used: {e}"))?;
        let mut notes: Vec<String> = tb.warnings().to_vec();
        notes.push(tb.summary());
        self.tablebases = Some(Arc::new(tb));
        Ok(notes)
    }

    /// `EvalFile`: a network file (`Network::from_bytes`: version 1 with its header, or the
    /// legacy headerless size); anything else is an error and the network in use stays.
    fn load_network(&mut self, value: &Value) -> Result<Option<String>, String> {
        let Value::Text(path) = value else {
            unreachable!()
        };
        if path.is_empty() {
            self.network = crate::eval::nnue::network::embedded();
            return Ok(Some("network: the embedded one".into()));
        }
        let refuse =
            |why: String| format!("EvalFile {path} not used: {why}; the network stays as it was");
        let bytes =
            crate::util::files::read_bounded(std::path::Path::new(path), MAX_FILE_BYTES as u64)
                .map_err(refuse)?;
        let net = Network::from_bytes(&bytes).map_err(|e| refuse(e.to_string()))?;
        let shape = net.shape();
        self.network = Arc::from(net);
        Ok(Some(format!(
            "network {path}: {shape}, {} bytes",
            bytes.len()
        )))
    }

    /// The options `bench` runs with: the search's switches and the evaluation in use (no
    /// tables, full strength: the bench is the same work on every machine).
    pub fn bench_options(&self) -> SearchOptions {
        SearchOptions {
            evaluation: setup::evaluation(&self.settings, &self.network),
            ..self.settings.search.clone()
        }
    }

    /// The static evaluation of the current position as the `eval` command shows it: the
    /// network's value, the hand-crafted table, and last the value the search uses.
    pub fn eval_report(&self) -> Vec<String> {
        let pos = self.game.position();
        let white = |stm: i32| match pos.side_to_move() {
            crate::chess::Color::White => stm,
            crate::chess::Color::Black => -stm,
        };
        let nnue = white(self.network.evaluate_from_scratch(pos));
        let mut lines = vec![format!(
            "NNUE evaluation: {:+.2} (white side)",
            nnue as f64 / 100.0
        )];
        let table = crate::eval::hce::explain::explain(pos);
        let (body, hce_final) = match table.trim_end().rsplit_once('\n') {
            Some((body, last)) => (body.to_string(), last.to_string()),
            None => (String::new(), table.clone()),
        };
        lines.extend(body.lines().map(str::to_string));
        // The value the search would use: with `UCI_LimitStrength` that is the hand-crafted one.
        let searched_with_network = matches!(
            setup::evaluation(&self.settings, &self.network),
            crate::eval::EvalChoice::Nnue(_)
        );
        if searched_with_network {
            let known = crate::endgame::evaluate_known(pos).map(white);
            let v = known.unwrap_or(nnue);
            lines.push(format!(
                "HCE: {}",
                hce_final.trim_start_matches("Final evaluation: ")
            ));
            lines.push(format!("Final evaluation: {v:+} cp (white side)"));
        } else {
            lines.push(hce_final);
        }
        lines
    }

    /// Finds the move for the current position within `limits` and returns at once: from the
    /// book when the book answers (a game's clock, the book on and knowing the position),
    /// else from a search on its own thread. `on_event` receives the reports; `on_answer`
    /// receives the move to play exactly once — and, for `go infinite` and `go ponder`, never
    /// before `stop` (or `ponderhit`) even if the search ends early; `on_done` is called when
    /// the search thread ends, after the answer (its own, or the guard's: see `AnswerGuard`).
    pub fn go(
        &mut self,
        mut limits: Limits,
        mut on_event: impl FnMut(SearchEvent) + Send + 'static,
        on_answer: impl Fn(&SearchResult) + Send + Sync + 'static,
        on_done: impl FnOnce(&SearchResult) + Send + 'static,
    ) {
        self.wait();
        let root = *self.game.position();
        if let Some(b) = setup::book_move(&self.settings, self.book.as_ref(), &self.game, &limits) {
            let text = root.move_to_uci(b.mv, self.settings.chess960);
            on_event(SearchEvent::Message(format!(
                "book move {text} (weight {} of {})",
                b.weight, b.total
            )));
            let result = SearchResult {
                best: Some(b.mv),
                ponder: None,
                score: None,
                depth: 0,
                nodes: 0,
                pv: vec![b.mv],
                surprise_depth: 0,
                longest_stall: Duration::ZERO,
            };
            self.with_searcher(|s| s.forget_stats());
            on_answer(&result);
            on_done(&result);
            return;
        }
        let tables = self.tablebases.as_deref();
        if let Some(note) =
            setup::tablebase_root_moves(&self.settings, tables, &self.game, &mut limits)
        {
            on_event(SearchEvent::Message(note));
        }
        let job = SearchJob {
            root,
            history: self.game.history().to_vec(),
            limits,
            options: setup::search_options(&self.settings, self.tablebases.as_ref(), &self.network),
        };
        self.search(job, on_event, on_answer, on_done);
    }

    fn search(
        &mut self,
        job: SearchJob,
        mut on_event: impl FnMut(SearchEvent) + Send + 'static,
        on_answer: impl Fn(&SearchResult) + Send + Sync + 'static,
        on_done: impl FnOnce(&SearchResult) + Send + 'static,
    ) {
        let search_number = self.control.reset();
        self.latest_search = search_number;
        self.control.set_pondering(job.limits.ponder);
        let control = Arc::clone(&self.control);
        let searcher = Arc::clone(&self.searcher);
        let on_answer = Arc::new(on_answer);
        let shown = ShownLine::default();
        // Watched: the searches with a time budget. The move's due time is known now (the
        // search thread publishes the same): the guard covers a search thread that has not
        // even begun by then.
        let side = job.root.side_to_move();
        let timed = crate::search::time::budget(&job.limits, side, &job.options);
        if let Some(b) = timed {
            let hard = Duration::from_millis(b.hard_ms);
            if job.limits.ponder {
                self.control.set_answer_after_ponderhit(hard);
            } else {
                let start = job.limits.received.unwrap_or_else(Instant::now);
                self.control.set_answer_due(start + hard);
            }
        }
        let job_received = job.limits.received;
        let guard_job = timed.is_some().then(|| GuardJob {
            search: search_number,
            shown: shown.clone(),
            unchosen: unchosen_move(
                &job.root,
                &job.limits.searchmoves,
                self.searcher
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .table_move(&job.root),
            ),
            answer: on_answer.clone(),
        });
        // The search's work; should no thread start for it, it runs here, on the caller's
        // thread (`inline` says so in an info line): slower to stop, but a move still comes.
        let work = move |inline: Option<String>| {
            let mut job = job;
            if let Some(why) = inline {
                on_event(SearchEvent::Message(format!(
                    "error: the search thread could not be started ({why}); searching on the protocol thread, to depth 8 at most"
                )));
                // The protocol thread is busy here and cannot read a `stop`: the search
                // must end by itself.
                let l = &mut job.limits;
                l.infinite = false;
                l.ponder = false;
                control.set_pondering(false);
                if l.wtime.is_none()
                    && l.btime.is_none()
                    && l.movetime.is_none()
                    && l.nodes.is_none()
                {
                    l.depth = Some(l.depth.map_or(8, |d| d.min(8)));
                }
            }
            let result = {
                let mut searcher = searcher.lock().unwrap_or_else(|e| e.into_inner());
                let mut forward = |e: SearchEvent| {
                    // Once the guard has answered, the GUI hears nothing more of this search.
                    if control.answered(search_number) {
                        return;
                    }
                    if let SearchEvent::Line(line) = &e {
                        if line.multipv == 1 && !line.pv.is_empty() {
                            shown.show(&line.pv);
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
                        fallback_result(unchosen_move(
                            &job.root,
                            &job.limits.searchmoves,
                            shown.moves().0,
                        ))
                    }
                }
            };
            // The GUI must not see a best move before it asked for one.
            control.wait_for_stop_or_ponderhit(job.limits.infinite);
            // The answer first: telling the protocol thread wakes it, and a woken thread may
            // take its waker's core on a crowded machine. What the GUI sends after reading
            // `bestmove` waits in the protocol thread's queue until `on_done`'s message.
            if control.claim_answer(search_number) {
                on_answer(&result);
            }
            on_done(&result);
            control.finish_search(search_number);
        };
        let received = job_received;
        let work: SearchWork = Box::new(move |inline| {
            if inline.is_none() {
                crate::search::fault_stall(crate::search::Fault::StallAtStart);
            }
            if let Some(at) = received {
                log::debug!(target: "time", "the search thread began {:?} after the go was read", at.elapsed());
            }
            work(inline)
        });
        if let Some(job) = guard_job {
            self.guard(job);
        }
        let slot = &mut self.search_thread;
        let work = match slot.as_mut() {
            Some(thread) => match thread.run(work) {
                Ok(()) => return,
                Err(work) => work,
            },
            None => work,
        };
        // The thread is gone or not started yet: start one now, else search here.
        *slot = None;
        match SearchThread::start() {
            Ok(mut thread) => {
                let sent = thread.run(work);
                *slot = Some(thread);
                if let Err(work) = sent {
                    work(Some("it ended at once".into()));
                }
            }
            Err(e) => {
                log::error!("could not start the search thread: {e}");
                work(Some(e.to_string()));
            }
        }
    }

    /// Hands a timed search to the answer's guard (started again if it is not running).
    /// Should its thread not start, the search thread answers alone.
    fn guard(&mut self, job: GuardJob) {
        if self.guard.is_none() {
            match AnswerGuard::start(Arc::clone(&self.control)) {
                Ok(jobs) => self.guard = Some(jobs),
                Err(e) => log::warn!("the answer's guard could not be started ({e})"),
            }
        }
        if let Some(jobs) = &self.guard {
            if jobs.send(job).is_err() {
                self.guard = None;
            }
        }
    }

    pub fn stop(&self) {
        self.control.stop();
    }

    /// Whether the latest search's move has been sent (its thread may still be ending).
    pub fn answered(&self) -> bool {
        self.latest_search > 0 && self.control.answered(self.latest_search)
    }

    /// The opponent played the move we pondered on (the `ponderhit` was read at `at`): the
    /// search goes on as a timed search, its clock running from `at`.
    pub fn ponderhit(&self, at: std::time::Instant) {
        self.control.ponderhit(at);
    }

    /// Blocks until the running search (if any) has delivered its result.
    pub fn wait(&mut self) {
        if let Some(thread) = self.search_thread.as_mut() {
            if !thread.wait() {
                log::error!("the search thread panicked");
                self.search_thread = None;
            }
        }
    }

    /// `stats on|off`: whether the searches from now on are counted (the counting search is
    /// slower and searches the same tree; `bench` and data generation never count).
    pub fn set_counting(&mut self, on: bool) {
        self.with_searcher(|s| s.set_counting(on));
    }

    /// What the last search counted, if it was counted (waits for a running search).
    pub fn last_stats(&mut self) -> Option<SearchStats> {
        self.with_searcher(|s| s.last_stats())
    }

    /// Runs `f` on the idle searcher (waits for a running search first).
    pub fn with_searcher<R>(&mut self, f: impl FnOnce(&mut Searcher) -> R) -> R {
        self.wait();
        let mut searcher = self.searcher.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut searcher)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `go depth 2` and returns the thread that searched.
    fn searching_thread(engine: &mut Engine) -> std::thread::ThreadId {
        let (tx, rx) = mpsc::channel();
        let limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        engine.go(
            limits,
            |_| {},
            |result| assert!(result.best.is_some()),
            move |_| tx.send(std::thread::current().id()).unwrap(),
        );
        engine.wait();
        rx.recv().unwrap()
    }

    #[test]
    fn every_search_runs_on_the_one_search_thread() {
        let mut engine = Engine::new();
        engine.set_option("OwnBook", Some("false")).unwrap();
        let first = searching_thread(&mut engine);
        assert_ne!(first, std::thread::current().id());
        for _ in 0..3 {
            assert_eq!(searching_thread(&mut engine), first);
        }
    }

    #[test]
    fn a_move_no_search_chose_keeps_to_searchmoves_and_prefers_the_tables() {
        let root = Position::startpos();
        let e2e4 = root.parse_uci_move("e2e4").unwrap();
        let g1f3 = root.parse_uci_move("g1f3").unwrap();
        assert_eq!(unchosen_move(&root, &[], Some(e2e4)), Some(e2e4));
        assert_eq!(unchosen_move(&root, &[g1f3], Some(e2e4)), Some(g1f3));
        assert!(unchosen_move(&root, &[], None).is_some_and(|m| root.legal_moves().contains(m)));
        // A capture when there is one.
        let pos = Position::from_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1").unwrap();
        let capture = pos.parse_uci_move("e4d5").unwrap();
        assert_eq!(unchosen_move(&pos, &[], None), Some(capture));
        // Mated: nothing to play.
        let mated = Position::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(unchosen_move(&mated, &[], None), None);
    }
}
