//! FEN fuzzing: random text, random boards and mutated valid FENs must never make the reader
//! panic, and every FEN it accepts must give a sound position: its own FEN reads back to the
//! same position, the incremental key equals the computed one, and move generation and a
//! depth-2 perft run (and agree with shakmaty whenever shakmaty accepts the position too).

mod common;

use brudno::chess::{perft, Position};
use common::{parse_perft_epd, Rng, FRC_PERFT_EPD, PERFT_EPD};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position as _};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a batch of inputs came to.
#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    accepted: usize,
    compared: usize,
}

/// Feeds one input to the reader and checks what comes out; panics naming the input.
fn check(text: &str, tally: &mut Tally) {
    tally.cases += 1;
    let outcome = catch_unwind(AssertUnwindSafe(|| check_inner(text)));
    match outcome {
        Ok(Some(compared)) => {
            tally.accepted += 1;
            tally.compared += compared as usize;
        }
        Ok(None) => {}
        Err(_) => panic!("panic on FEN input {text:?}"),
    }
}

/// `None` if rejected; else whether shakmaty also read it (and so was compared).
fn check_inner(text: &str) -> Option<bool> {
    let p = match Position::from_fen(text) {
        Ok(p) => p,
        Err(e) => {
            // The message must be printable too.
            assert!(!e.to_string().is_empty());
            return None;
        }
    };
    let fen = p.to_fen();
    let again = Position::from_fen(&fen)
        .unwrap_or_else(|e| panic!("{text:?} read as {fen}, which is rejected: {e}"));
    assert_eq!(again, p, "{text:?} does not round-trip through {fen}");
    assert_eq!(again.to_fen(), fen);
    assert_eq!(p.key(), p.compute_key(), "{text:?}: key");
    let moves = p.legal_moves();
    let nodes = perft::perft(&p, 2);
    if moves.is_empty() {
        assert_eq!(nodes, 0);
    }
    for &m in moves.iter() {
        let child = p.after(m);
        assert_eq!(child.key(), child.compute_key(), "{text:?} after {m:?}");
    }
    Some(compare_with_shakmaty(&p, &fen))
}

/// If shakmaty accepts our FEN as a legal Chess960 position (which covers standard chess), its
/// legal moves must be ours. Returns whether the comparison was made.
fn compare_with_shakmaty(p: &Position, fen: &str) -> bool {
    let Ok(parsed) = fen.parse::<Fen>() else {
        return false;
    };
    let Ok(theirs) = parsed.into_position::<Chess>(CastlingMode::Chess960) else {
        return false;
    };
    let mut ours: Vec<String> = p
        .legal_moves()
        .iter()
        .map(|&m| p.move_to_uci(m, true))
        .collect();
    let mut reference: Vec<String> = theirs
        .legal_moves()
        .iter()
        .map(|m| UciMove::from_move(m, CastlingMode::Chess960).to_string())
        .collect();
    ours.sort();
    reference.sort();
    assert_eq!(
        ours, reference,
        "legal moves differ from shakmaty's in {fen}"
    );
    true
}

/// The FENs of both suites, the seeds for mutation.
fn seed_fens() -> Vec<String> {
    parse_perft_epd(PERFT_EPD)
        .into_iter()
        .chain(parse_perft_epd(FRC_PERFT_EPD).into_iter().step_by(10))
        .map(|c| c.fen)
        .collect()
}

const FEN_CHARS: &[u8] = b"pnbrqkPNBRQK12345678/ wb-KQkqabcdefghABCDEFGH0123456789";

fn random_char(rng: &mut Rng) -> char {
    match rng.below(20) {
        0 => char::from_u32(rng.below(0x800) as u32).unwrap_or('\u{fffd}'),
        1 => ['é', '\u{0}', '\t', '\n', '８', '\u{200b}'][rng.below(6)],
        2 => (rng.below(95) as u8 + b' ') as char,
        _ => FEN_CHARS[rng.below(FEN_CHARS.len())] as char,
    }
}

#[test]
fn random_text_never_panics() {
    let mut rng = Rng::new(1);
    let mut tally = Tally::default();
    for _ in 0..30_000 {
        let len = rng.below(90);
        let text: String = (0..len).map(|_| random_char(&mut rng)).collect();
        check(&text, &mut tally);
    }
    eprintln!("{tally:?}");
}

/// Boards built rank by rank from random pieces and gaps, with random other fields: mostly
/// well-formed, so many are accepted and exercise the position checks.
fn random_fen(rng: &mut Rng) -> String {
    let mut ranks = Vec::new();
    for r in 0..8 {
        // Pawns stay off the back ranks but for the odd one (which the reader must reject).
        let pieces: &[u8] = if (r == 0 || r == 7) && !rng.chance(1, 50) {
            b"NBRQnbrq"
        } else {
            b"PNBRQpnbrqPPpp"
        };
        let mut rank = String::new();
        let mut file = 0;
        while file < 8 {
            if rng.chance(2, 3) {
                let gap = 1 + rng.below(8 - file);
                rank.push((b'0' + gap as u8) as char);
                file += gap;
            } else {
                rank.push(pieces[rng.below(pieces.len())] as char);
                file += 1;
            }
        }
        ranks.push(rank);
    }
    // Usually exactly one king each, placed over whatever was there.
    let mut board: Vec<Vec<char>> = ranks.iter().map(|r| expand(r)).collect();
    for king in ['K', 'k'] {
        let copies = if rng.chance(1, 20) { rng.below(3) } else { 1 };
        for _ in 0..copies {
            board[rng.below(8)][rng.below(8)] = king;
        }
    }
    let placement = board
        .iter()
        .map(|r| compress(r))
        .collect::<Vec<_>>()
        .join("/");
    let side = ["w", "b"][rng.below(2)];
    let castling: String = {
        let pool = b"KQkqABCDEFGHabcdefgh";
        let n = if rng.chance(1, 2) {
            0
        } else {
            1 + rng.below(4)
        };
        let s: String = (0..n)
            .map(|_| pool[rng.below(pool.len())] as char)
            .collect();
        if s.is_empty() {
            "-".into()
        } else {
            s
        }
    };
    let ep = if rng.chance(1, 6) {
        format!(
            "{}{}",
            (b'a' + rng.below(8) as u8) as char,
            ["3", "6", "4"][rng.below(3)]
        )
    } else {
        "-".into()
    };
    let clocks = [
        "0 1",
        "5 20",
        "99 100",
        "65535 65535",
        "100 0",
        "0 65535",
        "65535 1",
    ];
    format!(
        "{placement} {side} {castling} {ep} {}",
        clocks[rng.below(clocks.len())]
    )
}

