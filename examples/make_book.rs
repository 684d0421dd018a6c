//! The book tool behind `scripts/make-book` (see `src/book/README.md`).
//!
//! ```text
//! make_book build [--max-ply N] [--min-games K] [--min-share PERCENT] --out FILE   < games (one per line: "1-0 e2e4 e7e5 ...")
//! make_book probe BOOK                                        < FENs (one per line)
//! ```
//! `build` writes a Polyglot book and prints statistics to stderr. `probe` prints, for each FEN,
//! the line `FEN<TAB>move:weight move:weight ...` with the moves Brudno's reader finds (castling
//! as `e1g1`), in file order; the book tests compare that with python-chess.

use brudno::book::maker::{BookMaker, MakerOptions};
use brudno::book::Book;
use brudno::chess::Position;
use std::io::{BufRead, Write};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: make_book build [--max-ply N] [--min-games K] [--min-share PERCENT] --out FILE < games");
    eprintln!("       make_book probe BOOK < fens");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("build") => build(&args[1..]),
        Some("probe") if args.len() == 2 => probe(&args[1]),
        _ => usage(),
    }
}

fn build(args: &[String]) -> ExitCode {
    let mut options = MakerOptions::default();
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = it.next();
        match (a.as_str(), value) {
            ("--max-ply", Some(v)) => options.max_ply = v.parse().expect("--max-ply N"),
            ("--min-games", Some(v)) => options.min_games = v.parse().expect("--min-games K"),
            ("--min-share", Some(v)) => {
                options.min_share_percent = v.parse().expect("--min-share PERCENT")
            }
            ("--out", Some(v)) => out = Some(v.clone()),
            _ => return usage(),
        }
    }
    let Some(out) = out else { return usage() };
    let mut maker = BookMaker::new(options);
    let mut bad = 0;
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.expect("reading stdin");
        if let Err(e) = maker.add_game_line(&line) {
            bad += 1;
            eprintln!("line {}: {e}", n + 1);
        }
    }
    let entries = maker.entries();
    let bytes = brudno::book::maker::write_entries(&entries);
    let keys = entries.windows(2).filter(|w| w[0].key != w[1].key).count() + 1;
    std::fs::write(&out, &bytes).expect("writing the book");
    eprintln!(
        "{} games ({bad} with errors), max ply {}, min games {}, min share {}%: {} entries for {keys} positions, {} bytes -> {out}",
        maker.games(),
        options.max_ply,
        options.min_games,
        options.min_share_percent,
        entries.len(),
        bytes.len()
    );
    ExitCode::SUCCESS
}

fn probe(path: &str) -> ExitCode {
    let book = match Book::open(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let fen = line.expect("reading stdin");
        let fen = fen.trim();
        if fen.is_empty() {
            continue;
        }
        let Ok(pos) = Position::from_fen(fen) else {
            writeln!(out, "{fen}\tERROR").unwrap();
            continue;
        };
        let moves: Vec<String> = book
            .entries(&pos)
            .iter()
            .map(|e| format!("{}:{}", pos.move_to_uci(e.mv, false), e.weight))
            .collect();
        writeln!(out, "{fen}\t{}", moves.join(" ")).unwrap();
    }
    ExitCode::SUCCESS
}
