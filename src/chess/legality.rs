//! Questions about a move or a position that the rules answer without playing the move: is a
//! move from somewhere else (the transposition table, a killer slot, a data file) legal here
//! — answered without generating the move list, so that a hash move can cut a node off
//! before any generation (castling and en passant are rare and subtle; for them the generator
//! decides); does it give check; is it a capture or promotion; can either side still mate.

use super::{attacks, Bitboard, GenType, Move, MoveKind, MoveList, PieceType, Position};

pub fn is_legal(pos: &Position, m: Move) -> bool {
    // Only the generator's encoding counts: no promotion bits on other kinds of move.
    if m.is_null() || (m.kind() != MoveKind::Promotion && m.raw() >> 14 != 0) {
        return false;
    }
    let us = pos.side_to_move();
    let them = us.flip();
    let (from, to) = (m.from(), m.to());
    let piece = match pos.piece_at(from) {
        Some(p) if p.color() == us => p.kind(),
        _ => return false,
    };

    match m.kind() {
        MoveKind::Castling | MoveKind::EnPassant => return in_generated(pos, m),
        MoveKind::Normal | MoveKind::Promotion => {}
    }

    let occ = pos.occupied();
    if pos.pieces(us).contains(to) {
        return false;
    }
    if piece == PieceType::Pawn {
        let last_rank = us.relative_rank(7);
        if (to.rank() == last_rank) != (m.kind() == MoveKind::Promotion) {
            return false;
        }
        let up = us.forward();
        let push = from.index() as i32 + up as i32 == to.index() as i32 && !occ.contains(to);
        let double = from.rank() == us.relative_rank(1)
            && from.index() as i32 + 2 * up as i32 == to.index() as i32
            && !occ.contains(to)
            && !occ.contains(from.offset(up));
        let capture = attacks::pawn(us, from).contains(to) && pos.pieces(them).contains(to);
        if !(push || double || capture) {
            return false;
        }
    } else {
        if m.kind() == MoveKind::Promotion {
            return false;
        }
        if !attacks::piece(piece, from, occ).contains(to) {
            return false;
        }
    }

    // Pseudo-legal; now the king's safety.
    let ksq = pos.king_square(us);
    if piece == PieceType::King {
        return !pos.is_attacked_by(them, to, occ.without(from));
    }
    let checkers = pos.checkers();
    if checkers.several() {
        return false;
    }
    if checkers.any() {
        let ok = attacks::between(ksq, checkers.lsb()) | checkers;
        if !ok.contains(to) {
            return false;
        }
    }
    !pos.pinned(us).contains(from) || attacks::line(ksq, from).contains(to)
}

#[cold]
fn in_generated(pos: &Position, m: Move) -> bool {
    let mut list = MoveList::new();
    let gen = match m.kind() {
        MoveKind::Castling => GenType::Quiet,
        _ => GenType::Noisy,
    };
    pos.generate(gen, &mut list);
    list.contains(m)
}

/// Whether `m` (legal here) checks the opponent's king, directly or by discovery, without
/// playing it. Castling and en passant, rare and with two pieces moving, are played out.
#[inline(always)]
pub fn gives_check(pos: &Position, m: Move) -> bool {
    if matches!(m.kind(), MoveKind::Castling | MoveKind::EnPassant) {
        return pos.after(m).in_check();
    }
    let us = pos.side_to_move();
    let ksq = pos.king_square(us.flip());
    let (from, to) = (m.from(), m.to());
    let moved = match m.promotion_piece() {
        Some(p) => p,
        None => match pos.piece_at(from) {
            Some(p) => p.kind(),
            None => return false,
        },
    };
    let occ = pos.occupied().without(from).with(to);
    // Our pieces after the move, by kind (the mover counted on its new square only).
    let ours = |t: PieceType| {
        let b = pos.colored(us, t).without(from);
        if t == moved {
            b.with(to)
        } else {
            b
        }
    };
    let diag = ours(PieceType::Bishop) | ours(PieceType::Queen);
    let ortho = ours(PieceType::Rook) | ours(PieceType::Queen);
    (attacks::bishop(ksq, occ) & diag).any()
        || (attacks::rook(ksq, occ) & ortho).any()
        || (attacks::knight(ksq) & ours(PieceType::Knight)).any()
        || (attacks::pawn(us.flip(), ksq) & ours(PieceType::Pawn)).any()
}

