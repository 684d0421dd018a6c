//! One position's accumulator: the hidden layer before activation, `bias + Σ rows of the
//! active features`, for both perspectives. Built from scratch (`refresh`) at the root, then
//! derived from the parent's for each move (`update_from`): a move changes at most four
//! features per perspective, so the child costs one pass over 2 × HIDDEN lanes that reads the
//! parent, adds and subtracts the changed rows and writes the child (copy-make, like
//! `Position`: nothing is undone). The shapes are fixed by `MoveDelta`: quiet moves and
//! promotions add one row and subtract one, captures add one and subtract two, castling adds
//! two and subtracts two.

use super::features;
use super::network::{Network, HIDDEN};
use super::simd::{Backend, Row};
use crate::chess::{Color, MoveDelta, Piece, Position, Square};

/// The hidden layer of one position, aligned for vector loads.
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Accumulator {
    /// Indexed by the perspective's `Color::index()`, not by side to move.
    pub halves: [Row; 2],
}

impl Accumulator {
    pub const ZERO: Accumulator = Accumulator {
        halves: [[0; HIDDEN]; 2],
    };

    /// From scratch: the features of every piece on the board.
    pub fn refresh(&mut self, simd: Backend, net: &Network, pos: &Position) {
        // 64 entries: a FEN may put more than 32 pieces on the board.
        let mut lists = [[0u16; 64]; 2];
        let mut n = 0;
        for sq in pos.occupied() {
            let piece = pos.piece_at(sq).expect("an occupied square has a piece");
            for c in Color::ALL {
                lists[c.index()][n] = features::index(c, piece, sq) as u16;
            }
            n += 1;
        }
        for c in Color::ALL {
            simd.sum_rows(
                &mut self.halves[c.index()],
                &net.feature_bias,
                &net.feature_weights,
                &lists[c.index()][..n],
            );
        }
    }

    /// This accumulator becomes the child of `parent` by the move whose change is `delta`.
    #[inline]
    pub fn update_from(
        &mut self,
        parent: &Accumulator,
        simd: Backend,
        net: &Network,
        delta: &MoveDelta,
    ) {
        let (add, sub) = (delta.added(), delta.removed());
        for c in Color::ALL {
            let row = |&(p, sq): &(Piece, Square)| &net.feature_weights[features::index(c, p, sq)];
            let (dst, src) = (&mut self.halves[c.index()], &parent.halves[c.index()]);
            match (add, sub) {
                ([a], [s]) => simd.add1_sub1(dst, src, row(a), row(s)),
                ([a], [s1, s2]) => simd.add1_sub2(dst, src, row(a), row(s1), row(s2)),
                ([a1, a2], [s1, s2]) => {
                    simd.add2_sub2(dst, src, [row(a1), row(a2)], [row(s1), row(s2)])
                }
                ([], []) => *dst = *src,
                _ => unreachable!("no move has the delta {delta:?}"),
            }
        }
    }

    /// The evaluation in centipawns for `stm`, the side to move.
    #[inline]
    pub fn evaluate(&self, simd: Backend, net: &Network, stm: Color) -> i32 {
        let sum = simd.output_sum(
            &self.halves[stm.index()],
            &self.halves[stm.flip().index()],
            &net.output_weights,
        );
        net.scale_output(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn refresh_and_update_agree_with_the_reference_on_every_backend() {
        let net = Network::random(5);
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let want = net.evaluate_from_scratch(&pos);
        for simd in Backend::available() {
            let mut acc = Accumulator::ZERO;
            acc.refresh(simd, &net, &pos);
            assert_eq!(acc.evaluate(simd, &net, pos.side_to_move()), want);
            for &m in pos.legal_moves().iter() {
                let child = pos.after(m);
                let mut next = Accumulator::ZERO;
                next.update_from(&acc, simd, &net, &MoveDelta::of(&pos, m));
                let mut fresh = Accumulator::ZERO;
                fresh.refresh(simd, &net, &child);
                assert_eq!(next, fresh, "{} after {m:?}", simd.name());
                assert_eq!(
                    next.evaluate(simd, &net, child.side_to_move()),
                    net.evaluate_from_scratch(&child)
                );
            }
            let mut same = Accumulator::ZERO;
            same.update_from(&acc, simd, &net, &MoveDelta::NONE);
            assert_eq!(same, acc);
        }
    }
}
