//! SAN, the standard algebraic notation of PGN files (`Nbd2`, `exd6`, `e8=Q+`, `O-O-O#`), read
//! and written. The rules core owns it because every PGN reader and writer (the book maker, the
//! tuner, the data converters) must agree with the move generator about what a move is.
//!
//! Reading is lenient where PGN writers differ and strict where a move could be misread:
//! suffixes (`+`, `#`, `!?`, `e.p.`), `0-0` for `O-O`, promotions with or without `=`, long
//! forms (`Ng1f3`, `e2-e4`) are accepted; an ambiguous or illegal move is `None`. Castling is
//! always `O-O` / `O-O-O`, in Chess960 too (the king takes its own rook in `Move`).

use super::moves::{Move, MoveKind};
use super::position::Position;
use super::types::{PieceType, Square};

impl Position {
    /// The legal move a SAN token names, if exactly one.
    pub fn parse_san(&self, text: &str) -> Option<Move> {
        let text = text.trim();
        let text = text.strip_suffix("e.p.").unwrap_or(text).trim_end();
        let san = text.trim_end_matches(['+', '#', '!', '?']);
        if !san.is_ascii() || san.is_empty() {
            return None;
        }
        if let Some(king_side) = castling_side(san) {
            return self.legal_moves().iter().copied().find(|m| {
                m.kind() == MoveKind::Castling && (m.to().file() > m.from().file()) == king_side
            });
        }

        let bytes = san.as_bytes();
        let (kind, rest) = match bytes[0] {
            b'N' | b'B' | b'R' | b'Q' | b'K' => {
                (PieceType::from_letter(bytes[0] as char)?, &san[1..])
            }
            _ => (PieceType::Pawn, san),
        };
        // A promotion: `e8=Q`, or the piece letter straight after the square (`e8Q`).
        let (rest, promotion) = match rest.split_once('=') {
            Some((body, piece)) => (body, Some(promotion_piece(piece)?)),
            None => match rest.as_bytes() {
                [.., rank, piece] if rank.is_ascii_digit() && piece.is_ascii_alphabetic() => (
                    &rest[..rest.len() - 1],
                    Some(promotion_piece(&rest[rest.len() - 1..])?),
                ),
                _ => (rest, None),
            },
        };
        if promotion.is_some() && kind != PieceType::Pawn {
            return None;
        }
        // What is left: an optional from-file and from-rank, then the target square; the
        // capture mark and the dash of long forms say nothing the legal moves do not.
        let body: Vec<u8> = rest.bytes().filter(|&b| b != b'x' && b != b'-').collect();
        if !(2..=4).contains(&body.len()) {
            return None;
        }
        let (hint, target) = body.split_at(body.len() - 2);
        let to = Square::parse(std::str::from_utf8(target).ok()?)?;
        let (mut file, mut rank) = (None, None);
        for &c in hint {
            match c {
                b'a'..=b'h' if file.is_none() && rank.is_none() => file = Some(c - b'a'),
                b'1'..=b'8' if rank.is_none() => rank = Some(c - b'1'),
                _ => return None,
            }
        }

        let mut found = None;
        for &m in self.legal_moves().iter() {
            if m.kind() == MoveKind::Castling
                || m.to() != to
                || m.promotion_piece() != promotion
                || self.piece_at(m.from()).map(|p| p.kind()) != Some(kind)
                || file.is_some_and(|f| m.from().file() != f)
                || rank.is_some_and(|r| m.from().rank() != r)
            {
                continue;
            }
            if found.is_some() {
                return None; // ambiguous
            }
            found = Some(m);
        }
        found
    }

    /// The SAN of a legal move, with `+` for check and `#` for mate, disambiguated as little as
    /// possible (the file, else the rank, else both).
    pub fn to_san(&self, m: Move) -> String {
        let mut san = String::with_capacity(8);
        if m.kind() == MoveKind::Castling {
            san.push_str(if m.to().file() > m.from().file() {
                "O-O"
            } else {
                "O-O-O"
            });
        } else {
            let kind = self
                .piece_at(m.from())
                .map_or(PieceType::Pawn, |p| p.kind());
            let capture = self.is_capture(m);
            if kind == PieceType::Pawn {
                if capture {
                    san.push(file_letter(m.from()));
                }
            } else {
                san.push(kind.letter().to_ascii_uppercase());
                san.push_str(&self.disambiguation(m, kind));
            }
            if capture {
                san.push('x');
            }
            san.push_str(&m.to().to_string());
            if let Some(p) = m.promotion_piece() {
                san.push('=');
                san.push(p.letter().to_ascii_uppercase());
            }
        }
        let after = self.after(m);
        if after.in_check() {
            san.push(if after.has_legal_move() { '+' } else { '#' });
        }
        san
    }

    /// What tells `m` from the other legal moves of a `kind` piece to the same square.
    fn disambiguation(&self, m: Move, kind: PieceType) -> String {
        let rivals: Vec<Square> = self
            .legal_moves()
            .iter()
            .filter(|n| {
                n.kind() != MoveKind::Castling
                    && n.to() == m.to()
                    && n.from() != m.from()
                    && self.piece_at(n.from()).map(|p| p.kind()) == Some(kind)
            })
            .map(|n| n.from())
            .collect();
        let from = m.from();
        if rivals.is_empty() {
            String::new()
        } else if rivals.iter().all(|s| s.file() != from.file()) {
            file_letter(from).to_string()
        } else if rivals.iter().all(|s| s.rank() != from.rank()) {
            ((b'1' + from.rank()) as char).to_string()
        } else {
            from.to_string()
        }
    }
}

