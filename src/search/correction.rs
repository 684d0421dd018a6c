//! Correction history: how far searches found the static evaluation off, remembered by the
//! parts of the position that usually explain the error — its pawn structure, each side's
//! pieces other than pawns, and the two moves that led here — and added back to the next
//! evaluation with the same parts.
//!
//! A network misjudges a pawn structure (or a piece configuration) the same way wherever it
//! occurs, so an error seen once under a key is likely again under it. Each table holds, per
//! side to move, a moving average of (search score − raw evaluation) in 1/`GRAIN` centipawn;
//! deeper searches weigh more. The keys are hashes of the bitboards (a few multiplications, no
//! state to keep in make), the tables are per thread and small.

use super::history::PieceTo;
use crate::chess::{Color, PieceType, Position};

/// Entries per table (a power of two).
const SIZE: usize = 16384;
/// Fixed-point unit of an entry: 1/256 cp.
const GRAIN: i32 = 256;
/// An entry never says more than this (±64 cp).
const LIMIT: i32 = 64 * GRAIN;
/// Weight (out of 256) of the newest observation at depth d: `min(WEIGHT_PER_DEPTH × (d + 1), WEIGHT_MAX)`.
const WEIGHT_PER_DEPTH: i32 = 16;
const WEIGHT_MAX: i32 = 256 / 4;

/// Odd constants for hashing bitboards: the top bits of `bb × K` depend on every bit of `bb`.
const K: [u64; 6] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0xD6E8_FEB8_6659_FD93,
    0xFF51_AFD7_ED55_8CCD,
    0xC4CE_B9FE_1A85_EC53,
];

#[inline(always)]
fn slot(h: u64) -> usize {
    // Fold the high half down before taking the top bits: products of sparse bitboards keep
    // entropy in the high bits.
    ((h ^ (h >> 29)).wrapping_mul(K[0]) >> (64 - SIZE.trailing_zeros())) as usize
}

/// The slot of the pawn structure (both colours).
#[inline(always)]
fn pawn_slot(pos: &Position) -> usize {
    (pos.pawn_hash() >> (64 - SIZE.trailing_zeros())) as usize
}

/// The slot of `c`'s knights, bishops, rooks, queens and king.
#[inline(always)]
fn non_pawn_slot(pos: &Position, c: Color) -> usize {
    let mut h = 0u64;
    for (i, kind) in [
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
        PieceType::King,
    ]
    .into_iter()
    .enumerate()
    {
        h ^= pos
            .colored(c, kind)
            .0
            .wrapping_mul(K[i + 1])
            .rotate_left(i as u32 * 13);
    }
    slot(h)
}

/// The slot of the last two moves (their piece-to pairs): a move that the evaluation misjudges
/// (a threat it cannot see, a capture it undervalues) is misjudged again after the same reply.
#[inline(always)]
pub fn continuation_slot(last: PieceTo, before: PieceTo) -> usize {
    slot((last as u64).wrapping_mul(K[3]) ^ (before as u64).wrapping_mul(K[4]).rotate_left(32))
}

/// One thread's correction tables, indexed by the side to move.
pub struct CorrectionHistory {
    pawn: [[i16; SIZE]; 2],
    /// `[side to move][whose pieces]`.
    non_pawn: [[[i16; SIZE]; 2]; 2],
    /// By `continuation_slot` (not after a null move, nor at the root's first two plies).
    continuation: [[i16; SIZE]; 2],
}

impl CorrectionHistory {
    pub fn new() -> Box<CorrectionHistory> {
        // Zeroed directly on the heap (256 KiB: too large to build on the stack first).
        let mut b = Box::<CorrectionHistory>::new_uninit();
        // SAFETY: all-zero bytes are a valid value of arrays of i16.
        unsafe {
            std::ptr::write_bytes(b.as_mut_ptr(), 0, 1);
            b.assume_init()
        }
    }

    pub fn clear(&mut self) {
        self.pawn = [[0; SIZE]; 2];
        self.non_pawn = [[[0; SIZE]; 2]; 2];
        self.continuation = [[0; SIZE]; 2];
    }

