//! `brudno-tools book`: makes a Polyglot opening book from PGN games, and shows what Brudno's
//! book reader finds in a book (the book tests compare that with python-chess).
//!
//! ```text
//! book build --pgn FILE[.gz] [--max-ply N] [--min-games K] [--min-share PERCENT] --out FILE
//! book probe BOOK < fens
//! ```
//! `build` reads the games through the one PGN reader (`crate::pgn`) and hands their moves to
//! the engine's book maker (`brudno::book::maker`: the weights, thresholds and file layout are
//! decided there); it prints statistics to stderr. `probe` prints, for each FEN, the line
//! `FEN<TAB>move:weight move:weight ...` with the moves Brudno's reader finds (castling as
//! `e1g1`), in file order.

use crate::cli::{self, print_help, unknown, Arg, Args, Parsed};
use crate::pgn::{PgnError, PgnGame, PgnReader};
use crate::progress::Reading;
use crate::usage_error;
use anyhow::{Context, Result};
use brudno::book::maker::{write_entries, BookMaker, MakerOptions};
use brudno::book::Book;
use brudno::chess::Position;
use std::io::{BufRead, Write};

/// `book --help` (and `book build --help`, `book probe --help`), with the defaults.
pub fn usage() -> String {
    let d = MakerOptions::default();
    format!(
        "\
Usage: brudno-tools book build --pgn FILE[.gz] --out FILE [OPTIONS]
       brudno-tools book probe BOOK < fens

build: a Polyglot book from the games' first plies; games from a set-up position (a FEN tag),
of another variant or without a result are left out. The defaults are what
src/book/default.bin is made with (scripts/make-book). Progress goes to stderr.
probe: for each FEN line of stdin, FEN<TAB>move:weight ... as Brudno's book reader finds them.
Exit codes: 0 done, 1 failure, 2 a bad command line.

build's options (default in brackets):
  --pgn FILE            the games, plain or gzip (required)
  --out FILE            the book to write (required)
  --max-ply N           only the first N plies of each game [{max_ply}]
  --min-games K         a move enters the book after K games [{min_games}]
  --min-share PERCENT   leave out a move weighing less than this share of the position's
                        best move [{min_share}]
  -h, --help            this text",
        max_ply = d.max_ply,
        min_games = d.min_games,
        min_share = d.min_share_percent,
    )
}

/// What `book` does.
#[derive(Clone, Debug, PartialEq)]
pub enum BookCommand {
    Build {
        pgn: String,
        out: String,
        options: MakerOptions,
    },
    Probe {
        book: String,
    },
}

/// Reads the arguments after `book`.
pub fn parse_args(args: &[String]) -> cli::Result<Parsed<BookCommand>> {
    let mut a = Args::new(args);
    match a.next_arg()? {
        Some(Arg::Help) => Ok(Parsed::Help),
        Some(Arg::Positional(c)) if c == "build" => parse_build(&mut a),
        Some(Arg::Positional(c)) if c == "probe" => {
            let book = match a.next_arg()? {
                Some(Arg::Help) => return Ok(Parsed::Help),
                Some(Arg::Positional(book)) => book,
                Some(Arg::Option(name)) => return Err(unknown(&name)),
                None => return usage_error!("probe needs the book file"),
            };
            match a.next_arg()? {
                None => Ok(Parsed::Run(BookCommand::Probe { book })),
                Some(Arg::Help) => Ok(Parsed::Help),
                Some(Arg::Option(name)) => Err(unknown(&name)),
                Some(Arg::Positional(v)) => usage_error!("probe takes one book, not also {v:?}"),
            }
        }
        Some(Arg::Positional(c)) => usage_error!("expected build or probe, not {c:?}"),
        Some(Arg::Option(name)) => usage_error!("expected build or probe, not --{name}"),
        None => usage_error!("expected build or probe"),
    }
}

