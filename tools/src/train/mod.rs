//! `brudno-tools train`: trains the NNUE evaluation network on `brudno datagen` games, on the
//! CPU, with one batch split over the threads.
//!
//! - `data.rs`: the games as compact entries (inputs from both sides, score, result), the
//!   validation split, the pinned data of a run;
//! - `model.rs`: the float network, its loss and its sparse gradient;
//! - `adamw.rs`, `schedule.rs`: the optimiser and the learning rate;
//! - `checkpoint.rs`: stopping and resuming bit for bit;
//! - `export.rs`: quantisation into the engine's `Network`, and the check against the engine.
//!
//! A run is reproducible: for a seed and a thread count the result is the same bytes, whether
//! the run went through or was stopped and resumed (each thread sums its slice of the batch in
//! order, the slices are added in thread order, the shuffle comes from the seed and the epoch).
//! Another thread count sums in another order, so it gives a slightly different network.

pub mod adamw;
pub mod checkpoint;
pub mod data;
pub mod export;
pub mod model;
pub mod schedule;

use adamw::AdamW;
use anyhow::{bail, Context, Result};
use brudno::datagen::format::Filter;
use brudno::eval::nnue::network::{HIDDEN, WEIGHT_CLIP};
use brudno::util::Rng;
use checkpoint::Checkpoint;
use data::{Dataset, Entry, LoadSettings, Source};
use export::QuantCheck;
use model::{Model, Scratch};
use schedule::Schedule;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const USAGE: &str = "\
usage: brudno-tools train --data DIR_OR_FILE... --out RUN_DIR [options]

Trains the (768 -> H)x2 -> 1 SCReLU network on datagen games (*.vf files; a folder means
every .vf file in it). Rerunning the same command continues a stopped run from
RUN_DIR/checkpoint.bin and ends with the same network as an uninterrupted run.

  --data PATH...          data files or folders (required)
  --out DIR               run folder: log.txt, run.txt, checkpoint.bin, net-epochN.nnue,
                          final.nnue (required)
  --hidden H              neurons per perspective (default 128; the engine is built for
                          HIDDEN = 128: other widths train and report losses, but write no nets)
  --epochs N              passes over the training set (default 20)
  --batch N               positions per optimiser step (default 16384)
  --lr X                  AdamW learning rate (default 0.001)
  --schedule S            step (x0.1 after 75% of the epochs), step:E (x0.1 after E epochs)
                          or cosine (down to 1% over the run, per batch) (default step)
  --wdl X                 weight of the game result in the target; 1 - X on the score
                          (default 0.3)
  --mirror                also show each position mirrored a<->h (files reversed), in about
                          half of the epochs: nearly the same chess, twice the positions
  --weight-decay X        AdamW's decoupled weight decay (default 0.01)
  --seed N                initial weights, validation split and shuffles (default 1)
  --threads N             threads for loading and for each batch (default 1)
  --holdout X             fraction of the games held out for validation (default 0.01)
  --max-positions N       use only the first N kept positions of the files, in order
  --min-ply N             skip positions before this game ply (default 16)
  --checkpoint-every N    also checkpoint every N batches within an epoch (default 1000;
                          0: at epoch ends only)
  --report-secs X         seconds between progress lines (default 10)
  --check-positions N     positions for the quantisation check (default 1000)
  --stop-after-batches N  stop after N batches as if killed (no checkpoint): for testing
                          resumption

Positions kept: not in check, quiet best move, no mate score, from --min-ply on. Loss:
(sigmoid(out * SCALE / 400) - target)^2 with target = wdl * result + (1 - wdl) *
sigmoid(score / 400), from the side to move's view.
";

pub const QUANTISE_USAGE: &str = "\
usage: brudno-tools quantise --checkpoint FILE --out FILE.nnue [--check-positions N]

