//! `train`'s and `quantise`'s command lines: the options, their checks and the help texts
//! (whose defaults are read from `Config::default()` and `QuantiseOptions::default()`, so the
//! two cannot disagree).

use super::config::Config;
use super::schedule::Schedule;
use crate::cli::{self, unknown, Args, Parsed, UsageError};
use crate::usage_error;
use brudno::eval::nnue::network::{BUCKETS, MAX_WIDTH, WIDTH_STEP};
use std::path::PathBuf;

/// `--schedule`'s default, as written on the command line.
pub const DEFAULT_SCHEDULE: &str = "step";

/// `train --help`, with the defaults.
pub fn usage() -> String {
    let d = Config::default();
    format!(
        "\
Usage: brudno-tools train --data DIR_OR_FILE... --out RUN_DIR [OPTIONS]

Trains the (768 -> H)x2 -> N SCReLU network on datagen games (*.vf files; a folder means
every .vf file in it) and writes it in the network file format version 1. Rerunning the same
command continues a stopped run from RUN_DIR/checkpoint.bin and ends with the same network as
an uninterrupted run. Progress within an epoch goes to stderr: one line redrawn every second
on a terminal, a line every --report-secs otherwise (and into log.txt). Exit codes: 0 done,
1 failure, 2 a bad command line.

Options (default in brackets):
  --data PATH...          data files or folders (required)
  --out DIR               run folder: log.txt, run.txt, checkpoint.bin, net-epochN.nnue,
                          final.nnue (required)
  --hidden H              neurons per perspective: a multiple of {WIDTH_STEP} up to {MAX_WIDTH}, what the
                          engine runs [{hidden}]
  --output-buckets N      1, or {BUCKETS} output layers chosen by the piece count (pieces - 2) / 4
                          [{buckets}]
  --mirror-features       per perspective, mirror every input a<->h when that side's own king
                          stands on files e-h (the file's flag bit 0)
  --epochs N              passes over the training set [{epochs}]
  --batch N               positions per optimiser step [{batch}]
  --lr X                  AdamW learning rate [{lr}]
  --schedule S            step (x0.1 after 75% of the epochs), step:E (x0.1 after E epochs)
                          or cosine (down to 1% over the run, per batch) [{schedule}]
  --wdl X                 weight of the game result in the target; 1 - X on the score [{wdl}]
  --wdl-end X             the weight in the last epoch: linear from --wdl over the epochs
                          [--wdl throughout]
  --mirror                also show each position mirrored a<->h (files reversed), in about
                          half of the epochs: nearly the same chess, twice the positions (not
                          with --mirror-features, where a mirrored position has the same
                          inputs)
  --weight-decay X        AdamW's decoupled weight decay [{decay}]
  --seed N                initial weights and shuffles [{seed}]
  --threads N             threads for loading and for each batch [{threads}]
  --holdout X             fraction of the games held out for validation, chosen by a hash of
                          each game: the same games whatever else is loaded [{holdout}]
  --max-positions N       use only the first N kept positions of the files, in order [all]
  --min-ply N             skip positions before this game ply [{min_ply}]
  --checkpoint-every N    also checkpoint every N batches within an epoch; 0: at epoch ends
                          only [{every}]
  --report-secs X         seconds between progress lines in log.txt, and on stderr when it
                          is no terminal [{report}]
  --check-positions N     positions for the quantisation check [{check}]
  --stop-after-batches N  stop after N batches as if killed (no checkpoint): for testing
                          resumption
  -h, --help              this text

Positions kept: not in check, quiet best move, no mate score, from --min-ply on. Loss:
(sigmoid(out * SCALE / 400) - target)^2 with target = wdl * result + (1 - wdl) *
sigmoid(score / 400), from the side to move's view.",
        hidden = d.hidden,
        buckets = d.buckets,
        epochs = d.epochs,
        batch = d.batch,
        lr = d.lr,
        schedule = DEFAULT_SCHEDULE,
        wdl = d.wdl,
        decay = d.weight_decay,
        seed = d.seed,
        threads = d.threads,
        holdout = d.holdout,
        min_ply = d.min_ply,
        every = d.checkpoint_every,
        report = d.report_secs,
        check = d.check_positions,
    )
}

/// Turns a check's message into a command-line error.
fn refused(e: anyhow::Error) -> UsageError {
    UsageError(format!("{e:#}"))
}

impl Config {
    /// Reads the options after `train`; every check of `validate` included.
    pub fn from_args(args: &[String]) -> cli::Result<Parsed<Config>> {
        let mut c = Config::default();
        let mut schedule = DEFAULT_SCHEDULE.to_string();
        let parsed = Args::new(args).each_option(|n, a| {
            match n {
                "data" => c.data.extend(a.values(n)?.into_iter().map(PathBuf::from)),
                "out" => c.out = a.path(n)?,
                "hidden" => c.hidden = a.number(n)?,
                "output-buckets" => c.buckets = a.number(n)?,
                "mirror-features" => c.mirror_features = true,
                "epochs" => c.epochs = a.number_in(n, 1, 1_000_000)?,
                "batch" => c.batch = a.number_in(n, 1, 1 << 24)?,
                "lr" => c.lr = a.number(n)?,
                "schedule" => schedule = a.text(n)?,
                "wdl" => c.wdl = a.number(n)?,
                "wdl-end" => c.wdl_end = Some(a.number(n)?),
                "mirror" => c.mirror = true,
                "weight-decay" => c.weight_decay = a.number(n)?,
                "seed" => c.seed = a.number(n)?,
                "threads" => c.threads = a.number_in(n, 1, 256)?,
                "holdout" => c.holdout = a.number(n)?,
                "max-positions" => c.max_positions = Some(a.number(n)?),
                "min-ply" => c.min_ply = a.number(n)?,
                "checkpoint-every" => c.checkpoint_every = a.number(n)?,
                "report-secs" => c.report_secs = a.number(n)?,
                "check-positions" => c.check_positions = a.number(n)?,
                "stop-after-batches" => c.stop_after_batches = Some(a.number(n)?),
                _ => return Err(unknown(n)),
            }
            Ok(())
        })?;
        if parsed == Parsed::Help {
            return Ok(Parsed::Help);
        }
        c.schedule = Schedule::parse(&schedule, c.epochs).map_err(refused)?;
        c.validate().map_err(refused)?;
        Ok(Parsed::Run(c))
    }
}

/// What `quantise` does.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantiseOptions {
    pub checkpoint: PathBuf,
    pub out: PathBuf,
    /// Positions of the run's data the integer network is checked (and its biases corrected)
    /// on.
    pub check_positions: usize,
    /// The headerless file of engines before the network format.
    pub legacy: bool,
}

