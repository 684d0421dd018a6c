//! What a move changes in the piece placement: the pieces that leave squares and the pieces
//! that enter them, at most two of each. Incrementally updated evaluations (the NNUE
//! accumulator) apply this instead of comparing boards.
//!
//! | move                 | removed                      | added              |
//! |----------------------|------------------------------|--------------------|
//! | quiet                | mover on `from`              | mover on `to`      |
//! | capture              | mover on `from`, victim      | mover on `to`      |
//! | en passant           | mover on `from`, pawn behind | mover on `to`      |
//! | promotion (capture)  | pawn on `from` (, victim)    | new piece on `to`  |
//! | castling             | king, rook                   | king, rook         |
//!
//! Apply every removal before any addition: in Chess960 a castling destination may be the
//! other piece's start square (king f1, rook g1: the king lands on g1, the rook on f1), so a
//! square can be both left and entered. The null move changes nothing (`MoveDelta::NONE`).

use super::moves::{Move, MoveKind};
use super::position::Position;
use super::types::{Piece, PieceType, Square};

/// The placement change of one move; 10 bytes, no allocation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveDelta {
    removed: [(Piece, Square); 2],
    added: [(Piece, Square); 2],
    n_removed: u8,
    n_added: u8,
}

/// Filler for the unused slots (never read: the counts bound every access).
const UNUSED: (Piece, Square) = (Piece::new(super::Color::White, PieceType::Pawn), Square::A1);

impl MoveDelta {
    /// No change (a null move).
    pub const NONE: MoveDelta = MoveDelta {
        removed: [UNUSED; 2],
        added: [UNUSED; 2],
        n_removed: 0,
        n_added: 0,
    };

    /// The change `m` makes to `pos` (the position before the move; `m` legal there).
    #[inline]
    pub fn of(pos: &Position, m: Move) -> MoveDelta {
        let (from, to) = (m.from(), m.to());
        let us = pos.side_to_move();
        let mover = pos
            .piece_at(from)
            .expect("a legal move starts on its piece");
        let mut d = MoveDelta::NONE;
        match m.kind() {
            MoveKind::Castling => {
                let rook = Piece::new(us, PieceType::Rook);
                let (king_to, rook_to) = Position::castle_targets(us, from, to);
                d.remove(mover, from);
                d.remove(rook, to);
                d.add(mover, king_to);
                d.add(rook, rook_to);
            }
            MoveKind::EnPassant => {
                d.remove(mover, from);
                d.remove(
                    Piece::new(us.flip(), PieceType::Pawn),
                    to.offset(-us.forward()),
                );
                d.add(mover, to);
            }
            MoveKind::Normal | MoveKind::Promotion => {
                d.remove(mover, from);
                if let Some(victim) = pos.piece_at(to) {
                    d.remove(victim, to);
                }
                let arriving = match m.promotion_piece() {
                    Some(kind) => Piece::new(us, kind),
                    None => mover,
                };
                d.add(arriving, to);
            }
        }
        d
    }

    /// The pieces taken off the board, with their squares (0 to 2; the mover first).
    #[inline(always)]
    pub const fn removed(&self) -> &[(Piece, Square)] {
        self.removed.split_at(self.n_removed as usize).0
    }

    /// The pieces put on the board, with their squares (0 to 2; the mover first).
    #[inline(always)]
    pub const fn added(&self) -> &[(Piece, Square)] {
        self.added.split_at(self.n_added as usize).0
    }

    #[inline(always)]
    const fn remove(&mut self, p: Piece, sq: Square) {
        self.removed[self.n_removed as usize] = (p, sq);
        self.n_removed += 1;
    }

    #[inline(always)]
    const fn add(&mut self, p: Piece, sq: Square) {
        self.added[self.n_added as usize] = (p, sq);
        self.n_added += 1;
    }
}

const _: () = assert!(std::mem::size_of::<MoveDelta>() == 10);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Color;

    fn delta(fen: &str, uci: &str) -> MoveDelta {
        let pos = Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        MoveDelta::of(&pos, m)
    }

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    fn p(c: char) -> Piece {
        Piece::from_letter(c).unwrap()
    }

    #[test]
    fn each_kind_of_move() {
        let start = crate::chess::START_FEN;
        let d = delta(start, "g1f3");
        assert_eq!(d.removed(), [(p('N'), sq("g1"))]);
        assert_eq!(d.added(), [(p('N'), sq("f3"))]);

        let d = delta("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5");
        assert_eq!(d.removed(), [(p('P'), sq("e4")), (p('p'), sq("d5"))]);
        assert_eq!(d.added(), [(p('P'), sq("d5"))]);

        let d = delta("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6");
        assert_eq!(d.removed(), [(p('P'), sq("e5")), (p('p'), sq("d5"))]);
        assert_eq!(d.added(), [(p('P'), sq("d6"))]);

        let d = delta("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n");
        assert_eq!(d.removed(), [(p('P'), sq("a7")), (p('r'), sq("b8"))]);
        assert_eq!(d.added(), [(p('N'), sq("b8"))]);

        let d = delta("4k3/8/8/8/8/8/p7/4K3 b - - 0 1", "a2a1q");
        assert_eq!(d.removed(), [(p('p'), sq("a2"))]);
        assert_eq!(d.added(), [(p('q'), sq("a1"))]);

        // Standard castling as the GUI writes it (e8c8) is king-takes-rook inside.
        let d = delta("r3k3/8/8/8/8/8/8/4K3 b q - 0 1", "e8c8");
        assert_eq!(d.removed(), [(p('k'), sq("e8")), (p('r'), sq("a8"))]);
        assert_eq!(d.added(), [(p('k'), sq("c8")), (p('r'), sq("d8"))]);

        assert_eq!(MoveDelta::NONE.removed(), []);
        assert_eq!(MoveDelta::NONE.added(), []);
    }

    #[test]
    fn chess960_castling_where_king_and_rook_swap_squares() {
        // King f1, rook g1: short castling puts the king on g1 and the rook on f1.
        let d = delta("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "f1g1");
        let (king, rook) = (Piece::new(Color::White, PieceType::King), p('R'));
        assert_eq!(d.removed(), [(king, sq("f1")), (rook, sq("g1"))]);
        assert_eq!(d.added(), [(king, sq("g1")), (rook, sq("f1"))]);
        // King b1, rook a1: long castling, both pieces move right; c1 and d1 entered.
        let d = delta("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "b1a1");
        assert_eq!(d.removed(), [(king, sq("b1")), (rook, sq("a1"))]);
        assert_eq!(d.added(), [(king, sq("c1")), (rook, sq("d1"))]);
        // The king already on its destination: it is removed and added on the same square.
        let d = delta("4k3/8/8/8/8/8/8/1R4K1 w B - 0 1", "g1b1");
        assert_eq!(d.removed(), [(king, sq("g1")), (rook, sq("b1"))]);
        assert_eq!(d.added(), [(king, sq("c1")), (rook, sq("d1"))]);
        let d = delta("4k3/8/8/8/8/8/8/6KR w H - 0 1", "g1h1");
        assert_eq!(d.added(), [(king, sq("g1")), (rook, sq("f1"))]);
    }
}
