//! Zobrist keys, chosen to be exactly Polyglot's so the engine's own key looks up opening books.
//!
//! Polyglot's conventions: piece kinds are ordered black pawn, white pawn, black knight, ...,
//! white king; castling keys are white short, white long, black short, black long; the
//! en-passant file is hashed only when a pawn of the side to move stands ready to capture;
//! the turn key is mixed in when *white* is to move.

use super::polyglot_random::POLYGLOT_RANDOM;
use super::types::{Color, Piece, Square};

#[inline(always)]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    let kind = piece.kind().index() * 2 + (piece.color() == Color::White) as usize;
    POLYGLOT_RANDOM[64 * kind + sq.index()]
}

/// Castling rights as a 4-bit set: bit 0 white short, 1 white long, 2 black short, 3 black long.
#[inline(always)]
pub fn castling(rights: u8) -> u64 {
    let mut key = 0;
    for i in 0..4 {
        if rights >> i & 1 != 0 {
            key ^= POLYGLOT_RANDOM[768 + i];
        }
    }
    key
}

#[inline(always)]
pub fn en_passant_file(file: u8) -> u64 {
    POLYGLOT_RANDOM[772 + file as usize]
}

/// Mixed in when white is to move.
#[inline(always)]
pub fn white_to_move() -> u64 {
    POLYGLOT_RANDOM[780]
}
