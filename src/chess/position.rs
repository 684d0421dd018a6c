//! The position: piece placement (bitboards and a mailbox), side to move, castling rights,
//! en passant, the move clocks and the Zobrist key, with copy-make move execution.
//!
//! Copy-make won over make/unmake: the position is 160 bytes, copying it is a few vector moves,
//! and it spares an undo stack and the bugs of restoring state (see docs/rules.md).

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveKind};
use super::types::{Color, Piece, PieceType, Square};
use super::zobrist;

/// Castling-right slots: white short, white long, black short, black long (Polyglot's order).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CastleSide {
    King = 0,
    Queen = 1,
}

#[inline(always)]
pub(crate) const fn castle_slot(c: Color, side: CastleSide) -> usize {
    c as usize * 2 + side as usize
}

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const NO_PIECE: u8 = 12;

#[derive(Clone, Copy)]
pub struct Position {
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_kind: [Bitboard; 6],
    /// Piece index per square, `NO_PIECE` when empty.
    pub(crate) board: [u8; 64],
    pub(crate) side: Color,
    /// Set of castle slots still allowed (bit = `castle_slot`).
    pub(crate) castling: u8,
    /// The rook's square for each castle slot (meaningful only while the right is held).
    pub(crate) castle_rooks: [Square; 4],
    /// Only set when a pawn of the side to move attacks it (the Polyglot convention).
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u16,
    pub(crate) key: u64,
    /// Pieces giving check to the side to move.
    pub(crate) checkers: Bitboard,
}

/// Equal when everything a FEN records is equal (and so the key and checkers). Derived equality
/// would also compare the rook squares of castling rights no longer held, which `play` leaves
/// stale: a position and its own FEN read back would then differ.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        let rooks = |p: &Position| {
            std::array::from_fn::<_, 4, _>(|s| {
                (p.castling >> s & 1 != 0).then_some(p.castle_rooks[s])
            })
        };
        self.by_color == other.by_color
            && self.by_kind == other.by_kind
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && rooks(self) == rooks(other)
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.key == other.key
            && self.checkers == other.checkers
    }
}

impl Eq for Position {}

