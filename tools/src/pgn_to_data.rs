//! `brudno-tools pgn-to-data`: games played by fastchess or cutechess (what OpenBench's DATAGEN
//! workloads bring back) as training data in Brudno's format (`brudno::datagen::format`).
//!
//! Those PGNs carry each engine move's search score in its comment, `{+0.35/14 0.263s}`: pawns
//! from the mover's view, then depth and time; mates are `{-M5/20 …}`; opening moves are
//! `{book}`. A game's record starts after its last book move and takes each later move with its
//! score as centipawns from White's view (a mate is ±32000, as `brudno datagen` records it),
//! until a move without a readable score: the record is cut there. The result is the `Result`
//! tag's; games without one are skipped.
//!
//! Brudno's networks are trained on Brudno's own evaluations only, so by default a game is kept
//! only when both players are Brudno (`--players NAME` matches the start of the `White`/`Black`
//! or `EngineWhiteName`/`EngineBlackName` tags, in any case; `any` keeps every game).
//!
//! The output file is appended to, one whole game at a time; a partial game at its end (a run
//! that was killed) is cut off first, as `brudno datagen` does with its streams.

use crate::cli::{self, print_help, unknown, Arg, Args, Parsed};
use crate::pgn::{PgnError, PgnGame, PgnReader};
use crate::progress::Reading;
use crate::usage_error;
use anyhow::{bail, Context, Result};
use brudno::chess::{Color, Outcome};
use brudno::datagen::format::{whole_games, FormatError, GameRecord};
use std::io::Write;
use std::path::Path;

/// Whose games are kept unless `--players` says otherwise.
pub const DEFAULT_PLAYERS: &str = "Brudno";

/// What `pgn-to-data` converts.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub out: String,
    /// The start of both players' names; `None`: any players.
    pub players: Option<String>,
    pub inputs: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            out: String::new(),
            players: Some(DEFAULT_PLAYERS.to_string()),
            inputs: Vec::new(),
        }
    }
}

/// `pgn-to-data --help`, with the default.
pub fn usage() -> String {
    let players = Options::default().players.unwrap_or_else(|| "any".into());
    format!(
        "\
Usage: brudno-tools pgn-to-data --out FILE.vf [--players NAME|any] PGN...

Appends the games of fastchess/cutechess PGNs, with each move's score in its comment
(`{{score/depth time}}`), to a training data file, one whole game at a time; a partial game at
the file's end (a killed run) is cut off first. Progress goes to stderr. Exit codes: 0 done,
1 failure, 2 a bad command line.

Options (default in brackets):
  --out FILE        training data to append the games to, created if missing (required)
  --players NAME    keep only games whose both players' names start with NAME, in any
                    case; `any` keeps every game [{players}]
  PGN...            the games, plain or gzip (at least one)
  -h, --help        this text"
    )
}

/// Reads the arguments after `pgn-to-data`.
pub fn parse_args(args: &[String]) -> cli::Result<Parsed<Options>> {
    let mut o = Options::default();
    let mut a = Args::new(args);
    while let Some(arg) = a.next_arg()? {
        let name = match arg {
            Arg::Help => return Ok(Parsed::Help),
            Arg::Option(name) => name,
            Arg::Positional(pgn) => {
                o.inputs.push(pgn);
                continue;
            }
        };
        let n = name.as_str();
        match n {
            "out" => o.out = a.text(n)?,
            "players" => {
                let players = a.text(n)?;
                o.players = (!players.eq_ignore_ascii_case("any")).then_some(players);
            }
            _ => return Err(unknown(n)),
        }
    }
    if o.out.is_empty() {
        return usage_error!("--out is required");
    }
    if o.inputs.is_empty() {
        return usage_error!("no PGN files given");
    }
    Ok(Parsed::Run(o))
}

/// The score `brudno datagen` records for a mate (White's view: + White mates).
pub const MATE: i16 = 32_000;

/// What a conversion did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games in the PGN files, readable or not.
    pub games: usize,
    pub kept: usize,
    pub unreadable: usize,
    pub other_players: usize,
    pub no_result: usize,
    /// Games with no scored move after the book.
    pub no_scores: usize,
    /// Kept games whose record stops at a move without a score (before the game's end).
    pub cut: usize,
    pub positions: usize,
    /// Bytes appended.
    pub bytes: usize,
    /// Whole games the file had before.
    pub games_before: usize,
    /// Bytes of a partial game cut off the end of the file before appending.
    pub cut_off: usize,
}

/// Why a game gives no record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    OtherPlayers,
    NoResult,
    NoScores,
}

