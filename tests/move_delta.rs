//! `MoveDelta` against the rules core: over a shallow walk of every perft-suite position
//! (standard and Chess960), the parent's piece placement with the delta applied is the
//! child's, for every legal move.

mod common;

use brudno::chess::{MoveDelta, MoveList, Piece, Position, Square};
use common::{par_map, parse_perft_epd, FRC_PERFT_EPD, PERFT_EPD};

type Board = [Option<Piece>; 64];

fn board(pos: &Position) -> Board {
    std::array::from_fn(|i| pos.piece_at(Square::new(i as u8)))
}

/// Applies `d` (removals first, as the delta's contract says), checking each removal finds its
/// piece and each addition an empty square.
fn apply(mut b: Board, d: &MoveDelta) -> Result<Board, String> {
    for &(p, sq) in d.removed() {
        if b[sq.index()] != Some(p) {
            return Err(format!(
                "removes {p:?} from {sq}, which holds {:?}",
                b[sq.index()]
            ));
        }
        b[sq.index()] = None;
    }
    for &(p, sq) in d.added() {
        if let Some(q) = b[sq.index()] {
            return Err(format!("adds {p:?} on {sq}, which still holds {q:?}"));
        }
        b[sq.index()] = Some(p);
    }
    Ok(b)
}

/// Checks every move of the tree below `pos` to `depth` plies; returns the moves checked.
fn walk(pos: &Position, depth: u32, fen: &str) -> u64 {
    if depth == 0 {
        return 0;
    }
    let mut moves = MoveList::new();
    pos.generate(brudno::chess::GenType::All, &mut moves);
    let parent = board(pos);
    let mut checked = 0;
    for &m in moves.iter() {
        let child = pos.after(m);
        let d = MoveDelta::of(pos, m);
        let applied =
            apply(parent, &d).unwrap_or_else(|e| panic!("{fen}, {} ({m:?}): {e}", pos.to_fen()));
        assert!(
            applied == board(&child),
            "{fen}: after {} ({m:?}) the delta {d:?} gives another board",
            pos.to_fen()
        );
        checked += 1 + walk(&child, depth - 1, fen);
    }
    checked
}

/// Depth 3 on a quarter of the positions and depth 2 on the rest: every kind of move (the
/// suites are chosen for castling, en passant and promotions) in about a second.
fn check_suite(text: &str) -> u64 {
    let cases = parse_perft_epd(text);
    let jobs: Vec<(usize, String)> = cases.into_iter().map(|c| c.fen).enumerate().collect();
    par_map(&jobs, |(i, fen)| {
        let pos = Position::from_fen(fen).unwrap();
        walk(&pos, if i % 4 == 0 { 3 } else { 2 }, fen)
    })
    .iter()
    .sum()
}

#[test]
fn delta_matches_the_board_over_the_standard_suite() {
    assert!(check_suite(PERFT_EPD) > 100_000);
}

#[test]
fn delta_matches_the_board_over_the_chess960_suite() {
    assert!(check_suite(FRC_PERFT_EPD) > 1_000_000);
}
