//! One training position in 32 bytes, and the network's inputs computed from it when a batch
//! is built.
//!
//! ```text
//! occupancy u64 | 32 × 4-bit pieces (colour<<3 | type, pawn 0 … king 5; the i-th set bit of
//! the occupancy, even i in the low nibble) | score i16 (side to move's view, cp)
//! | side to move u8 (0 White, 1 Black) | result u8 (side to move's, doubled: 0 loss, 1 draw,
//! 2 win) | 4 spare bytes (the u64's alignment rounds 28 up to 32)
//! ```
//! 300 M positions take 9.6 GB (an entry holding both input lists took 132 bytes). Unpacking
//! costs a walk over ≤ 32 bits, nothing beside the 2 × 32 rows of H floats a position adds up.
//!
//! The inputs are `brudno::eval::nnue::features::index`, with the horizontal mirroring of the
//! network file format (version 1): per perspective, when that perspective's own king stands
//! on files e–h, every square is mirrored a↔h (`sq ^ 7`) before indexing. `board_features`
//! computes the same from a `Position` through the engine's own `index`, and a test holds the
//! two equal.

use brudno::chess::{Color, Position};
use brudno::datagen::format::Sample;
use brudno::eval::nnue::features;

/// Inputs per perspective at most: one per piece.
pub const MAX_FEATURES: usize = 32;

const KING: u8 = 5;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed {
    pub occupancy: u64,
    pub pieces: [u8; 16],
    /// The search's score, side to move's view, centipawns.
    pub score: i16,
    /// 0 White, 1 Black.
    pub stm: u8,
    /// The game's result for the side to move, doubled: 0 loss, 1 draw, 2 win.
    pub result: u8,
}

const _: () = assert!(std::mem::size_of::<Packed>() <= 32);

/// The inputs of one position from both sides (side to move first); `len` of each are used.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub stm: [u16; MAX_FEATURES],
    pub ntm: [u16; MAX_FEATURES],
    pub len: usize,
}

impl Features {
    pub fn stm(&self) -> &[u16] {
        &self.stm[..self.len]
    }

    pub fn ntm(&self) -> &[u16] {
        &self.ntm[..self.len]
    }

    /// Every input mirrored a↔h (the square is the index's low six bits, its file the low
    /// three): the `--mirror` augmentation of a network without mirrored features.
    pub fn mirror_files(&mut self) {
        self.stm[..self.len].iter_mut().for_each(|f| *f ^= 7);
        self.ntm[..self.len].iter_mut().for_each(|f| *f ^= 7);
    }
}

/// The output bucket of a position with `pieces` pieces (kings included) for `buckets` buckets
/// (1 or 8): (pieces − 2) / 4. The engine's `Shape::bucket`, on the trainer's hot path without
/// a `Shape`; a test in `export.rs` holds the two equal.
#[inline]
pub fn bucket(pieces: u32, buckets: usize) -> usize {
    if buckets <= 1 {
        0
    } else {
        ((pieces.saturating_sub(2) / 4) as usize).min(buckets - 1)
    }
}

/// The engine's feature index of `piece` on `sq` for `perspective`, mirrored a↔h when
/// `mirror` (the perspective's own king is on files e–h and the network mirrors).
#[inline]
fn feature(perspective: Color, piece: brudno::chess::Piece, sq: usize, mirror: bool) -> usize {
    let sq = if mirror { sq ^ 7 } else { sq };
    features::index(perspective, piece, brudno::chess::Square::new(sq as u8))
}

/// The inputs of `pos` for `perspective`, from the board (the reference for `Packed`).
pub fn board_features(pos: &Position, perspective: Color, mirror_features: bool) -> Vec<u16> {
    let mirror = mirror_features && pos.king_square(perspective).file() >= 4;
    pos.occupied()
        .map(|sq| {
            let piece = pos.piece_at(sq).expect("an occupied square has a piece");
            feature(perspective, piece, sq.index(), mirror) as u16
        })
        .collect()
}

