//! Texel tuning: fit the evaluation's weights to game results.
//!
//! The evaluation is linear in its weights once each position's phase and endgame scale are fixed:
//! `E = Σ count_i · (mg_i · phase/24 + eg_i · (24 - phase)/24) · scale/128`. So each position is
//! traced once into a sparse vector of counts (white's minus black's), and the tuner then
//! minimises the mean squared error between the game result and `σ(E) = 1 / (1 + 10^(-K·E/400))`
//! by full-batch Adam, on as many threads as asked. K is fitted first, with the starting weights,
//! and kept: it ties the centipawn scale to the data.
//!
//! `brudno-tools tune [options]` (see `USAGE`) reads EPD lines `FEN c9 "1-0";` and optionally
//! early positions of PGN games (both plain or gzip), holds out a part of the positions, tunes
//! and rewrites `src/eval/hce/weights.rs`.

use crate::pgn::{PgnError, PgnReader};
use anyhow::{bail, Context, Result};
use brudno::chess::{Color, Position};
use brudno::eval::hce::packed::S;
use brudno::eval::hce::params::*;
use brudno::eval::hce::terms::{evaluate_traced, MAX_PHASE, SCALE_NORMAL};
use brudno::eval::hce::trace::Trace;
use brudno::eval::hce::weights::WEIGHTS;
use brudno::util::Rng;
use std::fmt::Write as _;
use std::io::BufRead;
use std::time::Instant;

pub const USAGE: &str = "\
brudno-tools tune [options]
  --data PATH        labelled EPD, plain or .gz (default ../shared/data/texel/tcec-quiet-labeled.epd.gz)
  --pgn PATH         also take early positions from these games (plain or .gz), labelled with
                     the game result; the EPD set starts at ply 16, so this covers the opening
  --pgn-plies A-B    plies (moves played) the PGN positions are taken from (default 4-16)
  --pgn-per-game N   positions taken per game, at random among the quiet ones (default 2)
  --out PATH         where to write the weights (default src/eval/hce/weights.rs)
  --epochs N         full-batch Adam steps (default 3000)
  --lr X             Adam step size in centipawns (default 1.0; decays to a tenth)
  --threads N        worker threads (default 2)
  --holdout P        percent of the data held out for validation (default 10)
  --limit N          use only the first N positions
  --k X              use this K instead of fitting it
  --smooth X         adds X times the squared second differences along ordered tables
                     (mobility, pawn ranks, passed-pawn ranks and distances, storm) to the loss
  --hold-material    keep the middlegame piece values where they start: material, and the
                     average of each piece-square and mobility table (which act as material too)
  --l2 X             weight decay: adds X times the sum of squared weights (material excepted)
                     to the loss (default 0)
  --from-seed        start from the hand-set seed weights instead of the current ones
  --only G1,G2,...   tune only these weight groups (names as in params.rs) and set all others
                     to zero: `--only MATERIAL,PST` makes the material+PST baseline evaluation
  --write-seed       only write the seed weights to --out
  --check            only report K and the losses of the current weights";

