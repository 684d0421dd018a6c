//! The training-data format: whole games, in the viriformat layout, so that other tools
//! (bullet's loaders, viriformat readers) can read Brudno's data and ours can be checked
//! against theirs.
//!
//! ```text
//! game   := board (32 bytes) { move u16, score i16 }* 0u16 0i16
//! board  := occupancy u64 | 32 × 4-bit pieces (i-th set bit, even i in the low nibble)
//!           | stm<<7 | ep (64 = none) : u8 | halfmove u8 | fullmove u16 | score i16
//!           | wdl u8 (0 black win, 1 draw, 2 white win) | extra u8
//! piece  := colour<<3 | type (pawn 0 … king 5; 6 = a rook that may still castle)
//! move   := from | to<<6 | promo<<12 | flag<<14 (flag: 1 en passant, 2 castling, 3 promotion;
//!           castling is king-takes-rook, promo = knight 0 … queen 3)
//! ```
//! All integers are little-endian; squares are a1 = 0 … h8 = 63; scores are White's view in
//! centipawns. A game is about 4 bytes a position instead of 32 for a board per position.
//!
//! Reading checks every move for legality, so a corrupt or cut file yields an error at the
//! first bad game, never a wrong position.

use crate::chess::{Color, Move, MoveKind, Outcome, PieceType, Position, Square};
use std::fmt;

/// Bytes of one packed board.
pub const BOARD_BYTES: usize = 32;
/// Bytes of one (move, score) pair, and of the terminator.
pub const PLY_BYTES: usize = 4;
/// A score at or beyond this is a mate (or a tablebase win) rather than an evaluation.
pub const MATE_SCORE: i16 = 31_000;