impl Packed {
    pub fn from_position(pos: &Position, stm_score: i16, stm_result_doubled: u8) -> Packed {
        let occ = pos.occupied();
        let mut pieces = [0u8; 16];
        for (i, sq) in occ.enumerate() {
            let p = pos.piece_at(sq).expect("an occupied square has a piece");
            let code = (p.color() as u8) << 3 | p.kind().index() as u8;
            pieces[i / 2] |= code << (4 * (i % 2));
        }
        Packed {
            occupancy: occ.0,
            pieces,
            score: stm_score,
            stm: pos.side_to_move() as u8,
            result: stm_result_doubled,
        }
    }

    pub fn from_sample(s: &Sample) -> Packed {
        Packed::from_position(&s.pos, s.stm_score(), (s.stm_result() * 2.0).round() as u8)
    }

    /// The result for the side to move: 1 win, ½ draw, 0 loss.
    pub fn result(&self) -> f32 {
        self.result as f32 / 2.0
    }

    pub fn pieces(&self) -> u32 {
        self.occupancy.count_ones()
    }

    pub fn side_to_move(&self) -> Color {
        if self.stm == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline]
    fn code(&self, i: usize) -> u8 {
        self.pieces[i / 2] >> (4 * (i % 2)) & 0xF
    }

    /// The inputs from both sides, the side to move's first, in square order.
    #[inline]
    pub fn features(&self, mirror_features: bool) -> Features {
        let stm = self.stm as usize;
        // Each side's own king, to decide its mirroring.
        let mut king_file = [0usize; 2];
        let mut bits = self.occupancy;
        let mut i = 0;
        while bits != 0 {
            let code = self.code(i);
            if code & 7 == KING {
                king_file[(code >> 3) as usize] = bits.trailing_zeros() as usize & 7;
            }
            bits &= bits - 1;
            i += 1;
        }
        let mirror = |side: usize| {
            if mirror_features && king_file[side] >= 4 {
                7
            } else {
                0
            }
        };
        // Perspective p: its own pieces first (0–383), ranks flipped for Black.
        let (m_stm, m_ntm) = (mirror(stm), mirror(stm ^ 1));
        let flip = |side: usize| if side == 1 { 56 } else { 0 };
        let (f_stm, f_ntm) = (flip(stm) ^ m_stm, flip(stm ^ 1) ^ m_ntm);
        let mut out = Features {
            stm: [0; MAX_FEATURES],
            ntm: [0; MAX_FEATURES],
            len: 0,
        };
        let mut bits = self.occupancy;
        let mut i = 0;
        while bits != 0 && i < MAX_FEATURES {
            let sq = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let code = self.code(i) as usize;
            let (colour, kind) = (code >> 3, code & 7);
            let theirs_stm = (colour != stm) as usize;
            out.stm[i] = (theirs_stm * 384 + kind * 64 + (sq ^ f_stm)) as u16;
            out.ntm[i] = ((1 - theirs_stm) * 384 + kind * 64 + (sq ^ f_ntm)) as u16;
            i += 1;
        }
        out.len = i;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brudno::chess::{Move, Outcome};

    const FENS: [&str; 6] = [
        brudno::chess::START_FEN,
        "r1bqk2r/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQkq - 2 8",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 20",
        "8/5k2/8/3P4/8/8/5K2/8 b - - 0 60",
        "8/8/1k6/8/8/8/6K1/8 w - - 0 70",
        "2kr3r/ppp2ppp/8/8/8/8/PPP2PPP/2KR3R w - - 0 25",
    ];

    fn sample(fen: &str, score: i16, outcome: Outcome) -> Sample {
        Sample {
            pos: Position::from_fen(fen).unwrap(),
            best: Move::NULL,
            score,
            outcome,
        }
    }

    #[test]
    fn a_packed_position_is_small_and_keeps_the_board_score_and_result() {
        assert_eq!(std::mem::size_of::<Packed>(), 32);
        for fen in FENS {
            let s = sample(fen, 150, Outcome::WhiteWins);
            let p = Packed::from_sample(&s);
            assert_eq!(p.occupancy, s.pos.occupied().0);
            assert_eq!(p.side_to_move(), s.pos.side_to_move());
            assert_eq!(p.score, s.stm_score());
            assert_eq!(p.result(), s.stm_result());
            // Every piece comes back on its square.
            for (i, sq) in s.pos.occupied().enumerate() {
                let piece = s.pos.piece_at(sq).unwrap();
                assert_eq!(p.code(i) >> 3, piece.color() as u8, "{fen} {sq}");
                assert_eq!((p.code(i) & 7) as usize, piece.kind().index(), "{fen} {sq}");
            }
            assert_eq!(p.pieces(), s.pos.occupied().0.count_ones());
        }
        let black = Packed::from_sample(&sample(FENS[2], 150, Outcome::WhiteWins));
        assert_eq!((black.score, black.result), (-150, 0));
    }

    #[test]
    fn packed_features_are_the_board_features_for_both_sides_with_and_without_mirroring() {
        let sorted = |v: &[u16]| {
            let mut v = v.to_vec();
            v.sort();
            v
        };
        let mut mirrored_somewhere = 0;
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let p = Packed::from_position(&pos, 0, 1);
            let stm = pos.side_to_move();
            for mirror in [false, true] {
                let f = p.features(mirror);
                assert_eq!(f.len, pos.occupied().0.count_ones() as usize);
                assert_eq!(
                    sorted(f.stm()),
                    sorted(&board_features(&pos, stm, mirror)),
                    "{fen} mirror {mirror}"
                );
                assert_eq!(
                    sorted(f.ntm()),
                    sorted(&board_features(&pos, stm.flip(), mirror)),
                    "{fen} mirror {mirror}"
                );
                if mirror && f.stm() != p.features(false).stm() {
                    mirrored_somewhere += 1;
                }
            }
            // Without mirroring, the engine's own list.
            let engine: Vec<u16> = features::active(&pos, stm).map(|f| f as u16).collect();
            assert_eq!(sorted(p.features(false).stm()), sorted(&engine));
        }
        // The positions have kings on both wings: the mirroring was exercised.
        assert!(mirrored_somewhere >= 3, "{mirrored_somewhere}");
    }