struct Options {
    data: String,
    pgn: Option<String>,
    pgn_plies: (usize, usize),
    pgn_per_game: usize,
    out: String,
    epochs: usize,
    lr: f64,
    threads: usize,
    holdout: usize,
    limit: Option<usize>,
    k: Option<f64>,
    l2: f64,
    smooth: f64,
    hold_material: bool,
    only: Option<Vec<String>>,
    from_seed: bool,
    write_seed: bool,
    check: bool,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        data: "../shared/data/texel/tcec-quiet-labeled.epd.gz".into(),
        pgn: None,
        pgn_plies: (4, 16),
        pgn_per_game: 2,
        out: "src/eval/hce/weights.rs".into(),
        epochs: 3000,
        lr: 1.0,
        threads: 2,
        holdout: 10,
        limit: None,
        k: None,
        l2: 0.0,
        smooth: 0.0,
        hold_material: false,
        only: None,
        from_seed: false,
        write_seed: false,
        check: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--data" => o.data = value(a)?,
            "--out" => o.out = value(a)?,
            "--pgn" => o.pgn = Some(value(a)?),
            "--pgn-plies" => {
                let v = value(a)?;
                let (lo, hi) = v.split_once('-').context("--pgn-plies A-B")?;
                o.pgn_plies = (
                    lo.parse().context("--pgn-plies")?,
                    hi.parse().context("--pgn-plies")?,
                );
            }
            "--pgn-per-game" => o.pgn_per_game = value(a)?.parse().context("--pgn-per-game")?,
            "--epochs" => o.epochs = value(a)?.parse().context("--epochs")?,
            "--lr" => o.lr = value(a)?.parse().context("--lr")?,
            "--threads" => o.threads = value(a)?.parse::<usize>().context("--threads")?.max(1),
            "--holdout" => o.holdout = value(a)?.parse().context("--holdout")?,
            "--limit" => o.limit = Some(value(a)?.parse().context("--limit")?),
            "--k" => o.k = Some(value(a)?.parse().context("--k")?),
            "--l2" => o.l2 = value(a)?.parse().context("--l2")?,
            "--smooth" => o.smooth = value(a)?.parse().context("--smooth")?,
            "--hold-material" => o.hold_material = true,
            "--only" => {
                let names: Vec<String> =
                    value(a)?.split(',').map(|s| s.trim().to_string()).collect();
                for n in &names {
                    if !GROUPS.iter().any(|g| g.name == n) {
                        bail!("no weight group '{n}'");
                    }
                }
                o.only = Some(names);
            }
            "--from-seed" => o.from_seed = true,
            "--write-seed" => o.write_seed = true,
            "--check" => o.check = true,
            "--help" | "-h" => bail!("{USAGE}"),
            other => bail!("unknown option '{other}'\n{USAGE}"),
        }
    }
    if o.holdout >= 100 {
        bail!("--holdout must be below 100");
    }
    Ok(o)
}

/// One weight's count in one position (white's count minus black's).
#[derive(Clone, Copy)]
struct Feature {
    index: u16,
    count: i16,
}

/// A traced position: its features are `features[start..start + len]`.
#[derive(Clone, Copy)]
struct Sample {
    start: u32,
    len: u32,
    /// What a middlegame and an endgame weight count for here.
    mg: f32,
    eg: f32,
    result: f32,
    /// The real evaluation with the weights it was traced with (white's view).
    eval: i32,
}

struct Set {
    samples: Vec<Sample>,
    features: Vec<Feature>,
}

/// Collects net counts per weight.
struct CoeffTrace {
    counts: Vec<i32>,
    touched: Vec<usize>,
}

impl Trace for CoeffTrace {
    const ACTIVE: bool = true;
    fn add(&mut self, c: Color, index: usize, count: i32) {
        if self.counts[index] == 0 && !self.touched.contains(&index) {
            self.touched.push(index);
        }
        self.counts[index] += match c {
            Color::White => count,
            Color::Black => -count,
        };
    }
}

fn parse_result(line: &str) -> Option<f32> {
    let c9 = &line[line.find("c9")?..];
    if c9.contains("1/2-1/2") {
        Some(0.5)
    } else if c9.contains("1-0") {
        Some(1.0)
    } else if c9.contains("0-1") {
        Some(0.0)
    } else {
        None
    }
}

/// A position to fit, with its game's result (White's score: 0, ½ or 1).
#[derive(Clone, Copy)]
struct Labelled {
    pos: Position,
    result: f32,
}

/// An EPD line `FEN c9 "1-0";` (the first four FEN fields; the clocks do not matter here).
fn parse_epd(line: &str) -> Option<Labelled> {
    let fen: Vec<&str> = line.split_ascii_whitespace().take(4).collect();
    Some(Labelled {
        pos: Position::from_fen(&fen.join(" ")).ok()?,
        result: parse_result(line)?,
    })
}

