//! `brudno datagen`: self-play games for training the evaluation network, played in-process
//! (no UCI) by the very search and evaluation being trained, one game per thread at a time.
//!
//! Each game starts from a few random plies (from the start position, a Chess960 start or a
//! line of an openings file); an opening the verification search scores beyond
//! `verify_limit` is thrown away. Every move is a node-limited search (soft limit between
//! iterations, hard limit 8× inside them) whose score is recorded with the move. Games end by
//! the rules or by adjudication (a decisive score held for a few plies, a near-zero score held
//! for many plies late in the game, or a Syzygy table after a capture or pawn move).
//!
//! Output, in a folder: `stream-K.vf` per stream K (`format.rs`: viriformat games), and
//! `settings.txt` with the engine and the settings the data was made with. Stream K's game J
//! is seeded by (seed, K, J) alone and each game starts from a cleared table, so the data is
//! reproducible; a run that is killed leaves every file readable up to its last whole game, and
//! the next run with the same settings cuts the partial game off and continues each stream.

pub mod format;

use crate::chess::game::Game;
use crate::chess::{Color, Outcome, Position};
use crate::eval::nnue::Network;
use crate::eval::EvalChoice;
use crate::search::{Limits, Score, SearchControl, SearchOptions, Searcher};
use crate::tablebase::{Tablebases, Wdl};
use crate::util::Rng;
use anyhow::{bail, Context, Result};
use format::GameRecord;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the data is made with. Everything but `threads`, `games` and `out` is part of the
/// data's identity: a run continues a folder only with the same values.
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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            out: PathBuf::from("data"),
            threads: 1,
            games: None,
            seed: 1,
            nodes: 5_000,
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
    /// Reads `--key value` pairs.
    pub fn from_args(args: &[String]) -> Result<Settings> {
        let mut s = Settings::default();
        let mut it = args.iter();
        while let Some(key) = it.next() {
            let key = key.trim_start_matches('-');
            let value = it
                .next()
                .with_context(|| format!("datagen: --{key} needs a value"))?;
            let number = || -> Result<u64> {
                value
                    .parse()
                    .with_context(|| format!("datagen: --{key} {value}: not a number"))
            };
            match key {
                "out" => s.out = PathBuf::from(value),
                "threads" => s.threads = number()?.clamp(1, 256) as usize,
                "games" => s.games = Some(number()?),
                "seed" => s.seed = number()?,
                "nodes" => s.nodes = number()?.clamp(1, 1 << 40),
                "random-plies" => s.random_plies = number()? as u32,
                "openings" => s.openings = Some(PathBuf::from(value)),
                "chess960" => s.chess960 = matches!(value.as_str(), "true" | "1" | "yes"),
                "verify-limit" => s.verify_limit = number()? as i32,
                "win-score" => s.win_score = number()? as i32,
                "win-plies" => s.win_plies = number()? as u32,
                "draw-score" => s.draw_score = number()? as i32,
                "draw-plies" => s.draw_plies = number()? as u32,
                "draw-from-ply" => s.draw_from_ply = number()? as u32,
                "hash" => s.hash_mb = number()?.clamp(1, 4096) as usize,
                "syzygy" => s.syzygy = Some(value.clone()),
                "eval" => s.eval = value.clone(),
                _ => bail!("datagen: unknown setting --{key}"),
            }
        }
        Ok(s)
    }

    /// The settings that define the data, one `key value` a line (`settings.txt`); `eval`
    /// is the evaluation's line ([`evaluation`]).
    fn identity(&self, eval: Option<&str>) -> String {
        let mut t = String::new();
        let mut line = |k: &str, v: String| t.push_str(&format!("{k} {v}\n"));
        line("format", "viriformat games (src/datagen/format.rs)".into());
        line("seed", self.seed.to_string());
        line("nodes", self.nodes.to_string());
        line("hard-nodes", (self.nodes * 8).to_string());
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

/// The evaluation `--eval` names, and its line in `settings.txt` (none for the hand-crafted
/// evaluation, so that folders made before the setting existed continue). A file is read
/// once, as `EvalFile` reads it: a regular file of at most a network's size.
fn evaluation(eval: &str) -> Result<(EvalChoice, Option<String>)> {
    use crate::eval::nnue::network::{embedded, EMBEDDED, MAX_FILE_BYTES};
    Ok(match eval {
        "hce" => (EvalChoice::Hce, None),
        "nnue" => (
            EvalChoice::Nnue(embedded()),
            Some(format!("nnue (embedded, {})", checksum(EMBEDDED))),
        ),
        path => {
            let refuse = |why: String| anyhow::anyhow!("datagen: --eval {path}: {why}");
            let bytes = crate::util::files::read_bounded(Path::new(path), MAX_FILE_BYTES as u64)
                .map_err(refuse)?;
            let net = Network::from_bytes(&bytes).map_err(|e| refuse(e.to_string()))?;
            (
                EvalChoice::Nnue(Arc::from(net)),
                Some(format!("{path} ({})", checksum(&bytes))),
            )
        }
    })
}

/// Everything a stream needs that is the same for all streams.
struct Shared {
    settings: Settings,
    openings: Vec<Position>,
    tablebases: Option<Arc<Tablebases>>,
    evaluation: EvalChoice,
    games: AtomicU64,
    positions: AtomicU64,
    done: AtomicBool,
}

/// Runs `brudno datagen` to the end (the game target) or until killed.
pub fn run(settings: Settings) -> Result<()> {
    crate::chess::attacks::init();
    crate::endgame::kpk::init();
    // Before anything is written: a bad network file leaves no folder behind.
    let (evaluation, eval_line) = evaluation(&settings.eval)?;
    std::fs::create_dir_all(&settings.out)
        .with_context(|| format!("datagen: cannot create {}", settings.out.display()))?;
    check_settings_file(&settings, eval_line.as_deref())?;
    let openings = match &settings.openings {
        Some(p) => read_openings(p).context("datagen")?,
        None => Vec::new(),
    };
    let tablebases = match &settings.syzygy {
        Some(paths) => Some(Arc::new(
            Tablebases::open(paths).map_err(|e| anyhow::anyhow!("datagen: syzygy: {e}"))?,
        )),
        None => None,
    };
    // Resume: each stream's whole games so far.
    let mut streams = Vec::new();
    for k in 0..settings.threads {
        let path = settings.out.join(format!("stream-{k}.vf"));
        let played = resume_stream(&path)?;
        streams.push((k, path, played));
    }
    let already: u64 = streams.iter().map(|s| s.2).sum();
    log_run(&settings, already)?;
    let shared = Arc::new(Shared {
        settings: settings.clone(),
        openings,
        tablebases,
        evaluation,
        games: AtomicU64::new(already),
        positions: AtomicU64::new(0),
        done: AtomicBool::new(false),
    });
    eprintln!(
        "datagen: {} into {} ({} games there), {} thread(s), {} nodes a move",
        engine_id(),
        settings.out.display(),
        already,
        settings.threads,
        settings.nodes
    );
    let handles: Vec<_> = streams
        .into_iter()
        .map(|(k, path, played)| {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("datagen-{k}"))
                .stack_size(16 << 20)
                .spawn(move || {
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        play_stream(&shared, k as u64, &path, played)
                    }));
                    if !matches!(run, Ok(Ok(()))) {
                        shared.done.store(true, Ordering::Relaxed);
                    }
                    run.unwrap_or_else(|_| Err(anyhow::anyhow!("datagen: stream {k} panicked")))
                })
                .context("datagen: cannot start a thread")
        })
        .collect::<Result<_>>()?;
    let start = Instant::now();
    let mut last_report = Instant::now();
    // A stream that fails (a full disk, say) stops the others.
    while !handles.iter().all(|h| h.is_finished()) && !shared.done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            eprintln!("{}", progress(&shared, start, already));
        }
    }
    for h in handles {
        h.join()
            .map_err(|_| anyhow::anyhow!("datagen: a stream panicked"))??;
    }
    eprintln!("{}", progress(&shared, start, already));
    Ok(())
}

