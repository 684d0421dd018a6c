//! `brudno datagen`: self-play games for training the evaluation network, played in-process
//! (no UCI) by the very search and evaluation being trained, one game per thread at a time.
//!
//! Each game starts from a few random plies (from the start position, a Chess960 start or a
//! line of an openings file); an opening that a verification search (`verify_factor` × the
//! move's nodes) scores beyond `verify_limit` is thrown away. Every move is a node-limited
//! search (soft limit between iterations, hard limit 8× inside them) whose score is recorded
//! with the move. Games end by the rules or by adjudication (a decisive score held for a few
//! plies, a near-zero score held for many plies late in the game, or a Syzygy table after a
//! capture or pawn move).
//!
//! Output, in a folder: each stream K's games in files that are closed for good once they are
//! big enough and then listed in `manifest.tsv` with their SHA-256 (`files.rs`; the games are
//! viriformat, `format.rs`), and `settings.txt` with the settings the data was made with.
//! Stream K's game J is seeded by (seed, K, J) alone and each game starts from a cleared
//! table, so the data is reproducible; a run that is killed leaves every file readable up to
//! its last whole game, and the next run with the same settings cuts the partial game off and
//! continues each stream.

pub mod args;
pub mod files;
pub mod format;
mod player;
mod settings;
pub mod sha256;

pub use player::{chess960_start, genfens, GamePlayer};
pub use settings::{engine_id, Settings};

use crate::chess::Position;
use crate::eval::EvalChoice;
use crate::tablebase::Tablebases;
use crate::util::Rng;
use anyhow::{bail, Context, Result};
use files::{Current, Finished};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Everything a stream needs that is the same for all streams.
struct Shared {
    settings: Settings,
    openings: Vec<Position>,
    tablebases: Option<Arc<Tablebases>>,
    evaluation: EvalChoice,
    /// For the manifest.
    binary_sha256: String,
    network_sha256: String,
    /// Streams append to the manifest one at a time.
    manifest: Mutex<()>,
    games: AtomicU64,
    positions: AtomicU64,
    /// Nodes searched for the recorded moves this run, and those moves.
    move_nodes: AtomicU64,
    moves: AtomicU64,
    done: AtomicBool,
}

