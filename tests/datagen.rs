//! `brudno datagen` as a user runs it: seeded and reproducible, resumable after a kill (a cut
//! file is read to its last whole game and continued with the same bytes), and its games
//! readable and legal.

use brudno::datagen::format::{whole_games, GameReader};
use std::path::{Path, PathBuf};
use std::process::Command;

fn datagen(out: &Path, threads: u32, games: u32) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["datagen", "--out"])
        .arg(out)
        .args([
            "--threads",
            &threads.to_string(),
            "--games",
            &games.to_string(),
        ])
        .args(["--nodes", "300", "--seed", "9"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{stderr}");
    stderr
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("brudno-datagen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn data_is_reproducible_resumable_and_legal() {
    let a = temp("a");
    datagen(&a, 2, 6);
    let s0 = std::fs::read(a.join("stream-0-00001.vf")).unwrap();
    let s1 = std::fs::read(a.join("stream-1-00001.vf")).unwrap();
    assert_eq!(whole_games(&s0), (3, s0.len()));
    assert_eq!(whole_games(&s1), (3, s1.len()));
    for bytes in [&s0, &s1] {
        for game in GameReader::new(bytes) {
            let game = game.expect("every game reads back (moves are checked for legality)");
            assert!(!game.plies.is_empty());
        }
    }
    // The same seed in another folder and with another thread count: stream 0 is the same.
    let b = temp("b");
    datagen(&b, 1, 3);
    assert_eq!(std::fs::read(b.join("stream-0-00001.vf")).unwrap(), s0);
    // A run killed in the middle of a game: the partial game is cut and played again.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(a.join("stream-1-00001.vf"))
        .unwrap();
    f.set_len(s1.len() as u64 - 7).unwrap();
    let log = datagen(&a, 2, 6);
    assert!(log.contains("after the last whole game cut off"), "{log}");
    assert_eq!(std::fs::read(a.join("stream-1-00001.vf")).unwrap(), s1);
    // Finished: a rerun adds nothing.
    datagen(&a, 2, 6);
    assert_eq!(std::fs::read(a.join("stream-0-00001.vf")).unwrap(), s0);
    // Other settings in the same folder are refused.
    let o = Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["datagen", "--out"])
        .arg(&a)
        .args(["--nodes", "400", "--seed", "9", "--games", "6"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("other settings"));
    for d in [a, b] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn the_network_can_play_the_games() {
    let run = |out: &Path, eval: &str| {
        Command::new(env!("CARGO_BIN_EXE_brudno"))
            .args(["datagen", "--out"])
            .arg(out)
            .args([
                "--games", "2", "--nodes", "300", "--seed", "9", "--eval", eval,
            ])
            .output()
            .unwrap()
    };
    let (hce, nnue, again) = (temp("hce"), temp("nnue"), temp("nnue-again"));
    for (dir, eval) in [(&hce, "hce"), (&nnue, "nnue"), (&again, "nnue")] {
        let o = run(dir, eval);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let games = |d: &PathBuf| std::fs::read(d.join("stream-0-00001.vf")).unwrap();
    // Another evaluation plays other games; the same one the same games.
    assert_ne!(games(&hce), games(&nnue));
    assert_eq!(games(&nnue), games(&again));
    let settings = std::fs::read_to_string(nnue.join("settings.txt")).unwrap();
    assert!(settings.contains("eval nnue (embedded, "), "{settings}");
    let settings = std::fs::read_to_string(hce.join("settings.txt")).unwrap();
    assert!(!settings.contains("eval"), "{settings}");
    // A file that is not a network: an error naming it, and no folder made.
    let bad = temp("bad");
    let o = run(&bad, "Cargo.toml");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--eval Cargo.toml"));
    assert!(!bad.exists());
    // A device is refused before it is read (a plain read of /dev/zero never ends).
    #[cfg(unix)]
    {
        let o = run(&bad, "/dev/zero");
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
        assert!(!bad.exists());
    }
    for d in [hce, nnue, again] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

fn datagen_with(out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["datagen", "--out"])
        .arg(out)
        .args(["--nodes", "300", "--seed", "9", "--eval", "hce"])
        .args(extra)
        .output()
        .unwrap()
}

fn verify(dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["datagen", "--verify"])
        .arg(dir)
        .output()
        .unwrap()
}

/// The manifest's lines, each split at its tabs (the header left out).
fn manifest(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("file\tgames\tpositions\t"));
    lines
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

/// A stream's games, all its files in order, as one byte string.
fn stream_bytes(dir: &Path, k: u32) -> Vec<u8> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&format!("stream-{k}")) && n.ends_with(".vf"))
        .collect();
    // `stream-K.vf` (number 0) comes before `stream-K-00001.vf`.
    let legacy = format!("stream-{k}.vf");
    names.sort_by_key(|n| (*n != legacy, n.clone()));
    names
        .iter()
        .flat_map(|n| std::fs::read(dir.join(n)).unwrap())
        .collect()
}