fn parse_build(a: &mut Args) -> cli::Result<Parsed<BookCommand>> {
    let mut options = MakerOptions::default();
    let (mut pgn, mut out) = (None, None);
    let parsed = a.each_option(|n, a| {
        match n {
            "pgn" => pgn = Some(a.text(n)?),
            "out" => out = Some(a.text(n)?),
            "max-ply" => options.max_ply = a.number_in(n, 1, 10_000)?,
            "min-games" => options.min_games = a.number(n)?,
            "min-share" => options.min_share_percent = a.number_in(n, 0, 100)?,
            _ => return Err(unknown(n)),
        }
        Ok(())
    })?;
    if parsed == Parsed::Help {
        return Ok(Parsed::Help);
    }
    let Some(pgn) = pgn else {
        return usage_error!("--pgn is required");
    };
    let Some(out) = out else {
        return usage_error!("--out is required");
    };
    Ok(Parsed::Run(BookCommand::Build { pgn, out, options }))
}

/// `brudno-tools book …`.
pub fn run(args: &[String]) -> Result<()> {
    match parse_args(args)? {
        Parsed::Help => {
            print_help(&usage());
            Ok(())
        }
        Parsed::Run(BookCommand::Build { pgn, out, options }) => build(&pgn, &out, options),
        Parsed::Run(BookCommand::Probe { book }) => probe(&book),
    }
}

/// Why games were not used.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub unreadable: usize,
    pub no_result: usize,
    pub set_up: usize,
}

/// Feeds the games of a PGN text to the maker; returns what was left out. `reading` is told
/// the games read so far.
pub fn add_games(
    maker: &mut BookMaker,
    input: impl BufRead,
    mut reading: Option<&mut Reading>,
) -> Result<Skipped> {
    let mut skipped = Skipped::default();
    for (read, game) in PgnReader::new(input).enumerate() {
        if let Some(r) = reading.as_deref_mut() {
            r.tick(read);
        }
        let game = match game {
            Ok(game) => game,
            Err(PgnError::Io(e)) => return Err(e).context("reading the games"),
            Err(e) => {
                skipped.unreadable += 1;
                if skipped.unreadable <= 5 {
                    if let Some(r) = reading.as_deref_mut() {
                        r.clear();
                    }
                    eprintln!("skipped: {e}");
                }
                continue;
            }
        };
        if !from_standard_start(&game) {
            skipped.set_up += 1;
            continue;
        }
        match game.outcome {
            Some(outcome) => maker.add_game(&game.moves, outcome),
            None => skipped.no_result += 1,
        }
    }
    Ok(skipped)
}

/// The book is keyed from the standard start position: games set up otherwise are left out.
fn from_standard_start(game: &PgnGame) -> bool {
    game.tag("FEN").is_none_or(str::is_empty)
        && game
            .tag("Variant")
            .is_none_or(|v| v.eq_ignore_ascii_case("standard"))
}

fn build(pgn: &str, out: &str, options: MakerOptions) -> Result<()> {
    let mut maker = BookMaker::new(options);
    let input = crate::input::open_counted(pgn)?;
    let mut reading = Reading::new("book", "games", &[pgn]);
    reading.file(&input);
    let skipped = add_games(&mut maker, input.reader, Some(&mut reading))?;
    reading.clear();
    let entries = maker.entries();
    let bytes = write_entries(&entries);
    let keys = entries.windows(2).filter(|w| w[0].key != w[1].key).count() + 1;
    std::fs::write(out, &bytes).with_context(|| format!("writing {out}"))?;
    eprintln!(
        "{} games of {pgn} ({} unreadable, {} without a result, {} from a set-up position left out), \
         max ply {}, min games {}, min share {}%: {} entries for {keys} positions, {} bytes -> {out}",
        maker.games(),
        skipped.unreadable,
        skipped.no_result,
        skipped.set_up,
        options.max_ply,
        options.min_games,
        options.min_share_percent,
        entries.len(),
        bytes.len()
    );
    Ok(())
}

