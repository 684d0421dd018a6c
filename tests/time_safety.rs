//! Time safety through the binary: with 30 ms on the clock and no increment, and with
//! `movestogo 1`, the move comes back before the clock would run out; on a crowded machine
//! the engine keeps its delays in hand and ponders politely; a search thread that stalls at
//! its deadline, or that has not even begun its search by then, is answered for. Its own test binary, so that no
//! other test of ours competes for the CPU while it measures; its tests take turns.

mod uci_harness;

use brudno::chess::Position;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use uci_harness::{bestmove_of, Gui};

/// The tests of this file run one at a time: one of them crowds the machine on purpose.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Busy threads, three for each core, until dropped: a machine with more work than cores,
/// as a tournament with pondering and two games at a time on two cores makes it.
struct Crowd {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Crowd {
    const PER_CORE: usize = 3;

    fn cores() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }

    fn start() -> Crowd {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..Self::PER_CORE * Self::cores())
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Crowd { stop, threads }
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Middlegames and endgames with many legal moves and tactics (slow nodes, deep quiescence).
const FENS: [&str; 6] = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 0 8",
    "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - - 0 22",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
];

/// Milliseconds from sending `go` to reading `bestmove`, and the move.
fn answer_time(gui: &mut Gui, fen: &str, go: &str) -> (Duration, String) {
    gui.send(&format!("position fen {fen}"));
    gui.sync();
    let start = Instant::now();
    gui.send(go);
    let lines = gui.until("bestmove");
    let took = start.elapsed();
    (took, bestmove_of(&lines))
}

fn check(threads: u32) {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send(&format!("setoption name Threads value {threads}"));
    let mut worst = Duration::ZERO;
    for round in 0..2 {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let side = if fen.contains(" w ") {
                "wtime"
            } else {
                "btime"
            };
            for (go, clock_ms) in [
                (format!("go {side} 30"), 30),
                ("go wtime 30 btime 30 winc 0 binc 0".to_string(), 30),
                (format!("go {side} 1000 movestogo 1"), 1000),
                (format!("go {side} 150 movestogo 1"), 150),
            ] {
                let (took, mv) = answer_time(&mut gui, fen, &go);
                assert!(pos.parse_uci_move(&mv).is_some(), "{fen} '{go}': {mv}");
                assert!(
                    took < Duration::from_millis(clock_ms),
                    "round {round}, Threads {threads}, {fen} '{go}': {took:?} with {clock_ms} ms on the clock"
                );
                if clock_ms == 30 {
                    worst = worst.max(took);
                }
            }
        }
    }
    eprintln!("Threads {threads}: slowest answer with 30 ms on the clock: {worst:?}");
}

#[test]
fn moves_come_back_before_the_clock_runs_out() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check(1);
    check(2);
}

/// The `N` of "info string N ms kept in hand …" (debug mode), if the search said it.
fn kept_in_hand(lines: &[String]) -> Option<u64> {
    lines.iter().find_map(|l| {
        let rest = l.strip_prefix("info string ")?;
        let (ms, _) = rest.split_once(" ms kept in hand")?;
        ms.parse().ok()
    })
}

/// On a crowded machine a search can lose its core just before its deadline, and the GUI
/// waits for one before it reads the `bestmove`: the engine measures both (its reader's and
/// its search thread's waits for a core) and keeps them in hand.
#[test]
#[cfg(target_os = "linux")]
fn on_a_crowded_machine_the_engine_keeps_its_delays_in_hand() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("debug on");
    gui.sync();
    let crowd = Crowd::start();
    let mut kept = Vec::new();
    for fen in FENS {
        gui.send(&format!("position fen {fen}"));
        gui.send("go movetime 150");
        let lines = gui.until("bestmove");
        let pos = Position::from_fen(fen).unwrap();
        let mv = bestmove_of(&lines);
        assert!(pos.parse_uci_move(&mv).is_some(), "{fen}: {mv}");
        kept.push(kept_in_hand(&lines).unwrap_or(0));
    }
    drop(crowd);
    eprintln!("kept in hand on a crowded machine, ms: {kept:?}");
    // The first search has nothing measured yet but the lines before it; every later one
    // follows a search that lost its core again and again.
    assert!(
        kept[1..].iter().all(|&ms| ms >= 1),
        "{kept:?}: a search after a crowded one keeps nothing in hand"
    );
    // Never more than three quarters of the movetime less `Move Overhead` (10 ms).
    assert!(kept.iter().all(|&ms| ms <= 105), "{kept:?}");
}

