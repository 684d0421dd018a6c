//! A stream's files and the folder's manifest.
//!
//! Stream K writes `stream-K-00001.vf`, `stream-K-00002.vf`, … one at a time: once the
//! current file holds `file_positions` positions (at the end of a game) it is synced, closed
//! for good and listed in `manifest.tsv`, and the next one is begun. Only the current file
//! (the stream's highest-numbered one that the manifest does not list) may end in a partial
//! game, which a resumed run cuts off. Folders made before files rotated hold one
//! `stream-K.vf` per stream: it is the stream's file number 0, continued as the current file
//! and closed like the others.
//!
//! `manifest.tsv` is a header line and then one tab-separated line per finished file, in the
//! order they were closed: [`MANIFEST_HEADER`] names the columns.

use super::format::GameReader;
use super::sha256;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "manifest.tsv";

/// The manifest's columns: the file (a name in the folder), its games, positions, bytes and
/// SHA-256; the SHA-256 of the binary and of the network that made it (`-`: the hand-crafted
/// evaluation); the node setting and seed; the stream and its first and last game (the game
/// index J that, with the seed and the stream, seeds the game); and the mean nodes searched
/// per recorded move over `measured_moves` of its moves (those played by the run that closed
/// the file: a file begun by an earlier run has fewer measured moves than positions).
pub const MANIFEST_HEADER: &str = "file\tgames\tpositions\tbytes\tsha256\tbinary_sha256\t\
     network_sha256\tnodes\tseed\tstream\tfirst_game\tlast_game\tmean_nodes_per_move\t\
     measured_moves";

/// One finished file, as its manifest line says.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub file: String,
    pub games: u64,
    pub positions: u64,
    pub bytes: u64,
    pub sha256: String,
    pub binary_sha256: String,
    pub network_sha256: String,
    pub nodes: u64,
    pub seed: u64,
    pub stream: u64,
    pub first_game: u64,
    pub last_game: u64,
    pub mean_nodes_per_move: f64,
    pub measured_moves: u64,
}

impl Finished {
    pub fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.1}\t{}\n",
            self.file,
            self.games,
            self.positions,
            self.bytes,
            self.sha256,
            self.binary_sha256,
            self.network_sha256,
            self.nodes,
            self.seed,
            self.stream,
            self.first_game,
            self.last_game,
            self.mean_nodes_per_move,
            self.measured_moves
        )
    }

    pub fn parse(line: &str) -> Result<Finished, String> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 14 {
            return Err(format!("{} fields instead of 14", f.len()));
        }
        let int = |i: usize| -> Result<u64, String> {
            f[i].parse()
                .map_err(|_| format!("field {} is {:?}, not a number", i + 1, f[i]))
        };
        Ok(Finished {
            file: f[0].to_string(),
            games: int(1)?,
            positions: int(2)?,
            bytes: int(3)?,
            sha256: f[4].to_string(),
            binary_sha256: f[5].to_string(),
            network_sha256: f[6].to_string(),
            nodes: int(7)?,
            seed: int(8)?,
            stream: int(9)?,
            first_game: int(10)?,
            last_game: int(11)?,
            mean_nodes_per_move: f[12]
                .parse()
                .map_err(|_| format!("field 13 is {:?}, not a number", f[12]))?,
            measured_moves: int(13)?,
        })
    }
}

/// Stream `k`'s file number `n` (0: the single file of the folders made before rotation).
pub fn file_name(k: u64, n: u64) -> String {
    if n == 0 {
        format!("stream-{k}.vf")
    } else {
        format!("stream-{k}-{n:05}.vf")
    }
}

/// The stream and number of a stream file's name.
fn parse_name(name: &str) -> Option<(u64, u64)> {
    let stem = name.strip_prefix("stream-")?.strip_suffix(".vf")?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match stem.split_once('-') {
        None if digits(stem) => Some((stem.parse().ok()?, 0)),
        Some((k, n)) if digits(k) && digits(n) && n.len() >= 5 && n != "00000" => {
            Some((k.parse().ok()?, n.parse().ok()?))
        }
        _ => None,
    }
}

