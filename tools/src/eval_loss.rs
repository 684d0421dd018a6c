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
    let (n, losses) = losses(&data, &networks, wdl, max)?;
    println!("{n} positions, wdl {wdl}");
    println!("hand-crafted evaluation: loss {:.6}", losses[0]);
    for (i, (name, _)) in nets.iter().enumerate() {
        println!("{name}: loss {:.6}", losses[i + 1]);
    }
    Ok(())
}

/// The positions read and the mean loss of the hand-crafted evaluation, then of each network.
pub fn losses(
    data: &[String],
    nets: &[&Network],
    wdl: f64,
    max: usize,
) -> Result<(usize, Vec<f64>)> {
    let filter = Filter::default();
    let mut sums = vec![0.0f64; 1 + nets.len()];
    let mut n = 0usize;
    'files: for path in data {
        let bytes = std::fs::read(path).with_context(|| path.clone())?;
        for game in GameReader::new(&bytes) {
            let Ok(game) = game else { break };
            for s in game.samples().filter(|s| filter.keep(s)) {
                let target = wdl * s.stm_result() as f64
                    + (1.0 - wdl) * sigmoid(s.stm_score() as f64 / 400.0);
                let hce = brudno::eval::evaluate(&s.pos) as f64;
                sums[0] += (sigmoid(hce / 400.0) - target).powi(2);
                for (i, net) in nets.iter().enumerate() {
                    let v = net.evaluate_from_scratch(&s.pos) as f64;
                    sums[i + 1] += (sigmoid(v / 400.0) - target).powi(2);
                }
                n += 1;
                if n >= max {
                    break 'files;
                }
            }
        }
    }
    Ok((n, sums.iter().map(|s| s / n.max(1) as f64).collect()))
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
        let mut player = GamePlayer::new(&settings, None);
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
        let (n, l) = losses(&data, &[&zero], 0.0, usize::MAX).unwrap();
        assert!(n > 20, "{n} positions");
        // The zero network's prediction is 0.5: its loss is the targets' spread around 1/2.
        assert!(l[1] > 0.0 && l[1] < 0.25, "{l:?}");
        // The searches' scores come from the hand-crafted evaluation: it predicts them better.
        assert!(l[0] < l[1], "{l:?}");
        std::fs::remove_file(&path).unwrap();
    }
}
