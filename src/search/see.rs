//! Static exchange evaluation: the material outcome of the capture sequence on one square,
//! each side recapturing with its least valuable piece and free to stop when behind.
//! X-rays (a rook behind a rook) join as the pieces in front leave. Pins are ignored.

use crate::chess::PIECE_VALUES;
use crate::chess::{attacks, Bitboard, Move, MoveKind, PieceType, Position};

#[inline(always)]
fn value(t: PieceType) -> i32 {
    PIECE_VALUES[t.index()]
}

/// The exchange's value for the side making `m`, in centipawns.
pub fn see(pos: &Position, m: Move) -> i32 {
    if m.kind() == MoveKind::Castling {
        return 0;
    }
    let (from, to) = (m.from(), m.to());
    let us = pos.side_to_move();
    let mut occ = pos.occupied().without(from);
    let mut gain = [0i32; 34];

    let mover = pos.piece_at(from).map_or(PieceType::Pawn, |p| p.kind());
    gain[0] = pos.captured(m).map_or(0, value);
    if m.kind() == MoveKind::EnPassant {
        occ = occ.without(to.offset(-us.forward()));
    }
    // What stands on the square for the opponent to take next.
    let mut on_square = mover;
    if let Some(p) = m.promotion_piece() {
        gain[0] += value(p) - value(PieceType::Pawn);
        on_square = p;
    }

    let diag = pos.kind(PieceType::Bishop) | pos.kind(PieceType::Queen);
    let ortho = pos.kind(PieceType::Rook) | pos.kind(PieceType::Queen);
    let mut attackers = pos.attackers_to(to, occ) & occ;
    let mut side = us.flip();
    let mut d = 0;
    loop {
        let mine = attackers & pos.pieces(side);
        if mine.is_empty() {
            break;
        }
        let (kind, sq) = least_valuable(pos, mine);
        // The king may only take last, when nothing defends the square any more.
        if kind == PieceType::King && (attackers & pos.pieces(side.flip())).any() {
            break;
        }
        d += 1;
        gain[d] = value(on_square) - gain[d - 1];
        on_square = kind;
        occ = occ.without(sq);
        attackers = attackers.without(sq);
        if matches!(kind, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
            attackers |= attacks::bishop(to, occ) & diag & occ;
        }
        if matches!(kind, PieceType::Rook | PieceType::Queen) {
            attackers |= attacks::rook(to, occ) & ortho & occ;
        }
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
    let (from, to) = (m.from(), m.to());
    let us = pos.side_to_move();
    let mut on_square = pos.piece_at(from).map_or(PieceType::Pawn, |p| p.kind());
    // `balance`: what we have gained so far, less the threshold; it is ours to keep when the
    // side to capture next stops.
    let mut balance = pos.captured(m).map_or(0, value) - threshold;
    if let Some(p) = m.promotion_piece() {
        balance += value(p) - value(PieceType::Pawn);
        on_square = p;
    }
    // They stop at once: short of the threshold already.
    if balance < 0 {
        return false;
    }
    // They take our piece and we stop: still not short of it.
    balance -= value(on_square);
    if balance >= 0 {
        return true;
    }

    let mut occ = pos.occupied().without(from);
    if m.kind() == MoveKind::EnPassant {
        occ = occ.without(to.offset(-us.forward()));
    }
    let diag = pos.kind(PieceType::Bishop) | pos.kind(PieceType::Queen);
    let ortho = pos.kind(PieceType::Rook) | pos.kind(PieceType::Queen);
    let mut attackers = pos.attackers_to(to, occ) & occ;
    // From here on, `balance` counts as if the side to capture next did capture: each side
    // captures while stopping would leave it on the wrong side of the threshold (it always
    // would: otherwise the loop had already ended), and wins outright when it stays on its
    // side even after losing the capturing piece.
    let mut side = us.flip();
    loop {
        let mine = attackers & pos.pieces(side);
        if mine.is_empty() {
            // The side to capture cannot, and stopping loses for it.
            return side != us;
        }
        let (kind, sq) = least_valuable(pos, mine);
        // The king may only take last, when nothing defends the square any more.
        if kind == PieceType::King && (attackers & pos.pieces(side.flip())).any() {
            return side != us;
        }
        occ = occ.without(sq);
        attackers = attackers.without(sq);
        if matches!(kind, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
            attackers |= attacks::bishop(to, occ) & diag & occ;
        }
        if matches!(kind, PieceType::Rook | PieceType::Queen) {
            attackers |= attacks::rook(to, occ) & ortho & occ;
        }
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
fn least_valuable(pos: &Position, set: Bitboard) -> (PieceType, crate::chess::Square) {
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

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        see(&pos, m)
    }

    #[test]
    fn see_ge_agrees_with_the_full_exchange_at_every_threshold() {
        let text = std::fs::read_to_string("tests/data/perft.epd").unwrap();
        let mut checked = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let fen = line.split(';').next().unwrap().trim();
            let root = Position::from_fen(fen).unwrap();
            let mut all = vec![root];
            all.extend(root.legal_moves().iter().map(|&m| root.after(m)));
            for pos in all {
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
