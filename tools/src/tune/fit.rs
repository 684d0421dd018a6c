//! The tuner's model: the evaluation as a linear function of the weights, its loss and
//! gradient, the fit of K, the smoothness pull, and the conversions between the engine's
//! weights and the floats the optimiser moves.

use super::data::{Sample, Set};
use brudno::eval::hce::packed::S;
use brudno::eval::hce::params::*;

pub(super) fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

/// The model's evaluation of a sample under weights `w` (mg at 2i, eg at 2i+1).
#[inline]
pub(super) fn linear_eval(set: &Set, s: &Sample, w: &[f64]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for f in &set.features[s.start as usize..(s.start + s.len) as usize] {
        let i = f.index as usize * 2;
        mg += w[i] * f.count as f64;
        eg += w[i + 1] * f.count as f64;
    }
    mg * s.mg as f64 + eg * s.eg as f64
}

pub(super) fn mse_of_evals(set: &Set, evals: &[f64], k: f64) -> f64 {
    let sum: f64 = set
        .samples
        .iter()
        .zip(evals)
        .map(|(s, &e)| (s.result as f64 - sigmoid(k, e)).powi(2))
        .sum();
    sum / set.samples.len() as f64
}

pub(super) fn mse_linear(set: &Set, k: f64, w: &[f64], threads: usize) -> f64 {
    // At least 1: an empty set (`--holdout 0`) has no chunks, not chunks of nothing.
    let chunk = set.samples.len().div_ceil(threads).max(1);
    let sum: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = set
            .samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|s| (s.result as f64 - sigmoid(k, linear_eval(set, s, w))).powi(2))
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    });
    sum / set.samples.len() as f64
}

/// K minimising the error of the evaluations under weights `w` (golden-section search).
pub(super) fn fit_k(set: &Set, w: &[f64]) -> f64 {
    let evals: Vec<f64> = set.samples.iter().map(|s| linear_eval(set, s, w)).collect();
    let (mut a, mut b) = (0.05f64, 4.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (x1, x2) = (b - g * (b - a), a + g * (b - a));
        if mse_of_evals(set, &evals, x1) < mse_of_evals(set, &evals, x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    (a + b) / 2.0
}

/// Gradient of the mean squared error with respect to every weight.
pub(super) fn gradient(set: &Set, k: f64, w: &[f64], threads: usize) -> Vec<f64> {
    // At least 1: an empty set (`--holdout 0`) has no chunks, not chunks of nothing.
    let chunk = set.samples.len().div_ceil(threads).max(1);
    let n = set.samples.len() as f64;
    let scale = k * std::f64::consts::LN_10 / 400.0;
    std::thread::scope(|scope| {
        let handles: Vec<_> = set
            .samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut g = vec![0.0; w.len()];
                    for s in part {
                        let p = sigmoid(k, linear_eval(set, s, w));
                        let d = 2.0 * (p - s.result as f64) * p * (1.0 - p) * scale / n;
                        let (dm, de) = (d * s.mg as f64, d * s.eg as f64);
                        for f in &set.features[s.start as usize..(s.start + s.len) as usize] {
                            let i = f.index as usize * 2;
                            g[i] += dm * f.count as f64;
                            g[i + 1] += de * f.count as f64;
                        }
                    }
                    g
                })
            })
            .collect();
        let mut total = vec![0.0; w.len()];
        for h in handles {
            for (t, x) in total.iter_mut().zip(h.join().expect("worker")) {
                *t += x;
            }
        }
        total
    })
}

pub(super) fn to_floats(weights: &[S]) -> Vec<f64> {
    weights
        .iter()
        .flat_map(|s| [s.mg() as f64, s.eg() as f64])
        .collect()
}

/// Rounds tuned weights and moves each piece-square table's mean into the material value (the
/// sum is unchanged for every piece, and the tables read as "better or worse than average").
pub(super) fn to_weights(w: &[f64]) -> Vec<S> {
    let mut w = w.to_vec();
    for t in 0..6 {
        // Pawns never stand on the first or last rank.
        let squares = if t == 0 { 8..56 } else { 0..64 };
        for half in 0..2 {
            let cells: Vec<usize> = squares
                .clone()
                .map(|sq| 2 * (PST + 64 * t + sq) + half)
                .collect();
            let mean = cells.iter().map(|&i| w[i]).sum::<f64>() / cells.len() as f64;
            for &i in &cells {
                w[i] -= mean;
            }
            // The king is always there: its mean is the same for both sides and cancels.
            if t != 5 {
                w[2 * (MATERIAL + t) + half] += mean;
            }
        }
    }
    w.chunks(2)
        .map(|p| S::new(p[0].round() as i32, p[1].round() as i32))
        .collect()
}

/// Indices (into the mg/eg float vector) of the middlegame halves of the piece-square tables
/// (pawns: ranks 2-7) and mobility tables.
pub(super) fn held_mg_tables() -> Vec<Vec<usize>> {
    let mut tables: Vec<Vec<usize>> = (0..5)
        .map(|t| {
            let squares = if t == 0 { 8..56 } else { 0..64 };
            squares.map(|sq| 2 * (PST + 64 * t + sq)).collect()
        })
        .collect();
    for (start, len) in [
        (MOB_KNIGHT, 9),
        (MOB_BISHOP, 14),
        (MOB_ROOK, 15),
        (MOB_QUEEN, 28),
    ] {
        tables.push((start..start + len).map(|i| 2 * i).collect());
    }
    tables
}

pub(super) fn mean_of(w: &[f64], cells: &[usize]) -> f64 {
    cells.iter().map(|&i| w[i]).sum::<f64>() / cells.len() as f64
}

/// Tables indexed by an ordered quantity (a count, a rank, a distance), as (start, length).
pub(super) const ORDERED_TABLES: [(usize, usize); 13] = [
    (MOB_KNIGHT, 9),
    (MOB_BISHOP, 14),
    (MOB_ROOK, 15),
    (MOB_QUEEN, 28),
    (PAWN_SUPPORTED + 1, 6),
    (PAWN_PHALANX + 1, 6),
    (PASSED_RANK + 1, 6),
    (PASSED_FREE + 1, 6),
    (PASSED_SAFE + 1, 6),
    (PASSED_KING_OWN, 8),
    (PASSED_KING_THEIR, 8),
    (KS_STORM + 1, 6),
    (KS_STORM_BLOCKED + 2, 5),
];

/// Gradient of `x · Σ (w[i-1] - 2w[i] + w[i+1])²` along the ordered tables: a pull towards
/// straight lines where data is thin.
pub(super) fn add_smoothness_gradient(g: &mut [f64], w: &[f64], x: f64) {
    for (start, len) in ORDERED_TABLES {
        for half in 0..2 {
            for i in start + 1..start + len - 1 {
                let at = |j: usize| 2 * j + half;
                let d = w[at(i - 1)] - 2.0 * w[at(i)] + w[at(i + 1)];
                g[at(i - 1)] += 2.0 * x * d;
                g[at(i)] -= 4.0 * x * d;
                g[at(i + 1)] += 2.0 * x * d;
            }
        }
    }
}
