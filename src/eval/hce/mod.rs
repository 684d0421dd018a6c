//! The hand-crafted evaluation e(p) of the lecture: what a position is worth when the search
//! stops, as a sum of known chess terms.
//!
//! A tapered evaluation: every term is a (middlegame, endgame) weight times a count from the
//! position, summed for each side; the two halves are blended by the game phase (non-pawn
//! material) and the result is scaled down in drawish endings. The weights live in
//! `weights.rs`, written by the Texel tuner (`brudno-tools tune`, in `tools/`); `params.rs`
//! says which is which.
//!
//! - `terms.rs`: the terms themselves (material, piece squares, mobility, king safety, pieces,
//!   threats, passed pawns, tempo) and the endgame scaling;
//! - `pawns.rs`: pawn structure, cached per search thread in a pawn table;
//! - `params.rs` / `weights.rs`: the layout of the weight table and its (generated) values;
//! - `packed.rs`: the packed middlegame/endgame pair `S`; `masks.rs`: square sets;
//! - `trace.rs`: the hook each term goes through; `explain.rs`: the `eval` command's table.
//!
//! Nothing is updated incrementally: material plus piece squares from scratch are one table
//! lookup per piece, and pawn structure is cached instead.

pub mod explain;
mod masks;
pub mod packed;
pub mod params;
pub mod pawns;
pub mod terms;
pub mod trace;
pub mod weights;

use crate::chess::Position;
use pawns::PawnTable;
use trace::NoTrace;

/// The hand-crafted value of `pos` for the side to move, pawn structures from `pawns` if
/// given (the same value either way).
#[inline(always)]
pub fn evaluate(pos: &Position, pawns: Option<&mut PawnTable>) -> i32 {
    crate::eval::from_side_to_move(pos, terms::evaluate_traced(pos, pawns, &mut NoTrace).white)
}
