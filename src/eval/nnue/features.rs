//! The network's inputs: 768 = 2 colours × 6 piece types × 64 squares, seen from one side.
//!
//! This is the one definition of the feature index. The trainer (`tools/`) imports it, so the
//! engine and the trainer cannot disagree on the order of the inputs.
//!
//! From `perspective`'s side of the board: its own pieces come first (0–383), the opponent's
//! after (384–767); within each, pawn … king in blocks of 64; squares are flipped vertically
//! (a1 ↔ a8) for Black, so each side sees itself at the bottom. A position and its colour-
//! flipped twin give the same two feature sets, swapped.

use crate::chess::{Color, Piece, Position, Square};

/// Inputs per perspective.
pub const INPUTS: usize = 768;

/// The input of `piece` on `sq` for the accumulator of `perspective`.
#[inline(always)]
pub fn index(perspective: Color, piece: Piece, sq: Square) -> usize {
    let theirs = (piece.color() != perspective) as usize;
    let sq = match perspective {
        Color::White => sq.index(),
        Color::Black => sq.index() ^ 56,
    };
    theirs * 384 + piece.kind().index() * 64 + sq
}

/// As `index`, with the square's file mirrored (a ↔ h) when `mirror` is 7 (0: as is): the
/// input of a network with horizontal mirroring, for a perspective whose own king stands on
/// files e–h (`mirror_of`).
#[inline(always)]
pub fn index_mirrored(perspective: Color, piece: Piece, sq: Square, mirror: usize) -> usize {
    index(perspective, piece, sq) ^ mirror
}

/// The file mirror (`index_mirrored`'s last argument) of `perspective` in `pos` for a
/// network with horizontal mirroring: 7 when its own king stands on files e–h, else 0. The
/// vertical flip of Black's view keeps files, so the board's file is the perspective's.
#[inline(always)]
pub fn mirror_of(pos: &Position, perspective: Color) -> usize {
    king_mirror(pos.king_square(perspective))
}

/// The file mirror for a perspective whose own king stands on `king`.
#[inline(always)]
pub fn king_mirror(king: Square) -> usize {
    if king.file() >= 4 {
        7
    } else {
        0
    }
}

/// Every active input of `pos` for `perspective`, in square order.
pub fn active(pos: &Position, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    active_mirrored(pos, perspective, false)
}

/// Every active input of `pos` for `perspective` of a network with horizontal mirroring
/// (`mirrored`) or without, in square order.
pub fn active_mirrored(
    pos: &Position,
    perspective: Color,
    mirrored: bool,
) -> impl Iterator<Item = usize> + '_ {
    let mirror = if mirrored {
        mirror_of(pos, perspective)
    } else {
        0
    };
    pos.occupied().map(move |sq| {
        let piece = pos.piece_at(sq).expect("an occupied square has a piece");
        index_mirrored(perspective, piece, sq, mirror)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::PieceType;

    #[test]
    fn indices_are_distinct_and_in_range() {
        let mut seen = vec![false; INPUTS];
        for c in Color::ALL {
            for t in PieceType::ALL {
                for sq in Square::all() {
                    let i = index(Color::White, Piece::new(c, t), sq);
                    assert!(!seen[i]);
                    seen[i] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn a_flipped_position_swaps_the_perspectives() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let flipped = Position::from_fen(
            "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1",
        )
        .unwrap();
        let sorted = |p: &Position, c| {
            let mut v: Vec<usize> = active(p, c).collect();
            v.sort();
            v
        };
        assert_eq!(sorted(&pos, Color::White), sorted(&flipped, Color::Black));
        assert_eq!(sorted(&pos, Color::Black), sorted(&flipped, Color::White));
        // The white king on e1 is "own king on e1" for White, "enemy king on e8" for Black.
        let king = Piece::new(Color::White, PieceType::King);
        assert_eq!(index(Color::White, king, Square::E1), 5 * 64 + 4);
        assert_eq!(index(Color::Black, king, Square::E1), 384 + 5 * 64 + 60);
    }
}
