//! The evaluation proper: every term, written once, generic over a `Trace` that sees each
//! `weight × count` as it is added (a no-op for the search, a table for `eval`, coefficient
//! vectors for the tuner).

use super::masks::{
    attack_span, distance, file, forward_file, king_zone, pawn_attacks, push, same_colour_squares,
};
use super::packed::S;
use super::params::*;
use super::pawns::{evaluate_pawns, PawnTable};
use super::trace::Trace;
use super::weights::WEIGHTS;
use crate::chess::PIECE_VALUES;
use crate::chess::{attacks, Bitboard, Color, PieceType, Position, Square};

use PieceType::{Bishop, King, Knight, Pawn, Queen, Rook};

/// Phase weight of each piece type: 24 with all pieces on the board, 0 with kings and pawns only.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;
/// Endgame scale factors are in 128ths.
pub const SCALE_NORMAL: i32 = 128;
/// Evaluations stay well inside this, far from mate scores.
pub(crate) const EVAL_LIMIT: i32 = 15_000;

/// Danger units of a piece attacking the enemy king zone (they feed the squared danger term, which
/// the tuner weighs as a whole; the units themselves are set by hand).
const ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];
const CHECK_UNITS: [i32; 6] = [0, 3, 2, 3, 3, 0];

/// The evaluation split into what blending needs; `white` is the result from white's side.
#[derive(Clone, Copy, Debug)]
pub struct Breakdown {
    pub score: S,
    pub phase: i32,
    pub scale: i32,
    pub white: i32,
}

/// Blends middlegame and endgame by phase, and scales the result down in drawish endings (all of
/// it: in a dead draw with a minor piece left the middlegame share is not small).
#[inline(always)]
pub fn blend(score: S, phase: i32, scale: i32) -> i32 {
    (score.mg() * phase + score.eg() * (MAX_PHASE - phase)) * scale / SCALE_NORMAL / MAX_PHASE
}

struct Eval<'a, T: Trace> {
    pos: &'a Position,
    trace: &'a mut T,
    score: [S; 2],
    occ: Bitboard,
    /// Squares attacked by colour, by colour and piece type, and by two or more pieces.
    attacked: [Bitboard; 2],
    attacked_by: [[Bitboard; 6]; 2],
    attacked2: [Bitboard; 2],
    /// Where a colour's pieces count their mobility.
    mobility_area: [Bitboard; 2],
    /// The king zone of each colour, and what the other colour's pieces do to it.
    zone: [Bitboard; 2],
    zone_attackers: [i32; 2],
    danger_units: [i32; 2],
}

