//! The incremental, vectorised NNUE evaluation against the from-scratch reference
//! (`Network::evaluate_from_scratch`), on random networks in the trained range:
//!
//! - along random games (standard and Chess960 starts, biased towards castling, en passant,
//!   promotions and captures, with null moves and with siblings pushed and discarded as a
//!   search does), every ply's accumulator equals a refresh and its score the reference's,
//!   for every backend this CPU has;
//! - over every perft-suite position and its children, the score equals the reference's;
//! - a position and its colour-flipped twin score the same for the side to move.

mod common;

use brudno::chess::{Color, MoveKind, Position};
use brudno::datagen::chess960_start;
use brudno::eval::nnue::state::STACK_PLIES;
use brudno::eval::nnue::{Backend, Network, NnueState, Shape};
use common::{parse_perft_epd, Rng, FRC_PERFT_EPD, PERFT_EPD};
use std::sync::Arc;

/// Plays `games` random games of up to `plies` plies on `state`, checking every ply; returns
/// how many of each kind of move were played (normal, promotion, en passant, castling, capture).
fn check_random_games(state: &mut NnueState, seed: u64, games: usize, plies: usize) -> [usize; 5] {
    let net = state.network().clone();
    let simd = state.backend();
    let mut rng = Rng::new(seed);
    let mut seen = [0; 5];
    for game in 0..games {
        let mut pos = if game % 2 == 0 {
            Position::startpos()
        } else {
            chess960_start(rng.below(960) as u32)
        };
        state.reset(&pos);
        let mut ply = 0; // the stack slot; a game longer than the stack starts a new "search"
        for _ in 0..plies {
            if ply == STACK_PLIES - 1 {
                state.reset(&pos);
                ply = 0;
            }
            let fresh = [Color::White, Color::Black].map(|c| net.accumulate_from_scratch(&pos, c));
            assert_eq!(
                state.accumulator(ply),
                [&fresh[0][..], &fresh[1][..]],
                "{} game {game} ply {ply}: {}",
                simd.name(),
                pos.to_fen()
            );
            assert_eq!(
                state.evaluate(ply, pos.side_to_move()),
                net.evaluate_from_scratch(&pos),
                "{}: {}",
                simd.name(),
                pos.to_fen()
            );

            let moves = pos.legal_moves();
            if moves.is_empty() || pos.halfmove_clock() >= 100 {
                break;
            }
            if !pos.in_check() && rng.chance(1, 16) {
                state.push_null(ply);
                pos.play_null();
                ply += 1;
                continue;
            }
            // A sibling first, as a search tries moves before the one it follows: the slot
            // it wrote must be overwritten cleanly.
            state.push(ply, &pos, *rng.pick(moves.as_slice()));
            let of = |keep: &dyn Fn(brudno::chess::Move) -> bool| -> Vec<_> {
                moves.iter().copied().filter(|&m| keep(m)).collect()
            };
            let rare = of(&|m| m.kind() != MoveKind::Normal);
            let captures = of(&|m| pos.is_capture(m));
            let m = if !rare.is_empty() && rng.chance(3, 4) {
                *rng.pick(&rare)
            } else if !captures.is_empty() && rng.chance(1, 2) {
                *rng.pick(&captures)
            } else {
                *rng.pick(moves.as_slice())
            };
            seen[m.kind() as usize] += 1;
            seen[4] += pos.is_capture(m) as usize;
            state.push(ply, &pos, m);
            pos.play(m);
            ply += 1;
        }
    }
    seen
}

#[test]
fn incremental_equals_refresh_along_random_games() {
    let net: Arc<Network> = Network::random(21).into();
    for simd in Backend::available() {
        let mut state = NnueState::with_backend(net.clone(), simd);
        // 200 games of up to 200 plies per backend.
        let seen = check_random_games(&mut state, 77, 200, 200);
        assert!(
            seen.iter().all(|&n| n >= 30),
            "every kind of move is played often: {seen:?}"
        );
    }
}