fn progress(shared: &Shared, start: Instant, already: u64) -> String {
    let games = shared.games.load(Ordering::Relaxed);
    let positions = shared.positions.load(Ordering::Relaxed);
    let secs = start.elapsed().as_secs_f64().max(1e-3);
    let rate = positions as f64 / secs;
    let eta = match shared.settings.games {
        Some(target) if games > already && target > games => {
            let per_game = secs / (games - already) as f64;
            let left = (per_game * (target - games) as f64) as u64;
            format!(", ETA {}h{:02}m", left / 3600, left / 60 % 60)
        }
        _ => String::new(),
    };
    format!("datagen: {games} games, {positions} positions this run, {rate:.0} positions/s{eta}")
}

/// Writes `settings.txt` for a new folder, or checks that a continued one matches.
fn check_settings_file(settings: &Settings, eval: Option<&str>) -> Result<()> {
    let path = settings.out.join("settings.txt");
    let ours = settings.identity(eval);
    match std::fs::read_to_string(&path) {
        Ok(theirs) if theirs == ours => Ok(()),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("datagen: cannot read {}", path.display()))
        }
        Ok(theirs) => bail!(
            "datagen: {} holds data made with other settings; use another --out.\n\
             there:\n{theirs}\nasked:\n{ours}",
            settings.out.display()
        ),
        Err(_) => std::fs::write(&path, ours)
            .with_context(|| format!("datagen: cannot write {}", path.display())),
    }
}

