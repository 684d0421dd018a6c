//! A move in 16 bits, and a fixed-capacity move list (no allocation in the search).
//!
//! ```text
//!  15 14 | 13 12 | 11 .. 6 | 5 .. 0
//!  promo | kind  |   to    |  from
//! ```
//! `kind`: 0 normal, 1 promotion (`promo` = knight, bishop, rook, queen), 2 en passant,
//! 3 castling. Castling is stored as king-takes-rook (`to` is the rook's square), which is
//! what makes Chess960 need no special cases.

use super::types::{PieceType, Square};
use crate::util::stack_list::StackList;
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveKind {
    Normal,
    Promotion,
    EnPassant,
    Castling,
}

const _: () = assert!(std::mem::size_of::<Move>() == 2);

impl Move {
    /// The null move: "pass", written `0000` in UCI. Never produced by the move generator.
    pub const NULL: Move = Move(0);

    #[inline(always)]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6)
    }

    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, piece: PieceType) -> Move {
        Move(
            from.index() as u16
                | (to.index() as u16) << 6
                | 1 << 12
                | (piece.index() as u16 - 1) << 14,
        )
    }

    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | 2 << 12)
    }

    /// King from `king` "captures" its own rook on `rook`.
    #[inline(always)]
    pub const fn castling(king: Square, rook: Square) -> Move {
        Move(king.index() as u16 | (rook.index() as u16) << 6 | 3 << 12)
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new((self.0 >> 6 & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 & 3 {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    /// The piece promoted to, if this is a promotion.
    #[inline(always)]
    pub const fn promotion_piece(self) -> Option<PieceType> {
        if self.0 >> 12 & 3 == 1 {
            Some(PieceType::from_index((self.0 >> 14) as usize + 1))
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return write!(f, "0000");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Promotion => write!(f, "{}", self.promotion_piece().unwrap().letter()),
            MoveKind::EnPassant => write!(f, "(ep)"),
            MoveKind::Castling => write!(f, "(castle)"),
            MoveKind::Normal => Ok(()),
        }
    }
}

/// More than the 218 moves any legal chess position has.
pub const MAX_MOVES: usize = 256;

/// A list of moves on the stack (one per node in perft and search).
pub type MoveList = StackList<Move, MAX_MOVES>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_pack_and_unpack() {
        let e7 = Square::parse("e7").unwrap();
        let f8 = Square::parse("f8").unwrap();
        for p in [
            PieceType::Knight,
            PieceType::Bishop,
            PieceType::Rook,
            PieceType::Queen,
        ] {
            let m = Move::promotion(e7, f8, p);
            assert_eq!((m.from(), m.to(), m.kind()), (e7, f8, MoveKind::Promotion));
            assert_eq!(m.promotion_piece(), Some(p));
        }
        let c = Move::castling(Square::E1, Square::H1);
        assert_eq!(
            (c.from(), c.to(), c.kind()),
            (Square::E1, Square::H1, MoveKind::Castling)
        );
        assert_eq!(c.promotion_piece(), None);
        assert!(!c.is_null());
    }
}
