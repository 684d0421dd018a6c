//! Legal move generation. Pins and check evasions are resolved while generating, so every
//! move produced is legal; nothing is made and tested. Captures and promotions ("noisy"
//! moves) and the rest ("quiet" moves) can be generated separately for staged move ordering.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::position::{castle_slot, CastleSide, Position};
use super::types::{Color, PieceType, Square};

/// Which moves to generate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenType {
    /// Captures (en passant included) and all promotions.
    Noisy,
    /// Everything else: quiet piece and pawn moves, castling.
    Quiet,
    All,
}

impl Position {
    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(GenType::All, &mut list);
        list
    }

    /// Appends the legal moves of the given kind to `list`.
    pub fn generate(&self, gen: GenType, list: &mut MoveList) {
        match gen {
            GenType::Noisy => self.gen_moves::<true, false>(list),
            GenType::Quiet => self.gen_moves::<false, true>(list),
            GenType::All => self.gen_moves::<true, true>(list),
        }
    }

    /// Whether the side to move has any legal move. Generates the whole list: it is used to
    /// detect the end of a game, not in the hot path.
    pub fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }

    #[inline(always)]
    fn gen_moves<const NOISY: bool, const QUIET: bool>(&self, list: &mut MoveList) {
        let us = self.side;
        let them = us.flip();
        let occ = self.occupied();
        let ours = self.by_color[us.index()];
        let theirs = self.by_color[them.index()];
        let ksq = self.king_square(us);
        // Fetched once: each free-function lookup would check that the tables are built.
        let t = attacks::tables();

        // Which destination squares each kind of move may use.
        let mut kind_mask = Bitboard::EMPTY;
        if NOISY {
            kind_mask |= theirs;
        }
        if QUIET {
            kind_mask |= !occ;
        }

        // King moves: to any square the enemy does not attack once the king has left.
        let occ_without_king = occ.without(ksq);
        for to in attacks::king(ksq) & !ours & kind_mask {
            if !self.is_attacked_by_in(t, them, to, occ_without_king) {
                list.push(Move::new(ksq, to));
            }
        }

        let checkers = self.checkers;
        if checkers.several() {
            return; // double check: only the king can move
        }
        // In check: block or capture the checker. Otherwise anywhere.
        let evasion_mask = if checkers.any() {
            t.between(ksq, checkers.lsb()) | checkers
        } else {
            Bitboard::ALL
        };
        let target = kind_mask & evasion_mask;
        let pinned = self.pinned_in(t, us);

        self.gen_pawn_moves::<NOISY, QUIET>(t, list, evasion_mask, pinned, ksq);

        // Pinned knights can never move.
        for from in self.colored(us, PieceType::Knight) & !pinned {
            for to in attacks::knight(from) & target {
                list.push(Move::new(from, to));
            }
        }
        let queens = self.colored(us, PieceType::Queen);
        for from in self.colored(us, PieceType::Bishop) | queens {
            let mut dests = t.bishop(from, occ) & target;
            if pinned.contains(from) {
                dests &= t.line(ksq, from);
            }
            for to in dests {
                list.push(Move::new(from, to));
            }
        }
        for from in self.colored(us, PieceType::Rook) | queens {
            let mut dests = t.rook(from, occ) & target;
            if pinned.contains(from) {
                dests &= t.line(ksq, from);
            }
            for to in dests {
                list.push(Move::new(from, to));
            }
        }

        if QUIET && checkers.is_empty() && self.castling >> (2 * us.index()) & 0b11 != 0 {
            for side in [CastleSide::King, CastleSide::Queen] {
                if self.castling >> castle_slot(us, side) & 1 != 0 {
                    let rook = self.castle_rooks[castle_slot(us, side)];
                    if self.can_castle(t, ksq, rook) {
                        list.push(Move::castling(ksq, rook));
                    }
                }
            }
        }
    }

    /// Castling with the king on `ksq` and the rook on `rook`: the squares both pass over
    /// must be empty (but for the two of them), and no square the king crosses or lands on
    /// may be attacked. Attacks are judged with king and rook lifted, which also catches the
    /// Chess960 case of a rook that shielded its king along the back rank.
    #[inline(always)]
    fn can_castle(&self, t: &attacks::Tables, ksq: Square, rook: Square) -> bool {
        let us = self.side;
        let (kt, rt) = Self::castle_targets(us, ksq, rook);
        let king_path = t.between(ksq, kt) | Bitboard::from_square(kt);
        let rook_path = t.between(rook, rt) | Bitboard::from_square(rt);
        let occ = self.occupied().without(ksq).without(rook);
        if ((king_path | rook_path) & occ).any() {
            return false;
        }
        for sq in king_path {
            if self.is_attacked_by_in(t, us.flip(), sq, occ) {
                return false;
            }
        }
        true
    }

    #[inline(always)]
    fn gen_pawn_moves<const NOISY: bool, const QUIET: bool>(
        &self,
        t: &attacks::Tables,
        list: &mut MoveList,
        evasion_mask: Bitboard,
        pinned: Bitboard,
        ksq: Square,
    ) {
        let us = self.side;
        let them = us.flip();
        let occ = self.occupied();
        let empty = !occ;
        let theirs = self.by_color[them.index()];
        let pawns = self.colored(us, PieceType::Pawn);
        let last_rank = Bitboard::rank(us.relative_rank(7));
        let third_rank = Bitboard::rank(us.relative_rank(2));
        let up = us.forward();

        // Pawns pinned along a file may push; along a diagonal may capture the pinner; a pawn
        // pinned along a rank cannot move. `line(ksq, from)` expresses all three, so pinned
        // pawns are generated one by one and the rest with whole-board shifts.
        let free = pawns & !pinned;
        let fwd = |b: Bitboard| {
            if us == Color::White {
                b.north()
            } else {
                b.south()
            }
        };

        // Pushes.
        let single = fwd(free) & empty;
        let double = fwd(single & third_rank) & empty & evasion_mask;
        let single = single & evasion_mask;
        if QUIET {
            for to in single & !last_rank {
                list.push(Move::new(to.offset(-up), to));
            }
            for to in double {
                list.push(Move::new(to.offset(-2 * up), to));
            }
        }
        if NOISY {
            for to in single & last_rank {
                push_promotions(list, to.offset(-up), to);
            }
            // Captures: towards the a-file side (west) and the h-file side (east).
            let targets = theirs & evasion_mask;
            let west = fwd(free).west() & targets;
            let east = fwd(free).east() & targets;
            for (set, delta) in [(west, up - 1), (east, up + 1)] {
                for to in set & !last_rank {
                    list.push(Move::new(to.offset(-delta), to));
                }
                for to in set & last_rank {
                    push_promotions(list, to.offset(-delta), to);
                }
            }
        }

        for from in pawns & pinned {
            let allowed = t.line(ksq, from) & evasion_mask;
            let mut dests = Bitboard::EMPTY;
            let one = from.offset(up);
            if empty.contains(one) {
                dests = dests.with(one);
                if third_rank.contains(one) && empty.contains(one.offset(up)) {
                    dests = dests.with(one.offset(up));
                }
            }
            dests |= attacks::pawn(us, from) & theirs;
            for to in dests & allowed {
                let capture = theirs.contains(to);
                if last_rank.contains(to) {
                    if NOISY {
                        push_promotions(list, from, to);
                    }
                } else if (capture && NOISY) || (!capture && QUIET) {
                    list.push(Move::new(from, to));
                }
            }
        }

        if NOISY {
            if let Some(ep) = self.ep {
                for from in attacks::pawn(them, ep) & pawns {
                    if self.en_passant_is_legal(t, from, ep, ksq) {
                        list.push(Move::en_passant(from, ep));
                    }
                }
            }
        }
    }

    /// En passant removes two pawns from a rank at once, which can uncover the king in ways
    /// the pin test does not see; so test the resulting occupancy against the enemy sliders
    /// (and, in check, that the move removes or blocks the checker).
    #[inline(always)]
    fn en_passant_is_legal(
        &self,
        t: &attacks::Tables,
        from: Square,
        ep: Square,
        ksq: Square,
    ) -> bool {
        let us = self.side;
        let them = us.flip();
        let captured = ep.offset(-us.forward());
        let occ = self.occupied().without(from).without(captured).with(ep);
        let theirs = self.by_color[them.index()].without(captured);
        let diag = (self.kind(PieceType::Bishop) | self.kind(PieceType::Queen)) & theirs;
        let ortho = (self.kind(PieceType::Rook) | self.kind(PieceType::Queen)) & theirs;
        if (t.bishop(ksq, occ) & diag).any() || (t.rook(ksq, occ) & ortho).any() {
            return false;
        }
        // Non-slider checkers: only the captured pawn itself can be one that this removes.
        let other_checkers = self.checkers
            & !(self.kind(PieceType::Bishop)
                | self.kind(PieceType::Rook)
                | self.kind(PieceType::Queen));
        (other_checkers & !Bitboard::from_square(captured)).is_empty()
    }
}

#[inline(always)]
fn push_promotions(list: &mut MoveList, from: Square, to: Square) {
    for p in [
        PieceType::Queen,
        PieceType::Knight,
        PieceType::Rook,
        PieceType::Bishop,
    ] {
        list.push(Move::promotion(from, to, p));
    }
}