impl<T: Trace> Eval<'_, T> {
    #[inline(always)]
    fn add(&mut self, c: Color, index: usize, count: i32) {
        self.score[c.index()] += WEIGHTS[index] * count;
        if T::ACTIVE {
            self.trace.add(c, index, count);
        }
    }

    fn material(&mut self) -> i32 {
        let mut phase = 0;
        for c in Color::ALL {
            for t in PieceType::ALL {
                let pieces = self.pos.colored(c, t);
                if t != King {
                    self.add(c, MATERIAL + t.index(), pieces.count() as i32);
                }
                phase += PHASE_WEIGHT[t.index()] * pieces.count() as i32;
                for sq in pieces {
                    let rel = match c {
                        Color::White => sq,
                        Color::Black => sq.flip_rank(),
                    };
                    self.add(c, PST + 64 * t.index() + rel.index(), 1);
                }
            }
        }
        phase.min(MAX_PHASE)
    }

    fn init_attacks(&mut self) {
        for c in Color::ALL {
            let them = c.flip();
            let pawns = self.pos.colored(c, Pawn);
            let by_pawns = pawn_attacks(c, pawns);
            let ksq = self.pos.king_square(c);
            let by_king = attacks::king(ksq);
            let pawn_doubles = match c {
                Color::White => pawns.north().east() & pawns.north().west(),
                Color::Black => pawns.south().east() & pawns.south().west(),
            };
            self.attacked_by[c.index()][Pawn.index()] = by_pawns;
            self.attacked_by[c.index()][King.index()] = by_king;
            self.attacked[c.index()] = by_pawns | by_king;
            self.attacked2[c.index()] = (by_pawns & by_king) | pawn_doubles;
            self.zone[c.index()] = king_zone(c, ksq);
            let their_pawn_attacks = pawn_attacks(them, self.pos.colored(them, Pawn));
            self.mobility_area[c.index()] =
                !(pawns | self.pos.colored(c, King) | their_pawn_attacks);
        }
    }

    /// Mobility, king-zone attacks and the piece-specific terms of knights, bishops, rooks and
    /// queens.
    fn pieces(&mut self, c: Color) {
        let pos = self.pos;
        let them = c.flip();
        let ci = c.index();
        let our_pawns = pos.colored(c, Pawn);
        let their_pawns = pos.colored(them, Pawn);
        let ksq = pos.king_square(c);
        let pinned = pos.pinned(c);
        let queens = pos.colored(c, Queen);
        let enemy_zone = self.zone[them.index()];

        for (t, mobility) in [
            (Knight, MOB_KNIGHT),
            (Bishop, MOB_BISHOP),
            (Rook, MOB_ROOK),
            (Queen, MOB_QUEEN),
        ] {
            for sq in pos.colored(c, t) {
                // Bishops and rooks see through their own queen (and rooks through rooks).
                let mut att = match t {
                    Knight => attacks::knight(sq),
                    Bishop => attacks::bishop(sq, self.occ ^ queens),
                    Rook => attacks::rook(sq, self.occ ^ queens ^ pos.colored(c, Rook)),
                    _ => attacks::queen(sq, self.occ),
                };
                if pinned.contains(sq) {
                    att &= attacks::line(ksq, sq);
                }
                self.attacked2[ci] |= self.attacked[ci] & att;
                self.attacked[ci] |= att;
                self.attacked_by[ci][t.index()] |= att;

                let mob = (att & self.mobility_area[ci]).count() as usize;
                self.add(c, mobility + mob, 1);

                let hits = (att & enemy_zone).count() as i32;
                if hits > 0 {
                    self.zone_attackers[ci] += 1;
                    self.danger_units[ci] += ATTACK_UNITS[t.index()] + hits;
                    self.add(them, KS_ATTACKERS + t.index(), 1);
                    self.add(them, KS_ZONE_HITS, hits);
                }

                let rr = c.relative_rank(sq.rank());
                match t {
                    Knight | Bishop => {
                        if (3..=5).contains(&rr) && (attack_span(c, sq) & their_pawns).is_empty() {
                            let defended = self.attacked_by[ci][Pawn.index()].contains(sq) as usize;
                            let kind = (t == Bishop) as usize;
                            self.add(c, OUTPOST + 2 * kind + defended, 1);
                        }
                        if (push(c, Bitboard::from_square(sq)) & our_pawns).any() {
                            self.add(c, MINOR_BEHIND_PAWN, 1);
                        }
                        if t == Bishop {
                            let same = (same_colour_squares(sq) & our_pawns).count() as i32;
                            self.add(c, BISHOP_PAWNS, same);
                        }
                    }
                    Rook => {
                        let f = file(sq.file());
                        if (f & our_pawns).is_empty() {
                            if (f & their_pawns).is_empty() {
                                self.add(c, ROOK_OPEN, 1);
                            } else {
                                self.add(c, ROOK_SEMIOPEN, 1);
                            }
                        }
                        if rr == 6
                            && (c.relative_rank(pos.king_square(them).rank()) == 7
                                || (their_pawns & Bitboard::rank(sq.rank())).any())
                        {
                            self.add(c, ROOK_SEVENTH, 1);
                        }
                    }
                    _ => {}
                }
            }
        }
        if pos.colored(c, Bishop).several() {
            self.add(c, BISHOP_PAIR, 1);
        }
    }

    /// The safety of colour `c`'s king: attacks on its zone (counted in `pieces`), safe checks,
    /// weak squares, the squared danger, pawn shield and storm, and open files.
    fn king_safety(&mut self, c: Color) {
        let pos = self.pos;
        let them = c.flip();
        let (ci, ti) = (c.index(), them.index());
        let ksq = pos.king_square(c);

        let safe = !self.attacked[ci] & !pos.pieces(them);
        let rook_lines = attacks::rook(ksq, self.occ);
        let bishop_lines = attacks::bishop(ksq, self.occ);
        let checks = [
            (Knight, attacks::knight(ksq)),
            (Bishop, bishop_lines),
            (Rook, rook_lines),
            (Queen, rook_lines | bishop_lines),
        ];
        let mut units = self.danger_units[ti];
        for (t, from) in checks {
            let n = (from & self.attacked_by[ti][t.index()] & safe).count() as i32;
            if n > 0 {
                self.add(c, KS_SAFE_CHECKS + t.index(), n);
                units += CHECK_UNITS[t.index()] * n;
            }
        }
        let weak = self.zone[ci]
            & self.attacked[ti]
            & !self.attacked2[ci]
            & (!self.attacked[ci]
                | self.attacked_by[ci][King.index()]
                | self.attacked_by[ci][Queen.index()]);
        let n = weak.count() as i32;
        if n > 0 {
            self.add(c, KS_WEAK_ZONE, n);
            units += n;
        }
        if self.zone_attackers[ti] >= 2 && pos.colored(them, Queen).any() {
            let u = units.min(48);
            self.add(c, KS_DANGER_SQUARED, u * u / 16);
        }

        // Shield and storm on the king's file and its neighbours (a king on the edge looks at
        // the two files next to it).
        let ours = pos.colored(c, Pawn);
        let theirs = pos.colored(them, Pawn);
        let not_behind = match c {
            Color::White => Bitboard(!0u64 << (8 * ksq.rank())),
            Color::Black => Bitboard(!0u64 >> (8 * (7 - ksq.rank()))),
        };
        let centre = ksq.file().clamp(1, 6);
        let (mut semiopen, mut open) = (0, 0);
        for f in centre - 1..=centre + 1 {
            let on_file = file(f);
            let edge = f.min(7 - f) as usize;
            let own = ours & on_file & not_behind;
            let shield = if own.any() {
                let nearest = if c == Color::White {
                    own.lsb()
                } else {
                    own.msb()
                };
                c.relative_rank(nearest.rank()) as usize
            } else {
                0
            };
            self.add(c, KS_SHIELD + 7 * edge + shield, 1);

            let enemy = theirs & on_file & not_behind;
            if enemy.any() {
                let nearest = if c == Color::White {
                    enemy.lsb()
                } else {
                    enemy.msb()
                };
                let rr = c.relative_rank(nearest.rank()) as usize;
                let blocked = ours.contains(nearest.offset(-c.forward()));
                self.add(c, if blocked { KS_STORM_BLOCKED } else { KS_STORM } + rr, 1);
            } else {
                self.add(c, KS_STORM, 1);
            }

            if (ours & on_file).is_empty() {
                semiopen += 1;
                if (theirs & on_file).is_empty() {
                    open += 1;
                }
            }
        }
        if semiopen > 0 {
            self.add(c, KS_SEMIOPEN_FILE, semiopen);
        }
        if open > 0 {
            self.add(c, KS_OPEN_FILE, open);
        }
    }

    /// What colour `c` threatens.
    fn threats(&mut self, c: Color) {
        let pos = self.pos;
        let them = c.flip();
        let (ci, ti) = (c.index(), them.index());
        let their_pieces = pos.pieces(them) & !pos.kind(Pawn) & !pos.kind(King);
        let their_pawns = pos.colored(them, Pawn);
        // Pawns defended by pawns are not worth attacking with pieces.
        let targets = their_pieces | (their_pawns & !self.attacked_by[ti][Pawn.index()]);
        let by_minor = self.attacked_by[ci][Knight.index()] | self.attacked_by[ci][Bishop.index()];
        let by_rook = self.attacked_by[ci][Rook.index()];
        let by_pawn = self.attacked_by[ci][Pawn.index()];

        for t in [Pawn, Knight, Bishop, Rook, Queen] {
            let victims = pos.colored(them, t);
            if t != Pawn {
                let n = (victims & by_pawn).count() as i32;
                if n > 0 {
                    self.add(c, THREAT_BY_PAWN + t.index(), n);
                }
            }
            let n = (victims & targets & by_minor).count() as i32;
            if n > 0 {
                self.add(c, THREAT_BY_MINOR + t.index(), n);
            }
            let n = (victims & targets & by_rook).count() as i32;
            if n > 0 {
                self.add(c, THREAT_BY_ROOK + t.index(), n);
            }
        }

        let undefended = !self.attacked[ti];
        let n = ((their_pieces | their_pawns) & self.attacked_by[ci][King.index()] & undefended)
            .count() as i32;
        if n > 0 {
            self.add(c, THREAT_BY_KING, n);
        }
        let n = (their_pieces & self.attacked[ci] & undefended).count() as i32;
        if n > 0 {
            self.add(c, HANGING, n);
        }

        let pushes = push(c, pos.colored(c, Pawn)) & !self.occ;
        let safe_pushes =
            pushes & !self.attacked_by[ti][Pawn.index()] & (self.attacked[ci] | !self.attacked[ti]);
        let n = (pawn_attacks(c, safe_pushes) & their_pieces).count() as i32;
        if n > 0 {
            self.add(c, THREAT_PAWN_PUSH, n);
        }
    }

    /// The terms of colour `c`'s passed pawns that depend on more than pawns.
    fn passed(&mut self, c: Color, passed: Bitboard) {
        let pos = self.pos;
        let them = c.flip();
        let own_king = pos.king_square(c);
        let their_king = pos.king_square(them);
        let their_pieces_gone = (pos.pieces(them) & !pos.kind(Pawn) & !pos.kind(King)).is_empty();
        for sq in passed & pos.colored(c, Pawn) {
            let rr = c.relative_rank(sq.rank()) as usize;
            let stop = sq.offset(c.forward());
            let factor = rr as i32 - 2;
            if factor > 0 {
                self.add(
                    c,
                    PASSED_KING_OWN + distance(own_king, stop) as usize,
                    factor,
                );
                self.add(
                    c,
                    PASSED_KING_THEIR + distance(their_king, stop) as usize,
                    factor,
                );
            }
            let path = forward_file(c, sq);
            if !self.occ.contains(stop) {
                self.add(c, PASSED_FREE + rr, 1);
                if (path & (self.occ | self.attacked[them.index()])).is_empty() {
                    self.add(c, PASSED_SAFE + rr, 1);
                }
            }
            if their_pieces_gone && (path & pos.pieces(c)).is_empty() {
                // The rule of the square: can the king reach the queening square in time?
                let queening = Square::from_coords(sq.file(), c.relative_rank(7));
                let pawn_moves = (7 - rr as i32).min(5);
                let king_moves =
                    distance(their_king, queening) - (pos.side_to_move() == them) as i32;
                if king_moves > pawn_moves {
                    self.add(c, PASSED_UNSTOPPABLE, 1);
                }
            }
        }
    }
}

