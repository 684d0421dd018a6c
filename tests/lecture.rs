//! The lecture's tools: minimax, α-β and the tree picture, on the perft suite's positions and
//! through the real binary with bad requests.

mod uci_harness;

use brudno::chess::Position;
use brudno::lecture::tree::{to_dot, to_svg, Recorder};
use brudno::lecture::{search, Variant, DEFAULT_NODE_CAP};
use uci_harness::Gui;

/// The first positions of the perft suite with their perft(3).
fn suite(n: usize) -> Vec<(Position, u64)> {
    include_str!("data/perft.epd")
        .lines()
        .take(n)
        .map(|line| {
            let mut fields = line.split(';');
            let pos = Position::from_fen(fields.next().unwrap().trim()).unwrap();
            let d3 = fields
                .find_map(|f| f.trim().strip_prefix("D3 "))
                .unwrap()
                .parse()
                .unwrap();
            (pos, d3)
        })
        .collect()
}

#[test]
fn minimax_reaches_perft_leaves_and_alpha_beta_the_same_value_with_fewer() {
    for (pos, perft3) in suite(8) {
        let run = |v| search(&pos, 3, v, DEFAULT_NODE_CAP, None, None).unwrap();
        let (a, b, c) = (
            run(Variant::Minimax),
            run(Variant::AlphaBeta),
            run(Variant::Ordered),
        );
        let fen = pos.to_fen();
        assert_eq!(a.counts.leaves, perft3, "{fen}");
        assert_eq!(
            (a.value, b.value, c.value),
            (a.value, a.value, a.value),
            "{fen}"
        );
        assert!(b.counts.leaves <= a.counts.leaves, "{fen}");
        assert!(c.counts.leaves <= b.counts.leaves, "{fen}");
        assert_eq!(a.counts.cutoffs, 0, "{fen}");
    }
}

#[test]
fn the_picture_has_one_node_per_node_searched() {
    let pos = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap();
    let mut rec = Recorder::new();
    let out = search(&pos, 3, Variant::AlphaBeta, 10_000, None, Some(&mut rec)).unwrap();
    assert_eq!(rec.len() as u64, out.counts.nodes());
    let svg = to_svg(&rec, "t");
    assert_eq!(svg.matches("class=\"node\"").count(), rec.len());
    // Every cut-off draws one greyed stub naming what it left out.
    let cuts = rec.nodes.iter().filter(|n| n.cut.is_some()).count();
    assert!(cuts > 0 && cuts as u64 <= out.counts.cutoffs);
    assert_eq!(svg.matches("-cut</text>").count(), cuts);
    let dot = to_dot(&rec, "t");
    assert_eq!(
        dot.matches("shape=triangle").count() + dot.matches("shape=invtriangle").count(),
        rec.len()
    );
}

#[test]
fn bad_requests_get_an_error_line_and_the_engine_carries_on() {
    let mut gui = Gui::start();
    for line in [
        "position fen not/a/fen w - - 0 1",
        "lecture -1",
        "lecture 99999999999",
        "lecture",
        "tree 0",
        "tree 3 moves e7e5",
        "tree 3 svg",
        "tree 8",
    ] {
        gui.send(line);
        let lines = gui.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string error")),
            "{line}: {lines:?}"
        );
    }
    gui.send("position startpos");
    gui.send("lecture 2");
    let lines = gui.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("minimax") && l.contains(" 400 ")),
        "{lines:?}"
    );
}
