//! Square sets the evaluation asks about again and again, built at compile time.

use crate::chess::{Bitboard, Color, Square};

const fn file_bits(f: usize) -> u64 {
    0x0101_0101_0101_0101u64 << f
}

const fn adjacent_files_bits(f: usize) -> u64 {
    let mut b = 0;
    if f > 0 {
        b |= file_bits(f - 1);
    }
    if f < 7 {
        b |= file_bits(f + 1);
    }
    b
}

/// Ranks strictly in front of rank `r` as colour `c` sees it.
const fn ranks_ahead_bits(c: usize, r: usize) -> u64 {
    if c == 0 {
        if r >= 7 {
            0
        } else {
            !0u64 << (8 * (r + 1))
        }
    } else if r == 0 {
        0
    } else {
        !0u64 >> (8 * (8 - r))
    }
}

struct Masks {
    adjacent_files: [u64; 8],
    forward_file: [[u64; 64]; 2],
    passed: [[u64; 64]; 2],
    king_zone: [[u64; 64]; 2],
}

const fn build() -> Masks {
    let mut m = Masks {
        adjacent_files: [0; 8],
        forward_file: [[0; 64]; 2],
        passed: [[0; 64]; 2],
        king_zone: [[0; 64]; 2],
    };
    let mut f = 0;
    while f < 8 {
        m.adjacent_files[f] = adjacent_files_bits(f);
        f += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let (f, r) = (sq % 8, sq / 8);
            let ahead = ranks_ahead_bits(c, r);
            m.forward_file[c][sq] = ahead & file_bits(f);
            m.passed[c][sq] = ahead & (file_bits(f) | adjacent_files_bits(f));
            // The 3x3 box around the king, moved in from the edges: a king on the back rank
            // looks two ranks ahead, one in the corner two files across.
            let kf = if f == 0 {
                1
            } else if f == 7 {
                6
            } else {
                f
            };
            let kr = if r == 0 {
                1
            } else if r == 7 {
                6
            } else {
                r
            };
            let mut zone = 0u64;
            let mut i = 0;
            while i < 9 {
                zone |= 1u64 << ((kr + i / 3 - 1) * 8 + kf + i % 3 - 1);
                i += 1;
            }
            m.king_zone[c][sq] = zone;
            sq += 1;
        }
        c += 1;
    }
    m
}

static MASKS: Masks = build();

#[inline(always)]
pub fn file(f: u8) -> Bitboard {
    Bitboard(file_bits(f as usize))
}

#[inline(always)]
pub fn adjacent_files(f: u8) -> Bitboard {
    Bitboard(MASKS.adjacent_files[f as usize])
}

/// Squares in front of `sq` on its file, as colour `c` moves.
#[inline(always)]
pub fn forward_file(c: Color, sq: Square) -> Bitboard {
    Bitboard(MASKS.forward_file[c.index()][sq.index()])
}

/// Squares in front of `sq` on its own and the adjacent files: a pawn of colour `c` there is
/// passed when no enemy pawn stands in this set.
#[inline(always)]
pub fn passed_span(c: Color, sq: Square) -> Bitboard {
    Bitboard(MASKS.passed[c.index()][sq.index()])
}

/// Squares in front of `sq` on the adjacent files: where enemy pawns that could one day attack
/// `sq` stand (seen from colour `c`).
#[inline(always)]
pub fn attack_span(c: Color, sq: Square) -> Bitboard {
    Bitboard(MASKS.passed[c.index()][sq.index()] & MASKS.adjacent_files[sq.file() as usize])
}

/// The squares around a king of colour `c` on `sq` that attacks on are counted.
#[inline(always)]
pub fn king_zone(c: Color, sq: Square) -> Bitboard {
    Bitboard(MASKS.king_zone[c.index()][sq.index()])
}

/// King-move distance.
#[inline(always)]
pub fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// Squares of the same colour as `sq`.
#[inline(always)]
pub fn same_colour_squares(sq: Square) -> Bitboard {
    const DARK: u64 = 0xAA55_AA55_AA55_AA55;
    if DARK >> sq.index() & 1 != 0 {
        Bitboard(DARK)
    } else {
        Bitboard(!DARK)
    }
}

/// All squares attacked by the pawns of colour `c` in `pawns`.
#[inline(always)]
pub fn pawn_attacks(c: Color, pawns: Bitboard) -> Bitboard {
    match c {
        Color::White => pawns.north().east() | pawns.north().west(),
        Color::Black => pawns.south().east() | pawns.south().west(),
    }
}

/// One step forward for colour `c`.
#[inline(always)]
pub fn push(c: Color, b: Bitboard) -> Bitboard {
    match c {
        Color::White => b.north(),
        Color::Black => b.south(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn spans_and_zones() {
        assert_eq!(forward_file(Color::White, sq("e4")).count(), 4);
        assert_eq!(forward_file(Color::Black, sq("e4")).count(), 3);
        assert_eq!(passed_span(Color::White, sq("a2")).count(), 12);
        assert!(attack_span(Color::Black, sq("d5")).contains(sq("c4")));
        assert!(!attack_span(Color::Black, sq("d5")).contains(sq("d4")));
        assert!(!attack_span(Color::Black, sq("d5")).contains(sq("c5")));
        let z = king_zone(Color::White, sq("g1"));
        assert_eq!(z.count(), 9);
        assert!(z.contains(sq("h3")) && z.contains(sq("f1")) && !z.contains(sq("e1")));
        assert_eq!(
            king_zone(Color::Black, sq("g8")),
            Bitboard(z.0.swap_bytes())
        );
        assert_eq!(king_zone(Color::White, sq("e8")).count(), 9);
        assert_eq!(distance(sq("a1"), sq("h5")), 7);
        assert!(same_colour_squares(sq("a1")).contains(sq("h8")));
        assert!(!same_colour_squares(sq("a1")).contains(sq("a2")));
    }
}
