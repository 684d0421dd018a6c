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
    let s0 = std::fs::read(a.join("stream-0.vf")).unwrap();
    let s1 = std::fs::read(a.join("stream-1.vf")).unwrap();
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
    assert_eq!(std::fs::read(b.join("stream-0.vf")).unwrap(), s0);
    // A run killed in the middle of a game: the partial game is cut and played again.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(a.join("stream-1.vf"))
        .unwrap();
    f.set_len(s1.len() as u64 - 7).unwrap();
    let log = datagen(&a, 2, 6);
    assert!(log.contains("after the last whole game cut off"), "{log}");
    assert_eq!(std::fs::read(a.join("stream-1.vf")).unwrap(), s1);
    // Finished: a rerun adds nothing.
    datagen(&a, 2, 6);
    assert_eq!(std::fs::read(a.join("stream-0.vf")).unwrap(), s0);
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
    let games = |d: &PathBuf| std::fs::read(d.join("stream-0.vf")).unwrap();
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
