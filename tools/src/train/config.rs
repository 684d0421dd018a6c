//! The trainer's settings: the command line, its checks, and the run's identity (what a
//! checkpoint must match to be continued).

use super::data::Source;
use super::export::check_shape;
use super::schedule::Schedule;
use anyhow::{anyhow, bail, Context, Result};
use brudno::datagen::format::Filter;
use brudno::eval::nnue::Shape;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: brudno-tools train --data DIR_OR_FILE... --out RUN_DIR [options]

Trains the (768 -> H)x2 -> N SCReLU network on datagen games (*.vf files; a folder means
every .vf file in it) and writes it in the network file format version 1. Rerunning the same command continues a stopped run from
RUN_DIR/checkpoint.bin and ends with the same network as an uninterrupted run.

  --data PATH...          data files or folders (required)
  --out DIR               run folder: log.txt, run.txt, checkpoint.bin, net-epochN.nnue,
                          final.nnue (required)
  --hidden H              neurons per perspective: a multiple of 128 up to 1024, what the
                          engine runs (default 128)
  --output-buckets N      1, or 8 output layers chosen by the piece count (pieces - 2) / 4
                          (default 1)
  --mirror-features       per perspective, mirror every input a<->h when that side's own king
                          stands on files e-h (the file's flag bit 0)
  --epochs N              passes over the training set (default 20)
  --batch N               positions per optimiser step (default 16384)
  --lr X                  AdamW learning rate (default 0.001)
  --schedule S            step (x0.1 after 75% of the epochs), step:E (x0.1 after E epochs)
                          or cosine (down to 1% over the run, per batch) (default step)
  --wdl X                 weight of the game result in the target; 1 - X on the score
                          (default 0.3)
  --wdl-end X             the weight in the last epoch: linear from --wdl over the epochs
                          (default: --wdl throughout)
  --mirror                also show each position mirrored a<->h (files reversed), in about
                          half of the epochs: nearly the same chess, twice the positions (not
                          with --mirror-features, where a mirrored position has the same
                          inputs)
  --weight-decay X        AdamW's decoupled weight decay (default 0.01)
  --seed N                initial weights and shuffles (default 1)
  --threads N             threads for loading and for each batch (default 1)
  --holdout X             fraction of the games held out for validation, chosen by a hash of
                          each game: the same games whatever else is loaded (default 0.01)
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
usage: brudno-tools quantise --checkpoint FILE --out FILE.nnue [--check-positions N] [--legacy]

Writes the float weights of a training checkpoint as a network file (format version 1), and
compares its integer evaluation with the float network's on positions from the run's data
(when it is still there). --legacy writes the headerless file that engines before the
format read (width 128, one bucket, no mirroring only).
";

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub hidden: usize,
    /// `--output-buckets`: 1 or 8.
    pub buckets: usize,
    /// `--mirror-features`: the network's inputs are mirrored by each side's king file.
    pub mirror_features: bool,
    pub epochs: u32,
    pub batch: usize,
    pub lr: f32,
    pub schedule: Schedule,
    pub wdl: f32,
    /// `--wdl-end`: the weight of the last epoch (linear from `wdl`); `None`: constant.
    pub wdl_end: Option<f32>,
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
            hidden: 128,
            buckets: 1,
            mirror_features: false,
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            schedule: Schedule::Step {
                drop_at: Schedule::default_drop(20),
            },
            wdl: 0.3,
            wdl_end: None,
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

pub(super) fn parse<T: std::str::FromStr>(key: &str, value: Option<&String>) -> Result<T> {
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
                "output-buckets" => c.buckets = parse(key, value)?,
                "mirror-features" => {
                    c.mirror_features = true;
                    i -= 1;
                }
                "wdl-end" => c.wdl_end = Some(parse(key, value)?),
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
        if self.epochs == 0 || self.batch == 0 || self.threads == 0 {
            bail!("--epochs, --batch and --threads must be at least 1");
        }
        check_shape(self.shape()).map_err(|e| {
            anyhow!(
                "--hidden {} --output-buckets {}: {e}",
                self.hidden,
                self.buckets
            )
        })?;
        let wdls = [self.wdl, self.wdl_end.unwrap_or(self.wdl)];
        if wdls.iter().any(|w| !(0.0..=1.0).contains(w)) || !(0.0..1.0).contains(&self.holdout) {
            bail!("--wdl and --wdl-end must be within [0, 1] and --holdout within [0, 1)");
        }
        if self.mirror && self.mirror_features {
            bail!(
                "--mirror with --mirror-features would change nothing: a position mirrored \
                 a<->h has the same mirrored inputs; drop --mirror"
            );
        }
        if !self.lr.is_finite() || self.lr <= 0.0 {
            bail!("--lr must be positive");
        }
        Ok(())
    }

    /// The shape of the network this run trains.
    pub fn shape(&self) -> Shape {
        Shape {
            width: self.hidden,
            buckets: self.buckets,
            mirrored: self.mirror_features,
        }
    }

    /// The weight of the result in the target during epoch `epoch` (from 0).
    pub fn wdl_at(&self, epoch: u32) -> f32 {
        match self.wdl_end {
            Some(end) if self.epochs > 1 => {
                let t = epoch.min(self.epochs - 1) as f32 / (self.epochs - 1) as f32;
                self.wdl + (end - self.wdl) * t
            }
            _ => self.wdl,
        }
    }

    pub(super) fn filter(&self) -> Filter {
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
        // 2: packed positions, holdout by game hash, the version-1 network file.
        line("trainer", "brudno-tools train 2".into());
        line("hidden", self.hidden.to_string());
        line("output-buckets", self.buckets.to_string());
        line("mirror-features", self.mirror_features.to_string());
        line("epochs", self.epochs.to_string());
        line("batch", self.batch.to_string());
        line("lr", self.lr.to_string());
        line("schedule", self.schedule.describe());
        line("wdl", self.wdl.to_string());
        line(
            "wdl-end",
            self.wdl_end.map_or("same".into(), |w| w.to_string()),
        );
        line("mirror", self.mirror.to_string());
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
pub(super) fn pinned_sources(identity: &str) -> Result<Vec<Source>> {
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
