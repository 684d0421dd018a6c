//! `UCI_LimitStrength` / `UCI_Elo` through the binary: a limited engine answers at once
//! (a node budget, no sleeping), always legally, and does not always play the best move.

mod uci_harness;

use brudno::chess::Position;
use std::collections::HashSet;
use std::time::{Duration, Instant};
use uci_harness::{bestmove_of, Gui};

const FEN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

/// The best moves of `n` searches with a minute on the clock, and the largest node count
/// any info line showed.
fn moves_played(options: &[&str], n: usize) -> (Vec<String>, u64, Duration) {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    for o in options {
        gui.send(o);
    }
    let mut moves = Vec::new();
    let mut max_nodes = 0;
    let start = Instant::now();
    for _ in 0..n {
        gui.send("ucinewgame");
        gui.send(&format!("position fen {FEN}"));
        gui.send("go wtime 60000 btime 60000");
        let lines = gui.until("bestmove");
        for l in &lines {
            let w: Vec<&str> = l.split_whitespace().collect();
            if let Some(i) = w.iter().position(|x| *x == "nodes") {
                max_nodes = max_nodes.max(w[i + 1].parse().unwrap());
            }
        }
        moves.push(bestmove_of(&lines));
    }
    (moves, max_nodes, start.elapsed())
}

#[test]
fn a_low_rating_answers_at_once_and_varies_its_legal_moves() {
    let (moves, max_nodes, took) = moves_played(
        &[
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 1000",
        ],
        40,
    );
    let pos = Position::from_fen(FEN).unwrap();
    assert!(
        moves.iter().all(|m| pos.parse_uci_move(m).is_some()),
        "{moves:?}"
    );
    let distinct: HashSet<&String> = moves.iter().collect();
    assert!(distinct.len() >= 2, "always the same move: {moves:?}");
    // About 420 nodes at 1000 (src/search/strength.rs), plus the last check's slack.
    assert!(max_nodes <= 400 + 1024, "{max_nodes} nodes");
    assert!(took < Duration::from_secs(10), "40 searches took {took:?}");
}

#[test]
fn full_strength_plays_its_one_best_move_and_searches_far_more() {
    let (moves, max_nodes, _) = moves_played(&["setoption name UCI_Elo value 1000"], 3);
    assert!(moves.windows(2).all(|w| w[0] == w[1]), "{moves:?}");
    assert!(
        max_nodes > 100_000,
        "{max_nodes} nodes: UCI_Elo alone must not limit"
    );
}