/// The manifest's finished files (none when there is no manifest). A last line without its
/// newline is the trace of a kill while it was written: `repair` cuts it off (the file it
/// was about is still the stream's current file, and is closed again); otherwise it is an
/// error, like any line that does not read.
pub fn read_manifest(dir: &Path, repair: bool) -> Result<Vec<Finished>> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    if whole < text.len() {
        if !repair {
            bail!("{}: the last line is cut", path.display());
        }
        eprintln!(
            "datagen: {}: a cut last line ({} bytes) cut off",
            path.display(),
            text.len() - whole
        );
        let f = std::fs::OpenOptions::new().write(true).open(&path)?;
        f.set_len(whole as u64)?;
    }
    let mut out = Vec::new();
    for (i, line) in text[..whole].lines().enumerate() {
        if i == 0 && line == MANIFEST_HEADER {
            continue;
        }
        out.push(
            Finished::parse(line)
                .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))?,
        );
    }
    Ok(out)
}

/// Appends a finished file's line (and the header, to a new manifest). One write per line,
/// synced: the file is listed only once all of it is on disk.
pub fn append_manifest(dir: &Path, entry: &Finished) -> Result<()> {
    let path = dir.join(MANIFEST);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut text = String::new();
    if f.metadata()?.len() == 0 {
        text.push_str(MANIFEST_HEADER);
        text.push('\n');
    }
    text.push_str(&entry.line());
    f.write_all(text.as_bytes())?;
    f.sync_data()?;
    Ok(())
}

/// The file a stream writes into, and what it holds so far.
pub struct Current {
    pub path: PathBuf,
    pub name: String,
    pub number: u64,
    /// Its first game's index in the stream.
    pub first_game: u64,
    pub games: u64,
    pub positions: u64,
    pub bytes: u64,
    /// Nodes searched for the moves this run played into it, and those moves.
    pub move_nodes: u64,
    pub measured_moves: u64,
}

impl Current {
    fn new(dir: &Path, k: u64, number: u64, first_game: u64) -> Current {
        let name = file_name(k, number);
        Current {
            path: dir.join(&name),
            name,
            number,
            first_game,
            games: 0,
            positions: 0,
            bytes: 0,
            move_nodes: 0,
            measured_moves: 0,
        }
    }

    /// The stream's next file, after this one.
    pub fn next(&self, dir: &Path, k: u64) -> Current {
        Current::new(dir, k, self.number + 1, self.first_game + self.games)
    }

    /// The game index the stream plays next.
    pub fn next_game(&self) -> u64 {
        self.first_game + self.games
    }
}

