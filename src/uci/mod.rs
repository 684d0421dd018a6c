//! The UCI protocol layer: reads commands on its own thread, keeps the game state and the
//! option values, drives the engine facade, and writes every engine→GUI line itself.
//! See protocol.md for the contract.

pub mod command;
pub mod format;

pub mod output;

use crate::chess::{perft, Position};
use crate::engine::options::{self, Effect};
use crate::engine::Engine;
use crate::search::params;
use crate::util::sched::{RecentWorst, RunQueueWait};
use command::{Command, GoParams, PositionBase, StatsRequest};
use output::Output;
use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

pub const ENGINE_NAME: &str = concat!("Brudno ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Brudno developers";

/// `Brudno 0.1.0 (commit abc1234)`, for `--version`.
pub fn version_line() -> String {
    match option_env!("BRUDNO_COMMIT") {
        Some(c) => format!("{ENGINE_NAME} (commit {c})"),
        None => ENGINE_NAME.to_string(),
    }
}

/// Input lines longer than this are rejected (a 1000-ply `position … moves` line is ~5 KB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

enum Input {
    /// A line, with when it reached the reader thread (None for command-line commands, all
    /// queued at start-up: they count from when they are handled).
    Line(String, Option<Arrival>),
    TooLong(usize),
    Eof,
    /// End of command-line commands: finish what was asked, then exit.
    Finish,
    /// The search has ended, with the longest its main thread waited for a core.
    SearchDone(Duration),
}

/// When an input line reached the engine: the clock of a `go` runs from then, however long
/// the line then waits for the protocol thread or a search thread.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    /// When the reader read it.
    read_at: Instant,
    /// How long the reader had waited for a core before that: how late a woken thread gets
    /// a core on this machine now. The line arrived that much earlier.
    waited: Duration,
}

impl Arrival {
    /// From when a search's clock runs. A `movetime` has no clock in reserve to absorb a late
    /// start, so it runs from when the line arrived; under a game clock from when it was
    /// read, as the time manager has always counted (its plan is redone at every move from
    /// the clock the GUI sends, and the clock's reserve absorbs the delays). A form that
    /// counted the wait under a clock too scored −13.9 ± 20.3 and −22.0 ± 20.5 against the
    /// engine before it (two runs of 600 games at 1+0.01, two games on the two cores,
    /// 2026-12-03), neither side losing on time.
    fn clock_start(&self, movetime: bool) -> Instant {
        if movetime {
            self.read_at
                .checked_sub(self.waited)
                .unwrap_or(self.read_at)
        } else {
            self.read_at
        }
    }
}

pub struct Uci {
    out: Output,
    engine: Engine,
    debug: bool,
    searching: bool,
    tx: Sender<Input>,
    rx: Receiver<Input>,
    /// When the line being handled arrived (see `Input::Line`; None: now).
    arrival: Option<Arrival>,
    /// Whether the running (or last) search has a `movetime` (`Arrival::clock_start`).
    movetime_search: bool,
    /// The reader's recent waits for a core (the runner that reads our `bestmove` may wait as
    /// long) and the search thread's recent longest stalls: a search keeps the worst of each
    /// in hand (`Limits::machine_delay_ms`).
    wake_delays: RecentWorst,
    stalls: RecentWorst,
}

/// Whether the loop should go on after a command.
#[derive(PartialEq)]
enum Flow {
    Continue,
    Quit,
}

impl Default for Uci {
    fn default() -> Self {
        Self::new()
    }
}

impl Uci {
    pub fn new() -> Uci {
        let (tx, rx) = mpsc::channel();
        Uci {
            out: Output::default(),
            engine: Engine::new(),
            debug: false,
            searching: false,
            tx,
            rx,
            arrival: None,
            movetime_search: false,
            wake_delays: RecentWorst::default(),
            stalls: RecentWorst::default(),
        }
    }

    /// Runs the protocol on stdin/stdout until `quit` or end of input.
    pub fn run_stdin(mut self) {
        let tx = self.tx.clone();
        std::thread::spawn(move || read_lines(std::io::stdin().lock(), tx));
        self.event_loop();
    }

    /// Runs the given lines as commands (command-line arguments), then waits for any search.
    pub fn run_lines(mut self, lines: &[String]) {
        for line in lines {
            let _ = self.tx.send(Input::Line(line.clone(), None));
        }
        let _ = self.tx.send(Input::Finish);
        self.event_loop();
    }

