//! The tuner's unit tests: the labels, the linear model against the evaluation, and the
//! folding of the tables' means into material.

use super::data::{parse_epd, parse_result, trace_positions, Labelled};
use super::fit::{linear_eval, to_floats, to_weights};
use super::weights::seed_weights;
use brudno::eval::hce::params::{MATERIAL, PST};
use brudno::eval::hce::weights::WEIGHTS;

#[test]
fn results_parse() {
    assert_eq!(parse_result("8/8/8 w - - c9 \"1-0\";"), Some(1.0));
    assert_eq!(parse_result("8/8/8 w - - c9 \"0-1\";"), Some(0.0));
    assert_eq!(parse_result("8/8/8 w - - c9 \"1/2-1/2\";"), Some(0.5));
    assert_eq!(parse_result("8/8/8 w - -"), None);
}

#[test]
fn linear_model_reproduces_the_evaluation() {
    let lines: Vec<String> = [
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - c9 \"1-0\";",
        "8/5pk1/6p1/3P4/2K5/8/5PPP/8 b - - c9 \"1/2-1/2\";",
        "6k1/5ppp/8/8/8/8/1r3PPP/3R2K1 w - - c9 \"0-1\";",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 b - - c9 \"1-0\";",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let positions: Vec<Labelled> = lines.iter().map(|l| parse_epd(l).unwrap()).collect();
    let set = trace_positions(&positions);
    let w = to_floats(&WEIGHTS);
    for s in &set.samples {
        assert!((linear_eval(&set, s, &w) - s.eval as f64).abs() <= 2.0);
    }
}

#[test]
fn folding_tables_into_material_keeps_every_sum() {
    let seed = seed_weights();
    let folded = to_weights(&to_floats(&seed));
    for t in 0..5 {
        for sq in 8..56 {
            let a = seed[MATERIAL + t] + seed[PST + 64 * t + sq];
            let b = folded[MATERIAL + t] + folded[PST + 64 * t + sq];
            assert!((a.mg() - b.mg()).abs() <= 1 && (a.eg() - b.eg()).abs() <= 1);
        }
    }
}
