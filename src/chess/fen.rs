//! FEN reading and writing. Reads 6-field FENs and 4-field (EPD-style) ones, with `KQkq`,
//! X-FEN and Shredder-FEN castling; writes X-FEN (plain `KQkq` for standard positions).
//!
//! Validation rejects what would break the engine (no king, pawns on the back rank, the side
//! not to move in check, castling without its rook, an impossible en-passant square, more
//! pieces than promotions can explain), not what merely cannot arise in a game.

use super::bitboard::Bitboard;
use super::position::{castle_slot, CastleSide, Position};
use super::types::{Color, Piece, PieceType, Square};
use std::fmt;

/// Why a FEN was rejected. `Display` gives the message shown to users.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    FieldCount(usize),
    RankCount(usize),
    RankWidth { rank: u8, squares: usize },
    BadPieceChar(char),
    KingCount { color: Color, count: u32 },
    PawnOnBackRank(Square),
    TooManyPawns(Color),
    TooManyPieces(Color),
    BadSideToMove(String),
    BadCastling(String),
    CastlingWithoutRook { right: char, detail: String },
    BadEnPassant(String),
    EnPassantWithoutPawn { ep: Square, pawn: Square },
    BadClock(String),
    OpponentInCheck,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => write!(f, "expected 4 to 6 fields, found {n}"),
            FenError::RankCount(n) => write!(f, "expected 8 ranks, found {n}"),
            FenError::RankWidth { rank, squares } => write!(f, "rank {rank} has {squares} squares"),
            FenError::BadPieceChar(c) => write!(f, "'{c}' is not a piece or a digit 1-8"),
            FenError::KingCount { color, count } => {
                write!(f, "{} has {count} kings", color_name(*color))
            }
            FenError::PawnOnBackRank(sq) => write!(f, "pawn on rank {} ({sq})", sq.rank() + 1),
            FenError::TooManyPawns(c) => write!(f, "{} has more than 8 pawns", color_name(*c)),
            FenError::TooManyPieces(c) => write!(
                f,
                "{} has more pieces than its missing pawns could have promoted to",
                color_name(*c)
            ),
            FenError::BadSideToMove(s) => write!(f, "side to move must be 'w' or 'b', not '{s}'"),
            FenError::BadCastling(s) => write!(f, "bad castling field '{s}'"),
            FenError::CastlingWithoutRook { right, detail } => {
                write!(f, "castling right {right} but {detail}")
            }
            FenError::BadEnPassant(s) => write!(f, "bad en passant square '{s}'"),
            FenError::EnPassantWithoutPawn { ep, pawn } => {
                write!(
                    f,
                    "en passant square {ep} but no pawn that just moved two squares on {pawn}"
                )
            }
            FenError::BadClock(s) => write!(f, "bad move counter '{s}'"),
            FenError::OpponentInCheck => write!(f, "side not to move is in check"),
        }
    }
}

impl std::error::Error for FenError {}

impl Position {
    /// Parses a FEN (see the module comment for what is accepted).
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_board(&mut pos, fields[0])?;

        pos.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(FenError::BadSideToMove(s.to_string())),
        };
        parse_castling(&mut pos, fields[2])?;
        parse_en_passant(&mut pos, fields[3])?;
        if let Some(s) = fields.get(4) {
            pos.halfmove = s.parse().map_err(|_| FenError::BadClock(s.to_string()))?;
        }
        if let Some(s) = fields.get(5) {
            let n: u16 = s.parse().map_err(|_| FenError::BadClock(s.to_string()))?;
            pos.fullmove = n.max(1);
        }

        let them = pos.side.flip();
        let their_king = pos.king_square(them);
        if pos.is_attacked_by(pos.side, their_king, pos.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        let ksq = pos.king_square(pos.side);
        pos.checkers = pos.attackers_to(ksq, pos.occupied()) & pos.pieces(them);
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// The position as a 6-field FEN (X-FEN castling: `KQkq` unless an inner rook is meant).
    pub fn to_fen(&self) -> String {
        let mut s = placement(|sq| self.piece_at(sq));
        s.push(' ');
        s.push(if self.side == Color::White { 'w' } else { 'b' });
        s.push(' ');
        let before = s.len();
        for c in Color::ALL {
            for side in [CastleSide::King, CastleSide::Queen] {
                if let Some(rook) = self.castling_rook(c, side) {
                    s.push(self.castling_char(c, side, rook));
                }
            }
        }
        if s.len() == before {
            s.push('-');
        }
        match self.ep {
            Some(ep) => s.push_str(&format!(" {ep}")),
            None => s.push_str(" -"),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// `K`/`Q` when the rook is the outermost one on its side (X-FEN), else the rook's file.
    fn castling_char(&self, c: Color, side: CastleSide, rook: Square) -> char {
        let outer = outermost_rook(self, c, side);
        let ch = if outer == Some(rook) {
            if side == CastleSide::King {
                'k'
            } else {
                'q'
            }
        } else {
            (b'a' + rook.file()) as char
        };
        if c == Color::White {
            ch.to_ascii_uppercase()
        } else {
            ch
        }
    }
}

/// FEN's first field, the piece placement, for whatever says which piece stands where.
pub fn placement(piece_at: impl Fn(Square) -> Option<Piece>) -> String {
    let mut s = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match piece_at(Square::from_coords(file, rank)) {
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.letter());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0usize;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d as usize;
            } else if let Some(p) = Piece::from_letter(ch) {
                if file < 8 {
                    pos.put(p, Square::from_coords(file as u8, rank));
                }
                file += 1;
            } else {
                return Err(FenError::BadPieceChar(ch));
            }
        }
        if file != 8 {
            return Err(FenError::RankWidth {
                rank: rank + 1,
                squares: file,
            });
        }
    }
    for c in Color::ALL {
        let kings = pos.colored(c, PieceType::King).count();
        if kings != 1 {
            return Err(FenError::KingCount {
                color: c,
                count: kings,
            });
        }
    }
    let back_ranks = Bitboard::RANK_1 | Bitboard::RANK_8;
    if let Some(sq) = (pos.kind(PieceType::Pawn) & back_ranks).next() {
        return Err(FenError::PawnOnBackRank(sq));
    }
    // More pieces than promotions explain would let the move list overflow.
    for c in Color::ALL {
        let n = |t| pos.colored(c, t).count() as i32;
        let pawns = n(PieceType::Pawn);
        if pawns > 8 {
            return Err(FenError::TooManyPawns(c));
        }
        let promoted = (n(PieceType::Queen) - 1).max(0)
            + (n(PieceType::Rook) - 2).max(0)
            + (n(PieceType::Bishop) - 2).max(0)
            + (n(PieceType::Knight) - 2).max(0);
        if promoted > 8 - pawns {
            return Err(FenError::TooManyPieces(c));
        }
    }
    Ok(())
}

