//! The trainer's settings, their checks, and the run's identity (what a checkpoint must match
//! to be continued). The command line is read in `args.rs`.

use super::data::Source;
use super::export::check_shape;
use super::schedule::Schedule;
use anyhow::{anyhow, bail, Context, Result};
use brudno::datagen::format::Filter;
use brudno::eval::nnue::Shape;
use std::path::PathBuf;

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
            // A line every half minute keeps a long run's log readable.
            report_secs: crate::progress::LOG_SECS,
            check_positions: 1000,
            stop_after_batches: None,
        }
    }
}

impl Config {
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
        if !(0.0..=1.0).contains(&self.wdl) {
            bail!("--wdl {}: must be within 0 to 1", self.wdl);
        }
        if let Some(w) = self.wdl_end.filter(|w| !(0.0..=1.0).contains(w)) {
            bail!("--wdl-end {w}: must be within 0 to 1");
        }
        if !(0.0..1.0).contains(&self.holdout) {
            bail!("--holdout {}: must be at least 0 and below 1", self.holdout);
        }
        if self.report_secs.is_nan() || self.report_secs < 0.0 {
            bail!("--report-secs {}: must not be negative", self.report_secs);
        }
        if self.mirror && self.mirror_features {
            bail!(
                "--mirror with --mirror-features would change nothing: a position mirrored \
                 a<->h has the same mirrored inputs; drop --mirror"
            );
        }
        if !self.lr.is_finite() || self.lr <= 0.0 {
            bail!("--lr {}: must be positive", self.lr);
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
