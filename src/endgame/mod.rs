//! Built-in endgame knowledge, no files needed: the KPK bitbase ([`kpk`]) and mating technique
//! for a lone king (KQK, KRK, KBNK, two bishops and anything stronger).
//!
//! [`evaluate_known`] recognises these endings and returns a score the evaluation can use in
//! place of its own. Wins score [`KNOWN_WIN`] plus a gradient that leads the search to the mate:
//! - against a lone king: drive it to the edge and into a corner, and bring the kings together
//!   (the search finds the mate once the net is tight);
//! - KBNK: drive it to a corner of the bishop's colour, the only corners where B+N can mate;
//! - KPK: the bitbase says won or drawn; a won one scores by how far the pawn has come.
//!
//! Scores stay far below mate scores, so a mate the search sees always ranks higher, and the
//! material term makes the search take every gain (a promotion, say) on the way.

pub mod kpk;

use crate::chess::{Bitboard, Color, PieceType, Position, Square};

/// Base score of a won ending (well above any normal evaluation, well below mate scores).
pub const KNOWN_WIN: i32 = 10_000;

use crate::chess::PIECE_VALUES as VALUES;

/// Chebyshev distance.
fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32)
        .abs()
        .max((a.rank() as i32 - b.rank() as i32).abs())
}

fn manhattan(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs() + (a.rank() as i32 - b.rank() as i32).abs()
}

/// 0 in the centre, 6 in a corner: how far a square is from the middle of the board, by file
/// plus by rank.
fn edge_distance(s: Square) -> i32 {
    let d = |x: u8| (3 - x as i32).max(x as i32 - 4);
    d(s.file()) + d(s.rank())
}

/// What each side has besides its king and pawns.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Side {
    pawns: u32,
    knights: u32,
    bishops: u32,
    rooks: u32,
    queens: u32,
}

impl Side {
    fn of(pos: &Position, c: Color) -> Side {
        let n = |t| pos.colored(c, t).count();
        Side {
            pawns: n(PieceType::Pawn),
            knights: n(PieceType::Knight),
            bishops: n(PieceType::Bishop),
            rooks: n(PieceType::Rook),
            queens: n(PieceType::Queen),
        }
    }

    fn bare(&self) -> bool {
        *self == Side::default()
    }

    fn material(&self) -> i32 {
        [
            self.pawns,
            self.knights,
            self.bishops,
            self.rooks,
            self.queens,
        ]
        .iter()
        .zip(VALUES)
        .map(|(&n, v)| n as i32 * v)
        .sum()
    }
}

/// A score for an ending the module knows, from the side to move's point of view, or `None`
/// to let the normal evaluation decide. Draws it knows (KPK drawn by the bitbase, a lone minor
/// piece or two knights against a lone king, a bare king against a bare king) are `Some(0)`.
pub fn evaluate_known(pos: &Position) -> Option<i32> {
    // Cheap exit for the usual case: both sides have more than a king.
    if pos.pieces(Color::White).several() && pos.pieces(Color::Black).several() {
        return None;
    }
    let white = Side::of(pos, Color::White);
    let black = Side::of(pos, Color::Black);
    // The strong side and its material; the other side has only its king.
    let (strong, s) = match (white.bare(), black.bare()) {
        (true, true) => return Some(0),
        (false, true) => (Color::White, white),
        (true, false) => (Color::Black, black),
        (false, false) => return None,
    };
    let score = if s.pawns == 1 && s.material() == VALUES[0] {
        kpk_score(pos, strong)
    } else if s.pawns == 0 && s.queens == 0 && s.rooks == 0 {
        minor_pieces_score(pos, strong, s)?
    } else if s.queens + s.rooks > 0 {
        lone_king_score(pos, strong, s)
    } else {
        return None; // minor pieces and pawns: the normal evaluation
    };
    Some(if pos.side_to_move() == strong {
        score
    } else {
        -score
    })
}

/// Mating a lone king with heavy material: to the edge and corner, kings close.
fn lone_king_score(pos: &Position, strong: Color, s: Side) -> i32 {
    let (sk, wk) = (pos.king_square(strong), pos.king_square(strong.flip()));
    KNOWN_WIN + s.material() + 20 * edge_distance(wk) + 10 * (7 - distance(sk, wk))
}