/// The rook furthest from the king on the given side of it, on the king's back rank.
fn outermost_rook(pos: &Position, c: Color, side: CastleSide) -> Option<Square> {
    let ksq = pos.king_square(c);
    if ksq.rank() != c.relative_rank(0) {
        return None;
    }
    let rooks = pos.colored(c, PieceType::Rook) & Bitboard::rank(ksq.rank());
    let mut candidates = rooks.filter(|r| (r.file() > ksq.file()) == (side == CastleSide::King));
    match side {
        CastleSide::King => candidates.last(),
        CastleSide::Queen => candidates.next(),
    }
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    for ch in field.chars() {
        let color = if ch.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let back = color.relative_rank(0);
        let ksq = pos.king_square(color);
        let rook = match ch.to_ascii_lowercase() {
            'k' | 'q' => {
                let side = if ch.eq_ignore_ascii_case(&'k') {
                    CastleSide::King
                } else {
                    CastleSide::Queen
                };
                outermost_rook(pos, color, side).ok_or_else(|| {
                    let corner =
                        Square::from_coords(if side == CastleSide::King { 7 } else { 0 }, back);
                    let detail = if ksq.rank() != back {
                        format!("the {} king is not on its back rank", color_name(color))
                    } else {
                        format!("no rook on {corner}")
                    };
                    FenError::CastlingWithoutRook { right: ch, detail }
                })?
            }
            f @ 'a'..='h' => {
                let sq = Square::from_coords(f as u8 - b'a', back);
                if ksq.rank() != back {
                    return Err(FenError::CastlingWithoutRook {
                        right: ch,
                        detail: format!("the {} king is not on its back rank", color_name(color)),
                    });
                }
                if pos.piece_at(sq) != Some(Piece::new(color, PieceType::Rook)) {
                    return Err(FenError::CastlingWithoutRook {
                        right: ch,
                        detail: format!("no rook on {sq}"),
                    });
                }
                if sq.file() == ksq.file() {
                    return Err(FenError::BadCastling(field.to_string()));
                }
                sq
            }
            _ => return Err(FenError::BadCastling(field.to_string())),
        };
        let side = if rook.file() > ksq.file() {
            CastleSide::King
        } else {
            CastleSide::Queen
        };
        let slot = castle_slot(color, side);
        if pos.castling >> slot & 1 != 0 && pos.castle_rooks[slot] != rook {
            return Err(FenError::BadCastling(field.to_string()));
        }
        pos.castling |= 1 << slot;
        pos.castle_rooks[slot] = rook;
    }
    Ok(())
}

fn parse_en_passant(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let ep = Square::parse(field).ok_or_else(|| FenError::BadEnPassant(field.to_string()))?;
    let us = pos.side;
    if ep.rank() != us.relative_rank(5) {
        return Err(FenError::BadEnPassant(field.to_string()));
    }
    let pawn = ep.offset(-us.forward());
    let start = ep.offset(us.forward());
    if pos.piece_at(pawn) != Some(Piece::new(us.flip(), PieceType::Pawn))
        || pos.piece_at(ep).is_some()
        || pos.piece_at(start).is_some()
    {
        return Err(FenError::EnPassantWithoutPawn { ep, pawn });
    }
    // Kept only if a pawn can actually capture (Polyglot's rule, which the key follows).
    pos.set_en_passant_if_capturable(ep);
    Ok(())
}
