//! The two threads behind every `go`: the search thread, which runs the searches one after
//! another for the engine's life, and the answer's guard, which plays a move for a search
//! that has not answered by its hard limit.

use crate::chess::{GenType, Move, MoveList, Position};
use crate::search::{SearchControl, SearchResult};
use crate::util::sched::RunQueueWait;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const SEARCH_STACK_BYTES: usize = 16 << 20;

/// A search's work, run on the search thread (or, should that thread not start, on the
/// caller's: the argument then says why).
pub(super) type SearchWork = Box<dyn FnOnce(Option<String>) + Send>;

/// The thread the searches run on: one for the engine's life, asleep between searches. A
/// thread started for each search had to wait for its first turn on a core, and on a crowded
/// machine that wait could pass the move's whole time; a thread that has slept is woken at once.
pub(super) struct SearchThread {
    jobs: mpsc::Sender<SearchWork>,
    /// One message per job done.
    done: mpsc::Receiver<()>,
    /// Jobs sent and not yet waited for.
    running: usize,
}

impl SearchThread {
    pub(super) fn start() -> std::io::Result<SearchThread> {
        let (jobs, inbox) = mpsc::channel::<SearchWork>();
        let (finished, done) = mpsc::channel();
        // The search keeps ~2.6 KB per ply on the stack; give it room well beyond the default.
        std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                for work in inbox {
                    work(None);
                    if finished.send(()).is_err() {
                        return;
                    }
                }
            })?;
        Ok(SearchThread {
            jobs,
            done,
            running: 0,
        })
    }

    /// Hands `work` to the thread; gives it back if the thread is gone.
    pub(super) fn run(&mut self, work: SearchWork) -> Result<(), SearchWork> {
        self.jobs.send(work).map_err(|e| e.0)?;
        self.running += 1;
        Ok(())
    }

    /// Waits for the jobs sent to end; false if the thread died meanwhile (a panic outside
    /// the search's own catch).
    pub(super) fn wait(&mut self) -> bool {
        while self.running > 0 {
            if self.done.recv().is_err() {
                return false;
            }
            self.running -= 1;
        }
        true
    }
}

/// A panic's message, if it has one.
pub(super) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// A result for `best`, a move no finished search chose (the search failed, or the guard
/// answered for it).
pub(super) fn fallback_result(best: Option<Move>) -> SearchResult {
    SearchResult {
        best,
        ponder: None,
        score: None,
        depth: 0,
        nodes: 0,
        pv: best.into_iter().collect(),
        surprise_depth: 0,
        longest_stall: Duration::ZERO,
    }
}

/// A move for `root` that no search chose, for when none can: the table's move (`remembered`)
/// if the root's moves allow it, else a legal capture or promotion, else any legal move;
/// within `searchmoves` when it is not empty.
pub(super) fn unchosen_move(
    root: &Position,
    searchmoves: &[Move],
    remembered: Option<Move>,
) -> Option<Move> {
    let allowed = |m: &Move| searchmoves.is_empty() || searchmoves.contains(m);
    if let Some(m) = remembered.filter(allowed) {
        return Some(m);
    }
    let mut noisy = MoveList::new();
    root.generate(GenType::Noisy, &mut noisy);
    let first = noisy.iter().find(|m| allowed(m)).copied();
    first.or_else(|| root.legal_moves().iter().find(|m| allowed(m)).copied())
}

/// The answer's guard. On a machine with more busy threads than cores the search thread can
/// lose its core just as its time runs out, and its `bestmove` then waits until it gets one
/// back: up to 30 ms with two games on two cores at 0.05 s a move (a soak, where that
/// lost a game on time). A thread that has slept gets a core back sooner than one that
/// has used its share: this one sleeps until `GRACE` after the search's hard limit and, if the
/// search thread has not answered by then, plays the first move of the last line shown (with
/// its second as the ponder move) and stops the search. One thread serves every search, and
/// sleeps between them: a thread started for each search was itself often still waiting for
/// its first turn on a core when the move was due (its answers came up to 50 ms late).
/// Only timed searches are watched; pondering has no limit until the `ponderhit`. The due
/// time is set before the search thread is woken, so a search thread that has not even begun
/// is covered too: with no line shown, the guard waits `LINELESS` longer for one and then
/// plays the table's move for the position (else a legal capture, else any legal move).
pub(super) struct AnswerGuard;

