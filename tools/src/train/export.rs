//! From the float model to the engine's `Network` (`brudno::eval::nnue::network`, which
//! defines the file format, version 1, and writes it): quantisation as the contract states it
//! (feature weights and biases × QA, output weights × QB, output biases × QA·QB, rounded to
//! nearest). The trainer has no reader or writer of its own: one implementation of the
//! contract, the engine's.
//!
//! The check evaluates sample positions with the engine's integer reference
//! (`Network::evaluate_from_scratch`) and with the float model, and reports how far apart they
//! are in centipawns: the cost of quantisation (rounding of the weights, and the integer
//! division's truncation).

use super::checkpoint::write_atomic;
use super::model::{float_eval_cp, Model};
use anyhow::{anyhow, ensure, Result};
use brudno::chess::Position;
use brudno::eval::nnue::network::{Network, Shape, HEADER_BYTES, QA, QB, SCALE};
use std::path::Path;

fn quantise_value(w: f32, factor: i32) -> i16 {
    (w * factor as f32)
        .round()
        .clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

/// The network shape of `model`.
pub fn shape_of(model: &Model) -> Shape {
    Shape {
        width: model.hidden,
        buckets: model.buckets,
        mirrored: model.mirror,
    }
}

/// `shape` if the engine runs it, else an error that says what it runs.
pub fn check_shape(shape: Shape) -> Result<Shape> {
    shape
        .check()
        .map_err(|e| anyhow!("the engine cannot run a {shape} network: {e}"))
}

/// The engine's network for `model`; an error for a shape the engine does not run.
pub fn quantise(model: &Model) -> Result<Box<Network>> {
    let shape = check_shape(shape_of(model))?;
    let l = model.layout();
    let p = &model.params;
    let mut net = Network::zeroed_shape(shape);
    // The model's parameter vector is in the file's order, tensor by tensor.
    let parts: [(&mut [i16], _, i32); 4] = [
        (&mut net.feature_weights, l.ft_weights(), QA),
        (&mut net.feature_bias, l.ft_bias(), QA),
        (&mut net.output_weights, l.out_weights(), QB),
        (&mut net.output_bias, l.out_bias(), QA * QB),
    ];
    for (to, range, factor) in parts {
        assert_eq!(to.len(), range.len(), "the model's layout is the network's");
        for (q, &w) in to.iter_mut().zip(&p[range]) {
            *q = quantise_value(w, factor);
        }
    }
    Ok(net)
}

/// The headerless file of engines before format version 1: exactly the version-1 payload,
/// whose layout it shares, of a network of `Shape::LEGACY` only.
pub fn legacy_bytes(net: &Network) -> Result<Vec<u8>> {
    ensure!(
        net.shape() == Shape::LEGACY,
        "only a {} network has a headerless (legacy) file, not a {} one",
        Shape::LEGACY,
        net.shape()
    );
    Ok(net.to_bytes()[HEADER_BYTES..].to_vec())
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
pub fn correct_biases(model: &Model, net: &mut Network, positions: &[Position]) {
    let units_per_cp = (QA * QB) as f64 / SCALE as f64;
    let buckets = net.shape().buckets;
    let mut sum = vec![0.0f64; buckets];
    let mut count = vec![0usize; buckets];
    for pos in positions {
        let b = net.bucket_of(pos);
        sum[b] += net.evaluate_from_scratch(pos) as f64 - float_eval_cp(model, pos) as f64;
        count[b] += 1;
    }
    for b in 0..buckets {
        if count[b] >= MIN_CORRECTION_POSITIONS.min(positions.len()) && count[b] > 0 {
            let mean = sum[b] / count[b] as f64;
            let corrected = net.output_bias[b] as f64 - (mean * units_per_cp).round();
            net.output_bias[b] = corrected.clamp(i16::MIN as f64, i16::MAX as f64) as i16;
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

/// The engine's integer evaluation of `net` against the float `model` on `positions`.
pub fn check(model: &Model, net: &Network, positions: &[Position]) -> QuantCheck {
    let mut c = QuantCheck {
        positions: positions.len(),
        ..QuantCheck::default()
    };
    for pos in positions {
        let d = net.evaluate_from_scratch(pos) as f64 - float_eval_cp(model, pos) as f64;
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
    use crate::train::packed::{bucket, Packed};
    use brudno::eval::nnue::network::{LEGACY_FILE_BYTES, MAX_WIDTH, WIDTH_STEP};

    #[test]
    fn a_shape_the_engine_cannot_run_is_refused_with_a_clear_error() {
        for (hidden, buckets) in [
            (48, 1),
            (64, 8),
            (WIDTH_STEP + 32, 1),
            (MAX_WIDTH + WIDTH_STEP, 1),
        ] {
            let Err(e) = quantise(&Model::new_random(hidden, buckets, false, 1)) else {
                panic!("a {hidden}-neuron network was exported");
            };
            let e = e.to_string();
            assert!(
                e.contains("cannot run") && e.contains(&format!("width {hidden}")),
                "{e}"
            );
            assert!(
                e.contains(&format!("multiples of {WIDTH_STEP} up to {MAX_WIDTH}")),
                "{e}"
            );
        }
        let e = quantise(&Model::new_random(128, 4, false, 1))
            .err()
            .expect("4 buckets refused")
            .to_string();
        assert!(e.contains("output buckets 4"), "{e}");
    }

    #[test]
    fn values_quantise_as_the_contract_says() {
        let mut model = Model::new_random(128, 8, true, 2);
        let l = model.layout();
        model.params[3] = 0.5; // feature 0, neuron 3
        model.params[l.ft_bias().start] = -0.2;
        model.params[l.bucket_weights(2).start + 128] = 1.98;
        model.params[l.out_bias().start + 5] = 0.25;
        let net = quantise(&model).unwrap();
        assert_eq!(net.feature_weights[3], 128); // 127.5 rounds away from zero
        assert_eq!(net.feature_bias[0], -51);
        // Bucket 2's first weight of the side not to move.
        assert_eq!(net.bucket_weights(2)[128], 127);
        assert_eq!(net.output_weights[2 * 256 + 128], 127);
        assert_eq!(net.output_bias[5], 4080);
        assert_eq!(net.shape(), shape_of(&model));
        assert!(net.shape().mirrored);
        // The weights' clip quantises within what the engine's reader accepts.
        assert!(Network::from_bytes(&net.to_bytes()).is_ok());
    }

    #[test]
    fn the_legacy_file_is_the_payload_of_the_legacy_shape_only() {
        let net = quantise(&Model::new_random(128, 1, false, 3)).unwrap();
        let legacy = legacy_bytes(&net).unwrap();
        assert_eq!(legacy.len(), LEGACY_FILE_BYTES);
        assert_eq!(
            Network::from_bytes(&legacy).unwrap().to_bytes(),
            net.to_bytes()
        );
        for (hidden, buckets, mirror) in [(256, 1, false), (128, 8, false), (128, 1, true)] {
            let net = quantise(&Model::new_random(hidden, buckets, mirror, 3)).unwrap();
            let e = legacy_bytes(&net).unwrap_err().to_string();
            assert!(e.contains("headerless"), "{e}");
        }
    }

    #[test]
    fn the_trainers_buckets_are_the_engines() {
        // `packed::bucket` picks the output layer a position trains; `Shape::bucket` the one
        // the engine evaluates it with. (More than 32 pieces only from a FEN: both share
        // the last bucket.)
        for buckets in [1, 8] {
            let shape = Shape {
                width: 128,
                buckets,
                mirrored: false,
            };
            for pieces in 0..=64u32 {
                assert_eq!(
                    bucket(pieces, buckets),
                    shape.bucket(pieces as usize),
                    "{pieces} pieces, {buckets} buckets"
                );
            }
        }
        brudno::chess::attacks::init();
        let model = Model::new_random(128, 8, false, 4);
        let net = quantise(&model).unwrap();
        for fen in [brudno::chess::START_FEN, "8/5k2/8/3P4/8/8/5K2/8 b - - 0 60"] {
            let pos = Position::from_fen(fen).unwrap();
            let x = model.example(&Packed::from_position(&pos, 0, 1), 0.0);
            assert_eq!(x.bucket, net.bucket_of(&pos), "{fen}");
        }
    }

    #[test]
    fn the_output_biases_absorb_the_common_rounding_error() {
        brudno::chess::attacks::init();
        let model = Model::new_random(128, 1, false, 5);
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
        // Within the integer output's own rounding (whole centipawns), and never worse.
        assert!(after.bias.abs() <= 1.0, "{after}");
        assert!(after.bias.abs() <= plain.bias.abs(), "{plain} then {after}");
        assert_eq!(after, check(&model, &net, &positions));
    }
}