/// The positions of a labelled EPD file (plain or gzip) and how many lines did not parse; with
/// a limit, only the first `limit` lines that are not blank.
fn read_epd(path: &str, limit: Option<usize>) -> Result<(Vec<Labelled>, usize)> {
    if !std::path::Path::new(path).is_file() {
        bail!("no file {path} (give the path with --data / --pgn)");
    }
    let (mut out, mut lines, mut bad) = (Vec::new(), 0, 0);
    for line in crate::input::open(path)?.lines() {
        let line = line.with_context(|| format!("reading {path}"))?;
        if line.trim().is_empty() {
            continue;
        }
        match parse_epd(&line) {
            Some(l) => out.push(l),
            None => bad += 1,
        }
        lines += 1;
        if limit.is_some_and(|n| lines >= n) {
            break;
        }
    }
    if out.is_empty() {
        bail!("no positions in {path}");
    }
    Ok((out, bad))
}

/// Quiet positions from the games' early plies: not in check, not just after a capture, and
/// the move played next is no capture or promotion. A few per game, picked by a fixed hash of
/// the game's number (among the games that replay and have a result) so runs repeat.
fn pgn_positions(path: &str, plies: (usize, usize), per_game: usize) -> Result<Vec<Labelled>> {
    if !std::path::Path::new(path).is_file() {
        bail!("no file {path} (give the path with --data / --pgn)");
    }
    let mut out = Vec::new();
    let (mut games, mut bad) = (0u64, 0);
    for game in PgnReader::new(crate::input::open(path)?) {
        let game = match game {
            Ok(game) => game,
            Err(PgnError::Io(e)) => return Err(e).with_context(|| format!("reading {path}")),
            Err(PgnError::Game { .. }) => {
                bad += 1;
                continue;
            }
        };
        let Some(outcome) = game.outcome else {
            continue;
        };
        games += 1;
        let mut after_capture = false;
        let mut quiet = Vec::new();
        for (ply, (pos, m)) in game.positions().enumerate() {
            // `pos` is the position after `ply` moves; `m` is the move played from it.
            let capture = pos.is_capture(m);
            if (plies.0..plies.1).contains(&ply)
                && !pos.in_check()
                && !after_capture
                && !capture
                && m.promotion_piece().is_none()
            {
                quiet.push(pos);
            }
            after_capture = capture;
        }
        // Which quiet positions of this game: reproducible, different from game to game.
        let mut pick = Rng::derive(0x7e_5a3d, &[games]);
        for _ in 0..per_game.min(quiet.len()) {
            let pos = quiet.swap_remove(pick.below(quiet.len() as u64) as usize);
            out.push(Labelled {
                pos,
                result: outcome.white_score(),
            });
        }
    }
    println!(
        "{} positions from {games} games of {path} ({bad} games skipped)",
        out.len()
    );
    Ok(out)
}

/// Traces every position into a sample.
fn trace_positions(positions: &[Labelled]) -> Set {
    let mut set = Set {
        samples: Vec::with_capacity(positions.len()),
        features: Vec::with_capacity(positions.len() * 100),
    };
    let mut trace = CoeffTrace {
        counts: vec![0; NUM_WEIGHTS],
        touched: Vec::with_capacity(256),
    };
    for &Labelled { pos, result } in positions {
        let b = evaluate_traced(&pos, None, &mut trace);
        let start = set.features.len() as u32;
        for &i in &trace.touched {
            let n = trace.counts[i];
            if n != 0 {
                set.features.push(Feature {
                    index: i as u16,
                    count: n.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                });
            }
            trace.counts[i] = 0;
        }
        trace.touched.clear();
        let phase = b.phase as f32 / MAX_PHASE as f32;
        let scale = b.scale as f32 / SCALE_NORMAL as f32;
        set.samples.push(Sample {
            start,
            len: set.features.len() as u32 - start,
            mg: phase * scale,
            eg: (1.0 - phase) * scale,
            result,
            eval: b.white,
        });
    }
    set
}

fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

/// The model's evaluation of a sample under weights `w` (mg at 2i, eg at 2i+1).
#[inline]
fn linear_eval(set: &Set, s: &Sample, w: &[f64]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for f in &set.features[s.start as usize..(s.start + s.len) as usize] {
        let i = f.index as usize * 2;
        mg += w[i] * f.count as f64;
        eg += w[i + 1] * f.count as f64;
    }
    mg * s.mg as f64 + eg * s.eg as f64
}