const UNMOVED_ROOK: u8 = 6;
const NO_EP: u8 = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// The data ends inside a game (a file cut while it was written).
    Truncated,
    /// The packed board is not a legal position.
    BadBoard(String),
    /// A move is not legal in the position it is played from.
    IllegalMove {
        ply: usize,
        raw: u16,
    },
    BadResult(u8),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Truncated => write!(f, "the data ends inside a game"),
            FormatError::BadBoard(why) => write!(f, "bad packed board: {why}"),
            FormatError::IllegalMove { ply, raw } => {
                write!(f, "illegal move {raw:#06x} at ply {ply} of a game")
            }
            FormatError::BadResult(b) => write!(f, "bad game result byte {b}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// One position as 32 bytes (marlinformat).
pub fn pack_board(pos: &Position, score: i16, outcome: Outcome) -> [u8; BOARD_BYTES] {
    let mut out = [0u8; BOARD_BYTES];
    let occ = pos.occupied();
    out[0..8].copy_from_slice(&occ.0.to_le_bytes());
    for (i, sq) in occ.enumerate() {
        let piece = pos.piece_at(sq).expect("an occupied square has a piece");
        let c = piece.color();
        let castles = [
            crate::chess::CastleSide::King,
            crate::chess::CastleSide::Queen,
        ]
        .iter()
        .any(|&side| pos.castling_rook(c, side) == Some(sq));
        let code = if castles {
            UNMOVED_ROOK
        } else {
            piece.kind().index() as u8
        };
        out[8 + i / 2] |= (code | (c as u8) << 3) << (4 * (i % 2));
    }
    let ep = pos.en_passant().map_or(NO_EP, |s| s.index() as u8);
    out[24] = (pos.side_to_move() as u8) << 7 | ep;
    out[25] = pos.halfmove_clock().min(255) as u8;
    out[26..28].copy_from_slice(&pos.fullmove_number().to_le_bytes());
    out[28..30].copy_from_slice(&score.to_le_bytes());
    out[30] = outcome.wdl_byte();
    out
}

/// Reads a packed board: the position, its score and the game's result.
pub fn unpack_board(b: &[u8; BOARD_BYTES]) -> Result<(Position, i16, Outcome), FormatError> {
    let occ = u64::from_le_bytes(b[0..8].try_into().unwrap());
    if occ.count_ones() > 32 {
        return Err(FormatError::BadBoard("more than 32 pieces".into()));
    }
    // Through FEN text: one board per game, and from_fen validates everything.
    let mut board = [None; 64];
    let mut castle_rooks: Vec<(Color, Square)> = Vec::new();
    let mut bits = occ;
    let mut i = 0;
    while bits != 0 {
        let sq = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let nibble = b[8 + i / 2] >> (4 * (i % 2)) & 0xF;
        let color = if nibble & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let kind = match nibble & 7 {
            UNMOVED_ROOK => {
                castle_rooks.push((color, Square::new(sq as u8)));
                PieceType::Rook
            }
            7 => return Err(FormatError::BadBoard("piece type 7".into())),
            t => PieceType::from_index(t as usize),
        };
        board[sq] = Some(crate::chess::Piece::new(color, kind));
        i += 1;
    }
    let mut fen = crate::chess::fen::placement(|sq| board[sq.index()]);
    let black = b[24] >> 7 != 0;
    fen.push_str(if black { " b " } else { " w " });
    if castle_rooks.is_empty() {
        fen.push('-');
    }
    // Shredder-FEN letters name each castling rook exactly (Chess960 included).
    for (c, sq) in &castle_rooks {
        let letter = (b'a' + sq.file()) as char;
        fen.push(match c {
            Color::White => letter.to_ascii_uppercase(),
            Color::Black => letter,
        });
    }
    match b[24] & 0x7F {
        NO_EP => fen.push_str(" -"),
        s if s < 64 => fen.push_str(&format!(" {}", Square::new(s))),
        s => return Err(FormatError::BadBoard(format!("en-passant square {s}"))),
    }
    let fullmove = u16::from_le_bytes([b[26], b[27]]).max(1);
    fen.push_str(&format!(" {} {}", b[25], fullmove));
    let pos = Position::from_fen(&fen).map_err(|e| FormatError::BadBoard(format!("{fen}: {e}")))?;
    let score = i16::from_le_bytes([b[28], b[29]]);
    let outcome = Outcome::from_wdl_byte(b[30]).ok_or(FormatError::BadResult(b[30]))?;
    Ok((pos, score, outcome))
}

/// A move in the format's 16 bits (never 0 for a real move: from ≠ to).
pub fn encode_move(m: Move) -> u16 {
    let squares = m.from().index() as u16 | (m.to().index() as u16) << 6;
    match m.kind() {
        MoveKind::Normal => squares,
        MoveKind::EnPassant => squares | 1 << 14,
        MoveKind::Castling => squares | 2 << 14,
        MoveKind::Promotion => {
            let promo = m
                .promotion_piece()
                .expect("a promotion has a piece")
                .index() as u16
                - 1;
            squares | promo << 12 | 3 << 14
        }
    }
}

/// The engine's move for the format's 16 bits (legality is the caller's question).
pub fn decode_move(raw: u16) -> Move {
    let from = Square::new((raw & 63) as u8);
    let to = Square::new((raw >> 6 & 63) as u8);
    match raw >> 14 {
        0 => Move::new(from, to),
        1 => Move::en_passant(from, to),
        2 => Move::castling(from, to),
        _ => Move::promotion(
            from,
            to,
            PieceType::from_index((raw >> 12 & 3) as usize + 1),
        ),
    }
}

/// One game: where the recorded part starts, how it ended, and each move played with the
/// search's score (White's view) of the position it was played from.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub start: Position,
    pub outcome: Outcome,
    pub plies: Vec<(Move, i16)>,
}

/// One position of a game, as a trainer sees it.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub pos: Position,
    /// The move the search chose here.
    pub best: Move,
    /// The search's score, White's view.
    pub score: i16,
    pub outcome: Outcome,
}

impl Sample {
    /// Plies since the game's start position (from the move counters).
    pub fn game_ply(&self) -> u32 {
        crate::book::game_ply(&self.pos)
    }

    /// The score from the side to move's point of view.
    pub fn stm_score(&self) -> i16 {
        match self.pos.side_to_move() {
            Color::White => self.score,
            Color::Black => -self.score,
        }
    }

    /// The result from the side to move's point of view: 1 win, ½ draw, 0 loss.
    pub fn stm_result(&self) -> f32 {
        let white = self.outcome.white_score();
        match self.pos.side_to_move() {
            Color::White => white,
            Color::Black => 1.0 - white,
        }
    }
}

/// Which positions a trainer keeps (applied at load time, so the data keeps everything).
#[derive(Clone, Copy, Debug)]
pub struct Filter {
    /// Skip the opening: positions before this game ply.
    pub min_ply: u32,
    /// Skip mate and tablebase scores (|score| at or above this).
    pub max_score: i16,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            min_ply: 16,
            max_score: MATE_SCORE,
        }
    }
}

