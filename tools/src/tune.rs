//! Texel tuning: fit the evaluation's weights to game results.
//!
//! The evaluation is linear in its weights once each position's phase and endgame scale are fixed:
//! `E = Σ count_i · (mg_i · phase/24 + eg_i · (24 - phase)/24) · scale/128`. So each position is
//! traced once into a sparse vector of counts (white's minus black's), and the tuner then
//! minimises the mean squared error between the game result and `σ(E) = 1 / (1 + 10^(-K·E/400))`
//! by full-batch Adam, on as many threads as asked. K is fitted first, with the starting weights,
//! and kept: it ties the centipawn scale to the data.
//!
//! `brudno-tools tune [options]` (see `args.rs`) reads EPD lines `FEN c9 "1-0";` and optionally
//! early positions of PGN games (both plain or gzip), holds out a part of the positions, tunes
//! and rewrites `src/eval/hce/weights.rs`.
//!
//! - `args.rs`: the command line and its help;
//! - `data.rs`: reading the positions, tracing them, the held-out split;
//! - `fit.rs`: the linear model, its loss and gradient, K, the float weights;
//! - `weights.rs`: the weights file written, and the seed weights.

mod args;
mod data;
mod fit;
mod weights;

use crate::cli::{print_help, Parsed};
use crate::progress::{self, Progress};
use anyhow::{Context, Result};
pub use args::{parse_args, usage, Options};
use brudno::eval::hce::params::*;
use brudno::eval::hce::weights::WEIGHTS;
use data::{pgn_positions, read_epd, split, trace_parallel};
use fit::{
    add_smoothness_gradient, fit_k, gradient, held_mg_tables, linear_eval, mean_of, mse_linear,
    to_floats, to_weights,
};
use std::time::Instant;
use weights::render;
pub use weights::seed_weights;