/// Bishops and knights against a lone king.
fn minor_pieces_score(pos: &Position, strong: Color, s: Side) -> Option<i32> {
    let (sk, wk) = (pos.king_square(strong), pos.king_square(strong.flip()));
    let bishops = pos.colored(strong, PieceType::Bishop);
    let dark = bishops & Bitboard(0xAA55_AA55_AA55_AA55);
    let both_colours = dark.any() && (bishops & !dark).any();
    let close = 10 * (7 - distance(sk, wk));
    if s.bishops == 0 && s.knights <= 2 || s.knights == 0 && !both_colours {
        // No mate can be forced (lone minor, two knights, bishops all of one colour).
        return Some(0);
    }
    if s.bishops >= 1 && s.knights >= 1 && !both_colours && s.bishops + s.knights == 2 {
        // KBNK: the corners the bishop can cover. a1 is dark.
        let corners = if dark.any() {
            [Square::A1, Square::H8]
        } else {
            [Square::H1, Square::A8]
        };
        let to_corner = corners.iter().map(|&c| manhattan(wk, c)).min().unwrap();
        return Some(
            KNOWN_WIN + s.material() + 40 * (14 - to_corner) + 5 * edge_distance(wk) + close,
        );
    }
    Some(KNOWN_WIN + s.material() + 20 * edge_distance(wk) + close)
}

/// KPK by the bitbase: a draw is 0; a win grows as the pawn advances.
fn kpk_score(pos: &Position, strong: Color) -> i32 {
    let rel = |s: Square| match strong {
        Color::White => s,
        Color::Black => s.flip_rank(),
    };
    let sk = rel(pos.king_square(strong));
    let wk = rel(pos.king_square(strong.flip()));
    let pawn = rel(pos.colored(strong, PieceType::Pawn).lsb());
    if kpk::probe(sk, pawn, wk, pos.side_to_move() == strong) {
        KNOWN_WIN + VALUES[0] + 20 * pawn.rank() as i32
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> Option<i32> {
        evaluate_known(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn recognises_endings() {
        assert!(eval("8/8/8/4k3/8/8/8/3QK3 w - - 0 1").unwrap() > KNOWN_WIN);
        assert!(eval("8/8/8/4k3/8/8/8/3QK3 b - - 0 1").unwrap() < -KNOWN_WIN);
        assert!(eval("8/8/8/4k3/8/8/8/3rK3 w - - 0 1").unwrap() < -KNOWN_WIN);
        assert!(eval("8/8/8/4k3/8/8/8/2BNK3 w - - 0 1").unwrap() > KNOWN_WIN);
        assert!(eval("8/8/8/4k3/8/8/8/2B1KB2 w - - 0 1").unwrap() > KNOWN_WIN);
        assert_eq!(eval("8/8/8/4k3/8/8/8/2B1K1B1 w - - 0 1"), Some(0)); // same-coloured bishops
        assert_eq!(eval("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1"), Some(0));
        assert_eq!(eval("8/8/8/4k3/8/8/8/4K1n1 w - - 0 1"), Some(0));
        assert_eq!(eval("8/8/8/4k3/8/8/8/4K3 w - - 0 1"), Some(0));
        // Material on both sides, or minor pieces with pawns: not known.
        assert_eq!(eval("8/8/8/4k3/8/8/3p4/3QK3 w - - 0 1"), None);
        assert_eq!(eval("8/8/8/4k3/8/8/3P4/3NK3 w - - 0 1"), None);
        assert_eq!(
            eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            None
        );
    }

    #[test]
    fn kpk_wins_and_draws_both_colours() {
        // White: king in front with the opposition wins; the rook pawn against the corner draws.
        assert!(eval("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1").unwrap() > KNOWN_WIN);
        assert_eq!(eval("k7/8/1K6/P7/8/8/8/8 w - - 0 1"), Some(0));
        // The same positions with colours reversed.
        assert!(eval("8/8/8/8/4p3/4k3/8/4K3 b - - 0 1").unwrap() > KNOWN_WIN);
        assert!(eval("8/8/8/8/4p3/4k3/8/4K3 w - - 0 1").unwrap() < -KNOWN_WIN);
        assert_eq!(eval("8/8/8/8/p7/1k6/8/K7 b - - 0 1"), Some(0));
        // Mirrored to the h-file.
        assert_eq!(eval("7k/8/6K1/7P/8/8/8/8 w - - 0 1"), Some(0));
    }

    #[test]
    fn gradients_point_to_the_mate() {
        // The lone king nearer the corner scores better for the strong side.
        let centre = eval("8/8/8/4k3/8/8/8/R3K3 w - - 0 1").unwrap();
        let edge = eval("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
        let corner = eval("7k/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
        assert!(centre < edge && edge < corner);
        // KBNK with a dark bishop (c1): a1/h8 are right, a8/h1 wrong.
        let right = eval("8/8/8/8/8/1k6/8/2B1K1N1 w - - 0 1").unwrap(); // near a1
        let wrong = eval("8/1k6/8/8/8/8/8/2B1K1N1 w - - 0 1").unwrap(); // near a8
        assert!(right > wrong);
        // Light bishop (f1 is light): a8/h1 are right.
        let light_right = eval("8/1k6/8/8/8/8/8/4KB1N w - - 0 1").unwrap();
        let light_wrong = eval("8/8/8/8/8/8/1k6/4KB1N w - - 0 1").unwrap();
        assert!(light_right > light_wrong);
    }
}