impl Position {
    pub(crate) fn empty() -> Position {
        Position {
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 6],
            board: [NO_PIECE; 64],
            side: Color::White,
            castling: 0,
            castle_rooks: [Square::H1, Square::A1, Square::H8, Square::A8],
            ep: None,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            checkers: Bitboard::EMPTY,
        }
    }

    pub fn startpos() -> Position {
        Position::from_fen(START_FEN).expect("the start position is valid")
    }

    // ----- queries -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let p = self.board[sq.index()];
        (p != NO_PIECE).then(|| {
            Piece::new(
                Color::ALL[(p / 6) as usize],
                PieceType::from_index((p % 6) as usize),
            )
        })
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn pieces(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline(always)]
    pub fn kind(&self, t: PieceType) -> Bitboard {
        self.by_kind[t.index()]
    }

    #[inline(always)]
    pub fn colored(&self, c: Color, t: PieceType) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[t.index()]
    }

    #[inline(always)]
    pub fn king_square(&self, c: Color) -> Square {
        self.colored(c, PieceType::King).lsb()
    }

    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }

    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }

    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// Whether colour `c` still may castle on `side`, and with which rook.
    pub fn castling_rook(&self, c: Color, side: CastleSide) -> Option<Square> {
        let slot = castle_slot(c, side);
        (self.castling >> slot & 1 != 0).then_some(self.castle_rooks[slot])
    }

    /// All pieces of either colour attacking `sq`, given an occupancy.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let diag = self.by_kind[PieceType::Bishop.index()] | self.by_kind[PieceType::Queen.index()];
        let ortho = self.by_kind[PieceType::Rook.index()] | self.by_kind[PieceType::Queen.index()];
        (attacks::pawn(Color::White, sq) & self.colored(Color::Black, PieceType::Pawn))
            | (attacks::pawn(Color::Black, sq) & self.colored(Color::White, PieceType::Pawn))
            | (attacks::knight(sq) & self.by_kind[PieceType::Knight.index()])
            | (attacks::king(sq) & self.by_kind[PieceType::King.index()])
            | (attacks::bishop(sq, occupied) & diag)
            | (attacks::rook(sq, occupied) & ortho)
    }

    /// Whether colour `by` attacks `sq`, given an occupancy.
    #[inline(always)]
    pub fn is_attacked_by(&self, by: Color, sq: Square, occupied: Bitboard) -> bool {
        self.is_attacked_by_in(attacks::tables(), by, sq, occupied)
    }

    /// `is_attacked_by` with the attack tables already fetched.
    #[inline(always)]
    pub(crate) fn is_attacked_by_in(
        &self,
        t: &attacks::Tables,
        by: Color,
        sq: Square,
        occupied: Bitboard,
    ) -> bool {
        let them = self.by_color[by.index()];
        let diag = (self.by_kind[PieceType::Bishop.index()]
            | self.by_kind[PieceType::Queen.index()])
            & them;
        let ortho =
            (self.by_kind[PieceType::Rook.index()] | self.by_kind[PieceType::Queen.index()]) & them;
        (attacks::knight(sq) & self.by_kind[PieceType::Knight.index()] & them).any()
            || (attacks::pawn(by.flip(), sq) & self.by_kind[PieceType::Pawn.index()] & them).any()
            || (attacks::king(sq) & self.by_kind[PieceType::King.index()] & them).any()
            || (t.bishop(sq, occupied) & diag).any()
            || (t.rook(sq, occupied) & ortho).any()
    }

    /// Pieces of colour `c` that are pinned to their own king (by pieces of the other colour).
    #[inline(always)]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.pinned_in(attacks::tables(), c)
    }

    /// `pinned` with the attack tables already fetched.
    #[inline(always)]
    pub(crate) fn pinned_in(&self, t: &attacks::Tables, c: Color) -> Bitboard {
        let ksq = self.king_square(c);
        let them = self.by_color[c.flip().index()];
        let snipers = ((t.rook(ksq, Bitboard::EMPTY)
            & (self.by_kind[PieceType::Rook.index()] | self.by_kind[PieceType::Queen.index()]))
            | (t.bishop(ksq, Bitboard::EMPTY)
                & (self.by_kind[PieceType::Bishop.index()]
                    | self.by_kind[PieceType::Queen.index()])))
            & them;
        let occ = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let blockers = t.between(ksq, s) & occ;
            if blockers.any() && !blockers.several() {
                pinned |= blockers & self.by_color[c.index()];
            }
        }
        pinned
    }

    // ----- piece placement, keeping the key in step -----

    #[inline(always)]
    pub(crate) fn put(&mut self, p: Piece, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.by_color[p.color().index()] |= b;
        self.by_kind[p.kind().index()] |= b;
        self.board[sq.index()] = p.index() as u8;
        self.key ^= zobrist::piece_square(p, sq);
    }

    #[inline(always)]
    pub(crate) fn remove(&mut self, p: Piece, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.by_color[p.color().index()] ^= b;
        self.by_kind[p.kind().index()] ^= b;
        self.board[sq.index()] = NO_PIECE;
        self.key ^= zobrist::piece_square(p, sq);
    }

    /// The key from scratch (the incremental one must always equal it).
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in self.occupied() {
            key ^= zobrist::piece_square(self.piece_at(sq).unwrap(), sq);
        }
        key ^= zobrist::castling(self.castling);
        if let Some(ep) = self.ep {
            key ^= zobrist::en_passant_file(ep.file());
        }
        if self.side == Color::White {
            key ^= zobrist::white_to_move();
        }
        key
    }

    /// Sets the en-passant square after a double push to `passed`, if a pawn of the side to
    /// move can take there (otherwise it is not part of the position, as in Polyglot).
    #[inline(always)]
    pub(crate) fn set_en_passant_if_capturable(&mut self, passed: Square) {
        let mover = self.side;
        if (attacks::pawn(mover.flip(), passed) & self.colored(mover, PieceType::Pawn)).any() {
            self.ep = Some(passed);
            self.key ^= zobrist::en_passant_file(passed.file());
        }
    }

    /// King and rook destinations of a castling move.
    #[inline(always)]
    pub(crate) fn castle_targets(c: Color, king: Square, rook: Square) -> (Square, Square) {
        let rank = c.relative_rank(0);
        if rook > king {
            (Square::from_coords(6, rank), Square::from_coords(5, rank))
        } else {
            (Square::from_coords(2, rank), Square::from_coords(3, rank))
        }
    }

    // ----- making moves -----

    /// Plays a legal move (from this position's generator) in place.
    pub fn play(&mut self, m: Move) {
        let us = self.side;
        let them = us.flip();
        let (from, to) = (m.from(), m.to());
        let piece = Piece::new(
            us,
            PieceType::from_index((self.board[from.index()] % 6) as usize),
        );
        debug_assert_eq!(self.piece_at(from), Some(piece));

        let castling_before = self.castling;
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::en_passant_file(ep.file());
        }
        // Saturating: a FEN may set either clock as high as u16::MAX.
        self.halfmove = self.halfmove.saturating_add(1);

        match m.kind() {
            MoveKind::Castling => {
                let rook = Piece::new(us, PieceType::Rook);
                let (kt, rt) = Self::castle_targets(us, from, to);
                self.remove(piece, from);
                self.remove(rook, to);
                self.put(piece, kt);
                self.put(rook, rt);
            }
            MoveKind::EnPassant => {
                let captured_sq = to.offset(-us.forward());
                self.remove(Piece::new(them, PieceType::Pawn), captured_sq);
                self.remove(piece, from);
                self.put(piece, to);
                self.halfmove = 0;
            }
            MoveKind::Normal | MoveKind::Promotion => {
                if let Some(captured) = self.piece_at(to) {
                    self.remove(captured, to);
                    self.halfmove = 0;
                }
                self.remove(piece, from);
                match m.promotion_piece() {
                    Some(promo) => self.put(Piece::new(us, promo), to),
                    None => self.put(piece, to),
                }
                if piece.kind() == PieceType::Pawn {
                    self.halfmove = 0;
                    if from.index() ^ to.index() == 16 {
                        self.side = them; // the capture test is from the opponent's side
                        self.set_en_passant_if_capturable(from.offset(us.forward()));
                        self.side = us;
                    }
                }
            }
        }

        // Castling rights go when the king moves or a castling rook's square is touched.
        if self.castling != 0 {
            if piece.kind() == PieceType::King {
                self.castling &= !(0b11 << (2 * us.index()));
            }
            for slot in 0..4 {
                let rook = self.castle_rooks[slot];
                if rook == from || rook == to {
                    self.castling &= !(1 << slot);
                }
            }
        }
        if self.castling != castling_before {
            // The castling key is the XOR of one key per right held, so the rights that changed
            // are what to flip.
            self.key ^= zobrist::castling(self.castling ^ castling_before);
        }

        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = them;
        self.key ^= zobrist::white_to_move();
        self.checkers = self.attackers_by(us, self.king_square(them));
    }

    /// The pieces of colour `by` attacking `sq`, at the current occupancy: `attackers_to` for one
    /// colour (used for the checkers after a move).
    #[inline(always)]
    fn attackers_by(&self, by: Color, sq: Square) -> Bitboard {
        let t = attacks::tables();
        let occupied = self.occupied();
        let diag = self.by_kind[PieceType::Bishop.index()] | self.by_kind[PieceType::Queen.index()];
        let ortho = self.by_kind[PieceType::Rook.index()] | self.by_kind[PieceType::Queen.index()];
        ((attacks::pawn(by.flip(), sq) & self.by_kind[PieceType::Pawn.index()])
            | (attacks::knight(sq) & self.by_kind[PieceType::Knight.index()])
            | (attacks::king(sq) & self.by_kind[PieceType::King.index()])
            | (t.bishop(sq, occupied) & diag)
            | (t.rook(sq, occupied) & ortho))
            & self.by_color[by.index()]
    }

    /// The key after `m` as most moves leave it — neither castling nor en passant, no castling
    /// right lost, no en-passant square made — for starting to load the child's table entry
    /// before the move is made and judged. For the other moves the hint differs from the true
    /// key and a prefetch goes to a useless bucket: only speed is at stake.
    #[inline(always)]
    pub fn key_hint_after(&self, m: Move) -> u64 {
        let (from, to) = (m.from(), m.to());
        let Some(piece) = self.piece_at(from) else {
            return self.key;
        };
        let mut key = self.key
            ^ zobrist::white_to_move()
            ^ zobrist::piece_square(piece, from)
            ^ zobrist::piece_square(
                m.promotion_piece()
                    .map_or(piece, |promo| Piece::new(self.side, promo)),
                to,
            );
        if let Some(ep) = self.ep {
            key ^= zobrist::en_passant_file(ep.file());
        }
        if m.kind() != MoveKind::Castling {
            if let Some(captured) = self.piece_at(to) {
                key ^= zobrist::piece_square(captured, to);
            }
        }
        key
    }

    /// Plays a move and returns the new position (copy-make).
    #[inline(always)]
    pub fn after(&self, m: Move) -> Position {
        let mut next = *self;
        next.play(m);
        next
    }

    /// Passes the move to the other side (for null-move search). Not legal when in check.
    pub fn play_null(&mut self) {
        debug_assert!(!self.in_check());
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::en_passant_file(ep.file());
        }
        self.halfmove = self.halfmove.saturating_add(1);
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = self.side.flip();
        self.key ^= zobrist::white_to_move();
        self.checkers = Bitboard::EMPTY;
    }

    /// The piece a move captures, if any (en passant included).
    pub fn captured(&self, m: Move) -> Option<PieceType> {
        match m.kind() {
            MoveKind::EnPassant => Some(PieceType::Pawn),
            MoveKind::Castling => None,
            _ => self.piece_at(m.to()).map(|p| p.kind()),
        }
    }

    pub fn is_capture(&self, m: Move) -> bool {
        self.captured(m).is_some()
    }

    // ----- move notation -----

    /// Long algebraic notation as UCI writes it. Castling is `e1g1` in standard chess and
    /// king-takes-rook (`e1h1`) when `chess960` is set.
    pub fn move_to_uci(&self, m: Move, chess960: bool) -> String {
        if m.is_null() {
            return "0000".to_string();
        }
        let to = match m.kind() {
            MoveKind::Castling if !chess960 => Self::castle_targets(self.side, m.from(), m.to()).0,
            _ => m.to(),
        };
        let mut s = format!("{}{}", m.from(), to);
        if let Some(p) = m.promotion_piece() {
            s.push(p.letter());
        }
        s
    }

    /// Finds the legal move a UCI string names. Accepts both castling notations (`e1g1` and
    /// `e1h1`) in either mode, as long as it is unambiguous.
    pub fn parse_uci_move(&self, text: &str) -> Option<Move> {
        let text = text.trim();
        if !(4..=5).contains(&text.len()) || !text.is_ascii() {
            return None;
        }
        let from = Square::parse(&text[0..2])?;
        let to = Square::parse(&text[2..4])?;
        let promo = match text.len() {
            5 => Some(PieceType::from_letter(text.as_bytes()[4] as char)?),
            _ => None,
        };
        let moves = self.legal_moves();
        let found = moves.iter().copied().find(|m| {
            m.from() == from
                && m.promotion_piece() == promo
                && (m.to() == to
                    || (m.kind() == MoveKind::Castling
                        && Self::castle_targets(self.side, m.from(), m.to()).0 == to
                        // in Chess960 "king to g1" is a king move when the king stands next to g1
                        && !moves.iter().any(|n| n.kind() != MoveKind::Castling && n.from() == from && n.to() == to)))
        });
        found
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::perft::suite_positions_and_children;

    /// The prefetch hint is the child's key exactly for every move but castling, en passant
    /// and the moves that lose a castling right or make an en-passant square.
    #[test]
    fn the_key_hint_is_the_childs_key_for_ordinary_moves() {
        let (mut ordinary, mut other) = (0, 0);
        for pos in suite_positions_and_children() {
            for &m in pos.legal_moves().iter() {
                let child = pos.after(m);
                if matches!(m.kind(), MoveKind::Castling | MoveKind::EnPassant)
                    || child.castling != pos.castling
                    || child.ep.is_some()
                {
                    other += 1;
                    continue;
                }
                ordinary += 1;
                assert_eq!(pos.key_hint_after(m), child.key(), "{pos:?} {m:?}");
            }
        }
        // The suite is rich in castling rights; still, most moves are ordinary.
        assert!(
            ordinary > other,
            "{ordinary} ordinary moves, {other} others"
        );
    }
}