    fn event_loop(&mut self) {
        let mut pending: VecDeque<(String, Option<Arrival>)> = VecDeque::new();
        let mut finish_when_idle = false;
        while let Ok(input) = self.rx.recv() {
            match input {
                Input::Line(line, arrival) => {
                    self.arrival = arrival;
                    if let Some(a) = arrival {
                        self.wake_delays.push(a.waited);
                    }
                    self.out.log_input(&line);
                    if self.searching {
                        if self.handle_while_searching(&line, &mut pending) == Flow::Quit {
                            return;
                        }
                    } else if self.handle(&line) == Flow::Quit {
                        return;
                    }
                }
                Input::TooLong(n) => {
                    self.out.log_input(&format!("<line of {n} bytes>"));
                    self.error(&format!(
                        "input line of {n} bytes ignored (the limit is {MAX_LINE_BYTES})"
                    ));
                }
                Input::SearchDone(stall) => {
                    // A search that lost its core for a while answers that much late if it
                    // happens at the end: the next searches keep it in hand too.
                    self.stalls.push(stall);
                    self.engine.wait();
                    self.searching = false;
                    // Commands that arrived during the search, in order; a `go` among them
                    // starts a new search, after which the rest obey the searching rules.
                    let queued: Vec<(String, Option<Arrival>)> = pending.drain(..).collect();
                    for (line, at) in queued {
                        self.arrival = at;
                        let flow = if self.searching {
                            self.handle_while_searching(&line, &mut pending)
                        } else {
                            self.handle(&line)
                        };
                        if flow == Flow::Quit {
                            return;
                        }
                    }
                    if finish_when_idle && !self.searching {
                        return;
                    }
                }
                Input::Finish => {
                    if !self.searching {
                        return;
                    }
                    finish_when_idle = true;
                }
                Input::Eof => {
                    // Whatever is running or queued ends here; a running search still reports.
                    if self.searching {
                        self.engine.stop();
                        self.engine.wait();
                    }
                    return;
                }
            }
        }
    }

    /// During a search only `isready`, `stop`, `ponderhit` and `quit` act at once; `stop` and
    /// `ponderhit` belong to the latest `go`, so they wait in the queue behind a queued `go`.
    fn handle_while_searching(
        &mut self,
        line: &str,
        pending: &mut VecDeque<(String, Option<Arrival>)>,
    ) -> Flow {
        let go_waiting = || {
            pending
                .iter()
                .any(|(l, _)| matches!(command::parse(l), Command::Go(_)))
        };
        let queued = (line.to_string(), self.arrival);
        match command::parse(line) {
            // Once the `bestmove` is out the search is over for the GUI: an `isready` then
            // follows the commands sent before it (the search thread's end is a moment away).
            Command::IsReady if self.engine.answered() => pending.push_back(queued),
            Command::IsReady => self.out.line("readyok"),
            // A `stop` ends the running search; when a `go` waits behind it, that search is
            // stopped too (the stop is queued after it), so that no search is left running
            // with nothing to end it.
            Command::Stop => {
                self.engine.stop();
                if go_waiting() {
                    pending.push_back(queued);
                }
            }
            Command::PonderHit if go_waiting() => pending.push_back(queued),
            Command::PonderHit => self
                .engine
                .ponderhit(self.clock_start(self.movetime_search)),
            Command::Quit => {
                self.engine.stop();
                self.engine.wait();
                return Flow::Quit;
            }
            Command::Empty => {}
            _ => pending.push_back(queued),
        }
        Flow::Continue
    }

    fn error(&self, text: &str) {
        self.out.info_string(&format!("error: {text}"));
    }

    /// From when the clock of the line being handled runs (`Arrival::clock_start`; now for
    /// a command-line command).
    fn clock_start(&self, movetime: bool) -> Instant {
        self.arrival
            .map_or_else(Instant::now, |a| a.clock_start(movetime))
    }