Writes the float weights of a training checkpoint as an engine network file, and compares
the engine's evaluation with the float network's on positions from the run's data (when it
is still there).
";

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub hidden: usize,
    pub epochs: u32,
    pub batch: usize,
    pub lr: f32,
    pub schedule: Schedule,
    pub wdl: f32,
    /// `--mirror`: each position is seen mirrored a↔h in about half of the epochs.
    pub mirror: bool,
    pub weight_decay: f32,
    pub seed: u64,
    pub threads: usize,
    pub holdout: f64,
    pub max_positions: Option<usize>,
    pub min_ply: u32,
    pub checkpoint_every: u32,
    pub report_secs: f64,
    pub check_positions: usize,
    pub stop_after_batches: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data: Vec::new(),
            out: PathBuf::new(),
            hidden: HIDDEN,
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            schedule: Schedule::Step {
                drop_at: Schedule::default_drop(20),
            },
            wdl: 0.3,
            mirror: false,
            weight_decay: 0.01,
            seed: 1,
            threads: 1,
            holdout: 0.01,
            max_positions: None,
            min_ply: Filter::default().min_ply,
            checkpoint_every: 1000,
            report_secs: 10.0,
            check_positions: 1000,
            stop_after_batches: None,
        }
    }
}

/// `--help` was asked for: not an error, but no run either.
#[derive(Debug)]
pub struct HelpRequested;

impl std::fmt::Display for HelpRequested {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("help requested")
    }
}

impl std::error::Error for HelpRequested {}

fn parse<T: std::str::FromStr>(key: &str, value: Option<&String>) -> Result<T> {
    let value = value.with_context(|| format!("--{key} needs a value"))?;
    value
        .parse()
        .ok()
        .with_context(|| format!("--{key} {value}: not a valid value"))
}

impl Config {
    pub fn from_args(args: &[String]) -> Result<Config> {
        let mut c = Config::default();
        let mut schedule = "step".to_string();
        let mut i = 0;
        while i < args.len() {
            let key = args[i]
                .strip_prefix("--")
                .with_context(|| format!("expected an option, found {}", args[i]))?;
            let value = args.get(i + 1);
            i += 2;
            match key {
                "help" | "h" => return Err(HelpRequested.into()),
                "data" => {
                    i -= 1;
                    while i < args.len() && !args[i].starts_with("--") {
                        c.data.push(PathBuf::from(&args[i]));
                        i += 1;
                    }
                }
                "out" => c.out = parse::<PathBuf>(key, value)?,
                "hidden" => c.hidden = parse(key, value)?,
                "epochs" => c.epochs = parse(key, value)?,
                "batch" => c.batch = parse(key, value)?,
                "lr" => c.lr = parse(key, value)?,
                "schedule" => schedule = parse(key, value)?,
                "wdl" => c.wdl = parse(key, value)?,
                "mirror" => {
                    // A flag: no value.
                    c.mirror = true;
                    i -= 1;
                }
                "weight-decay" => c.weight_decay = parse(key, value)?,
                "seed" => c.seed = parse(key, value)?,
                "threads" => c.threads = parse(key, value)?,
                "holdout" => c.holdout = parse(key, value)?,
                "max-positions" => c.max_positions = Some(parse(key, value)?),
                "min-ply" => c.min_ply = parse(key, value)?,
                "checkpoint-every" => c.checkpoint_every = parse(key, value)?,
                "report-secs" => c.report_secs = parse(key, value)?,
                "check-positions" => c.check_positions = parse(key, value)?,
                "stop-after-batches" => c.stop_after_batches = Some(parse(key, value)?),
                _ => bail!("unknown option --{key} (see --help)"),
            }
        }
        c.schedule = Schedule::parse(&schedule, c.epochs)?;
        c.validate()?;
        Ok(c)
    }

