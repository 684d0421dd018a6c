//! Perft node counts against the published suites in `tests/data` (see `SOURCES.md` there).
//!
//! `cargo test --release` checks every standard count up to `FAST_NODE_LIMIT` nodes and every
//! Chess960 position to depth 4 (together under 1 billion nodes, a few seconds on two cores); the
//! deeper counts are behind `#[ignore]`: `cargo test --release -- --ignored` runs the whole
//! standard suite and the Chess960 suite at depth 5. (Chess960 depth 6, 507 billion nodes, is
//! left out: it would take the better part of an hour.)
//!
//! On a mismatch the message names the position and depth and lists, per root move, our count
//! next to shakmaty's (an independent generator), so the faulty subtree is visible at once.

mod common;

use brudno::chess::{perft, Position};
use common::{par_map, parse_perft_epd, PerftCase, FRC_PERFT_EPD, PERFT_EPD};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position as _};

/// Counts above this many nodes are left to the ignored tests. At 20 million the standard suite
/// checks 728 of its 759 counts (0.31 billion nodes; the full suite is 4.8 billion, about 15 s).
const FAST_NODE_LIMIT: u64 = 20_000_000;

struct Job<'a> {
    case: &'a PerftCase,
    depth: u32,
    expected: u64,
}

/// Runs the jobs (biggest first, over all cores) and fails with a report of every mismatch.
fn run(mut jobs: Vec<Job>, chess960: bool) {
    assert!(!jobs.is_empty());
    jobs.sort_by_key(|j| std::cmp::Reverse(j.expected));
    let total: u64 = jobs.iter().map(|j| j.expected).sum();
    let failures: Vec<String> = par_map(&jobs, |job| {
        let pos = Position::from_fen(&job.case.fen)
            .unwrap_or_else(|e| panic!("line {}: '{}' rejected: {e}", job.case.line, job.case.fen));
        let got = perft::perft(&pos, job.depth);
        (got != job.expected).then(|| mismatch_report(job, &pos, got, chess960))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {} perft counts wrong ({total} nodes checked):\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

fn mismatch_report(job: &Job, pos: &Position, got: u64, chess960: bool) -> String {
    let mut s = format!(
        "line {}: {} depth {}: expected {}, got {got}\n  divide (ours vs shakmaty):",
        job.case.line, job.case.fen, job.depth, job.expected
    );
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let reference: Option<Chess> = match job.case.fen.parse::<Fen>() {
        Ok(fen) => match fen.into_position(mode) {
            Ok(p) => Some(p),
            Err(e) => e.ignore_impossible_check().ok(),
        },
        Err(_) => None,
    };
    let mut theirs: Vec<(String, u64)> = match &reference {
        Some(r) => r
            .legal_moves()
            .iter()
            .map(|m| {
                let child = r.clone().play(m).unwrap();
                (
                    UciMove::from_move(m, mode).to_string(),
                    shakmaty::perft(&child, job.depth - 1),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    for (m, n) in perft::divide(pos, job.depth) {
        let uci = pos.move_to_uci(m, chess960);
        let other = theirs
            .iter()
            .position(|(u, _)| *u == uci)
            .map(|i| theirs.remove(i).1);
        let flag = if other == Some(n) {
            ""
        } else {
            "   <-- differs"
        };
        s.push_str(&format!("\n    {uci}: {n} vs {other:?}{flag}"));
    }
    for (u, n) in theirs {
        s.push_str(&format!(
            "\n    {u}: missing vs {n}   <-- only shakmaty has it"
        ));
    }
    s
}

fn jobs(cases: &[PerftCase], keep: impl Fn(&PerftCase, u32, u64) -> bool) -> Vec<Job<'_>> {
    cases
        .iter()
        .flat_map(|case| {
            case.counts
                .iter()
                .filter(|&&(depth, nodes)| keep(case, depth, nodes))
                .map(move |&(depth, expected)| Job {
                    case,
                    depth,
                    expected,
                })
        })
        .collect()
}

#[test]
fn suite_files_are_complete() {
    let standard = parse_perft_epd(PERFT_EPD);
    assert_eq!(standard.len(), 128);
    assert_eq!(standard.iter().map(|c| c.counts.len()).sum::<usize>(), 759);
    let frc = parse_perft_epd(FRC_PERFT_EPD);
    assert_eq!(frc.len(), 960);
    assert!(frc.iter().all(|c| c.counts.len() == 6));
}

#[test]
fn standard_suite_up_to_limit() {
    let cases = parse_perft_epd(PERFT_EPD);
    run(jobs(&cases, |_, _, n| n <= FAST_NODE_LIMIT), false);
}

/// Every position of the standard suite has at least one count under the limit.
#[test]
fn standard_suite_limit_covers_every_position() {
    let cases = parse_perft_epd(PERFT_EPD);
    for c in &cases {
        assert!(
            c.counts.iter().any(|&(_, n)| n <= FAST_NODE_LIMIT),
            "line {} has no count under the limit",
            c.line
        );
    }
}

/// All 960 positions, depths 1 to 4 (0.58 billion nodes).
#[test]
fn chess960_suite_to_depth_4() {
    let cases = parse_perft_epd(FRC_PERFT_EPD);
    run(jobs(&cases, |_, d, _| d <= 4), true);
}

#[test]
#[ignore = "long: every count of the standard suite (4.8 billion nodes, ~15 s)"]
fn standard_suite_full() {
    let cases = parse_perft_epd(PERFT_EPD);
    run(jobs(&cases, |_, _, _| true), false);
}

#[test]
#[ignore = "long: Chess960 suite at depth 5 (17 billion nodes, ~80 s)"]
fn chess960_suite_depth_5() {
    let cases = parse_perft_epd(FRC_PERFT_EPD);
    run(jobs(&cases, |_, d, _| d == 5), true);
}
