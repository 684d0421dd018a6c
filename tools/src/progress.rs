//! Progress of long work on stderr, readable at a glance: on a terminal one line redrawn about
//! every second; into a log (stderr is no terminal) a plain line every so often, so that the
//! log of an hours-long run stays short enough to read.

use crate::input::Input;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Seconds between progress lines written into a log, where no `--report-secs` says otherwise.
pub const LOG_SECS: f64 = 30.0;
/// Seconds between redraws of the line on a terminal.
const TERMINAL_SECS: f64 = 1.0;

pub struct Progress {
    terminal: bool,
    every: Duration,
    last: Instant,
    /// A redrawn line is on the screen: other output clears it first.
    drawn: bool,
}

impl Progress {
    /// Progress on stderr; a plain line every `log_secs` when stderr is no terminal.
    pub fn stderr(log_secs: f64) -> Progress {
        Progress::new(std::io::stderr().is_terminal(), log_secs)
    }

    pub fn new(terminal: bool, log_secs: f64) -> Progress {
        let secs = if terminal { TERMINAL_SECS } else { log_secs };
        Progress {
            terminal,
            every: Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX),
            last: Instant::now(),
            drawn: false,
        }
    }

    pub fn terminal(&self) -> bool {
        self.terminal
    }

    /// Whether a report is due; if so the wait starts again. Cheap: call it often and build
    /// the line only when it says so.
    pub fn due(&mut self) -> bool {
        if self.last.elapsed() < self.every {
            return false;
        }
        self.last = Instant::now();
        true
    }

    /// Shows `line`: redrawn in place on a terminal, a line of its own otherwise.
    pub fn show(&mut self, line: &str) {
        if self.terminal {
            eprint!("\r{line}\x1b[K");
            self.drawn = true;
        } else {
            eprintln!("{line}");
        }
    }

    /// Clears a redrawn line, before other output and at the end.
    pub fn clear(&mut self) {
        if self.drawn {
            eprint!("\r\x1b[K");
            self.drawn = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Progress through input files of known sizes: the share of their bytes read (compressed
/// ones, for gzip), the items found in them, the rate and the time left.
pub struct Reading {
    progress: Progress,
    /// What reads: the line's first word.
    who: &'static str,
    /// Items: "games", "positions".
    items: &'static str,
    start: Instant,
    total: u64,
    /// The sizes of the files finished, and the one being read.
    finished: u64,
    current: Option<(Arc<AtomicU64>, u64)>,
}

impl Reading {
    /// For reading `paths` one after another (files that cannot be read count as empty: the
    /// reader reports them).
    pub fn new(who: &'static str, items: &'static str, paths: &[impl AsRef<Path>]) -> Reading {
        Reading {
            progress: Progress::stderr(LOG_SECS),
            who,
            items,
            start: Instant::now(),
            total: paths
                .iter()
                .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
                .sum(),
            finished: 0,
            current: None,
        }
    }

    /// The next file starts.
    pub fn file(&mut self, input: &Input) {
        if let Some((_, size)) = self.current.take() {
            self.finished += size;
        }
        self.current = Some((Arc::clone(&input.read), input.size));
    }

    /// The bytes read so far.
    fn read(&self) -> u64 {
        self.finished
            + self
                .current
                .as_ref()
                .map_or(0, |(read, size)| read.load(Ordering::Relaxed).min(*size))
    }

    /// Reports `items` found so far, if a report is due.
    pub fn tick(&mut self, items: usize) {
        if self.progress.due() {
            let line = self.line(items);
            self.progress.show(&line);
        }
    }

    fn line(&self, items: usize) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let (read, total) = (self.read() as f64, self.total as f64);
        format!(
            "{}: {:.0}% of {}B read, {} {}, {} {}/s{}",
            self.who,
            100.0 * read / total.max(1.0),
            count(total),
            count(items as f64),
            self.items,
            rate(items as f64, secs),
            self.items,
            left(read, total, secs)
        )
    }

    /// Clears a redrawn line before other output.
    pub fn clear(&mut self) {
        self.progress.clear();
    }
}

/// A duration for people: `45s`, `12m05s`, `3h07m`.
pub fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}

/// The time the rest of the work takes at the rate so far; `None` before any is done.
pub fn time_left(done: f64, total: f64, elapsed_secs: f64) -> Option<f64> {
    (done > 0.0 && total >= done).then(|| elapsed_secs * (total - done) / done)
}

/// `, 12m05s left` (nothing while the rate is unknown).
pub fn left(done: f64, total: f64, elapsed_secs: f64) -> String {
    time_left(done, total, elapsed_secs)
        .map_or(String::new(), |s| format!(", {} left", duration(s)))
}

/// A count for people: `950`, `12.3k`, `4.56M`.
pub fn count(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e4 {
        format!("{:.0}k", n / 1e3)
    } else if n >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// How many per second, as a count.
pub fn rate(n: f64, secs: f64) -> String {
    count(n / secs.max(1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(duration(45.2), "45s");
        assert_eq!(duration(725.0), "12m05s");
        assert_eq!(duration(3.0 * 3600.0 + 7.0 * 60.0 + 20.0), "3h07m");
        assert_eq!(duration(-1.0), "0s");
        assert_eq!(time_left(25.0, 100.0, 10.0), Some(30.0));
        assert_eq!(time_left(0.0, 100.0, 10.0), None);
        assert_eq!(left(50.0, 100.0, 60.0), ", 1m00s left");
        assert_eq!(count(950.0), "950");
        assert_eq!(count(1234.0), "1.2k");
        assert_eq!(count(690_400.0), "690k");
        assert_eq!(count(4_560_000.0), "4.56M");
        assert_eq!(rate(1000.0, 2.0), "500");
    }

    #[test]
    fn reading_counts_the_files_bytes() {
        let dir = std::env::temp_dir().join(format!("brudno-progress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "x".repeat(3000)).unwrap();
        std::fs::write(&b, "y".repeat(1000)).unwrap();
        let mut reading = Reading::new("test", "lines", &[&a, &b]);
        assert!(reading
            .line(0)
            .starts_with("test: 0% of 4.0kB read, 0 lines"));
        let mut first = crate::input::open_counted(&a).unwrap();
        reading.file(&first);
        std::io::copy(&mut first.reader, &mut std::io::sink()).unwrap();
        assert!(reading
            .line(30)
            .starts_with("test: 75% of 4.0kB read, 30 lines"));
        let second = crate::input::open_counted(&b).unwrap();
        reading.file(&second);
        // Opening reads the first block of the file (to tell gzip apart): all of a small one.
        assert!(reading
            .line(40)
            .starts_with("test: 100% of 4.0kB read, 40 lines"));
        assert!(reading.line(40).ends_with("left"), "{}", reading.line(40));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reports_wait_their_turn() {
        let mut log = Progress::new(false, 3600.0);
        assert!(!log.due(), "a report only after the wait");
        let mut now = Progress::new(false, 0.0);
        assert!(now.due() && now.due());
        // Any number of seconds is a wait, however large.
        assert!(!Progress::new(false, 1e300).due());
        assert!(Progress::new(true, 3600.0).terminal());
    }
}