#[test]
fn files_rotate_into_a_manifest_that_verifies() {
    let a = temp("rotate");
    let o = datagen_with(
        &a,
        &["--threads", "2", "--games", "8", "--file-positions", "100"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = manifest(&a);
    assert!(lines.len() >= 4, "{lines:?}");
    for l in &lines {
        assert_eq!(l.len(), 14, "{l:?}");
        let bytes = std::fs::read(a.join(&l[0])).unwrap();
        assert_eq!(l[3], bytes.len().to_string());
        assert_eq!(l[4], brudno::datagen::sha256::hex(&bytes));
        assert_eq!(whole_games(&bytes), (l[1].parse().unwrap(), bytes.len()));
        // Closed at the end of the game that took it to 100 positions.
        assert!(l[2].parse::<u64>().unwrap() >= 100);
        // The soft node limit is passed by the iteration that was under way.
        assert!(l[12].parse::<f64>().unwrap() >= 150.0, "{l:?}");
    }
    let o = verify(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    // A changed byte in a finished file is found.
    let victim = a.join(&lines[0][0]);
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&victim, &bytes).unwrap();
    let o = verify(&a);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("MISMATCH {}", lines[0][0])), "{out}");
    std::fs::remove_dir_all(a).unwrap();
}

#[test]
fn a_run_killed_after_rotating_goes_on_with_the_same_games() {
    let whole = temp("rot-whole");
    let o = datagen_with(&whole, &["--games", "6", "--file-positions", "150"]);
    assert!(o.status.success());
    // The same games in pieces: three games, then a kill inside the current file's last game
    // and inside a manifest line, then the rest.
    let cut = temp("rot-cut");
    let o = datagen_with(&cut, &["--games", "3", "--file-positions", "150"]);
    assert!(o.status.success());
    let lines = manifest(&cut);
    assert!(!lines.is_empty());
    let open = std::fs::read_dir(&cut)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".vf") && !lines.iter().any(|l| &l[0] == n))
        .max();
    // No current file when the third game filled one: the next game begins a new file.
    if let Some(open) = open {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(cut.join(&open))
            .unwrap();
        let len = f.metadata().unwrap().len();
        f.set_len(len - 5).unwrap();
    }
    let mut m = std::fs::OpenOptions::new()
        .append(true)
        .open(cut.join("manifest.tsv"))
        .unwrap();
    std::io::Write::write_all(&mut m, b"stream-0-0000").unwrap();
    let o = datagen_with(&cut, &["--games", "6", "--file-positions", "150"]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{log}");
    assert!(log.contains("a cut last line"), "{log}");
    assert_eq!(stream_bytes(&cut, 0), stream_bytes(&whole, 0));
    assert_eq!(manifest(&cut).len(), manifest(&whole).len());
    assert!(verify(&cut).status.success());
    for d in [whole, cut] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_folder_of_single_stream_files_rotates_from_them() {
    // The layout before rotation: `stream-K.vf` and no manifest.
    let whole = temp("legacy-whole");
    assert!(datagen_with(&whole, &["--games", "4"]).status.success());
    let old = temp("legacy");
    assert!(datagen_with(&old, &["--games", "2"]).status.success());
    std::fs::rename(old.join("stream-0-00001.vf"), old.join("stream-0.vf")).unwrap();
    let o = datagen_with(&old, &["--games", "4", "--file-positions", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = manifest(&old);
    assert_eq!(lines[0][0], "stream-0.vf");
    assert_eq!((lines[0][10].as_str(), lines[0][11].as_str()), ("0", "1"));
    assert_eq!(lines[1][0], "stream-0-00001.vf");
    assert_eq!(lines[1][10], "2");
    assert_eq!(stream_bytes(&old, 0), stream_bytes(&whole, 0));
    assert!(verify(&old).status.success());
    for d in [whole, old] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn the_command_line_says_what_it_takes() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_brudno"))
            .arg("datagen")
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("--verify-factor F") && help.contains("[2]"),
        "{help}"
    );
    for bad in [
        &["--nodes", "many"][..],
        &["--threads", "0"],
        &["--frobnicate", "1"],
        &["--nodes"],
    ] {
        let o = run(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.starts_with("brudno datagen: ") && e.contains(bad[0]),
            "{bad:?}: {e}"
        );
    }
    // A folder with no manifest is no success for --verify.
    let o = run(&["--verify", "/nonexistent-brudno-folder"]);
    assert_eq!(o.status.code(), Some(1));
}
