//! Polyglot opening books: reading any `.bin` book, the embedded default book, and (in
//! [`maker`]) writing books from games.
//!
//! The Polyglot format is a flat file of 16-byte big-endian entries sorted by position key:
//!
//! ```text
//!  key: u64 | move: u16 | weight: u16 | learn: u32
//! ```
//! `key` is the Polyglot Zobrist key of the position, which is exactly [`Position::key`]. The
//! move packs `to` (bits 0-5), `from` (bits 6-11) and the promotion piece (bits 12-14: 1 knight,
//! 2 bishop, 3 rook, 4 queen). Castling is stored as the king taking its own rook (`e1h1`), which
//! is also how the rules core represents it. `learn` is unused.
//!
//! Reading follows what the format's reference readers do: all entries of a key, in file order;
//! entries of weight 0 are never played; an entry whose move is not legal in the position is
//! skipped (a key collision or a broken book cannot make the engine play an illegal move). Like
//! python-chess, a castling move also written the "king moves two squares" way (`e1g1`) is read
//! as castling when the king stands on its e-file start square.

pub mod maker;

use crate::chess::{Color, Move, MoveKind, PieceType, Position, Square};
use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// Size of one Polyglot entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// The default book, made by `brudno-tools book build` (`scripts/make-book`) from TCEC games
/// (see `src/book/README.md`).
static EMBEDDED: &[u8] = include_bytes!("default.bin");

/// One playable book move for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookEntry {
    pub mv: Move,
    pub weight: u16,
}

/// Larger books are refused before anything is read (the largest public Polyglot books are a
/// few hundred MB; the whole file is read into memory).
pub const MAX_BOOK_BYTES: u64 = 1 << 30;

/// Why a book could not be loaded. `Display` gives a one-line message for an `info string`.
#[derive(Debug)]
pub enum BookError {
    /// Missing, not a regular file, or larger than any book this engine reads.
    Unreadable {
        path: String,
        why: String,
    },
    Empty,
    /// The size is not a whole number of 16-byte entries (truncated, or not a Polyglot book).
    BadSize(usize),
    /// Far from sorted by key: not a Polyglot book.
    NotSorted {
        inversions: usize,
        entries: usize,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Unreadable { path, why } => write!(f, "cannot read book file {path}: {why}"),
            BookError::Empty => write!(f, "book file is empty"),
            BookError::BadSize(n) => write!(
                f,
                "book file size {n} is not a multiple of {ENTRY_SIZE} bytes (truncated or not a Polyglot book)"
            ),
            BookError::NotSorted {
                inversions,
                entries,
            } => write!(
                f,
                "book file is not sorted by position key ({inversions} of {entries} entries out of order): not a Polyglot book"
            ),
        }
    }
}

impl std::error::Error for BookError {}

/// A Polyglot book held in memory (the embedded book is borrowed, not copied).
#[derive(Clone)]
pub struct Book {
    data: Cow<'static, [u8]>,
}

impl fmt::Debug for Book {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Book({} entries)", self.len())
    }
}

/// A raw entry as stored in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEntry {
    pub key: u64,
    pub raw_move: u16,
    pub weight: u16,
    pub learn: u32,
}

impl RawEntry {
    pub fn from_bytes(b: &[u8]) -> RawEntry {
        RawEntry {
            key: u64::from_be_bytes(b[0..8].try_into().unwrap()),
            raw_move: u16::from_be_bytes([b[8], b[9]]),
            weight: u16::from_be_bytes([b[10], b[11]]),
            learn: u32::from_be_bytes(b[12..16].try_into().unwrap()),
        }
    }