/// One line per run in `runs.txt`: which engine continued the data, from how many games.
fn log_run(settings: &Settings, games: u64) -> Result<()> {
    let path = settings.out.join("runs.txt");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("datagen: cannot open {}", path.display()))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    writeln!(
        f,
        "unix {now}: {} continues at {games} games with {} stream(s)",
        engine_id(),
        settings.threads
    )?;
    Ok(())
}

/// Cuts a partial game off the end of a stream file; returns its whole games.
fn resume_stream(path: &Path) -> Result<u64> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => {
            return Err(e).with_context(|| format!("datagen: cannot read {}", path.display()))
        }
    };
    let (games, end) = format::whole_games(&bytes);
    if end < bytes.len() {
        // Only a cut last game is the trace of a kill; anything else is damage, and cutting
        // there would throw good games away.
        if let Err(e) = format::GameRecord::decode(&bytes[end..]) {
            if e != format::FormatError::Truncated {
                bail!(
                    "datagen: {} is damaged at byte {end} ({e}); move it away to continue",
                    path.display()
                );
            }
        }
        eprintln!(
            "datagen: {}: {} bytes after the last whole game cut off",
            path.display(),
            bytes.len() - end
        );
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(end as u64)?;
    }
    Ok(games as u64)
}

/// Openings files (EPD or FEN lines) may be large books, but not endless.
const MAX_OPENINGS_BYTES: u64 = 4 << 30;

fn read_openings(path: &Path) -> Result<Vec<Position>> {
    let bytes = crate::util::files::read_bounded(path, MAX_OPENINGS_BYTES)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // EPD: four fields and operations; FEN: six fields.
        let fields: Vec<&str> = line.split_whitespace().collect();
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields[..6].join(" ")
        } else {
            fields[..fields.len().min(4)].join(" ")
        };
        let pos = Position::from_fen(&fen)
            .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))?;
        out.push(pos);
    }
    if out.is_empty() {
        bail!("{} holds no position", path.display());
    }
    Ok(out)
}

/// OpenBench's `genfens`: `count` openings for data generation on other machines, the same
/// for the same seed, each handed to `emit` as a FEN as soon as it is found. Like datagen's:
/// random plies (8 or 9 from the start position or a random Chess960 start; 2 or 3 on top of
/// a random position of `book`), kept when a verification search scores them within ±1000 cp.
pub fn genfens(
    count: u64,
    seed: u64,
    book: Option<&str>,
    chess960: bool,
    mut emit: impl FnMut(&str),
) -> Result<()> {
    let openings = match book {
        Some(path) => read_openings(Path::new(path))?,
        None => Vec::new(),
    };
    let settings = Settings {
        chess960,
        random_plies: if openings.is_empty() { 8 } else { 2 },
        hash_mb: 8,
        ..Settings::default()
    };
    let mut player = GamePlayer::new(&settings, None, EvalChoice::Hce);
    for i in 0..count {
        let mut rng = Rng::derive(seed, &[i]);
        let game = player.opening(&mut rng, &openings)?;
        emit(&game.position().to_fen());
    }
    Ok(())
}

