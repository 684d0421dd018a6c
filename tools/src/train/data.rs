//! The training data in memory: every position of the datagen games that the filter keeps,
//! as a compact entry (its active inputs from both sides, its score and its result), split
//! by game into a training set and a held-out validation set.
//!
//! The games are read with `brudno::datagen::format` and the inputs come from
//! `brudno::eval::nnue::features`, so the trainer sees exactly the positions and the input
//! order the engine sees. An entry is 132 bytes (two lists of ≤ 32 `u16` inputs): about 6.6 GB
//! for 50 M positions.
//!
//! A run pins its data: `Source` records how many bytes of each file it read, and a resumed
//! run reads exactly those bytes again, so a data folder that keeps growing (a datagen still
//! running) does not change the run under it.

use anyhow::{bail, Context, Result};
use brudno::chess::Position;
use brudno::datagen::format::{FormatError, GameReader, Sample};
use brudno::eval::nnue::features;
use brudno::util::Rng;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Inputs per perspective at most: one per piece.
pub const MAX_FEATURES: usize = 32;

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Active inputs seen by the side to move; the first `len` are used.
    pub stm: [u16; MAX_FEATURES],
    /// Active inputs seen by the other side (same pieces, so the same count).
    pub ntm: [u16; MAX_FEATURES],
    pub len: u8,
    /// The game's result for the side to move, doubled: 0 loss, 1 draw, 2 win.
    pub result: u8,
    /// The search's score, side to move's view, centipawns.
    pub score: i16,
}

impl Entry {
    pub fn from_sample(s: &Sample) -> Entry {
        let stm = s.pos.side_to_move();
        let mut e = Entry {
            stm: [0; MAX_FEATURES],
            ntm: [0; MAX_FEATURES],
            len: 0,
            result: (s.stm_result() * 2.0).round() as u8,
            score: s.stm_score(),
        };
        for (slot, f) in e.stm.iter_mut().zip(features::active(&s.pos, stm)) {
            *slot = f as u16;
            e.len += 1;
        }
        for (slot, f) in e.ntm.iter_mut().zip(features::active(&s.pos, stm.flip())) {
            *slot = f as u16;
        }
        // A legal position has at most 32 pieces (the format's reader checks it).
        debug_assert_eq!(e.len as u32, s.pos.occupied().0.count_ones());
        e
    }

    pub fn stm_features(&self) -> &[u16] {
        &self.stm[..self.len as usize]
    }

    pub fn ntm_features(&self) -> &[u16] {
        &self.ntm[..self.len as usize]
    }

    /// The same position mirrored a↔h: every input's file reversed (the feature index keeps
    /// the square in its low six bits, the file in the low three). The score and result are
    /// kept: chess is the same mirrored but for castling, which the inputs do not see.
    pub fn mirrored(&self) -> Entry {
        let mut e = *self;
        let n = e.len as usize;
        e.stm[..n].iter_mut().for_each(|f| *f ^= 7);
        e.ntm[..n].iter_mut().for_each(|f| *f ^= 7);
        e
    }

    /// The result for the side to move: 1 win, ½ draw, 0 loss.
    pub fn result(&self) -> f32 {
        self.result as f32 / 2.0
    }
}

/// The training set: one vector per data file, so that loading never holds two copies.
#[derive(Default)]
pub struct Dataset {
    chunks: Vec<Vec<Entry>>,
    /// Index of each chunk's first entry.
    starts: Vec<usize>,
    len: usize,
}

impl Dataset {
    pub fn from_chunks(chunks: Vec<Vec<Entry>>) -> Dataset {
        let mut d = Dataset::default();
        for c in chunks.into_iter().filter(|c| !c.is_empty()) {
            d.starts.push(d.len);
            d.len += c.len();
            d.chunks.push(c);
        }
        d
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, i: usize) -> &Entry {
        let c = self.starts.partition_point(|&s| s <= i) - 1;
        &self.chunks[c][i - self.starts[c]]
    }
}

/// One data file and how many of its bytes the run uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    pub bytes: u64,
}

/// The data files named on the command line: files as given, folders as their `*.vf` files
/// in name order.
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot list {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "vf"))
                .collect();
            inside.sort();
            if inside.is_empty() {
                bail!("{} holds no .vf files", p.display());
            }
            files.extend(inside);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            bail!("no data file or folder {}", p.display());
        }
    }
    Ok(files)
}

