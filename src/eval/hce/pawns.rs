//! Pawn structure: the terms that depend on pawns alone, and a table that remembers them.
//!
//! Pawn formations change rarely during a search, so caching their score pays; passed pawns are
//! remembered too, since their dynamic terms (king distances, free path) are evaluated each time.

use super::masks::{adjacent_files, attack_span, forward_file, passed_span, pawn_attacks};
use super::packed::S;
use super::params::*;
use super::trace::Trace;
use super::weights::WEIGHTS;
use crate::chess::{attacks, Bitboard, Color, PieceType, Position};

/// What the pawn terms give: their score (white minus black) and the passed pawns of both sides.
#[derive(Clone, Copy, Default)]
pub struct PawnInfo {
    pub score: S,
    pub passed: Bitboard,
}

/// Evaluates the pawn-only terms of both colours.
pub fn evaluate_pawns<T: Trace>(pos: &Position, trace: &mut T) -> PawnInfo {
    let mut info = PawnInfo::default();
    for c in Color::ALL {
        let them = c.flip();
        let ours = pos.colored(c, PieceType::Pawn);
        let theirs = pos.colored(them, PieceType::Pawn);
        let their_attacks = pawn_attacks(them, theirs);
        let mut s = S::ZERO;
        let mut add = |i: usize, n: i32| {
            s += WEIGHTS[i] * n;
            if T::ACTIVE {
                trace.add(c, i, n);
            }
        };
        for sq in ours {
            let rr = c.relative_rank(sq.rank()) as usize;
            let stop = sq.offset(c.forward());
            let front = forward_file(c, sq);
            let opposed = (front & theirs).any();
            let neighbours = ours & adjacent_files(sq.file());
            let supporters = (attacks::pawn(them, sq) & ours).count() as i32;
            let phalanx = (neighbours & Bitboard::rank(sq.rank())).any();

            if (front & ours).any() {
                add(PAWN_DOUBLED, 1);
            }
            if neighbours.is_empty() {
                add(PAWN_ISOLATED, 1);
            } else if (neighbours & !attack_span(c, sq)).is_empty()
                && (their_attacks | theirs).contains(stop)
            {
                // Every neighbour has gone past it, and it cannot step up to them.
                add(PAWN_BACKWARD, 1);
                if !opposed {
                    add(PAWN_BACKWARD_OPEN, 1);
                }
            }
            if supporters > 0 {
                add(PAWN_SUPPORTED + rr, supporters);
            }
            if phalanx {
                add(PAWN_PHALANX + rr, 1);
            }
            if (passed_span(c, sq) & theirs).is_empty() && (front & ours).is_empty() {
                info.passed = info.passed.with(sq);
                add(PASSED_RANK + rr, 1);
            }
        }
        match c {
            Color::White => info.score += s,
            Color::Black => info.score -= s,
        }
    }
    info
}

#[derive(Clone, Copy, Default)]
struct Entry {
    white: Bitboard,
    black: Bitboard,
    info: PawnInfo,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 32);

/// A direct-mapped cache of `evaluate_pawns` keyed by the two pawn sets themselves, so a hit is
/// never a collision. An empty slot (no pawns, score zero) is a correct entry too.
pub struct PawnTable {
    entries: Box<[Entry]>,
}

const TABLE_BITS: u32 = 14; // 16384 entries, 512 KiB

impl Default for PawnTable {
    fn default() -> Self {
        Self::new()
    }
}

impl PawnTable {
    /// Bytes one table takes on the heap.
    pub const HEAP_BYTES: usize = (1 << TABLE_BITS) * std::mem::size_of::<Entry>();

    pub fn new() -> PawnTable {
        PawnTable {
            entries: vec![Entry::default(); 1 << TABLE_BITS].into_boxed_slice(),
        }
    }

    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    #[inline]
    pub fn probe(&mut self, pos: &Position) -> PawnInfo {
        let white = pos.colored(Color::White, PieceType::Pawn);
        let black = pos.colored(Color::Black, PieceType::Pawn);
        let h = (white.0 ^ black.0.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut self.entries[(h >> (64 - TABLE_BITS)) as usize];
        if slot.white != white || slot.black != black {
            *slot = Entry {
                white,
                black,
                info: evaluate_pawns(pos, &mut super::trace::NoTrace),
            };
        }
        slot.info
    }
}