    fn handle(&mut self, line: &str) -> Flow {
        match command::parse(line) {
            Command::Uci => {
                self.out.line(&format!("id name {ENGINE_NAME}"));
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                for spec in options::listed() {
                    self.out.line(&format::option_line(spec));
                }
                // A tuning build offers the search's numbers too (for tuners that read them).
                #[cfg(feature = "tune")]
                for t in params::ALL {
                    let (default, min, max) = (t.default.into(), t.min.into(), t.max.into());
                    self.out.line(&format::spin_line(t.name, default, min, max));
                }
                self.out.line("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Register => {}
            Command::UciNewGame => self.engine.new_game(),
            Command::Position { base, moves } => self.set_position(&base, &moves),
            Command::Go(params) => self.go(params),
            Command::Stop | Command::PonderHit => {} // nothing is running: nothing to do
            Command::Quit => return Flow::Quit,
            Command::Display => self.display(),
            Command::Eval => {
                for line in self.engine.eval_report() {
                    self.out.line(&line);
                }
            }
            Command::Perft(depth) => self.perft(depth),
            Command::Bench(depth) => self.bench(depth),
            Command::Lecture(depth) => self.lecture(depth),
            Command::Tree(request) => self.tree(&request),
            Command::Stats(request) => self.stats(request),
            Command::GenFens {
                count,
                seed,
                book,
                extra,
            } => self.genfens(count, seed, book.as_deref(), &extra),
            Command::Spsa => {
                for t in params::ALL {
                    self.out.line(&t.spsa_line());
                }
            }
            Command::Help => self.help(),
            Command::Empty => {}
            Command::Invalid { line, reason } => {
                let shown: String = line.chars().take(80).collect();
                let more = if line.chars().count() > 80 { "…" } else { "" };
                self.error(&format!("{reason}: '{shown}{more}'"));
            }
        }
        Flow::Continue
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        #[cfg(feature = "tune")]
        if let Some(t) = params::find(name) {
            let value = value.map(str::trim);
            match options::check_spin(t.name, t.min.into(), t.max.into(), value) {
                // In range: the tunable takes it.
                Ok(n) => {
                    t.set(n as i32);
                }
                Err(e) => self.error(&format!("{e}; it stays {}", t.get())),
            }
            return;
        }
        let log_before = self.engine.settings().debug_log_file.clone();
        match self.engine.set_option(name, value) {
            Ok(applied) => {
                for note in &applied.notes {
                    self.out.info_string(note);
                }
                if self.debug {
                    for note in &applied.debug_notes {
                        self.out.info_string(note);
                    }
                }
                if applied.spec.effect == Effect::OpenLog {
                    let path = self.engine.settings().debug_log_file.clone();
                    if let Err(e) = self.out.set_log_file(&path) {
                        // The transcript goes on where it went, and the option says so.
                        let _ = self.engine.set_option(name, Some(&log_before));
                        self.error(&format!(
                            "cannot open debug log file '{path}': {e}; the log stays as it was"
                        ));
                    }
                }
            }
            Err(e) => self.error(&e),
        }
    }

    /// `position …`: all or nothing. A bad FEN or an illegal move leaves the previous position
    /// (and its history) exactly as it was.
    fn set_position(&mut self, base: &PositionBase, moves: &[String]) {
        let start = match base {
            PositionBase::StartPos => Position::startpos(),
            PositionBase::Fen(fen) => match Position::from_fen(fen) {
                Ok(p) => p,
                Err(e) => {
                    self.error(&format!("invalid FEN '{fen}': {e}; position unchanged"));
                    return;
                }
            },
        };
        if let Err(e) = self.engine.set_position(start, moves) {
            self.error(&format!("{e}; position unchanged"));
        }
    }

    fn go(&mut self, params: GoParams) {
        for warning in &params.warnings {
            self.error(warning);
        }
        if let Some(depth) = params.perft {
            self.perft(depth);
            return;
        }
        let root = *self.engine.position();
        let mut limits = params.limits.clone();
        self.movetime_search = limits.movetime.is_some();
        limits.received = Some(self.clock_start(self.movetime_search));
        limits.machine_delay_ms = self.wake_delays.worst_ms() + self.stalls.worst_ms();
        for text in &params.searchmoves {
            match root.parse_uci_move(text) {
                Some(m) => limits.searchmoves.push(m),
                None if text == "0000" => {} // python-chess's "no restriction" placeholder
                None => self.error(&format!(
                    "searchmoves: '{text}' is not a legal move here; ignored"
                )),
            }
        }
        for (what, t) in [
            ("wtime", limits.wtime),
            ("btime", limits.btime),
            ("winc", limits.winc),
            ("binc", limits.binc),
            ("movetime", limits.movetime),
        ] {
            if let Some(t) = t.filter(|&t| t < 0) {
                self.error(&format!("{what} is negative ({t}); treated as 0"));
            }
        }
        let out = self.out.clone();
        let out_answer = self.out.clone();
        let tx = self.tx.clone();
        let settings = self.engine.settings();
        let style = format::Style {
            chess960: settings.chess960,
            show_wdl: settings.show_wdl,
            debug: self.debug,
        };
        self.searching = true;
        let (received, pondering) = (limits.received, limits.ponder);
        self.engine.go(
            limits,
            move |event| {
                if let Some(line) = format::event(&root, &event, style) {
                    out.line(&line);
                }
            },
            move |result| {
                out_answer.line(&format::bestmove(&root, result, style));
                if let (Some(at), false) = (received, pondering) {
                    log::debug!(target: "time", "bestmove written {:?} after the go was read", at.elapsed());
                }
            },
            move |result| {
                // After the answer: what the GUI sent since reading `bestmove` waits in the
                // queue until this message, then runs in order (as when the guard answered
                // for a late search thread).
                let _ = tx.send(Input::SearchDone(result.longest_stall));
            },
        );
    }

    fn perft(&self, depth: u32) {
        let pos = self.engine.position();
        let mut total = 0;
        for (m, n) in perft::divide(pos, depth) {
            self.out.line(&format!(
                "{}: {n}",
                pos.move_to_uci(m, self.engine.settings().chess960)
            ));
            total += n;
        }
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
    }

    /// `lecture D`: the lecture's searches side by side on the current position (the full
    /// engine's row with the current search switches and evaluation).
    fn lecture(&self, depth: i64) {
        let report = u32::try_from(depth)
            .map_err(|_| crate::lecture::LectureError::Depth(depth))
            .and_then(|d| {
                crate::lecture::report(
                    self.engine.position(),
                    d,
                    crate::lecture::DEFAULT_NODE_CAP,
                    &self.engine.bench_options(),
                )
            });
        match report {
            Ok(text) => text.lines().for_each(|l| self.out.line(l)),
            Err(e) => self.error(&format!("lecture: {e}")),
        }
    }

    /// `tree D …`: the α-β tree of a small search, written as SVG and/or DOT (`engine`: the
    /// engine's own search, with the current search switches and evaluation).
    fn tree(&self, req: &command::TreeRequest) {
        let drawn = crate::lecture::draw(
            self.engine.position(),
            req.depth,
            &req.variant,
            &req.moves,
            req.svg.as_deref(),
            req.dot.as_deref(),
            &self.engine.bench_options(),
        );
        match drawn {
            Ok(lines) => lines.iter().for_each(|l| self.out.info_string(l)),
            Err(e) => self.error(&format!("tree: {e}")),
        }
    }

    /// `stats on|off`: count the searches from now on (or not); `stats`: what the last search
    /// counted. Nothing is printed after a search by itself: play's output stays as it was.
    fn stats(&mut self, request: StatsRequest) {
        match request {
            StatsRequest::On | StatsRequest::Off => {
                let on = request == StatsRequest::On;
                self.engine.set_counting(on);
                self.out.info_string(if on {
                    "stats on: the searches from now on are counted (a little slower, the same tree); 'stats' shows the last one's counts"
                } else {
                    "stats off"
                });
            }
            StatsRequest::Show => match self.engine.last_stats() {
                Some(stats) => format::stats(&stats).iter().for_each(|l| self.out.line(l)),
                // Counting is on, yet nothing was counted: the move came from the book.
                None if self.engine.with_searcher(|s| s.counting()) => self.error(
                    "stats: the last move was not searched (it came from the book): nothing to count",
                ),
                None => {
                    self.error("stats: the last search was not counted (say 'stats on', then 'go')")
                }
            },
        }
    }

    /// `bench [depth]`: the fixed benchmark, with the current search switches.
    fn bench(&mut self, depth: Option<u32>) {
        let options = self.engine.bench_options();
        let result = crate::search::bench::bench_with(depth, &options);
        self.out
            .line(&format!("{} nodes {} nps", result.nodes, result.nps));
    }

    /// OpenBench's opening generation: `count` playable openings, one `info string genfens
    /// <FEN>` line each as soon as it is found (a worker waits at most 15 s between two).
    fn genfens(&self, count: u64, seed: u64, book: Option<&str>, extra: &str) {
        let chess960 = extra
            .split_ascii_whitespace()
            .any(|w| matches!(w.to_ascii_lowercase().as_str(), "frc" | "dfrc" | "chess960"));
        let result = crate::datagen::genfens(count, seed, book, chess960, |fen| {
            self.out.info_string(&format!("genfens {fen}"));
        });
        if let Err(e) = result {
            self.error(&format!("genfens: {e:#}"));
        }
    }

    fn display(&self) {
        for line in format::board(self.engine.position(), self.engine.settings().chess960) {
            self.out.line(&line);
        }
    }

    fn help(&self) {
        let mut lines = vec![
            format!("{ENGINE_NAME}, a UCI chess engine. Commands (see protocol.md):"),
            "  uci, isready, ucinewgame, setoption name <name> [value <v>], debug on|off, register".into(),
            "  position startpos|fen <fen> [moves <m1> ...]".into(),
            "  go [searchmoves ...] [ponder] [wtime|btime|winc|binc|movestogo|depth|nodes|mate|movetime <n>] [infinite]".into(),
            "  stop, ponderhit, quit".into(),
            "  d (board), eval, perft <n> | go perft <n>, bench [depth], spsa, help".into(),
            "  lecture <depth>, tree <depth> [minimax|alphabeta|ordered|engine] [svg <file>] [dot <file>] [moves <m> ...]".into(),
            "  stats on|off (count the searches from now on), stats (the last search's counts)".into(),
            "Options:".into(),
        ];
        for spec in options::listed() {
            lines.push(format!("  {:<16} {}", spec.name, spec.help));
        }
        for l in lines {
            self.out.line(&l);
        }
    }
}

/// A wait for a core longer than this is not believed (a suspended virtual machine, say).
const MAX_WAIT: Duration = Duration::from_secs(1);

/// The reader's input, stamped: each read from the GUI's pipe notes when it returned and how
/// long the thread had waited for a core across it. Every line that came with that read
/// arrived then: a `go` written just after its `position` usually comes in the same read, and
/// is as late as the `position` (2026-12-04: a `go` read from the buffer was taken for one
/// that had not waited, and its clock started as late as the reader had been).
struct StampedInput<R> {
    inner: R,
    run_queue: RunQueueWait,
    last: Arrival,
}

impl<R: Read> Read for StampedInput<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let before = self.run_queue.total();
        let n = self.inner.read(buf)?;
        let waited = match (before, self.run_queue.total()) {
            (Some(before), Some(after)) => after.saturating_sub(before).min(MAX_WAIT),
            _ => Duration::ZERO,
        };
        self.last = Arrival {
            read_at: Instant::now(),
            waited,
        };
        Ok(n)
    }
}