fn mse_of_evals(set: &Set, evals: &[f64], k: f64) -> f64 {
    let sum: f64 = set
        .samples
        .iter()
        .zip(evals)
        .map(|(s, &e)| (s.result as f64 - sigmoid(k, e)).powi(2))
        .sum();
    sum / set.samples.len() as f64
}

fn mse_linear(set: &Set, k: f64, w: &[f64], threads: usize) -> f64 {
    let chunk = set.samples.len().div_ceil(threads);
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
fn fit_k(set: &Set, w: &[f64]) -> f64 {
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
fn gradient(set: &Set, k: f64, w: &[f64], threads: usize) -> Vec<f64> {
    let chunk = set.samples.len().div_ceil(threads);
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

fn to_floats(weights: &[S]) -> Vec<f64> {
    weights
        .iter()
        .flat_map(|s| [s.mg() as f64, s.eg() as f64])
        .collect()
}

/// Rounds tuned weights and moves each piece-square table's mean into the material value (the
/// sum is unchanged for every piece, and the tables read as "better or worse than average").
fn to_weights(w: &[f64]) -> Vec<S> {
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

const PIECE_NAMES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// The text of `weights.rs` for these weights.
fn render(weights: &[S], header: &str) -> String {
    let mut out = String::new();
    out.push_str("//! Evaluation weights, written by `brudno-tools tune` (tools/src/tune.rs; layout in `params.rs`).\n");
    out.push_str("//! Hand edits are fine, but the next tuning run overwrites this file.\n");
    for line in header.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    out.push_str(
        "\nuse super::packed::S;\nuse super::params::NUM_WEIGHTS;\n\n\
         const fn s(mg: i32, eg: i32) -> S {\n    S::new(mg, eg)\n}\n\n\
         #[rustfmt::skip]\npub static WEIGHTS: [S; NUM_WEIGHTS] = [\n",
    );
    for g in GROUPS {
        for (row, chunk) in weights[g.start..g.start + g.len]
            .chunks(g.per_line)
            .enumerate()
        {
            if g.start == PST && row % 8 == 0 {
                let _ = writeln!(
                    out,
                    "    // PST {} (rank 1 first, a-file first)",
                    PIECE_NAMES[row / 8]
                );
            } else if row == 0 {
                let _ = writeln!(out, "    // {}", g.name);
            }
            out.push_str("    ");
            let cells: Vec<String> = chunk
                .iter()
                .map(|s| format!("s({}, {}),", s.mg(), s.eg()))
                .collect();
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
    }
    out.push_str("];\n");
    out
}

/// Hand-set starting values: material, simple piece-square shapes, and signs for the rest.
pub fn seed_weights() -> Vec<S> {
    let mut w = vec![S::ZERO; NUM_WEIGHTS];
    let material = [(85, 110), (320, 290), (340, 310), (470, 520), (950, 930)];
    for (t, &(mg, eg)) in material.iter().enumerate() {
        w[MATERIAL + t] = S::new(mg, eg);
    }
    for sq in 0..64usize {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let c = (f.min(7 - f)).min(r.min(7 - r));
        let central = (f == 3 || f == 4) as i32;
        if (1..=6).contains(&r) {
            w[PST + sq] = S::new((r - 1) * 3 + central * (r - 1) * 5, (r - 1) * (r - 1) * 4);
        }
        w[PST + 64 + sq] = S::new(c * 12 - 20, c * 8 - 15);
        w[PST + 128 + sq] = S::new(c * 5 - 8, c * 4 - 6);
        w[PST + 192 + sq] = S::new(if r == 6 { 15 } else { 0 } + central * 6 - 3, 0);
        w[PST + 256 + sq] = S::new(c * 3 - 5, c * 6 - 9);
        let home = if r == 0 { 10 } else { -25 * r };
        let wing = if f <= 2 || f >= 5 { 15 } else { -5 };
        w[PST + 320 + sq] = S::new(home + wing, c * 15 - 25);
    }
    for (start, len, step) in [
        (MOB_KNIGHT, 9, 4),
        (MOB_BISHOP, 14, 4),
        (MOB_ROOK, 15, 2),
        (MOB_QUEEN, 28, 1),
    ] {
        for n in 0..len {
            let v = (n as i32 - len as i32 / 3) * step;
            w[start + n] = S::new(v, v);
        }
    }
    w[PAWN_DOUBLED] = S::new(-10, -20);
    w[PAWN_ISOLATED] = S::new(-10, -10);
    w[PAWN_BACKWARD] = S::new(-8, -8);
    for r in 1..7 {
        w[PAWN_SUPPORTED + r] = S::new(4 + 2 * r as i32, 4 + 2 * r as i32);
        w[PAWN_PHALANX + r] = S::new(3 + 2 * r as i32, 2 + r as i32);
        let p = [0, 0, 5, 10, 25, 50, 90, 0][r];
        w[PASSED_RANK + r] = S::new(p / 2, p);
    }
    w[PASSED_UNSTOPPABLE] = S::new(0, 300);
    for d in 0..8 {
        w[PASSED_KING_OWN + d] = S::new(0, -2 * d as i32);
        w[PASSED_KING_THEIR + d] = S::new(0, 4 * d as i32);
    }
    for t in 1..5 {
        w[KS_ATTACKERS + t] = S::new(-5, 0);
        w[KS_SAFE_CHECKS + t] = S::new(-10, -5);
        w[THREAT_BY_PAWN + t] = S::new(40, 30);
        w[THREAT_BY_MINOR + t] = S::new(10 * t as i32, 10 * t as i32);
        w[THREAT_BY_ROOK + t] = S::new(5 * t as i32, 5 * t as i32);
    }
    w[KS_DANGER_SQUARED] = S::new(-2, 0);
    w[KS_SEMIOPEN_FILE] = S::new(-10, 0);
    w[BISHOP_PAIR] = S::new(30, 50);
    w[ROOK_OPEN] = S::new(25, 10);
    w[ROOK_SEMIOPEN] = S::new(10, 5);
    w[ROOK_SEVENTH] = S::new(10, 20);
    for i in 0..4 {
        w[OUTPOST + i] = S::new(10 + 5 * i as i32, 5);
    }
    w[HANGING] = S::new(20, 20);
    w[TEMPO] = S::new(15, 5);
    w
}

/// Indices (into the mg/eg float vector) of the middlegame halves of the piece-square tables
/// (pawns: ranks 2-7) and mobility tables.
fn held_mg_tables() -> Vec<Vec<usize>> {
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

fn mean_of(w: &[f64], cells: &[usize]) -> f64 {
    cells.iter().map(|&i| w[i]).sum::<f64>() / cells.len() as f64
}

/// Tables indexed by an ordered quantity (a count, a rank, a distance), as (start, length).
const ORDERED_TABLES: [(usize, usize); 13] = [
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
fn add_smoothness_gradient(g: &mut [f64], w: &[f64], x: f64) {
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

/// Splits off whole blocks of consecutive positions (positions of one game tend to be
/// neighbours), so that the held-out part is mostly unseen games.
fn split<T>(items: Vec<T>, holdout_percent: usize) -> (Vec<T>, Vec<T>) {
    const BLOCK: usize = 500;
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, item) in items.into_iter().enumerate() {
        if (i / BLOCK) * 7 % 100 < holdout_percent {
            test.push(item);
        } else {
            train.push(item);
        }
    }
    (train, test)
}

fn trace_parallel(positions: &[Labelled], threads: usize) -> Set {
    let chunk = positions.len().div_ceil(threads).max(1);
    let parts: Vec<Set> = std::thread::scope(|scope| {
        let handles: Vec<_> = positions
            .chunks(chunk)
            .map(|part| scope.spawn(move || trace_positions(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let mut set = Set {
        samples: Vec::new(),
        features: Vec::new(),
    };
    for part in parts {
        let offset = set.features.len() as u32;
        set.samples.extend(part.samples.iter().map(|s| Sample {
            start: s.start + offset,
            ..*s
        }));
        set.features.extend_from_slice(&part.features);
    }
    set
}

/// `brudno-tools tune ...`: see `USAGE`.
pub fn run(args: &[String]) -> Result<()> {
    let o = parse_args(args)?;
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
        if epoch % 250 == 0 || epoch == o.epochs {
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
mod tests {
    use super::*;

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
}
