//! King and pawn against king: a bitbase of every position (won or drawn for the pawn's side),
//! computed by retrograde analysis the first time it is needed (about 10 ms, 24 KiB).
//!
//! Positions are seen with the pawn's side as white and the pawn on files a-d (a position with
//! the pawn on e-h is mirrored). The index packs the side to move, the pawn (file a-d, rank 2-7:
//! 24 squares) and both kings: 2 × 24 × 64 × 64 = 196,608 positions.
//!
//! The analysis: a promotion that leaves a queen (or, if the queen stalemates, a rook) that the
//! black king cannot take, without stalemating it, wins; so does mate. Black draws by taking the
//! undefended pawn or by stalemate. From the won positions it works backwards: a white-to-move
//! position that can move into a won one is won; a black-to-move position is lost once every one
//! of its moves has been found to lose (a count per position). What is never reached is a draw,
//! since black can never win. Each move is looked at once, backwards.

use crate::chess::{attacks, Bitboard, Color, Square};
use std::sync::OnceLock;

const POSITIONS: usize = 2 * 24 * 64 * 64;

const UNKNOWN: u8 = 0;
const DRAW: u8 = 1;
const WIN: u8 = 2;
const INVALID: u8 = 3;

/// Index of a position: white (the pawn's side) to move or not, white king, pawn (file a-d,
/// rank 2-7), black king.
#[inline(always)]
fn index(white_to_move: bool, wk: Square, pawn: Square, bk: Square) -> usize {
    debug_assert!(pawn.file() < 4 && (1..7).contains(&pawn.rank()));
    let p = pawn.file() as usize * 6 + pawn.rank() as usize - 1;
    ((!white_to_move as usize * 24 + p) << 12) | wk.index() << 6 | bk.index()
}

fn decode(i: usize) -> (bool, Square, Square, Square) {
    let p = (i >> 12) % 24;
    let white_to_move = i >> 12 < 24;
    let pawn = Square::from_coords((p / 6) as u8, (p % 6) as u8 + 1);
    (
        white_to_move,
        Square::new((i >> 6 & 63) as u8),
        pawn,
        Square::new((i & 63) as u8),
    )
}

fn adjacent(a: Square, b: Square) -> bool {
    attacks::king(a).contains(b)
}

/// Whether promoting on `q` wins at once: the new queen (or rook) cannot be taken and black,
/// to move, is not stalemated.
fn promotion_wins(wk: Square, q: Square, bk: Square) -> bool {
    if q == wk || q == bk || (adjacent(bk, q) && !adjacent(wk, q)) {
        return false;
    }
    // The black king does not block the lines it moves along.
    let occupied = Bitboard::from_square(wk).with(q);
    [attacks::queen(q, occupied), attacks::rook(q, occupied)]
        .iter()
        .any(|&covered| {
            let in_check = covered.contains(bk);
            let escapes = (attacks::king(bk) & !attacks::king(wk) & !covered).any();
            in_check || escapes
        })
}

fn valid(r: &[u8], i: usize) -> bool {
    r[i] != INVALID
}

