//! From the float model to a network file (format version 1, `netfile.rs`): quantisation as
//! the contract states it (feature weights and biases × QA, output weights × QB, output biases
//! × QA·QB, rounded to nearest).
//!
//! The check evaluates sample positions with the integer formula (`NetFile::evaluate`) and
//! with the float model, and reports how far apart they are in centipawns: the cost of
//! quantisation (rounding of the weights, and the integer division's truncation).

use super::checkpoint::write_atomic;
use super::model::{float_eval_cp, Model};
use super::netfile::{check_shape, NetFile};
use super::packed::bucket;
use anyhow::Result;
use brudno::chess::Position;
use brudno::eval::nnue::network::{QA, QB, SCALE};
use std::path::Path;

fn quantise_value(w: f32, factor: i32) -> i16 {
    (w * factor as f32)
        .round()
        .clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

/// The network file for `model`; an error for a shape the format does not take.
pub fn quantise(model: &Model) -> Result<NetFile> {
    check_shape(model.hidden, model.buckets)?;
    let l = model.layout();
    let p = &model.params;
    let q = |range: std::ops::Range<usize>, factor| {
        p[range]
            .iter()
            .map(|&w| quantise_value(w, factor))
            .collect()
    };
    Ok(NetFile {
        hidden: model.hidden,
        buckets: model.buckets,
        mirror: model.mirror,
        ft_w: q(l.ft_weights(), QA),
        ft_b: q(l.ft_bias(), QA),
        out_w: q(l.out_weights(), QB),
        out_b: q(l.out_bias(), QA * QB),
    })
}

/// Positions a bucket needs among the check positions before its bias is corrected: fewer
/// would fit the bias to their noise.
const MIN_CORRECTION_POSITIONS: usize = 20;

/// Writes `model` as a network file (atomically); returns its check on `positions`.
/// Each bucket's output bias absorbs the rounding error common to that bucket's positions (the
/// mean difference measured on them): with QB = 64 the output weights' rounding adds up to a
/// shift of ±10 cp or so, the same whatever the position — a tempo bonus or malus that the
/// float network does not have.
pub fn export(model: &Model, path: &Path, positions: &[Position]) -> Result<QuantCheck> {
    let mut net = quantise(model)?;
    correct_biases(model, &mut net, positions);
    let after = check(model, &net, positions);
    write_atomic(path, &net.to_bytes())?;
    Ok(after)
}

/// Shifts each bucket's output bias by its mean quantisation error on `positions`.
pub fn correct_biases(model: &Model, net: &mut NetFile, positions: &[Position]) {
    let units_per_cp = (QA * QB) as f64 / SCALE as f64;
    let mut sum = vec![0.0f64; net.buckets];
    let mut count = vec![0usize; net.buckets];
    for pos in positions {
        let b = bucket(pos.occupied().0.count_ones(), net.buckets);
        sum[b] += net.evaluate(pos) as f64 - float_eval_cp(model, pos) as f64;
        count[b] += 1;
    }
    for b in 0..net.buckets {
        if count[b] >= MIN_CORRECTION_POSITIONS.min(positions.len()) && count[b] > 0 {
            let mean = sum[b] / count[b] as f64;
            let corrected = net.out_b[b] as f64 - (mean * units_per_cp).round();
            net.out_b[b] = corrected.clamp(i16::MIN as f64, i16::MAX as f64) as i16;
        }
    }
}

/// How far the quantised network is from the float one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QuantCheck {
    pub positions: usize,
    /// Mean and largest |integer − float|, centipawns.
    pub mean: f64,
    pub max: f64,
    /// Mean integer − float: the part of the error common to all positions (the output
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

pub fn check(model: &Model, net: &NetFile, positions: &[Position]) -> QuantCheck {
    let mut c = QuantCheck {
        positions: positions.len(),
        ..QuantCheck::default()
    };
    for pos in positions {
        let d = net.evaluate(pos) as f64 - float_eval_cp(model, pos) as f64;
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
    fn a_shape_outside_the_format_is_refused_with_a_clear_error() {
        let Err(e) = quantise(&Model::new_random(48, 1, false, 1)) else {
            panic!("a 48-neuron network was exported");
        };
        assert!(e.to_string().contains("multiple of 32"), "{e}");
        assert!(quantise(&Model::new_random(64, 4, false, 1)).is_err());
    }

    #[test]
    fn values_quantise_as_the_contract_says() {
        let mut model = Model::new_random(64, 8, true, 2);
        let l = model.layout();
        model.params[3] = 0.5; // feature 0, neuron 3
        model.params[l.ft_bias().start] = -0.2;
        model.params[l.bucket_weights(2).start + 64] = 1.98;
        model.params[l.out_bias().start + 5] = 0.25;
        let net = quantise(&model).unwrap();
        assert_eq!(net.ft_w[3], 128); // 127.5 rounds away from zero
        assert_eq!(net.ft_b[0], -51);
        assert_eq!(net.out_w[2 * 128 + 64], 127);
        assert_eq!(net.out_b[5], 4080);
        assert!(net.mirror);
    }

    #[test]
    fn the_output_biases_absorb_the_common_rounding_error() {
        brudno::chess::attacks::init();
        let model = Model::new_random(64, 1, false, 5);
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
        let net = NetFile::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        // Within the integer output's own rounding (whole centipawns), and never worse.
        assert!(after.bias.abs() <= 1.0, "{after}");
        assert!(after.bias.abs() <= plain.bias.abs(), "{plain} then {after}");
        assert_eq!(after, check(&model, &net, &positions));
    }
}
