//! The training data in memory: every position of the datagen games that the filter keeps,
//! packed in 32 bytes (`packed.rs`; the inputs are computed when a batch is built), split by
//! game into a training set and a held-out validation set.
//!
//! The games are read with `brudno::datagen::format`, streamed game by game from each file
//! (a file is never held in memory beside its positions), so the trainer sees exactly the
//! positions the engine's data holds.
//!
//! Holdout: a game is held out when a hash of its bytes says so (`held_out`), whatever file it
//! is in, wherever in the file, whatever else is loaded: adding a data folder never moves a
//! game between the training and the validation set, and two copies of a game go together.
//!
//! A run pins its data: `Source` records how many bytes of each file it read, and a resumed
//! run reads exactly those bytes again, so a data folder that keeps growing (a datagen still
//! running) does not change the run under it.

use super::packed::Packed;
use anyhow::{bail, Context, Result};
use brudno::chess::Position;
use brudno::datagen::format::{FormatError, GameRecord, BOARD_BYTES, PLY_BYTES};
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The training set: one vector per data file, so that loading never holds two copies.
#[derive(Default)]
pub struct Dataset {
    chunks: Vec<Vec<Packed>>,
    /// Index of each chunk's first entry.
    starts: Vec<usize>,
    len: usize,
}

