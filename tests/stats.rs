//! Search statistics: a counting search searches exactly the tree the normal one does, its
//! counts add up, each method is counted where it acts (and not when switched off), helpers'
//! counts are summed; and through the real binary, `stats on|off` and `stats`.

mod uci_harness;

use brudno::chess::Position;
use brudno::search::{
    Counter, Limits, SearchControl, SearchEvent, SearchOptions, SearchResult, SearchStats, Searcher,
};
use std::collections::HashMap;
use uci_harness::{bestmove_of, Gui};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/p1pn2bp/1p4p1/3Ppn2/P7/BPNQ1NP1/5PBP/R4RK1 b - - 1 17",
    "3r2k1/4rp2/3p2pn/1P1P3p/2P2R1P/Q7/5P2/5K2 w - - 7 51",
];

/// A fixed-depth search with a fresh table, counted or not: its result and, counted, its stats.
fn search(
    fen: &str,
    depth: u32,
    options: &SearchOptions,
    counting: bool,
) -> (SearchResult, Option<SearchStats>) {
    let mut s = Searcher::new(16);
    s.set_counting(counting);
    let limits = Limits {
        depth: Some(depth),
        ..Default::default()
    };
    let pos = Position::from_fen(fen).unwrap();
    let r = s.search(
        &pos,
        &[],
        &limits,
        options,
        &SearchControl::new(),
        &mut |_| {},
    );
    (r, s.last_stats())
}

/// The defaults, and each method switched the other way.
fn variants() -> Vec<(&'static str, SearchOptions)> {
    let d = SearchOptions::default();
    let with = |f: fn(&mut SearchOptions)| {
        let mut o = d.clone();
        f(&mut o);
        o
    };
    vec![
        ("defaults", d.clone()),
        ("ForwardPruning off", with(|o| o.forward_pruning = false)),
        ("NullMovePruning off", with(|o| o.null_move_pruning = false)),
        (
            "LateMoveReductions off",
            with(|o| o.late_move_reductions = false),
        ),
        ("FutilityPruning off", with(|o| o.futility_pruning = false)),
        ("LateMovePruning off", with(|o| o.late_move_pruning = false)),
        ("SeePruning off", with(|o| o.see_pruning = false)),
        ("Quiescence off", with(|o| o.quiescence = false)),
        ("CheckExtension on", with(|o| o.check_extension = true)),
        (
            "SingularExtensions off",
            with(|o| o.singular_extensions = false),
        ),
    ]
}

/// The counts add up: nodes by ply to the total and to the search's own count (one thread),
/// cut-offs within their bounds, one iteration per depth.
fn assert_consistent(stats: &SearchStats, r: &SearchResult, depth: u32, what: &str) {
    let plies = stats.plies();
    let interior: u64 = plies.iter().map(|p| p.1).sum();
    let quiescence: u64 = plies.iter().map(|p| p.2).sum();
    assert_eq!(
        (interior, quiescence),
        (stats.interior_nodes(), stats.quiescence_nodes()),
        "{what}"
    );
    assert_eq!(stats.nodes(), r.nodes, "{what}");
    assert_eq!(stats.threads(), 1, "{what}");
    let n = |e| stats.count(e);
    assert!(n(Counter::FirstMoveCut) <= n(Counter::BetaCut), "{what}");
    assert!(
        n(Counter::TtCut) <= n(Counter::TtHit) && n(Counter::TtHit) <= n(Counter::TtProbe),
        "{what}"
    );
    assert!(n(Counter::NullMoveCut) <= n(Counter::NullMoveTry), "{what}");
    assert!(
        n(Counter::LmrResearch) <= n(Counter::LmrReduction),
        "{what}"
    );
    assert!(
        n(Counter::DoubleExtension) <= n(Counter::SingularExtension),
        "{what}"
    );
    if let Some(share) = stats.first_move_share() {
        assert!((0.0..=1.0).contains(&share), "{what}: {share}");
    }
    let depths: Vec<u32> = stats.iterations().iter().map(|i| i.0).collect();
    assert_eq!(depths, (1..=depth).collect::<Vec<_>>(), "{what}");
    let in_iterations: u64 = stats.iterations().iter().map(|i| i.1).sum();
    assert!(in_iterations <= stats.nodes(), "{what}");
}

