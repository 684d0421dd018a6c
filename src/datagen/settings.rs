//! What the data is made with (`Settings`), the part of it that is the data's identity
//! (`settings.txt`), and the evaluation that plays.

use crate::eval::nnue::Network;
use crate::eval::EvalChoice;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the data is made with. Everything but `out`, `threads`, `games`, `file_positions` and
/// `progress_secs` is part of the data's identity: a run continues a folder only with the same
/// values.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub out: PathBuf,
    /// Streams (one thread each).
    pub threads: usize,
    /// Stop after this many games in all (None: run until killed).
    pub games: Option<u64>,
    pub seed: u64,
    /// Soft node limit per move (no new iteration past it); the hard limit is 8×.
    pub nodes: u64,
    /// The opening's verification search gets this many times `nodes`.
    pub verify_factor: u64,
    /// Random plies before recording: this many, or one more (half the games each).
    pub random_plies: u32,
    /// Openings file (EPD/FEN, one position a line) to start the random plies from.
    pub openings: Option<PathBuf>,
    /// Start from random Chess960 positions instead of the standard one.
    pub chess960: bool,
    /// Reject openings whose verification score is beyond this (centipawns).
    pub verify_limit: i32,
    /// A score of at least this for `win_plies` plies in a row ends the game as a win.
    pub win_score: i32,
    pub win_plies: u32,
    /// From game ply `draw_from_ply`, scores within ±`draw_score` for `draw_plies` plies in a
    /// row end it as a draw.
    pub draw_score: i32,
    pub draw_plies: u32,
    pub draw_from_ply: u32,
    pub hash_mb: usize,
    /// Syzygy folders for adjudication (and for probing inside the search).
    pub syzygy: Option<String>,
    /// The evaluation that plays: `hce`, `nnue` (the embedded network) or a network file.
    pub eval: String,
    /// A stream's file is closed (and listed in `manifest.tsv`) once it holds this many
    /// positions, at the end of a game.
    pub file_positions: u64,
    /// Seconds between progress lines when stderr is not a terminal.
    pub progress_secs: u64,
}

/// The verification factor of the folders made before it was a setting: their
/// `settings.txt` has no line for it, and a run with this value continues them.
pub const LEGACY_VERIFY_FACTOR: u64 = 10;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            out: PathBuf::from("data"),
            threads: 1,
            games: None,
            seed: 1,
            nodes: 5_000,
            verify_factor: 2,
            random_plies: 8,
            openings: None,
            chess960: false,
            verify_limit: 1000,
            win_score: 2500,
            win_plies: 4,
            draw_score: 5,
            draw_plies: 12,
            draw_from_ply: 60,
            hash_mb: 16,
            syzygy: None,
            eval: "nnue".into(),
            // About 22 MB at the 4.4 bytes a position that games take.
            file_positions: 5_000_000,
            progress_secs: 60,
        }
    }
}

/// The engine build that made the data (the commit, when it was built from a checkout).
pub fn engine_id() -> String {
    format!(
        "brudno {} ({})",
        env!("CARGO_PKG_VERSION"),
        option_env!("BRUDNO_COMMIT").unwrap_or("unknown commit")
    )
}

