//! How long a thread has waited for a core: the kernel's run-queue delay, the second field
//! of `/proc/thread-self/schedstat` (Linux; elsewhere nothing is measured).
//!
//! On a machine with more busy threads than cores, a line written to the engine waits for
//! the reader thread to get a core before it can be read, and the runner that reads our
//! `bestmove` waits the same way. The reader measures the first wait for every line (its
//! run-queue delay across the blocking read), so that a `go` is timed from when it arrived,
//! and the search keeps the recent worst of those waits in hand for the second.

use std::fs::File;
use std::time::{Duration, Instant};

/// The calling thread's run-queue clock: open it on the thread to be measured.
pub struct RunQueueWait {
    file: Option<File>,
}

impl RunQueueWait {
    /// The clock of the thread that calls this (it reads nothing where the kernel does not
    /// tell).
    pub fn of_this_thread() -> RunQueueWait {
        RunQueueWait {
            file: File::open("/proc/thread-self/schedstat").ok(),
        }
    }

    /// Time this thread has spent runnable but not running, since it started.
    pub fn total(&self) -> Option<Duration> {
        let file = self.file.as_ref()?;
        let mut buf = [0u8; 96];
        let n = read_from_start(file, &mut buf)?;
        parse_run_delay(std::str::from_utf8(&buf[..n]).ok()?)
    }
}

#[cfg(unix)]
fn read_from_start(file: &File, buf: &mut [u8]) -> Option<usize> {
    use std::os::unix::fs::FileExt;
    file.read_at(buf, 0).ok()
}

#[cfg(not(unix))]
fn read_from_start(_file: &File, _buf: &mut [u8]) -> Option<usize> {
    None
}

/// `schedstat` reads "<ns on a core> <ns waiting for one> <time slices>".
fn parse_run_delay(text: &str) -> Option<Duration> {
    let mut fields = text.split_ascii_whitespace();
    let _on_cpu: u64 = fields.next()?.parse().ok()?;
    let waited: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_nanos(waited))
}

/// The longest a searching thread waited for a core in one go, as seen from its polls of the
/// clock: a poll that comes late (more than `SUSPECT` after the one before) asks the kernel
/// how long the thread waited since. A search that loses its core just before its deadline
/// answers that much late; the next searches keep it in hand. On an idle machine polls come
/// every millisecond or so and the kernel is never asked.
pub struct StallWatch {
    clock: RunQueueWait,
    last_poll: Instant,
    waited: Duration,
    longest: Duration,
}

impl StallWatch {
    const SUSPECT: Duration = Duration::from_millis(2);

    /// Starts watching the calling thread (None where the kernel does not tell).
    pub fn of_this_thread() -> Option<StallWatch> {
        let clock = RunQueueWait::of_this_thread();
        let waited = clock.total()?;
        Some(StallWatch {
            clock,
            last_poll: Instant::now(),
            waited,
            longest: Duration::ZERO,
        })
    }

    /// At each poll of the clock, with the time it read: how long the thread waited for a
    /// core since the last poll (zero unless the poll came late).
    #[inline]
    pub fn poll(&mut self, now: Instant) -> Duration {
        let mut stall = Duration::ZERO;
        if now.saturating_duration_since(self.last_poll) > Self::SUSPECT {
            if let Some(total) = self.clock.total() {
                stall = total.saturating_sub(self.waited);
                self.longest = self.longest.max(stall);
                self.waited = total;
            }
        }
        self.last_poll = now;
        stall
    }

    pub fn longest(&self) -> Duration {
        self.longest
    }
}

/// The worst of the last few waits, in whole milliseconds (to the nearest: a wait under half
/// a millisecond, as on an idle machine, is none).
#[derive(Clone, Debug, Default)]
pub struct RecentWorst {
    waits: [Duration; RecentWorst::LEN],
    next: usize,
}

