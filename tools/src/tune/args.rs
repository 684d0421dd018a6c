//! `tune`'s command line: the options, their checks and the help text (whose defaults are read
//! from `Options::default()`, so the two cannot disagree).

use crate::cli::{self, unknown, Args, Parsed};
use crate::usage_error;
use brudno::eval::hce::params::GROUPS;

/// What a tuning run does.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub data: String,
    pub pgn: Option<String>,
    /// Plies from `.0` up to (not including) `.1`.
    pub pgn_plies: (usize, usize),
    pub pgn_per_game: usize,
    pub out: String,
    pub epochs: usize,
    pub lr: f64,
    pub threads: usize,
    /// Percent.
    pub holdout: usize,
    pub limit: Option<usize>,
    pub k: Option<f64>,
    pub l2: f64,
    pub smooth: f64,
    pub hold_material: bool,
    pub only: Option<Vec<String>>,
    pub from_seed: bool,
    pub write_seed: bool,
    pub check: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            data: "../shared/data/texel/tcec-quiet-labeled.epd.gz".into(),
            pgn: None,
            pgn_plies: (4, 16),
            pgn_per_game: 2,
            out: "src/eval/hce/weights.rs".into(),
            epochs: 3000,
            lr: 1.0,
            threads: 2,
            holdout: 10,
            limit: None,
            k: None,
            l2: 0.0,
            smooth: 0.0,
            hold_material: false,
            only: None,
            from_seed: false,
            write_seed: false,
            check: false,
        }
    }
}

/// `tune --help`, with the defaults.
pub fn usage() -> String {
    let d = Options::default();
    format!(
        "\
Usage: brudno-tools tune [OPTIONS]

Texel tuning: fits the hand-crafted evaluation's weights to game results by full-batch Adam
and rewrites the weights file. Progress goes to stderr: one line redrawn every second on a
terminal, a line every half minute otherwise. Exit codes: 0 done, 1 failure, 2 a bad command
line.

Options (default in brackets):
  --data PATH        labelled EPD lines `FEN c9 \"1-0\";`, plain or gzip
                     [{data}]
  --pgn PATH         also take early positions from these games (plain or gzip), labelled
                     with the game result; the EPD set starts at ply 16, so this covers the
                     opening [none]
  --pgn-plies A-B    plies (moves played) the PGN positions are taken from, A to below B
                     [{ply_a}-{ply_b}]
  --pgn-per-game N   positions taken per game, at random among the quiet ones [{per_game}]
  --out PATH         where to write the weights [{out}]
  --epochs N         full-batch Adam steps [{epochs}]
  --lr X             Adam step size in centipawns, decaying to a tenth [{lr}]
  --threads N        worker threads [{threads}]
  --holdout P        percent of the data held out for validation, below 100 [{holdout}]
  --limit N          use only the first N positions of --data [all]
  --k X              use this K instead of fitting it [fitted]
  --smooth X         adds X times the squared second differences along ordered tables
                     (mobility, pawn ranks, passed-pawn ranks and distances, storm) to the
                     loss [{smooth}]
  --hold-material    keep the middlegame piece values where they start: material, and the
                     average of each piece-square and mobility table (which act as material
                     too)
  --l2 X             weight decay: adds X times the sum of squared weights (material
                     excepted) to the loss [{l2}]
  --from-seed        start from the hand-set seed weights instead of the current ones
  --only G1,G2,...   tune only these weight groups (names as in params.rs) and set all others
                     to zero: `--only MATERIAL,PST` makes the material+PST baseline evaluation
  --write-seed       only write the seed weights to --out
  --check            only report K and the losses of the current weights
  -h, --help         this text",
        data = d.data,
        ply_a = d.pgn_plies.0,
        ply_b = d.pgn_plies.1,
        per_game = d.pgn_per_game,
        out = d.out,
        epochs = d.epochs,
        lr = d.lr,
        threads = d.threads,
        holdout = d.holdout,
        smooth = d.smooth,
        l2 = d.l2,
    )
}