/// Captures (en passant included) and promotions: the moves `GenType::Noisy` produces.
#[inline(always)]
pub fn is_noisy(pos: &Position, m: Move) -> bool {
    match m.kind() {
        MoveKind::Promotion | MoveKind::EnPassant => true,
        MoveKind::Castling => false,
        MoveKind::Normal => pos.occupied().contains(m.to()),
    }
}

/// Whether the side to move has a piece other than pawns and king (the null-move guard).
#[inline(always)]
pub fn has_non_pawn_material(pos: &Position) -> bool {
    let us = pos.pieces(pos.side_to_move());
    let kp = pos.kind(PieceType::Pawn) | pos.kind(PieceType::King);
    (us & !kp).any()
}

/// Neither side can mate by any sequence of legal moves: bare kings, a single minor piece,
/// or only bishops all on squares of one colour.
pub fn insufficient_material(pos: &Position) -> bool {
    let heavy = pos.kind(PieceType::Pawn) | pos.kind(PieceType::Rook) | pos.kind(PieceType::Queen);
    if heavy.any() {
        return false;
    }
    let knights = pos.kind(PieceType::Knight);
    let bishops = pos.kind(PieceType::Bishop);
    let minors = knights | bishops;
    if minors.count() <= 1 {
        return true;
    }
    const DARK: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);
    knights.is_empty() && ((bishops & DARK).is_empty() || (bishops & !DARK).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard perft positions: castling, promotions, en passant, pins and checks.
    const PERFT_FENS: [&str; 5] = [
        crate::chess::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];

    fn check_all_raw_moves(pos: &Position) {
        let legal = pos.legal_moves();
        for raw in 0..=u16::MAX {
            let m = Move::from_raw(raw);
            assert_eq!(
                is_legal(pos, m),
                legal.contains(m),
                "{m:?} in {}",
                pos.to_fen()
            );
        }
    }

    #[test]
    fn agrees_with_the_generator_on_every_16_bit_move() {
        let extra = [
            // checks, pins, en passant that exposes the king
            "8/8/8/KPp4r/8/8/8/6k1 w - c6 0 2",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "4k3/4r3/8/8/8/8/3PN3/4K3 w - - 0 1",
            "4k3/8/8/8/8/5n2/8/4K2R w K - 0 1",
            "r3k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
        ];
        for fen in PERFT_FENS.iter().chain(&extra) {
            let pos = Position::from_fen(fen).unwrap();
            check_all_raw_moves(&pos);
            // and one ply deeper, to reach replies with checks and pins
            for &m in pos.legal_moves().iter().take(12) {
                check_all_raw_moves(&pos.after(m));
            }
        }
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let extra = [
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            "4k3/8/8/8/8/8/3B4/R3K2R w KQ - 0 1",
            "3k4/8/8/2Pp4/1K6/8/8/8 w - d6 0 1",
        ];
        for fen in PERFT_FENS.iter().chain(&extra) {
            let pos = Position::from_fen(fen).unwrap();
            let mut seen = vec![pos];
            for &m in pos.legal_moves().iter() {
                seen.push(pos.after(m));
            }
            for p in seen {
                for &m in p.legal_moves().iter() {
                    assert_eq!(
                        gives_check(&p, m),
                        p.after(m).in_check(),
                        "{m:?} in {}",
                        p.to_fen()
                    );
                }
            }
        }
    }

    #[test]
    fn dead_positions() {
        let dead = |fen: &str| insufficient_material(&Position::from_fen(fen).unwrap());
        assert!(dead("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(dead("8/8/4k3/8/8/3K4/8/6N1 w - - 0 1"));
        assert!(dead("8/8/4kb2/8/8/3K4/8/2B5 w - - 0 1")); // both bishops on dark squares
        assert!(!dead("8/8/4k1b1/8/8/3K4/8/2B5 w - - 0 1")); // opposite colours: mates exist
        assert!(!dead("8/8/4k3/8/8/3K4/8/5NN1 w - - 0 1"));
        assert!(!dead("8/8/4k3/8/8/3K4/7P/8 w - - 0 1"));
    }
}