/// Plays stream `k`'s games from game `next` on, appending each whole game to its file.
fn play_stream(shared: &Shared, k: u64, path: &Path, mut next: u64) -> Result<()> {
    let settings = &shared.settings;
    // `--games` in all: the remainder goes to the first streams.
    let t = settings.threads as u64;
    let per_stream = settings.games.map(|g| g / t + (k < g % t) as u64);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("datagen: cannot open {}", path.display()))?;
    let mut player = GamePlayer::new(
        settings,
        shared.tablebases.clone(),
        shared.evaluation.clone(),
    );
    let mut bytes = Vec::with_capacity(4096);
    while per_stream.is_none_or(|n| next < n) && !shared.done.load(Ordering::Relaxed) {
        let mut rng = Rng::derive(settings.seed, &[k, next]);
        let game = player.play(&mut rng, &shared.openings)?;
        bytes.clear();
        game.encode(&mut bytes);
        // One write per game: a kill leaves at most one partial game, cut off on resume.
        file.write_all(&bytes)?;
        next += 1;
        shared.games.fetch_add(1, Ordering::Relaxed);
        shared
            .positions
            .fetch_add(game.plies.len() as u64, Ordering::Relaxed);
    }
    file.flush()?;
    Ok(())
}

/// Random openings tried before giving up (a book of finished or lost positions).
const MAX_OPENING_TRIES: usize = 10_000;

/// Plays games with one searcher.
pub struct GamePlayer {
    searcher: Searcher,
    options: SearchOptions,
    settings: Settings,
    tablebases: Option<Arc<Tablebases>>,
    control: SearchControl,
}

impl GamePlayer {
    pub fn new(
        settings: &Settings,
        tablebases: Option<Arc<Tablebases>>,
        evaluation: EvalChoice,
    ) -> GamePlayer {
        let options = SearchOptions {
            threads: 1,
            evaluation,
            tablebases: tablebases
                .as_ref()
                .map(|t| crate::search::TablebaseProbing {
                    tables: Arc::clone(t),
                    probe_depth: 1,
                    probe_limit: t.max_pieces(),
                    rule50: true,
                }),
            ..SearchOptions::default()
        };
        GamePlayer {
            searcher: Searcher::new(settings.hash_mb),
            options,
            settings: settings.clone(),
            tablebases,
            control: SearchControl::new(),
        }
    }