impl Settings {
    /// The settings that define the data, one `key value` a line (`settings.txt`); `eval`
    /// is the evaluation's line ([`evaluation`]).
    pub(crate) fn identity(&self, eval: Option<&str>) -> String {
        let mut t = String::new();
        let mut line = |k: &str, v: String| t.push_str(&format!("{k} {v}\n"));
        line("format", "viriformat games (src/datagen/format.rs)".into());
        line("seed", self.seed.to_string());
        line("nodes", self.nodes.to_string());
        line("hard-nodes", (self.nodes * 8).to_string());
        if self.verify_factor != LEGACY_VERIFY_FACTOR {
            line(
                "verify-nodes",
                (self.nodes * self.verify_factor).to_string(),
            );
        }
        line(
            "random-plies",
            format!("{} or {}", self.random_plies, self.random_plies + 1),
        );
        line(
            "openings",
            self.openings
                .as_ref()
                .map_or("-".into(), |p| p.display().to_string()),
        );
        line("chess960", self.chess960.to_string());
        line("verify-limit", self.verify_limit.to_string());
        line(
            "win",
            format!("{} cp for {} plies", self.win_score, self.win_plies),
        );
        line(
            "draw",
            format!(
                "{} cp for {} plies from ply {}",
                self.draw_score, self.draw_plies, self.draw_from_ply
            ),
        );
        line("hash", self.hash_mb.to_string());
        line("syzygy", self.syzygy.clone().unwrap_or_else(|| "-".into()));
        if let Some(eval) = eval {
            line("eval", eval.to_string());
        }
        t
    }
}

/// A file's identity in `settings.txt`: its size and FNV-1a hash (the same net, not the same
/// path, is what makes two runs the same data).
fn checksum(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{} bytes, fnv1a {hash:016x}", bytes.len())
}

/// The evaluation that plays, as `--eval` names it.
pub(crate) struct Evaluation {
    pub choice: EvalChoice,
    /// Its line in `settings.txt` (none for the hand-crafted evaluation, so that folders made
    /// before the setting existed continue).
    pub line: Option<String>,
    /// The network's SHA-256 for the manifest (`-` for the hand-crafted evaluation).
    pub sha256: String,
}

/// The evaluation `--eval` names. A file is read once, as `EvalFile` reads it: a regular file
/// of at most a network's size.
pub(crate) fn evaluation(eval: &str) -> Result<Evaluation> {
    use crate::eval::nnue::network::{embedded, EMBEDDED, MAX_FILE_BYTES};
    Ok(match eval {
        "hce" => Evaluation {
            choice: EvalChoice::Hce,
            line: None,
            sha256: "-".into(),
        },
        "nnue" => Evaluation {
            choice: EvalChoice::Nnue(embedded()),
            line: Some(format!("nnue (embedded, {})", checksum(EMBEDDED))),
            sha256: super::sha256::hex(EMBEDDED),
        },
        path => {
            let refuse = |why: String| anyhow::anyhow!("datagen: --eval {path}: {why}");
            let bytes = crate::util::files::read_bounded(Path::new(path), MAX_FILE_BYTES as u64)
                .map_err(refuse)?;
            let net = Network::from_bytes(&bytes).map_err(|e| refuse(e.to_string()))?;
            Evaluation {
                choice: EvalChoice::Nnue(Arc::from(net)),
                line: Some(format!("{path} ({})", checksum(&bytes))),
                sha256: super::sha256::hex(&bytes),
            }
        }
    })
}

/// Writes `settings.txt` for a new folder, or checks that a continued one matches.
pub(crate) fn check_settings_file(settings: &Settings, eval: Option<&str>) -> Result<()> {
    let path = settings.out.join("settings.txt");
    let ours = settings.identity(eval);
    match std::fs::read_to_string(&path) {
        Ok(theirs) if theirs == ours => Ok(()),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("datagen: cannot read {}", path.display()))
        }
        Ok(theirs) => {
            let legacy = Settings {
                verify_factor: LEGACY_VERIFY_FACTOR,
                ..settings.clone()
            };
            let hint = if legacy.identity(eval) == theirs {
                format!(
                    "\n(this folder was made before --verify-factor existed, with {}: add \
                     --verify-factor {} to continue it)",
                    LEGACY_VERIFY_FACTOR, LEGACY_VERIFY_FACTOR
                )
            } else {
                String::new()
            };
            bail!(
                "datagen: {} holds data made with other settings; use another --out.\n\
                 there:\n{theirs}\nasked:\n{ours}{hint}",
                settings.out.display()
            )
        }
        Err(_) => std::fs::write(&path, ours)
            .with_context(|| format!("datagen: cannot write {}", path.display())),
    }
}