    pub fn validate(&self) -> Result<()> {
        if self.data.is_empty() {
            bail!("--data is required");
        }
        if self.out.as_os_str().is_empty() {
            bail!("--out is required");
        }
        if self.hidden == 0 || self.epochs == 0 || self.batch == 0 || self.threads == 0 {
            bail!("--hidden, --epochs, --batch and --threads must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.wdl) || !(0.0..1.0).contains(&self.holdout) {
            bail!("--wdl must be within [0, 1] and --holdout within [0, 1)");
        }
        if !self.lr.is_finite() || self.lr <= 0.0 {
            bail!("--lr must be positive");
        }
        Ok(())
    }

    fn filter(&self) -> Filter {
        Filter {
            min_ply: self.min_ply,
            ..Filter::default()
        }
    }

    /// Everything that decides the network, one `key value` a line: a checkpoint continues
    /// only a run with the same identity. (Threads are left out: see the module comment.)
    pub fn identity(&self, sources: &[Source]) -> String {
        let mut t = String::new();
        let mut line = |k: &str, v: String| t.push_str(&format!("{k} {v}\n"));
        line("trainer", "brudno-tools train 1".into());
        line("hidden", self.hidden.to_string());
        line("epochs", self.epochs.to_string());
        line("batch", self.batch.to_string());
        line("lr", self.lr.to_string());
        line("schedule", self.schedule.describe());
        line("wdl", self.wdl.to_string());
        if self.mirror {
            // Only when on: the runs before the option keep their identity.
            line("mirror", "true".to_string());
        }
        line("weight-decay", self.weight_decay.to_string());
        line("seed", self.seed.to_string());
        line("holdout", self.holdout.to_string());
        line(
            "max-positions",
            self.max_positions.map_or("all".into(), |n| n.to_string()),
        );
        line("min-ply", self.min_ply.to_string());
        for d in &self.data {
            line("data-arg", d.display().to_string());
        }
        for s in sources {
            line("data", format!("{} {}", s.path.display(), s.bytes));
        }
        t
    }
}

/// The data a run was pinned to, from its identity.
fn pinned_sources(identity: &str) -> Result<Vec<Source>> {
    identity
        .lines()
        .filter_map(|l| l.strip_prefix("data "))
        .map(|rest| {
            let (path, bytes) = rest
                .rsplit_once(' ')
                .context("bad data line in the checkpoint")?;
            Ok(Source {
                path: PathBuf::from(path),
                bytes: bytes.parse().context("bad data line in the checkpoint")?,
            })
        })
        .collect()
}

/// Lines to stderr and to `RUN_DIR/log.txt`.
struct Log {
    file: std::fs::File,
}

impl Log {
    fn open(dir: &Path) -> Result<Log> {
        let path = dir.join("log.txt");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Log { file })
    }

    fn line(&mut self, text: &str) {
        eprintln!("{text}");
        // The log is a convenience: a full disk must not stop the training (checkpoints will
        // report it).
        let _ = writeln!(self.file, "{text}");
    }
}

/// One thread's share of a batch.
struct Worker {
    grad: Vec<f32>,
    scratch: Scratch,
    loss: f64,
}

impl Worker {
    fn new(hidden: usize) -> Worker {
        Worker {
            grad: vec![0.0; model::Layout { hidden }.len()],
            scratch: Scratch::new(hidden),
            loss: 0.0,
        }
    }
}

/// Whether position `i` is seen mirrored in this epoch (`salt`: the epoch's; `None`: never).
fn mirrored_now(i: u32, salt: Option<u64>) -> bool {
    salt.is_some_and(|s| brudno::util::Rng::new(s ^ u64::from(i)).next_u64() & 1 == 1)
}

/// The mean loss of the batch `idx`; its gradient is left in `workers[0].grad`.
fn batch_gradient(
    model: &Model,
    data: &Dataset,
    idx: &[u32],
    wdl: f32,
    mirror_salt: Option<u64>,
    workers: &mut [Worker],
) -> f64 {
    let n = idx.len();
    let parts = workers.len();
    let weight = 1.0 / n as f32;
    let slice = |k: usize| &idx[k * n / parts..(k + 1) * n / parts];
    let work = |w: &mut Worker, part: &[u32]| {
        // Dense zeroing: a batch of thousands of positions touches nearly every input row.
        w.grad.fill(0.0);
        let entries = part.iter().map(|&i| {
            let e = *data.get(i as usize);
            if mirrored_now(i, mirror_salt) {
                e.mirrored()
            } else {
                e
            }
        });
        w.loss = model.add_gradient(entries, wdl, weight, &mut w.grad, &mut w.scratch);
    };
    std::thread::scope(|s| {
        let (first, rest) = workers.split_first_mut().expect("at least one worker");
        for (k, w) in rest.iter_mut().enumerate() {
            let part = slice(k + 1);
            s.spawn(move || work(w, part));
        }
        work(first, slice(0));
    });
    let (first, rest) = workers.split_first_mut().unwrap();
    for w in rest.iter() {
        for (a, &b) in first.grad.iter_mut().zip(&w.grad) {
            *a += b;
        }
    }
    workers.iter().map(|w| w.loss).sum::<f64>() / n as f64
}

