//! From the float model to the engine's network file: quantisation as the contract in
//! `brudno::eval::nnue::network` states it (feature weights and biases × QA, output weights
//! × QB, output bias × QA·QB, rounded to nearest), into a `Network` written by its own
//! `to_bytes`, so the engine reads exactly what was checked here.
//!
//! The check evaluates sample positions with the engine's integer reference
//! (`Network::evaluate_from_scratch`) and with the float model, and reports how far apart
//! they are in centipawns: the cost of quantisation (rounding of the weights, and the
//! integer division's truncation).

use super::checkpoint::write_atomic;
use super::model::Model;
use anyhow::{bail, Result};
use brudno::chess::Position;
use brudno::eval::nnue::network::{HIDDEN, QA, QB, SCALE};
use brudno::eval::nnue::Network;
use std::path::Path;

fn quantise_value(w: f32, factor: i32) -> i16 {
    (w * factor as f32)
        .round()
        .clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

/// The engine network for `model`; an error when the engine is built for another width.
pub fn quantise(model: &Model) -> Result<Box<Network>> {
    if model.hidden != HIDDEN {
        bail!(
            "cannot export a {}-neuron network: the engine is built with HIDDEN = {HIDDEN} \
             (src/eval/nnue/network.rs); train with --hidden {HIDDEN}, or change HIDDEN and \
             rebuild the engine and the tools",
            model.hidden
        );
    }
    let layout = model.layout();
    let p = &model.params;
    let mut net = Network::zeroed();
    for (q, &w) in net.feature_weights.iter_mut().zip(&p[layout.ft_weights()]) {
        *q = quantise_value(w, QA);
    }
    for (q, &b) in net.feature_bias.iter_mut().zip(&p[layout.ft_bias()]) {
        *q = quantise_value(b, QA);
    }
    for (q, &w) in net.output_weights.iter_mut().zip(&p[layout.out_weights()]) {
        *q = quantise_value(w, QB);
    }
    net.output_bias[0] = quantise_value(p[layout.out_bias()], QA * QB);
    Ok(net)
}

/// Writes `model` as an engine network file (atomically); returns its check on `positions`.
/// The output bias absorbs the rounding error common to all positions (the mean difference
/// measured on `positions`): with QB = 64 the output weights' rounding adds
/// up to a shift of ±10 cp or so, the same whatever the position — a tempo bonus or malus
/// that the float network does not have.
pub fn export(model: &Model, path: &Path, positions: &[Position]) -> Result<QuantCheck> {
    let mut net = quantise(model)?;
    let before = check(model, &net, positions);
    let units_per_cp = (QA * QB) as f64 / SCALE as f64;
    let corrected = net.output_bias[0] as f64 - (before.bias * units_per_cp).round();
    net.output_bias[0] = corrected.clamp(i16::MIN as f64, i16::MAX as f64) as i16;
    let after = check(model, &net, positions);
    write_atomic(path, &net.to_bytes())?;
    Ok(after)
}

/// How far the quantised network is from the float one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QuantCheck {
    pub positions: usize,
    /// Mean and largest |engine − float|, centipawns.
    pub mean: f64,
    pub max: f64,
    /// Mean engine − float: the part of the error common to all positions (the output
    /// weights' rounding errors add up the same way whatever the position).
    pub bias: f64,
}

impl std::fmt::Display for QuantCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "quantised vs float: mean |d| {:.2} cp, max {:.1} cp, mean d {:+.2} cp on {} positions",
            self.mean, self.max, self.bias, self.positions
        )
    }
}

pub fn check(model: &Model, net: &Network, positions: &[Position]) -> QuantCheck {
    let mut c = QuantCheck {
        positions: positions.len(),
        ..QuantCheck::default()
    };
    for pos in positions {
        let d = net.evaluate_from_scratch(pos) as f64 - model.centipawns(pos) as f64;
        c.bias += d;
        c.mean += d.abs();
        c.max = c.max.max(d.abs());
    }
    c.mean /= positions.len().max(1) as f64;
    c.bias /= positions.len().max(1) as f64;
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_width_is_refused_with_a_clear_error() {
        let Err(e) = quantise(&Model::new_random(HIDDEN * 2, 1)) else {
            panic!("a {}-neuron network was exported", HIDDEN * 2);
        };
        assert!(e.to_string().contains("HIDDEN"), "{e}");
    }

    #[test]
    fn values_quantise_as_the_contract_says() {
        let mut model = Model::new_random(HIDDEN, 2);
        let l = model.layout();
        model.params[3] = 0.5; // feature 0, neuron 3
        model.params[l.ft_bias().start] = -0.2;
        model.params[l.out_weights().start + HIDDEN] = 1.98;
        model.params[l.out_bias()] = 0.25;
        let net = quantise(&model).unwrap();
        assert_eq!(net.feature_weights[3], 128); // 127.5 rounds away from zero
        assert_eq!(net.feature_bias[0], -51);
        assert_eq!(net.output_weights[HIDDEN], 127);
        assert_eq!(net.output_bias[0], 4080);
        // What the engine reads back is what was written.
        let back = Network::from_bytes(&net.to_bytes()).unwrap();
        assert_eq!(back.to_bytes(), net.to_bytes());
    }

    #[test]
    fn the_output_bias_absorbs_the_common_rounding_error() {
        brudno::chess::attacks::init();
        let model = Model::new_random(HIDDEN, 5);
        let positions: Vec<Position> = [
            brudno::chess::START_FEN,
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/5k2/8/3P4/8/8/5K2/8 b - - 0 60",
        ]
        .iter()
        .map(|f| Position::from_fen(f).unwrap())
        .collect();
        let plain = check(&model, &quantise(&model).unwrap(), &positions);
        let path = std::env::temp_dir().join(format!("brudno-export-{}.nnue", std::process::id()));
        let after = export(&model, &path, &positions).unwrap();
        let net = Network::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        // Within the integer output's own rounding (the engine returns whole centipawns),
        // and never worse than before.
        assert!(after.bias.abs() <= 1.0, "{after}");
        assert!(after.bias.abs() <= plain.bias.abs(), "{plain} then {after}");
        assert_eq!(after, check(&model, &net, &positions));
    }
}