/// One timed search for the guard to watch.
pub(super) struct GuardJob {
    /// The search (`SearchControl::reset`).
    pub(super) search: u64,
    pub(super) shown: ShownLine,
    /// What to play should no line be shown in time (`unchosen_move`).
    pub(super) unchosen: Option<Move>,
    pub(super) answer: Arc<dyn Fn(&SearchResult) + Send + Sync>,
}

/// The last line shown: its first move and its second (`Move::raw`; 0: none yet). Its first
/// move is also what to play should the search fail.
#[derive(Clone, Default)]
pub(super) struct ShownLine(Arc<AtomicU32>);

impl ShownLine {
    pub(super) fn show(&self, pv: &[Move]) {
        let best = pv.first().map_or(0, |m| m.raw() as u32);
        let ponder = pv.get(1).map_or(0, |m| m.raw() as u32);
        self.0.store(best | ponder << 16, Ordering::Relaxed);
    }

    pub(super) fn moves(&self) -> (Option<Move>, Option<Move>) {
        let both = self.0.load(Ordering::Relaxed);
        let mv = |raw: u32| Some(Move::from_raw(raw as u16)).filter(|m| !m.is_null());
        (mv(both & 0xffff), mv(both >> 16))
    }
}

impl AnswerGuard {
    /// After the hard limit, the search thread's own answer is waited for this long: it
    /// may have chosen better (a helper's deeper line, the last iteration's best).
    const GRACE: Duration = Duration::from_millis(2);
    /// With no line shown by then, the search thread's depth 1 is waited for this much
    /// longer before a move it did not choose is played: a thread that has not finished
    /// depth 1 by its hard limit has stalled (depth 1 takes well under a millisecond), and
    /// `Move Overhead` (10 ms by default) is all the time left on the GUI's clock.
    const LINELESS: Duration = Duration::from_millis(2);
    const STACK_BYTES: usize = 64 << 10;

    /// Starts the guard's thread, which watches the searches sent to it.
    pub(super) fn start(control: Arc<SearchControl>) -> std::io::Result<mpsc::Sender<GuardJob>> {
        let (jobs, inbox) = mpsc::channel::<GuardJob>();
        std::thread::Builder::new()
            .name("answer guard".into())
            .stack_size(Self::STACK_BYTES)
            .spawn(move || {
                let run_queue = RunQueueWait::of_this_thread();
                for job in inbox {
                    Self::watch(&control, job, &run_queue);
                }
            })?;
        Ok(jobs)
    }

    fn watch(control: &SearchControl, job: GuardJob, run_queue: &RunQueueWait) {
        // For the time log: how much of a late wake-up was spent waiting for a core (a wait
        // the kernel does not see is the host's: the virtual CPU itself was not running).
        let logging = log::log_enabled!(target: "time", log::Level::Debug);
        let queued_before = run_queue.total().filter(|_| logging);
        let (best, ponder) = loop {
            if !control.wait_until_answer_due(job.search, Self::GRACE) {
                return;
            }
            if let (Some(best), ponder) = job.shown.moves() {
                break (best, ponder);
            }
            // No line shown: the search thread has not finished depth 1 (or not begun). Its
            // own move is worth a little more time; then any sound move beats a lost game.
            let overdue = control
                .answer_due()
                .is_some_and(|due| due.elapsed() >= Self::GRACE + Self::LINELESS);
            if let (true, Some(best)) = (overdue, job.unchosen) {
                break (best, None);
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        if !control.claim_answer(job.search) {
            return;
        }
        control.stop_search(job.search);
        let mut result = fallback_result(Some(best));
        result.ponder = ponder;
        (job.answer)(&result);
        if let (Some(before), Some(after)) = (queued_before, run_queue.total()) {
            log::debug!(
                target: "time",
                "the search thread had not answered {:?} after its hard limit: the guard played for it, {:?} after the limit (the guard waited {:?} for a core meanwhile)",
                Self::GRACE,
                control.answer_due().map(|due| due.elapsed()),
                after.saturating_sub(before),
            );
        }
    }
}
