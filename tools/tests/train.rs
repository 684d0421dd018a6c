//! The trainer end to end on a few seconds of real self-play data: the loss falls, the
//! exported network is the float network (up to quantisation) as the engine evaluates it, a
//! resumed run ends bit for bit where an uninterrupted one does, and a seed gives one network.

use brudno::chess::Position;
use brudno::eval::nnue::network::{MAX_WIDTH, QA, QB, WIDTH_STEP};
use brudno::eval::nnue::{Backend, Network, NnueState, Shape};
use brudno_tools::train::{self, model::Model, Config, Report};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// 100 games at 300 nodes a move, made once (and kept between test runs: datagen continues a
/// folder, so a complete one costs nothing the second time).
fn fixture() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("train-fixture-100x300");
        brudno::datagen::run(brudno::datagen::Settings {
            out: dir.clone(),
            threads: 2,
            games: Some(100),
            nodes: 300,
            seed: 7,
            eval: "hce".into(),
            ..brudno::datagen::Settings::default()
        })
        .expect("datagen for the fixture");
        dir
    })
}

/// A fresh run folder for one test.
fn run_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("train-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(name: &str) -> Config {
    Config {
        data: vec![fixture().to_path_buf()],
        out: run_dir(name),
        epochs: 4,
        batch: 256,
        lr: 0.002,
        holdout: 0.1,
        threads: 2,
        report_secs: 1e9,
        checkpoint_every: 0,
        ..Config::default()
    }
}

fn final_net(c: &Config) -> Vec<u8> {
    std::fs::read(c.out.join("final.nnue")).unwrap()
}

#[test]
fn the_training_loss_falls() {
    let c = config("loss");
    let r = train::run(&c).unwrap();
    assert!(r.train_positions > 4000, "{} positions", r.train_positions);
    let losses: Vec<f64> = r.epochs.iter().map(|e| e.train_loss).collect();
    assert_eq!(losses.len(), 4);
    assert!(
        losses.windows(2).all(|w| w[1] < w[0]) && losses[3] < 0.8 * losses[0],
        "training losses {losses:?}"
    );
    // Held-out games of this tiny set are too few for their loss to fall every time (the
    // validation loss is tested on data with a learnable signal in train_format.rs).
    assert!(r.epochs.iter().all(|e| e.valid_loss.is_finite()));
    for k in 1..=4 {
        assert!(c.out.join(format!("net-epoch{k}.nnue")).exists());
    }
    let log = std::fs::read_to_string(c.out.join("log.txt")).unwrap();
    assert!(log.contains("epoch 4/4 done") && log.contains("validation loss"));
}

/// The float model that the integer network stands for (its weights divided back).
fn dequantised(net: &Network) -> Model {
    let shape = net.shape();
    let mut m = Model::new_random(shape.width, shape.buckets, shape.mirrored, 0);
    let l = m.layout();
    let p = &mut m.params;
    let parts: [(_, &[i16], _); 4] = [
        (l.ft_weights(), &net.feature_weights, QA),
        (l.ft_bias(), &net.feature_bias, QA),
        (l.out_weights(), &net.output_weights, QB),
        (l.out_bias(), &net.output_bias, QA * QB),
    ];
    for (range, q, factor) in parts {
        assert_eq!(range.len(), q.len());
        for (w, &q) in p[range].iter_mut().zip(q) {
            *w = q as f32 / factor as f32;
        }
    }
    m
}

fn sample_positions(n: usize) -> Vec<Position> {
    let bytes = std::fs::read(fixture().join("stream-1-00001.vf")).unwrap();
    brudno::datagen::format::GameReader::new(&bytes)
        .map(Result::unwrap)
        .flat_map(|g| g.samples().map(|s| s.pos).collect::<Vec<_>>())
        .step_by(3)
        .take(n)
        .collect()
}