impl Default for QuantiseOptions {
    fn default() -> Self {
        QuantiseOptions {
            checkpoint: PathBuf::new(),
            out: PathBuf::new(),
            // As many as the trainer checks at each epoch's end.
            check_positions: Config::default().check_positions,
            legacy: false,
        }
    }
}

/// `quantise --help`, with the defaults.
pub fn quantise_usage() -> String {
    let d = QuantiseOptions::default();
    format!(
        "\
Usage: brudno-tools quantise --checkpoint FILE --out FILE.nnue [OPTIONS]

Writes the float weights of a training checkpoint as a network file (format version 1), and
compares its integer evaluation with the float network's on positions from the run's data
(when it is still there; their biases are corrected on the same positions). Exit codes: 0
done, 1 failure, 2 a bad command line.

Options (default in brackets):
  --checkpoint FILE     a trainer's checkpoint.bin (required)
  --out FILE            the network file to write (required)
  --check-positions N   positions of the run's data for the check [{check}]
  --legacy              write the headerless file that engines before the format read
                        (width 128, one bucket, no mirroring only)
  -h, --help            this text",
        check = d.check_positions
    )
}

impl QuantiseOptions {
    /// Reads the options after `quantise`.
    pub fn from_args(args: &[String]) -> cli::Result<Parsed<QuantiseOptions>> {
        let mut o = QuantiseOptions::default();
        let parsed = Args::new(args).each_option(|n, a| {
            match n {
                "checkpoint" => o.checkpoint = a.path(n)?,
                "out" => o.out = a.path(n)?,
                "check-positions" => o.check_positions = a.number(n)?,
                "legacy" => o.legacy = true,
                _ => return Err(unknown(n)),
            }
            Ok(())
        })?;
        if parsed == Parsed::Help {
            return Ok(Parsed::Help);
        }
        if o.checkpoint.as_os_str().is_empty() {
            return usage_error!("--checkpoint is required");
        }
        if o.out.as_os_str().is_empty() {
            return usage_error!("--out is required");
        }
        Ok(Parsed::Run(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cli::words as args;

    fn train_error(line: &str) -> String {
        Config::from_args(&args(line)).expect_err(line).0
    }

    #[test]
    fn train_reads_its_options_and_answers_help() {
        let c = Config::from_args(&args(
            "--data a b --out=r --mirror --report-secs 2.5 --schedule cosine",
        ))
        .unwrap()
        .run()
        .unwrap();
        let expected = Config {
            data: vec![PathBuf::from("a"), PathBuf::from("b")],
            out: PathBuf::from("r"),
            mirror: true,
            report_secs: 2.5,
            schedule: Schedule::Cosine,
            ..Config::default()
        };
        assert_eq!(c, expected);
        for line in ["--help", "-h", "--data a -h --bogus"] {
            assert_eq!(Config::from_args(&args(line)), Ok(Parsed::Help), "{line}");
        }
        // Options are read in order: a bad one before the help is reported.
        assert!(Config::from_args(&args("--epochs x -h")).is_err());
    }

    #[test]
    fn train_names_the_option_at_fault() {
        for (line, says) in [
            ("--data a --out r --epochs", "--epochs needs a value"),
            (
                "--data a --out r --epochs x",
                "--epochs x: not a whole number",
            ),
            ("--data a --out r --epochs 0", "--epochs 0: out of range"),
            ("--data a --out r --lr fast", "--lr fast: not a number"),
            ("--data a --out r --threads 0", "--threads 0: out of range"),
            ("--data a --out r --schedule linear", "--schedule linear"),
            ("--data a --out r --hidden 100", "--hidden 100"),
            ("--data a --out r --wdl 2", "--wdl"),
            ("--data a --out r --bogus 1", "unknown option --bogus"),
            ("--data a --out r -x", "unknown option -x"),
            ("--data --out r", "--data needs at least one value"),
            ("--out r", "--data is required"),
            ("--data a", "--out is required"),
            ("--data a --out r --seed 1 2", "unexpected argument \"2\""),
        ] {
            let e = train_error(line);
            assert!(e.contains(says), "{line}: {e}");
        }
    }

    #[test]
    fn the_help_shows_the_defaults() {
        let h = usage();
        let d = Config::default();
        for (option, default) in [
            ("--epochs N", d.epochs.to_string()),
            ("--batch N", d.batch.to_string()),
            ("--lr X", d.lr.to_string()),
            ("--wdl X", d.wdl.to_string()),
            ("--min-ply N", d.min_ply.to_string()),
            ("--report-secs X", d.report_secs.to_string()),
        ] {
            // The option's text runs to the next option's line.
            let text = h[h.find(option).unwrap()..].split("\n  -").next().unwrap();
            assert!(text.contains(&format!("[{default}]")), "{text}");
        }
        assert!(h.contains(&format!("a multiple of {WIDTH_STEP} up to {MAX_WIDTH}")));
        assert!(quantise_usage().contains("[1000]"));
    }

    #[test]
    fn quantise_reads_its_options() {
        let o = QuantiseOptions::from_args(&args("--checkpoint c.bin --out n.nnue --legacy"))
            .unwrap()
            .run()
            .unwrap();
        assert_eq!(
            o,
            QuantiseOptions {
                checkpoint: PathBuf::from("c.bin"),
                out: PathBuf::from("n.nnue"),
                check_positions: 1000,
                legacy: true,
            }
        );
        assert_eq!(QuantiseOptions::from_args(&args("-h")), Ok(Parsed::Help));
        for (line, says) in [
            ("--out n", "--checkpoint is required"),
            ("--checkpoint c", "--out is required"),
            (
                "--checkpoint c --out n --check-positions x",
                "--check-positions x",
            ),
            ("--checkpoint c --out n --legacy=1", "--legacy"),
        ] {
            let e = QuantiseOptions::from_args(&args(line)).expect_err(line).0;
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
