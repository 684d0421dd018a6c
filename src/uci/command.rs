//! GUI→engine commands as a type. Lines are parsed by `vampirc-uci` where it is faithful, and
//! by a small tokenizer of our own where it is not: vampirc-uci rejects 4-field FENs,
//! Shredder/X-FEN castling and the null move `0000`, keeps only one time control per `go`
//! (so `go ponder wtime …` would lose the clocks), and panics on numbers that overflow its
//! `u8` fields (`go depth 300`). Our own extensions (`d`, `eval`, `perft`, `bench`, `help`)
//! are ours to parse.

use crate::search::Limits;
use std::panic::{self, AssertUnwindSafe};
use vampirc_uci::{UciMessage, UciSearchControl, UciTimeControl};

/// `go` as read from the line: the limits, plus what is resolved later against the position
/// (`searchmoves` as text) or is not a search at all (`perft`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoParams {
    /// Everything but `searchmoves`, which stays empty here.
    pub limits: Limits,
    pub searchmoves: Vec<String>,
    /// `go perft N` (a Stockfish extension).
    pub perft: Option<u32>,
    /// Parameters that were wrong and left out (or clamped): a `go` still searches, so that
    /// the GUI gets its `bestmove`, and the engine says what it ignored.
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PositionBase {
    StartPos,
    Fen(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    UciNewGame,
    Position {
        base: PositionBase,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    // Extensions.
    Display,
    Eval,
    Perft(u32),
    Bench(Option<u32>),
    /// `lecture D`: minimax, α-β and the engine on the current position (src/lecture/).
    Lecture(i64),
    /// `tree D [minimax|alphabeta|ordered|engine] [svg FILE] [dot FILE] [moves M…]`: the α-β
    /// tree (`engine`: the engine's own search, with its prunings).
    Tree(TreeRequest),
    /// `stats on|off`: count the searches from now on, or not; `stats`: what the last one
    /// counted.
    Stats(StatsRequest),
    /// OpenBench's `genfens N seed S book <None|file> [extra]`: openings for data generation.
    GenFens {
        count: u64,
        seed: u64,
        book: Option<String>,
        extra: String,
    },
    /// `spsa`: the search's tunable numbers in OpenBench's SPSA input format.
    Spsa,
    Help,
    /// Blank line: ignored.
    Empty,
    /// A line we could not make sense of, with the reason.
    Invalid {
        line: String,
        reason: String,
    },
}

/// Parses one input line (without its line ending; a trailing `\r` is tolerated).
pub fn parse(line: &str) -> Command {
    let line = line.trim();
    let mut words = line.split_ascii_whitespace();
    let Some(first) = words.next() else {
        return Command::Empty;
    };
    let keyword = first.to_ascii_lowercase();
    match keyword.as_str() {
        "d" => return Command::Display,
        "eval" => return Command::Eval,
        "help" => return Command::Help,
        "spsa" => return Command::Spsa,
        "perft" => {
            return match words.next().map(str::parse::<u32>) {
                Some(Ok(n)) => Command::Perft(n),
                _ => invalid(line, "perft needs a depth: perft N"),
            }
        }
        "genfens" => return parse_genfens(line),
        "lecture" => {
            return match words.next().map(str::parse::<i64>) {
                Some(Ok(d)) => Command::Lecture(d),
                _ => invalid(line, "lecture needs a depth: lecture N"),
            }
        }
        "tree" => return parse_tree(line),
        "stats" => {
            return match (
                words.next().map(str::to_ascii_lowercase).as_deref(),
                words.next(),
            ) {
                (None, _) => Command::Stats(StatsRequest::Show),
                (Some("on"), None) => Command::Stats(StatsRequest::On),
                (Some("off"), None) => Command::Stats(StatsRequest::Off),
                _ => invalid(line, "stats takes on, off or nothing: stats [on|off]"),
            }
        }
        "bench" => {
            return match words.next().map(str::parse::<u32>) {
                None => Command::Bench(None),
                Some(Ok(n)) if n > 0 => Command::Bench(Some(n)),
                _ => invalid(line, "bench takes an optional positive depth: bench [N]"),
            }
        }
        _ => {}
    }
    if keyword == "go" {
        // vampirc-uci reads odd `go` lines lossily (`go binc -5 depth depth 2` and
        // `go searchmoves depth 2` lose the depth), so its reading is taken only where it
        // agrees with our own; otherwise ours, which names what it left out.
        let ours = parse_fallback(line, &keyword);
        return match parse_with_vampirc(line) {
            Some(theirs) if theirs == ours => theirs,
            Some(theirs) => {
                log::debug!("go read as {ours:?}; vampirc-uci read {theirs:?}");
                ours
            }
            None => ours,
        };
    }
    if let Some(cmd) = parse_with_vampirc(line) {
        return cmd;
    }
    parse_fallback(line, &keyword)
}

fn invalid(line: &str, reason: &str) -> Command {
    Command::Invalid {
        line: line.to_string(),
        reason: reason.to_string(),
    }
}

/// What `stats` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsRequest {
    /// The last search's counts.
    Show,
    On,
    Off,
}

/// What `tree` is asked to draw.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TreeRequest {
    pub depth: i64,
    /// `minimax`, `alphabeta` (the default: the lecture's α-β, generator order), `ordered`,
    /// or `engine` (the engine's own search).
    pub variant: String,
    pub svg: Option<String>,
    pub dot: Option<String>,
    /// Only these root moves (UCI text), to keep the picture small.
    pub moves: Vec<String>,
}

