//! The move reader: any text against a few positions (normal and Chess960 castling); a move it
//! accepts is legal and writes back to text that reads as the same move.
#![no_main]

use brudno::chess::Position;
use libfuzzer_sys::fuzz_target;

const FENS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/8/2k5/3pP3/8/8/4K3 b - e3 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let pos = Position::from_fen(FENS[which as usize % FENS.len()]).unwrap();
    let text = String::from_utf8_lossy(rest);
    if let Some(m) = pos.parse_uci_move(&text) {
        assert!(pos.legal_moves().contains(m), "{text} accepted but not legal");
        for chess960 in [false, true] {
            let written = pos.move_to_uci(m, chess960);
            assert_eq!(pos.parse_uci_move(&written), Some(m), "{text} -> {written}");
        }
    }
});
