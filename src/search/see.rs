//! Static exchange evaluation: the material outcome of the capture sequence on one square,
//! each side recapturing with its least valuable piece and free to stop when behind.
//! X-rays (a rook behind a rook) join as the pieces in front leave. Pins are ignored.

use crate::chess::PIECE_VALUES;
use crate::chess::{attacks, Bitboard, Color, Move, MoveKind, PieceType, Position, Square};

#[inline(always)]
fn value(t: PieceType) -> i32 {
    PIECE_VALUES[t.index()]
}

/// The first move's gain and the piece it leaves on the square (a promotion counts as the
/// new piece, less the pawn).
#[inline(always)]
fn first_capture(pos: &Position, m: Move) -> (i32, PieceType) {
    let mover = pos.piece_at(m.from()).map_or(PieceType::Pawn, |p| p.kind());
    let gain = pos.captured(m).map_or(0, value);
    match m.promotion_piece() {
        Some(p) => (gain + value(p) - value(PieceType::Pawn), p),
        None => (gain, mover),
    }
}

/// The recaptures on the square of a first move, each side in turn taking with its least
/// valuable attacker.
struct Exchange<'a> {
    pos: &'a Position,
    to: Square,
    occ: Bitboard,
    attackers: Bitboard,
    diag: Bitboard,
    ortho: Bitboard,
}

impl<'a> Exchange<'a> {
    /// After `m` (not castling): its piece gone from its square, and the pawn it took en
    /// passant from its own.
    #[inline(always)]
    fn after(pos: &'a Position, m: Move) -> Exchange<'a> {
        let to = m.to();
        let mut occ = pos.occupied().without(m.from());
        if m.kind() == MoveKind::EnPassant {
            occ = occ.without(to.offset(-pos.side_to_move().forward()));
        }
        Exchange {
            pos,
            to,
            occ,
            attackers: pos.attackers_to(to, occ) & occ,
            diag: pos.kind(PieceType::Bishop) | pos.kind(PieceType::Queen),
            ortho: pos.kind(PieceType::Rook) | pos.kind(PieceType::Queen),
        }
    }

    /// `side` takes on the square with its least valuable attacker, and the x-rays behind it
    /// join; the kind it took with, or `None` if it cannot take.
    #[inline(always)]
    fn recapture(&mut self, side: Color) -> Option<PieceType> {
        let mine = self.attackers & self.pos.pieces(side);
        if mine.is_empty() {
            return None;
        }
        let (kind, sq) = least_valuable(self.pos, mine);
        // The king may only take last, when nothing defends the square any more.
        if kind == PieceType::King && (self.attackers & self.pos.pieces(side.flip())).any() {
            return None;
        }
        self.occ = self.occ.without(sq);
        self.attackers = self.attackers.without(sq);
        if matches!(kind, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
            self.attackers |= attacks::bishop(self.to, self.occ) & self.diag & self.occ;
        }
        if matches!(kind, PieceType::Rook | PieceType::Queen) {
            self.attackers |= attacks::rook(self.to, self.occ) & self.ortho & self.occ;
        }
        Some(kind)
    }
}

/// The exchange's value for the side making `m`, in centipawns.
pub fn see(pos: &Position, m: Move) -> i32 {
    if m.kind() == MoveKind::Castling {
        return 0;
    }
    let mut gain = [0i32; 34];
    // `on_square`: what stands on the square for the other side to take next.
    let (first, mut on_square) = first_capture(pos, m);
    gain[0] = first;
    let mut exchange = Exchange::after(pos, m);
    let mut side = pos.side_to_move().flip();
    let mut d = 0;
    while let Some(kind) = exchange.recapture(side) {
        d += 1;
        gain[d] = value(on_square) - gain[d - 1];
        on_square = kind;
        side = side.flip();
        if d + 1 >= gain.len() {
            break;
        }
    }
    // Each side takes only if it does not lose by it.
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Whether the exchange gains at least `threshold`: `see(pos, m) >= threshold`, found by
/// following the exchange only until one side is sure to come out on its side of the
/// threshold. Most calls are decided before any attacker is looked up.
#[inline]
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    if m.kind() == MoveKind::Castling {
        return 0 >= threshold;
    }
    // `balance`: what we have gained so far, less the threshold; it is ours to keep when the
    // side to capture next stops.
    let (first, on_square) = first_capture(pos, m);
    let mut balance = first - threshold;
    // They stop at once: short of the threshold already.
    if balance < 0 {
        return false;
    }
    // They take our piece and we stop: still not short of it.
    balance -= value(on_square);
    if balance >= 0 {
        return true;
    }

    // From here on, `balance` counts as if the side to capture next did capture: each side
    // captures while stopping would leave it on the wrong side of the threshold (it always
    // would: otherwise the loop had already ended), and wins outright when it stays on its
    // side even after losing the capturing piece.
    let us = pos.side_to_move();
    let mut exchange = Exchange::after(pos, m);
    let mut side = us.flip();
    loop {
        // The side to capture cannot, and stopping loses for it.
        let Some(kind) = exchange.recapture(side) else {
            return side != us;
        };
        // `side` took; if the other side retakes `kind` and stops, is `side` still fine?
        if side == us {
            balance -= value(kind);
            if balance >= 0 {
                return true;
            }
        } else {
            balance += value(kind);
            if balance < 0 {
                return false;
            }
        }
        side = side.flip();
    }
}

#[inline(always)]
fn least_valuable(pos: &Position, set: Bitboard) -> (PieceType, Square) {
    for t in PieceType::ALL {
        let b = set & pos.kind(t);
        if b.any() {
            return (t, b.lsb());
        }
    }
    unreachable!("the set is not empty")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::perft::suite_positions_and_children;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        see(&pos, m)
    }