/// Reads lines from `input` and hands them to the protocol thread; a line longer than
/// `MAX_LINE_BYTES` is skipped whole. Invalid UTF-8 is replaced, not fatal.
fn read_lines(input: impl Read, tx: Sender<Input>) {
    // Larger than stdin's own buffer, which is then passed by (every read is a real one).
    let mut input = std::io::BufReader::with_capacity(
        1 << 16,
        StampedInput {
            inner: input,
            run_queue: RunQueueWait::of_this_thread(),
            last: Arrival {
                read_at: Instant::now(),
                waited: Duration::ZERO,
            },
        },
    );
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = (&mut input)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf);
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
                    // Skip the rest of the over-long line.
                    let mut skipped = buf.len();
                    loop {
                        buf.clear();
                        match (&mut input).take(1 << 16).read_until(b'\n', &mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                skipped += n;
                                if buf.last() == Some(&b'\n') {
                                    break;
                                }
                            }
                        }
                    }
                    if tx.send(Input::TooLong(skipped)).is_err() {
                        return;
                    }
                    continue;
                }
                let line = String::from_utf8_lossy(&buf);
                let line = line.trim_end_matches(['\n', '\r']).to_string();
                // The read that brought the line's end blocked until it was written; what
                // the thread then waited for a core is how much earlier it arrived.
                let arrival = input.get_ref().last;
                if arrival.waited >= Duration::from_millis(1) {
                    log::debug!(target: "time", "'{line}' read {:?} after it arrived", arrival.waited);
                }
                if tx.send(Input::Line(line, Some(arrival))).is_err() {
                    return;
                }
            }
        }
    }
    let _ = tx.send(Input::Eof);
}

/// Turns command-line arguments into protocol lines. `perft N [fen…]` and `bench [N]` are the
/// common cases (`brudno perft 5 <fen>` sets the position first); anything else is one line.
pub fn argv_to_lines(args: &[String]) -> Vec<String> {
    if args.len() == 1 && args[0].contains('\n') {
        return args[0].lines().map(str::to_string).collect();
    }
    if matches!(args.first().map(String::as_str), Some("perft" | "lecture")) && args.len() > 2 {
        return vec![
            format!("position fen {}", args[2..].join(" ")),
            format!("{} {}", args[0], args[1]),
        ];
    }
    // OpenBench: `brudno "genfens 10 seed 1 book None " "quit"`: each argument a command.
    if args.len() > 1 && args.iter().any(|a| a.trim().contains(char::is_whitespace)) {
        return args.to_vec();
    }
    vec![args.join(" ")]
}