/// Non-pawn material of a colour by the static piece values.
fn non_pawn_material(pos: &Position, c: Color) -> i32 {
    [Knight, Bishop, Rook, Queen]
        .iter()
        .map(|&t| pos.colored(c, t).count() as i32 * PIECE_VALUES[t.index()])
        .sum()
}

/// How much of the endgame score the stronger side can hope to keep, in 128ths.
pub fn endgame_scale(pos: &Position, score: S) -> i32 {
    // The side ahead in the endgame (in the middlegame on a tie, so mirrored positions agree).
    let lead = if score.eg() != 0 {
        score.eg()
    } else {
        score.mg()
    };
    let strong = if lead >= 0 {
        Color::White
    } else {
        Color::Black
    };
    let weak = strong.flip();
    let strong_pawns = pos.colored(strong, Pawn);
    let (npm_s, npm_w) = (non_pawn_material(pos, strong), non_pawn_material(pos, weak));

    if strong_pawns.is_empty() {
        // A lone minor piece cannot mate; two knights cannot force it.
        let only_knights = npm_s == pos.colored(strong, Knight).count() as i32 * PIECE_VALUES[1];
        if npm_s < PIECE_VALUES[3] || (only_knights && npm_s <= 2 * PIECE_VALUES[1]) {
            return 0;
        }
        // Up by a minor piece or less without pawns (rook against minor, rook and minor against
        // rook, ...): usually a draw.
        if npm_s - npm_w <= PIECE_VALUES[2] {
            return 16;
        }
    }

    let bishops = [
        pos.colored(Color::White, Bishop),
        pos.colored(Color::Black, Bishop),
    ];
    if bishops[0].count() == 1
        && bishops[1].count() == 1
        && same_colour_squares(bishops[0].lsb()) != same_colour_squares(bishops[1].lsb())
    {
        // Opposite-coloured bishops: the defender blockades on the other colour. With a rook
        // each as well it is still drawish; with more on the board it is a middlegame.
        let b = PIECE_VALUES[2];
        if npm_s == b && npm_w == b {
            return 48;
        }
        if npm_s <= b + PIECE_VALUES[3] && npm_w <= b + PIECE_VALUES[3] {
            return 96;
        }
    }

    // Bishop and rook pawns with the wrong bishop: the defending king in the corner holds.
    if npm_s == PIECE_VALUES[2] && bishops[strong.index()].count() == 1 && strong_pawns.any() {
        for edge in [0u8, 7] {
            if (strong_pawns & !file(edge)).is_empty() {
                let corner = Square::from_coords(edge, strong.relative_rank(7));
                let bishop = bishops[strong.index()].lsb();
                if !same_colour_squares(bishop).contains(corner)
                    && distance(pos.king_square(weak), corner) <= 1
                {
                    return 0;
                }
            }
        }
    }

    // One pawn up with equal pieces: many such endings are drawn.
    if strong_pawns.count() == 1 && npm_w > 0 && npm_s <= npm_w {
        let weak_pawns = pos.colored(weak, Pawn).count();
        if weak_pawns == 0 {
            return 80;
        }
    }
    SCALE_NORMAL
}

