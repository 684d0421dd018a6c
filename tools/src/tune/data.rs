//! The tuner's data: labelled positions read from EPD and PGN files, each traced into the
//! sparse counts of the weights it uses, and the split into training and held-out positions.

use crate::pgn::{PgnError, PgnReader};
use crate::progress::Reading;
use anyhow::{bail, Context, Result};
use brudno::chess::{Color, Position};
use brudno::eval::hce::params::NUM_WEIGHTS;
use brudno::eval::hce::terms::{evaluate_traced, MAX_PHASE, SCALE_NORMAL};
use brudno::eval::hce::trace::Trace;
use brudno::util::Rng;
use std::io::BufRead;

/// One weight's count in one position (white's count minus black's).
#[derive(Clone, Copy)]
pub(super) struct Feature {
    pub(super) index: u16,
    pub(super) count: i16,
}

/// A traced position: its features are `features[start..start + len]`.
#[derive(Clone, Copy)]
pub(super) struct Sample {
    pub(super) start: u32,
    pub(super) len: u32,
    /// What a middlegame and an endgame weight count for here.
    pub(super) mg: f32,
    pub(super) eg: f32,
    pub(super) result: f32,
    /// The real evaluation with the weights it was traced with (white's view).
    pub(super) eval: i32,
}

pub(super) struct Set {
    pub(super) samples: Vec<Sample>,
    pub(super) features: Vec<Feature>,
}

/// Collects net counts per weight.
pub(super) struct CoeffTrace {
    pub(super) counts: Vec<i32>,
    pub(super) touched: Vec<usize>,
}

impl Trace for CoeffTrace {
    const ACTIVE: bool = true;
    fn add(&mut self, c: Color, index: usize, count: i32) {
        if self.counts[index] == 0 && !self.touched.contains(&index) {
            self.touched.push(index);
        }
        self.counts[index] += match c {
            Color::White => count,
            Color::Black => -count,
        };
    }
}

pub(super) fn parse_result(line: &str) -> Option<f32> {
    let c9 = &line[line.find("c9")?..];
    if c9.contains("1/2-1/2") {
        Some(0.5)
    } else if c9.contains("1-0") {
        Some(1.0)
    } else if c9.contains("0-1") {
        Some(0.0)
    } else {
        None
    }
}

/// A position to fit, with its game's result (White's score: 0, ½ or 1).
#[derive(Clone, Copy)]
pub(super) struct Labelled {
    pub(super) pos: Position,
    pub(super) result: f32,
}

/// An EPD line `FEN c9 "1-0";` (the first four FEN fields; the clocks do not matter here).
pub(super) fn parse_epd(line: &str) -> Option<Labelled> {
    let fen: Vec<&str> = line.split_ascii_whitespace().take(4).collect();
    Some(Labelled {
        pos: Position::from_fen(&fen.join(" ")).ok()?,
        result: parse_result(line)?,
    })
}

/// The positions of a labelled EPD file (plain or gzip) and how many lines did not parse; with
/// a limit, only the first `limit` lines that are not blank.
pub(super) fn read_epd(path: &str, limit: Option<usize>) -> Result<(Vec<Labelled>, usize)> {
    if !std::path::Path::new(path).is_file() {
        bail!("no file {path} (give the path with --data / --pgn)");
    }
    let (mut out, mut lines, mut bad) = (Vec::new(), 0, 0);
    let input = crate::input::open_counted(path)?;
    let mut reading = Reading::new("tune", "positions", &[path]);
    reading.file(&input);
    for line in input.reader.lines() {
        reading.tick(out.len());
        let line = line.with_context(|| format!("reading {path}"))?;
        if line.trim().is_empty() {
            continue;
        }
        match parse_epd(&line) {
            Some(l) => out.push(l),
            None => bad += 1,
        }
        lines += 1;
        if limit.is_some_and(|n| lines >= n) {
            break;
        }
    }
    if out.is_empty() {
        bail!("no positions in {path}");
    }
    Ok((out, bad))
}

