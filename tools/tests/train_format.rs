//! The trainer's data and its network file, on small random-game files made in milliseconds:
//! the holdout does not depend on what else is loaded, and a trained network's file reads back
//! by the format's definition (a reader written here from the format's text, apart from the
//! engine's `Network`, which the trainer writes the file with) and evaluates as the float
//! network and the engine do.

use brudno::chess::{Color, Position};
use brudno::eval::nnue::{features, Network, Shape};
use brudno_tools::train::data::{self, LoadSettings};
use brudno_tools::train::model::float_eval_cp;
use brudno_tools::train::testdata::write_random_games;
use brudno_tools::train::{self, Config};
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("train-format-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn settings(holdout: f64) -> LoadSettings {
    LoadSettings {
        filter: brudno::datagen::format::Filter::default(),
        holdout,
        max_positions: None,
        threads: 2,
        check_positions: 0,
    }
}

fn load(folders: &[&Path]) -> data::Loaded {
    let folders: Vec<PathBuf> = folders.iter().map(|p| p.to_path_buf()).collect();
    let files = data::list_files(&folders).unwrap();
    data::load(&data::fresh_sources(&files), &settings(0.3)).unwrap()
}

fn train_list(l: &data::Loaded) -> Vec<train::packed::Packed> {
    (0..l.train.len()).map(|i| *l.train.get(i)).collect()
}

#[test]
fn adding_a_folder_moves_no_game_between_training_and_holdout() {
    let x = dir("x");
    let y = dir("y");
    write_random_games(&x.join("a.vf"), 60, 1).unwrap();
    write_random_games(&x.join("b.vf"), 40, 2).unwrap();
    write_random_games(&y.join("a.vf"), 50, 3).unwrap();
    let only_x = load(&[&x]);
    let only_y = load(&[&y]);
    assert!(!only_x.valid.is_empty() && only_x.train.len() > only_x.valid.len());
    let (xt, xv) = (train_list(&only_x), only_x.valid.clone());
    // X then Y: X's sets come first, unchanged.
    let xy = load(&[&x, &y]);
    assert_eq!(train_list(&xy)[..xt.len()], xt[..]);
    assert_eq!(xy.valid[..xv.len()], xv[..]);
    // Y then X: X's games are now files 2 and 3, and still on the same side.
    let yx = load(&[&y, &x]);
    let (yt, yv) = (only_y.train.len(), only_y.valid.len());
    assert_eq!(train_list(&yx)[yt..], xt[..]);
    assert_eq!(yx.valid[yv..], xv[..]);
    assert_eq!(xy.valid.len(), yx.valid.len());
}

/// A version-1 network file read by the format's text alone.
struct Reader {
    hidden: usize,
    buckets: usize,
    mirror: bool,
    values: Vec<i16>,
}

fn read_net(bytes: &[u8]) -> Reader {
    let u = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let i = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(&bytes[0..8], b"BRUDNONN");
    assert_eq!((u(8), u(12), u(28)), (1, 768, 1));
    assert_eq!((i(32), i(36), i(40)), (255, 64, 400));
    let (hidden, buckets, flags) = (u(16) as usize, u(20) as usize, u(24));
    assert!(flags <= 1);
    let payload = &bytes[64..];
    assert_eq!(payload.len(), u(44) as usize);
    assert_eq!(payload.len() % 64, 0);
    let fnv = payload.iter().fold(2166136261u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(16777619)
    });
    assert_eq!(fnv, u(48));
    assert!(bytes[52..64].iter().all(|&b| b == 0));
    let n = 768 * hidden + hidden + 2 * hidden * buckets + buckets;
    assert_eq!(payload.len(), (2 * n).div_ceil(64) * 64);
    let values: Vec<i16> = payload
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert!(values[n..].iter().all(|&v| v == 0));
    Reader {
        hidden,
        buckets,
        mirror: flags & 1 == 1,
        values: values[..n].to_vec(),
    }
}

impl Reader {
    fn evaluate(&self, pos: &Position) -> i32 {
        let h = self.hidden;
        let (ft_w, rest) = self.values.split_at(768 * h);
        let (ft_b, rest) = rest.split_at(h);
        let (out_w, out_b) = rest.split_at(2 * h * self.buckets);
        let acc = |p: Color| {
            let mirror = self.mirror && pos.king_square(p).file() >= 4;
            let mut a: Vec<i32> = ft_b.iter().map(|&b| i32::from(b)).collect();
            for sq in pos.occupied() {
                let piece = pos.piece_at(sq).unwrap();
                let s = if mirror { sq.index() ^ 7 } else { sq.index() };
                let f = features::index(p, piece, brudno::chess::Square::new(s as u8));
                for (a, &w) in a.iter_mut().zip(&ft_w[f * h..(f + 1) * h]) {
                    *a += i32::from(w);
                }
            }
            a
        };
        let pieces = pos.occupied().0.count_ones() as usize;
        let b = if self.buckets == 8 {
            (pieces - 2) / 4
        } else {
            0
        };
        let w = &out_w[2 * h * b..2 * h * (b + 1)];
        let stm = pos.side_to_move();
        let mut sum = 0i64;
        for (a, w) in [(acc(stm), &w[..h]), (acc(stm.flip()), &w[h..])] {
            for (&a, &w) in a.iter().zip(w) {
                let v = i64::from(a.clamp(0, 255));
                sum += v * v * i64::from(w);
            }
        }
        ((sum / 255 + i64::from(out_b[b])) * 400 / (255 * 64)) as i32
    }
}

