//! Perft: counts the leaf nodes of the legal move tree, the standard test of a move generator.

use super::movegen::GenType;
use super::moves::{Move, MoveList};
use super::position::Position;

/// Leaf nodes at `depth` plies. The last ply is counted, not played (bulk counting).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Generating into a local list and playing into a local copy (rather than `legal_moves()`
    // and `after()`) spares a copy of the move list and one of the position per node.
    let mut moves = MoveList::new();
    pos.generate(GenType::All, &mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &m in moves.iter() {
        let mut next = *pos;
        next.play(m);
        nodes += perft(&next, depth - 1);
    }
    nodes
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&m| (m, perft(&pos.after(m), depth - 1)))
        .collect()
}

/// Every position of the perft suite (`tests/data/perft.epd`) and every position one legal
/// move on from each: a few thousand positions rich in captures, promotions, castling and
/// en passant, for unit tests that check a rule on every move.
#[cfg(test)]
pub fn suite_positions_and_children() -> Vec<Position> {
    let mut all = Vec::new();
    for line in include_str!("../../tests/data/perft.epd").lines() {
        if line.trim().is_empty() {
            continue;
        }
        let pos = Position::from_fen(line.split(';').next().unwrap().trim()).unwrap();
        all.push(pos);
        all.extend(pos.legal_moves().iter().map(|&m| pos.after(m)));
    }
    all
}