/// `brudno-tools pgn-to-data …`.
pub fn run(args: &[String]) -> Result<()> {
    let Options {
        out,
        players,
        inputs,
    } = match parse_args(args)? {
        Parsed::Run(o) => o,
        Parsed::Help => {
            print_help(&usage());
            return Ok(());
        }
    };
    let s = convert(&inputs, Path::new(&out), players.as_deref())?;
    if s.cut_off > 0 {
        eprintln!(
            "{out}: {} bytes after its last whole game cut off",
            s.cut_off
        );
    }
    eprintln!(
        "{} games read: {} kept; skipped: {} unreadable, {} by other players, {} without a result, \
         {} with no scored move after the book",
        s.games, s.kept, s.unreadable, s.other_players, s.no_result, s.no_scores
    );
    eprintln!(
        "{} records cut at a move without a score; {} positions written, {} bytes ({:.2} bytes/position) \
         appended to {out} (which had {} games)",
        s.cut,
        s.positions,
        s.bytes,
        s.bytes as f64 / s.positions.max(1) as f64,
        s.games_before
    );
    Ok(())
}

/// Converts the games of `inputs` and appends them to `out`.
pub fn convert(inputs: &[String], out: &Path, players: Option<&str>) -> Result<Summary> {
    let mut s = Summary::default();
    (s.games_before, s.cut_off) = cut_partial_game(out)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .with_context(|| format!("opening {}", out.display()))?;
    let mut file = std::io::BufWriter::new(file);
    let mut bytes = Vec::new();
    let mut reading = Reading::new("pgn-to-data", "games", inputs);
    for path in inputs {
        let input = crate::input::open_counted(path)?;
        reading.file(&input);
        for game in PgnReader::new(input.reader) {
            reading.tick(s.games);
            s.games += 1;
            let game = match game {
                Ok(game) => game,
                Err(PgnError::Io(e)) => return Err(e).with_context(|| format!("reading {path}")),
                Err(e) => {
                    s.unreadable += 1;
                    if s.unreadable <= 5 {
                        reading.clear();
                        eprintln!("{path}: skipped {e}");
                    }
                    continue;
                }
            };
            match record(&game, players) {
                Ok((record, cut)) => {
                    bytes.clear();
                    record.encode(&mut bytes);
                    file.write_all(&bytes)
                        .with_context(|| format!("writing {}", out.display()))?;
                    s.kept += 1;
                    s.cut += cut as usize;
                    s.positions += record.plies.len();
                    s.bytes += bytes.len();
                }
                Err(Skip::OtherPlayers) => s.other_players += 1,
                Err(Skip::NoResult) => s.no_result += 1,
                Err(Skip::NoScores) => s.no_scores += 1,
            }
        }
    }
    reading.clear();
    file.flush()
        .with_context(|| format!("writing {}", out.display()))?;
    Ok(s)
}

/// Cuts a partial game off the end of an existing data file: its whole games and the bytes
/// cut. A file that is not cut but broken (or not training data at all) is an error, not cut.
fn cut_partial_game(path: &Path) -> Result<(usize, usize)> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let (games, end) = whole_games(&bytes);
    if end < bytes.len() {
        match GameRecord::decode(&bytes[end..]) {
            Err(FormatError::Truncated) => {}
            Err(e) => bail!(
                "{} is not training data from byte {end} on ({e}); not appending to it",
                path.display()
            ),
            Ok(_) => unreachable!("whole_games stops only at an error"),
        }
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(end as u64)?;
    }
    Ok((games, bytes.len() - end))
}

/// The record of a game (and whether it was cut at a move without a score), or why there is
/// none.
pub fn record(game: &PgnGame, players: Option<&str>) -> Result<(GameRecord, bool), Skip> {
    if let Some(name) = players {
        if !plays(game, Color::White, name) || !plays(game, Color::Black, name) {
            return Err(Skip::OtherPlayers);
        }
    }
    let outcome: Outcome = game.outcome.ok_or(Skip::NoResult)?;
    let is_book = |c: &Option<String>| c.as_deref().is_some_and(|c| c.trim() == "book");
    let first = game.comments.iter().rposition(is_book).map_or(0, |i| i + 1);
    let mut positions = game.positions().zip(&game.comments).skip(first).peekable();
    let start = match positions.peek() {
        Some(((pos, _), _)) => *pos,
        None => return Err(Skip::NoScores),
    };
    let mut record = GameRecord::new(start);
    record.outcome = outcome;
    let mut cut = false;
    for ((pos, m), comment) in positions {
        let Some(score) = comment.as_deref().and_then(comment_score) else {
            cut = true;
            break;
        };
        let white = match pos.side_to_move() {
            Color::White => score,
            Color::Black => -score,
        };
        record.plies.push((m, white));
    }
    if record.plies.is_empty() {
        return Err(Skip::NoScores);
    }
    Ok((record, cut))
}

/// Whether `side`'s player (either tag naming it) starts with `name`, in any case.
fn plays(game: &PgnGame, side: Color, name: &str) -> bool {
    let tags = match side {
        Color::White => ["White", "EngineWhiteName"],
        Color::Black => ["Black", "EngineBlackName"],
    };
    tags.iter().filter_map(|t| game.tag(t)).any(|player| {
        player
            .get(..name.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(name))
    })
}