/// Runs `brudno datagen` to the end (the game target) or until killed.
pub fn run(settings: Settings) -> Result<()> {
    crate::chess::attacks::init();
    crate::endgame::kpk::init();
    // Before anything is written: a bad network file leaves no folder behind.
    let eval = settings::evaluation(&settings.eval)?;
    let out = &settings.out;
    std::fs::create_dir_all(out)
        .with_context(|| format!("datagen: cannot create {}", out.display()))?;
    let _lock = lock_folder(out)?;
    settings::check_settings_file(&settings, eval.line.as_deref())?;
    let openings = match &settings.openings {
        Some(p) => player::read_openings(p).context("datagen")?,
        None => Vec::new(),
    };
    let tablebases = match &settings.syzygy {
        Some(paths) => Some(Arc::new(
            Tablebases::open(paths).map_err(|e| anyhow::anyhow!("datagen: syzygy: {e}"))?,
        )),
        None => None,
    };
    // Resume: each stream's current file, after its finished ones.
    let finished = files::read_manifest(out, true).context("datagen")?;
    let streams = (0..settings.threads as u64)
        .map(|k| files::resume_stream(out, k, &finished))
        .collect::<Result<Vec<_>>>()?;
    let already: u64 = streams.iter().map(Current::next_game).sum();
    let binary_sha256 = binary_sha256();
    log_run(&settings, already, &binary_sha256)?;
    let shared = Arc::new(Shared {
        settings: settings.clone(),
        openings,
        tablebases,
        evaluation: eval.choice,
        binary_sha256,
        network_sha256: eval.sha256,
        manifest: Mutex::new(()),
        games: AtomicU64::new(already),
        positions: AtomicU64::new(0),
        move_nodes: AtomicU64::new(0),
        moves: AtomicU64::new(0),
        done: AtomicBool::new(false),
    });
    eprintln!(
        "datagen: {} into {} ({} games there), {} thread(s), {} nodes a move",
        engine_id(),
        out.display(),
        already,
        settings.threads,
        settings.nodes
    );
    let handles: Vec<_> = streams
        .into_iter()
        .enumerate()
        .map(|(k, current)| {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("datagen-{k}"))
                .stack_size(16 << 20)
                .spawn(move || {
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        play_stream(&shared, k as u64, current)
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
    // On a terminal one line is redrawn every second; into a log, a line every so often.
    let terminal = std::io::stderr().is_terminal();
    let every = Duration::from_secs(if terminal { 1 } else { settings.progress_secs });
    // A stream that fails (a full disk, say) stops the others.
    while !handles.iter().all(|h| h.is_finished()) && !shared.done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        if last_report.elapsed() >= every {
            last_report = Instant::now();
            if terminal {
                eprint!("\r{}\x1b[K", progress(&shared, start, already));
            } else {
                eprintln!("{}", progress(&shared, start, already));
            }
        }
    }
    if terminal {
        eprint!("\r\x1b[K");
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
    let moves = shared.moves.load(Ordering::Relaxed);
    let per_move = shared.move_nodes.load(Ordering::Relaxed) as f64 / moves.max(1) as f64;
    let eta = match shared.settings.games {
        Some(target) if games > already && target > games => {
            let per_game = secs / (games - already) as f64;
            let left = (per_game * (target - games) as f64) as u64;
            format!(", ETA {}h{:02}m", left / 3600, left / 60 % 60)
        }
        _ => String::new(),
    };
    format!(
        "datagen: {games} games ({} this run), {positions} positions this run, \
         {rate:.0} positions/s, {per_move:.0} nodes a move{eta}",
        games - already
    )
}

/// One process at a time writes into a folder: two would write the same games into the
/// same files. The lock goes with the process, however it ends.
#[cfg(unix)]
fn lock_folder(out: &Path) -> Result<std::fs::File> {
    use std::os::unix::io::AsRawFd;
    let path = out.join("datagen.lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("datagen: cannot open {}", path.display()))?;
    // SAFETY: flock on a descriptor this function owns; no memory is involved.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        bail!(
            "datagen: another datagen is writing into {} (it holds {})",
            out.display(),
            path.display()
        );
    }
    Ok(f)
}

#[cfg(not(unix))]
fn lock_folder(_out: &Path) -> Result<()> {
    Ok(())
}

/// The SHA-256 of the running binary (`-` where it cannot be read).
fn binary_sha256() -> String {
    let exe = Path::new("/proc/self/exe");
    let path = if exe.exists() {
        exe.to_path_buf()
    } else {
        match std::env::current_exe() {
            Ok(p) => p,
            Err(_) => return "-".into(),
        }
    };
    sha256::file_hex(&path).unwrap_or_else(|e| {
        eprintln!("datagen: cannot read the binary for its SHA-256 ({e})");
        "-".into()
    })
}

/// One line per run in `runs.txt`: which engine continued the data, from how many games.
fn log_run(settings: &Settings, games: u64, binary_sha256: &str) -> Result<()> {
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
        "unix {now}: {} (binary sha256 {binary_sha256}) continues at {games} games with {} \
         stream(s)",
        engine_id(),
        settings.threads
    )?;
    Ok(())
}

/// Plays stream `k`'s games on from its current file, appending each whole game and
/// closing the file whenever it is full.
fn play_stream(shared: &Shared, k: u64, mut current: Current) -> Result<()> {
    let settings = &shared.settings;
    let out = &settings.out;
    // `--games` in all: the remainder goes to the first streams.
    let t = settings.threads as u64;
    let per_stream = settings.games.map(|g| g / t + (k < g % t) as u64);
    let mut player = GamePlayer::new(
        settings,
        shared.tablebases.clone(),
        shared.evaluation.clone(),
    );
    let mut file: Option<std::fs::File> = None;
    let mut bytes = Vec::with_capacity(4096);
    loop {
        // A full file: closed first (a run may have been killed just before it closed it).
        if current.positions >= settings.file_positions {
            drop(file.take());
            close_file(shared, k, &current)?;
            current = current.next(out, k);
        }
        let next = current.next_game();
        if per_stream.is_some_and(|n| next >= n) || shared.done.load(Ordering::Relaxed) {
            return Ok(());
        }
        let f = match &mut file {
            Some(f) => f,
            None => file.insert(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&current.path)
                    .with_context(|| format!("datagen: cannot open {}", current.path.display()))?,
            ),
        };
        let mut rng = Rng::derive(settings.seed, &[k, next]);
        let game = player.play(&mut rng, &shared.openings)?;
        bytes.clear();
        game.encode(&mut bytes);
        // One write per game: a kill leaves at most one partial game, cut off on resume.
        f.write_all(&bytes)?;
        let (nodes, moves) = player.take_move_counts();
        current.games += 1;
        current.positions += game.plies.len() as u64;
        current.bytes += bytes.len() as u64;
        current.move_nodes += nodes;
        current.measured_moves += moves;
        shared.games.fetch_add(1, Ordering::Relaxed);
        shared
            .positions
            .fetch_add(game.plies.len() as u64, Ordering::Relaxed);
        shared.move_nodes.fetch_add(nodes, Ordering::Relaxed);
        shared.moves.fetch_add(moves, Ordering::Relaxed);
    }
}

/// Syncs a full file and lists it in the manifest: from then on it is never written again.
fn close_file(shared: &Shared, k: u64, current: &Current) -> Result<()> {
    let s = &shared.settings;
    let f = std::fs::File::open(&current.path)
        .with_context(|| format!("datagen: cannot open {}", current.path.display()))?;
    f.sync_all()?;
    let on_disk = f.metadata()?.len();
    if on_disk != current.bytes {
        bail!(
            "datagen: {} holds {on_disk} bytes where this stream wrote {}",
            current.path.display(),
            current.bytes
        );
    }
    let entry = Finished {
        file: current.name.clone(),
        games: current.games,
        positions: current.positions,
        bytes: current.bytes,
        sha256: sha256::file_hex(&current.path)
            .with_context(|| format!("datagen: cannot read {}", current.path.display()))?,
        binary_sha256: shared.binary_sha256.clone(),
        network_sha256: shared.network_sha256.clone(),
        nodes: s.nodes,
        seed: s.seed,
        stream: k,
        first_game: current.first_game,
        last_game: current.next_game() - 1,
        mean_nodes_per_move: current.move_nodes as f64 / current.measured_moves.max(1) as f64,
        measured_moves: current.measured_moves,
    };
    let _one_at_a_time = shared.manifest.lock().unwrap_or_else(|e| e.into_inner());
    files::append_manifest(&s.out, &entry).context("datagen")
}

/// `brudno datagen --verify DIR`: whether every finished file matches its manifest line
/// (each file's verdict goes to stdout, the summary to stderr).
pub fn verify(dir: &Path) -> Result<bool> {
    crate::chess::attacks::init();
    let v = files::verify(dir, |line| println!("{line}"))?;
    eprintln!(
        "datagen --verify {}: {} files, {} games, {} positions, {}",
        dir.display(),
        v.files,
        v.games,
        v.positions,
        if v.problems.is_empty() {
            "all match".to_string()
        } else {
            format!("{} MISMATCH(ES)", v.problems.len())
        }
    );
    Ok(v.problems.is_empty())
}
