//! Internal scores: centipawns in an `i32`, with mates encoded as distances from `MATE` so
//! that shorter mates score higher. They convert to the public [`Score`] only for reporting.

use super::types::Score;

/// Deeper than any search goes; bounds the search stack and the triangular PV table.
pub const MAX_PLY: usize = 128;

/// Above every real score: the initial window bounds.
pub const INF: i32 = 32_001;
/// Mate on the board (at ply 0). "Mated in p plies" is `-MATE + p`.
pub const MATE: i32 = 32_000;
/// Scores beyond this in absolute value are mates found within the search horizon.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win at the root (minus the ply it is found at): below every mate score.
pub const TB_WIN: i32 = MATE_BOUND - MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// "No score": marks a missing static evaluation (in check) in the stack.
pub const NONE: i32 = -INF - 1;

#[inline(always)]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

#[inline(always)]
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

#[inline(always)]
pub const fn is_mate(score: i32) -> bool {
    score.abs() > MATE_BOUND
}

/// The table stores mates as distance from the stored node, not from the root: a mate found
/// at ply 7 that is 3 plies away must read as 3 plies away wherever the node is met again.
#[inline(always)]
pub const fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Undoes [`to_tt`] for a node at `ply`.
#[inline(always)]
pub const fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Mate distances in moves (UCI counts full moves; a mate delivered by our next move is 1).
pub fn to_public(score: i32) -> Score {
    if score > MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score < -MATE_BOUND {
        Score::Mate(-(MATE + score) / 2)
    } else {
        Score::Cp(score)
    }
}

/// Keeps static evaluations out of the mate range (the evaluator is someone else's module).
#[inline(always)]
pub fn clamp_eval(v: i32) -> i32 {
    v.clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_in_moves() {
        assert_eq!(to_public(mate_in(1)), Score::Mate(1));
        assert_eq!(to_public(mate_in(3)), Score::Mate(2));
        assert_eq!(to_public(mated_in(0)), Score::Mate(0));
        assert_eq!(to_public(mated_in(2)), Score::Mate(-1));
        assert_eq!(to_public(mated_in(4)), Score::Mate(-2));
        assert_eq!(to_public(123), Score::Cp(123));
    }

    #[test]
    fn tt_adjustment_round_trips() {
        for s in [mate_in(9), mated_in(12), 0, 250, -250] {
            for ply in [0, 1, 5, 40] {
                assert_eq!(from_tt(to_tt(s, ply), ply), s);
            }
        }
        // Stored at ply 5 as mate in 4 plies from there; read at ply 2 it is 7 plies away.
        assert_eq!(from_tt(to_tt(mate_in(9), 5), 2), mate_in(6));
    }
}