impl RecentWorst {
    /// About the lines of the last eight moves (`position` and `go`, and with pondering
    /// `ponderhit` or `stop`).
    const LEN: usize = 24;

    pub fn push(&mut self, wait: Duration) {
        self.waits[self.next] = wait;
        self.next = (self.next + 1) % Self::LEN;
    }

    pub fn worst_ms(&self) -> u64 {
        let worst = self.waits.iter().max().copied().unwrap_or_default();
        ((worst.as_micros() + 500) / 1000) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_field_is_the_wait() {
        assert_eq!(
            parse_run_delay("123456 7000000 42\n"),
            Some(Duration::from_millis(7))
        );
        assert_eq!(parse_run_delay("123456\n"), None);
        assert_eq!(parse_run_delay("x 1 2"), None);
    }

    fn spin(d: Duration) {
        let end = Instant::now() + d;
        while Instant::now() < end {
            std::hint::spin_loop();
        }
    }

    /// Three busy threads per core for `d`.
    fn crowd(d: Duration) -> Vec<std::thread::JoinHandle<()>> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        (0..3 * cores)
            .map(|_| std::thread::spawn(move || spin(d)))
            .collect()
    }

    /// The tests that crowd the machine take turns: run side by side (cargo runs a binary's
    /// tests in parallel), one's crowd made the other's "alone" a crowded 36 ms (CI,
    /// 2026-12-03).
    static CROWDING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// The longest stall a thread sees polling every 100 µs for `d`, as a search would.
    fn longest_stall_while_polling(d: Duration) -> Duration {
        std::thread::spawn(move || {
            let mut watch = StallWatch::of_this_thread().unwrap();
            let end = Instant::now() + d;
            while Instant::now() < end {
                spin(Duration::from_micros(100));
                watch.poll(Instant::now());
            }
            watch.longest()
        })
        .join()
        .unwrap()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_that_spins_beside_busy_threads_waits() {
        // The measured one must have waited for a core some of the time (the kernel shares
        // the cores fairly).
        let _turn = CROWDING.lock().unwrap_or_else(|e| e.into_inner());
        let others = crowd(Duration::from_millis(400));
        let measured = std::thread::spawn(|| {
            let clock = RunQueueWait::of_this_thread();
            let before = clock.total();
            spin(Duration::from_millis(300));
            clock.total().zip(before).map(|(a, b)| a - b)
        })
        .join()
        .unwrap();
        for t in others {
            t.join().unwrap();
        }
        let waited = measured.expect("Linux tells a thread's run-queue delay");
        assert!(waited >= Duration::from_millis(30), "{waited:?}");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_search_thread_that_loses_its_core_sees_the_stall() {
        let _turn = CROWDING.lock().unwrap_or_else(|e| e.into_inner());
        let watch_alone = longest_stall_while_polling(Duration::from_millis(100));
        let others = crowd(Duration::from_millis(600));
        let watch_crowded = longest_stall_while_polling(Duration::from_millis(400));
        for t in others {
            t.join().unwrap();
        }
        assert!(
            watch_crowded >= Duration::from_millis(1),
            "{watch_crowded:?}"
        );
        assert!(
            watch_crowded > watch_alone,
            "{watch_crowded:?} {watch_alone:?}"
        );
    }

    #[test]
    fn the_worst_of_the_recent_waits() {
        let mut r = RecentWorst::default();
        assert_eq!(r.worst_ms(), 0);
        r.push(Duration::from_micros(300));
        assert_eq!(r.worst_ms(), 0);
        r.push(Duration::from_micros(2_600));
        assert_eq!(r.worst_ms(), 3);
        for _ in 0..RecentWorst::LEN - 1 {
            r.push(Duration::ZERO);
        }
        assert_eq!(r.worst_ms(), 3, "kept for {} lines", RecentWorst::LEN);
        r.push(Duration::ZERO);
        assert_eq!(r.worst_ms(), 0, "then forgotten");
    }
}
