//! Lazy SMP through the binary: every thread count gives legal moves, `isready` is answered
//! while several threads search, many short searches never lose or double a `bestmove`, and
//! `Threads 1` stays deterministic even after a multi-threaded search.

mod uci_harness;

use brudno::chess::Position;
use std::time::Duration;
use uci_harness::{bestmove_of, count, Gui};

const FENS: [&str; 3] = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
];

fn bestmove_is_legal(fen: &str, lines: &[String]) -> bool {
    let pos = Position::from_fen(fen).unwrap();
    pos.parse_uci_move(&bestmove_of(lines)).is_some()
}

fn start(threads: usize) -> Gui {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send(&format!("setoption name Threads value {threads}"));
    gui
}

#[test]
fn every_thread_count_gives_a_legal_move() {
    for threads in [1, 2, 4] {
        let mut gui = start(threads);
        for fen in FENS {
            gui.send(&format!("position fen {fen}"));
            gui.send("go depth 9");
            let lines = gui.until("bestmove");
            assert!(
                bestmove_is_legal(fen, &lines),
                "Threads {threads}: {lines:?}"
            );
            // At least the depth asked for (a helper may have finished a deeper one).
            let last_info = lines.iter().rev().find(|l| l.contains(" pv ")).unwrap();
            let depth: u32 = last_info
                .split_whitespace()
                .nth(2)
                .unwrap()
                .parse()
                .unwrap();
            assert!(depth >= 9, "{last_info}");
            let first_pv_move = last_info.split(" pv ").nth(1).unwrap().split(' ').next();
            assert_eq!(first_pv_move, Some(bestmove_of(&lines).as_str()));
        }
    }
}

#[test]
fn isready_is_answered_while_four_threads_search_and_stop_gives_one_bestmove() {
    let mut gui = start(4);
    gui.send(&format!("position fen {}", FENS[1]));
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let before = gui.sync();
    assert_eq!(count(&before, "bestmove"), 0);
    gui.send("stop");
    let lines = gui.until("bestmove");
    assert!(bestmove_is_legal(FENS[1], &lines));
    let later = gui.drain(Duration::from_millis(300));
    assert_eq!(count(&later, "bestmove"), 0, "{later:?}");
}

#[test]
fn many_short_multithreaded_searches_give_one_legal_bestmove_each() {
    let mut gui = start(3);
    let limits = [
        "go depth 3",
        "go nodes 3000",
        "go movetime 5",
        "go wtime 50 btime 50",
    ];
    let mut games = 0;
    for i in 0..120 {
        let fen = FENS[i % FENS.len()];
        gui.send(&format!("position fen {fen}"));
        if i % 7 == 0 {
            gui.send("go infinite");
            gui.send("stop");
        } else {
            gui.send(limits[i % limits.len()]);
        }
        let lines = gui.until("bestmove");
        assert!(bestmove_is_legal(fen, &lines), "search {i}: {lines:?}");
        games += 1;
    }
    let tail = gui.sync();
    assert_eq!(count(&tail, "bestmove"), 0, "a second bestmove: {tail:?}");
    assert_eq!(games, 120);
}

/// The info lines of a `go depth` search after `ucinewgame`, node counts included.
fn depth_search_lines(gui: &mut Gui, fen: &str) -> Vec<String> {
    gui.send("ucinewgame");
    gui.send(&format!("position fen {fen}"));
    gui.send("go depth 10");
    gui.until("bestmove")
        .into_iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" pv "))
        .map(|l| {
            // Time and speed vary from run to run; everything else must not.
            let words: Vec<&str> = l.split_whitespace().collect();
            let mut kept = Vec::new();
            let mut i = 0;
            while i < words.len() {
                if matches!(words[i], "time" | "nps") {
                    i += 2;
                } else {
                    kept.push(words[i]);
                    i += 1;
                }
            }
            kept.join(" ")
        })
        .collect()
}

#[test]
fn one_thread_is_deterministic_after_a_multithreaded_search() {
    let mut fresh = start(1);
    let expected = depth_search_lines(&mut fresh, FENS[1]);
    assert!(!expected.is_empty());

    let mut gui = start(4);
    gui.send(&format!("position fen {}", FENS[0]));
    gui.send("go depth 10");
    gui.until("bestmove");
    gui.send("setoption name Threads value 1");
    assert_eq!(depth_search_lines(&mut gui, FENS[1]), expected);
}

/// Thread ids of a process, from /proc (Linux).
fn thread_ids(pid: u32) -> Option<Vec<u32>> {
    let mut ids: Vec<u32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    ids.sort_unstable();
    Some(ids)
}

/// The thread ids once `expected` threads remain: the thread that ran the search exits just
/// after it printed `bestmove`, so the count settles within moments (none if it never does).
fn settled_thread_ids(pid: u32, expected: usize) -> Vec<u32> {
    let mut ids = thread_ids(pid).unwrap();
    for _ in 0..200 {
        if ids.len() == expected {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        ids = thread_ids(pid).unwrap();
    }
    ids
}

#[test]
fn helper_threads_persist_between_searches_and_follow_the_threads_option() {
    let mut gui = Gui::start();
    gui.sync();
    let Some(idle) = thread_ids(gui.pid()).map(|ids| ids.len()) else {
        return; // no /proc: nothing to count
    };
    gui.send("setoption name Threads value 4");
    gui.send("setoption name OwnBook value false");
    let mut after = Vec::new();
    for moves in ["", " moves e2e4", " moves e2e4 e7e5", " moves d2d4"] {
        gui.send(&format!("position startpos{moves}"));
        gui.send("go depth 8");
        gui.until("bestmove");
        gui.sync();
        after.push(settled_thread_ids(gui.pid(), idle + 3));
    }
    // Three helpers started once and kept: the very same threads after every search.
    assert!(
        after
            .iter()
            .all(|ids| ids.len() == idle + 3 && *ids == after[0]),
        "idle {idle}, threads after each search {after:?}"
    );
    gui.send("setoption name Threads value 2");
    gui.send("go depth 6");
    gui.until("bestmove");
    gui.sync();
    assert_eq!(settled_thread_ids(gui.pid(), idle + 1).len(), idle + 1);
}
