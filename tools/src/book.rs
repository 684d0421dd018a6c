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

use crate::pgn::{PgnError, PgnGame, PgnReader};
use anyhow::{bail, Context, Result};
use brudno::book::maker::{write_entries, BookMaker, MakerOptions};
use brudno::book::Book;
use brudno::chess::Position;
use std::io::{BufRead, Write};

pub const USAGE: &str = "\
usage: brudno-tools book build --pgn FILE[.gz] [--max-ply N] [--min-games K] [--min-share PERCENT] --out FILE
       brudno-tools book probe BOOK < fens
  build  a Polyglot book from the games' first N plies (defaults: --max-ply 32 --min-games 3
         --min-share 5, what src/book/default.bin is made with); games from a set-up position
         (a FEN tag), of another variant or without a result are left out
  probe  for each FEN line of stdin: FEN<TAB>move:weight ... as Brudno's book reader finds them";

/// `brudno-tools book …`.
pub fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("build") => build(&args[1..]),
        Some("probe") if args.len() == 2 => probe(&args[1]),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => bail!("{USAGE}"),
    }
}

/// Why games were not used.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub unreadable: usize,
    pub no_result: usize,
    pub set_up: usize,
}

/// Feeds the games of a PGN text to the maker; returns what was left out.
pub fn add_games(maker: &mut BookMaker, input: impl BufRead) -> Result<Skipped> {
    let mut skipped = Skipped::default();
    for game in PgnReader::new(input) {
        let game = match game {
            Ok(game) => game,
            Err(PgnError::Io(e)) => return Err(e).context("reading the games"),
            Err(e) => {
                skipped.unreadable += 1;
                if skipped.unreadable <= 5 {
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

fn build(args: &[String]) -> Result<()> {
    let mut options = MakerOptions::default();
    let (mut pgn, mut out) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .with_context(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--pgn" => pgn = Some(value()?),
            "--out" => out = Some(value()?),
            "--max-ply" => options.max_ply = value()?.parse().context("--max-ply N")?,
            "--min-games" => options.min_games = value()?.parse().context("--min-games K")?,
            "--min-share" => {
                options.min_share_percent = value()?.parse().context("--min-share PERCENT")?
            }
            other => bail!("unknown option '{other}'\n{USAGE}"),
        }
    }
    let (Some(pgn), Some(out)) = (pgn, out) else {
        bail!("--pgn and --out are needed\n{USAGE}");
    };
    let mut maker = BookMaker::new(options);
    let skipped = add_games(&mut maker, crate::input::open(&pgn)?)?;
    let entries = maker.entries();
    let bytes = write_entries(&entries);
    let keys = entries.windows(2).filter(|w| w[0].key != w[1].key).count() + 1;
    std::fs::write(&out, &bytes).with_context(|| format!("writing {out}"))?;
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
        let skipped = add_games(&mut from_pgn, pgn.as_bytes()).unwrap();
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
}
