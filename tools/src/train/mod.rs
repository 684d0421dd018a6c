//! `brudno-tools train`: trains the NNUE evaluation network on `brudno datagen` games, on the
//! CPU, with one batch split over the threads.
//!
//! - `args.rs`: the command lines of `train` and `quantise`, and their help texts;
//! - `config.rs`: the settings, their checks and the run's identity;
//! - `data.rs`: the games streamed from the files, the validation split, the pinned data;
//! - `packed.rs`: a position in 32 bytes, and its inputs (mirrored or not) and bucket;
//! - `model.rs`: the float network, its loss and its sparse gradient;
//! - `adamw.rs`, `schedule.rs`: the optimiser and the learning rate;
//! - `checkpoint.rs`: stopping and resuming bit for bit;
//! - `export.rs`: quantisation into the engine's `Network` (which reads and writes the network
//!   file, format version 1: the trainer has no copy of the format), and the check of the
//!   engine's integer evaluation against the float one;
//! - `testdata.rs`: random games in the data format, for the tests.
//!
//! A run is reproducible: for a seed and a thread count the result is the same bytes, whether
//! the run went through or was stopped and resumed (each thread sums its slice of the batch in
//! order, the slices are added in thread order, the shuffle comes from the seed and the epoch).
//! Another thread count sums in another order, so it gives a slightly different network.

pub mod adamw;
pub mod args;
pub mod checkpoint;
pub mod config;
pub mod data;
pub mod export;
pub mod model;
pub mod packed;
pub mod schedule;
pub mod testdata;

use crate::cli::{print_help, Parsed};
use crate::progress::{self, rate, Progress};
use adamw::AdamW;
use anyhow::{bail, Context, Result};
pub use args::{quantise_usage, usage, QuantiseOptions};
use brudno::datagen::format::Filter;
use brudno::eval::nnue::network::WEIGHT_CLIP;
use brudno::util::Rng;
use checkpoint::Checkpoint;
use config::pinned_sources;
pub use config::Config;
use data::{Dataset, LoadSettings};
use export::QuantCheck;
use model::{Model, Scratch};
use packed::Packed;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Lines to stderr and to `RUN_DIR/log.txt`, and the progress within an epoch: on stderr as
/// `Progress` shows it, into the file every `--report-secs`.
struct Log {
    file: std::fs::File,
    progress: Progress,
    file_every: Duration,
    file_last: Instant,
}

impl Log {
    fn open(dir: &Path, report_secs: f64) -> Result<Log> {
        let path = dir.join("log.txt");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Log {
            file,
            progress: Progress::stderr(report_secs),
            file_every: Duration::try_from_secs_f64(report_secs).unwrap_or(Duration::MAX),
            file_last: Instant::now(),
        })
    }

    fn line(&mut self, text: &str) {
        self.progress.clear();
        eprintln!("{text}");
        self.file_line(text);
    }

    fn file_line(&mut self, text: &str) {
        // The log is a convenience: a full disk must not stop the training (checkpoints will
        // report it).
        let _ = writeln!(self.file, "{text}");
    }

    /// Reports progress if a report is due somewhere; `text` is built only then.
    fn progress(&mut self, text: impl FnOnce() -> String) {
        let into_file = self.file_last.elapsed() >= self.file_every;
        // Into a log, stderr gets the lines log.txt gets; a terminal gets its redrawn line.
        let show = if self.progress.terminal() {
            self.progress.due()
        } else {
            into_file
        };
        if show || into_file {
            let text = text();
            if show {
                self.progress.show(&text);
            }
            if into_file {
                self.file_last = Instant::now();
                self.file_line(&text);
            }
        }
    }
}

/// One thread's share of a batch.
struct Worker {
    grad: Vec<f32>,
    scratch: Scratch,
    loss: f64,
}