    /// The correction for `pos`, reached by the moves of `continuation` (a
    /// `continuation_slot`, if there were two), in centipawns.
    #[inline(always)]
    pub fn correction(&self, pos: &Position, continuation: Option<usize>) -> i32 {
        let stm = pos.side_to_move() as usize;
        let pawn = self.pawn[stm][pawn_slot(pos)] as i32;
        let white = self.non_pawn[stm][0][non_pawn_slot(pos, Color::White)] as i32;
        let black = self.non_pawn[stm][1][non_pawn_slot(pos, Color::Black)] as i32;
        let moves = continuation.map_or(0, |s| self.continuation[stm][s] as i32);
        // Each table learns the whole error. The position's tables give their weighted mean,
        // the pawn table counting as much as the two non-pawn tables together; the moves'
        // table adds half its own on top, as moves explain what the position's parts cannot.
        (2 * pawn + white + black + 2 * moves) / (4 * GRAIN)
    }

    /// Learns that a search of `depth` found `score` where the raw evaluation said `raw`.
    pub fn update(
        &mut self,
        pos: &Position,
        continuation: Option<usize>,
        depth: i32,
        score: i32,
        raw: i32,
    ) {
        let target = ((score - raw) * GRAIN).clamp(-LIMIT, LIMIT);
        let weight = (WEIGHT_PER_DEPTH * (depth + 1)).min(WEIGHT_MAX);
        let blend = |e: &mut i16| {
            let v = (*e as i32 * (256 - weight) + target * weight) / 256;
            *e = v.clamp(-LIMIT, LIMIT) as i16;
        };
        let stm = pos.side_to_move() as usize;
        blend(&mut self.pawn[stm][pawn_slot(pos)]);
        blend(&mut self.non_pawn[stm][0][non_pawn_slot(pos, Color::White)]);
        blend(&mut self.non_pawn[stm][1][non_pawn_slot(pos, Color::Black)]);
        if let Some(s) = continuation {
            blend(&mut self.continuation[stm][s]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_error_is_learnt_and_bounded() {
        crate::chess::attacks::init();
        let pos = Position::from_fen(crate::chess::START_FEN).unwrap();
        let mut c = CorrectionHistory::new();
        assert_eq!(c.correction(&pos, None), 0);
        for _ in 0..100 {
            c.update(&pos, None, 10, 40, 0);
        }
        // Converges to the error (within the fixed point's truncation).
        assert!(
            (38..=40).contains(&c.correction(&pos, None)),
            "{}",
            c.correction(&pos, None)
        );
        for _ in 0..100 {
            c.update(&pos, None, 10, -5000, 0);
        }
        assert!((-64..=-63).contains(&c.correction(&pos, None)));
        // The other side to move has its own entries.
        let black =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert_eq!(c.correction(&black, None), 0);
        c.clear();
        assert_eq!(c.correction(&pos, None), 0);
    }

    #[test]
    fn the_moves_table_adds_half_its_error_on_top() {
        crate::chess::attacks::init();
        let pos = Position::from_fen(crate::chess::START_FEN).unwrap();
        let mut c = CorrectionHistory::new();
        let moves = Some(continuation_slot(100, 200));
        for _ in 0..100 {
            c.update(&pos, moves, 10, 40, 0);
        }
        // The position's tables say 40 cp; the moves' table adds half of its 40.
        assert!((38..=40).contains(&c.correction(&pos, None)));
        assert!((57..=60).contains(&c.correction(&pos, moves)));
        // Other moves to the same position get only the position's correction.
        assert!((38..=40).contains(&c.correction(&pos, Some(continuation_slot(200, 100)))));
    }

    #[test]
    fn the_slots_spread() {
        crate::chess::attacks::init();
        // Positions that differ by one pawn or one piece land in different slots (nearly
        // always: a collision here would show a weak hash).
        let a = Position::from_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").unwrap();
        let b = Position::from_fen("4k3/pppppppp/8/8/4P3/8/PPPP1PPP/4K3 w - - 0 1").unwrap();
        assert_ne!(pawn_slot(&a), pawn_slot(&b));
        let c = Position::from_fen("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1").unwrap();
        let d = Position::from_fen("4k3/8/8/8/8/8/8/2N1K3 w - - 0 1").unwrap();
        assert_ne!(
            non_pawn_slot(&c, Color::White),
            non_pawn_slot(&d, Color::White)
        );
        assert_eq!(
            non_pawn_slot(&c, Color::Black),
            non_pawn_slot(&d, Color::Black)
        );
    }
}