/// Milliseconds on a core of every thread of process `pid` (Linux: each thread's
/// `schedstat`, nanoseconds).
#[cfg(target_os = "linux")]
fn cpu_time(pid: u32) -> Duration {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        if let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) {
            total += text
                .split_whitespace()
                .next()
                .and_then(|ns| ns.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_nanos(total)
}

/// Pondering guesses on the opponent's time: on a crowded machine it must not take a fair
/// share of the cores from the searches whose clocks run. Alone, a pondering thread among
/// `3 × cores` busy ones would get `cores / (3 × cores + 1)` of the time; it takes well under
/// that — and still answers the `stop` with a legal move.
#[test]
#[cfg(target_os = "linux")]
fn pondering_gives_way_on_a_crowded_machine() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name Ponder value true");
    gui.send("position startpos moves e2e4");
    gui.sync();
    let crowd = Crowd::start();
    std::thread::sleep(Duration::from_millis(200));
    let (cpu0, wall0) = (cpu_time(gui.pid()), Instant::now());
    gui.send("go ponder wtime 60000 btime 60000");
    std::thread::sleep(Duration::from_millis(2000));
    let (cpu, wall) = (cpu_time(gui.pid()) - cpu0, wall0.elapsed());
    drop(crowd);
    gui.send("stop");
    let lines = gui.until("bestmove");
    let pos = Position::startpos();
    let pos = pos.after(pos.parse_uci_move("e2e4").unwrap());
    assert!(
        pos.parse_uci_move(&bestmove_of(&lines)).is_some(),
        "{lines:?}"
    );
    let cores = Crowd::cores() as f64;
    let fair = wall.as_secs_f64() * cores / (Crowd::PER_CORE as f64 * cores + 1.0);
    eprintln!(
        "pondering on a crowded machine: {cpu:?} on a core in {wall:?} (a fair share: {fair:.2} s)"
    );
    assert!(
        cpu.as_secs_f64() < 0.75 * fair,
        "pondering took {cpu:?} of {wall:?} beside {} busy threads (a fair share: {fair:.2} s)",
        Crowd::PER_CORE * Crowd::cores()
    );
}

/// A search thread that loses its core just as its time runs out (injected: it stalls 300 ms
/// at its hard limit) still answers on time: the answer's guard, asleep until then, plays the
/// move of the last line shown. Nothing of that search comes after its `bestmove`, and the
/// engine goes on as before. (Without the guard each answer here took over 300 ms.)
#[test]
fn a_search_thread_stalled_at_its_deadline_still_answers_on_time() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut gui = Gui::start_with_env(&[("BRUDNO_FAULT_STALL_AT_DEADLINE_MS", "300")]);
    gui.send("setoption name OwnBook value false");
    for (threads, fen) in [(1, FENS[0]), (1, FENS[1]), (2, FENS[2])] {
        gui.send(&format!("setoption name Threads value {threads}"));
        let pos = Position::from_fen(fen).unwrap();
        let (took, mv) = answer_time(&mut gui, fen, "go movetime 100");
        assert!(pos.parse_uci_move(&mv).is_some(), "{fen}: {mv}");
        assert!(
            took < Duration::from_millis(100),
            "Threads {threads}, {fen}: bestmove after {took:?} for a movetime of 100 ms"
        );
        // The stalled thread wakes and ends meanwhile: the GUI hears nothing more of it.
        let after = gui.drain(Duration::from_millis(500));
        assert!(after.is_empty(), "after the bestmove: {after:?}");
        gui.sync();
    }
    // Untimed searches have no guard: their answer is the search thread's own.
    gui.send(&format!("position fen {}", FENS[0]));
    gui.send("go depth 6");
    let lines = gui.until("bestmove");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 6")),
        "{lines:?}"
    );
}

/// A search thread that has not begun its search by the deadline (injected: it stalls 300 ms
/// before the search starts) still answers on time: the guard knows the due time before the
/// search thread wakes and, with no line shown, plays a move no search chose — the table's
/// move, else a capture, else any legal move, always within `searchmoves`.
#[test]
fn a_search_thread_that_has_not_begun_by_its_deadline_still_answers_on_time() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut gui = Gui::start_with_env(&[("BRUDNO_FAULT_STALL_AT_START_MS", "300")]);
    gui.send("setoption name OwnBook value false");
    // Headroom for a loaded test machine: the guard answers ~4 ms after the hard limit.
    gui.send("setoption name Move Overhead value 30");
    let quiet = "a2a3";
    for (threads, fen, go) in [
        (1, FENS[0], "go movetime 100".to_string()),
        (2, FENS[1], "go movetime 100".to_string()),
        (1, FENS[0], format!("go movetime 100 searchmoves {quiet}")),
        (1, FENS[4], "go wtime 300 btime 300 movestogo 1".to_string()),
    ] {
        gui.send(&format!("setoption name Threads value {threads}"));
        let pos = Position::from_fen(fen).unwrap();
        let (took, mv) = answer_time(&mut gui, fen, &go);
        assert!(pos.parse_uci_move(&mv).is_some(), "{fen}, {go}: {mv}");
        if go.contains("searchmoves") {
            assert_eq!(mv, quiet, "{fen}, {go}: outside searchmoves");
        }
        let due = if go.contains("movetime") { 100 } else { 300 };
        assert!(
            took < Duration::from_millis(due),
            "Threads {threads}, {fen}, {go}: bestmove after {took:?}"
        );
        // The stalled thread searches later, unheard: nothing follows the bestmove.
        let after = gui.drain(Duration::from_millis(500));
        assert!(after.is_empty(), "after the bestmove: {after:?}");
        gui.sync();
    }
}