/// Every shape the trainer exports, at the two smallest widths.
fn shapes() -> Vec<Shape> {
    let mut out = Vec::new();
    for width in [128, 256] {
        for buckets in [1, 8] {
            for mirrored in [false, true] {
                out.push(Shape {
                    width,
                    buckets,
                    mirrored,
                });
            }
        }
    }
    out
}

#[test]
fn incremental_equals_refresh_for_every_shape_and_backend() {
    for (i, shape) in shapes().into_iter().enumerate() {
        let net: Arc<Network> = Network::random_shape(shape, 100 + i as u64).into();
        for simd in Backend::available() {
            let mut state = NnueState::with_backend(net.clone(), simd);
            let seen = check_random_games(&mut state, 5 + i as u64, 30, 160);
            assert!(
                seen.iter().all(|&n| n >= 3),
                "{shape}: every kind of move is played: {seen:?}"
            );
        }
    }
}

/// Plays `moves` (UCI) from `fen`, checking every ply against the reference for every shape
/// and backend; with `crossings`, checks that mirroring networks saw kings change sides.
fn check_line(fen: &str, moves: &[&str], crossings: usize) {
    for (i, shape) in shapes().into_iter().enumerate() {
        let net: Arc<Network> = Network::random_shape(shape, 300 + i as u64).into();
        for simd in Backend::available() {
            let mut state = NnueState::with_backend(net.clone(), simd);
            let mut pos = Position::from_fen(fen).unwrap();
            state.reset(&pos);
            let mut crossed = 0;
            for (ply, uci) in moves.iter().enumerate() {
                let m = pos
                    .parse_uci_move(uci)
                    .unwrap_or_else(|| panic!("{uci} in {}", pos.to_fen()));
                let us = pos.side_to_move();
                let before = pos.king_square(us).file() >= 4;
                state.push(ply, &pos, m);
                pos.play(m);
                crossed += ((pos.king_square(us).file() >= 4) != before) as usize;
                for c in [Color::White, Color::Black] {
                    assert_eq!(
                        state.accumulator(ply + 1)[c as usize],
                        &net.accumulate_from_scratch(&pos, c)[..],
                        "{shape} {} after {uci}: {}",
                        simd.name(),
                        pos.to_fen()
                    );
                }
                assert_eq!(
                    state.evaluate(ply + 1, pos.side_to_move()),
                    net.evaluate_from_scratch(&pos)
                );
            }
            assert_eq!(crossed, crossings, "{fen}");
        }
    }
}

#[test]
fn kings_crossing_the_middle_castling_en_passant_and_promotions() {
    // Kings walk across the d/e line and back, both colours.
    check_line(
        "4k3/8/8/8/8/8/8/3K4 w - - 0 1",
        &[
            "d1e1", "e8d8", "e1d2", "d8e7", "d2e3", "e7d6", "e3d3", "d6e6",
        ],
        8,
    );
    // Castling on both sides: O-O keeps the king on e–h, O-O-O takes it to c1 / c8.
    check_line(
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        &["e1g1", "e8c8", "g1h1", "c8b8"],
        1,
    );
    check_line(
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        &["e1c1", "e8g8"],
        1,
    );
    // En passant both ways, then promotions with and without a capture.
    check_line(
        "r3k3/1P4p1/8/3pP3/8/8/6p1/4K2R w K d6 0 1",
        &[
            "e5d6", "g7g5", "b7a8q", "e8f7", "a8b8", "g2h1n", "d6d7", "h1g3", "d7d8r",
        ],
        0,
    );
}