/// How to turn games into entries.
#[derive(Clone, Debug)]
pub struct LoadSettings {
    pub filter: brudno::datagen::format::Filter,
    /// Fraction of the games held out for validation (decided per game, by `seed`).
    pub holdout: f64,
    pub seed: u64,
    /// Keep at most this many positions (training and validation), from the files in order.
    pub max_positions: Option<usize>,
    pub threads: usize,
    /// Positions kept as `Position`s for checking the quantised network.
    pub check_positions: usize,
}

pub struct Loaded {
    pub train: Dataset,
    pub valid: Vec<Entry>,
    /// Sample positions (held-out ones first) for the quantisation check.
    pub check: Vec<Position>,
    /// What was read: the run's pinned data.
    pub sources: Vec<Source>,
    pub games: u64,
    /// Positions in the games read, before the filter.
    pub positions: u64,
    /// Problems met (a file corrupt in the middle), to be reported.
    pub warnings: Vec<String>,
}

/// What one file gave.
#[derive(Default)]
struct FileData {
    train: Vec<Entry>,
    valid: Vec<Entry>,
    /// Per game read: held out?, positions kept.
    games: Vec<(bool, u32)>,
    check_valid: Vec<Position>,
    check_train: Vec<Position>,
    used: u64,
    positions: u64,
    warning: Option<String>,
}

/// Whether game `game` of file `file` is held out.
fn held_out(seed: u64, file: usize, game: usize, fraction: f64) -> bool {
    fraction > 0.0 && Rng::derive(seed, &[0x401d, file as u64, game as u64]).next_f64() < fraction
}

fn load_file(index: usize, source: &Source, ls: &LoadSettings) -> Result<FileData> {
    let mut bytes = std::fs::read(&source.path)
        .with_context(|| format!("cannot read {}", source.path.display()))?;
    if (bytes.len() as u64) < source.bytes {
        bail!(
            "{} is {} bytes, shorter than the {} this run was started with",
            source.path.display(),
            bytes.len(),
            source.bytes
        );
    }
    bytes.truncate(source.bytes as usize);
    // Reserve for every ply (4 bytes each); the unused tail is given back below and is never
    // touched, so it costs address space, not memory.
    let mut d = FileData::default();
    let cap = ls.max_positions.unwrap_or(usize::MAX);
    d.train.reserve((bytes.len() / 4).min(cap));
    let mut kept = 0usize;
    let mut reader = GameReader::new(&bytes);
    for (game_index, game) in reader.by_ref().enumerate() {
        let game = match game {
            Ok(g) => g,
            // A file being written ends inside a game: the run uses it up to there.
            Err(FormatError::Truncated) => break,
            Err(e) => {
                d.warning = Some(format!(
                    "{}: {e} after {} games; using the games before it",
                    source.path.display(),
                    game_index
                ));
                break;
            }
        };
        let held = held_out(ls.seed, index, game_index, ls.holdout);
        let mut kept_here = 0u32;
        for s in game.samples() {
            d.positions += 1;
            if !ls.filter.keep(&s) {
                continue;
            }
            kept_here += 1;
            let (set, check) = if held {
                (&mut d.valid, &mut d.check_valid)
            } else {
                (&mut d.train, &mut d.check_train)
            };
            set.push(Entry::from_sample(&s));
            if check.len() < ls.check_positions {
                check.push(s.pos);
            }
        }
        d.games.push((held, kept_here));
        kept += kept_here as usize;
        if kept >= cap {
            break;
        }
    }
    // After a corrupt game the reader's offset is the end of the last good one.
    d.used = reader.offset() as u64;
    d.train.shrink_to_fit();
    d.valid.shrink_to_fit();
    Ok(d)
}

