//! Brudno mates a lone king (KQK, KRK, KBNK) against Stockfish's defence from random positions,
//! within the 50-move rule. Needs Stockfish (`STOCKFISH`, default `/usr/games/stockfish`), so it
//! is ignored by default:
//!
//! ```text
//! cargo test --release --test endgame_play -- --ignored --nocapture
//! ```
//! Brudno searches a fixed number of nodes per move (`BRUDNO_NODES`, default 300,000), Stockfish
//! 20,000 (single thread), so runs repeat exactly; `BRUDNO_GAMES` games per ending (default 6). `mates_with_tables` plays Brudno from Syzygy
//! tables alone (the DTZ-optimal move at every turn): the folder is `BRUDNO_SYZYGY` or
//! `tests/data/syzygy`; endings without a DTZ table there are skipped.

use brudno::chess::{Color, Move, PieceType, Position};
use brudno::search::{Limits, SearchControl, SearchOptions, Searcher};
use brudno::tablebase::Tablebases;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Stockfish {
    fn start() -> Option<Stockfish> {
        let path = std::env::var("STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        let mut sf = Stockfish {
            child,
            stdin,
            stdout,
        };
        sf.send("uci");
        sf.wait_for("uciok");
        sf.send("setoption name Threads value 1");
        sf.send("setoption name Hash value 16");
        sf.send("isready");
        sf.wait_for("readyok");
        Some(sf)
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn wait_for(&mut self, prefix: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "Stockfish quit"
            );
            if line.starts_with(prefix) {
                return line.trim().to_string();
            }
        }
    }

    fn best_move(&mut self, fen: &str, moves: &[String]) -> String {
        self.send("ucinewgame");
        self.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        self.send("go nodes 20000");
        let line = self.wait_for("bestmove");
        line.split_whitespace().nth(1).unwrap().to_string()
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

/// A random position with the strong side to move: its king and `pieces`, against a lone king.
fn random_position(seed: &mut u64, strong: Color, pieces: &[PieceType]) -> Position {
    let mut next = |n: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % n
    };
    loop {
        let mut board = ['.'; 64];
        let mut put = |c: char, board: &mut [char; 64]| loop {
            let s = next(64) as usize;
            if board[s] == '.' {
                board[s] = c;
                return s;
            }
        };
        let sk = put('K', &mut board);
        let wk = put('k', &mut board);
        let mut own = vec![sk];
        for p in pieces {
            own.push(put(p_letter(*p), &mut board));
        }
        // No strong piece next to the lone king, so the position is a clean win.
        let near = |a: usize, b: usize| {
            let (fa, ra, fb, rb) = (a % 8, a / 8, b % 8, b / 8);
            fa.abs_diff(fb) <= 1 && ra.abs_diff(rb) <= 1
        };
        if own.iter().any(|&s| near(s, wk)) {
            continue;
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            for file in 0..8 {
                let c = board[rank * 8 + file];
                fen.push(if c == '.' { '1' } else { c });
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        // Strong side as white; flip to black half the time.
        let fen = format!("{fen} w - - 0 1");
        let Ok(pos) = Position::from_fen(&fen) else {
            continue;
        };
        if pos.legal_moves().is_empty() {
            continue;
        }
        if strong == Color::White {
            return pos;
        }
        if let Ok(flipped) = Position::from_fen(&mirror_fen(&fen)) {
            return flipped;
        }
    }
}

fn p_letter(p: PieceType) -> char {
    p.letter().to_ascii_uppercase()
}

/// The same position with colours swapped and the board turned over.
fn mirror_fen(fen: &str) -> String {
    let mut parts = fen.split(' ');
    let board = parts.next().unwrap();
    let ranks: Vec<String> = board
        .split('/')
        .rev()
        .map(|r| {
            r.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    let side = if parts.next() == Some("w") { "b" } else { "w" };
    format!("{} {side} - - 0 1", ranks.join("/"))
}

enum Player<'a> {
    Search(Box<Searcher>, u64),
    Tables(&'a Tablebases),
}

impl Player<'_> {
    fn choose(&mut self, pos: &Position, history: &[u64]) -> Move {
        match self {
            Player::Search(searcher, nodes) => {
                let limits = Limits {
                    nodes: Some(*nodes),
                    ..Default::default()
                };
                let control = SearchControl::new();
                let result = searcher.search(
                    pos,
                    history,
                    &limits,
                    &SearchOptions::default(),
                    &control,
                    &mut |_| {},
                );
                result.best.expect("a legal move")
            }
            Player::Tables(tb) => tb
                .probe_root(pos, history, true)
                .and_then(|r| r.dtz_best)
                .expect("a table move"),
        }
    }
}

/// Plays one game; returns the strong side's moves to mate, or an error.
fn play(sf: &mut Stockfish, player: &mut Player, start: &Position) -> Result<u32, String> {
    let fen = start.to_fen();
    let strong = start.side_to_move();
    let mut pos = *start;
    let mut history: Vec<u64> = Vec::new();
    let mut uci: Vec<String> = Vec::new();
    let mut strong_moves = 0;
    loop {
        if pos.legal_moves().is_empty() {
            return if pos.in_check() && pos.side_to_move() != strong {
                Ok(strong_moves)
            } else {
                Err(format!(
                    "stalemate or mated the wrong side after {}",
                    uci.join(" ")
                ))
            };
        }
        if pos.halfmove_clock() >= 100 {
            return Err(format!("50-move rule: {fen} moves {}", uci.join(" ")));
        }
        if history.iter().filter(|&&k| k == pos.key()).count() >= 2 {
            return Err(format!(
                "threefold repetition: {fen} moves {}",
                uci.join(" ")
            ));
        }
        let m = if pos.side_to_move() == strong {
            strong_moves += 1;
            player.choose(&pos, &history)
        } else {
            let text = sf.best_move(&fen, &uci);
            pos.parse_uci_move(&text)
                .ok_or_else(|| format!("Stockfish's move {text} is illegal"))?
        };
        if pos.side_to_move() != strong && pos.is_capture(m) {
            return Err(format!("lost a piece: {fen} moves {} {m:?}", uci.join(" ")));
        }
        uci.push(pos.move_to_uci(m, false));
        history.push(pos.key());
        pos.play(m);
    }
}

const ENDINGS: [(&str, &[PieceType]); 3] = [
    ("KQK", &[PieceType::Queen]),
    ("KRK", &[PieceType::Rook]),
    ("KBNK", &[PieceType::Bishop, PieceType::Knight]),
];
/// Games per ending (`BRUDNO_GAMES`, default 6), half with each colour.
fn games() -> u64 {
    std::env::var("BRUDNO_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6)
}

fn run(mut make_player: impl FnMut(&str) -> Option<Player<'static>>, label: &str) {
    let Some(mut sf) = Stockfish::start() else {
        eprintln!("Stockfish not found (set STOCKFISH): skipped");
        return;
    };
    let mut failures = Vec::new();
    for (name, pieces) in ENDINGS {
        let Some(mut player) = make_player(name) else {
            eprintln!("{label} {name}: skipped (no table)");
            continue;
        };
        let mut seed = 0x2545_F491_4F6C_DD1D ^ (name.len() as u64 * 7919);
        let mut counts = Vec::new();
        for g in 0..games() {
            let strong = if g % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let start = random_position(&mut seed, strong, pieces);
            match play(&mut sf, &mut player, &start) {
                Ok(n) => counts.push(n),
                Err(e) => failures.push(format!("{name} from {}: {e}", start.to_fen())),
            }
        }
        let avg = counts.iter().sum::<u32>() as f64 / counts.len().max(1) as f64;
        eprintln!(
            "{label} {name}: mated in {counts:?} moves (average {avg:.1}, worst {})",
            counts.iter().max().unwrap_or(&0)
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
#[ignore = "needs Stockfish; cargo test --release --test endgame_play -- --ignored --nocapture"]
fn mates_against_stockfish() {
    let nodes = std::env::var("BRUDNO_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300_000);
    run(
        |_| Some(Player::Search(Box::new(Searcher::new(16)), nodes)),
        "search",
    );
}

#[test]
#[ignore = "needs Stockfish; cargo test --release --test endgame_play -- --ignored --nocapture"]
fn mates_with_tables() {
    let path = std::env::var("BRUDNO_SYZYGY")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy").into());
    let tb: &'static Tablebases = Box::leak(Box::new(Tablebases::open(&path).unwrap()));
    run(
        |name| {
            let fen = match name {
                "KQK" => "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
                "KRK" => "8/8/8/4k3/8/8/8/3RK3 w - - 0 1",
                _ => "8/8/8/4k3/8/8/8/2BNK3 w - - 0 1",
            };
            let probe = Position::from_fen(fen).unwrap();
            tb.probe_root(&probe, &[], true).map(|_| Player::Tables(tb))
        },
        "tables",
    );
}

#[test]
fn random_positions_are_legal_wins_to_play() {
    let mut seed = 99;
    for (_, pieces) in ENDINGS {
        for strong in [Color::White, Color::Black] {
            let pos = random_position(&mut seed, strong, pieces);
            assert_eq!(pos.side_to_move(), strong);
            assert_eq!(pos.pieces(strong.flip()).count(), 1);
            assert_eq!(pos.pieces(strong).count() as usize, pieces.len() + 1);
        }
    }
}