#[test]
fn a_small_run_writes_a_file_that_reads_by_the_format_and_evaluates_as_the_float_net() {
    let data_dir = dir("e2e-data");
    write_random_games(&data_dir.join("g.vf"), 150, 9).unwrap();
    let out = dir("e2e-run");
    let c = Config {
        data: vec![data_dir.clone()],
        out: out.clone(),
        hidden: 128,
        buckets: 8,
        mirror_features: true,
        epochs: 1,
        batch: 256,
        holdout: 0.1,
        threads: 2,
        report_secs: 1e9,
        checkpoint_every: 0,
        ..Config::default()
    };
    let r = train::run(&c).unwrap();
    assert!(r.train_positions > 1000, "{}", r.train_positions);
    let net = read_net(&std::fs::read(out.join("final.nnue")).unwrap());
    assert_eq!((net.hidden, net.buckets, net.mirror), (128, 8, true));
    // Positions from the data, of many piece counts (so many buckets).
    let bytes = std::fs::read(data_dir.join("g.vf")).unwrap();
    let positions: Vec<Position> = brudno::datagen::format::GameReader::new(&bytes)
        .map(Result::unwrap)
        .flat_map(|g| g.samples().map(|s| s.pos).collect::<Vec<_>>())
        .step_by(37)
        .take(200)
        .collect();
    let mut buckets_seen = std::collections::BTreeSet::new();
    let (mut sum, mut max) = (0.0f64, 0.0f64);
    for pos in &positions {
        buckets_seen.insert((pos.occupied().0.count_ones() - 2) / 4);
        let d = (net.evaluate(pos) as f64 - float_eval_cp(&r.model, pos) as f64).abs();
        sum += d;
        max = max.max(d);
    }
    let mean = sum / positions.len() as f64;
    eprintln!(
        "integer vs float on {} positions: mean |d| {mean:.2} cp, max {max:.1} cp",
        positions.len()
    );
    assert!(buckets_seen.len() >= 3, "{buckets_seen:?}");
    // Quantisation error. Measured at width 128 (evaluations of ~40 cp on average): mean |d|
    // 2.6 cp, max 12.4 cp (at width 32, where fewer rounding errors add up, it stayed under 2
    // and 10). The same network read with the mirroring flag ignored, or one bucket for all,
    // or each bucket's halves swapped, is off by a mean of 38, 52 and 75 cp (max 165-255):
    // the bounds leave room for rounding luck and still catch a reading of the format that is
    // not the trainer's.
    assert!(mean <= 5.0 && max <= 25.0, "mean {mean}, max {max}");
    // The engine reads the same network and evaluates every position to the same centipawn.
    let engine = Network::from_bytes(&std::fs::read(out.join("final.nnue")).unwrap()).unwrap();
    let shape = Shape {
        width: 128,
        buckets: 8,
        mirrored: true,
    };
    assert_eq!(engine.shape(), shape);
    for pos in &positions {
        assert_eq!(
            engine.evaluate_from_scratch(pos),
            net.evaluate(pos),
            "{}",
            pos.to_fen()
        );
    }
}

#[test]
fn the_validation_loss_falls_on_data_with_a_learnable_signal() {
    // The random games' scores are their material balance: a rule the held-out games share.
    let data_dir = dir("valid-data");
    write_random_games(&data_dir.join("g.vf"), 300, 21).unwrap();
    let c = Config {
        data: vec![data_dir],
        out: dir("valid-run"),
        hidden: 128,
        epochs: 4,
        batch: 256,
        lr: 0.002,
        holdout: 0.2,
        threads: 2,
        report_secs: 1e9,
        checkpoint_every: 0,
        ..Config::default()
    };
    let r = train::run(&c).unwrap();
    let valid: Vec<f64> = r.epochs.iter().map(|e| e.valid_loss).collect();
    assert!(r.valid_positions > 1000, "{}", r.valid_positions);
    assert!(
        valid[3] < valid[0] && valid[3] < 0.9 * valid[0],
        "validation losses {valid:?}"
    );
}