    #[test]
    fn mirroring_makes_a_position_and_its_mirror_image_the_same_inputs() {
        // Files reversed (no castling rights: they do not survive the mirror).
        let a = "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2Q1RK1 w - - 2 12";
        let b = "1kr1q2r/pppb2pp/2np1n2/4p3/4PP2/2N2N2/PPPB2PP/1KR1Q2R w - - 2 12";
        let f = |fen| {
            let pos = Position::from_fen(fen).unwrap();
            let mut x = Packed::from_position(&pos, 0, 1).features(true);
            x.stm[..x.len].sort();
            x.ntm[..x.len].sort();
            (x.stm().to_vec(), x.ntm().to_vec())
        };
        assert_eq!(f(a), f(b));
    }

    #[test]
    fn buckets_follow_the_piece_count() {
        let expect = [
            (2, 0),
            (5, 0),
            (6, 1),
            (9, 1),
            (10, 2),
            (17, 3),
            (18, 4),
            (29, 6),
            (30, 7),
            (32, 7),
        ];
        for (pieces, b) in expect {
            assert_eq!(bucket(pieces, 8), b, "{pieces} pieces");
            assert_eq!(bucket(pieces, 1), 0);
        }
        let start = Position::from_fen(FENS[0]).unwrap();
        assert_eq!(bucket(Packed::from_position(&start, 0, 1).pieces(), 8), 7);
    }
}