fn compute() -> Vec<u8> {
    let mut r = vec![UNKNOWN; POSITIONS];
    // Black-to-move positions: legal moves not yet known to lose.
    let mut open_moves = vec![0u8; POSITIONS];
    let mut queue = Vec::with_capacity(POSITIONS / 2);
    for i in 0..POSITIONS {
        let (wtm, wk, p, bk) = decode(i);
        let pawn_attacks = attacks::pawn(Color::White, p);
        if wk == bk || wk == p || bk == p || adjacent(wk, bk) || (wtm && pawn_attacks.contains(bk))
        {
            r[i] = INVALID;
        } else if wtm && p.rank() == 6 && promotion_wins(wk, p.offset(8), bk) {
            r[i] = WIN;
            queue.push(i);
        } else if !wtm {
            let moves = attacks::king(bk) & !attacks::king(wk) & !pawn_attacks;
            if moves.contains(p) && !adjacent(wk, p) {
                r[i] = DRAW; // takes the pawn
            } else if (moves & !Bitboard::from_square(p)).is_empty() {
                // No move: mate if the pawn gives check, else stalemate.
                r[i] = if pawn_attacks.contains(bk) { WIN } else { DRAW };
                if r[i] == WIN {
                    queue.push(i);
                }
            } else {
                open_moves[i] = (moves & !Bitboard::from_square(p)).count() as u8;
            }
        }
    }
    // Retrograde: from each won position, back to the positions that can move into it.
    while let Some(x) = queue.pop() {
        let (wtm, wk, p, bk) = decode(x);
        if wtm {
            // Black moved its king here from a neighbouring square: one more losing move.
            for from in attacks::king(bk) {
                let y = index(false, wk, p, from);
                if valid(&r, y) && r[y] == UNKNOWN {
                    open_moves[y] -= 1;
                    if open_moves[y] == 0 {
                        r[y] = WIN;
                        queue.push(y);
                    }
                }
            }
        } else {
            // White moved here (king or pawn): that position is won.
            let mut win = |y: usize, r: &mut Vec<u8>| {
                if valid(r, y) && r[y] == UNKNOWN {
                    r[y] = WIN;
                    queue.push(y);
                }
            };
            for from in attacks::king(wk) {
                win(index(true, from, p, bk), &mut r);
            }
            if p.rank() >= 2 {
                win(index(true, wk, p.offset(-8), bk), &mut r);
            }
            let passed = p.offset(-8);
            if p.rank() == 3 && passed != wk && passed != bk {
                win(index(true, wk, p.offset(-16), bk), &mut r);
            }
        }
    }
    for v in r.iter_mut().filter(|v| **v == UNKNOWN) {
        *v = DRAW;
    }
    r
}

fn table() -> &'static [u64] {
    static BITS: OnceLock<Vec<u64>> = OnceLock::new();
    BITS.get_or_init(|| {
        let r = compute();
        let mut bits = vec![0u64; POSITIONS / 64];
        for (i, &v) in r.iter().enumerate() {
            if v == WIN {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        bits
    })
}

/// Builds the bitbase now rather than at the first probe (for start-up).
pub fn init() {
    table();
}

/// Whether the pawn's side wins. Squares are given with the pawn's side as white (flip the
/// ranks of all three squares when it is black); the pawn must be on rank 2-7 and the position
/// legal. `strong_to_move`: the pawn's side is to move.
pub fn probe(
    strong_king: Square,
    strong_pawn: Square,
    weak_king: Square,
    strong_to_move: bool,
) -> bool {
    let mirror = |s: Square| {
        if strong_pawn.file() >= 4 {
            Square::from_coords(7 - s.file(), s.rank())
        } else {
            s
        }
    };
    let i = index(
        strong_to_move,
        mirror(strong_king),
        mirror(strong_pawn),
        mirror(weak_king),
    );
    table()[i / 64] >> (i % 64) & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn textbook_positions() {
        // Opposition: king in front of the pawn, with the opposition, wins; without, draws.
        assert!(probe(sq("e6"), sq("e5"), sq("e8"), true));
        assert!(probe(sq("d6"), sq("d5"), sq("d8"), false));
        assert!(!probe(sq("d5"), sq("d4"), sq("d7"), true));
        // Rook pawn with the defender in the corner: draw.
        assert!(!probe(sq("b6"), sq("a5"), sq("a8"), true));
        // Pawn outruns the king (rule of the square).
        assert!(probe(sq("a1"), sq("h5"), sq("a6"), true));
        assert!(!probe(sq("a1"), sq("h4"), sq("d6"), false));
        // King on the sixth in front of its pawn wins whoever moves (non-rook pawn).
        assert!(probe(sq("c6"), sq("c4"), sq("c8"), true));
        assert!(probe(sq("c6"), sq("c4"), sq("c8"), false));
    }

    #[test]
    fn counts() {
        let r = compute();
        let wins = r.iter().filter(|&&v| v == WIN).count();
        let draws = r.iter().filter(|&&v| v == DRAW).count();
        assert_eq!(r.iter().filter(|&&v| v == UNKNOWN).count(), 0);
        assert!(wins > draws, "{wins} {draws}");
    }
}
