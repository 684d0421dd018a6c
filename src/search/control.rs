//! `SearchControl`: what the protocol thread, the answer's guard and the search threads share
//! while a search runs — the stop flag, pondering, the deadline and the answer's due time.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
