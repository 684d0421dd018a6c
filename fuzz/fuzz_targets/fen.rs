//! The FEN reader: never a panic; an accepted FEN writes back to a FEN that reads as the same
//! position, and every legal move keeps the incremental key equal to the key from scratch.
#![no_main]

use brudno::chess::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(pos) = Position::from_fen(&text) else {
        return;
    };
    let again = Position::from_fen(&pos.to_fen()).expect("our own FEN reads back");
    assert!(again == pos, "round trip changed {text}");
    assert_eq!(pos.key(), pos.compute_key());
    for &m in pos.legal_moves().iter() {
        let child = pos.after(m);
        assert_eq!(child.key(), child.compute_key(), "{text} after {m:?}");
    }
});