impl Filter {
    /// Quiet positions only: not in check, the chosen move neither captures nor promotes
    /// (a static evaluation cannot see a pending exchange), past the opening, no mate score.
    pub fn keep(&self, s: &Sample) -> bool {
        !s.pos.in_check()
            && !s.pos.is_capture(s.best)
            && s.best.kind() != MoveKind::Promotion
            && s.game_ply() >= self.min_ply
            && s.score.unsigned_abs() < self.max_score as u16
    }
}

impl GameRecord {
    pub fn new(start: Position) -> GameRecord {
        GameRecord {
            start,
            outcome: Outcome::Draw,
            plies: Vec::new(),
        }
    }

    /// Bytes this game takes.
    pub fn encoded_len(&self) -> usize {
        BOARD_BYTES + PLY_BYTES * (self.plies.len() + 1)
    }

    /// Appends the game to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let first_score = self.plies.first().map_or(0, |p| p.1);
        out.extend_from_slice(&pack_board(&self.start, first_score, self.outcome));
        for &(m, score) in &self.plies {
            out.extend_from_slice(&encode_move(m).to_le_bytes());
            out.extend_from_slice(&score.to_le_bytes());
        }
        out.extend_from_slice(&[0; PLY_BYTES]);
    }

    /// Reads the game at the start of `bytes`; returns it and the bytes it took.
    pub fn decode(bytes: &[u8]) -> Result<(GameRecord, usize), FormatError> {
        let board: &[u8; BOARD_BYTES] = bytes
            .get(..BOARD_BYTES)
            .ok_or(FormatError::Truncated)?
            .try_into()
            .unwrap();
        let (start, _, outcome) = unpack_board(board)?;
        let mut game = GameRecord {
            start,
            outcome,
            plies: Vec::new(),
        };
        let mut pos = start;
        let mut at = BOARD_BYTES;
        loop {
            let pair = bytes
                .get(at..at + PLY_BYTES)
                .ok_or(FormatError::Truncated)?;
            at += PLY_BYTES;
            let raw = u16::from_le_bytes([pair[0], pair[1]]);
            let score = i16::from_le_bytes([pair[2], pair[3]]);
            if raw == 0 {
                return Ok((game, at));
            }
            let m = decode_move(raw);
            if !pos.legal_moves().contains(m) {
                return Err(FormatError::IllegalMove {
                    ply: game.plies.len(),
                    raw,
                });
            }
            game.plies.push((m, score));
            pos.play(m);
        }
    }

    /// Every position of the game with its move and score.
    pub fn samples(&self) -> impl Iterator<Item = Sample> + '_ {
        let mut pos = self.start;
        self.plies.iter().map(move |&(m, score)| {
            let sample = Sample {
                pos,
                best: m,
                score,
                outcome: self.outcome,
            };
            pos.play(m);
            sample
        })
    }
}

/// Reads games one after another from a byte buffer; stops at the first error.
pub struct GameReader<'a> {
    bytes: &'a [u8],
    at: usize,
    failed: bool,
}