#[test]
fn counting_searches_the_same_tree() {
    for (name, options) in variants() {
        // Singular extensions start at depth 8.
        let depth = if name.starts_with("Singular") { 9 } else { 7 };
        for fen in FENS {
            let what = format!("{name}, {fen}");
            let (plain, none) = search(fen, depth, &options, false);
            let (counted, stats) = search(fen, depth, &options, true);
            assert!(none.is_none(), "{what}: an uncounted search has no stats");
            assert_eq!(
                (plain.nodes, plain.best, plain.score, &plain.pv),
                (counted.nodes, counted.best, counted.score, &counted.pv),
                "{what}"
            );
            assert_consistent(&stats.unwrap(), &counted, depth, &what);
        }
    }
}

/// Each counter summed over the positions at `depth` with `options`.
fn totals(depth: u32, options: &SearchOptions) -> HashMap<&'static str, u64> {
    let events = [
        ("tt cut", Counter::TtCut),
        ("beta cut", Counter::BetaCut),
        ("stand pat", Counter::StandPat),
        ("null move cut", Counter::NullMoveCut),
        ("reverse futility", Counter::ReverseFutility),
        ("futility", Counter::Futility),
        ("delta", Counter::Delta),
        ("lmp", Counter::LateMovePrune),
        ("lmr", Counter::LmrReduction),
        ("lmr research", Counter::LmrResearch),
        ("iir", Counter::Iir),
        ("see", Counter::SeeQuiet),
        ("see noisy", Counter::SeeNoisy),
        ("see quiescence", Counter::SeeQuiescence),
        ("check extension", Counter::CheckExtension),
        ("singular", Counter::SingularExtension),
    ];
    let mut sums = HashMap::new();
    for fen in FENS {
        let stats = search(fen, depth, options, true).1.unwrap();
        for (name, e) in events {
            *sums.entry(name).or_insert(0) += stats.count(e);
        }
    }
    sums
}

#[test]
fn each_method_is_counted_where_it_acts_and_not_when_switched_off() {
    let on = totals(10, &SearchOptions::default());
    for (name, n) in &on {
        // The check extension is off by default.
        if *name != "check extension" {
            assert!(*n > 0, "{name} never counted: {on:?}");
        }
    }
    assert_eq!(on["check extension"], 0);
    let off = |f: fn(&mut SearchOptions)| {
        let mut o = SearchOptions::default();
        f(&mut o);
        totals(8, &o)
    };
    let t = off(|o| o.null_move_pruning = false);
    assert_eq!(t["null move cut"], 0);
    let t = off(|o| o.futility_pruning = false);
    assert_eq!(
        (t["reverse futility"], t["futility"], t["delta"]),
        (0, 0, 0)
    );
    let t = off(|o| o.late_move_pruning = false);
    assert_eq!(t["lmp"], 0);
    let t = off(|o| o.late_move_reductions = false);
    assert_eq!((t["lmr"], t["lmr research"], t["iir"]), (0, 0, 0));
    let t = off(|o| o.see_pruning = false);
    assert_eq!((t["see"], t["see noisy"], t["see quiescence"]), (0, 0, 0));
    let t = off(|o| o.quiescence = false);
    assert_eq!(t["stand pat"], 0);
    let t = off(|o| o.check_extension = true);
    assert!(t["check extension"] > 0);
    let t = off(|o| o.forward_pruning = false);
    for name in [
        "null move cut",
        "reverse futility",
        "futility",
        "lmp",
        "lmr",
        "see",
    ] {
        assert_eq!(t[name], 0, "{name} with ForwardPruning off");
    }
}