    pub fn to_bytes(self) -> [u8; ENTRY_SIZE] {
        let mut b = [0u8; ENTRY_SIZE];
        b[0..8].copy_from_slice(&self.key.to_be_bytes());
        b[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        b[10..12].copy_from_slice(&self.weight.to_be_bytes());
        b[12..16].copy_from_slice(&self.learn.to_be_bytes());
        b
    }
}

/// A book with more than this share of out-of-order neighbours is rejected as not a book; a
/// few strays (one published book has a short unsorted tail) are sorted in on loading.
const MAX_INVERSION_SHARE: usize = 100; // 1 in 100

impl Book {
    /// Checks and takes a book image. An almost sorted book is sorted (stable, so entries of one
    /// key keep their file order); see [`BookError`] for what is rejected.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Book, BookError> {
        Self::from_cow(Cow::Owned(bytes))
    }

    fn from_cow(data: Cow<'static, [u8]>) -> Result<Book, BookError> {
        if data.is_empty() {
            return Err(BookError::Empty);
        }
        if !data.len().is_multiple_of(ENTRY_SIZE) {
            return Err(BookError::BadSize(data.len()));
        }
        let entries = data.len() / ENTRY_SIZE;
        let key_at = |i: usize| u64::from_be_bytes(data[i * 16..i * 16 + 8].try_into().unwrap());
        let inversions = (1..entries).filter(|&i| key_at(i) < key_at(i - 1)).count();
        if inversions == 0 {
            return Ok(Book { data });
        }
        if inversions * MAX_INVERSION_SHARE > entries {
            return Err(BookError::NotSorted {
                inversions,
                entries,
            });
        }
        let mut chunks: Vec<&[u8]> = data.chunks_exact(ENTRY_SIZE).collect();
        chunks.sort_by_key(|c| u64::from_be_bytes(c[0..8].try_into().unwrap()));
        Ok(Book {
            data: Cow::Owned(chunks.concat()),
        })
    }

    /// Reads a book file.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        let path = path.as_ref();
        let bytes = crate::util::files::read_bounded(path, MAX_BOOK_BYTES).map_err(|why| {
            BookError::Unreadable {
                path: path.display().to_string(),
                why,
            }
        })?;
        Self::from_bytes(bytes)
    }

    /// The book compiled into the binary (checked once, then shared; no copy).
    pub fn embedded() -> &'static Book {
        static BOOK: OnceLock<Book> = OnceLock::new();
        BOOK.get_or_init(|| {
            Book::from_cow(Cow::Borrowed(EMBEDDED)).expect("the embedded book is valid")
        })
    }

    /// Number of entries (all keys, all weights).
    pub fn len(&self) -> usize {
        self.data.len() / ENTRY_SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The raw entry at an index.
    pub fn raw(&self, i: usize) -> RawEntry {
        RawEntry::from_bytes(&self.data[i * ENTRY_SIZE..(i + 1) * ENTRY_SIZE])
    }

    fn key_at(&self, i: usize) -> u64 {
        u64::from_be_bytes(
            self.data[i * ENTRY_SIZE..i * ENTRY_SIZE + 8]
                .try_into()
                .unwrap(),
        )
    }

    /// All raw entries stored for a key, in file order (binary search for the first).
    pub fn raw_entries(&self, key: u64) -> impl Iterator<Item = RawEntry> + '_ {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.len())
            .take_while(move |&i| self.key_at(i) == key)
            .map(|i| self.raw(i))
    }

    /// The playable entries for a position, in file order: weight above 0 and legal.
    pub fn entries(&self, pos: &Position) -> Vec<BookEntry> {
        let mut found = Vec::new();
        let mut legal = None;
        for e in self.raw_entries(pos.key()) {
            if e.weight == 0 {
                continue;
            }
            let legal = legal.get_or_insert_with(|| pos.legal_moves());
            if let Some(mv) = decode_move(pos, legal, e.raw_move) {
                found.push(BookEntry {
                    mv,
                    weight: e.weight,
                });
            }
        }
        found
    }

    /// Chooses a book move: the highest weight (the first one in file order on a tie) when
    /// `best_move`, else at random in proportion to the weights, drawn from `rng_seed`. Returns
    /// the move, its weight and the total weight of the position's playable entries.
    pub fn pick(&self, pos: &Position, best_move: bool, rng_seed: u64) -> Option<(Move, u16, u32)> {
        let entries = self.entries(pos);
        let total: u32 = entries.iter().map(|e| e.weight as u32).sum();
        if total == 0 {
            return None;
        }
        let chosen = if best_move {
            // max_by_key returns the last maximum; the first in file order is wanted.
            entries
                .iter()
                .rev()
                .max_by_key(|e| e.weight)
                .copied()
                .unwrap()
        } else {
            // The first number of a generator seeded with the seed: a good random number from any
            // seed, such as the time or a counter.
            let mut r = (crate::util::Rng::new(rng_seed).next_u64() % total as u64) as u32;
            *entries
                .iter()
                .find(|e| {
                    if r < e.weight as u32 {
                        true
                    } else {
                        r -= e.weight as u32;
                        false
                    }
                })
                .unwrap()
        };
        Some((chosen.mv, chosen.weight, total))
    }
}

