//! The lecture's tools: minimax, α-β and the tree picture, on the perft suite's positions and
//! through the real binary with bad requests.

mod uci_harness;

use brudno::chess::Position;
use brudno::lecture::tree::{to_dot, to_svg, Recorder};
use brudno::lecture::{search, Variant, DEFAULT_NODE_CAP};
use brudno::search::{Limits, SearchControl, SearchOptions, Searcher};
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
        "tree 3 engine moves e7e5",
        "tree 9 engine",
        "tree -2 engine",
        "tree 3 engine sideways",
        "tree 3 engine svg /nonexistent-folder/t.svg",
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
    // The full engine's row searches with the switches set (a different tree without
    // forward pruning); the teaching searches' rows stay as they were.
    let rows = |gui: &mut Gui| -> (String, Vec<String>) {
        gui.send("lecture 4");
        let (engine, teaching): (Vec<String>, Vec<String>) = gui
            .sync()
            .into_iter()
            .filter(|l| {
                ["minimax", "alpha-beta", "the full engine"]
                    .iter()
                    .any(|s| l.starts_with(s))
            })
            .partition(|l| l.starts_with("the full engine"));
        (engine.concat(), teaching)
    };
    let (with, teaching) = rows(&mut gui);
    gui.send("setoption name ForwardPruning value false");
    let (without, teaching_again) = rows(&mut gui);
    assert!(with.contains("as set") && teaching.len() == 3, "{with}");
    assert_ne!(with, without);
    assert_eq!(teaching, teaching_again);
}

/// The engine's own tree: one node per node of its last iteration (no aspiration window
/// below depth 4, so one root search), drawn with each, the same search as an untraced one.
#[test]
fn the_engine_tree_is_its_last_iteration_node_for_node() {
    for (pos, _) in suite(6) {
        let fen = pos.to_fen();
        let limits = Limits {
            depth: Some(3),
            ..Default::default()
        };
        let options = SearchOptions::default();
        let (traced, log, stats) = Searcher::new(16).trace(&pos, &limits, &options, 2_000);
        assert!(!log.overflowed(), "{fen}");
        let plain = Searcher::new(16).search(
            &pos,
            &[],
            &limits,
            &options,
            &SearchControl::new(),
            &mut |_| {},
        );
        assert_eq!(
            (traced.nodes, traced.best),
            (plain.nodes, plain.best),
            "{fen}"
        );
        assert_eq!(stats.nodes(), traced.nodes, "{fen}");
        assert_eq!(
            stats.iterations().last(),
            Some(&(3, log.len() as u64)),
            "{fen}"
        );
        let rec = Recorder::from_trace(&log);
        assert_eq!(rec.len(), log.len());
        assert!(rec.nodes.iter().any(|n| n.quiescence), "{fen}");
        // The root's value is the search's.
        assert_eq!(
            brudno::search::score::to_public(log.nodes[0].value),
            traced.score.unwrap(),
            "{fen}"
        );
        let svg = to_svg(&rec, "t");
        assert_eq!(svg.matches("class=\"node\"").count(), rec.len(), "{fen}");
        let ended = rec.nodes.iter().filter(|n| n.ended.is_some()).count();
        assert_eq!(svg.matches("class=\"ended\"").count(), ended, "{fen}");
        let dot = to_dot(&rec, "t");
        assert_eq!(
            dot.matches("shape=triangle").count() + dot.matches("shape=invtriangle").count(),
            rec.len(),
            "{fen}"
        );
    }
}

/// A tree past the cap is refused, not cut short.
#[test]
fn a_traced_tree_past_its_cap_says_so() {
    let pos = Position::startpos();
    let limits = Limits {
        depth: Some(4),
        ..Default::default()
    };
    // The same search with room to spare gives the tree's true size.
    let (_, whole, _) = Searcher::new(16).trace(&pos, &limits, &SearchOptions::default(), 100_000);
    assert!(!whole.overflowed());
    let cap = whole.len() / 2;
    assert!(
        cap >= 10,
        "a depth-4 tree of {} nodes is too small to cut",
        whole.len()
    );
    let (_, log, _) = Searcher::new(16).trace(&pos, &limits, &SearchOptions::default(), cap);
    assert!(log.overflowed());
    assert_eq!(log.len(), cap);
}

/// The number of SVG elements with class `node`, read by an XML parser (python's
/// `xml.etree`) where there is one, else by counting.
fn svg_nodes(path: &std::path::Path) -> usize {
    let parsed = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, xml.etree.ElementTree as E; \
             print(sum(e.get('class') == 'node' for e in E.parse(sys.argv[1]).getroot().iter()))",
        )
        .arg(path)
        .output();
    match parsed {
        Ok(out) if out.status.success() => {
            String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
        }
        Ok(out) if !String::from_utf8_lossy(&out.stderr).contains("No module") => {
            panic!(
                "the SVG does not parse: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        }
        _ => {
            let text = std::fs::read_to_string(path).unwrap();
            assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
            text.matches("class=\"node\"").count()
        }
    }
}

#[test]
fn tree_engine_writes_a_parseable_svg_of_the_counted_search() {
    let dir = std::env::temp_dir().join(format!("brudno-tree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, dot) = (dir.join("engine.svg"), dir.join("engine.dot"));
    let mut gui = Gui::start();
    gui.send(&format!(
        "tree 3 engine svg {} dot {}",
        svg.display(),
        dot.display()
    ));
    let lines = gui.sync();
    let title = lines
        .iter()
        .find(|l| l.starts_with("info string the engine to depth 3"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let recorded: usize = title
        .split(" (")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{title}"));
    assert!(recorded > 20, "{title}");
    assert_eq!(svg_nodes(&svg), recorded);
    let dot_text = std::fs::read_to_string(&dot).unwrap();
    assert_eq!(
        dot_text.matches("shape=triangle").count() + dot_text.matches("shape=invtriangle").count(),
        recorded
    );
    // The statistics of the same search (a fresh table either way): its last iteration.
    gui.send("stats on");
    gui.send("go depth 3");
    gui.until("bestmove");
    gui.send("stats");
    let stats = gui.sync();
    let iteration = format!("info string stats iteration 3 nodes {recorded}");
    assert!(
        stats
            .iter()
            .any(|l| l == &iteration || l.starts_with(&format!("{iteration} "))),
        "{iteration}: {stats:?}"
    );
    // A few root moves only: a smaller tree.
    gui.send(&format!(
        "tree 3 engine moves e2e4 d2d4 svg {}",
        svg.display()
    ));
    let lines = gui.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("info string wrote")),
        "{lines:?}"
    );
    assert!(svg_nodes(&svg) < recorded);
    let _ = std::fs::remove_dir_all(&dir);
}
