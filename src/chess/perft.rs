//! Perft: counts the leaf nodes of the legal move tree, the standard test of a move generator.

use super::moves::Move;
use super::position::Position;

/// Leaf nodes at `depth` plies. The last ply is counted, not played (bulk counting).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => {
            let moves = pos.legal_moves();
            moves.iter().map(|&m| perft(&pos.after(m), depth - 1)).sum()
        }
    }
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
