//! Memory through the binary (Linux, from /proc): resident memory stays within the `Hash`
//! size plus a small fixed amount, also after many `Hash` changes up and down and with
//! several threads.

#![cfg(target_os = "linux")]

mod uci_harness;

use uci_harness::Gui;

/// What the engine may hold beyond the hash table: code, the embedded book and bitbases,
/// search tables, stacks (measured: about 8 MiB with one thread, 3.3 MiB per extra thread).
const FIXED_MIB: u64 = 20;

/// Resident and peak resident memory in MiB.
fn resident_mib(gui: &Gui) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{}/status", gui.pid())).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .unwrap()
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn search(gui: &mut Gui, depth: u32) {
    gui.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    gui.send(&format!("go depth {depth}"));
    gui.until("bestmove");
}

#[test]
fn resident_memory_is_the_hash_table_plus_a_small_fixed_amount() {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name Hash value 64");
    search(&mut gui, 11);
    let (rss, _) = resident_mib(&gui);
    eprintln!("Hash 64 after a search: {rss} MiB resident");
    assert!(rss <= 64 + FIXED_MIB, "{rss} MiB");

    // Up and down many times, searching in between; the peak is the largest table plus the
    // fixed part (the old table is freed before the new one is made).
    for _ in 0..5 {
        for mb in [256, 1, 32, 128, 2, 16] {
            gui.send(&format!("setoption name Hash value {mb}"));
            search(&mut gui, 6);
            let (rss, _) = resident_mib(&gui);
            assert!(rss <= mb + FIXED_MIB, "Hash {mb}: {rss} MiB");
        }
    }
    let (rss, peak) = resident_mib(&gui);
    eprintln!("Hash 16 after 30 resizes: {rss} MiB resident, peak {peak} MiB");
    assert!(peak <= 256 + FIXED_MIB, "peak {peak} MiB");

    gui.send("setoption name Threads value 4");
    search(&mut gui, 10);
    let (rss, _) = resident_mib(&gui);
    eprintln!("Hash 16, 4 threads: {rss} MiB resident");
    assert!(rss <= 16 + FIXED_MIB, "{rss} MiB with 4 threads");
}

#[test]
fn threads_the_memory_cannot_hold_are_not_started() {
    // A machine with 24 MiB to spare (injected): a thread's own data is about 3.3 MiB, so 64
    // threads do not all fit. Those that do search; the rest is an error line, not an abort.
    let mut gui = Gui::start_with_env(&[("BRUDNO_FAULT_AVAILABLE_MIB", "24")]);
    gui.send("setoption name Hash value 1");
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name Threads value 64");
    gui.send("position startpos");
    gui.send("go depth 6");
    let lines = gui.until("bestmove");
    let error = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string error: only "))
        .unwrap_or_else(|| panic!("no error for 64 threads in 24 MiB: {lines:#?}"));
    let started: usize = error.split(' ').next().unwrap().parse().unwrap();
    assert!(error.contains(" of 64 threads could be started"), "{error}");
    assert!((2..64).contains(&started), "{error}");
    // The process has the threads it said (and the reader and protocol threads), not 64.
    let tasks = std::fs::read_dir(format!("/proc/{}/task", gui.pid()))
        .unwrap()
        .count();
    assert!(tasks >= started && tasks < 64, "{tasks} threads; {error}");
    // It goes on answering; the next search runs with the threads it has without trying
    // again (that would wait for the helpers on the clock), a new game tries again.
    gui.sync();
    gui.send("go depth 4");
    let lines = gui.until("bestmove");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:#?}");
    gui.send("ucinewgame");
    gui.send("go depth 4");
    let lines = gui.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: only ")),
        "{lines:#?}"
    );
}

/// The engine's address space at its peak after a one-thread search, in KiB: what any limit
/// must leave it.
fn one_thread_peak_kib() -> u64 {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    search(&mut gui, 6);
    let status = std::fs::read_to_string(format!("/proc/{}/status", gui.pid())).unwrap();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmPeak:"))
        .unwrap();
    peak.trim().trim_end_matches("kB").trim().parse().unwrap()
}

#[test]
fn an_address_space_limit_is_an_error_line_never_an_abort() {
    // `ulimit -v` limits a process's address space, which the memory available does not
    // show: a thread's stack, its data and the allocator's heaps all count. Threads 64 under
    // 64 limits, from what one thread needs to room for about ten: every engine says how many
    // threads it started, plays and quits cleanly. (Before the helpers' data was made and
    // its room checked before their threads started, and all threads shared one heap, the
    // engine aborted under 15 of these 64 limits: "memory allocation of 1179648 bytes failed".)
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let base = one_thread_peak_kib();
    let (mut aborted, mut most) = (Vec::new(), 0);
    for step in 0..64 {
        let kib = base + 2048 + step * 3072;
        let mut child = Command::new("sh")
            .args(["-c", r#"ulimit -v "$1" || exit 99; exec "$0""#])
            .args([env!("CARGO_BIN_EXE_brudno"), &kib.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            "setoption name OwnBook value false\nsetoption name Threads value 64\n\
             isready\ngo movetime 100"
        )
        .unwrap();
        // Read in a thread, so that an engine that never answers fails the test, not hangs it.
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut lines = Vec::new();
        let read_until = |end: &str, lines: &mut Vec<String>| {
            while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                let done = line.starts_with(end);
                lines.push(line);
                if done {
                    break;
                }
            }
        };
        read_until("bestmove", &mut lines);
        // On a loaded machine the answer guard may play before the pool has said how many
        // threads it started: that line comes by the next `readyok`.
        let _ = writeln!(stdin, "isready");
        read_until("readyok", &mut lines);
        let _ = writeln!(stdin, "quit");
        drop(stdin);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        if status.and_then(|s| s.code()) == Some(99) {
            continue; // a hard limit below this one: the shell could not set it
        }
        let played = lines.iter().any(|l| l.starts_with("bestmove"));
        if !played || !status.is_some_and(|s| s.success()) {
            aborted.push(format!("ulimit -v {kib}: {status:?}, {lines:?}, {stderr}"));
            continue;
        }
        // On a loaded machine the answer guard may play before the search has begun (no
        // depth searched): the pool has not been sized yet, and there is nothing to count.
        if !lines.iter().any(|l| l.starts_with("info depth")) {
            continue;
        }
        // The threads that did not start are said, and how many did.
        let started: usize = lines
            .iter()
            .find_map(|l| l.strip_prefix("info string error: only "))
            .and_then(|rest| rest.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("ulimit -v {kib}: {lines:#?}"));
        most = most.max(started);
    }
    assert!(aborted.is_empty(), "{aborted:#?}");
    // The largest limits leave room for helpers: they were started, not all refused.
    assert!(
        most >= 3,
        "at most {most} threads started (one thread's peak {base} KiB)"
    );
}
