//! One position's accumulator: the hidden layer before activation, `bias + Σ rows of the
//! active features`, for both perspectives, stored as one slot of `2 × width` i16 (White's
//! half, then Black's). Built from scratch (`refresh`) at the root, then derived from the
//! parent's for each move (`update`): a move changes at most four features per perspective,
//! so the child costs one pass over 2 × width lanes that reads the parent, adds and subtracts
//! the changed rows and writes the child (copy-make, like `Position`: nothing is undone). The
//! shapes are fixed by `MoveDelta`: quiet moves and promotions add one row and subtract one,
//! captures add one and subtract two, castling adds two and subtracts two.
//!
//! With horizontal mirroring a perspective's rows depend on its own king's half of the board
//! (files a–d or e–h); a move that takes that king across rebuilds that perspective's half
//! alone from the pieces after the move, and the other half is updated as usual.

use super::features;
use super::network::Network;
use super::simd::Backend;
use crate::chess::{Color, MoveDelta, Piece, PieceType, Position, Square};

/// Perspective `c`'s half of `slot`.
#[inline(always)]
pub fn half(slot: &[i16], c: Color, width: usize) -> &[i16] {
    &slot[c.index() * width..][..width]
}

#[inline(always)]
fn half_mut(slot: &mut [i16], c: Color, width: usize) -> &mut [i16] {
    &mut slot[c.index() * width..][..width]
}

/// `dst` = perspective `c`'s half from scratch for the pieces `pieces` (files mirrored by
/// `mirror`, 0 or 7).
fn refresh_half(
    dst: &mut [i16],
    simd: Backend,
    net: &Network,
    c: Color,
    mirror: usize,
    pieces: impl Iterator<Item = (Piece, Square)>,
) {
    // 64 entries: a FEN may put more than 32 pieces on the board.
    let mut list = [0u16; 64];
    let mut n = 0;
    for (piece, sq) in pieces {
        list[n] = features::index_mirrored(c, piece, sq, mirror) as u16;
        n += 1;
    }
    simd.sum_rows(dst, &net.feature_bias, &net.feature_weights, &list[..n]);
}

/// The pieces of `pos`.
fn pieces_of(pos: &Position) -> impl Iterator<Item = (Piece, Square)> + '_ {
    pos.occupied().map(|sq| {
        let piece = pos.piece_at(sq).expect("an occupied square has a piece");
        (piece, sq)
    })
}

/// The pieces after `delta` is played from `before`: those of `before` off the squares the
/// move empties, then the ones it puts down (a square both emptied and filled, as the rook's
/// in Chess960 castling, is counted once).
fn pieces_after<'a>(
    before: &'a Position,
    delta: &'a MoveDelta,
) -> impl Iterator<Item = (Piece, Square)> + 'a {
    let emptied = delta
        .removed()
        .iter()
        .fold(0u64, |b, &(_, sq)| b | 1 << sq.index());
    pieces_of(before)
        .filter(move |(_, sq)| emptied >> sq.index() & 1 == 0)
        .chain(delta.added().iter().copied())
}

/// The file mirror of perspective `c` in `pos`, for `net`.
#[inline(always)]
fn mirror(net: &Network, pos: &Position, c: Color) -> usize {
    if net.shape().mirrored {
        features::mirror_of(pos, c)
    } else {
        0
    }
}

/// `slot` (2 × width) from scratch: the features of every piece on the board.
pub fn refresh(slot: &mut [i16], simd: Backend, net: &Network, pos: &Position) {
    let w = net.width();
    for c in Color::ALL {
        let m = mirror(net, pos, c);
        refresh_half(half_mut(slot, c, w), simd, net, c, m, pieces_of(pos));
    }
}

/// `child` becomes `parent` after the move whose change is `delta`, played from `before`.
#[inline]
pub fn update(
    child: &mut [i16],
    parent: &[i16],
    simd: Backend,
    net: &Network,
    before: &Position,
    delta: &MoveDelta,
) {
    let w = net.width();
    let (add, sub) = (delta.added(), delta.removed());
    for c in Color::ALL {
        let dst = half_mut(child, c, w);
        let m = mirror(net, before, c);
        if net.shape().mirrored {
            let king = Piece::new(c, PieceType::King);
            if let Some(&(_, to)) = add.iter().find(|(p, _)| *p == king) {
                let now = features::king_mirror(to);
                if now != m {
                    refresh_half(dst, simd, net, c, now, pieces_after(before, delta));
                    continue;
                }
            }
        }
        let src = half(parent, c, w);
        let row = |&(p, sq): &(Piece, Square)| net.row(features::index_mirrored(c, p, sq, m));
        match (add, sub) {
            ([a], [s]) => simd.add1_sub1(dst, src, row(a), row(s)),
            ([a], [s1, s2]) => simd.add1_sub2(dst, src, row(a), row(s1), row(s2)),
            ([a1, a2], [s1, s2]) => {
                simd.add2_sub2(dst, src, [row(a1), row(a2)], [row(s1), row(s2)])
            }
            ([], []) => dst.copy_from_slice(src),
            _ => unreachable!("no move has the delta {delta:?}"),
        }
    }
}

/// The evaluation in centipawns for `stm`, the side to move, of the accumulator `slot` of a
/// position with `pieces` pieces on the board.
#[inline]
pub fn evaluate(slot: &[i16], simd: Backend, net: &Network, stm: Color, pieces: usize) -> i32 {
    let w = net.width();
    let bucket = net.shape().bucket(pieces);
    let sum = simd.output_sum(
        half(slot, stm, w),
        half(slot, stm.flip(), w),
        net.bucket_weights(bucket),
    );
    net.scale_output(sum, bucket)
}
