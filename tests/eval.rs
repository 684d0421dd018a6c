//! The evaluation's invariants on thousands of positions: colour symmetry, the pawn-cached
//! evaluator agreeing with the free function, the `eval` trace agreeing with both, and drawn
//! endings scaled towards zero.

use brudno::chess::{Color, Position};
use brudno::eval::hce::explain::explain as trace;
use brudno::eval::{evaluate, Evaluator};

const PERFT_EPD: &str = include_str!("data/perft.epd");
const FRC_PERFT_EPD: &str = include_str!("data/frc-perft.epd");
const TEXEL_SAMPLE: &str = include_str!("data/texel-sample.epd");

/// The first four FEN fields of each line (the rest is counts or results).
fn fens(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let fen = l.split(';').next().unwrap_or(l);
            fen.split_ascii_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn swap_case(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect()
}

/// The position with the board turned upside down and the colours swapped: the same position
/// for the other side.
fn mirror(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let f: Vec<&str> = fen.split_ascii_whitespace().collect();
    let board = f[0]
        .split('/')
        .rev()
        .map(swap_case)
        .collect::<Vec<_>>()
        .join("/");
    let side = if f[1] == "w" { "b" } else { "w" };
    let castling = if f[2] == "-" {
        "-".to_string()
    } else {
        let mut c: Vec<char> = swap_case(f[2]).chars().collect();
        c.sort_by_key(|ch| ch.is_ascii_lowercase());
        c.into_iter().collect()
    };
    let ep = if f[3] == "-" {
        "-".to_string()
    } else {
        let b = f[3].as_bytes();
        format!("{}{}", b[0] as char, (b'1' + b'8' - b[1]) as char)
    };
    let text = format!("{board} {side} {castling} {ep} {} {}", f[4], f[5]);
    Position::from_fen(&text).unwrap_or_else(|e| panic!("mirror of {fen} is {text}: {e}"))
}

fn white_view(pos: &Position, value: i32) -> i32 {
    match pos.side_to_move() {
        Color::White => value,
        Color::Black => -value,
    }
}

/// Deterministic random playouts from each start, keeping every position on the way.
fn playouts(starts: &[Position], per_start: usize, plies: usize) -> Vec<Position> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut out = Vec::new();
    for start in starts {
        for _ in 0..per_start {
            let mut pos = *start;
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves.as_slice()[(next() % moves.len() as u64) as usize];
                pos = pos.after(m);
                out.push(pos);
            }
        }
    }
    out
}

fn all_positions() -> Vec<Position> {
    let mut v: Vec<Position> = fens(PERFT_EPD)
        .iter()
        .chain(fens(FRC_PERFT_EPD).iter())
        .chain(fens(TEXEL_SAMPLE).iter())
        .map(|f| Position::from_fen(f).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect();
    let starts: Vec<Position> = fens(PERFT_EPD)
        .iter()
        .map(|f| Position::from_fen(f).unwrap())
        .collect();
    v.extend(playouts(&starts, 4, 60));
    v
}

#[test]
fn colour_flipped_positions_evaluate_to_opposite_values() {
    let positions = all_positions();
    assert!(positions.len() > 10_000, "{} positions", positions.len());
    let mut failures = Vec::new();
    for pos in &positions {
        let m = mirror(pos);
        let (a, b) = (white_view(pos, evaluate(pos)), white_view(&m, evaluate(&m)));
        if a != -b {
            failures.push(format!(
                "{} -> {a}, mirrored {} -> {b}",
                pos.to_fen(),
                m.to_fen()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} asymmetric, e.g.\n{}",
        failures.len(),
        positions.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn pawn_cached_evaluator_agrees_with_the_free_function() {
    let positions = all_positions();
    let mut ev = Evaluator::new();
    // Twice, so the second pass reads the table.
    for _ in 0..2 {
        for pos in &positions {
            assert_eq!(ev.evaluate(pos, 0), evaluate(pos), "{}", pos.to_fen());
        }
    }
}

#[test]
fn trace_ends_with_the_evaluation() {
    for pos in all_positions().iter().step_by(7) {
        let text = trace(pos);
        let last = text.lines().last().unwrap();
        let value: i32 = last
            .strip_prefix("Final evaluation: ")
            .and_then(|s| s.strip_suffix(" cp (white side)"))
            .unwrap_or_else(|| panic!("last line: {last}"))
            .parse()
            .unwrap();
        assert_eq!(
            value,
            white_view(pos, evaluate(pos)),
            "{}\n{text}",
            pos.to_fen()
        );
    }
}

#[test]
fn trace_shows_every_term() {
    let text = trace(&Position::startpos());
    for term in [
        "Material",
        "Piece squares",
        "Mobility",
        "Pawn structure",
        "Passed pawns",
        "King safety",
        "Pieces",
        "Threats",
        "Tempo",
        "Total",
    ] {
        assert!(text.contains(term), "{term} missing:\n{text}");
    }
}

fn eval_fen(fen: &str) -> i32 {
    let pos = Position::from_fen(fen).unwrap();
    white_view(&pos, evaluate(&pos))
}

#[test]
fn drawn_endings_scale_towards_zero() {
    for (fen, what) in [
        ("8/8/4k3/8/8/3NK3/8/8 w - - 0 1", "KNK"),
        ("8/8/4k3/8/8/3BK3/8/8 b - - 0 1", "KBK"),
        ("8/8/4k3/8/8/2NNK3/8/8 w - - 0 1", "KNNK"),
        (
            "k7/8/8/8/8/4B3/P7/K7 w - - 0 1",
            "KBPK with the wrong bishop",
        ),
    ] {
        let e = eval_fen(fen);
        assert!(e.abs() <= 30, "{what}: {e}");
    }
    for (fen, what) in [
        ("8/8/4k3/3b4/8/3RK3/8/8 w - - 0 1", "KRKB"),
        ("8/8/4k3/3n4/8/3RK3/8/8 w - - 0 1", "KRKN"),
        ("8/8/3rk3/8/8/2NRK3/8/8 w - - 0 1", "KRNKR"),
    ] {
        let e = eval_fen(fen);
        assert!(e.abs() <= 100, "{what}: {e}");
    }
    // A pawn up with opposite-coloured bishops counts for less than with same-coloured ones.
    let ocb = eval_fen("8/4k2p/3b4/8/8/3BK3/PPP5/8 w - - 0 1");
    let same = eval_fen("8/4k2p/4b3/8/8/3BK3/PPP5/8 w - - 0 1");
    assert!(ocb > 0 && ocb < same, "OCB {ocb}, same colour {same}");
    // Still winning material without scaling: queen against rook, two bishops.
    assert!(eval_fen("8/4k3/3r4/8/8/3QK3/8/8 w - - 0 1") > 200);
    assert!(eval_fen("8/4k3/8/8/8/2BBK3/8/8 w - - 0 1") > 200);
}

#[test]
fn obvious_judgements() {
    let start = evaluate(&Position::startpos());
    assert!((0..=40).contains(&start), "start position {start}");
    // A queen up is a lot; a pawn up is something.
    assert!(eval_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") > 600);
    assert!(eval_fen("rnbqkbnr/ppp1pppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") > 30);
    // An advanced passed pawn supported by its king beats a blocked one.
    let runner = eval_fen("8/3P4/3K4/8/8/8/5k2/8 w - - 0 1");
    let blocked = eval_fen("3k4/8/3K4/3P4/8/8/8/8 w - - 0 1");
    assert!(runner > blocked, "runner {runner}, blocked {blocked}");
}
