//! The Polyglot book reader against python-chess, the published key vectors, broken files and
//! the embedded book. Data in `tests/data` (see `SOURCES.md` there).

use brudno::book::maker::write_entries;
use brudno::book::{Book, BookError, RawEntry};
use brudno::chess::Position;

static SLICE: &[u8] = include_bytes!("data/book-performance-slice.bin");
static EXPECTED: &str = include_str!("data/book-performance-expected.tsv");

fn slice() -> Book {
    Book::from_bytes(SLICE.to_vec()).expect("the slice is a valid book")
}

fn found(book: &Book, pos: &Position) -> Vec<(String, u16)> {
    book.entries(pos)
        .iter()
        .map(|e| (pos.move_to_uci(e.mv, false), e.weight))
        .collect()
}

#[test]
fn moves_and_weights_equal_python_chess() {
    let book = slice();
    let (mut positions, mut in_book) = (0, 0);
    for line in EXPECTED.lines().filter(|l| !l.starts_with('#')) {
        let (fen, moves) = line.split_once('\t').expect("FEN<TAB>moves");
        let pos = Position::from_fen(fen).unwrap();
        let want: Vec<(String, u16)> = moves
            .split_ascii_whitespace()
            .map(|mw| {
                let (m, w) = mw.split_once(':').unwrap();
                (m.to_string(), w.parse().unwrap())
            })
            .collect();
        assert_eq!(found(&book, &pos), want, "{fen}");

        // BookBestMove: python-chess's `find` (the first entry of the highest weight).
        let best = want
            .iter()
            .fold(None::<&(String, u16)>, |b, e| match b {
                Some(b) if b.1 >= e.1 => Some(b),
                _ => Some(e),
            })
            .map(|(m, w)| (m.clone(), *w));
        let total: u32 = want.iter().map(|e| e.1 as u32).sum();
        let picked = book
            .pick(&pos, true, 0)
            .map(|(m, w, t)| (pos.move_to_uci(m, false), w, t));
        assert_eq!(picked, best.map(|(m, w)| (m, w, total)), "{fen}");

        // Weighted random choice: always one of the entries, with the same total.
        for seed in 0..3 {
            if let Some((m, w, t)) = book.pick(&pos, false, seed) {
                assert!(want.contains(&(pos.move_to_uci(m, false), w)));
                assert_eq!(t, total);
            }
        }
        positions += 1;
        in_book += !want.is_empty() as usize;
    }
    assert!(positions > 2500 && in_book > 1500, "{positions} {in_book}");
}

/// The nine published Polyglot key vectors, as a book sees them: an entry stored under each
/// published key is found from the position the moves reach.
#[test]
fn published_key_vectors_find_their_entries() {
    let vectors: [(&str, u64); 9] = [
        ("", 0x463b96181691fc9c),
        ("e2e4", 0x823c9b50fd114196),
        ("e2e4 d7d5", 0x0756b94461c50fb0),
        ("e2e4 d7d5 e4e5", 0x662fafb965db29d4),
        ("e2e4 d7d5 e4e5 f7f5", 0x22a48b5a8e47ff78),
        ("e2e4 d7d5 e4e5 f7f5 e1e2", 0x652a607ca3f242c1),
        ("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00fdd303c946bdd9),
        ("a2a4 b7b5 h2h4 b5b4 c2c4", 0x3c8123ea7b067637),
        ("a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5c3f9b829b279560),
    ];
    // Every position gets a legal move of its own, stored under the published key.
    let mut entries = Vec::new();
    let mut positions = Vec::new();
    for (i, (moves, key)) in vectors.iter().enumerate() {
        let mut pos = Position::startpos();
        for m in moves.split_ascii_whitespace() {
            pos.play(pos.parse_uci_move(m).unwrap());
        }
        let mv = pos.legal_moves()[i];
        entries.push(RawEntry {
            key: *key,
            raw_move: brudno::book::encode_move(mv),
            weight: 10 + i as u16,
            learn: 0,
        });
        positions.push((pos, mv, 10 + i as u16));
    }
    entries.sort_by_key(|e| e.key);
    let book = Book::from_bytes(write_entries(&entries)).unwrap();
    for (pos, mv, weight) in positions {
        let got = book.entries(&pos);
        assert_eq!(got.len(), 1, "{pos:?}");
        assert_eq!((got[0].mv, got[0].weight), (mv, weight), "{pos:?}");
    }
}

#[test]
fn broken_files_are_errors() {
    // Truncated: not a whole number of entries.
    let truncated = SLICE[..SLICE.len() - 5].to_vec();
    let err = Book::from_bytes(truncated).unwrap_err();
    assert!(matches!(err, BookError::BadSize(_)), "{err}");
    assert!(err.to_string().contains("not a multiple of 16"), "{err}");
    // Cut at an entry boundary it is still a book (a shorter one).
    assert!(Book::from_bytes(SLICE[..SLICE.len() - 160].to_vec()).is_ok());
    // Not a book at all: these test sources, padded to a multiple of 16.
    let mut text = EXPECTED.as_bytes().to_vec();
    text.truncate(text.len() / 16 * 16);
    let err = Book::from_bytes(text).unwrap_err();
    assert!(matches!(err, BookError::NotSorted { .. }), "{err}");
    // Missing and empty files.
    let err = Book::open("/nonexistent/brudno-book.bin").unwrap_err();
    assert!(matches!(err, BookError::Unreadable { .. }), "{err}");
    assert!(err.to_string().contains("/nonexistent/brudno-book.bin"));
    assert!(matches!(
        Book::from_bytes(Vec::new()),
        Err(BookError::Empty)
    ));
    // Reading the real file works the same as from memory.
    let book = Book::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/book-performance-slice.bin"
    ))
    .unwrap();
    assert_eq!(book.len(), SLICE.len() / 16);
}

/// Scrambled moves under real keys (a damaged book, or key collisions): only legal moves come
/// out, never a panic.
#[test]
fn corrupted_moves_are_never_played() {
    let mut bytes = SLICE.to_vec();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for e in bytes.chunks_exact_mut(16) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        e[8] = x as u8;
        e[9] = (x >> 8) as u8;
    }
    let book = Book::from_bytes(bytes).unwrap();
    for line in EXPECTED.lines().filter(|l| !l.starts_with('#')).take(800) {
        let pos = Position::from_fen(line.split('\t').next().unwrap()).unwrap();
        let legal = pos.legal_moves();
        for e in book.entries(&pos) {
            assert!(legal.contains(e.mv));
        }
    }
}

/// The embedded book: every move in its tree (walked from the start position) is legal, and it
/// has a few moves of depth.
#[test]
fn embedded_book_tree_is_legal() {
    let book = Book::embedded();
    let mut frontier = vec![Position::startpos()];
    let mut seen = std::collections::HashSet::new();
    let mut depth = 0;
    while !frontier.is_empty() && seen.len() < 5000 {
        let mut next = Vec::new();
        for pos in frontier {
            if !seen.insert(pos.key()) {
                continue;
            }
            for e in book.entries(&pos) {
                assert!(e.weight > 0);
                next.push(pos.after(e.mv));
            }
        }
        frontier = next;
        depth += 1;
    }
    assert!(seen.len() >= 5000 && depth >= 6, "{} {depth}", seen.len());
    let start = book.entries(&Position::startpos());
    assert!(start.len() >= 3);
    // Raw entries agree with what the reader returns (no illegal moves in our own book).
    assert_eq!(
        book.raw_entries(Position::startpos().key()).count(),
        start.len()
    );
}