/// Reads the options after `tune`.
pub fn parse_args(args: &[String]) -> cli::Result<Parsed<Options>> {
    let mut o = Options::default();
    let parsed = Args::new(args).each_option(|n, a| {
        match n {
            "data" => o.data = a.text(n)?,
            "out" => o.out = a.text(n)?,
            "pgn" => o.pgn = Some(a.text(n)?),
            "pgn-plies" => {
                let v = a.text(n)?;
                let plies = v
                    .split_once('-')
                    .and_then(|(lo, hi)| Some((lo.parse().ok()?, hi.parse().ok()?)));
                o.pgn_plies = match plies {
                    Some((lo, hi)) if lo < hi => (lo, hi),
                    Some(_) => return usage_error!("--pgn-plies {v}: A must be below B"),
                    None => return usage_error!("--pgn-plies {v}: not A-B (whole numbers)"),
                };
            }
            "pgn-per-game" => o.pgn_per_game = a.number_in(n, 1, 1000)?,
            "epochs" => o.epochs = a.number(n)?,
            "lr" => o.lr = a.number(n)?,
            "threads" => o.threads = a.number_in(n, 1, 256)?,
            "holdout" => o.holdout = a.number_in(n, 0, 99)?,
            "limit" => o.limit = Some(a.number_in(n, 1, usize::MAX)?),
            "k" => o.k = Some(a.number(n)?),
            "l2" => o.l2 = a.number(n)?,
            "smooth" => o.smooth = a.number(n)?,
            "hold-material" => o.hold_material = true,
            "only" => {
                let names: Vec<String> = a.text(n)?.split(',').map(|s| s.trim().into()).collect();
                let known = |name: &String| GROUPS.iter().any(|g| g.name == name);
                if let Some(bad) = names.iter().find(|&name| !known(name)) {
                    let groups: Vec<&str> = GROUPS.iter().map(|g| g.name).collect();
                    return usage_error!(
                        "--only: no weight group {bad:?} (the groups: {})",
                        groups.join(",")
                    );
                }
                o.only = Some(names);
            }
            "from-seed" => o.from_seed = true,
            "write-seed" => o.write_seed = true,
            "check" => o.check = true,
            _ => return Err(unknown(n)),
        }
        Ok(())
    })?;
    if parsed == Parsed::Help {
        return Ok(Parsed::Help);
    }
    if o.lr <= 0.0 {
        return usage_error!("--lr {}: must be positive", o.lr);
    }
    if o.k.is_some_and(|k| k <= 0.0) {
        return usage_error!("--k {}: must be positive", o.k.unwrap_or_default());
    }
    if o.l2 < 0.0 || o.smooth < 0.0 {
        return usage_error!("--l2 and --smooth must not be negative");
    }
    Ok(Parsed::Run(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> cli::Result<Parsed<Options>> {
        parse_args(&cli::words(line))
    }

    #[test]
    fn options_are_read() {
        let o = parse(
            "--data d.epd --pgn g.pgn.gz --pgn-plies 2-10 --epochs 5 --smooth 1e-9 \
             --hold-material --only MATERIAL,PST --k 1.1 --threads=1",
        )
        .unwrap()
        .run()
        .unwrap();
        let expected = Options {
            data: "d.epd".into(),
            pgn: Some("g.pgn.gz".into()),
            pgn_plies: (2, 10),
            epochs: 5,
            smooth: 1e-9,
            hold_material: true,
            only: Some(vec!["MATERIAL".into(), "PST".into()]),
            k: Some(1.1),
            threads: 1,
            ..Options::default()
        };
        assert_eq!(o, expected);
        assert_eq!(parse(""), Ok(Parsed::Run(Options::default())));
        assert_eq!(parse("--epochs 5 --help"), Ok(Parsed::Help));
        assert_eq!(parse("-h"), Ok(Parsed::Help));
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        for (line, says) in [
            ("--epochs", "--epochs needs a value"),
            ("--epochs many", "--epochs many: not a whole number"),
            ("--lr -1", "--lr -1: must be positive"),
            ("--threads 0", "--threads 0: out of range (1 to 256)"),
            ("--holdout 100", "--holdout 100: out of range (0 to 99)"),
            ("--pgn-plies 4", "--pgn-plies 4: not A-B"),
            ("--pgn-plies 16-4", "--pgn-plies 16-4: A must be below B"),
            ("--only MATERIAL,NOPE", "--only: no weight group \"NOPE\""),
            ("--bogus", "unknown option --bogus"),
            ("stray", "unexpected argument \"stray\""),
        ] {
            let e = parse(line).expect_err(line).0;
            assert!(e.contains(says), "{line}: {e}");
        }
    }

    #[test]
    fn the_help_shows_the_defaults() {
        let h = usage();
        let d = Options::default();
        assert!(h.contains(&format!("[{}]", d.data)), "{h}");
        assert!(h.contains(&format!(
            "--epochs N         full-batch Adam steps [{}]",
            d.epochs
        )));
        assert!(h.contains(&format!("[{}-{}]", d.pgn_plies.0, d.pgn_plies.1)));
    }
}