/// On a machine already seen crowded, a ponder search stops after depth 1 and waits for the
/// `ponderhit`: it takes next to no core from the searches whose clocks run (pondering beside
/// them lost games on time at 0.05 s a move). The `ponderhit` then starts the move's thinking
/// afresh — no depth-1 answer for the time spent waiting. (Measured: under 1 ms on a core in
/// the second; polite pondering alone, 2 ms on and 40 ms off, took 50 ms.)
#[test]
#[cfg(target_os = "linux")]
fn on_a_machine_seen_crowded_pondering_waits_for_the_ponderhit() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // With `Threads 2` the helper waits too.
    for threads in [1, 2] {
        ponder_on_a_machine_seen_crowded(threads);
    }
}

fn ponder_on_a_machine_seen_crowded(threads: u32) {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name Ponder value true");
    gui.send(&format!("setoption name Threads value {threads}"));
    let crowd = Crowd::start();
    // Timed searches on the crowded machine: their waits for a core are what the engine
    // learns; the second says how much it keeps in hand for them (the test's premise).
    gui.send("debug on");
    gui.send("position startpos");
    gui.send("go movetime 300");
    gui.until("bestmove");
    gui.send("go movetime 300");
    let kept = kept_in_hand(&gui.until("bestmove")).unwrap_or(0);
    assert!(kept >= 4, "Threads {threads}: the machine was not seen crowded ({kept} ms kept in hand), so this test tests nothing");
    gui.send("debug off");
    gui.send("position startpos moves e2e4");
    gui.sync();
    let cpu0 = cpu_time(gui.pid());
    gui.send("go ponder wtime 10000 btime 10000");
    std::thread::sleep(Duration::from_millis(1000));
    let cpu = cpu_time(gui.pid()) - cpu0;
    gui.send("ponderhit");
    let lines = gui.until("bestmove");
    drop(crowd);
    assert!(
        cpu < Duration::from_millis(15),
        "Threads {threads}: a second of pondering on a crowded machine took {cpu:?} on a core"
    );
    let pos = Position::startpos();
    let pos = pos.after(pos.parse_uci_move("e2e4").unwrap());
    assert!(
        pos.parse_uci_move(&bestmove_of(&lines)).is_some(),
        "{lines:?}"
    );
    let deepest = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info depth "))
        .filter_map(|l| l.split_whitespace().next()?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    assert!(
        deepest >= 4,
        "Threads {threads}: the ponderhit's search reached depth {deepest}: {lines:?}"
    );
}

/// With more threads than cores the engine's own threads crowd the cores at the deadline, so a
/// `movetime` keeps at least a fixed floor back (`time::OVERSUBSCRIBED_RESERVE_MS`; the
/// arithmetic is the unit tests'); the search says so in debug mode, and not otherwise.
#[test]
fn more_threads_than_cores_keep_a_floor_back_under_a_movetime() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cores = Crowd::cores();
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("debug on");
    gui.send("position startpos");
    let says_floor = |lines: &[String]| {
        lines
            .iter()
            .any(|l| l.starts_with("info string a floor of ") && l.contains("more threads"))
    };
    for (threads, expected) in [(cores, false), (cores + 1, true)] {
        gui.send(&format!("setoption name Threads value {threads}"));
        gui.send("go movetime 100");
        let lines = gui.until("bestmove");
        assert_eq!(
            says_floor(&lines),
            expected,
            "Threads {threads} on {cores} cores: {lines:?}"
        );
        // A game clock has its own reserve: no floor there.
        gui.send("go wtime 2000 btime 2000");
        let lines = gui.until("bestmove");
        assert!(!says_floor(&lines), "Threads {threads}, a clock: {lines:?}");
    }
}
