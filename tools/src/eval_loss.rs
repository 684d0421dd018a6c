//! `brudno-tools eval-loss`: how well an evaluation predicts the training targets, on the
//! same filtered positions the trainer uses — the hand-crafted evaluation as the baseline a
//! network must beat, and any network files given. The loss is the trainer's: mean of
//! (sigmoid(eval / 400) − target)², target = wdl · result + (1 − wdl) · sigmoid(score / 400).

use crate::cli::{self, print_help, unknown, Args, Parsed};
use crate::progress::{self, Progress};
use crate::usage_error;
use anyhow::{Context, Result};
use brudno::datagen::format::{Filter, GameReader};
use brudno::eval::nnue::Network;
use std::time::Instant;

/// What `eval-loss` measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub data: Vec<String>,
    pub nets: Vec<String>,
    /// The weight of the game result in the target, as the trainer's `--wdl`.
    pub wdl: f64,
    pub max_positions: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            data: Vec::new(),
            nets: Vec::new(),
            wdl: 0.3,
            max_positions: None,
        }
    }
}

/// `eval-loss --help`, with the defaults.
pub fn usage() -> String {
    let d = Options::default();
    format!(
        "\
Usage: brudno-tools eval-loss --data FILE.vf... [--net FILE.nnue...] [OPTIONS]

How well evaluations predict the training targets on the positions the trainer keeps:
material only (the floor), the hand-crafted evaluation, then each network given. For each:
the trainer's loss, the correlation with the search's score and the scale k in
score = k x eval. Exit codes: 0 done, 1 failure, 2 a bad command line.

Options (default in brackets):
  --data FILE...        datagen files (required)
  --net FILE...         network files to measure besides the built-in evaluations [none]
  --wdl X               weight of the game result in the target; 1 - X on the score [{wdl}]
  --max-positions N     stop after N positions [all]
  -h, --help            this text",
        wdl = d.wdl
    )
}

impl Options {
    /// Reads the options after `eval-loss`.
    pub fn from_args(args: &[String]) -> cli::Result<Parsed<Options>> {
        let mut o = Options::default();
        let parsed = Args::new(args).each_option(|n, a| {
            match n {
                "data" => o.data.extend(a.values(n)?),
                "net" => o.nets.extend(a.values(n)?),
                "wdl" => o.wdl = a.number_in(n, 0.0, 1.0)?,
                "max-positions" => o.max_positions = Some(a.number(n)?),
                _ => return Err(unknown(n)),
            }
            Ok(())
        })?;
        if parsed == Parsed::Help {
            return Ok(Parsed::Help);
        }
        if o.data.is_empty() {
            return usage_error!("--data is required");
        }
        Ok(Parsed::Run(o))
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `brudno-tools eval-loss …`.
pub fn command(args: &[String]) -> Result<()> {
    let o = match Options::from_args(args)? {
        Parsed::Run(o) => o,
        Parsed::Help => {
            print_help(&usage());
            return Ok(());
        }
    };
    let (wdl, max) = (o.wdl, o.max_positions.unwrap_or(usize::MAX));
    brudno::chess::attacks::init();
    brudno::endgame::kpk::init();
    let nets: Vec<(String, Box<Network>)> = o
        .nets
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).with_context(|| p.clone())?;
            Ok((
                p.clone(),
                Network::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{p}: {e}"))?,
            ))
        })
        .collect::<Result<_>>()?;
    let networks: Vec<&Network> = nets.iter().map(|(_, n)| n.as_ref()).collect();
    let (n, fits) = losses(&o.data, &networks, wdl, max)?;
    println!("{n} positions, wdl {wdl}");
    let names = [
        "material only (the floor)".to_string(),
        "hand-crafted evaluation".to_string(),
    ]
    .into_iter()
    .chain(nets.iter().map(|(name, _)| name.clone()));
    for (name, fit) in names.zip(&fits) {
        println!(
            "{name}: loss {:.6}, correlation with the search score {:.4}, score ≈ {:.3} × eval",
            fit.loss, fit.correlation, fit.scale
        );
    }
    Ok(())
}

/// Material in centipawns for the side to move: the crudest evaluation, a floor that shows
/// how much of the loss any knowledge at all can remove.
fn material(pos: &brudno::chess::Position) -> i32 {
    use brudno::chess::{PieceType, PIECE_VALUES};
    let us = pos.side_to_move();
    PieceType::ALL
        .iter()
        .map(|&t| {
            let v = PIECE_VALUES[t.index()];
            v * (pos.colored(us, t).count() as i32 - pos.colored(us.flip(), t).count() as i32)
        })
        .sum()
}

/// How one evaluation fits the data.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fit {
    /// The trainer's loss.
    pub loss: f64,
    /// Pearson correlation of the evaluation with the search's score (positions with
    /// |score| < 2000): how well it ranks positions, whatever its scale.
    pub correlation: f64,
    /// Least-squares k in score ≈ k · eval: below 1 the evaluation is more extreme than the
    /// search's scores (the search's margins were tuned on the latter).
    pub scale: f64,
}

/// Sums for one evaluation.
#[derive(Default)]
struct Sums {
    loss: f64,
    n: f64,
    e: f64,
    s: f64,
    ee: f64,
    ss: f64,
    es: f64,
}

impl Sums {
    fn add(&mut self, eval: f64, score: f64, target: f64) {
        self.loss += (sigmoid(eval / 400.0) - target).powi(2);
        if score.abs() < 2000.0 {
            self.n += 1.0;
            self.e += eval;
            self.s += score;
            self.ee += eval * eval;
            self.ss += score * score;
            self.es += eval * score;
        }
    }