#[test]
fn helpers_add_their_counts() {
    let options = SearchOptions {
        threads: 2,
        ..Default::default()
    };
    let (r, stats) = search(FENS[1], 9, &options, true);
    let stats = stats.unwrap();
    assert_eq!(stats.threads(), 2);
    // The helper counts every node it searched, some after the main thread's last report.
    assert!(stats.nodes() >= r.nodes, "{} < {}", stats.nodes(), r.nodes);
    // The iterations are the main thread's.
    assert_eq!(stats.iterations().len(), 9);
}

#[test]
fn secondary_verdicts_are_counted_under_a_clock() {
    let options = SearchOptions {
        secondary_search: true,
        ..Default::default()
    };
    let limits = Limits {
        wtime: Some(10_000),
        btime: Some(10_000),
        ..Default::default()
    };
    // A settled move gets no verdict: positions are tried until one gives one.
    let mut seen = 0;
    for fen in brudno::search::bench::POSITIONS {
        let mut s = Searcher::new(16);
        s.set_counting(true);
        let mut notes = 0;
        s.search(
            &Position::from_fen(fen).unwrap(),
            &[],
            &limits,
            &options,
            &SearchControl::new(),
            &mut |e| {
                if matches!(&e, SearchEvent::Debug(n) if n.starts_with("secondary depth")) {
                    notes += 1;
                }
            },
        );
        let stats = s.last_stats().unwrap();
        let verdicts: u64 = [
            Counter::Holds,
            Counter::FailedLow,
            Counter::Dropped,
            Counter::Inconclusive,
        ]
        .into_iter()
        .map(|e| stats.count(e))
        .sum();
        assert_eq!(verdicts, notes, "{fen}");
        seen += notes;
        if seen > 0 {
            break;
        }
    }
    assert!(seen > 0, "no verdict in any of the bench positions");
}

// ----- through the binary -----

/// `go depth D` on `fen`: the nodes of the last `info depth` line and the best move.
fn go(gui: &mut Gui, fen: &str, depth: u32) -> (u64, String, Vec<String>) {
    gui.send(&format!("position fen {fen}"));
    gui.send(&format!("go depth {depth}"));
    let lines = gui.until("bestmove");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with(&format!("info depth {depth} ")))
        .expect("an info line of the last depth");
    let nodes = field::<u64>(info, "nodes").unwrap();
    (nodes, bestmove_of(&lines), lines)
}

/// The word after `name` in `line`, read as a number.
fn field<T: std::str::FromStr>(line: &str, name: &str) -> Option<T> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == name)?;
    words.next()?.parse().ok()
}

/// The `stats` lines, by their subject (`ply` lines kept in order under "ply").
fn stats_of(gui: &mut Gui) -> HashMap<String, Vec<String>> {
    gui.send("stats");
    let lines = gui.sync();
    let mut by = HashMap::<String, Vec<String>>::new();
    for l in lines {
        if let Some(rest) = l.strip_prefix("info string stats ") {
            let subject = rest.split_whitespace().next().unwrap().to_string();
            by.entry(subject).or_default().push(rest.to_string());
        }
    }
    by
}

