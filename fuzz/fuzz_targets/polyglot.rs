//! The Polyglot book reader: any bytes as a book file; a book it accepts answers probes with
//! legal moves only.
#![no_main]

use brudno::book::Book;
use brudno::chess::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(book) = Book::from_bytes(data.to_vec()) else {
        return;
    };
    let mut pos = Position::startpos();
    // Follow the book as far as it goes (a bounded number of plies), checking each move.
    for ply in 0..16u64 {
        let legal = pos.legal_moves();
        for e in book.entries(&pos) {
            assert!(legal.contains(e.mv));
        }
        match book.pick(&pos, ply % 2 == 0, ply) {
            Some((m, _, _)) => {
                assert!(legal.contains(m));
                pos.play(m);
            }
            None => break,
        }
    }
    // Every stored entry decodes without a panic against its own key's position, if any.
    for i in 0..book.len().min(64) {
        let _ = book.raw(i);
    }
});
