//! Reversible moves found by their key: for every move a knight, bishop, rook, queen or king
//! could make on an empty board, the XOR of the two positions' keys (the piece on either
//! square, and the side to move) maps back to the move. The search uses it to see that a
//! position of the line is one move away — a repetition the side to move can bring about.
//!
//! The keys are spread over one table by two hash functions ("cuckoo" hashing, as Marcel van
//! Kervinck proposed for this test): a key sits in one of its two slots, so a lookup reads at
//! most two entries.

use super::attacks;
use super::bitboard::Bitboard;
use super::types::{Color, Piece, PieceType, Square};
use super::zobrist;
use std::sync::LazyLock;

/// Slots (a power of two); 3,668 moves fill under half of them.
const SLOTS: usize = 8192;

pub struct Table {
    keys: Vec<u64>,
    moves: Vec<(Square, Square)>,
}

#[inline(always)]
fn first_slot(key: u64) -> usize {
    (key >> 32) as usize & (SLOTS - 1)
}

#[inline(always)]
fn second_slot(key: u64) -> usize {
    (key >> 48) as usize & (SLOTS - 1)
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut t = Table {
        keys: vec![0; SLOTS],
        moves: vec![(Square::new(0), Square::new(0)); SLOTS],
    };
    for color in [Color::White, Color::Black] {
        for kind in [
            PieceType::Knight,
            PieceType::Bishop,
            PieceType::Rook,
            PieceType::Queen,
            PieceType::King,
        ] {
            let piece = Piece::new(color, kind);
            for a in 0..64 {
                let a = Square::new(a);
                for b in attacks::piece(kind, a, Bitboard::EMPTY) {
                    if b > a {
                        let key = zobrist::piece_square(piece, a)
                            ^ zobrist::piece_square(piece, b)
                            ^ zobrist::white_to_move();
                        insert(&mut t, key, (a, b));
                    }
                }
            }
        }
    }
    t
});

/// Builds the table now rather than at the first search (used at start-up).
pub fn init() {
    LazyLock::force(&TABLE);
}

/// The table (fetched once by a caller that looks up many keys).
#[inline(always)]
pub fn table() -> &'static Table {
    &TABLE
}

/// Cuckoo insertion: take the key's first free slot, evicting the occupant to its other slot.
fn insert(t: &mut Table, mut key: u64, mut mv: (Square, Square)) {
    let mut slot = first_slot(key);
    for _ in 0..SLOTS {
        std::mem::swap(&mut t.keys[slot], &mut key);
        std::mem::swap(&mut t.moves[slot], &mut mv);
        if key == 0 {
            return;
        }
        slot = if slot == first_slot(key) {
            second_slot(key)
        } else {
            first_slot(key)
        };
    }
    panic!("cuckoo table: no slot found (the keys collide)");
}

impl Table {
    /// The two squares of the reversible move that turns a position into one whose key
    /// differs from it by `diff`, if there is one (which of the two the piece stands on, and
    /// whether its path is free, the caller checks).
    #[inline(always)]
    pub fn reversible_move(&self, diff: u64) -> Option<(Square, Square)> {
        let slot = first_slot(diff);
        if self.keys[slot] == diff {
            return Some(self.moves[slot]);
        }
        let slot = second_slot(diff);
        (self.keys[slot] == diff).then(|| self.moves[slot])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    #[test]
    fn every_reversible_move_is_found_by_its_key() {
        let mut keys = std::collections::HashSet::new();
        for color in [Color::White, Color::Black] {
            for kind in [
                PieceType::Knight,
                PieceType::Bishop,
                PieceType::Rook,
                PieceType::Queen,
                PieceType::King,
            ] {
                let piece = Piece::new(color, kind);
                for a in (0..64).map(Square::new) {
                    for b in attacks::piece(kind, a, Bitboard::EMPTY).filter(|&b| b > a) {
                        let key = zobrist::piece_square(piece, a)
                            ^ zobrist::piece_square(piece, b)
                            ^ zobrist::white_to_move();
                        assert_eq!(table().reversible_move(key), Some((a, b)));
                        keys.insert(key);
                    }
                }
            }
        }
        assert_eq!(keys.len(), 3668);
        assert_eq!(TABLE.keys.iter().filter(|&&k| k != 0).count(), 3668);
    }

    #[test]
    fn a_piece_move_and_back_is_found_by_the_keys() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K1N1 w - - 0 1").unwrap();
        for &m in pos.legal_moves().iter() {
            let after = pos.after(m);
            let found = table().reversible_move(pos.key() ^ after.key());
            let (a, b) = if m.from() < m.to() {
                (m.from(), m.to())
            } else {
                (m.to(), m.from())
            };
            assert_eq!(found, Some((a, b)), "{m:?}");
        }
        // A pawn move is not reversible.
        let pos = Position::startpos();
        for &m in pos.legal_moves().iter() {
            let found = table().reversible_move(pos.key() ^ pos.after(m).key());
            let pawn = pos.piece_at(m.from()).unwrap().kind() == PieceType::Pawn;
            assert_eq!(found.is_some(), !pawn, "{m:?}");
        }
    }
}
