//! The UCI protocol layer: reads commands on its own thread, keeps the game state and the
//! option values, drives the engine facade, and writes every engine→GUI line itself.
//! See protocol.md for the contract.

pub mod command;
pub mod format;
pub mod options;
pub mod output;

use crate::book::{self, Book};
use crate::chess::{perft, Position, START_FEN};
use crate::engine::{Engine, SearchJob};
use crate::search::{Limits, SearchOptions, TablebaseProbing};
use crate::tablebase::Tablebases;
use command::{Command, GoParams, PositionBase};
use options::{OptionSpec, OptionValue};
use output::Output;
use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::sync::mpsc::{self, Receiver, Sender};

pub const ENGINE_NAME: &str = concat!("Brudno ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Brudno developers";

/// Input lines longer than this are rejected (a 1000-ply `position … moves` line is ~5 KB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

enum Input {
    Line(String),
    TooLong(usize),
    Eof,
    /// End of command-line commands: finish what was asked, then exit.
    Finish,
    SearchDone,
}

/// The game as the GUI last set it up.
struct Game {
    position: Position,
    /// Keys of the positions before `position`, oldest first.
    history: Vec<u64>,
}

impl Game {
    fn start() -> Game {
        Game {
            position: Position::startpos(),
            history: Vec::new(),
        }
    }
}

/// Option values the protocol layer applies itself.
struct Settings {
    ponder: bool,
    own_book: bool,
    /// The book from `BookFile`; `None` means the embedded book.
    book: Option<Book>,
    book_depth: u32,
    book_best_move: bool,
    tablebases: Option<std::sync::Arc<Tablebases>>,
    syzygy_probe_depth: u32,
    syzygy_probe_limit: u32,
    syzygy_50_move_rule: bool,
    chess960: bool,
    show_wdl: bool,
    /// `UCI_LimitStrength` and `UCI_Elo` (combined into `search.strength_elo`).
    limit_strength: bool,
    uci_elo: u32,
    search: SearchOptions,
}

pub struct Uci {
    out: Output,
    engine: Engine,
    game: Game,
    specs: Vec<OptionSpec>,
    settings: Settings,
    debug: bool,
    searching: bool,
    tx: Sender<Input>,
    rx: Receiver<Input>,
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
        crate::chess::attacks::init();
        crate::endgame::kpk::init();
        let (tx, rx) = mpsc::channel();
        Uci {
            out: Output::default(),
            engine: Engine::new(16),
            game: Game::start(),
            specs: options::registry(),
            settings: Settings {
                ponder: false,
                own_book: true,
                book: None,
                book_depth: 32,
                book_best_move: false,
                tablebases: None,
                syzygy_probe_depth: 1,
                syzygy_probe_limit: 7,
                syzygy_50_move_rule: true,
                chess960: false,
                show_wdl: false,
                limit_strength: false,
                uci_elo: 1500,
                search: SearchOptions::default(),
            },
            debug: false,
            searching: false,
            tx,
            rx,
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
            let _ = self.tx.send(Input::Line(line.clone()));
        }
        let _ = self.tx.send(Input::Finish);
        self.event_loop();
    }

    fn event_loop(&mut self) {
        let mut pending: VecDeque<String> = VecDeque::new();
        let mut finish_when_idle = false;
        while let Ok(input) = self.rx.recv() {
            match input {
                Input::Line(line) => {
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
                Input::SearchDone => {
                    self.engine.wait();
                    self.searching = false;
                    // Commands that arrived during the search, in order; a `go` among them
                    // starts a new search, after which the rest obey the searching rules.
                    let queued: Vec<String> = pending.drain(..).collect();
                    for line in queued {
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
    fn handle_while_searching(&mut self, line: &str, pending: &mut VecDeque<String>) -> Flow {
        let go_waiting = || {
            pending
                .iter()
                .any(|l| matches!(command::parse(l), Command::Go(_)))
        };
        match command::parse(line) {
            Command::IsReady => self.out.line("readyok"),
            // A `stop` ends the running search; when a `go` waits behind it, that search is
            // stopped too (the stop is queued after it), so that no search is left running
            // with nothing to end it.
            Command::Stop => {
                self.engine.stop();
                if go_waiting() {
                    pending.push_back(line.to_string());
                }
            }
            Command::PonderHit if go_waiting() => pending.push_back(line.to_string()),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {
                self.engine.stop();
                self.engine.wait();
                return Flow::Quit;
            }
            Command::Empty => {}
            _ => pending.push_back(line.to_string()),
        }
        Flow::Continue
    }

    fn error(&self, text: &str) {
        self.out.info_string(&format!("error: {text}"));
    }

    fn handle(&mut self, line: &str) -> Flow {
        match command::parse(line) {
            Command::Uci => {
                self.out.line(&format!("id name {ENGINE_NAME}"));
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                for spec in &self.specs {
                    self.out.line(&spec.uci_line());
                }
                self.out.line("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Register => {}
            Command::UciNewGame => {
                self.engine.new_game();
                self.game = Game::start();
            }
            Command::Position { base, moves } => self.set_position(&base, &moves),
            Command::Go(params) => self.go(params),
            Command::Stop | Command::PonderHit => {} // nothing is running: nothing to do
            Command::Quit => return Flow::Quit,
            Command::Display => self.display(),
            Command::Eval => {
                for line in crate::eval::trace(&self.game.position).lines() {
                    self.out.line(line);
                }
            }
            Command::Perft(depth) => self.perft(depth),
            Command::Bench(depth) => self.bench(depth),
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
        let Some(spec) = options::find(&self.specs, name) else {
            self.error(&format!("unknown option '{name}'"));
            return;
        };
        let value = match spec.check(value) {
            Ok(v) => v,
            Err(e) => {
                self.error(&e);
                return;
            }
        };
        let s = &mut self.settings;
        match (spec.name, value) {
            ("Hash", OptionValue::Int(mb)) => {
                let out = self.out.clone();
                self.engine
                    .with_searcher(|se| se.set_hash_size(mb as usize));
                if self.debug {
                    out.info_string(&format!("hash table set to {mb} MiB"));
                }
            }
            ("Threads", OptionValue::Int(n)) => s.search.threads = n as usize,
            ("Clear Hash", _) => self.engine.with_searcher(|se| se.clear()),
            ("Move Overhead", OptionValue::Int(ms)) => s.search.move_overhead_ms = ms as u64,
            ("Ponder", OptionValue::Bool(b)) => s.ponder = b,
            ("MultiPV", OptionValue::Int(n)) => s.search.multipv = n as usize,
            ("UCI_LimitStrength", OptionValue::Bool(b)) => {
                s.limit_strength = b;
                s.search.strength_elo = b.then_some(s.uci_elo);
            }
            ("UCI_Elo", OptionValue::Int(elo)) => {
                s.uci_elo = elo as u32;
                s.search.strength_elo = s.limit_strength.then_some(s.uci_elo);
            }
            ("OwnBook", OptionValue::Bool(b)) => s.own_book = b,
            ("BookFile", OptionValue::Text(path)) => self.set_book_file(&path),
            ("BookDepth", OptionValue::Int(n)) => s.book_depth = n as u32,
            ("BookBestMove", OptionValue::Bool(b)) => s.book_best_move = b,
            ("SyzygyPath", OptionValue::Text(path)) => self.set_syzygy_path(&path),
            ("SyzygyProbeDepth", OptionValue::Int(n)) => s.syzygy_probe_depth = n as u32,
            ("SyzygyProbeLimit", OptionValue::Int(n)) => s.syzygy_probe_limit = n as u32,
            ("Syzygy50MoveRule", OptionValue::Bool(b)) => s.syzygy_50_move_rule = b,
            ("UCI_Chess960", OptionValue::Bool(b)) => s.chess960 = b,
            ("UCI_ShowWDL", OptionValue::Bool(b)) => s.show_wdl = b,
            ("Debug Log File", OptionValue::Text(path)) => {
                if let Err(e) = self.out.set_log_file(&path) {
                    self.error(&format!("cannot open debug log file '{path}': {e}"));
                }
            }
            ("ForwardPruning", OptionValue::Bool(b)) => s.search.forward_pruning = b,
            ("NullMovePruning", OptionValue::Bool(b)) => s.search.null_move_pruning = b,
            ("LateMoveReductions", OptionValue::Bool(b)) => s.search.late_move_reductions = b,
            ("FutilityPruning", OptionValue::Bool(b)) => s.search.futility_pruning = b,
            ("LateMovePruning", OptionValue::Bool(b)) => s.search.late_move_pruning = b,
            ("SeePruning", OptionValue::Bool(b)) => s.search.see_pruning = b,
            ("Quiescence", OptionValue::Bool(b)) => s.search.quiescence = b,
            ("CheckExtension", OptionValue::Bool(b)) => s.search.check_extension = b,
            ("SingularExtensions", OptionValue::Bool(b)) => s.search.singular_extensions = b,
            ("SecondarySearch", OptionValue::Bool(b)) => s.search.secondary_search = b,
            ("SecondaryDepth", OptionValue::Int(n)) => s.search.secondary_depth = n as u32,
            (name, v) => log::warn!("option {name} = {v:?} has no effect"),
        }
    }

    fn set_book_file(&mut self, path: &str) {
        self.settings.book = None;
        if path.is_empty() {
            return;
        }
        match Book::open(path) {
            Ok(b) => {
                self.out
                    .info_string(&format!("book file {path}: {} entries", b.len()));
                self.settings.book = Some(b);
            }
            Err(e) => self.out.info_string(&format!(
                "error: book file {path} not used: {e}; using the embedded book"
            )),
        }
    }

    fn set_syzygy_path(&mut self, path: &str) {
        self.settings.tablebases = None;
        if path.is_empty() {
            return;
        }
        match Tablebases::open(path) {
            Ok(tb) => {
                for w in tb.warnings() {
                    self.out.info_string(w);
                }
                self.out.info_string(&tb.summary());
                self.settings.tablebases = Some(std::sync::Arc::new(tb));
            }
            Err(e) => self.error(&format!("SyzygyPath not used: {e}")),
        }
    }

    /// The book move to play instead of searching, if the book is on and knows the position.
    /// Not for analysis-style searches (`infinite`, `ponder`, `mate`, `searchmoves`).
    fn book_move(
        &self,
        root: &Position,
        params: &GoParams,
    ) -> Option<(crate::chess::Move, u16, u32)> {
        let s = &self.settings;
        if !s.own_book
            || params.limits.infinite
            || params.limits.ponder
            || params.limits.mate.is_some()
            || !params.searchmoves.is_empty()
            || book::game_ply(root) >= s.book_depth
        {
            return None;
        }
        let book = s.book.as_ref().unwrap_or_else(|| Book::embedded());
        let seed = root.key()
            ^ std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
        book.pick(root, s.book_best_move, seed)
    }

    /// At a root the tables cover, only the moves that keep the tablebase result are searched.
    fn tablebase_root_moves(&self, root: &Position, limits: &mut Limits) {
        let s = &self.settings;
        let Some(tb) = s.tablebases.as_ref() else {
            return;
        };
        if root.occupied().count() > s.syzygy_probe_limit {
            return;
        }
        let Some(result) = tb.probe_root(root, &self.game.history, s.syzygy_50_move_rule) else {
            return;
        };
        let before = if limits.searchmoves.is_empty() {
            result.moves.len()
        } else {
            limits.searchmoves.len()
        };
        let keep: Vec<_> = result
            .keep
            .iter()
            .copied()
            .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
            .collect();
        if keep.is_empty() {
            return;
        }
        let result_name = format!("{:?}", result.wdl).to_lowercase();
        self.out.info_string(&format!(
            "tablebase {result_name}, dtz {}: {} of {before} moves keep it",
            result.dtz,
            keep.len()
        ));
        limits.searchmoves = keep;
    }

    /// `position …`: all or nothing. A bad FEN or an illegal move leaves the previous position
    /// (and its history) exactly as it was.
    fn set_position(&mut self, base: &PositionBase, moves: &[String]) {
        let start = match base {
            PositionBase::StartPos => Position::from_fen(START_FEN).expect("start position"),
            PositionBase::Fen(fen) => match Position::from_fen(fen) {
                Ok(p) => p,
                Err(e) => {
                    self.error(&format!("invalid FEN '{fen}': {e}; position unchanged"));
                    return;
                }
            },
        };
        let mut pos = start;
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let next = if text == "0000" {
                (!pos.in_check()).then(|| {
                    let mut p = pos;
                    p.play_null();
                    p
                })
            } else {
                pos.parse_uci_move(text).map(|m| pos.after(m))
            };
            match next {
                Some(p) => {
                    history.push(pos.key());
                    pos = p;
                }
                None => {
                    self.error(&format!(
                        "illegal move '{text}' (move {} of the list) in position {}; position unchanged",
                        i + 1,
                        pos.to_fen()
                    ));
                    return;
                }
            }
        }
        self.game = Game {
            position: pos,
            history,
        };
    }

    fn go(&mut self, params: GoParams) {
        for warning in &params.warnings {
            self.error(warning);
        }
        if let Some(depth) = params.perft {
            self.perft(depth);
            return;
        }
        let root = self.game.position;
        if let Some((m, weight, total)) = self.book_move(&root, &params) {
            let text = root.move_to_uci(m, self.settings.chess960);
            self.out
                .info_string(&format!("book move {text} (weight {weight} of {total})"));
            self.out.line(&format!("bestmove {text}"));
            return;
        }
        let mut limits = params.limits.clone();
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

        self.tablebase_root_moves(&root, &mut limits);

        let mut options = self.settings.search.clone();
        options.tablebases = self
            .settings
            .tablebases
            .as_ref()
            .map(|tables| TablebaseProbing {
                tables: std::sync::Arc::clone(tables),
                probe_depth: self.settings.syzygy_probe_depth,
                probe_limit: self.settings.syzygy_probe_limit,
                rule50: self.settings.syzygy_50_move_rule,
            });
        let job = SearchJob {
            root,
            history: self.game.history.clone(),
            limits,
            options,
        };
        let out = self.out.clone();
        let out_done = self.out.clone();
        let tx = self.tx.clone();
        let style = format::Style {
            chess960: self.settings.chess960,
            show_wdl: self.settings.show_wdl,
        };
        self.searching = true;
        self.engine.go(
            job,
            move |event| {
                if let Some(line) = format::event(&root, &event, style) {
                    out.line(&line);
                }
            },
            move |result| {
                // SearchDone goes first: anything the GUI sends after reading `bestmove` must
                // find the protocol thread idle. (It joins this thread, so it cannot act
                // before the line below is out.)
                let _ = tx.send(Input::SearchDone);
                out_done.line(&format::bestmove(&root, &result, style));
            },
        );
    }

    fn perft(&self, depth: u32) {
        let pos = &self.game.position;
        let mut total = 0;
        for (m, n) in perft::divide(pos, depth) {
            self.out.line(&format!(
                "{}: {n}",
                pos.move_to_uci(m, self.settings.chess960)
            ));
            total += n;
        }
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
    }

    /// `bench [depth]`: the fixed benchmark, with the current search switches.
    fn bench(&mut self, depth: Option<u32>) {
        let options = self.settings.search.clone();
        let result = crate::search::bench::bench_with(depth, &options);
        self.out
            .line(&format!("{} nodes {} nps", result.nodes, result.nps));
    }

    fn display(&self) {
        for line in format::board(&self.game.position, self.settings.chess960) {
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
            "  d (board), eval, perft <n> | go perft <n>, bench [depth], help".into(),
            "Options:".into(),
        ];
        for spec in &self.specs {
            lines.push(format!("  {:<16} {}", spec.name, spec.help));
        }
        for l in lines {
            self.out.line(&l);
        }
    }
}

/// Reads lines from `input` and hands them to the protocol thread; a line longer than
/// `MAX_LINE_BYTES` is skipped whole. Invalid UTF-8 is replaced, not fatal.
fn read_lines(mut input: impl BufRead, tx: Sender<Input>) {
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
                if tx.send(Input::Line(line)).is_err() {
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
    if args.first().map(String::as_str) == Some("perft") && args.len() > 2 {
        return vec![
            format!("position fen {}", args[2..].join(" ")),
            format!("perft {}", args[1]),
        ];
    }
    vec![args.join(" ")]
}
