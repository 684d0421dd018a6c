//! `brudno datagen`'s command line: the options, their checks and the help text (whose
//! defaults are read from `Settings::default()`, so the two cannot disagree).

use super::Settings;
use std::path::PathBuf;

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    Run(Settings),
    /// Check the finished files of a folder against its manifest.
    Verify(PathBuf),
    Help,
}

/// The help text, with the defaults.
pub fn help() -> String {
    let d = Settings::default();
    format!(
        "\
Usage: brudno datagen [OPTIONS]        self-play training data into a folder
       brudno datagen --verify DIR     check DIR's finished files against manifest.tsv

Each stream (one thread) writes its games into stream-K-NNNNN.vf files; a file that holds
--file-positions positions is closed, never written again, and listed in manifest.tsv
(name, games, positions, bytes, SHA-256, binary and network SHA-256, settings, games, mean
nodes a move). The same command continues a folder after a kill; a folder continues only
with the same data settings (settings.txt). Exit codes: 0 done, 1 failure or a mismatch
found by --verify, 2 a bad command line.

Options (default in brackets):
  --out DIR              the folder [{out}]
  --threads N            streams, one thread each, 1-256 [{threads}]
  --games N              stop after N games in all [run until killed]
  --seed S               stream K's game J depends on (S, K, J) only [{seed}]
  --nodes N              soft node limit a move (the hard limit is 8x) [{nodes}]
  --verify-factor F      the opening's verification search gets F x --nodes [{verify}]
                         (folders made before this option: 10)
  --random-plies N       random plies before recording: N or N+1 [{plies}]
  --openings FILE        EPD/FEN lines to play the random plies from [the start position]
  --chess960 BOOL        random Chess960 starts (true/false) [{c960}]
  --verify-limit CP      an opening scored beyond this is played again [{vlimit}]
  --win-score CP         a score of at least this ... [{wscore}]
  --win-plies N          ... for N plies in a row ends the game [{wplies}]
  --draw-score CP        scores within this ... [{dscore}]
  --draw-plies N         ... for N plies in a row ... [{dplies}]
  --draw-from-ply N      ... from this game ply on end it as a draw [{dfrom}]
  --hash MB              hash table per stream, 1-4096 [{hash}]
  --syzygy PATHS         Syzygy tables for adjudication and the search [none]
  --eval hce|nnue|FILE   the evaluation that plays (nnue: the embedded network) [{eval}]
  --file-positions N     close a stream's file once it holds N positions [{filepos}]
  --progress SECS        seconds between progress lines when stderr is no terminal [{progress}]
  --verify DIR           check every file DIR's manifest.tsv lists (size, SHA-256, games,
                         positions, legality) and exit: 0 all match, 1 a mismatch
  -h, --help             this text

Not part of the data's identity (free to change between runs): --out, --threads, --games,
--file-positions, --progress.",
        out = d.out.display(),
        threads = d.threads,
        seed = d.seed,
        nodes = d.nodes,
        verify = d.verify_factor,
        plies = d.random_plies,
        c960 = d.chess960,
        vlimit = d.verify_limit,
        wscore = d.win_score,
        wplies = d.win_plies,
        dscore = d.draw_score,
        dplies = d.draw_plies,
        dfrom = d.draw_from_ply,
        hash = d.hash_mb,
        eval = d.eval,
        filepos = d.file_positions,
        progress = d.progress_secs,
    )
}