impl Dataset {
    pub fn from_chunks(chunks: Vec<Vec<Packed>>) -> Dataset {
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
    pub fn get(&self, i: usize) -> &Packed {
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
    /// Fraction of the games held out for validation (decided per game by `held_out`).
    pub holdout: f64,
    /// Keep at most this many positions (training and validation), from the files in order.
    pub max_positions: Option<usize>,
    pub threads: usize,
    /// Positions kept as `Position`s for checking the quantised network.
    pub check_positions: usize,
}

pub struct Loaded {
    pub train: Dataset,
    pub valid: Vec<Packed>,
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
    train: Vec<Packed>,
    valid: Vec<Packed>,
    /// Per game read: held out?, positions kept.
    games: Vec<(bool, u32)>,
    check_valid: Vec<Position>,
    check_train: Vec<Position>,
    used: u64,
    positions: u64,
    warning: Option<String>,
}

/// Whether the game whose bytes (as the file holds them) are `game` is held out: the same
/// answer for the same game in any file and any run, so adding data never moves a game. The
/// bytes include the start position, the result and every move and score, so two different
/// games practically never collide, and duplicates of one game go to the same side.
pub fn held_out(game: &[u8], fraction: f64) -> bool {
    let h = game.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    // FNV's high bits mix poorly for short inputs: one SplitMix64 step spreads them.
    let h = brudno::util::Rng::new(h).next_u64();
    fraction > 0.0 && ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// Reads a data file game by game, holding one game's bytes at a time.
pub struct GameStream<R: Read> {
    reader: R,
    buf: Vec<u8>,
    /// Bytes of the whole games read so far.
    used: u64,
}

/// Fills `buf` from `r`; false when the data ends first (whatever part was read).
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut at = 0;
    while at < buf.len() {
        match r.read(&mut buf[at..]) {
            Ok(0) => return Ok(false),
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

impl<R: Read> GameStream<R> {
    pub fn new(reader: R) -> GameStream<R> {
        GameStream {
            reader,
            buf: Vec::with_capacity(4096),
            used: 0,
        }
    }

    /// Bytes of the whole games read so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The next game's bytes; `Ok(None)` at the end of the data, `Truncated` when it ends
    /// inside a game.
    pub fn next_bytes(&mut self) -> Result<Option<&[u8]>, FormatError> {
        let io = |e: std::io::Error| FormatError::BadBoard(format!("read error: {e}"));
        self.buf.clear();
        self.buf.resize(BOARD_BYTES, 0);
        let mut first = [0u8; 1];
        if !fill(&mut self.reader, &mut first).map_err(io)? {
            return Ok(None);
        }
        self.buf[0] = first[0];
        if !fill(&mut self.reader, &mut self.buf[1..]).map_err(io)? {
            return Err(FormatError::Truncated);
        }
        loop {
            let mut ply = [0u8; PLY_BYTES];
            if !fill(&mut self.reader, &mut ply).map_err(io)? {
                return Err(FormatError::Truncated);
            }
            self.buf.extend_from_slice(&ply);
            if ply[0] == 0 && ply[1] == 0 {
                break;
            }
        }
        self.used += self.buf.len() as u64;
        Ok(Some(&self.buf))
    }

    /// The next game, with whether it is held out for `fraction`.
    pub fn next_game(&mut self, fraction: f64) -> Option<Result<(GameRecord, bool), FormatError>> {
        let bytes = match self.next_bytes() {
            Ok(Some(b)) => b,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        let held = held_out(bytes, fraction);
        Some(GameRecord::decode(bytes).map(|(g, _)| (g, held)))
    }
}

fn load_file(source: &Source, ls: &LoadSettings) -> Result<FileData> {
    let file = std::fs::File::open(&source.path)
        .with_context(|| format!("cannot read {}", source.path.display()))?;
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", source.path.display()))?
        .len();
    if len < source.bytes {
        bail!(
            "{} is {len} bytes, shorter than the {} this run was started with",
            source.path.display(),
            source.bytes
        );
    }
    // Reserve for every ply (4 bytes each); the unused tail is given back below and is never
    // touched, so it costs address space, not memory.
    let mut d = FileData::default();
    let cap = ls.max_positions.unwrap_or(usize::MAX);
    d.train
        .reserve((source.bytes as usize / PLY_BYTES).min(cap));
    let mut kept = 0usize;
    let reader = std::io::BufReader::with_capacity(1 << 20, file.take(source.bytes));
    let mut stream = GameStream::new(reader);
    let (mut game_index, mut good_bytes) = (0, 0);
    while let Some(game) = stream.next_game(ls.holdout) {
        let (game, held) = match game {
            Ok(g) => g,
            // A file being written ends inside a game: the run uses it up to there.
            Err(FormatError::Truncated) => break,
            Err(e) => {
                d.warning = Some(format!(
                    "{}: {e} after {game_index} games; using the games before it",
                    source.path.display(),
                ));
                break;
            }
        };
        game_index += 1;
        good_bytes = stream.used();
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
            set.push(Packed::from_sample(&s));
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
    // The end of the last good game: a cut or corrupt one after it is not the run's data.
    d.used = good_bytes;
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
                let r = load_file(source, ls);
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
    use crate::train::testdata::random_games;

    #[test]
    fn dataset_indexes_across_chunks() {
        let pos = brudno::chess::Position::from_fen(brudno::chess::START_FEN).unwrap();
        let chunk = |scores: &[i16]| {
            scores
                .iter()
                .map(|&s| Packed::from_position(&pos, s, 1))
                .collect::<Vec<Packed>>()
        };
        let d = Dataset::from_chunks(vec![chunk(&[0, 1]), chunk(&[]), chunk(&[2, 3, 4])]);
        assert_eq!(d.len(), 5);
        let scores: Vec<i16> = (0..5).map(|i| d.get(i).score).collect();
        assert_eq!(scores, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_stream_reads_every_game_and_stops_at_a_cut_one() {
        let bytes = random_games(20, 3);
        let all: Vec<GameRecord> = brudno::datagen::format::GameReader::new(&bytes)
            .map(Result::unwrap)
            .collect();
        assert_eq!(all.len(), 20);
        // Through a reader that returns a few bytes at a time, as a pipe may.
        struct Dribble<'a>(&'a [u8]);
        impl Read for Dribble<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(7);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut stream = GameStream::new(Dribble(&bytes));
        let mut read = Vec::new();
        while let Some(g) = stream.next_game(0.0) {
            read.push(g.unwrap().0);
        }
        assert_eq!(read, all);
        assert_eq!(stream.used(), bytes.len() as u64);
        let cut = &bytes[..bytes.len() - 6];
        let mut stream = GameStream::new(cut);
        let mut whole = 0;
        let end = loop {
            match stream.next_game(0.0) {
                Some(Ok(_)) => whole += 1,
                other => break other,
            }
        };
        assert_eq!(whole, 19);
        assert!(matches!(end, Some(Err(FormatError::Truncated))), "{end:?}");
        assert_eq!(
            stream.used() as usize,
            brudno::datagen::format::whole_games(cut).1
        );
    }

    #[test]
    fn holdout_is_a_property_of_the_game_alone() {
        let bytes = random_games(200, 11);
        let mut stream = GameStream::new(&bytes[..]);
        let mut held = 0;
        while let Some(b) = stream.next_bytes().unwrap() {
            let b = b.to_vec();
            assert_eq!(held_out(&b, 0.25), held_out(&b, 0.25));
            assert!(!held_out(&b, 0.0));
            // A larger fraction only adds games.
            assert!(!held_out(&b, 0.25) || held_out(&b, 0.5));
            held += held_out(&b, 0.25) as usize;
        }
        assert!((25..=75).contains(&held), "{held} of 200 held out at 25%");
    }
}
