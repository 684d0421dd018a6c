//! Differential tests against shakmaty, an independent move generator: along random games from
//! every suite position, both must agree on the legal moves (as UCI text), the FEN, the checkers
//! and the Polyglot key, and our FEN must read back to the same position.
//!
//! Polyglot hashes the en-passant file only when a pawn of the side to move stands ready to
//! capture, whether or not the capture is legal: shakmaty's `EnPassantMode::PseudoLegal`. Our
//! FEN writes the en-passant square by the same rule.

mod common;

use brudno::chess::{perft, Move, MoveKind, PieceType, Position};
use common::{par_map, parse_perft_epd, Rng, FRC_PERFT_EPD, PERFT_EPD};
use shakmaty::{
    fen::Fen,
    uci::UciMove,
    zobrist::{Zobrist64, ZobristHash},
    CastlingMode, Chess, EnPassantMode, Position as _,
};

/// Random games per standard suite position, and their length limit in plies.
const GAMES_PER_STANDARD: usize = 6;
const MAX_PLIES: usize = 160;
/// Chess960: one game per suite position.
const MAX_PLIES_960: usize = 100;
/// Every this-many-th position visited also gets a depth-3 perft compared with shakmaty's.
const PERFT_EVERY: usize = 97;

fn mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

fn reference_from_fen(fen: &str, chess960: bool) -> Chess {
    let parsed: Fen = fen
        .parse()
        .unwrap_or_else(|e| panic!("shakmaty cannot read '{fen}': {e}"));
    // The suites' double check by two bishops on one diagonal is "impossible" to shakmaty.
    match parsed.into_position(mode(chess960)) {
        Ok(p) => p,
        Err(e) => e
            .ignore_impossible_check()
            .unwrap_or_else(|e| panic!("shakmaty rejects '{fen}': {e}")),
    }
}

fn reference_fen(theirs: &Chess) -> String {
    Fen::from_position(theirs.clone(), EnPassantMode::PseudoLegal).to_string()
}

/// Compares one position in every way, panicking with the game that led to it on a difference.
fn compare(ours: &Position, theirs: &Chess, chess960: bool, history: &[String]) {
    let fen = ours.to_fen();
    let context = || {
        format!(
            "{fen} (from the suite position after {})",
            history.join(" ")
        )
    };

    assert_eq!(fen, reference_fen(theirs), "FEN differs: {}", context());

    let mut our_moves: Vec<String> = ours
        .legal_moves()
        .iter()
        .map(|&m| ours.move_to_uci(m, chess960))
        .collect();
    let mut their_moves: Vec<String> = theirs
        .legal_moves()
        .iter()
        .map(|m| UciMove::from_move(m, mode(chess960)).to_string())
        .collect();
    our_moves.sort();
    their_moves.sort();
    assert_eq!(our_moves, their_moves, "legal moves differ: {}", context());

    assert_eq!(
        ours.checkers().0,
        theirs.checkers().0,
        "checkers differ: {}",
        context()
    );

    let key: Zobrist64 = theirs.zobrist_hash(EnPassantMode::PseudoLegal);
    assert_eq!(
        ours.key(),
        key.0,
        "key differs from shakmaty's: {}",
        context()
    );
    assert_eq!(
        ours.key(),
        ours.compute_key(),
        "incremental key is stale: {}",
        context()
    );

    let again = Position::from_fen(&fen)
        .unwrap_or_else(|e| panic!("own FEN rejected ({e}): {}", context()));
    assert_eq!(&again, ours, "FEN does not round-trip: {}", context());
    assert_eq!(
        &reference_from_fen(&fen, chess960),
        theirs,
        "shakmaty reads our FEN as another position: {}",
        context()
    );
}

/// What the random games went through, to show they reach the rare rules.
#[derive(Default, Debug, Clone, Copy)]
struct Stats {
    positions: usize,
    in_check: usize,
    en_passant: usize,
    castling: usize,
    promotions: usize,
}

impl std::iter::Sum for Stats {
    fn sum<I: Iterator<Item = Stats>>(iter: I) -> Stats {
        iter.fold(Stats::default(), |a, b| Stats {
            positions: a.positions + b.positions,
            in_check: a.in_check + b.in_check,
            en_passant: a.en_passant + b.en_passant,
            castling: a.castling + b.castling,
            promotions: a.promotions + b.promotions,
        })
    }
}

/// A random move, but biased towards the rarer kinds so that random play does not leave them
/// untested: an en-passant capture or a castling half the time when there is one, else a third
/// of the time a promotion or a double step (which may allow en passant) when there is one.
fn pick_move(pos: &Position, moves: &[Move], rng: &mut Rng) -> Move {
    let of_kind =
        |kind| -> Vec<Move> { moves.iter().copied().filter(|m| m.kind() == kind).collect() };
    for kind in [MoveKind::EnPassant, MoveKind::Castling] {
        let list = of_kind(kind);
        if !list.is_empty() && rng.chance(1, 2) {
            return list[rng.below(list.len())];
        }
    }
    let special: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| {
            m.kind() == MoveKind::Promotion
                || (pos.piece_at(m.from()).map(|p| p.kind()) == Some(PieceType::Pawn)
                    && m.from().rank().abs_diff(m.to().rank()) == 2)
        })
        .collect();
    if !special.is_empty() && rng.chance(1, 3) {
        special[rng.below(special.len())]
    } else {
        moves[rng.below(moves.len())]
    }
}