fn parse_tree(line: &str) -> Command {
    const USAGE: &str =
        "tree needs a depth: tree N [minimax|alphabeta|ordered|engine] [svg FILE] [dot FILE] [moves M...]";
    let mut words = line.split_ascii_whitespace().skip(1);
    let Some(Ok(depth)) = words.next().map(str::parse::<i64>) else {
        return invalid(line, USAGE);
    };
    let mut req = TreeRequest {
        depth,
        variant: "alphabeta".into(),
        ..Default::default()
    };
    while let Some(w) = words.next() {
        match w.to_ascii_lowercase().as_str() {
            v @ ("minimax" | "alphabeta" | "ordered" | "engine") => req.variant = v.into(),
            "svg" | "dot" => {
                let Some(file) = words.next() else {
                    return invalid(line, USAGE);
                };
                if w.eq_ignore_ascii_case("svg") {
                    req.svg = Some(file.into());
                } else {
                    req.dot = Some(file.into());
                }
            }
            "moves" => {
                // Root moves up to the next keyword.
                while let Some(m) = words.clone().next() {
                    if matches!(
                        m,
                        "svg" | "dot" | "minimax" | "alphabeta" | "ordered" | "engine"
                    ) {
                        break;
                    }
                    req.moves.push(m.to_string());
                    words.next();
                }
            }
            _ => return invalid(line, USAGE),
        }
    }
    Command::Tree(req)
}

/// `genfens N seed S book <None|path> [extra…]`: N and S numbers, the book optional (`None`
/// or missing: none), the rest kept as it came.
fn parse_genfens(line: &str) -> Command {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let usage = "genfens N seed S book <None|file.epd> [extra]";
    let Some(Ok(count)) = words.get(1).map(|w| w.parse::<u64>()) else {
        return invalid(line, &format!("genfens needs a count: {usage}"));
    };
    let mut seed = 0;
    let mut book = None;
    let mut extra = Vec::new();
    let mut i = 2;
    while i < words.len() {
        match (words[i], words.get(i + 1)) {
            ("seed", Some(s)) => match s.parse() {
                Ok(n) => seed = n,
                Err(_) => return invalid(line, &format!("genfens: seed '{s}' is not a number")),
            },
            ("book", Some(b)) => book = (!b.eq_ignore_ascii_case("none")).then(|| b.to_string()),
            (w, _) => {
                extra.push(w);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    Command::GenFens {
        count,
        seed,
        book,
        extra: extra.join(" "),
    }
}

thread_local! {
    /// Set while vampirc-uci reads a line on this thread: its panics are expected and quiet.
    static IN_VAMPIRC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// One panic hook for the process, installed once: quiet for vampirc-uci's expected panics
/// on the protocol thread, the default report for every other panic (a search thread's
/// included).
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_VAMPIRC.with(|v| v.get()) {
                default(info);
            }
        }));
    });
}

/// The vampirc-uci reading of a line, if it parsed and models everything the line says.
fn parse_with_vampirc(line: &str) -> Option<Command> {
    // vampirc-uci unwraps its number conversions; a panic there means "not parsable".
    install_panic_hook();
    IN_VAMPIRC.with(|v| v.set(true));
    let parsed = panic::catch_unwind(AssertUnwindSafe(|| vampirc_uci::parse_one(line)));
    IN_VAMPIRC.with(|v| v.set(false));
    let msg = parsed.ok()?;
    Some(match msg {
        UciMessage::Uci => Command::Uci,
        UciMessage::Debug(on) => Command::Debug(on),
        UciMessage::IsReady => Command::IsReady,
        UciMessage::SetOption { name, value } => Command::SetOption {
            name: name.trim().to_string(),
            value: value.map(|v| v.trim().to_string()),
        },
        UciMessage::Register { .. } => Command::Register,
        UciMessage::UciNewGame => Command::UciNewGame,
        UciMessage::Stop => Command::Stop,
        UciMessage::PonderHit => Command::PonderHit,
        UciMessage::Quit => Command::Quit,
        UciMessage::Position {
            startpos,
            fen,
            moves,
        } if moves.len() == count_moves(line) => Command::Position {
            base: match (startpos, fen) {
                (_, Some(fen)) => PositionBase::Fen(fen.0.trim().to_string()),
                (true, None) => PositionBase::StartPos,
                (false, None) => return None,
            },
            moves: moves.iter().map(|m| m.to_string()).collect(),
        },
        UciMessage::Go {
            time_control,
            search_control,
        } => {
            if mixes_time_controls(line) {
                return None;
            }
            go_from_vampirc(time_control, search_control)
        }
        _ => return None,
    })
}

