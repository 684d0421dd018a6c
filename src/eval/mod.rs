//! Static evaluation e(p): what a position is worth when the search stops.
//! (Placeholder: material only. The evaluation issue replaces it with a tuned tapered one.)

use crate::chess::{Color, PieceType, Position};

/// Centipawn values of pawn, knight, bishop, rook, queen, king.
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// The evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let mut score = 0;
    for t in PieceType::ALL {
        let diff = pos.colored(Color::White, t).count() as i32 - pos.colored(Color::Black, t).count() as i32;
        score += diff * PIECE_VALUES[t.index()];
    }
    match pos.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    }
}