/// Plays random games from `start`, comparing every position on the way.
fn random_games(start: &str, chess960: bool, games: usize, max_plies: usize, seed: u64) -> Stats {
    let mut rng = Rng::new(seed);
    let mut stats = Stats::default();
    for _ in 0..games {
        let mut ours = Position::from_fen(start).unwrap();
        let mut theirs = reference_from_fen(start, chess960);
        let mut history = Vec::new();
        for _ in 0..max_plies {
            compare(&ours, &theirs, chess960, &history);
            stats.positions += 1;
            stats.in_check += ours.in_check() as usize;
            if stats.positions % PERFT_EVERY == 0 {
                let fen = ours.to_fen();
                assert_eq!(
                    perft::perft(&ours, 3),
                    shakmaty::perft(&theirs, 3),
                    "perft 3 differs: {fen}"
                );
            }
            let moves = ours.legal_moves();
            if moves.is_empty() || ours.halfmove_clock() >= 100 {
                break;
            }
            let m = pick_move(&ours, &moves, &mut rng);
            let text = ours.move_to_uci(m, chess960);
            let their_move = UciMove::from_ascii(text.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&theirs).ok())
                .unwrap_or_else(|| panic!("shakmaty refuses {text} in {}", ours.to_fen()));
            // The move's nature as well as its squares.
            assert_eq!(
                ours.is_capture(m),
                their_move.is_capture(),
                "{text} in {}",
                ours.to_fen()
            );
            assert_eq!(
                m.kind() == MoveKind::EnPassant,
                their_move.is_en_passant(),
                "{text}"
            );
            assert_eq!(
                m.kind() == MoveKind::Castling,
                their_move.is_castle(),
                "{text}"
            );
            assert_eq!(
                m.promotion_piece().map(|p| p.letter()),
                their_move.promotion().map(|r| r.char()),
                "{text}"
            );
            stats.en_passant += their_move.is_en_passant() as usize;
            stats.castling += their_move.is_castle() as usize;
            stats.promotions += their_move.is_promotion() as usize;
            ours.play(m);
            theirs.play_unchecked(&their_move);
            history.push(text);
        }
    }
    stats
}

fn check_coverage(stats: Stats, min_positions: usize) {
    eprintln!("{stats:?}");
    assert!(stats.positions >= min_positions, "{stats:?}");
    assert!(stats.in_check > 0 && stats.en_passant > 0, "{stats:?}");
    assert!(stats.castling > 0 && stats.promotions > 0, "{stats:?}");
}

#[test]
fn random_games_from_standard_suite() {
    let cases = parse_perft_epd(PERFT_EPD);
    let stats: Stats = par_map(&cases, |c| {
        random_games(&c.fen, false, GAMES_PER_STANDARD, MAX_PLIES, c.line as u64)
    })
    .into_iter()
    .sum();
    check_coverage(stats, 50_000);
}

#[test]
fn random_games_from_chess960_suite() {
    let cases = parse_perft_epd(FRC_PERFT_EPD);
    let stats: Stats = par_map(&cases, |c| {
        random_games(&c.fen, true, 1, MAX_PLIES_960, 1_000_000 + c.line as u64)
    })
    .into_iter()
    .sum();
    check_coverage(stats, 50_000);
}

/// Standard positions played in Chess960 notation too (castling as king takes rook): the rules
/// are the same, only the move text differs.
#[test]
fn standard_suite_in_chess960_mode() {
    let cases = parse_perft_epd(PERFT_EPD);
    let stats: Stats = par_map(&cases, |c| {
        random_games(&c.fen, true, 1, MAX_PLIES, 77 + c.line as u64)
    })
    .into_iter()
    .sum();
    check_coverage(stats, 10_000);
}

/// Most suite positions are endgames; these two give the middlegame (and en passant) more games.
#[test]
fn many_games_from_start_and_kiwipete() {
    let cases: Vec<_> = parse_perft_epd(PERFT_EPD).into_iter().take(2).collect();
    let seeds: Vec<(String, u64)> = (0..16)
        .flat_map(|i| cases.iter().map(move |c| (c.fen.clone(), 5_000 + i)))
        .collect();
    let stats: Stats = par_map(&seeds, |(fen, seed)| {
        random_games(fen, false, 10, MAX_PLIES, *seed)
    })
    .into_iter()
    .sum();
    check_coverage(stats, 20_000);
}
