//! `brudno-tools eval-loss`: how well an evaluation predicts the training targets, on the
//! same filtered positions the trainer uses — the hand-crafted evaluation as the baseline a
//! network must beat, and any network files given. The loss is the trainer's: mean of
//! (sigmoid(eval / 400) − target)², target = wdl · result + (1 − wdl) · sigmoid(score / 400).

use anyhow::{bail, Context, Result};
use brudno::datagen::format::{Filter, GameReader};
use brudno::eval::nnue::Network;

const USAGE: &str = "\
usage: brudno-tools eval-loss --data FILE.vf... [--net FILE.nnue]... [--wdl 0.3] [--max-positions N]";

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

pub fn command(args: &[String]) -> Result<()> {
    let (mut data, mut nets, mut wdl, mut max) = (Vec::new(), Vec::new(), 0.3f64, usize::MAX);
    let mut it = args.iter();
    let mut list: Option<&str> = None;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--data" | "--net" => list = Some(a.as_str()),
            "--wdl" => wdl = it.next().context(USAGE)?.parse().context("--wdl")?,
            "--max-positions" => {
                max = it
                    .next()
                    .context(USAGE)?
                    .parse()
                    .context("--max-positions")?
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            path => match list {
                Some("--data") => data.push(path.to_string()),
                Some("--net") => nets.push(path.to_string()),
                _ => bail!("{USAGE}"),
            },
        }
    }
    if data.is_empty() {
        bail!("{USAGE}");
    }
    brudno::chess::attacks::init();
    brudno::endgame::kpk::init();
    let nets: Vec<(String, Box<Network>)> = nets
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
    let (n, fits) = losses(&data, &networks, wdl, max)?;
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
    'files: for path in data {
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