/// The game ply of a position (half-moves since the start of the game), as the FEN's move
/// counter gives it: what `BookDepth` is compared with.
pub fn game_ply(pos: &Position) -> u32 {
    (pos.fullmove_number().max(1) as u32 - 1) * 2 + (pos.side_to_move() == Color::Black) as u32
}

/// The Polyglot encoding of a legal move (castling as king takes rook).
pub fn encode_move(m: Move) -> u16 {
    let promo = match m.promotion_piece() {
        Some(PieceType::Knight) => 1,
        Some(PieceType::Bishop) => 2,
        Some(PieceType::Rook) => 3,
        Some(PieceType::Queen) => 4,
        _ => 0,
    };
    m.to().index() as u16 | (m.from().index() as u16) << 6 | promo << 12
}

/// The legal move a Polyglot move stands for, if any. Bit 15 is not part of the move.
fn decode_move(pos: &Position, legal: &[Move], raw: u16) -> Option<Move> {
    let raw = raw & 0x7fff;
    if let Some(&m) = legal.iter().find(|&&m| encode_move(m) == raw) {
        return Some(m);
    }
    // Castling written as a two-square king move, read only from the standard king square.
    let (from, to) = (
        Square::new((raw >> 6 & 63) as u8),
        Square::new((raw & 63) as u8),
    );
    if raw >> 12 != 0 || from.file() != 4 || from.rank() != pos.side_to_move().relative_rank(0) {
        return None;
    }
    legal.iter().copied().find(|&m| {
        m.kind() == MoveKind::Castling
            && m.from() == from
            && Position::castle_targets(pos.side_to_move(), m.from(), m.to()).0 == to
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u64, raw_move: u16, weight: u16) -> [u8; 16] {
        RawEntry {
            key,
            raw_move,
            weight,
            learn: 0,
        }
        .to_bytes()
    }

    fn sq(s: &str) -> u16 {
        Square::parse(s).unwrap().index() as u16
    }

    fn raw(from: &str, to: &str, promo: u16) -> u16 {
        sq(to) | sq(from) << 6 | promo << 12
    }

    #[test]
    fn decodes_castling_promotion_and_skips_illegal_and_zero_weight() {
        let pos = Position::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let key = pos.key();
        let mut bytes = Vec::new();
        bytes.extend(entry(key - 1, raw("a1", "a2", 0), 5)); // another key
        bytes.extend(entry(key, raw("e1", "h1", 0), 10)); // O-O, Polyglot style
        bytes.extend(entry(key, raw("e1", "c1", 0), 3)); // O-O-O, two-square style
        bytes.extend(entry(key, raw("b7", "a8", 4), 7)); // bxa8=Q
        bytes.extend(entry(key, raw("b7", "b8", 1), 2)); // b8=N
        bytes.extend(entry(key, raw("e1", "e5", 0), 9)); // illegal
        bytes.extend(entry(key, raw("a1", "a7", 0), 0)); // weight 0
        bytes.extend(entry(key + 1, raw("a1", "a3", 0), 5));
        let book = Book::from_bytes(bytes).unwrap();
        let got: Vec<(String, u16)> = book
            .entries(&pos)
            .iter()
            .map(|e| (pos.move_to_uci(e.mv, false), e.weight))
            .collect();
        let want = [("e1g1", 10), ("e1c1", 3), ("b7a8q", 7), ("b7b8n", 2)];
        assert_eq!(
            got,
            want.iter()
                .map(|(m, w)| (m.to_string(), *w))
                .collect::<Vec<_>>()
        );
        let oo = book.entries(&pos)[0].mv;
        assert_eq!(oo, Move::castling(Square::E1, Square::H1));
        assert_eq!(book.pick(&pos, true, 0), Some((oo, 10, 22)));
        assert_eq!(book.raw_entries(key).count(), 6);
    }

    #[test]
    fn best_move_prefers_the_first_of_equal_weights_and_random_follows_weights() {
        let pos = Position::startpos();
        let key = pos.key();
        let mut bytes = Vec::new();
        bytes.extend(entry(key, raw("d2", "d4", 0), 30));
        bytes.extend(entry(key, raw("e2", "e4", 0), 60));
        bytes.extend(entry(key, raw("c2", "c4", 0), 60));
        bytes.extend(entry(key, raw("g1", "f3", 0), 0));
        let book = Book::from_bytes(bytes).unwrap();
        let (best, w, total) = book.pick(&pos, true, 123).unwrap();
        assert_eq!(
            (pos.move_to_uci(best, false), w, total),
            ("e2e4".into(), 60, 150)
        );
        let mut counts = [0u32; 3];
        for seed in 0..15_000u64 {
            let (m, _, _) = book.pick(&pos, false, seed).unwrap();
            let i = ["d2d4", "e2e4", "c2c4"]
                .iter()
                .position(|s| *s == pos.move_to_uci(m, false))
                .unwrap();
            counts[i] += 1;
        }
        // Expected 3000 / 6000 / 6000.
        assert!((2700..3300).contains(&counts[0]), "{counts:?}");
        assert!((5600..6400).contains(&counts[1]), "{counts:?}");
        assert!((5600..6400).contains(&counts[2]), "{counts:?}");
    }

    #[test]
    fn rejects_bad_images_and_sorts_a_stray_entry() {
        assert!(matches!(Book::from_bytes(vec![]), Err(BookError::Empty)));
        assert!(matches!(
            Book::from_bytes(vec![0; 33]),
            Err(BookError::BadSize(33))
        ));
        // Descending keys: not a book.
        let mut bytes = Vec::new();
        for k in (0..50u64).rev() {
            bytes.extend(entry(k, 1, 1));
        }
        assert!(matches!(
            Book::from_bytes(bytes),
            Err(BookError::NotSorted { .. })
        ));
        // One stray at the end of 200 sorted entries is sorted in.
        let mut bytes = Vec::new();
        for k in 1..=200u64 {
            bytes.extend(entry(k * 10, 1, 1));
        }
        bytes.extend(entry(15, 2, 1));
        let book = Book::from_bytes(bytes).unwrap();
        assert_eq!(book.raw_entries(15).count(), 1);
        assert_eq!(book.raw(1).key, 15);
    }

    #[test]
    fn game_ply_from_move_counter() {
        assert_eq!(game_ply(&Position::startpos()), 0);
        let p = Position::from_fen("8/8/8/8/8/8/8/K1k5 b - - 0 10").unwrap();
        assert_eq!(game_ply(&p), 19);
    }

    #[test]
    fn embedded_book_is_valid_and_knows_the_start_position() {
        let book = Book::embedded();
        assert!(book.len() > 1000 && book.len() * ENTRY_SIZE <= 1 << 20);
        assert!(!book.entries(&Position::startpos()).is_empty());
    }
}