/// Quiet positions from the games' early plies: not in check, not just after a capture, and
/// the move played next is no capture or promotion. A few per game, picked by a fixed hash of
/// the game's number (among the games that replay and have a result) so runs repeat.
pub(super) fn pgn_positions(
    path: &str,
    plies: (usize, usize),
    per_game: usize,
) -> Result<Vec<Labelled>> {
    if !std::path::Path::new(path).is_file() {
        bail!("no file {path} (give the path with --data / --pgn)");
    }
    let mut out = Vec::new();
    let (mut games, mut bad) = (0u64, 0);
    let input = crate::input::open_counted(path)?;
    let mut reading = Reading::new("tune", "games", &[path]);
    reading.file(&input);
    for game in PgnReader::new(input.reader) {
        reading.tick(games as usize + bad);
        let game = match game {
            Ok(game) => game,
            Err(PgnError::Io(e)) => return Err(e).with_context(|| format!("reading {path}")),
            Err(PgnError::Game { .. }) => {
                bad += 1;
                continue;
            }
        };
        let Some(outcome) = game.outcome else {
            continue;
        };
        games += 1;
        let mut after_capture = false;
        let mut quiet = Vec::new();
        for (ply, (pos, m)) in game.positions().enumerate() {
            // `pos` is the position after `ply` moves; `m` is the move played from it.
            let capture = pos.is_capture(m);
            if (plies.0..plies.1).contains(&ply)
                && !pos.in_check()
                && !after_capture
                && !capture
                && m.promotion_piece().is_none()
            {
                quiet.push(pos);
            }
            after_capture = capture;
        }
        // Which quiet positions of this game: reproducible, different from game to game.
        let mut pick = Rng::derive(0x7e_5a3d, &[games]);
        for _ in 0..per_game.min(quiet.len()) {
            let pos = quiet.swap_remove(pick.below(quiet.len() as u64) as usize);
            out.push(Labelled {
                pos,
                result: outcome.white_score(),
            });
        }
    }
    reading.clear();
    println!(
        "{} positions from {games} games of {path} ({bad} games skipped)",
        out.len()
    );
    Ok(out)
}

/// Traces every position into a sample.
pub(super) fn trace_positions(positions: &[Labelled]) -> Set {
    let mut set = Set {
        samples: Vec::with_capacity(positions.len()),
        features: Vec::with_capacity(positions.len() * 100),
    };
    let mut trace = CoeffTrace {
        counts: vec![0; NUM_WEIGHTS],
        touched: Vec::with_capacity(256),
    };
    for &Labelled { pos, result } in positions {
        let b = evaluate_traced(&pos, None, &mut trace);
        let start = set.features.len() as u32;
        for &i in &trace.touched {
            let n = trace.counts[i];
            if n != 0 {
                set.features.push(Feature {
                    index: i as u16,
                    count: n.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                });
            }
            trace.counts[i] = 0;
        }
        trace.touched.clear();
        let phase = b.phase as f32 / MAX_PHASE as f32;
        let scale = b.scale as f32 / SCALE_NORMAL as f32;
        set.samples.push(Sample {
            start,
            len: set.features.len() as u32 - start,
            mg: phase * scale,
            eg: (1.0 - phase) * scale,
            result,
            eval: b.white,
        });
    }
    set
}

/// Splits off whole blocks of consecutive positions (positions of one game tend to be
/// neighbours), so that the held-out part is mostly unseen games.
pub(super) fn split<T>(items: Vec<T>, holdout_percent: usize) -> (Vec<T>, Vec<T>) {
    const BLOCK: usize = 500;
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, item) in items.into_iter().enumerate() {
        if (i / BLOCK) * 7 % 100 < holdout_percent {
            test.push(item);
        } else {
            train.push(item);
        }
    }
    (train, test)
}

pub(super) fn trace_parallel(positions: &[Labelled], threads: usize) -> Set {
    let chunk = positions.len().div_ceil(threads).max(1);
    let parts: Vec<Set> = std::thread::scope(|scope| {
        let handles: Vec<_> = positions
            .chunks(chunk)
            .map(|part| scope.spawn(move || trace_positions(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let mut set = Set {
        samples: Vec::new(),
        features: Vec::new(),
    };
    for part in parts {
        let offset = set.features.len() as u32;
        set.samples.extend(part.samples.iter().map(|s| Sample {
            start: s.start + offset,
            ..*s
        }));
        set.features.extend_from_slice(&part.features);
    }
    set
}
