//! Time safety through the binary: with 30 ms on the clock and no increment, and with
//! `movestogo 1`, the move comes back before the clock would run out. Its own test binary, so
//! that no other test of ours competes for the CPU while it measures.

mod uci_harness;

use brudno::chess::Position;
use std::time::{Duration, Instant};
use uci_harness::{bestmove_of, Gui};

/// Middlegames and endgames with many legal moves and tactics (slow nodes, deep quiescence).
const FENS: [&str; 6] = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 0 8",
    "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - - 0 22",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
];

/// Milliseconds from sending `go` to reading `bestmove`, and the move.
fn answer_time(gui: &mut Gui, fen: &str, go: &str) -> (Duration, String) {
    gui.send(&format!("position fen {fen}"));
    gui.sync();
    let start = Instant::now();
    gui.send(go);
    let lines = gui.until("bestmove");
    let took = start.elapsed();
    (took, bestmove_of(&lines))
}

fn check(threads: u32) {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send(&format!("setoption name Threads value {threads}"));
    let mut worst = Duration::ZERO;
    for round in 0..2 {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let side = if fen.contains(" w ") {
                "wtime"
            } else {
                "btime"
            };
            for (go, clock_ms) in [
                (format!("go {side} 30"), 30),
                ("go wtime 30 btime 30 winc 0 binc 0".to_string(), 30),
                (format!("go {side} 1000 movestogo 1"), 1000),
                (format!("go {side} 150 movestogo 1"), 150),
            ] {
                let (took, mv) = answer_time(&mut gui, fen, &go);
                assert!(pos.parse_uci_move(&mv).is_some(), "{fen} '{go}': {mv}");
                assert!(
                    took < Duration::from_millis(clock_ms),
                    "round {round}, Threads {threads}, {fen} '{go}': {took:?} with {clock_ms} ms on the clock"
                );
                if clock_ms == 30 {
                    worst = worst.max(took);
                }
            }
        }
    }
    eprintln!("Threads {threads}: slowest answer with 30 ms on the clock: {worst:?}");
}

#[test]
fn moves_come_back_before_the_clock_runs_out() {
    check(1);
    check(2);
}
