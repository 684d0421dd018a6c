//! Features GUIs ask for, through the binary: MultiPV (with searchmoves) and UCI_ShowWDL.

mod uci_harness;

use uci_harness::{bestmove_of, Gui};

/// (depth, multipv index, score cp, first move) of every complete `info … multipv` line.
fn lines_by_depth(lines: &[String]) -> Vec<(u32, usize, i32, String)> {
    let mut out = Vec::new();
    for l in lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        let at = |key: &str| w.iter().position(|x| *x == key).map(|i| w[i + 1]);
        if !l.starts_with("info depth") || l.contains("bound") {
            continue;
        }
        let (Some(d), Some(k), Some("cp"), Some(pv)) =
            (at("depth"), at("multipv"), at("score"), at("pv"))
        else {
            continue;
        };
        let cp = w[w.iter().position(|x| *x == "cp").unwrap() + 1]
            .parse()
            .unwrap();
        out.push((d.parse().unwrap(), k.parse().unwrap(), cp, pv.to_string()));
    }
    out
}

#[test]
fn multipv_gives_k_distinct_lines_per_depth_best_first() {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name MultiPV value 4");
    gui.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    gui.send("go depth 8");
    let lines = gui.until("bestmove");
    let info = lines_by_depth(&lines);
    for depth in 1..=8 {
        let at: Vec<_> = info.iter().filter(|l| l.0 == depth).collect();
        let last4: Vec<_> = at.iter().rev().take(4).rev().collect();
        assert_eq!(last4.len(), 4, "depth {depth}: {at:?}");
        let ks: Vec<usize> = last4.iter().map(|l| l.1).collect();
        assert_eq!(ks, vec![1, 2, 3, 4], "depth {depth}");
        assert!(
            last4.windows(2).all(|w| w[0].2 >= w[1].2),
            "depth {depth} not ordered: {last4:?}"
        );
        let mut moves: Vec<&String> = last4.iter().map(|l| &l.3).collect();
        moves.sort();
        moves.dedup();
        assert_eq!(moves.len(), 4, "depth {depth}: a move twice");
    }
    let best = bestmove_of(&lines);
    let final_first = info.iter().rev().find(|l| l.1 == 1).unwrap();
    assert_eq!(final_first.3, best);
}

#[test]
fn multipv_with_searchmoves_shows_only_those_moves() {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name MultiPV value 5");
    gui.send("position startpos");
    gui.send("go depth 6 searchmoves a2a3 h2h4 b1a3");
    let lines = gui.until("bestmove");
    let info = lines_by_depth(&lines);
    assert!(!info.is_empty());
    // MultiPV is capped by the number of moves to search.
    assert!(info.iter().all(|l| l.1 <= 3), "{info:?}");
    assert!(info
        .iter()
        .all(|l| ["a2a3", "h2h4", "b1a3"].contains(&l.3.as_str())));
    let best = bestmove_of(&lines);
    assert!(["a2a3", "h2h4", "b1a3"].contains(&best.as_str()), "{best}");
}

/// The deepest complete iteration the `info` lines report.
fn deepest(lines: &[String]) -> u32 {
    lines_by_depth(lines).iter().map(|l| l.0).max().unwrap_or(0)
}

#[test]
fn one_searched_move_is_searched_for_the_whole_movetime_but_played_at_once_on_a_clock() {
    // `go movetime T searchmoves M` is how an analysis tool asks for the score of one move
    // (a judge of the secondary search's verdicts does): it must get a real search, not a single
    // iteration.
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("position startpos");
    gui.send("go movetime 400 searchmoves e2e4");
    let lines = gui.until("bestmove");
    assert_eq!(bestmove_of(&lines), "e2e4");
    assert!(deepest(&lines) >= 6, "{lines:#?}");
    // Under a clock a forced move is still played after one iteration.
    gui.send("ucinewgame");
    gui.send("position startpos");
    gui.send("go wtime 60000 btime 60000 searchmoves e2e4");
    let lines = gui.until("bestmove");
    assert_eq!(bestmove_of(&lines), "e2e4");
    assert_eq!(deepest(&lines), 1, "{lines:#?}");
}

#[test]
fn wdl_is_shown_only_when_enabled_and_follows_the_score() {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("position startpos");
    gui.send("go depth 5");
    let off = gui.until("bestmove");
    assert!(off.iter().all(|l| !l.contains(" wdl ")), "{off:?}");

    gui.send("setoption name UCI_ShowWDL value true");
    for (fen, winning) in [
        ("4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", true), // white a lot up
        ("rnbqkbnr/pppppppp/8/8/8/8/8/4K3 w kq - 0 1", false), // white a lot down
    ] {
        gui.send(&format!("position fen {fen}"));
        gui.send("go depth 5");
        let on = gui.until("bestmove");
        let wdl_lines: Vec<&String> = on.iter().filter(|l| l.starts_with("info depth")).collect();
        assert!(!wdl_lines.is_empty());
        for l in wdl_lines {
            let w: Vec<&str> = l.split_whitespace().collect();
            let i = w
                .iter()
                .position(|x| *x == "wdl")
                .expect("wdl in every info line");
            let v: Vec<u32> = w[i + 1..i + 4].iter().map(|x| x.parse().unwrap()).collect();
            assert_eq!(v.iter().sum::<u32>(), 1000, "{l}");
            if winning {
                assert!(v[0] > 900, "{l}");
            } else {
                assert!(v[2] > 900, "{l}");
            }
        }
    }
}
