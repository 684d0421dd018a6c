//! What the search learns about moves independently of the exact position, for ordering:
//! butterfly history (from-to, per side), continuation history (this move after the one
//! one or two plies before), capture history, and the counter-move table.
//!
//! Every history entry is updated with "gravity": `h += bonus - h·|bonus| / MAX`, which keeps
//! it inside ±MAX and lets recent results outweigh old ones.

use super::params::{HISTORY_MAX, HISTORY_OFFSET, HISTORY_PER_DEPTH};
use crate::chess::{Move, Piece, Position};

pub const MAX_HISTORY: i32 = 16_384;

/// A move's (piece, destination) slot: `piece * 64 + to`, the index continuation history
/// and counter-moves are keyed by.
pub type PieceTo = u16;
pub const PIECE_TO: usize = 12 * 64;

#[inline(always)]
pub fn piece_to(piece: Piece, m: Move) -> PieceTo {
    (piece.index() * 64 + m.to().index()) as PieceTo
}

/// History reward for a cut at `depth` (and the penalty for the moves tried before it).
#[inline(always)]
pub fn bonus(depth: i32) -> i32 {
    (HISTORY_PER_DEPTH.get() * depth - HISTORY_OFFSET.get()).clamp(0, HISTORY_MAX.get())
}

#[inline(always)]
fn gravity(entry: &mut i16, bonus: i32) {
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / MAX_HISTORY) as i16;
}

pub struct Histories {
    butterfly: [[[i16; 64]; 64]; 2],
    /// `[previous move's piece-to][this move's piece-to]`.
    continuation: Vec<[i16; PIECE_TO]>,
    /// `[piece-to][captured type]`.
    capture: Vec<[i16; 6]>,
    counter: [Move; PIECE_TO],
}

impl Histories {
    /// Bytes one set takes on the heap (the box and its two tables).
    pub const HEAP_BYTES: usize = std::mem::size_of::<Histories>()
        + PIECE_TO * std::mem::size_of::<[i16; PIECE_TO]>()
        + PIECE_TO * std::mem::size_of::<[i16; 6]>();

    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[[0; 64]; 64]; 2],
            continuation: vec![[0; PIECE_TO]; PIECE_TO],
            capture: vec![[0; 6]; PIECE_TO],
            counter: [Move::NULL; PIECE_TO],
        })
    }

    pub fn clear(&mut self) {
        self.butterfly = [[[0; 64]; 64]; 2];
        self.continuation
            .iter_mut()
            .for_each(|r| *r = [0; PIECE_TO]);
        self.capture.iter_mut().for_each(|r| *r = [0; 6]);
        self.counter = [Move::NULL; PIECE_TO];
    }

    /// The ordering score of a quiet move. `cont` holds the piece-to slots of the moves one
    /// and two plies before (none after a null move or at the root).
    #[inline(always)]
    pub fn quiet_score(&self, pos: &Position, m: Move, cont: &[Option<PieceTo>; 2]) -> i32 {
        let side = pos.side_to_move().index();
        let mut s = self.butterfly[side][m.from().index()][m.to().index()] as i32;
        if let Some(piece) = pos.piece_at(m.from()) {
            let pt = piece_to(piece, m) as usize;
            for c in cont.iter().flatten() {
                s += self.continuation[*c as usize][pt] as i32;
            }
        }
        s
    }

    /// Rewards `best` (which caused a beta cut-off) and punishes the quiet moves tried before it.
    pub fn update_quiets(
        &mut self,
        pos: &Position,
        best: Move,
        tried: &[Move],
        cont: &[Option<PieceTo>; 2],
        depth: i32,
    ) {
        let b = bonus(depth);
        self.update_quiet(pos, best, cont, b);
        for &m in tried {
            if m != best {
                self.update_quiet(pos, m, cont, -b);
            }
        }
    }

    #[inline(always)]
    fn update_quiet(&mut self, pos: &Position, m: Move, cont: &[Option<PieceTo>; 2], b: i32) {
        let side = pos.side_to_move().index();
        gravity(
            &mut self.butterfly[side][m.from().index()][m.to().index()],
            b,
        );
        if let Some(piece) = pos.piece_at(m.from()) {
            let pt = piece_to(piece, m) as usize;
            for c in cont.iter().flatten() {
                gravity(&mut self.continuation[*c as usize][pt], b);
            }
        }
    }

    #[inline(always)]
    pub fn capture_score(&self, pos: &Position, m: Move) -> i32 {
        match (pos.piece_at(m.from()), pos.captured(m)) {
            (Some(p), Some(c)) => self.capture[piece_to(p, m) as usize][c.index()] as i32,
            _ => 0,
        }
    }

    /// Rewards a capture that cut off, or punishes one that did not.
    pub fn update_capture(&mut self, pos: &Position, m: Move, depth: i32, good: bool) {
        if let (Some(p), Some(c)) = (pos.piece_at(m.from()), pos.captured(m)) {
            let b = if good { bonus(depth) } else { -bonus(depth) };
            gravity(&mut self.capture[piece_to(p, m) as usize][c.index()], b);
        }
    }

    #[inline(always)]
    pub fn counter(&self, prev: Option<PieceTo>) -> Move {
        prev.map_or(Move::NULL, |p| self.counter[p as usize])
    }

    pub fn set_counter(&mut self, prev: Option<PieceTo>, m: Move) {
        if let Some(p) = prev {
            self.counter[p as usize] = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_stays_in_range() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 1600);
        }
        assert!(e as i32 <= MAX_HISTORY && e > 15_000);
        for _ in 0..1000 {
            gravity(&mut e, -1600);
        }
        assert!(e as i32 >= -MAX_HISTORY && e < -15_000);
    }
}