/// Evaluates `pos` (white's view in `Breakdown::white`), feeding every term to `trace`. The pawn
/// table, when given, is used only when nothing is traced.
pub fn evaluate_traced<T: Trace>(
    pos: &Position,
    pawn_table: Option<&mut PawnTable>,
    trace: &mut T,
) -> Breakdown {
    let mut e = Eval {
        pos,
        trace,
        score: [S::ZERO; 2],
        occ: pos.occupied(),
        attacked: [Bitboard::EMPTY; 2],
        attacked_by: [[Bitboard::EMPTY; 6]; 2],
        attacked2: [Bitboard::EMPTY; 2],
        mobility_area: [Bitboard::EMPTY; 2],
        zone: [Bitboard::EMPTY; 2],
        zone_attackers: [0; 2],
        danger_units: [0; 2],
    };
    let phase = e.material();

    let pawns = match pawn_table {
        Some(table) if !T::ACTIVE => table.probe(pos),
        _ => evaluate_pawns(pos, e.trace),
    };

    e.init_attacks();
    e.pieces(Color::White);
    e.pieces(Color::Black);
    for c in Color::ALL {
        e.king_safety(c);
        e.threats(c);
        e.passed(c, pawns.passed);
    }
    e.add(pos.side_to_move(), TEMPO, 1);

    let score = e.score[0] - e.score[1] + pawns.score;
    let scale = endgame_scale(pos, score);
    let white = blend(score, phase, scale).clamp(-EVAL_LIMIT, EVAL_LIMIT);
    Breakdown {
        score,
        phase,
        scale,
        white,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scale_of(fen: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let b = evaluate_traced(&pos, None, &mut super::super::trace::NoTrace);
        b.scale
    }

    #[test]
    fn drawn_endings_scale_down() {
        assert_eq!(scale_of("8/8/4k3/8/8/3NK3/8/8 w - - 0 1"), 0, "KNK");
        assert_eq!(scale_of("8/8/4k3/8/8/3BK3/8/8 w - - 0 1"), 0, "KBK");
        assert_eq!(scale_of("8/8/4k3/8/8/2NNK3/8/8 w - - 0 1"), 0, "KNNK");
        assert_eq!(scale_of("8/8/4k3/3b4/8/3RK3/8/8 w - - 0 1"), 16, "KRKB");
        assert_eq!(
            scale_of("8/5k2/8/8/8/3B4/P7/K7 w - - 0 1"),
            128,
            "KBPK, king far"
        );
        assert_eq!(
            scale_of("k7/8/8/8/8/4B3/P7/K7 w - - 0 1"),
            0,
            "KBPK, wrong bishop"
        );
        assert_eq!(
            scale_of("k7/8/8/8/8/3B4/P7/K7 w - - 0 1"),
            128,
            "KBPK, right bishop"
        );
        assert_eq!(
            scale_of("8/4k3/3b4/8/8/3BK3/PP6/8 w - - 0 1"),
            48,
            "pure OCB"
        );
        assert_eq!(scale_of("8/4k3/8/8/8/4K3/8/3QR3 w - - 0 1"), 128, "KQRK");
        assert_eq!(scale_of("8/4k3/3r4/8/8/3QK3/8/8 w - - 0 1"), 128, "KQKR");
    }
}
