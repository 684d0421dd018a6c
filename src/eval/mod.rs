//! Static evaluation e(p): what a position is worth when the search stops.
//! (Interim: tapered material and piece-square tables. The full tuned evaluation follows.)

use crate::chess::{Color, PieceType, Position, Square};

/// Centipawn values of pawn, knight, bishop, rook, queen, king, for exchange evaluation and
/// move ordering (SEE, MVV-LVA). Static on purpose: the tuned middlegame/endgame values live
/// with the other weights.
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

const MG_VALUE: [i32; 6] = [85, 320, 340, 470, 950, 0];
const EG_VALUE: [i32; 6] = [110, 290, 310, 520, 930, 0];
/// Game phase weight of each piece type; 24 with all pieces on the board.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// How central a square is: 0 on the rim, 3 in the centre four.
const fn centrality(sq: usize) -> i32 {
    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
    let df = if f < 4 { f } else { 7 - f };
    let dr = if r < 4 { r } else { 7 - r };
    if df < dr {
        df
    } else {
        dr
    }
}

/// Piece-square tables from a few rules of thumb, white's view (a1 = 0), [type][square] -> (mg, eg).
const fn build_pst() -> [[(i32, i32); 64]; 6] {
    let mut t = [[(0, 0); 64]; 6];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let c = centrality(sq);
        let central_file = if f == 3 || f == 4 { 1 } else { 0 };
        // Pawns: advance, especially in the centre; in the endgame every step counts.
        if r >= 1 && r <= 6 {
            t[0][sq] = (
                (r - 1) * 3 + central_file * (r - 1) * 5
                    - if r == 1 && central_file == 1 { 10 } else { 0 },
                (r - 1) * (r - 1) * 4,
            );
        }
        // Knights love the centre and hate the rim.
        t[1][sq] = (c * 12 - 20 + if r >= 4 { 5 } else { 0 }, c * 8 - 15);
        // Bishops: centre and long diagonals.
        let diag = if f == r || f + r == 7 { 6 } else { 0 };
        t[2][sq] = (c * 5 + diag - 8, c * 4 - 6);
        // Rooks: the seventh rank and the centre files.
        t[3][sq] = (
            if r == 6 { 15 } else { 0 } + central_file * 6 - 3,
            if r == 6 { 8 } else { 0 },
        );
        // Queens: a little centralisation.
        t[4][sq] = (c * 3 - 5, c * 6 - 9);
        // King: stay home behind the pawns in the middlegame, centralise in the endgame.
        let home = if r == 0 { 10 } else { -25 * r };
        let wing = if f <= 2 || f >= 5 { 15 } else { -5 };
        t[5][sq] = (home + wing, c * 15 - 25);
        sq += 1;
    }
    t
}

static PST: [[(i32, i32); 64]; 6] = build_pst();

/// The evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let (mut mg, mut eg, mut phase) = (0, 0, 0);
    for c in Color::ALL {
        let sign = if c == Color::White { 1 } else { -1 };
        for t in PieceType::ALL {
            for sq in pos.colored(c, t) {
                let s = if c == Color::White {
                    sq
                } else {
                    Square::flip_rank(sq)
                };
                let (pm, pe) = PST[t.index()][s.index()];
                mg += sign * (MG_VALUE[t.index()] + pm);
                eg += sign * (EG_VALUE[t.index()] + pe);
                phase += PHASE[t.index()];
            }
        }
    }
    let phase = phase.min(24);
    let score = (mg * phase + eg * (24 - phase)) / 24
        + 10 * if pos.side_to_move() == Color::White {
            1
        } else {
            -1
        };
    match pos.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        assert_eq!(evaluate(&Position::startpos()), 10);
    }
}