    #[test]
    fn see_ge_agrees_with_the_full_exchange_at_every_threshold() {
        let mut checked = 0;
        for pos in suite_positions_and_children() {
            for &m in pos.legal_moves().iter() {
                let v = see(&pos, m);
                for t in [
                    -2000, -900, -500, -300, -100, -1, 0, 1, 100, 300, 500, 900, 2000,
                ]
                .into_iter()
                .chain([v - 1, v, v + 1])
                {
                    assert_eq!(see_ge(&pos, m, t), v >= t, "{m:?} {t} in {}", pos.to_fen());
                    checked += 1;
                }
            }
        }
        assert!(checked > 300_000, "{checked}");
    }

    #[test]
    fn exchanges() {
        let [p, n, b, r, _q, _] = PIECE_VALUES;
        // Undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            p
        );
        // Knight takes a pawn defended by a pawn... and more.
        assert_eq!(
            see_of(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            p - n
        );
        // Rook takes a rook defended by a rook: an even trade.
        assert_eq!(see_of("4k3/4r3/4r3/8/8/8/4R3/4K3 w - - 0 1", "e2e6"), r - r);
        // Pawn takes defended bishop: wins bishop for pawn.
        assert_eq!(see_of("4k3/8/3p4/4b3/3P4/8/8/4K3 w - - 0 1", "d4e5"), b - p);
        // Quiet move to an attacked square loses the piece.
        assert_eq!(see_of("4k3/8/3p4/8/8/8/8/2B1K3 w - - 0 1", "c1f4"), 0);
        assert_eq!(see_of("4k3/8/8/3p4/8/8/8/2B1K3 w - - 0 1", "c1e3"), 0);
        assert_eq!(see_of("4k3/8/8/3p4/8/5B2/8/4K3 w - - 0 1", "f3e4"), -b);
        // The king cannot recapture while the square is still attacked...
        assert_eq!(see_of("3r2k1/3r4/8/8/8/8/3R4/2K5 b - - 0 1", "d7d2"), r);
        // ...but can when it is not.
        assert_eq!(see_of("6k1/3r4/8/8/8/8/3R4/2K5 b - - 0 1", "d7d2"), r - r);
        // En passant wins a pawn.
        assert_eq!(see_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), p);
    }
}