/// Reads the options after `datagen`; the error is a message for the user (exit code 2).
pub fn parse(args: &[String]) -> Result<Command, String> {
    use lexopt::Arg::{Long, Short, Value};
    let mut s = Settings::default();
    let mut verify = None;
    let mut p = lexopt::Parser::from_args(args);
    loop {
        let arg = match p.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(e.to_string()),
        };
        let name = match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Long(name) => name.to_string(),
            Short(c) => return Err(format!("unknown option -{c}")),
            Value(v) => return Err(format!("unexpected argument {v:?}")),
        };
        let value = p
            .value()
            .map_err(|_| format!("--{name} needs a value"))?
            .into_string()
            .map_err(|v| format!("--{name} {v:?}: not text"))?;
        let int = |lo: u64, hi: u64| -> Result<u64, String> {
            match value.parse::<u64>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(n),
                Ok(_) => Err(format!("--{name} {value}: out of range ({lo} to {hi})")),
                Err(_) => Err(format!("--{name} {value}: not a whole number")),
            }
        };
        const BIG: u64 = 1 << 40;
        const CP: u64 = 32_000;
        const PLIES: u64 = 10_000;
        match name.as_str() {
            "out" => s.out = PathBuf::from(&value),
            "threads" => s.threads = int(1, 256)? as usize,
            "games" => s.games = Some(int(0, BIG)?),
            "seed" => s.seed = int(0, u64::MAX)?,
            "nodes" => s.nodes = int(1, BIG)?,
            "verify-factor" => s.verify_factor = int(1, 1000)?,
            "random-plies" => s.random_plies = int(0, 200)? as u32,
            "openings" => s.openings = Some(PathBuf::from(&value)),
            "chess960" => {
                s.chess960 = match value.as_str() {
                    "true" | "1" | "yes" => true,
                    "false" | "0" | "no" => false,
                    _ => return Err(format!("--chess960 {value}: not true or false")),
                }
            }
            "verify-limit" => s.verify_limit = int(0, CP)? as i32,
            "win-score" => s.win_score = int(0, CP)? as i32,
            "win-plies" => s.win_plies = int(1, PLIES)? as u32,
            "draw-score" => s.draw_score = int(0, CP)? as i32,
            "draw-plies" => s.draw_plies = int(1, PLIES)? as u32,
            "draw-from-ply" => s.draw_from_ply = int(0, PLIES)? as u32,
            "hash" => s.hash_mb = int(1, 4096)? as usize,
            "syzygy" => s.syzygy = Some(value),
            "eval" => s.eval = value,
            "file-positions" => s.file_positions = int(1, BIG)?,
            "progress" => s.progress_secs = int(1, 86_400)?,
            "verify" => verify = Some(PathBuf::from(&value)),
            _ => return Err(format!("unknown option --{name}")),
        }
    }
    match verify {
        Some(dir) if args.len() == 2 => Ok(Command::Verify(dir)),
        Some(_) => Err("--verify takes no other option".into()),
        None => Ok(Command::Run(s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_are_read() {
        let Ok(Command::Run(s)) = parse(&args(
            "--out /x --threads 2 --nodes=2500 --seed 1206 --verify-factor 10 --chess960 true \
             --games 6 --file-positions 100 --eval hce",
        )) else {
            panic!("not a run");
        };
        let expected = Settings {
            out: PathBuf::from("/x"),
            threads: 2,
            nodes: 2500,
            seed: 1206,
            verify_factor: 10,
            chess960: true,
            games: Some(6),
            file_positions: 100,
            eval: "hce".into(),
            ..Settings::default()
        };
        assert_eq!(s, expected);
        assert_eq!(parse(&[]), Ok(Command::Run(Settings::default())));
        assert_eq!(parse(&args("--nodes 5 -h")), Ok(Command::Help));
        assert_eq!(
            parse(&args("--verify d")),
            Ok(Command::Verify(PathBuf::from("d")))
        );
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        for (line, says) in [
            ("--nodes", "--nodes needs a value"),
            ("--nodes x", "--nodes x: not a whole number"),
            ("--nodes -5", "--nodes -5: not a whole number"),
            ("--threads 0", "--threads 0: out of range (1 to 256)"),
            ("--chess960 maybe", "not true or false"),
            ("--bogus 1", "unknown option --bogus"),
            ("-x", "unknown option -x"),
            ("stray", "unexpected argument"),
            ("--verify d --nodes 5", "--verify takes no other option"),
        ] {
            let e = parse(&args(line)).expect_err(line);
            assert!(e.contains(says), "{line}: {e}");
        }
    }

    #[test]
    fn the_help_shows_the_defaults() {
        let h = help();
        assert!(h.contains("--nodes N") && h.contains("[5000]"), "{h}");
        assert!(h.contains("--file-positions N") && h.contains("[5000000]"));
    }
}