fn expand(rank: &str) -> Vec<char> {
    let mut v = Vec::new();
    for c in rank.chars() {
        match c.to_digit(10) {
            Some(d) => v.extend(std::iter::repeat_n('.', d as usize)),
            None => v.push(c),
        }
    }
    v
}

fn compress(squares: &[char]) -> String {
    let mut s = String::new();
    let mut gap = 0;
    for &c in squares {
        if c == '.' {
            gap += 1;
        } else {
            if gap > 0 {
                s.push((b'0' + gap) as char);
                gap = 0;
            }
            s.push(c);
        }
    }
    if gap > 0 {
        s.push((b'0' + gap) as char);
    }
    s
}

#[test]
fn random_boards_never_panic() {
    let mut rng = Rng::new(2);
    let mut tally = Tally::default();
    for _ in 0..30_000 {
        let fen = random_fen(&mut rng);
        check(&fen, &mut tally);
    }
    eprintln!("{tally:?}");
    assert!(tally.accepted > 1_000, "{tally:?}");
    assert!(tally.compared > 500, "{tally:?}");
}

/// One random edit of a FEN: a character replaced, inserted or deleted, fields shuffled,
/// dropped or duplicated, ranks swapped or a piece moved.
fn mutate(fen: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = fen.chars().collect();
    let mut fields: Vec<String> = fen.split(' ').map(String::from).collect();
    match rng.below(9) {
        0 if !chars.is_empty() => {
            let i = rng.below(chars.len());
            chars[i] = random_char(rng);
        }
        1 => {
            let i = rng.below(chars.len() + 1);
            chars.insert(i, random_char(rng));
        }
        2 if !chars.is_empty() => {
            let i = rng.below(chars.len());
            chars.remove(i);
        }
        3 => {
            let (i, j) = (rng.below(fields.len()), rng.below(fields.len()));
            fields.swap(i, j);
            return fields.join(" ");
        }
        4 => {
            let i = rng.below(fields.len());
            fields.remove(i);
            return fields.join(" ");
        }
        5 => {
            let i = rng.below(fields.len());
            let f = fields[i].clone();
            fields.insert(rng.below(fields.len() + 1), f);
            return fields.join(" ");
        }
        6 => {
            let mut ranks: Vec<&str> = fields[0].split('/').collect();
            let (i, j) = (rng.below(ranks.len()), rng.below(ranks.len()));
            ranks.swap(i, j);
            fields[0] = ranks.join("/");
            return fields.join(" ");
        }
        7 => {
            // Move a piece (or a gap) to another square of the board.
            let mut board: Vec<Vec<char>> = fields[0].split('/').map(expand).collect();
            if board.len() == 8 && board.iter().all(|r| r.len() == 8) {
                let (a, b) = ((rng.below(8), rng.below(8)), (rng.below(8), rng.below(8)));
                board[b.0][b.1] = board[a.0][a.1];
                board[a.0][a.1] = '.';
                fields[0] = board
                    .iter()
                    .map(|r| compress(r))
                    .collect::<Vec<_>>()
                    .join("/");
            }
            return fields.join(" ");
        }
        _ => {
            // Replace a whole field with something plausible for another field.
            let i = rng.below(fields.len());
            fields[i] = ["w", "b", "-", "KQkq", "HAha", "e3", "e6", "0", "1", "x", ""]
                [rng.below(11)]
            .to_string();
            return fields.join(" ");
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_fens_never_panic() {
    let seeds = seed_fens();
    let mut rng = Rng::new(3);
    let mut tally = Tally::default();
    for i in 0..40_000 {
        let mut fen = seeds[i % seeds.len()].clone();
        for _ in 0..1 + rng.below(3) {
            fen = mutate(&fen, &mut rng);
        }
        check(&fen, &mut tally);
    }
    eprintln!("{tally:?}");
    assert!(tally.accepted > 5_000, "{tally:?}");
}

/// FENs of positions reached in play, mutated: en-passant squares, moved kings and clocks.
#[test]
fn mutated_game_positions_never_panic() {
    let mut rng = Rng::new(4);
    let mut tally = Tally::default();
    for seed in seed_fens().iter().take(40) {
        let mut p = Position::from_fen(seed).unwrap();
        for _ in 0..60 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play(moves[rng.below(moves.len())]);
            let fen = p.to_fen();
            for _ in 0..4 {
                check(&mutate(&fen, &mut rng), &mut tally);
            }
        }
    }
    eprintln!("{tally:?}");
    assert!(tally.cases > 5_000, "{tally:?}");
}