    fn fit(&self, positions: usize) -> Fit {
        let n = self.n.max(1.0);
        let cov = self.es / n - self.e / n * self.s / n;
        let var_e = self.ee / n - (self.e / n).powi(2);
        let var_s = self.ss / n - (self.s / n).powi(2);
        Fit {
            loss: self.loss / positions.max(1) as f64,
            correlation: cov / (var_e * var_s).sqrt().max(f64::MIN_POSITIVE),
            scale: self.es / self.ee.max(f64::MIN_POSITIVE),
        }
    }
}

/// The positions read and how each evaluation fits them: material only, the hand-crafted
/// evaluation, then each network.
pub fn losses(
    data: &[String],
    nets: &[&Network],
    wdl: f64,
    max: usize,
) -> Result<(usize, Vec<Fit>)> {
    let filter = Filter::default();
    let mut sums: Vec<Sums> = (0..2 + nets.len()).map(|_| Sums::default()).collect();
    let mut n = 0usize;
    let mut progress = Progress::stderr(progress::LOG_SECS);
    let start = Instant::now();
    'files: for (k, path) in data.iter().enumerate() {
        let bytes = std::fs::read(path).with_context(|| path.clone())?;
        for game in GameReader::new(&bytes) {
            let Ok(game) = game else { break };
            for s in game.samples().filter(|s| filter.keep(s)) {
                let score = s.stm_score() as f64;
                let target = wdl * s.stm_result() as f64 + (1.0 - wdl) * sigmoid(score / 400.0);
                sums[0].add(material(&s.pos) as f64, score, target);
                sums[1].add(brudno::eval::evaluate(&s.pos) as f64, score, target);
                for (i, net) in nets.iter().enumerate() {
                    sums[i + 2].add(net.evaluate_from_scratch(&s.pos) as f64, score, target);
                }
                n += 1;
                if n >= max {
                    break 'files;
                }
                if n.is_multiple_of(1024) && progress.due() {
                    progress.show(&format!(
                        "eval-loss: file {}/{}, {} positions, {}/s",
                        k + 1,
                        data.len(),
                        progress::count(n as f64),
                        progress::rate(n as f64, start.elapsed().as_secs_f64())
                    ));
                }
            }
        }
    }
    Ok((n, sums.iter().map(|s| s.fit(n)).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use brudno::datagen::{GamePlayer, Settings};
    use brudno::util::Rng;

    fn parse(line: &str) -> cli::Result<Parsed<Options>> {
        Options::from_args(&cli::words(line))
    }

    #[test]
    fn the_command_line() {
        assert_eq!(
            parse("--data a.vf b.vf --net n1.nnue --wdl 0 --net n2.nnue --max-positions 5"),
            Ok(Parsed::Run(Options {
                data: vec!["a.vf".into(), "b.vf".into()],
                nets: vec!["n1.nnue".into(), "n2.nnue".into()],
                wdl: 0.0,
                max_positions: Some(5),
            }))
        );
        let d = parse("--data a.vf").unwrap().run().unwrap();
        assert_eq!((d.wdl, d.max_positions), (Options::default().wdl, None));
        assert!(usage().contains(&format!("[{}]", Options::default().wdl)));
        assert_eq!(parse("--data a.vf -h"), Ok(Parsed::Help));
        for (line, says) in [
            ("", "--data is required"),
            ("--data a.vf --wdl 1.5", "--wdl 1.5: out of range (0 to 1)"),
            ("--data a.vf --wdl", "--wdl needs a value"),
            (
                "--data a.vf --max-positions lots",
                "--max-positions lots: not a whole number",
            ),
            ("--data a.vf --nets n", "unknown option --nets"),
            ("--data a.vf --wdl 0 b.vf", "unexpected argument \"b.vf\""),
        ] {
            let e = parse(line).expect_err(line).0;
            assert!(e.contains(says), "{line}: {e}");
        }
    }

    #[test]
    fn a_zero_network_predicts_one_half_and_the_hce_does_better() {
        brudno::chess::attacks::init();
        brudno::endgame::kpk::init();
        let settings = Settings {
            nodes: 200,
            ..Settings::default()
        };
        let mut player = GamePlayer::new(&settings, None, brudno::eval::EvalChoice::Hce);
        let mut bytes = Vec::new();
        for g in 0..4 {
            player
                .play(&mut Rng::new(g), &[])
                .unwrap()
                .encode(&mut bytes);
        }
        let path = std::env::temp_dir().join(format!("brudno-eval-loss-{}.vf", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let data = vec![path.display().to_string()];
        let zero = Network::zeroed();
        let (n, fits) = losses(&data, &[&zero], 0.0, usize::MAX).unwrap();
        assert!(n > 20, "{n} positions");
        let l: Vec<f64> = fits.iter().map(|f| f.loss).collect();
        // The hand-crafted evaluation ranks positions much as the searches built on it did.
        assert!(fits[1].correlation > 0.5, "{fits:?}");
        // The zero network's prediction is 0.5: its loss is the targets' spread around 1/2.
        assert!(l[2] > 0.0 && l[2] < 0.25, "{l:?}");
        // The searches' scores come from the hand-crafted evaluation: it predicts them better
        // than material alone, which still beats a constant one half.
        assert!(l[1] < l[0] && l[0] < l[2], "{l:?}");
        std::fs::remove_file(&path).unwrap();
    }
}