impl<'a> GameReader<'a> {
    pub fn new(bytes: &'a [u8]) -> GameReader<'a> {
        GameReader {
            bytes,
            at: 0,
            failed: false,
        }
    }

    /// Bytes read so far (the end of the last whole game).
    pub fn offset(&self) -> usize {
        self.at
    }
}

impl Iterator for GameReader<'_> {
    type Item = Result<GameRecord, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at >= self.bytes.len() {
            return None;
        }
        match GameRecord::decode(&self.bytes[self.at..]) {
            Ok((game, used)) => {
                self.at += used;
                Some(Ok(game))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// How many whole games `bytes` starts with, and where the last one ends: a file cut in the
/// middle of a write is read (and continued) up to there.
pub fn whole_games(bytes: &[u8]) -> (usize, usize) {
    let mut reader = GameReader::new(bytes);
    let mut games = 0;
    while let Some(Ok(_)) = reader.next() {
        games += 1;
    }
    (games, reader.offset())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(fen: &str, moves: &[&str]) -> GameRecord {
        let start = Position::from_fen(fen).unwrap();
        let mut game = GameRecord::new(start);
        let mut pos = start;
        for (i, text) in moves.iter().enumerate() {
            let m = pos.parse_uci_move(text).unwrap();
            game.plies.push((m, i as i16 * 7 - 20));
            pos.play(m);
        }
        game.outcome = Outcome::WhiteWins;
        game
    }

    #[test]
    fn the_start_position_packs_as_the_specification_shows() {
        let b = pack_board(&Position::startpos(), 0, Outcome::WhiteWins);
        assert_eq!(&b[0..8], &0xFFFF_0000_0000_FFFFu64.to_le_bytes());
        // a1 unmoved rook (6) and b1 knight (1) share the first byte, a1 in the low nibble.
        assert_eq!(&b[8..12], &[0x16, 0x42, 0x25, 0x61]);
        assert_eq!(&b[12..16], &[0; 4]);
        assert_eq!(&b[16..20], &[0x88; 4]);
        assert_eq!(&b[20..24], &[0x9E, 0xCA, 0xAD, 0xE9]);
        assert_eq!(b[24], 64);
        assert_eq!(&b[26..28], &[1, 0]);
        assert_eq!(b[30], 2);
    }

    #[test]
    fn moves_are_encoded_as_the_specification_shows() {
        let pos = Position::startpos();
        assert_eq!(encode_move(pos.parse_uci_move("e2e4").unwrap()), 0x070C);
        let promo = Position::from_fen("8/1P6/8/8/8/8/8/k1K5 w - - 0 1").unwrap();
        let m = promo.parse_uci_move("b7b8q").unwrap();
        assert_eq!(encode_move(m), 0xF000 | 57 << 6 | 49);
        assert_eq!(decode_move(encode_move(m)), m);
    }

    #[test]
    fn boards_round_trip_with_castling_en_passant_and_chess960() {
        for fen in [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "8/8/8/4k3/8/8/4P3/4K3 b - - 49 80",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let (back, score, outcome) =
                unpack_board(&pack_board(&pos, -123, Outcome::Draw)).unwrap();
            assert_eq!(back, pos, "{fen}");
            assert_eq!((score, outcome), (-123, Outcome::Draw));
        }
    }

    #[test]
    fn games_round_trip_and_a_cut_file_reads_to_its_last_whole_game() {
        let a = play(
            crate::chess::START_FEN,
            &[
                "e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8a5", "c6b7", "a5b5",
                "b7a8q",
            ],
        );
        let b = play(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            &["e1g1", "e8c8", "a2a4", "b4a3"],
        );
        let mut bytes = Vec::new();
        a.encode(&mut bytes);
        b.encode(&mut bytes);
        assert_eq!(bytes.len(), a.encoded_len() + b.encoded_len());
        let games: Vec<GameRecord> = GameReader::new(&bytes).map(Result::unwrap).collect();
        assert_eq!(games, vec![a.clone(), b.clone()]);
        assert_eq!(whole_games(&bytes), (2, bytes.len()));
        for cut in a.encoded_len() + 1..bytes.len() {
            assert_eq!(
                whole_games(&bytes[..cut]),
                (1, a.encoded_len()),
                "cut at {cut}"
            );
        }
        let mut reader = GameReader::new(&bytes[..bytes.len() - 1]);
        assert!(reader.next().unwrap().is_ok());
        assert_eq!(reader.next().unwrap(), Err(FormatError::Truncated));
        assert!(reader.next().is_none());
    }

    #[test]
    fn an_illegal_move_is_an_error_not_a_position() {
        let mut bytes = Vec::new();
        play(crate::chess::START_FEN, &["e2e4"]).encode(&mut bytes);
        // e2e4 becomes e2e5.
        bytes[BOARD_BYTES..BOARD_BYTES + 2].copy_from_slice(&(12u16 | 36 << 6).to_le_bytes());
        assert!(matches!(
            GameRecord::decode(&bytes),
            Err(FormatError::IllegalMove { ply: 0, .. })
        ));
    }

    #[test]
    fn samples_follow_the_game_and_the_filter_keeps_quiet_positions() {
        let game = play(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 9",
            &["e2e4", "d7d5", "e4d5", "d8d5"],
        );
        let samples: Vec<Sample> = game.samples().collect();
        assert_eq!(samples.len(), 4);
        assert_eq!(samples[0].game_ply(), 16);
        assert_eq!(samples[1].stm_score(), -samples[1].score);
        assert_eq!(samples[1].stm_result(), 0.0);
        let filter = Filter::default();
        let kept: Vec<bool> = samples.iter().map(|s| filter.keep(s)).collect();
        // e4d5 and d8d5 capture.
        assert_eq!(kept, vec![true, true, false, false]);
    }
}