/// The number of words after `moves` (vampirc-uci silently stops at a word it can't read).
fn count_moves(line: &str) -> usize {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    words
        .iter()
        .position(|w| w.eq_ignore_ascii_case("moves"))
        .map_or(0, |i| words.len() - i - 1)
}

/// vampirc-uci keeps one of ponder / infinite / movetime / clocks per `go`.
fn mixes_time_controls(line: &str) -> bool {
    let mut groups = [false; 4];
    for w in line.split_ascii_whitespace() {
        match w.to_ascii_lowercase().as_str() {
            "ponder" => groups[0] = true,
            "infinite" => groups[1] = true,
            "movetime" => groups[2] = true,
            "wtime" | "btime" | "winc" | "binc" | "movestogo" => groups[3] = true,
            "perft" => return true,
            _ => {}
        }
    }
    groups.iter().filter(|&&g| g).count() > 1
}

fn go_from_vampirc(time: Option<UciTimeControl>, search: Option<UciSearchControl>) -> Command {
    let mut go = GoParams::default();
    let ms = |d: Option<vampirc_uci::Duration>| d.map(|d| d.num_milliseconds());
    match time {
        Some(UciTimeControl::Ponder) => go.limits.ponder = true,
        Some(UciTimeControl::Infinite) => go.limits.infinite = true,
        Some(UciTimeControl::MoveTime(d)) => go.limits.movetime = Some(d.num_milliseconds()),
        Some(UciTimeControl::TimeLeft {
            white_time,
            black_time,
            white_increment,
            black_increment,
            moves_to_go,
        }) => {
            go.limits.wtime = ms(white_time);
            go.limits.btime = ms(black_time);
            go.limits.winc = ms(white_increment);
            go.limits.binc = ms(black_increment);
            go.limits.movestogo = moves_to_go.map(u32::from);
        }
        None => {}
    }
    if let Some(s) = search {
        go.limits.depth = s.depth.map(u32::from);
        go.limits.mate = s.mate.map(u32::from);
        go.limits.nodes = s.nodes;
        go.searchmoves = s.search_moves.iter().map(|m| m.to_string()).collect();
    }
    Command::Go(go)
}

/// Our own reading of the lines vampirc-uci cannot represent.
fn parse_fallback(line: &str, keyword: &str) -> Command {
    let rest: Vec<&str> = line.split_ascii_whitespace().skip(1).collect();
    match keyword {
        "uci" if rest.is_empty() => Command::Uci,
        "isready" if rest.is_empty() => Command::IsReady,
        "ucinewgame" if rest.is_empty() => Command::UciNewGame,
        "stop" if rest.is_empty() => Command::Stop,
        "ponderhit" if rest.is_empty() => Command::PonderHit,
        "quit" if rest.is_empty() => Command::Quit,
        "register" => Command::Register,
        "debug" => match rest.first().map(|s| s.to_ascii_lowercase()).as_deref() {
            Some("on") | None => Command::Debug(true),
            Some("off") => Command::Debug(false),
            _ => invalid(line, "debug takes 'on' or 'off'"),
        },
        "setoption" => parse_setoption(line, &rest),
        "position" => parse_position(line, &rest),
        "go" => parse_go(line, &rest),
        _ => invalid(line, "unknown command (try 'help')"),
    }
}