#[test]
fn the_exported_network_is_the_float_network_as_the_engine_evaluates_it() {
    let c = Config {
        epochs: 6,
        ..config("export")
    };
    let r = train::run(&c).unwrap();
    let net = Network::from_bytes(&final_net(&c)).unwrap();
    assert_eq!(net.shape(), Shape::LEGACY);
    let positions = sample_positions(1000);
    assert_eq!(positions.len(), 1000);
    // The engine's integer arithmetic computes the trainer's float formula on the quantised
    // weights: only the divisions' truncation (under 1 cp each) separates them.
    let exact = train::export::check(&dequantised(&net), &net, &positions);
    assert!(exact.max < 2.0, "engine vs dequantised float: {exact}");
    let args: Vec<String> = [
        "--checkpoint",
        c.out.join("checkpoint.bin").to_str().unwrap(),
        "--out",
        c.out.join("legacy.nnue").to_str().unwrap(),
        "--legacy",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    train::quantise_command(&args).unwrap();
    let legacy = std::fs::read(c.out.join("legacy.nnue")).unwrap();
    assert_eq!(legacy.len(), brudno::eval::nnue::network::LEGACY_FILE_BYTES);
    assert_eq!(Network::from_bytes(&legacy).unwrap().shape(), Shape::LEGACY);
    // Rounding the weights costs more: the output weights' step of 1/64 (QB) is ~5% of a
    // typical weight, and a position sums 256 of them. Measured on these tiny, overfitted
    // nets (evaluations of ~500 cp on average): mean |d| 4-13 cp, max 17-36 cp, about 1% of
    // the evaluation; the bounds leave room for another seed's rounding luck.
    let q = train::export::check(&r.model, &net, &positions);
    eprintln!("{q}");
    assert!(q.mean < 12.0 && q.max < 50.0, "{q}");
    // The run's own check (on held-out positions first) says the same.
    let own = r.epochs.last().unwrap().quant.unwrap();
    assert!(
        own.positions > 0 && own.mean < 12.0 && own.max < 50.0,
        "{own}"
    );
}

/// The engine's incremental, vectorised evaluation (each backend this CPU has) of every
/// position of the fixture's first games, played move by move, against its from-scratch
/// reference; returns the positions compared.
fn incremental_equals_from_scratch(net: &Arc<Network>, plies: usize) -> usize {
    let bytes = std::fs::read(fixture().join("stream-1-00001.vf")).unwrap();
    let games: Vec<_> = brudno::datagen::format::GameReader::new(&bytes)
        .map(Result::unwrap)
        .collect();
    let mut compared = 0;
    for backend in Backend::available() {
        let mut state = NnueState::with_backend(Arc::clone(net), backend);
        compared = 0;
        for game in &games {
            let mut pos = game.start;
            state.reset(&pos);
            let mut ply = 0;
            for &(m, _) in &game.plies {
                if ply + 1 == brudno::eval::nnue::state::STACK_PLIES {
                    state.reset(&pos);
                    ply = 0;
                }
                state.push(ply, &pos, m);
                pos.play(m);
                ply += 1;
                let stm = pos.side_to_move();
                let want = net.evaluate_from_scratch(&pos);
                assert_eq!(
                    state.evaluate(ply, stm),
                    want,
                    "{} {}",
                    backend.name(),
                    pos.to_fen()
                );
                compared += 1;
            }
            if compared >= plies {
                break;
            }
        }
    }
    compared
}

/// Each shape the trainer exports, trained for two epochs on the fixture, written by the
/// trainer (`export`), read back by the engine (`Network::from_bytes`) and evaluated by it
/// on 1,000 positions, against the trainer's float network:
/// - exactly the float formula on the quantised weights, up to the integer divisions'
///   truncation (`dequantised`, < 2 cp): the engine's features, mirroring, buckets and layout
///   are the trainer's — a disagreement in any would cost tens or hundreds of centipawns;
/// - within the quantisation error of the float network that was trained;
/// - the same to the centipawn through the engine's incremental, vectorised code.
#[test]
fn every_exported_shape_evaluates_in_the_engine_as_the_float_network() {
    let positions = sample_positions(1000);
    let shapes = [
        (128, 1, false),
        (128, 8, true),
        (256, 8, true),
        (256, 1, false),
    ];
    for (width, buckets, mirrored) in shapes {
        let shape = Shape {
            width,
            buckets,
            mirrored,
        };
        let c = Config {
            hidden: width,
            buckets,
            mirror_features: mirrored,
            epochs: 2,
            ..config(&format!("shape-{width}x{buckets}-{mirrored}"))
        };
        let r = train::run(&c).unwrap();
        let net: Arc<Network> = Network::from_bytes(&final_net(&c)).unwrap().into();
        assert_eq!(net.shape(), shape);
        let exact = train::export::check(&dequantised(&net), &net, &positions);
        let q = train::export::check(&r.model, &net, &positions);
        let mean_eval = positions
            .iter()
            .map(|p| train::model::float_eval_cp(&r.model, p).abs() as f64)
            .sum::<f64>()
            / positions.len() as f64;
        eprintln!("{shape}: mean |float eval| {mean_eval:.0} cp; dequantised {exact}; {q}");
        assert!(
            exact.max < 2.0,
            "{shape}: engine vs dequantised float: {exact}"
        );
        // Mean ≤ 2 cp and max ≤ 10 cp is more than QB = 64 allows on these tiny, overfitted
        // nets (evaluations of 260-460 cp on average): measured mean |d| 4.9, 4.9, 7.0 and
        // 5.7 cp, max 23, 19, 31 and 27 cp (128x1, 128x8 mirrored, 256x8 mirrored, 256x1),
        // the rounding of 2H output weights adding up. A reading of the file that is not the
        // trainer's is far off: the same networks with each bucket's halves swapped are off by
        // a mean of 510-910 cp, with the mirroring flag flipped 180-340 cp, with the buckets
        // shifted by one 160-260 cp, with the feature weights read neuron-major 270-460 cp
        // (max 770 cp and more in each case). The bounds are the quantisation error's, with
        // room for another seed's rounding luck.
        assert!(q.mean <= 12.0 && q.max <= 50.0, "{shape}: {q}");
        let compared = incremental_equals_from_scratch(&net, 1000);
        assert!(compared >= 1000, "{compared}");
    }
}

#[test]
fn a_resumed_run_ends_bit_for_bit_where_an_uninterrupted_one_does() {
    let whole = config("whole");
    let through: Report = train::run(&whole).unwrap();
    let batches = through.train_positions.div_ceil(whole.batch) as u64;
    assert!(batches >= 6, "{batches} batches an epoch");
    let parts = Config {
        checkpoint_every: 3,
        ..config("parts")
    };
    // Killed one batch into epoch 2 (resumes from the end of epoch 1), then two batches after
    // the mid-epoch checkpoint at batch 3 of epoch 3 (resumes from there), then to the end.
    for stop in [batches + 1, batches + 5] {
        let r = train::run(&Config {
            stop_after_batches: Some(stop),
            ..parts.clone()
        })
        .unwrap();
        assert!(r.stopped);
    }
    let resumed = train::run(&parts).unwrap();
    assert!(!resumed.stopped);
    assert_eq!(resumed.epochs.len(), 2);
    assert_eq!(resumed.model, through.model);
    assert_eq!(final_net(&parts), final_net(&whole));
    // The epoch's reported loss was carried across the stop too.
    assert_eq!(resumed.epochs[0].epoch, 3);
    assert_eq!(resumed.epochs[0].train_loss, through.epochs[2].train_loss);
    // Other settings do not continue this run.
    let e = train::run(&Config {
        lr: 0.003,
        ..parts.clone()
    })
    .unwrap_err();
    assert!(e.to_string().contains("other settings"), "{e}");
}

#[test]
fn a_seed_gives_one_network() {
    let a = config("seed-a");
    let b = config("seed-b");
    train::run(&a).unwrap();
    train::run(&b).unwrap();
    assert_eq!(final_net(&a), final_net(&b));
    let c = Config {
        seed: 2,
        ..config("seed-c")
    };
    train::run(&c).unwrap();
    assert_ne!(final_net(&a), final_net(&c));
}

#[test]
fn a_network_with_buckets_and_mirroring_trains_and_exports() {
    let c = Config {
        hidden: 128,
        buckets: 8,
        mirror_features: true,
        epochs: 2,
        wdl: 0.1,
        wdl_end: Some(0.5),
        ..config("width")
    };
    let r = train::run(&c).unwrap();
    assert_eq!(r.epochs.len(), 2);
    assert!(r.epochs.iter().all(|e| e.valid_loss.is_finite()));
    let shape = Shape {
        width: 128,
        buckets: 8,
        mirrored: true,
    };
    let net = Network::from_bytes(&final_net(&c)).unwrap();
    assert_eq!(net.shape(), shape);
    let log = std::fs::read_to_string(c.out.join("log.txt")).unwrap();
    assert!(log.contains("wdl 0.1 to 0.5"), "{log}");
    // The quantise command writes the same network from the checkpoint.
    let args: Vec<String> = [
        "--checkpoint",
        c.out.join("checkpoint.bin").to_str().unwrap(),
        "--out",
        c.out.join("x.nnue").to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    train::quantise_command(&args).unwrap();
    let again = Network::from_bytes(&std::fs::read(c.out.join("x.nnue")).unwrap()).unwrap();
    assert_eq!(again.shape(), shape);
    assert_eq!(again.feature_weights[..], net.feature_weights[..]);
    // Not the legacy shape: no headerless file.
    let legacy = c.out.join("x-legacy.nnue");
    let mut args = args;
    args[3] = legacy.to_str().unwrap().to_string();
    args.push("--legacy".into());
    let e = train::quantise_command(&args).unwrap_err();
    assert!(e.to_string().contains("headerless"), "{e}");
    assert!(!legacy.exists());
}

#[test]
fn the_command_line_parses_into_a_config() {
    let args: Vec<String> = "--data a b --out r --hidden 256 --epochs 10 --batch 4096 --lr 0.01 \
         --wdl 0.5 --seed 9 --threads 2 --max-positions 100 --holdout 0.05 --schedule step:8 \
         --output-buckets 8 --mirror-features --wdl-end 0.7"
        .split_whitespace()
        .map(String::from)
        .collect();
    let c = Config::from_args(&args).unwrap().run().unwrap();
    assert_eq!(c.data, vec![PathBuf::from("a"), PathBuf::from("b")]);
    assert_eq!((c.hidden, c.epochs, c.batch, c.seed), (256, 10, 4096, 9));
    assert_eq!((c.lr, c.wdl, c.threads), (0.01, 0.5, 2));
    assert_eq!((c.max_positions, c.holdout), (Some(100), 0.05));
    assert_eq!(c.schedule, train::schedule::Schedule::Step { drop_at: 8 });
    assert_eq!(
        (c.buckets, c.mirror_features, c.wdl_end),
        (8, true, Some(0.7))
    );
    assert_eq!((c.wdl_at(0), c.wdl_at(9)), (0.5, 0.7));
    assert!((c.wdl_at(3) - (0.5 + 0.2 * 3.0 / 9.0)).abs() < 1e-6);
    let bad = |extra: &str| {
        let mut a: Vec<String> = ["--data", "a", "--out", "r"].map(String::from).to_vec();
        a.extend(extra.split_whitespace().map(String::from));
        Config::from_args(&a).is_err()
    };
    // Widths the engine runs: multiples of its SIMD tile (128) up to 1024.
    for hidden in [0, 32, 64, 100, 192, 1152] {
        assert!(bad(&format!("--hidden {hidden}")), "--hidden {hidden}");
    }
    assert!(!bad("--hidden 384"));
    assert!(!bad("--hidden 1024 --output-buckets 8"));
    let args: Vec<String> = "--data a --out r --hidden 192"
        .split_whitespace()
        .map(String::from)
        .collect();
    let e = Config::from_args(&args).unwrap_err().to_string();
    let runs = format!("multiples of {WIDTH_STEP} up to {MAX_WIDTH}");
    assert!(e.contains("--hidden 192") && e.contains(&runs), "{e}");
    assert!(
        train::usage().contains(&format!("a multiple of {WIDTH_STEP} up to {MAX_WIDTH}")),
        "the help text gives the widths the engine runs"
    );
    assert!(bad("--output-buckets 4"));
    assert!(bad("--mirror --mirror-features"));
    assert!(bad("--wdl-end 1.5"));
    assert!(!bad("--hidden 512 --output-buckets 8 --mirror"));
    assert!(Config::from_args(&["--out".into(), "r".into()]).is_err());
    assert!(Config::from_args(&["--bogus".into(), "1".into()]).is_err());
}