/// The score at the start of a move comment (`+0.35/14 0.263s`, `-M5/20 …`, `0.00/56 …,
/// Draw by 3-fold repetition`) in centipawns from the mover's view; `None` for anything else
/// (`book`, an empty comment).
pub fn comment_score(comment: &str) -> Option<i16> {
    let token = comment.split_ascii_whitespace().next()?;
    let score = token.split('/').next()?.trim_end_matches(',');
    let (negative, unsigned) = match score.as_bytes().first()? {
        b'-' => (true, &score[1..]),
        b'+' => (false, &score[1..]),
        _ => (false, score),
    };
    let stm = if let Some(moves) = unsigned.strip_prefix('M') {
        if moves.is_empty() || !moves.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        MATE
    } else {
        if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        let pawns: f64 = unsigned.parse().ok()?;
        (pawns * 100.0).round().min(MATE as f64) as i16
    };
    Some(if negative { -stm } else { stm })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> cli::Result<Parsed<Options>> {
        parse_args(&cli::words(line))
    }

    #[test]
    fn the_command_line() {
        assert_eq!(
            parse("a.pgn --out d.vf b.pgn.gz"),
            Ok(Parsed::Run(Options {
                out: "d.vf".into(),
                players: Some(DEFAULT_PLAYERS.into()),
                inputs: vec!["a.pgn".into(), "b.pgn.gz".into()],
            }))
        );
        let any = parse("--out d.vf --players ANY a.pgn")
            .unwrap()
            .run()
            .unwrap();
        assert_eq!(any.players, None);
        let some = parse("--out d.vf --players=Ethereal a.pgn")
            .unwrap()
            .run()
            .unwrap();
        assert_eq!(some.players.as_deref(), Some("Ethereal"));
        assert_eq!(parse("--out d.vf a.pgn --help"), Ok(Parsed::Help));
        assert_eq!(parse("-h"), Ok(Parsed::Help));
        for (line, says) in [
            ("a.pgn", "--out is required"),
            ("--out d.vf", "no PGN files given"),
            ("--out d.vf --players", "--players needs a value"),
            ("--out d.vf --player x a.pgn", "unknown option --player"),
        ] {
            let e = parse(line).expect_err(line).0;
            assert!(e.contains(says), "{line}: {e}");
        }
        assert!(usage().contains(&format!("[{DEFAULT_PLAYERS}]")));
    }

    #[test]
    fn comment_scores() {
        assert_eq!(comment_score("+0.35/14 0.263s"), Some(35));
        assert_eq!(comment_score("-2.24/12 0.593s"), Some(-224));
        assert_eq!(
            comment_score("0.00/56 0.123s, Draw by 3-fold repetition"),
            Some(0)
        );
        assert_eq!(comment_score("+M45/18 0.111s"), Some(MATE));
        assert_eq!(
            comment_score("-M2/4 0.000s, White wins by adjudication"),
            Some(-MATE)
        );
        assert_eq!(comment_score("+12.71"), Some(1271));
        assert_eq!(comment_score("+999.00/3 0.1s"), Some(MATE));
        for text in [
            "book",
            "",
            "  ",
            "+M/3",
            "-/3",
            "nan/3",
            "+1e5/3",
            "White wins",
        ] {
            assert_eq!(comment_score(text), None, "{text}");
        }
    }

    fn game(text: &str) -> PgnGame {
        PgnReader::new(text.as_bytes()).next().unwrap().unwrap()
    }

    #[test]
    fn the_record_starts_after_the_book_and_stops_at_a_move_without_a_score() {
        let g = game(
            "[White \"Brudno 1\"]\n[Black \"brudno-dev\"]\n[Result \"0-1\"]\n\n\
             1. e4 {book} e5 {book} 2. Nf3 {+0.30/10 0.1s} Nc6 {-0.20/11 0.1s} 3. Bb5 {+M3/9 0.1s}\n\
             a6 4. Ba4 {+0.1/2 0.1s} 0-1\n",
        );
        let (record, cut) = record(&g, Some("BRUDNO")).unwrap();
        assert!(cut);
        assert_eq!(record.outcome, Outcome::BlackWins);
        assert_eq!(record.start, g.positions().nth(2).unwrap().0);
        let scores: Vec<i16> = record.plies.iter().map(|p| p.1).collect();
        // Black's -0.20 is White's +20.
        assert_eq!(scores, [30, 20, MATE]);
        assert_eq!(
            super::record(&g, Some("Ethereal")).unwrap_err(),
            Skip::OtherPlayers
        );
        let g = game(
            "[White \"x\"]\n[EngineWhiteName \"Brudno\"]\n[Black \"brudno\"]\n1. e4 {book} *\n",
        );
        assert_eq!(
            super::record(&g, Some("brudno")).unwrap_err(),
            Skip::NoResult
        );
        let g = game("[Result \"1-0\"]\n1. e4 {book} 1-0\n");
        assert_eq!(super::record(&g, None).unwrap_err(), Skip::NoScores);
        let g = game("[Result \"1-0\"]\n1. e4 {+0.2/1} 1-0\n");
        assert_eq!(super::record(&g, None).unwrap().0.start, g.start);
    }
}