fn probe(path: &str) -> Result<()> {
    let book = Book::open(path)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in std::io::stdin().lock().lines() {
        let line = line.context("reading stdin")?;
        let fen = line.trim();
        if fen.is_empty() {
            continue;
        }
        let Ok(pos) = Position::from_fen(fen) else {
            writeln!(out, "{fen}\tERROR")?;
            continue;
        };
        let moves: Vec<String> = book
            .entries(&pos)
            .iter()
            .map(|e| format!("{}:{}", pos.move_to_uci(e.mv, false), e.weight))
            .collect();
        writeln!(out, "{fen}\t{}", moves.join(" "))?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use brudno::chess::Outcome;

    #[test]
    fn games_from_pgn_weigh_as_their_moves() {
        let pgn = "[Result \"1-0\"]\n1. e4 e5 2. Nf3 1-0\n\n[Result \"0-1\"]\n1. e4 c5 0-1\n\n\
            [Result \"*\"]\n1. d4 *\n\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[Result \"1-0\"]\n1. e4 1-0\n\n\
            [Result \"1-0\"]\n1. e4 Ke7 2. Ke3 1-0\n";
        let options = MakerOptions {
            max_ply: 8,
            min_games: 1,
            min_share_percent: 0,
        };
        let mut from_pgn = BookMaker::new(options);
        let skipped = add_games(&mut from_pgn, pgn.as_bytes(), None).unwrap();
        assert_eq!(
            skipped,
            Skipped {
                unreadable: 1,
                no_result: 1,
                set_up: 1
            }
        );
        let mut by_hand = BookMaker::new(options);
        for (moves, result) in [
            ("e2e4 e7e5 g1f3", Outcome::WhiteWins),
            ("e2e4 c7c5", Outcome::BlackWins),
        ] {
            let mut pos = Position::startpos();
            let moves: Vec<_> = moves
                .split(' ')
                .map(|u| {
                    let m = pos.parse_uci_move(u).unwrap();
                    pos.play(m);
                    m
                })
                .collect();
            by_hand.add_game(&moves, result);
        }
        assert_eq!(from_pgn.games(), 2);
        assert_eq!(from_pgn.to_bytes(), by_hand.to_bytes());
    }

    fn parse(line: &str) -> cli::Result<Parsed<BookCommand>> {
        parse_args(&cli::words(line))
    }

    #[test]
    fn the_command_line() {
        assert_eq!(
            parse("build --pgn g.pgn --out b.bin --max-ply 20 --min-share=0"),
            Ok(Parsed::Run(BookCommand::Build {
                pgn: "g.pgn".into(),
                out: "b.bin".into(),
                options: MakerOptions {
                    max_ply: 20,
                    min_share_percent: 0,
                    ..MakerOptions::default()
                }
            }))
        );
        assert_eq!(
            parse("probe b.bin"),
            Ok(Parsed::Run(BookCommand::Probe {
                book: "b.bin".into()
            }))
        );
        for line in [
            "--help",
            "-h",
            "build --help",
            "build --pgn g -h",
            "probe -h",
        ] {
            assert_eq!(parse(line), Ok(Parsed::Help), "{line}");
        }
        for (line, says) in [
            ("", "expected build or probe"),
            ("make", "expected build or probe, not \"make\""),
            ("build --out b", "--pgn is required"),
            ("build --pgn g", "--out is required"),
            (
                "build --pgn g --out b --max-ply x",
                "--max-ply x: not a whole number",
            ),
            (
                "build --pgn g --out b --min-share 101",
                "--min-share 101: out of range",
            ),
            ("build --pgn g --out b --depth 3", "unknown option --depth"),
            ("probe", "probe needs the book file"),
            ("probe a b", "probe takes one book"),
        ] {
            let e = parse(line).expect_err(line).0;
            assert!(e.contains(says), "{line}: {e}");
        }
        // The help gives the defaults the maker has.
        let d = MakerOptions::default();
        let h = usage();
        assert!(
            h.contains(&format!(
                "--max-ply N           only the first N plies of each game [{}]",
                d.max_ply
            )),
            "{h}"
        );
        assert!(
            h.contains(&format!("[{}]", d.min_games))
                && h.contains(&format!("[{}]", d.min_share_percent))
        );
    }
}