impl Worker {
    fn new(model: &Model) -> Worker {
        Worker {
            grad: vec![0.0; model.params.len()],
            scratch: Scratch::new(model.hidden),
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
        // The inputs are computed here, position by position, from the packed boards.
        let examples = part.iter().map(|&i| {
            let mut x = model.example(data.get(i as usize), wdl);
            if mirrored_now(i, mirror_salt) {
                x.features.mirror_files();
            }
            x
        });
        w.loss = model.add_gradient(examples, weight, &mut w.grad, &mut w.scratch);
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
fn mean_loss(model: &Model, entries: &[Packed], wdl: f32, threads: usize) -> f64 {
    if entries.is_empty() {
        return f64::NAN;
    }
    let per = entries.len().div_ceil(threads);
    let sums: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    let examples = part.iter().map(|p| model.example(p, wdl));
                    model.loss_sum(examples, &mut Scratch::new(model.hidden))
                })
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
    match Config::from_args(args)? {
        Parsed::Run(config) => run(&config).map(|_| ()),
        Parsed::Help => {
            print_help(&usage());
            Ok(())
        }
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
    let mut log = Log::open(&config.out, config.report_secs)?;
    let start = Instant::now();
    let loaded = data::load(
        &sources,
        &LoadSettings {
            filter: config.filter(),
            holdout: config.holdout,
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
        ((train.len() + loaded.valid.len()) * std::mem::size_of::<Packed>()) >> 20
    ));
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
                let model = Model::new_random(
                    config.hidden,
                    config.buckets,
                    config.mirror_features,
                    config.seed,
                );
                let adam = AdamW::new(model.params.len(), config.weight_decay);
                (model, adam, 0, 0, 0.0, 0)
            }
        };
    log.line(&format!(
        "train: hidden {}, {} bucket(s), mirrored inputs {}, {} epochs, batch {}, lr {} ({}), \
         wdl {} to {}, {} thread(s)",
        config.hidden,
        config.buckets,
        config.mirror_features,
        config.epochs,
        config.batch,
        config.lr,
        config.schedule.describe(),
        config.wdl,
        config.wdl_at(config.epochs - 1),
        config.threads
    ));
    let batches = train.len().div_ceil(config.batch);
    let mut workers: Vec<Worker> = (0..config.threads).map(|_| Worker::new(&model)).collect();
    let mut report = Report {
        epochs: Vec::new(),
        model: Model {
            hidden: 0,
            buckets: 0,
            mirror: false,
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
        let wdl = config.wdl_at(epoch);
        // Which positions this epoch sees mirrored (`--mirror`): a fresh half each epoch.
        let salt = config
            .mirror
            .then(|| config.seed.wrapping_mul(0x9E37_79B9) ^ u64::from(epoch) << 32);
        let epoch_start = Instant::now();
        let mut epoch_positions = 0usize;
        for b in first_batch..batches {
            let idx = &order[b * config.batch..((b + 1) * config.batch).min(order.len())];
            let lr = config
                .schedule
                .lr(config.lr, config.epochs, epoch, b, batches);
            let loss = batch_gradient(&model, train, idx, wdl, salt, &mut workers);
            adam.step(&mut model.params, &workers[0].grad, lr, WEIGHT_CLIP);
            loss_sum += loss;
            loss_batches += 1;
            epoch_positions += idx.len();
            run_batches += 1;
            log.progress(|| {
                let secs = epoch_start.elapsed().as_secs_f64();
                let per_sec = epoch_positions as f64 / secs.max(1e-9);
                // What is left of this epoch, and of the run (later epochs at this rate; the
                // validation and the export between epochs are not counted).
                let epoch_left = train.len().saturating_sub((b + 1) * config.batch);
                let run_left = epoch_left + (config.epochs - epoch - 1) as usize * train.len();
                let done = train.len() - epoch_left;
                // Short enough for one line of a narrow terminal, where it is redrawn.
                format!(
                    "epoch {}/{} {:.0}%: {} pos, {}/s, loss {:.6}, lr {lr:e}, {} left (run {})",
                    epoch + 1,
                    config.epochs,
                    100.0 * done as f64 / train.len() as f64,
                    progress::count(done as f64),
                    progress::count(per_sec),
                    loss_sum / loss_batches as f64,
                    progress::duration(epoch_left as f64 / per_sec.max(1e-9)),
                    progress::duration(run_left as f64 / per_sec.max(1e-9)),
                )
            });
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
        // At this epoch's weight, like the training loss beside it.
        let valid_loss = mean_loss(&model, &loaded.valid, wdl, config.threads);
        let train_loss = loss_sum / loss_batches.max(1) as f64;
        let mut line = format!(
            "epoch {}/{} done: train loss {train_loss:.6} validation loss {valid_loss:.6} \
             ({} pos/s, {train_secs:.1} s)",
            epoch + 1,
            config.epochs,
            rate(epoch_positions as f64, train_secs)
        );
        let name = format!("net-epoch{}.nnue", epoch + 1);
        let c = export::export(&model, &config.out.join(&name), &loaded.check)?;
        line.push_str(&format!("; {name}, {c}"));
        let quant = Some(c);
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
    let path = config.out.join("final.nnue");
    let c = export::export(&model, &path, &loaded.check)?;
    log.line(&format!("wrote {}: {c}", path.display()));
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

/// `brudno-tools quantise …`: a checkpoint as a network file.
pub fn quantise_command(args: &[String]) -> Result<()> {
    let QuantiseOptions {
        checkpoint: ckpt,
        out,
        check_positions: check,
        legacy,
    } = match QuantiseOptions::from_args(args)? {
        Parsed::Run(o) => o,
        Parsed::Help => {
            print_help(&quantise_usage());
            return Ok(());
        }
    };
    let c = Checkpoint::load(&ckpt, 0.0)?;
    let loaded = data::load(
        &pinned_sources(&c.identity)?,
        &LoadSettings {
            filter: Filter::default(),
            holdout: 0.0,
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
    let q = if legacy {
        let mut net = export::quantise(&c.model)?;
        export::correct_biases(&c.model, &mut net, check);
        checkpoint::write_atomic(&out, &export::legacy_bytes(&net)?)?;
        export::check(&c.model, &net, check)
    } else {
        export::export(&c.model, &out, check)?
    };
    eprintln!(
        "wrote {} (after {} epochs and {} batches): {q}",
        out.display(),
        c.epoch,
        c.batch
    );
    Ok(())
}
