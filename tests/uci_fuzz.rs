//! A short fuzz of the whole UCI session on every test run: thousands of random and mutated
//! command lines (from a grammar of real commands, then bytes flipped, words swapped, cut,
//! duplicated) sent to the real binary. After every batch the engine must still answer
//! `isready`, the process must stay up, and the searches must all end with a `bestmove`
//! (at least one per well-formed `go`, never more than one per line that starts with `go`).
//! (The long runs are the cargo-fuzz targets in `fuzz/`.)

mod common;
mod uci_harness;

use common::Rng;
use std::time::Duration;
use uci_harness::{count, Gui};

const FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
];
const MOVES: [&str; 12] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "e1g1", "e1h1", "a7a8q", "e5d6", "0000", "h7h8n", "zz", "e2e5",
];
const OPTIONS: [&str; 14] = [
    "Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "OwnBook",
    "UCI_Chess960",
    "UCI_ShowWDL",
    "Move Overhead",
    "Clear Hash",
    "UCI_LimitStrength",
    "UCI_Elo",
    "NullMovePruning",
    "SecondarySearch",
    "No Such Option",
];
const VALUES: [&str; 12] = [
    "true",
    "false",
    "1",
    "2",
    "0",
    "-1",
    "64",
    "800",
    "2800",
    "99999999999999999999",
    "x",
    "",
];
const GO_PARTS: [&str; 16] = [
    "depth 2",
    "depth 0",
    "nodes 500",
    "nodes -1",
    "movetime 5",
    "movetime -3",
    "wtime 40",
    "btime 40",
    "winc 5",
    "binc -5",
    "movestogo 1",
    "movestogo 0",
    "mate 1",
    "searchmoves e2e4",
    "depth x",
    "frob",
];

/// A command from the grammar (bounded: no search can run longer than a few milliseconds).
fn grammar_line(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => {
            let mut l = format!("position fen {}", rng.pick(&FENS));
            if rng.below(2) == 0 {
                l.push_str(" moves");
                for _ in 0..rng.below(5) {
                    l.push(' ');
                    l.push_str(rng.pick::<&str>(&MOVES));
                }
            }
            l
        }
        1 => {
            let mut l = "position startpos moves".to_string();
            for _ in 0..rng.below(6) {
                l.push(' ');
                l.push_str(rng.pick::<&str>(&MOVES));
            }
            l
        }
        2 | 3 => {
            let mut l = "go".to_string();
            for _ in 0..rng.below(4) {
                l.push(' ');
                l.push_str(rng.pick::<&str>(&GO_PARTS));
            }
            // Bound every search: depth 2 after anything else wins.
            l.push_str(" depth 2");
            l
        }
        4 => format!(
            "setoption name {} value {}",
            rng.pick(&OPTIONS),
            rng.pick(&VALUES)
        ),
        5 => rng
            .pick(&[
                "ucinewgame",
                "isready",
                "uci",
                "stop",
                "ponderhit",
                "d",
                "eval",
            ])
            .to_string(),
        6 => rng
            .pick(&[
                "debug on",
                "debug off",
                "register later",
                "perft 2",
                "go perft 1",
            ])
            .to_string(),
        7 => rng
            .pick(&[
                "",
                "   ",
                "\t",
                "xyzzy",
                "position",
                "position fen",
                "setoption",
            ])
            .to_string(),
        _ => {
            let fen = rng.pick(&FENS).to_string();
            format!("position fen {}", mutate(rng, fen))
        }
    }
}

/// Flips, drops, duplicates or swaps bytes and words (valid UTF-8 comes out: the engine reads
/// bytes lossily anyway, and the harness sends text).
fn mutate(rng: &mut Rng, line: String) -> String {
    let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        if words.is_empty() {
            break;
        }
        let i = rng.below(words.len());
        match rng.below(6) {
            0 => {
                words.remove(i);
            }
            1 => {
                let w = words[i].clone();
                words.insert(i, w);
            }
            2 => {
                let j = rng.below(words.len());
                words.swap(i, j);
            }
            3 => {
                let mut chars: Vec<char> = words[i].chars().collect();
                if !chars.is_empty() {
                    let k = rng.below(chars.len());
                    chars[k] = (b'!' + rng.below(94) as u8) as char;
                }
                words[i] = chars.into_iter().collect();
            }
            4 => words[i] = "9".repeat(1 + rng.below(30)),
            _ => {
                let keep = rng.below(words[i].len() + 1);
                // Cut on a character boundary.
                let cut = (0..=keep)
                    .rev()
                    .find(|&k| words[i].is_char_boundary(k))
                    .unwrap_or(0);
                words[i].truncate(cut);
            }
        }
    }
    words.join(" ")
}

#[test]
fn random_sessions_never_kill_the_engine() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut sent = 0;
    for session in 0..6 {
        let mut gui = Gui::start();
        gui.send("setoption name OwnBook value false");
        // Lines that surely are searches, and lines that might be.
        let (mut sure_gos, mut maybe_gos) = (0, 0);
        for _batch in 0..40 {
            for _ in 0..10 {
                let mut line = grammar_line(&mut rng);
                let mutated = rng.below(4) == 0;
                if mutated {
                    line = mutate(&mut rng, line);
                    // A mutated go may have lost its bound: bound it again.
                    if line.starts_with("go") {
                        line.push_str(" depth 2");
                    }
                }
                // Keep the fuzz bounded in memory and time.
                if line.contains("Hash") || line.contains("Threads") || line.contains("perft") {
                    continue;
                }
                if line.starts_with("go") {
                    maybe_gos += 1;
                    sure_gos += usize::from(!mutated);
                }
                gui.send(&line);
                sent += 1;
            }
            // Unbounded searches (go infinite/ponder slipped in by a mutation) end on stop.
            gui.send("stop");
            gui.sync();
            assert!(
                gui.exit_status().is_none(),
                "session {session}: the engine exited; transcript tail: {:?}",
                &gui.transcript[gui.transcript.len().saturating_sub(20)..]
            );
        }
        gui.send("stop");
        gui.sync();
        gui.drain(Duration::from_millis(300));
        let bestmoves = count(&gui.transcript, "bestmove");
        assert!(
            (sure_gos..=maybe_gos).contains(&bestmoves),
            "session {session}: {bestmoves} bestmoves for {sure_gos}..={maybe_gos} searches"
        );
        gui.send("quit");
        assert!(gui.exits_within(Duration::from_secs(5)));
    }
    assert!(sent > 2000, "{sent} lines");
}