/// Where stream `k` of `dir` goes on: its current file, read to its last whole game (a
/// partial game after it is cut off) and the games before it in the finished files.
pub fn resume_stream(dir: &Path, k: u64, finished: &[Finished]) -> Result<Current> {
    let mut done: BTreeMap<u64, &Finished> = BTreeMap::new();
    for f in finished.iter().filter(|f| f.stream == k) {
        match parse_name(&f.file) {
            Some((fk, n)) if fk == k => {
                if done.insert(n, f).is_some() {
                    bail!("datagen: {MANIFEST} lists {} twice", f.file);
                }
            }
            _ => bail!(
                "datagen: {MANIFEST} lists {} for stream {k}: not one of its file names",
                f.file
            ),
        }
    }
    let mut open: Vec<u64> = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let name = entry?.file_name();
        if let Some((fk, n)) = name.to_str().and_then(parse_name) {
            if fk == k && !done.contains_key(&n) {
                open.push(n);
            }
        }
    }
    open.sort_unstable();
    let last_done = done.last_key_value().map(|(&n, f)| (n, f.last_game + 1));
    let mut current = match (open.as_slice(), last_done) {
        ([], None) => Current::new(dir, k, 1, 0),
        ([], Some((n, next))) => Current::new(dir, k, n + 1, next),
        ([n], None) => Current::new(dir, k, *n, 0),
        ([n], Some((last, next))) if *n > last => Current::new(dir, k, *n, next),
        _ => bail!(
            "datagen: stream {k} of {} has files that {MANIFEST} does not list ({}) besides \
             its current one (the last); move them away to continue",
            dir.display(),
            open.iter()
                .map(|&n| file_name(k, n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    read_current(&mut current)?;
    Ok(current)
}

/// Counts the current file's whole games and positions, cutting a partial last game off.
fn read_current(current: &mut Current) -> Result<()> {
    let path = &current.path;
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(e).with_context(|| format!("datagen: cannot read {}", path.display()))
        }
    };
    let mut reader = GameReader::new(&bytes);
    let (mut games, mut positions) = (0u64, 0u64);
    let mut failure = None;
    for game in reader.by_ref() {
        match game {
            Ok(g) => {
                games += 1;
                positions += g.plies.len() as u64;
            }
            Err(e) => failure = Some(e),
        }
    }
    let end = reader.offset();
    if end < bytes.len() {
        // Only a cut last game is the trace of a kill; anything else is damage, and cutting
        // there would throw good games away.
        if let Some(e) = failure.filter(|e| *e != super::format::FormatError::Truncated) {
            bail!(
                "datagen: {} is damaged at byte {end} ({e}); move it away to continue",
                path.display()
            );
        }
        eprintln!(
            "datagen: {}: {} bytes after the last whole game cut off",
            path.display(),
            bytes.len() - end
        );
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(end as u64)?;
    }
    current.games = games;
    current.positions = positions;
    current.bytes = end as u64;
    Ok(())
}

/// What `--verify` found.
pub struct Verified {
    pub files: u64,
    pub games: u64,
    pub positions: u64,
    pub problems: Vec<String>,
}

/// Checks every file the manifest of `dir` lists: its size, SHA-256, games (each read and
/// checked for legality, ending exactly at the end) and positions; and that each stream's
/// files follow on from one another.
pub fn verify(dir: &Path, mut report: impl FnMut(&str)) -> Result<Verified> {
    if !dir.join(MANIFEST).is_file() {
        bail!("{} has no {MANIFEST}", dir.display());
    }
    let finished = read_manifest(dir, false)?;
    let mut v = Verified {
        files: 0,
        games: 0,
        positions: 0,
        problems: Vec::new(),
    };
    let mut next_game: BTreeMap<u64, u64> = BTreeMap::new();
    for f in &finished {
        let mut wrong = Vec::new();
        let expected = next_game.entry(f.stream).or_insert(0);
        if f.first_game != *expected {
            wrong.push(format!(
                "first game {} where stream {} goes on at {}",
                f.first_game, f.stream, *expected
            ));
        }
        if f.last_game + 1 != f.first_game + f.games {
            wrong.push(format!(
                "games {}..={} are not {} games",
                f.first_game, f.last_game, f.games
            ));
        }
        *expected = f.first_game + f.games;
        match std::fs::read(dir.join(&f.file)) {
            Err(e) => wrong.push(format!("cannot read it ({e})")),
            Ok(bytes) => {
                if bytes.len() as u64 != f.bytes {
                    wrong.push(format!("{} bytes, listed {}", bytes.len(), f.bytes));
                }
                let sha = sha256::hex(&bytes);
                if sha != f.sha256 {
                    wrong.push(format!("sha256 {sha}, listed {}", f.sha256));
                }
                let mut reader = GameReader::new(&bytes);
                let (mut games, mut positions) = (0u64, 0u64);
                while let Some(game) = reader.next() {
                    match game {
                        Ok(g) => {
                            games += 1;
                            positions += g.plies.len() as u64;
                        }
                        Err(e) => wrong.push(format!("at byte {}: {e}", reader.offset())),
                    }
                }
                if games != f.games || positions != f.positions {
                    wrong.push(format!(
                        "{games} games and {positions} positions, listed {} and {}",
                        f.games, f.positions
                    ));
                }
                v.games += games;
                v.positions += positions;
            }
        }
        v.files += 1;
        if wrong.is_empty() {
            report(&format!(
                "ok {}: {} games, {} positions",
                f.file, f.games, f.positions
            ));
        } else {
            let line = format!("MISMATCH {}: {}", f.file, wrong.join("; "));
            report(&line);
            v.problems.push(line);
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_read_back() {
        for (k, n) in [(0, 0), (3, 0), (0, 1), (12, 99_999), (1, 123_456)] {
            assert_eq!(parse_name(&file_name(k, n)), Some((k, n)));
        }
        for bad in [
            "stream-.vf",
            "stream-1-.vf",
            "stream-1-001.vf",
            "stream-1-00000.vf",
            "stream-a.vf",
            "stream-1.vf.tmp",
            "settings.txt",
        ] {
            assert_eq!(parse_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn manifest_lines_read_back() {
        let f = Finished {
            file: file_name(1, 2),
            games: 3,
            positions: 300,
            bytes: 1400,
            sha256: sha256::hex(b"x"),
            binary_sha256: sha256::hex(b"y"),
            network_sha256: "-".into(),
            nodes: 2500,
            seed: 7,
            stream: 1,
            first_game: 10,
            last_game: 12,
            mean_nodes_per_move: 2712.5,
            measured_moves: 300,
        };
        let line = f.line();
        assert!(line.ends_with('\n'));
        assert_eq!(Finished::parse(line.trim_end()), Ok(f));
        assert_eq!(
            MANIFEST_HEADER.split('\t').count(),
            line.trim_end().split('\t').count()
        );
        assert!(Finished::parse("a\tb").is_err());
    }
}
