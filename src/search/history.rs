//! What the search learns about moves independently of the exact position, for ordering:
//! butterfly history (from-to, per side, split four ways by whether the from and the to
//! square are attacked),
//! pawn history (piece-to under the same pawn structure), continuation history (this move
//! after the one one or two plies before), capture history, and the counter-move table.
//!
//! Every history entry is updated with "gravity": `h += bonus - h·|bonus| / MAX`, which keeps
//! it inside ±MAX and lets recent results outweigh old ones.

use super::params::{HISTORY_MAX, HISTORY_OFFSET, HISTORY_PER_DEPTH};
use crate::chess::{Bitboard, Move, Piece, Position};

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

/// Pawn-structure slots of the pawn history (a power of two).
const PAWN_SLOTS: usize = 512;

/// What a quiet move's history is looked up by at one node, worked out once there: the side to
/// move, the squares the opponent attacks, the pawn structure, and the piece-to slots of the
/// moves one and two plies before (none after a null move or at the root).
///
/// The same from-to is a different move when it steps out of an attack, or into one, so the
/// butterfly table is split four ways by those two facts; a pawn structure favours the same
/// piece routes wherever it occurs, so the pawn history is keyed by it.
#[derive(Clone, Copy)]
pub struct QuietContext {
    side: usize,
    threats: Bitboard,
    pawns: usize,
    /// Whether `threats` and `pawns` are worked out (see `deferred`).
    ready: bool,
    pub cont: [Option<PieceTo>; 2],
}

impl QuietContext {
    pub fn new(pos: &Position, cont: [Option<PieceTo>; 2]) -> QuietContext {
        let mut ctx = QuietContext::deferred(pos, cont);
        ctx.prepare(pos);
        ctx
    }

    /// A context whose position-dependent parts wait for `prepare`: most nodes are cut off by
    /// the hash move or a capture before any quiet move is scored.
    #[inline(always)]
    pub fn deferred(pos: &Position, cont: [Option<PieceTo>; 2]) -> QuietContext {
        QuietContext {
            side: pos.side_to_move().index(),
            threats: Bitboard::EMPTY,
            pawns: 0,
            ready: false,
            cont,
        }
    }

    /// Works out the threats and the pawn slot of `pos` (the position it was made for), once.
    #[inline(always)]
    pub fn prepare(&mut self, pos: &Position) {
        if !self.ready {
            self.fill(pos);
        }
    }

    // Out of line: the node pays for the call only when quiet moves get scored.
    #[inline(never)]
    fn fill(&mut self, pos: &Position) {
        self.threats = pos.attacked_by(pos.side_to_move().flip());
        self.pawns = (pos.pawn_hash() >> (64 - PAWN_SLOTS.trailing_zeros())) as usize;
        self.ready = true;
    }

    #[inline(always)]
    fn threat_index(&self, m: Move) -> usize {
        debug_assert!(self.ready);
        2 * self.threats.contains(m.from()) as usize + self.threats.contains(m.to()) as usize
    }
}

pub struct Histories {
    /// `[side][threats on from and to][from][to]`.
    butterfly: [[[[i16; 64]; 64]; 4]; 2],
    /// `[pawn structure][piece-to]`.
    pawn: Vec<[i16; PIECE_TO]>,
    /// `[previous move's piece-to][this move's piece-to]`.
    continuation: Vec<[i16; PIECE_TO]>,
    /// `[piece-to][captured type]`.
    capture: Vec<[i16; 6]>,
    counter: [Move; PIECE_TO],
}

impl Histories {
    /// Bytes one set takes on the heap (the box and its three tables).
    pub const HEAP_BYTES: usize = std::mem::size_of::<Histories>()
        + (PIECE_TO + PAWN_SLOTS) * std::mem::size_of::<[i16; PIECE_TO]>()
        + PIECE_TO * std::mem::size_of::<[i16; 6]>();

    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[[[0; 64]; 64]; 4]; 2],
            pawn: vec![[0; PIECE_TO]; PAWN_SLOTS],
            continuation: vec![[0; PIECE_TO]; PIECE_TO],
            capture: vec![[0; 6]; PIECE_TO],
            counter: [Move::NULL; PIECE_TO],
        })
    }

    pub fn clear(&mut self) {
        self.butterfly = [[[[0; 64]; 64]; 4]; 2];
        self.pawn.iter_mut().for_each(|r| *r = [0; PIECE_TO]);
        self.continuation
            .iter_mut()
            .for_each(|r| *r = [0; PIECE_TO]);
        self.capture.iter_mut().for_each(|r| *r = [0; 6]);
        self.counter = [Move::NULL; PIECE_TO];
    }

    /// The ordering score of a quiet move at the node `ctx` describes.
    #[inline(always)]
    pub fn quiet_score(&self, pos: &Position, m: Move, ctx: &QuietContext) -> i32 {
        let mut s =
            self.butterfly[ctx.side][ctx.threat_index(m)][m.from().index()][m.to().index()] as i32;
        if let Some(piece) = pos.piece_at(m.from()) {
            let pt = piece_to(piece, m) as usize;
            s += self.pawn[ctx.pawns][pt] as i32;
            for c in ctx.cont.iter().flatten() {
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
        ctx: &QuietContext,
        depth: i32,
    ) {
        let b = bonus(depth);
        self.update_quiet(pos, best, ctx, b);
        for &m in tried {
            if m != best {
                self.update_quiet(pos, m, ctx, -b);
            }
        }
    }

    #[inline(always)]
    fn update_quiet(&mut self, pos: &Position, m: Move, ctx: &QuietContext, b: i32) {
        gravity(
            &mut self.butterfly[ctx.side][ctx.threat_index(m)][m.from().index()][m.to().index()],
            b,
        );
        if let Some(piece) = pos.piece_at(m.from()) {
            let pt = piece_to(piece, m) as usize;
            gravity(&mut self.pawn[ctx.pawns][pt], b);
            for c in ctx.cont.iter().flatten() {
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