fn parse_setoption(line: &str, rest: &[&str]) -> Command {
    if rest.first().map(|s| s.eq_ignore_ascii_case("name")) != Some(true) {
        return invalid(line, "expected: setoption name <name> [value <value>]");
    }
    let value_at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let name_words = &rest[1..value_at.unwrap_or(rest.len())];
    if name_words.is_empty() {
        return invalid(line, "setoption without an option name");
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Command::SetOption {
        name: name_words.join(" "),
        value,
    }
}

fn parse_position(line: &str, rest: &[&str]) -> Command {
    let moves_at = rest.iter().position(|w| w.eq_ignore_ascii_case("moves"));
    let head = &rest[..moves_at.unwrap_or(rest.len())];
    let moves = moves_at.map_or(Vec::new(), |i| {
        rest[i + 1..].iter().map(|s| s.to_string()).collect()
    });
    let base = match head.first().map(|s| s.to_ascii_lowercase()).as_deref() {
        Some("startpos") if head.len() == 1 => PositionBase::StartPos,
        Some("fen") if head.len() > 1 => PositionBase::Fen(head[1..].join(" ")),
        _ => {
            return invalid(
                line,
                "expected: position startpos|fen <fen> [moves <move>...]",
            )
        }
    };
    Command::Position { base, moves }
}

fn parse_go(line: &str, rest: &[&str]) -> Command {
    let mut go = GoParams::default();
    let mut i = 0;
    /// The value after `rest[i]` as a whole number of any size (clamped later).
    fn number(rest: &[&str], i: usize, what: &str) -> Result<i128, String> {
        let text = rest
            .get(i + 1)
            .filter(|t| !is_go_keyword(t))
            .ok_or_else(|| format!("go {what} needs a value; ignored"))?;
        let digits = text.strip_prefix('+').unwrap_or(text);
        if !digits.is_empty()
            && digits
                .trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_digit())
        {
            // More digits than an i128 holds: as large as it gets.
            Ok(digits
                .parse::<i128>()
                .unwrap_or(if digits.starts_with('-') {
                    i128::MIN
                } else {
                    i128::MAX
                }))
        } else {
            Err(format!("go {what}: '{text}' is not a number; ignored"))
        }
    }
    /// A count that cannot be negative (depth, nodes, mate, movestogo): huge values are
    /// clamped to the type's maximum, negative ones are left out.
    fn count<T: TryFrom<i128> + Bounded>(
        v: i128,
        what: &str,
        warnings: &mut Vec<String>,
    ) -> Option<T> {
        if v < 0 {
            warnings.push(format!("go {what} is negative ({v}); ignored"));
            return None;
        }
        Some(T::try_from(v).unwrap_or(T::MAX))
    }
    fn millis(v: i128) -> i64 {
        v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
    while i < rest.len() {
        let word = rest[i].to_ascii_lowercase();
        let w = &mut go.warnings;
        let step = match word.as_str() {
            "infinite" => {
                go.limits.infinite = true;
                1
            }
            "ponder" => {
                go.limits.ponder = true;
                1
            }
            "searchmoves" => {
                // Moves run until the next keyword.
                let mut j = i + 1;
                while j < rest.len() && !is_go_keyword(rest[j]) {
                    go.searchmoves.push(rest[j].to_string());
                    j += 1;
                }
                j - i
            }
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "depth" | "nodes" | "mate"
            | "movetime" | "perft" => match number(rest, i, &word) {
                Err(e) if word == "perft" => return invalid(line, &e),
                Err(e) => {
                    w.push(e);
                    // A missing value is not skipped over: the next word is a keyword.
                    if rest.get(i + 1).is_some_and(|t| !is_go_keyword(t)) {
                        2
                    } else {
                        1
                    }
                }
                Ok(v) => {
                    let l = &mut go.limits;
                    match word.as_str() {
                        "wtime" => l.wtime = Some(millis(v)),
                        "btime" => l.btime = Some(millis(v)),
                        "winc" => l.winc = Some(millis(v)),
                        "binc" => l.binc = Some(millis(v)),
                        "movetime" => l.movetime = Some(millis(v)),
                        "movestogo" => l.movestogo = count(v, &word, w),
                        "depth" => l.depth = count(v, &word, w),
                        "nodes" => l.nodes = count(v, &word, w),
                        "mate" => l.mate = count(v, &word, w),
                        _ => match count(v, &word, w) {
                            Some(n) => go.perft = Some(n),
                            None => return invalid(line, "go perft needs a depth of 0 or more"),
                        },
                    }
                    2
                }
            },
            _ => {
                w.push(format!("go: unknown parameter '{}'; ignored", rest[i]));
                1
            }
        };
        i += step;
    }
    Command::Go(go)
}

/// The largest value of a count type.
trait Bounded {
    const MAX: Self;
}
impl Bounded for u32 {
    const MAX: u32 = u32::MAX;
}
impl Bounded for u64 {
    const MAX: u64 = u64::MAX;
}

fn is_go_keyword(w: &str) -> bool {
    matches!(
        w.to_ascii_lowercase().as_str(),
        "infinite"
            | "ponder"
            | "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "mate"
            | "movetime"
            | "perft"
            | "searchmoves"
    )
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
