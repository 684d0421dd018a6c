//! Developer tools run as ignored tests (`cargo test --release --test search_tools -- --ignored
//! --nocapture NAME`): bench with per-position counts, and the branching factor.

use brudno::chess::Position;
use brudno::search::bench::{bench, POSITIONS};
use brudno::search::{Limits, SearchControl, SearchEvent, SearchOptions, Searcher};

#[test]
#[ignore]
fn print_bench() {
    let depth = std::env::var("BENCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok());
    let r = bench(depth);
    println!("{} nodes {} nps ({} ms)", r.nodes, r.nps, r.time_ms);
}

#[test]
#[ignore]
fn print_bench_positions() {
    let depth: u32 = std::env::var("BENCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(10);
    let control = SearchControl::new();
    let mut s = Searcher::new(16);
    for fen in POSITIONS {
        s.clear();
        let pos = Position::from_fen(fen).unwrap();
        let t = std::time::Instant::now();
        let mut last = None;
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        let r = s.search(
            &pos,
            &[],
            &limits,
            &SearchOptions::default(),
            &control,
            &mut |e| {
                if let SearchEvent::Line(l) = e {
                    last = Some(l)
                }
            },
        );
        let l = last.unwrap();
        println!(
            "{:>10} {:>6}ms {:?} {:?} sd {} pv {}",
            r.nodes,
            t.elapsed().as_millis(),
            r.best.map(|m| pos.move_to_uci(m, false)),
            l.score,
            l.seldepth,
            l.pv.len()
        );
    }
}

/// `FEN=... DEPTH=n OFF=null,lmr,fut,lmp,see,fp,qs,chk` prints the search's lines.
#[test]
#[ignore]
fn analyse() {
    let fen = std::env::var("FEN").unwrap();
    let depth: u32 = std::env::var("DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(8);
    let off = std::env::var("OFF").unwrap_or_default();
    let mut o = SearchOptions::default();
    for w in off.split(',') {
        match w {
            "null" => o.null_move_pruning = false,
            "lmr" => o.late_move_reductions = false,
            "fut" => o.futility_pruning = false,
            "lmp" => o.late_move_pruning = false,
            "see" => o.see_pruning = false,
            "fp" => o.forward_pruning = false,
            "qs" => o.quiescence = false,
            "chk" => o.check_extension = false,
            _ => {}
        }
    }
    let pos = Position::from_fen(&fen).unwrap();
    let control = SearchControl::new();
    let mut s = Searcher::new(16);
    let searchmoves = std::env::var("MOVES")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|m| pos.parse_uci_move(m))
        .collect();
    let limits = Limits {
        depth: Some(depth),
        searchmoves,
        ..Default::default()
    };
    let r = s.search(&pos, &[], &limits, &o, &control, &mut |e| {
        if let SearchEvent::Line(l) = e {
            if l.bound != brudno::search::Bound::Exact {
                return;
            }
            let pv: Vec<String> = l.pv.iter().map(|m| format!("{m:?}")).collect();
            println!(
                "{} {:?} {:?} {} {}",
                l.depth,
                l.score,
                l.bound,
                l.nodes,
                pv.join(" ")
            );
        }
    });
    println!("best {:?} nodes {}", r.best, r.nodes);
}

/// `NODES=n` searches every position of `/tmp/wac_uci.txt` (`fen|bm uci…|am uci…|id`) to
/// `n` nodes and prints how many were solved by each node budget (solved = the best move is
/// right from that point to the end).
#[test]
#[ignore]
fn wac_profile() {
    let nodes: u64 = std::env::var("NODES")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(150_000);
    let text = std::fs::read_to_string("/tmp/wac_uci.txt").unwrap();
    let control = SearchControl::new();
    let mut s = Searcher::new(16);
    let mut solve_at = Vec::new();
    let mut failed = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('|').collect();
        let pos = Position::from_fen(f[0]).unwrap();
        let bm: Vec<_> = f[1]
            .split_whitespace()
            .filter_map(|m| pos.parse_uci_move(m))
            .collect();
        let am: Vec<_> = f[2]
            .split_whitespace()
            .filter_map(|m| pos.parse_uci_move(m))
            .collect();
        let good = |m| (bm.is_empty() || bm.contains(&m)) && !am.contains(&m);
        s.clear();
        let limits = Limits {
            nodes: Some(nodes),
            ..Default::default()
        };
        let mut since: Option<u64> = None;
        let r = s.search(
            &pos,
            &[],
            &limits,
            &SearchOptions::default(),
            &control,
            &mut |e| {
                if let SearchEvent::Line(l) = e {
                    if l.pv.first().is_some_and(|&m| good(m)) {
                        since.get_or_insert(l.nodes);
                    } else {
                        since = None;
                    }
                }
            },
        );
        match (r.best.is_some_and(good), since) {
            (true, Some(n)) => solve_at.push(n),
            (true, None) => solve_at.push(r.nodes),
            _ => failed.push(f[3].to_string()),
        }
    }
    let budgets = [
        10_000u64, 20_000, 30_000, 45_000, 60_000, 80_000, 100_000, 150_000, 200_000, 300_000,
        500_000,
    ];
    let counts: Vec<String> = budgets
        .iter()
        .filter(|&&b| b <= nodes)
        .map(|&b| {
            format!(
                "{}k:{}",
                b / 1000,
                solve_at.iter().filter(|&&n| n <= b).count()
            )
        })
        .collect();
    let logsum: f64 = solve_at
        .iter()
        .map(|&n| (n.max(1000) as f64 / nodes as f64).ln())
        .sum::<f64>()
        / 300.0;
    println!(
        "{} | score {:.3} | failed {}",
        counts.join(" "),
        logsum,
        failed.join(" ")
    );
}