    /// A node-limited search: the move and its score, White's view (None: no legal move).
    fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        soft: u64,
    ) -> Option<(crate::chess::Move, i32)> {
        let limits = Limits {
            soft_nodes: Some(soft),
            nodes: Some(soft * 8),
            ..Limits::default()
        };
        let result = self.searcher.search(
            pos,
            history,
            &limits,
            &self.options,
            &self.control,
            &mut |_| {},
        );
        let stm = match result.score? {
            Score::Cp(c) => c.clamp(-32_000, 32_000),
            Score::Mate(n) if n > 0 => 32_000,
            Score::Mate(_) => -32_000,
        };
        let white = if pos.side_to_move() == Color::White {
            stm
        } else {
            -stm
        };
        Some((result.best?, white))
    }

    /// A start position after the random plies that the verification search calls playable.
    fn opening(&mut self, rng: &mut Rng, openings: &[Position]) -> Result<Game> {
        for _ in 0..MAX_OPENING_TRIES {
            let pos = if !openings.is_empty() {
                openings[rng.below(openings.len() as u64) as usize]
            } else if self.settings.chess960 {
                chess960_start(rng.below(960) as u32)
            } else {
                Position::startpos()
            };
            let mut game = Game::new(pos);
            let plies = self.settings.random_plies + rng.below(2) as u32;
            let mut ok = true;
            for _ in 0..plies {
                let moves = game.position().legal_moves();
                if moves.is_empty() {
                    ok = false;
                    break;
                }
                game.play(moves.as_slice()[rng.below(moves.len() as u64) as usize]);
            }
            if !ok || !game.position().has_legal_move() {
                continue;
            }
            self.searcher.clear();
            let soft = self.settings.nodes * 10;
            match self.search(game.position(), game.history(), soft) {
                Some((_, score)) if score.abs() <= self.settings.verify_limit => return Ok(game),
                _ => continue,
            }
        }
        bail!(
            "no playable opening in {MAX_OPENING_TRIES} tries (each ended or scored beyond ±{} cp)",
            self.settings.verify_limit
        )
    }

    /// Plays one game with the generator `rng`.
    pub fn play(&mut self, rng: &mut Rng, openings: &[Position]) -> Result<GameRecord> {
        let mut game = self.opening(rng, openings)?;
        self.searcher.clear();
        let mut record = GameRecord::new(*game.position());
        let (mut win_run, mut loss_run, mut draw_run) = (0u32, 0u32, 0u32);
        let s = self.settings.clone();
        record.outcome = loop {
            if let Some((_, outcome)) = game.ending() {
                break outcome;
            }
            if let Some(outcome) = self.decided_by_table(game.position()) {
                break outcome;
            }
            let pos = *game.position();
            let Some((m, score)) = self.search(&pos, game.history(), s.nodes) else {
                unreachable!("a game that has not ended has a legal move");
            };
            record.plies.push((m, score as i16));
            win_run = if score >= s.win_score { win_run + 1 } else { 0 };
            loss_run = if score <= -s.win_score {
                loss_run + 1
            } else {
                0
            };
            let ply = crate::book::game_ply(&pos);
            draw_run = if ply >= s.draw_from_ply && score.abs() <= s.draw_score {
                draw_run + 1
            } else {
                0
            };
            if win_run >= s.win_plies {
                break Outcome::WhiteWins;
            }
            if loss_run >= s.win_plies {
                break Outcome::BlackWins;
            }
            if draw_run >= s.draw_plies {
                break Outcome::Draw;
            }
            game.play(m);
        };
        Ok(record)
    }

    /// The game's result by a Syzygy table, which is exact right after a capture or pawn move.
    fn decided_by_table(&self, pos: &Position) -> Option<Outcome> {
        let tables = self.tablebases.as_ref()?;
        if pos.halfmove_clock() != 0 {
            return None;
        }
        let stm = pos.side_to_move();
        match tables.probe_wdl(pos)? {
            Wdl::Win => Some(Outcome::win_for(stm)),
            Wdl::Loss => Some(Outcome::win_for(stm.flip())),
            _ => Some(Outcome::Draw),
        }
    }
}

/// Chess960 start position number `n` (0–959, 518 = the standard one), by the usual
/// numbering: bishops, queen, the knights' pair, then rook, king, rook on what is left.
pub fn chess960_start(n: u32) -> Position {
    let mut n = n % 960;
    let mut rank = [' '; 8];
    rank[(n % 4 * 2 + 1) as usize] = 'b';
    n /= 4;
    rank[(n % 4 * 2) as usize] = 'b';
    n /= 4;
    let free = |rank: &[char; 8], i: u32| {
        (0..8)
            .filter(|&f| rank[f] == ' ')
            .nth(i as usize)
            .expect("enough free squares")
    };
    let q = free(&rank, n % 6);
    rank[q] = 'q';
    n /= 6;
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n as usize];
    let (fa, fb) = (free(&rank, a), free(&rank, b));
    rank[fa] = 'n';
    rank[fb] = 'n';
    for piece in ['r', 'k', 'r'] {
        let f = free(&rank, 0);
        rank[f] = piece;
    }
    let black: String = rank.iter().collect();
    let white = black.to_uppercase();
    let rooks: Vec<char> = (0..8)
        .filter(|&f| rank[f] == 'r')
        .map(|f| (b'a' + f as u8) as char)
        .collect();
    let castling: String = rooks
        .iter()
        .rev()
        .map(|c| c.to_ascii_uppercase())
        .chain(rooks.iter().rev().copied())
        .collect();
    Position::from_fen(&format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1"
    ))
    .expect("a Chess960 start position is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chess960_numbering() {
        assert_eq!(chess960_start(518), Position::startpos());
        assert_eq!(
            chess960_start(0).to_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        let distinct: std::collections::HashSet<String> =
            (0..960).map(|n| chess960_start(n).to_fen()).collect();
        assert_eq!(distinct.len(), 960);
    }
}