#[test]
fn stats_on_searches_the_same_tree_and_its_counts_add_up() {
    let mut plain = Gui::start();
    let mut counted = Gui::start();
    counted.send("stats on");
    assert!(counted
        .sync()
        .iter()
        .any(|l| l.starts_with("info string stats on")));
    for fen in &FENS[..3] {
        for gui in [&mut plain, &mut counted] {
            gui.send("ucinewgame");
        }
        let (nodes, best, _) = go(&mut plain, fen, 8);
        let (counted_nodes, counted_best, lines) = go(&mut counted, fen, 8);
        assert_eq!((nodes, &best), (counted_nodes, &counted_best), "{fen}");
        // Play shows nothing new: no counts unless asked for.
        assert!(!lines.iter().any(|l| l.contains("stats")), "{lines:?}");

        let s = stats_of(&mut counted);
        let total = &s["nodes"][0];
        assert_eq!(field(total, "nodes"), Some(nodes), "{total}");
        let (mut interior, mut quiescence) = (0u64, 0u64);
        for (i, ply) in s["ply"].iter().enumerate() {
            assert_eq!(field(ply, "ply"), Some(i));
            interior += field::<u64>(ply, "interior").unwrap();
            quiescence += field::<u64>(ply, "quiescence").unwrap();
        }
        assert_eq!(interior + quiescence, nodes);
        assert_eq!(field(total, "interior"), Some(interior));
        assert_eq!(field(total, "quiescence"), Some(quiescence));
        assert_eq!(field(total, "threads"), Some(1));
        let cuts = &s["betacuts"][0];
        let share: f64 = field(cuts, "firstshare").unwrap();
        assert!((0.0..=1.0).contains(&share), "{cuts}");
        let (all, first): (u64, u64) = (
            field(cuts, "betacuts").unwrap(),
            field(cuts, "first").unwrap(),
        );
        assert!(all > 0 && first <= all, "{cuts}");
        assert!((share - first as f64 / all as f64).abs() < 0.001, "{cuts}");
        // One line per iteration; the effective branching factor from the second on.
        let iterations = &s["iteration"];
        assert_eq!(iterations.len(), 8);
        for w in iterations.windows(2) {
            let (a, b): (u64, u64) = (
                field(&w[0], "nodes").unwrap(),
                field(&w[1], "nodes").unwrap(),
            );
            let ebf: f64 = field(&w[1], "ebf").unwrap();
            assert!((ebf - b as f64 / a as f64).abs() < 0.01, "{w:?}");
        }
        let tt = &s["tt"][0];
        let tt_count = |name| field::<u64>(tt, name).unwrap();
        assert!(tt_count("cutoffs") <= tt_count("hits") && tt_count("hits") <= tt_count("probes"));
        for subject in [
            "nullmove",
            "futility",
            "lmp",
            "lmr",
            "see",
            "extensions",
            "secondary",
        ] {
            assert_eq!(s[subject].len(), 1, "{subject}: {s:?}");
        }
    }
}

#[test]
fn stats_is_an_error_without_a_counted_search_and_guis_see_nothing_new() {
    let mut gui = Gui::start();
    gui.send("uci");
    let options = gui.until("uciok");
    assert!(
        !options.iter().any(|l| l.to_lowercase().contains("stats")),
        "{options:?}"
    );
    let errors = |gui: &mut Gui, line: &str| {
        gui.send(line);
        let lines = gui.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string error")),
            "{line}: {lines:?}"
        );
    };
    // Nothing searched yet.
    errors(&mut gui, "stats");
    // An uncounted search.
    go(&mut gui, FENS[0], 4);
    errors(&mut gui, "stats");
    errors(&mut gui, "stats sometimes");
    errors(&mut gui, "stats on please");
    gui.send("stats on");
    go(&mut gui, FENS[0], 4);
    assert!(stats_of(&mut gui).contains_key("nodes"));
    // A book move (under a clock: `go depth` always searches) is not searched: counting is
    // on, and `stats` says why there is nothing.
    gui.send("position startpos");
    gui.send("go wtime 10000 btime 10000");
    let lines = gui.until("bestmove");
    assert!(lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    gui.send("stats");
    let lines = gui.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("from the book")),
        "{lines:?}"
    );
    // `stats off`: the next search is not counted, and `stats` says so (not "from the book").
    gui.send("stats off");
    go(&mut gui, FENS[0], 4);
    gui.send("stats");
    let lines = gui.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("not counted")),
        "{lines:?}"
    );
    assert_eq!(gui.sync().last().map(String::as_str), Some("readyok"));
}