#[test]
fn the_bucket_follows_the_piece_count_incrementally() {
    // Pieces come off one capture at a time, from 32 down to 2, on a bucketed network.
    let shape = Shape {
        width: 128,
        buckets: 8,
        mirrored: true,
    };
    let net: Arc<Network> = Network::random_shape(shape, 9).into();
    let mut rng = Rng::new(12);
    let mut counts = [false; 33];
    for _ in 0..20 {
        let mut state = NnueState::new(net.clone());
        let mut pos = Position::startpos();
        state.reset(&pos);
        for ply in 0..STACK_PLIES - 1 {
            let n = pos.occupied().count() as usize;
            counts[n] = true;
            assert_eq!(net.bucket_of(&pos), (n - 2) / 4);
            assert_eq!(
                state.evaluate(ply, pos.side_to_move()),
                net.evaluate_from_scratch(&pos),
                "{}",
                pos.to_fen()
            );
            let moves = pos.legal_moves();
            let captures: Vec<_> = moves
                .iter()
                .copied()
                .filter(|&m| pos.is_capture(m))
                .collect();
            let m = match captures.is_empty() {
                true if moves.is_empty() => break,
                true => *rng.pick(moves.as_slice()),
                false => *rng.pick(&captures),
            };
            state.push(ply, &pos, m);
            pos.play(m);
        }
    }
    let missing: Vec<usize> = (2..=32).filter(|&n| !counts[n]).collect();
    assert!(missing.len() <= 2, "piece counts never seen: {missing:?}");
}

#[test]
fn default_backend_is_the_best() {
    let state = NnueState::new(Network::random(1).into());
    assert_eq!(state.backend(), Backend::best());
}

fn suite_positions() -> Vec<Position> {
    [PERFT_EPD, FRC_PERFT_EPD]
        .iter()
        .flat_map(|text| parse_perft_epd(text))
        .map(|c| Position::from_fen(&c.fen).unwrap())
        .collect()
}

#[test]
fn evaluate_equals_the_reference_over_the_perft_suites() {
    let positions = suite_positions();
    for seed in [1, 2] {
        let net: Arc<Network> = Network::random(seed).into();
        let mut state = NnueState::new(net.clone());
        let mut checked = 0;
        for pos in &positions {
            state.reset(pos);
            assert_eq!(
                state.evaluate(0, pos.side_to_move()),
                net.evaluate_from_scratch(pos)
            );
            for &m in pos.legal_moves().iter() {
                state.push(0, pos, m);
                let child = pos.after(m);
                assert_eq!(
                    state.evaluate(1, child.side_to_move()),
                    net.evaluate_from_scratch(&child),
                    "{} then {m:?}",
                    pos.to_fen()
                );
                checked += 1;
            }
        }
        assert!(checked > 20_000);
    }
}

/// The twin with colours swapped and the board mirrored top to bottom (castling and en
/// passant dropped: the network does not see them).
fn colour_flipped(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let fields: Vec<&str> = fen.split(' ').collect();
    let board: Vec<String> = fields[0]
        .split('/')
        .rev()
        .map(|rank| {
            rank.chars()
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
    let side = if fields[1] == "w" { "b" } else { "w" };
    Position::from_fen(&format!("{} {side} - - 0 1", board.join("/"))).unwrap()
}

#[test]
fn colour_flipped_twins_score_the_same() {
    let net: Arc<Network> = Network::random(9).into();
    let mut state = NnueState::new(net);
    let mut nonzero = 0;
    for pos in suite_positions() {
        let twin = colour_flipped(&pos);
        state.reset(&pos);
        let score = state.evaluate(0, pos.side_to_move());
        let halves = state.accumulator(0).map(<[i16]>::to_vec);
        state.reset(&twin);
        assert_eq!(
            state.evaluate(0, twin.side_to_move()),
            score,
            "{}",
            pos.to_fen()
        );
        let twin_halves = state.accumulator(0).map(<[i16]>::to_vec);
        assert_eq!((&halves[0], &halves[1]), (&twin_halves[1], &twin_halves[0]));
        nonzero += (score != 0) as usize;
    }
    assert!(nonzero > 1000);
}