/// Reads the sources (`bytes` = how much of each; `u64::MAX` for all there is now), one file
/// per thread at a time, and assembles them in file order.
pub fn load(sources: &[Source], ls: &LoadSettings) -> Result<Loaded> {
    let mut sources = sources.to_vec();
    for s in sources.iter_mut().filter(|s| s.bytes == u64::MAX) {
        s.bytes = std::fs::metadata(&s.path)
            .with_context(|| format!("cannot read {}", s.path.display()))?
            .len();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<FileData>>>> =
        Mutex::new((0..sources.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..ls.threads.clamp(1, sources.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(source) = sources.get(i) else { break };
                let r = load_file(i, source, ls);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    let mut loaded = Loaded {
        train: Dataset::default(),
        valid: Vec::new(),
        check: Vec::new(),
        sources: Vec::new(),
        games: 0,
        positions: 0,
        warnings: Vec::new(),
    };
    let mut train_chunks = Vec::new();
    let mut check_train = Vec::new();
    let mut budget = ls.max_positions.unwrap_or(usize::MAX);
    for (source, result) in sources.iter().zip(results.into_inner().unwrap()) {
        let mut d = result.expect("every file was loaded")?;
        // --max-positions: the files' positions in order, cut inside the file that reaches it.
        let (mut train_len, mut valid_len) = (0usize, 0usize);
        for &(held, kept) in &d.games {
            let take = (kept as usize).min(budget);
            budget -= take;
            if held {
                valid_len += take;
            } else {
                train_len += take;
            }
        }
        d.train.truncate(train_len);
        d.valid.truncate(valid_len);
        loaded.games += d.games.len() as u64;
        loaded.positions += d.positions;
        loaded.valid.append(&mut d.valid);
        loaded.warnings.extend(d.warning);
        loaded.check.append(&mut d.check_valid);
        check_train.append(&mut d.check_train);
        train_chunks.push(d.train);
        loaded.sources.push(Source {
            path: source.path.clone(),
            bytes: d.used,
        });
    }
    loaded.check.append(&mut check_train);
    loaded.check.truncate(ls.check_positions);
    loaded.train = Dataset::from_chunks(train_chunks);
    Ok(loaded)
}

/// Sources for reading every file as far as it goes now.
pub fn fresh_sources(files: &[PathBuf]) -> Vec<Source> {
    files
        .iter()
        .map(|p| Source {
            path: p.clone(),
            bytes: u64::MAX,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_indexes_across_chunks() {
        let mut e = Entry {
            stm: [0; MAX_FEATURES],
            ntm: [0; MAX_FEATURES],
            len: 0,
            result: 1,
            score: 0,
        };
        let mut chunk = |scores: &[i16]| {
            scores
                .iter()
                .map(|&s| {
                    e.score = s;
                    e
                })
                .collect::<Vec<Entry>>()
        };
        let d = Dataset::from_chunks(vec![chunk(&[0, 1]), chunk(&[]), chunk(&[2, 3, 4])]);
        assert_eq!(d.len(), 5);
        let scores: Vec<i16> = (0..5).map(|i| d.get(i).score).collect();
        assert_eq!(scores, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn an_entry_holds_both_perspectives() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 30").unwrap();
        let m = pos.parse_uci_move("e8d7").unwrap();
        let s = Sample {
            pos,
            best: m,
            score: 150,
            outcome: brudno::chess::Outcome::WhiteWins,
        };
        let e = Entry::from_sample(&s);
        assert_eq!(e.len, 3);
        assert_eq!((e.score, e.result), (-150, 0));
        let mut stm: Vec<u16> = e.stm_features().to_vec();
        let mut ntm: Vec<u16> = e.ntm_features().to_vec();
        stm.sort();
        ntm.sort();
        let side = |c| {
            let mut v: Vec<u16> = features::active(&pos, c).map(|f| f as u16).collect();
            v.sort();
            v
        };
        assert_eq!(stm, side(brudno::chess::Color::Black));
        assert_eq!(ntm, side(brudno::chess::Color::White));
    }

    #[test]
    fn a_mirrored_entry_is_the_mirrored_position() {
        brudno::chess::attacks::init();
        let fen = "r1bqk2r/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQkq - 2 8";
        let mirror = "r2kqb1r/pppb2pp/2np1n2/4p3/4PP2/2N2N2/PPPB2PP/R1BKQ2R w - - 2 8";
        let entry = |fen: &str| {
            let pos = Position::from_fen(fen).unwrap();
            let mut e = Entry::from_sample(&Sample {
                pos,
                best: brudno::chess::Move::NULL,
                score: 40,
                outcome: brudno::chess::Outcome::Draw,
            });
            e.stm[..e.len as usize].sort();
            e.ntm[..e.len as usize].sort();
            e
        };
        let mut m = entry(fen).mirrored();
        m.stm[..m.len as usize].sort();
        m.ntm[..m.len as usize].sort();
        assert_eq!(m, entry(mirror));
        assert_ne!(m, entry(fen));
    }
}