/// The mean loss over `entries`, split over the threads.
fn mean_loss(model: &Model, entries: &[Entry], wdl: f32, threads: usize) -> f64 {
    if entries.is_empty() {
        return f64::NAN;
    }
    let per = entries.len().div_ceil(threads);
    let sums: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(per)
            .map(|part| {
                s.spawn(move || model.loss_sum(part.iter(), wdl, &mut Scratch::new(model.hidden)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    sums.iter().sum::<f64>() / entries.len() as f64
}

/// The training order of epoch `epoch`.
fn permutation(n: usize, seed: u64, epoch: u32) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    let mut rng = Rng::derive(seed, &[0x5887, epoch as u64]);
    for i in (1..n).rev() {
        p.swap(i, rng.below(i as u64 + 1) as usize);
    }
    p
}

#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// From 1.
    pub epoch: u32,
    pub train_loss: f64,
    pub valid_loss: f64,
    pub positions_per_sec: f64,
    pub quant: Option<QuantCheck>,
}

#[derive(Clone, Debug)]
pub struct Report {
    /// The epochs finished by this invocation.
    pub epochs: Vec<EpochReport>,
    pub model: Model,
    /// Stopped by `--stop-after-batches` before the end.
    pub stopped: bool,
    pub train_positions: usize,
    pub valid_positions: usize,
    /// Positions per second over every batch of this invocation.
    pub positions_per_sec: f64,
}

/// `brudno-tools train …`.
pub fn command(args: &[String]) -> Result<()> {
    match Config::from_args(args) {
        Ok(config) => run(&config).map(|_| ()),
        Err(e) if e.is::<HelpRequested>() => {
            print!("{USAGE}");
            Ok(())
        }
        Err(e) => Err(e),
    }
}

fn rate(positions: f64, secs: f64) -> String {
    let r = positions / secs.max(1e-9);
    if r >= 1e6 {
        format!("{:.2}M", r / 1e6)
    } else {
        format!("{:.0}k", r / 1e3)
    }
}

/// Trains (or continues training) as `config` says; returns what happened.
pub fn run(config: &Config) -> Result<Report> {
    config.validate()?;
    let ckpt_path = config.out.join("checkpoint.bin");
    let resumed = if ckpt_path.exists() {
        Some(Checkpoint::load(&ckpt_path, config.weight_decay)?)
    } else {
        None
    };
    let sources = match &resumed {
        Some(c) => pinned_sources(&c.identity)?,
        None => data::fresh_sources(&data::list_files(&config.data)?),
    };
    std::fs::create_dir_all(&config.out)
        .with_context(|| format!("cannot create {}", config.out.display()))?;
    let mut log = Log::open(&config.out)?;
    let start = Instant::now();
    let loaded = data::load(
        &sources,
        &LoadSettings {
            filter: config.filter(),
            holdout: config.holdout,
            seed: config.seed,
            max_positions: config.max_positions,
            threads: config.threads,
            check_positions: config.check_positions,
        },
    )?;
    for w in &loaded.warnings {
        log.line(&format!("warning: {w}"));
    }
    let identity = config.identity(&loaded.sources);
    if let Some(c) = &resumed {
        if c.identity != identity {
            let differ: Vec<String> = identity
                .lines()
                .zip(c.identity.lines())
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("  now: {a}\n  was: {b}"))
                .collect();
            bail!(
                "{} belongs to a run with other settings or data; rerun with the same \
                 options or use another --out:\n{}",
                ckpt_path.display(),
                if differ.is_empty() {
                    "  (the data files differ)".to_string()
                } else {
                    differ.join("\n")
                }
            );
        }
    }
    let train = &loaded.train;
    if train.is_empty() {
        bail!("no training positions in the data (after the filter)");
    }
    if train.len() > u32::MAX as usize {
        bail!("more than 2^32 training positions: use --max-positions");
    }
    log.line(&format!(
        "data: {} games, {} positions, {} kept: {} training, {} validation; loaded in {:.1} s \
         ({} MB)",
        loaded.games,
        loaded.positions,
        train.len() + loaded.valid.len(),
        train.len(),
        loaded.valid.len(),
        start.elapsed().as_secs_f64(),
        ((train.len() + loaded.valid.len()) * std::mem::size_of::<Entry>()) >> 20
    ));
    let exporting = config.hidden == HIDDEN;
    if !exporting {
        log.line(&format!(
            "note: --hidden {} differs from the engine's HIDDEN = {HIDDEN}: training and \
             reporting losses only, no network files",
            config.hidden
        ));
    }
    let (mut model, mut adam, mut epoch, mut first_batch, mut loss_sum, mut loss_batches) =
        match resumed {
            Some(c) => {
                if c.epoch >= config.epochs {
                    log.line(&format!("{} is a finished run", ckpt_path.display()));
                } else {
                    log.line(&format!(
                        "resuming {} at epoch {} batch {}",
                        ckpt_path.display(),
                        c.epoch + 1,
                        c.batch
                    ));
                }
                let started = std::fs::read_to_string(config.out.join("run.txt")).ok();
                let was = started
                    .as_deref()
                    .and_then(|t| t.lines().find_map(|l| l.strip_prefix("threads ")));
                if let Some(was) = was.filter(|&w| w != config.threads.to_string()) {
                    log.line(&format!(
                        "note: the run started with {was} thread(s), now {}: the sums are \
                         split differently, so the result will differ slightly from an \
                         uninterrupted run",
                        config.threads
                    ));
                }
                (
                    c.model,
                    c.adam,
                    c.epoch,
                    c.batch as usize,
                    c.loss_sum,
                    c.loss_batches,
                )
            }
            None => {
                let mut run_txt = identity.clone();
                run_txt.push_str(&format!("threads {}\n", config.threads));
                checkpoint::write_atomic(&config.out.join("run.txt"), run_txt.as_bytes())?;
                let model = Model::new_random(config.hidden, config.seed);
                let adam = AdamW::new(model.params.len(), config.weight_decay);
                (model, adam, 0, 0, 0.0, 0)
            }
        };
    log.line(&format!(
        "train: hidden {}, {} epochs, batch {}, lr {} ({}), wdl {}, {} thread(s)",
        config.hidden,
        config.epochs,
        config.batch,
        config.lr,
        config.schedule.describe(),
        config.wdl,
        config.threads
    ));
    let batches = train.len().div_ceil(config.batch);
    let mut workers: Vec<Worker> = (0..config.threads)
        .map(|_| Worker::new(config.hidden))
        .collect();
    let mut report = Report {
        epochs: Vec::new(),
        model: Model {
            hidden: 0,
            params: Vec::new(),
        },
        stopped: false,
        train_positions: train.len(),
        valid_positions: loaded.valid.len(),
        positions_per_sec: 0.0,
    };
    let (mut run_positions, mut run_secs, mut run_batches) = (0usize, 0f64, 0u64);
    let save = |model: &Model, adam: &AdamW, epoch, batch, loss_sum, loss_batches| {
        Checkpoint {
            identity: identity.clone(),
            model: model.clone(),
            adam: adam.clone(),
            epoch,
            batch: batch as u32,
            loss_sum,
            loss_batches,
        }
        .save(&ckpt_path)
    };
    while epoch < config.epochs {
        let order = permutation(train.len(), config.seed, epoch);
        // Which positions this epoch sees mirrored (`--mirror`): a fresh half each epoch.
        let salt = config
            .mirror
            .then(|| config.seed.wrapping_mul(0x9E37_79B9) ^ u64::from(epoch) << 32);
        let epoch_start = Instant::now();
        let mut last_report = Instant::now();
        let mut epoch_positions = 0usize;
        for b in first_batch..batches {
            let idx = &order[b * config.batch..((b + 1) * config.batch).min(order.len())];
            let lr = config
                .schedule
                .lr(config.lr, config.epochs, epoch, b, batches);
            let loss = batch_gradient(&model, train, idx, config.wdl, salt, &mut workers);
            adam.step(&mut model.params, &workers[0].grad, lr, WEIGHT_CLIP);
            loss_sum += loss;
            loss_batches += 1;
            epoch_positions += idx.len();
            run_batches += 1;
            if last_report.elapsed().as_secs_f64() >= config.report_secs {
                last_report = Instant::now();
                log.line(&format!(
                    "epoch {}/{} batch {}/{} {} pos/s loss {:.6} lr {lr:e}",
                    epoch + 1,
                    config.epochs,
                    b + 1,
                    batches,
                    rate(epoch_positions as f64, epoch_start.elapsed().as_secs_f64()),
                    loss_sum / loss_batches as f64
                ));
            }
            let done = b + 1;
            if config.checkpoint_every > 0
                && done % config.checkpoint_every as usize == 0
                && done < batches
            {
                save(&model, &adam, epoch, done, loss_sum, loss_batches)?;
            }
            if config.stop_after_batches == Some(run_batches) {
                let secs = epoch_start.elapsed().as_secs_f64();
                log.line(&format!(
                    "stopping after {run_batches} batches (--stop-after-batches)"
                ));
                report.stopped = true;
                report.model = model;
                report.positions_per_sec =
                    (run_positions + epoch_positions) as f64 / (run_secs + secs).max(1e-9);
                return Ok(report);
            }
        }
        let train_secs = epoch_start.elapsed().as_secs_f64();
        run_positions += epoch_positions;
        run_secs += train_secs;
        let valid_loss = mean_loss(&model, &loaded.valid, config.wdl, config.threads);
        let train_loss = loss_sum / loss_batches.max(1) as f64;
        let mut line = format!(
            "epoch {}/{} done: train loss {train_loss:.6} validation loss {valid_loss:.6} \
             ({} pos/s, {train_secs:.1} s)",
            epoch + 1,
            config.epochs,
            rate(epoch_positions as f64, train_secs)
        );
        let mut quant = None;
        if exporting {
            let name = format!("net-epoch{}.nnue", epoch + 1);
            let c = export::export(&model, &config.out.join(&name), &loaded.check)?;
            line.push_str(&format!("; {name}, {c}"));
            quant = Some(c);
        }
        log.line(&line);
        report.epochs.push(EpochReport {
            epoch: epoch + 1,
            train_loss,
            valid_loss,
            positions_per_sec: epoch_positions as f64 / train_secs.max(1e-9),
            quant,
        });
        epoch += 1;
        first_batch = 0;
        loss_sum = 0.0;
        loss_batches = 0;
        save(&model, &adam, epoch, 0, 0.0, 0)?;
    }
    if exporting {
        let path = config.out.join("final.nnue");
        let c = export::export(&model, &path, &loaded.check)?;
        log.line(&format!("wrote {}: {c}", path.display()));
    } else {
        log.line("done (no network file: --hidden differs from the engine's HIDDEN)");
    }
    if run_positions > 0 {
        log.line(&format!(
            "trained {run_positions} positions in {run_secs:.1} s: {} pos/s",
            rate(run_positions as f64, run_secs)
        ));
    }
    report.model = model;
    report.positions_per_sec = run_positions as f64 / run_secs.max(1e-9);
    Ok(report)
}

/// `brudno-tools quantise …`: a checkpoint (of a run at the engine's width) as a network file.
pub fn quantise_command(args: &[String]) -> Result<()> {
    let (mut ckpt, mut out, mut check) = (None, None, 1000usize);
    let mut it = args.iter();
    while let Some(key) = it.next() {
        match key.as_str() {
            "--help" | "-h" => {
                print!("{QUANTISE_USAGE}");
                return Ok(());
            }
            "--checkpoint" => ckpt = it.next().map(PathBuf::from),
            "--out" => out = it.next().map(PathBuf::from),
            "--check-positions" => check = parse("check-positions", it.next())?,
            _ => bail!("unknown option {key} (see --help)"),
        }
    }
    let (Some(ckpt), Some(out)) = (ckpt, out) else {
        bail!("--checkpoint and --out are required (see --help)");
    };
    let c = Checkpoint::load(&ckpt, 0.0)?;
    let loaded = data::load(
        &pinned_sources(&c.identity)?,
        &LoadSettings {
            filter: Filter::default(),
            holdout: 0.0,
            seed: 0,
            max_positions: Some(check),
            threads: 1,
            check_positions: check,
        },
    );
    let check = match &loaded {
        Ok(l) if !l.check.is_empty() => l.check.as_slice(),
        _ => {
            eprintln!("(the run's data is not readable: no check, no bias correction)");
            &[]
        }
    };
    let q = export::export(&c.model, &out, check)?;
    eprintln!(
        "wrote {} (after {} epochs and {} batches): {q}",
        out.display(),
        c.epoch,
        c.batch
    );
    Ok(())
}