/// `Some(true)` for `O-O`, `Some(false)` for `O-O-O` (letter O or digit 0, any case).
fn castling_side(san: &str) -> Option<bool> {
    match san.to_ascii_uppercase().replace('0', "O").as_str() {
        "O-O" => Some(true),
        "O-O-O" => Some(false),
        _ => None,
    }
}

/// The piece a pawn promotes to, from its letter (either case; never a pawn or king).
fn promotion_piece(text: &str) -> Option<PieceType> {
    let mut chars = text.chars();
    let piece = PieceType::from_letter(chars.next()?)?;
    (chars.next().is_none() && !matches!(piece, PieceType::Pawn | PieceType::King)).then_some(piece)
}

fn file_letter(sq: Square) -> char {
    (b'a' + sq.file()) as char
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uci(fen: &str, san: &str) -> Option<String> {
        let pos = Position::from_fen(fen).unwrap();
        pos.parse_san(san).map(|m| pos.move_to_uci(m, false))
    }

    fn san(fen: &str, uci: &str) -> String {
        let pos = Position::from_fen(fen).unwrap();
        pos.to_san(pos.parse_uci_move(uci).unwrap())
    }

    #[test]
    fn reads_the_forms_pgn_writers_use() {
        let start = crate::chess::START_FEN;
        for text in ["e4", "e4!?", "e4?!", "e2e4", "e2-e4", "e4!", " e4 "] {
            assert_eq!(uci(start, text), Some("e2e4".into()), "{text}");
        }
        assert_eq!(uci(start, "Nf3"), Some("g1f3".into()));
        assert_eq!(uci(start, "Ng1f3"), Some("g1f3".into()));
        assert_eq!(uci(start, "Ng1-f3"), Some("g1f3".into()));
        assert_eq!(uci(start, "e5"), None);
        assert_eq!(uci(start, "Nf4"), None);
        assert_eq!(uci(start, "O-O"), None);
        assert_eq!(uci(start, ""), None);
        assert_eq!(uci(start, "e4é"), None);

        let promo = "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1";
        assert_eq!(uci(promo, "b8=Q+"), Some("b7b8q".into()));
        assert_eq!(uci(promo, "b8Q+"), Some("b7b8q".into()));
        assert_eq!(uci(promo, "b8=n"), Some("b7b8n".into()));
        assert_eq!(uci(promo, "b8N"), Some("b7b8n".into()));
        assert_eq!(uci(promo, "b8"), None, "a promotion needs its piece");
        assert_eq!(uci(promo, "b8=K"), None);
        assert_eq!(uci(promo, "O-O-O"), Some("e1c1".into()));
        assert_eq!(uci(promo, "0-0-0"), Some("e1c1".into()));
        assert_eq!(uci(promo, "O-O+"), Some("e1g1".into()));
        assert_eq!(uci(promo, "0-0"), Some("e1g1".into()));

        let rooks = "4k3/8/8/8/8/8/4K3/R6R w - - 0 1";
        assert_eq!(uci(rooks, "Rad1"), Some("a1d1".into()));
        assert_eq!(uci(rooks, "Rhd1"), Some("h1d1".into()));
        assert_eq!(uci(rooks, "Rd1"), None, "ambiguous");

        let ep = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
        assert_eq!(uci(ep, "exd6"), Some("e5d6".into()));
        assert_eq!(uci(ep, "exd6 e.p."), Some("e5d6".into()));
        assert_eq!(uci(ep, "ed6"), Some("e5d6".into()));
    }

    #[test]
    fn writes_minimal_disambiguation_checks_and_mates() {
        let knights = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
        assert_eq!(san(knights, "b1d2"), "Nbd2");
        let rooks = "4k3/R7/8/8/8/8/8/R3K3 w - - 0 1";
        assert_eq!(san(rooks, "a1a4"), "R1a4");
        assert_eq!(san(rooks, "a7a8"), "Ra8+");
        // Three queens reach e1: h4 shares a file with h1 and a rank with e4.
        let queens = "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1";
        assert_eq!(san(queens, "h4e1"), "Qh4e1");
        assert_eq!(san(queens, "e4e1"), "Qee1");
        assert_eq!(san(queens, "h1e1"), "Q1e1");
        assert_eq!(san(queens, "e4e8"), "Qe8+");
        assert_eq!(
            san(
                "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3",
                "d1h5"
            ),
            "Qh5#"
        );
        assert_eq!(san("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"), "exd6");
        assert_eq!(san("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"), "b8=Q+");
        assert_eq!(san("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"), "O-O-O");
        assert_eq!(san("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"), "O-O-O+");
        // Chess960: the king on b1 castles short with the rook on c1, ending on g1.
        let frc = Position::from_fen("r5k1/8/8/8/8/8/8/1KR5 w C - 0 1").unwrap();
        let castle = frc
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.kind() == MoveKind::Castling)
            .unwrap();
        assert_eq!(frc.to_san(castle), "O-O");
        assert_eq!(frc.parse_san("O-O"), Some(castle));
    }

    /// Every legal move of the perft suites (and of every position one move later in the
    /// standard one) reads back from its SAN, and no two moves share one.
    #[test]
    fn every_legal_move_round_trips() {
        fn check(pos: &Position) -> usize {
            let moves = pos.legal_moves();
            let mut seen = std::collections::HashSet::new();
            for &m in moves.iter() {
                let text = pos.to_san(m);
                assert_eq!(pos.parse_san(&text), Some(m), "{text} in {}", pos.to_fen());
                assert!(seen.insert(text), "{}", pos.to_fen());
            }
            moves.len()
        }
        let mut total = 0;
        for pos in crate::chess::perft::suite_positions_and_children() {
            total += check(&pos);
        }
        for line in include_str!("../../tests/data/frc-perft.epd").lines() {
            total += check(&Position::from_fen(line.split(';').next().unwrap()).unwrap());
        }
        assert!(total > 45_000, "{total}");
    }
}