/// `brudno-tools tune …`.
pub fn run(args: &[String]) -> Result<()> {
    let o = match parse_args(args)? {
        Parsed::Run(o) => o,
        Parsed::Help => {
            print_help(&usage());
            return Ok(());
        }
    };
    let start_weights = if o.from_seed || o.write_seed {
        seed_weights()
    } else {
        WEIGHTS.to_vec()
    };
    if o.write_seed {
        std::fs::write(
            &o.out,
            render(&start_weights, "Hand-set seed values, not tuned."),
        )
        .with_context(|| format!("writing {}", o.out))?;
        println!("wrote seed weights to {}", o.out);
        return Ok(());
    }
    if o.from_seed && !o.check {
        // Tracing uses the compiled-in weights for the evaluation it records and for the endgame
        // scale; the counts themselves do not depend on the weights.
        println!("note: starting from the seed weights; the scale factors come from the compiled-in ones");
    }

    let t0 = Instant::now();
    let (mut positions, bad) = read_epd(&o.data, o.limit)?;
    if let Some(pgn) = &o.pgn {
        positions.extend(pgn_positions(pgn, o.pgn_plies, o.pgn_per_game)?);
    }
    let (train_positions, test_positions) = split(positions, o.holdout);
    let train = trace_parallel(&train_positions, o.threads);
    let test = trace_parallel(&test_positions, o.threads);
    drop((train_positions, test_positions));
    println!(
        "{} training and {} held-out positions ({bad} lines skipped), {:.1} features each, traced in {:.1}s",
        train.samples.len(),
        test.samples.len(),
        train.features.len() as f64 / train.samples.len() as f64,
        t0.elapsed().as_secs_f64()
    );

    let mut w = to_floats(&start_weights);
    // Which weights move (all, or the groups named with --only; the others are zeroed).
    let mut free = vec![true; w.len()];
    if let Some(names) = &o.only {
        for g in GROUPS {
            if !names.iter().any(|n| n == g.name) {
                for i in 2 * g.start..2 * (g.start + g.len) {
                    free[i] = false;
                    w[i] = 0.0;
                }
            }
        }
    }
    let compiled = to_floats(&WEIGHTS);
    let mismatches = train
        .samples
        .iter()
        .filter(|s| (linear_eval(&train, s, &compiled) - s.eval as f64).abs() > 2.0)
        .count();
    println!(
        "linear model vs evaluate: {mismatches} of {} positions differ by more than 2 cp",
        train.samples.len()
    );

    let k = match o.k {
        Some(k) => k,
        None => {
            let k = fit_k(&train, &w);
            println!("fitted K = {k:.4}");
            k
        }
    };
    let before = (
        mse_linear(&train, k, &w, o.threads),
        mse_linear(&test, k, &w, o.threads),
    );
    println!(
        "loss before: train {:.6}, held-out {:.6}",
        before.0, before.1
    );
    if o.check || o.epochs == 0 {
        return Ok(());
    }

    // With --hold-material, the middlegame material is fixed and so are the means of the tables
    // every piece has exactly one entry of (moving such a mean is moving the piece's value).
    let held_tables = held_mg_tables();
    let held_means: Vec<f64> = held_tables.iter().map(|cells| mean_of(&w, cells)).collect();
    if o.hold_material {
        for t in 0..5 {
            free[2 * (MATERIAL + t)] = false;
        }
    }

    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-8);
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    let t1 = Instant::now();
    let mut progress = Progress::stderr(progress::LOG_SECS);
    for epoch in 1..=o.epochs {
        // Step size decays geometrically to a tenth over the run.
        let lr = o.lr * 0.1f64.powf(epoch as f64 / o.epochs as f64);
        let mut g = gradient(&train, k, &w, o.threads);
        if o.smooth > 0.0 {
            add_smoothness_gradient(&mut g, &w, o.smooth);
        }
        if o.l2 > 0.0 {
            for (i, gi) in g.iter_mut().enumerate().skip(2 * (MATERIAL + 6)) {
                *gi += 2.0 * o.l2 * w[i];
            }
        }
        let (c1, c2) = (
            1.0 - beta1.powi(epoch as i32),
            1.0 - beta2.powi(epoch as i32),
        );
        for i in (0..w.len()).filter(|&i| free[i]) {
            m[i] = beta1 * m[i] + (1.0 - beta1) * g[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i];
            w[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
        if o.hold_material {
            for (cells, &target) in held_tables.iter().zip(&held_means) {
                let shift = target - mean_of(&w, cells);
                for &i in cells {
                    w[i] += shift;
                }
            }
        }
        if progress.due() {
            let secs = t1.elapsed().as_secs_f64();
            progress.show(&format!(
                "tune: epoch {epoch}/{}, {:.1} epochs/s{}",
                o.epochs,
                epoch as f64 / secs.max(1e-9),
                progress::left(epoch as f64, o.epochs as f64, secs)
            ));
        }
        if epoch % 250 == 0 || epoch == o.epochs {
            progress.clear();
            println!(
                "epoch {epoch:>5}: train {:.6}, held-out {:.6} ({:.0}s)",
                mse_linear(&train, k, &w, o.threads),
                mse_linear(&test, k, &w, o.threads),
                t1.elapsed().as_secs_f64()
            );
        }
    }

    let tuned = to_weights(&w);
    let wf = to_floats(&tuned);
    let after = (
        mse_linear(&train, k, &wf, o.threads),
        mse_linear(&test, k, &wf, o.threads),
    );
    println!("loss after:  train {:.6}, held-out {:.6}", after.0, after.1);
    let file_name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let sources = match &o.pgn {
        Some(pgn) => format!(
            "{} and plies {}-{} of {} ({} per game)",
            file_name(&o.data),
            o.pgn_plies.0,
            o.pgn_plies.1,
            file_name(pgn),
            o.pgn_per_game
        ),
        None => file_name(&o.data),
    };
    let header = format!(
        "Tuned on {sources}: {} positions, {}% held out.\n\
         K = {k:.4}, {} epochs of Adam (lr {}, l2 {:e}, smooth {:e}){}{}.\n\
         Mean squared error before: train {:.6}, held-out {:.6}; after: train {:.6}, held-out {:.6}.\n\
         Command: brudno-tools tune {}",
        train.samples.len() + test.samples.len(),
        o.holdout,
        o.epochs,
        o.lr,
        o.l2,
        o.smooth,
        if o.hold_material {
            ", middlegame material held"
        } else {
            ""
        },
        match &o.only {
            Some(names) => format!(", only {}", names.join(",")),
            None => String::new(),
        },
        before.0,
        before.1,
        after.0,
        after.1,
        args.join(" ")
    );
    std::fs::write(&o.out, render(&tuned, &header))
        .with_context(|| format!("writing {}", o.out))?;
    println!("wrote {}", o.out);
    Ok(())
}

#[cfg(test)]
mod tests;
