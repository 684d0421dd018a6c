//! Behaviour tests: scripted conversations with the real binary, the way a GUI holds them.

mod uci_harness;

use brudno::chess::Position;
use std::time::{Duration, Instant};
use uci_harness::{bestmove_of, count, Gui};

/// The rest of the first line that starts with `prefix` (there must be one).
fn after_prefix(lines: &[String], prefix: &str) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no '{prefix}' line in {lines:#?}"))
        .to_string()
}

fn fen_line(lines: &[String]) -> String {
    after_prefix(lines, "Fen: ")
}

fn current_fen(gui: &mut Gui) -> String {
    gui.send("d");
    fen_line(&gui.sync())
}

/// Sends `line` and checks that a line starting with `prefix` comes back before `readyok`.
fn answers_with(gui: &mut Gui, line: &str, prefix: &str) {
    gui.send(line);
    let lines = gui.sync();
    assert!(
        lines.iter().any(|l| l.starts_with(prefix)),
        "'{line}' did not answer '{prefix}': {lines:?}"
    );
}

#[test]
fn handshake_lists_options_and_ends_with_uciok() {
    let mut gui = Gui::start();
    gui.send("uci");
    let lines = gui.until("uciok");
    assert!(lines[0].starts_with("id name Brudno"));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in [
        "option name Hash type spin default 16 min 1 max 65536",
        "option name Threads type spin default 1 min 1 max 1024",
        "option name Clear Hash type button",
        "option name Move Overhead type spin",
        "option name Ponder type check default false",
        "option name MultiPV type spin default 1",
        "option name OwnBook type check default true",
        "option name BookFile type string",
        "option name UCI_Chess960 type check default false",
        "option name UCI_ShowWDL type check default false",
        "option name Debug Log File type string",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(option)),
            "missing: {option}\n{lines:#?}"
        );
    }
    assert_eq!(lines.last().unwrap(), "uciok");
    assert_eq!(gui.sync(), vec!["readyok"]);
}

#[test]
fn isready_is_answered_during_go_infinite_and_the_search_goes_on() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let lines = gui.sync();
    assert_eq!(
        count(&lines, "bestmove"),
        0,
        "isready must not stop the search"
    );
    assert!(gui
        .drain(Duration::from_millis(300))
        .iter()
        .all(|l| !l.starts_with("bestmove")));
    gui.send("stop");
    let lines = gui.until("bestmove");
    let best = bestmove_of(&lines);
    assert!(
        Position::startpos().parse_uci_move(&best).is_some(),
        "{best}"
    );
}

#[test]
fn infinite_search_waits_for_stop_even_with_one_legal_move_or_a_mate() {
    for fen in [
        "7k/8/6K1/8/8/8/8/R7 w - - 0 1", // mate in one
        "k7/8/8/8/8/8/1R6/7K b - - 0 1", // one legal move: a8a7
    ] {
        let mut gui = Gui::start();
        gui.send(&format!("position fen {fen}"));
        gui.send("go infinite");
        let early = gui.drain(Duration::from_millis(500));
        assert_eq!(
            count(&early, "bestmove"),
            0,
            "{fen}: bestmove before stop: {early:#?}"
        );
        gui.send("stop");
        let lines = gui.until("bestmove");
        assert_eq!(count(&lines, "bestmove"), 1);
    }
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut gui = Gui::start();
    for fen in [
        "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        gui.send(&format!("position fen {fen}"));
        gui.send("go depth 3");
        assert_eq!(gui.until("bestmove").last().unwrap(), "bestmove (none)");
    }
}

#[test]
fn stop_ends_the_search_promptly() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    gui.send("stop");
    gui.until("bestmove");
    // The latency itself is a benchmark, not a test; here only that stop works at all.
    assert!(sent.elapsed() < uci_harness::TIMEOUT);
}

#[test]
fn quit_during_search_exits() {
    let mut gui = Gui::start();
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    gui.send("quit");
    assert!(gui.exits_within(Duration::from_secs(10)));
    assert!(gui.exit_status().unwrap().success());
}

#[test]
fn end_of_input_during_search_exits() {
    let mut gui = Gui::start();
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    gui.close_input();
    assert!(gui.exits_within(Duration::from_secs(10)));
    assert!(gui.exit_status().unwrap().success());
}

#[test]
fn ponder_then_ponderhit_gives_a_timed_bestmove() {
    let mut gui = Gui::start();
    gui.send("setoption name Ponder value true");
    gui.send("position startpos moves e2e4 e7e5");
    gui.send("go ponder wtime 1000 btime 1000 winc 0 binc 0");
    let early = gui.drain(Duration::from_millis(400));
    assert_eq!(count(&early, "bestmove"), 0, "no bestmove while pondering");
    gui.send("ponderhit");
    let lines = gui.until("bestmove");
    assert_eq!(count(&lines, "bestmove"), 1);
}

#[test]
fn ponder_then_stop_gives_a_bestmove() {
    let mut gui = Gui::start();
    gui.send("position startpos moves d2d4");
    gui.send("go ponder wtime 60000 btime 60000");
    assert_eq!(count(&gui.drain(Duration::from_millis(300)), "bestmove"), 0);
    gui.send("stop");
    let lines = gui.until("bestmove");
    let best = bestmove_of(&lines);
    let pos =
        Position::from_fen("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert!(pos.parse_uci_move(&best).is_some(), "{best}");
}

#[test]
fn clocks_only_and_negative_clocks_still_give_a_legal_move() {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("position startpos moves g1f3");
    gui.send("go wtime 3000 btime 3000");
    let best = bestmove_of(&gui.until("bestmove"));
    let pos = Position::startpos().after(Position::startpos().parse_uci_move("g1f3").unwrap());
    assert!(pos.parse_uci_move(&best).is_some());

    gui.send("go wtime -200 btime -200 winc 0 binc 0");
    let lines = gui.until("bestmove");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info string") && l.contains("negative")));
    assert!(pos.parse_uci_move(&bestmove_of(&lines)).is_some());
}

/// A deterministic game of `plies` legal moves from the start position.
fn random_game(plies: usize, mut seed: u64) -> (Vec<String>, Position) {
    'again: loop {
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                seed += 1;
                continue 'again;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let m = legal[(seed % legal.len() as u64) as usize];
            moves.push(pos.move_to_uci(m, false));
            pos.play(m);
        }
        return (moves, pos);
    }
}

#[test]
fn a_300_ply_move_list_is_followed_exactly() {
    let (moves, end) = random_game(300, 0x1234_5678);
    let mut gui = Gui::start();
    gui.send(&format!("position startpos moves {}", moves.join(" ")));
    assert_eq!(current_fen(&mut gui), end.to_fen());
    gui.send("go depth 2");
    let lines = gui.until("bestmove");
    let best = bestmove_of(&lines);
    assert!(
        best == "(none)" || end.parse_uci_move(&best).is_some(),
        "{best}"
    );
}

#[test]
fn bad_input_is_reported_and_the_state_is_kept() {
    let mut gui = Gui::start();
    gui.send("position startpos moves e2e4 c7c5");
    let fen = current_fen(&mut gui);
    let bad = [
        "xyzzy plugh",
        "setoption name No Such Option value 3",
        "setoption name Hash value 0",
        "setoption name Hash value 99999999",
        "setoption name Hash value many",
        "setoption name Ponder value maybe",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen",
        "position startpos moves e2e4 e7e5 e1e3",
        "position startpos moves e2e4 e5e4",
        "position sideways",
        "perft",
        "debug sideways",
    ];
    for line in bad {
        gui.send(line);
        let lines = gui.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string error:")),
            "no error reported for '{line}': {lines:#?}"
        );
        assert_eq!(current_fen(&mut gui), fen, "state changed by '{line}'");
    }
    // A very long line.
    let long = format!("position startpos moves {}", "e2e4 ".repeat(300_000));
    gui.send(&long);
    let lines = gui.sync();
    assert!(lines.iter().any(|l| l.starts_with("info string error:")));
    assert_eq!(current_fen(&mut gui), fen);
    // Invalid UTF-8 and control characters.
    gui.send_raw("\u{0}\u{7f}garbage \u{fffd}\n");
    // A `go` without limits (the garbage is no limit) analyses until `stop`.
    gui.send_raw("go \u{1b}[31m\n");
    gui.send("stop");
    gui.until("bestmove");
    assert_eq!(current_fen(&mut gui), fen);
    // Still a working engine.
    gui.send("go depth 1");
    gui.until("bestmove");
}

#[test]
fn crlf_line_endings_work() {
    let mut gui = Gui::start();
    gui.send_raw("uci\r\n");
    gui.until("uciok");
    gui.send_raw("position startpos moves e2e4\r\nd\r\nisready\r\n");
    let lines = gui.until("readyok");
    assert_eq!(
        fen_line(&lines),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    gui.send_raw("setoption name Move Overhead value 50\r\ngo depth 1\r\n");
    gui.until("bestmove");
}

#[test]
fn many_go_stop_pairs_give_as_many_bestmoves() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    let n = 60;
    for i in 0..n {
        if i % 2 == 0 {
            gui.send("go infinite");
        } else {
            gui.send("go wtime 50 btime 50");
        }
        gui.send("stop");
    }
    let mut bestmoves = 0;
    while bestmoves < n {
        let line = gui
            .next_line(uci_harness::TIMEOUT)
            .unwrap_or_else(|| panic!("only {bestmoves} bestmoves of {n}"));
        if line.starts_with("bestmove") {
            bestmoves += 1;
        }
    }
    let rest = gui.sync();
    assert_eq!(
        count(&rest, "bestmove"),
        0,
        "more bestmoves than go commands"
    );
}

#[test]
fn commands_sent_during_a_search_are_applied_after_it() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    gui.send("go infinite");
    gui.send("position startpos moves e2e4");
    gui.send("stop");
    gui.until("bestmove");
    assert_eq!(
        current_fen(&mut gui),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}

#[test]
fn castling_notation_follows_uci_chess960() {
    let mut gui = Gui::start();
    gui.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1");
    assert_eq!(current_fen(&mut gui), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    gui.send("setoption name UCI_Chess960 value true");
    gui.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1 e8a8");
    assert_eq!(current_fen(&mut gui), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    gui.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    gui.send("perft 1");
    let lines = gui.until("Nodes searched");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 21");
}

#[test]
fn perft_commands_print_the_divide_and_the_total() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    gui.send("go perft 3");
    let lines = gui.until("Nodes searched");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 8902");
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 20 + 1);
    assert!(lines.contains(&"e2e4: 600".to_string()));
    assert_eq!(lines[lines.len() - 2], "");
    gui.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -");
    gui.send("perft 2");
    assert_eq!(
        gui.until("Nodes searched").last().unwrap(),
        "Nodes searched: 2039"
    );
}

#[test]
fn display_shows_fen_and_polyglot_key() {
    let mut gui = Gui::start();
    gui.send("position startpos moves e2e4");
    gui.send("d");
    let lines = gui.sync();
    assert!(
        lines.contains(&"Key: 823C9B50FD114196".to_string()),
        "{lines:#?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with(" | r | n | b | q | k | b | n | r | 8")));
}

/// `eval`'s last line is the value the search uses: the network's by default, the hand-crafted
/// one under `UCI_LimitStrength` (whose rating table was measured with it).
#[test]
fn eval_ends_with_the_value_the_search_uses() {
    let mut gui = Gui::start();
    // No known ending, not the start position: the two evaluations differ here.
    gui.send("position startpos moves e2e4 c7c5 g1f3 d7d6");
    gui.send("eval");
    let network = gui.sync();
    let hce = after_prefix(&network, "HCE: ");
    let nnue_final = after_prefix(&network, "Final evaluation: ");
    assert_ne!(hce, nnue_final, "{network:#?}");

    gui.send("setoption name UCI_LimitStrength value true");
    gui.send("eval");
    let limited = gui.sync();
    assert!(
        !limited.iter().any(|l| l.starts_with("HCE: ")),
        "{limited:#?}"
    );
    assert_eq!(
        after_prefix(&limited, "Final evaluation: "),
        hce,
        "{limited:#?}"
    );
}

#[test]
fn option_names_are_case_insensitive_and_debug_log_records_the_transcript() {
    let dir = std::env::temp_dir().join(format!("brudno-log-{}", std::process::id()));
    let _ = std::fs::remove_file(&dir);
    let mut gui = Gui::start();
    gui.send("setoption name hash value 32");
    gui.send("setoption name move overhead value 20");
    gui.send(&format!(
        "setoption name debug log file value {}",
        dir.display()
    ));
    let lines = gui.sync();
    assert_eq!(count(&lines, "info string error"), 0, "{lines:#?}");
    gui.send("quit");
    assert!(gui.exits_within(Duration::from_secs(5)));
    let log = std::fs::read_to_string(&dir).expect("log file written");
    assert!(log.contains("<< isready"), "{log}");
    assert!(log.contains(">> readyok"), "{log}");
    let _ = std::fs::remove_file(&dir);
}

#[test]
fn command_line_arguments_run_and_exit() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args([
            "perft",
            "2",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.trim_end().ends_with("Nodes searched: 2039"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["go", "depth", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().last().unwrap().starts_with("bestmove "),
        "{text}"
    );
}

#[test]
fn spsa_prints_every_tunable_as_openbench_reads_it() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brudno"))
        .arg("spsa")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut names = Vec::new();
    for line in text.lines() {
        // name, int, default, min, max, c_end, r_end
        let f: Vec<&str> = line.split(", ").collect();
        assert_eq!((f.len(), f[1]), (7, "int"), "{line}");
        let n: Vec<i64> = f[2..6].iter().map(|x| x.parse().unwrap()).collect();
        assert!(n[1] <= n[0] && n[0] <= n[2] && n[3] >= 1, "{line}");
        assert!(f[6].parse::<f64>().unwrap() > 0.0, "{line}");
        names.push(f[0].to_string());
    }
    let listed = brudno::search::params::ALL.iter().map(|t| t.name);
    assert!(names.iter().map(String::as_str).eq(listed), "{text}");
    assert!(names.iter().any(|n| n == "RFP_MARGIN"), "{text}");
}

#[test]
fn the_embedded_book_answers_in_the_opening_and_ownbook_false_never_consults_it() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    gui.send("go wtime 10000 btime 10000");
    let lines = gui.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string book move ")),
        "{lines:#?}"
    );
    assert_eq!(
        count(&lines, "info depth"),
        0,
        "a book move is played without searching"
    );
    let best = bestmove_of(&lines);
    assert!(lines
        .iter()
        .any(|l| l.starts_with(&format!("info string book move {best} (weight "))));

    gui.send("setoption name OwnBook value false");
    gui.send("go wtime 10000 btime 10000");
    let lines = gui.until("bestmove");
    assert_eq!(count(&lines, "info string book"), 0, "{lines:#?}");
    assert!(count(&lines, "info depth") > 0);
}

#[test]
fn outside_the_book_the_engine_searches_and_a_bad_book_file_falls_back() {
    let mut gui = Gui::start();
    answers_with(
        &mut gui,
        "setoption name BookFile value /no/such/book.bin",
        "info string error: book file /no/such/book.bin not used",
    );
    gui.send("position startpos");
    gui.send("go wtime 10000 btime 10000");
    let lines = gui.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string book move ")),
        "embedded book still used"
    );

    gui.send("position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9");
    gui.send("go depth 4");
    let lines = gui.until("bestmove");
    assert_eq!(count(&lines, "info string book"), 0);
    assert!(count(&lines, "info depth") > 0);
}

#[test]
fn syzygy_tables_restrict_the_root_to_moves_that_keep_the_result() {
    let mut gui = Gui::start();
    answers_with(
        &mut gui,
        "setoption name SyzygyPath value /no/such/folder",
        "info string error: SyzygyPath not used",
    );
    let path = format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"));
    answers_with(
        &mut gui,
        &format!("setoption name SyzygyPath value {path}"),
        "info string Syzygy tablebases:",
    );
    // KRK, the rook side to move: only winning moves are kept.
    gui.send("position fen 8/8/8/3k4/8/8/3r4/K7 b - - 0 1");
    gui.send("go depth 6");
    let lines = gui.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string tablebase win")),
        "{lines:#?}"
    );
    // Inside the tree: captures into a covered ending are decided by WDL probes.
    gui.send("position fen 8/8/4k3/8/2R5/3K4/1r6/8 w - - 0 1");
    gui.send("go depth 10");
    let lines = gui.until("bestmove");
    let tbhits = |l: &String| -> u64 {
        let w: Vec<&str> = l.split_whitespace().collect();
        w.iter()
            .position(|&x| x == "tbhits")
            .map_or(0, |i| w[i + 1].parse().unwrap())
    };
    assert!(
        lines.iter().any(|l| tbhits(l) > 0),
        "no tablebase hits: {lines:#?}"
    );
    gui.send("setoption name SyzygyPath value <empty>");
    gui.send("go depth 10");
    let lines = gui.until("bestmove");
    assert!(lines.iter().all(|l| tbhits(l) == 0), "{lines:#?}");
}

#[test]
fn a_panic_in_the_search_is_reported_and_a_legal_move_still_goes_out() {
    // Fault injection: the search panics once it has searched 5,000 nodes.
    let mut gui = Gui::start_with_env(&[("BRUDNO_FAULT_PANIC_AFTER_NODES", "5000")]);
    gui.send("setoption name OwnBook value false");
    gui.send("position startpos moves e2e4");
    gui.send("go depth 12");
    let lines = gui.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: the search failed")),
        "{lines:?}"
    );
    let pos =
        Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    let mv = bestmove_of(&lines);
    assert!(pos.parse_uci_move(&mv).is_some(), "{mv}");
    // The move shown last before the failure is the one played.
    let shown = lines
        .iter()
        .rev()
        .find_map(|l| l.split(" pv ").nth(1))
        .and_then(|pv| pv.split(' ').next())
        .map(str::to_string);
    assert_eq!(shown, Some(mv));
    // The engine goes on: it answers, and a search small enough to finish works.
    gui.sync();
    gui.send("go depth 2");
    let lines = gui.until("bestmove");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
}

/// Every odd `go` gets exactly one legal `bestmove` (a GUI that waits for it must not hang),
/// with an `info string error` for what was ignored. `stop` is sent where the remaining limits
/// leave the search unbounded. (protocol.md, "Errors", the `go` rows.)
#[test]
fn odd_go_limits_still_give_one_legal_bestmove() {
    // (command, an error is reported, the search needs a stop)
    let rows: [(&str, bool, bool); 18] = [
        ("go depth banana", true, true),
        ("go wtime", true, true),
        ("go frobnicate 3 depth 3", true, false),
        ("go nodes -5 depth 3", true, false),
        ("go depth 99999999999", false, true),
        ("go nodes 123456789012345678901234567890", false, true),
        ("go depth 0", false, false),
        ("go nodes 0", false, false),
        ("go mate 0 depth 3", false, false),
        ("go movetime 0", false, false),
        ("go movetime -5", true, false),
        ("go wtime -100 btime -100", true, false),
        ("go wtime 0 btime 0 winc 0 binc 0", false, false),
        ("go wtime 1000 btime 1000 winc -50 binc -50", true, false),
        ("go movestogo 0 wtime 1000 btime 1000", false, false),
        ("go depth 4 infinite", false, true),
        ("go ponder", false, true),
        ("go searchmoves e2e5 depth 3", true, false),
    ];
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("position startpos moves e2e4 c7c5");
    let fen = current_fen(&mut gui);
    let pos = Position::from_fen(&fen).unwrap();
    for (command, error, needs_stop) in rows {
        gui.send(command);
        let mut lines = Vec::new();
        if needs_stop {
            // Unbounded: no bestmove until told.
            lines = gui.drain(Duration::from_millis(150));
            assert_eq!(
                count(&lines, "bestmove"),
                0,
                "'{command}' ended alone: {lines:?}"
            );
            gui.send("stop");
        }
        lines.extend(gui.until("bestmove"));
        lines.extend(gui.sync());
        assert_eq!(count(&lines, "bestmove"), 1, "'{command}': {lines:?}");
        assert!(
            pos.parse_uci_move(&bestmove_of(&lines)).is_some(),
            "'{command}'"
        );
        let reported = lines.iter().any(|l| l.starts_with("info string error:"));
        assert_eq!(reported, error, "'{command}': {lines:?}");
        assert_eq!(
            current_fen(&mut gui),
            fen,
            "'{command}' changed the position"
        );
    }
    // Out of place: ponderhit and stop with no search are ignored.
    gui.send("ponderhit");
    gui.send("stop");
    let lines = gui.sync();
    assert_eq!(lines, vec!["readyok"]);
}

/// Found by tests/uci_fuzz.rs: a `go` sent during an unbounded search, then `stop`, left the
/// first search running for ever (the stop waited for the queued `go`).
#[test]
fn stop_with_a_queued_go_ends_both_searches() {
    let mut gui = Gui::start();
    gui.send("setoption name OwnBook value false");
    gui.send("go infinite");
    gui.send("go depth 30");
    std::thread::sleep(Duration::from_millis(100));
    gui.send("stop");
    gui.until("bestmove");
    gui.until("bestmove");
    assert_eq!(count(&gui.sync(), "bestmove"), 0);
}

/// A book position (1. e4 e5 2. Nf3 Nc6), for the book policy tests.
const BOOK_LINE: &str = "position startpos moves e2e4 e7e5 g1f3 b8c6";

#[test]
fn analysis_limits_always_search_even_where_the_book_knows_the_move() {
    let mut gui = Gui::start();
    for (setup, go) in [
        ("", "go depth 6"),
        ("", "go nodes 20000"),
        ("setoption name MultiPV value 2", "go movetime 200"),
        (
            "setoption name MultiPV value 1",
            "go wtime 60000 btime 60000 depth 5",
        ),
    ] {
        gui.send(setup);
        gui.send(BOOK_LINE);
        gui.send(go);
        let lines = gui.until("bestmove");
        assert!(
            !lines.iter().any(|l| l.contains("book move")),
            "'{go}' answered from the book: {lines:#?}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")
                && l.contains(" score ")
                && l.contains(" pv ")),
            "'{go}' gave no score and pv: {lines:#?}"
        );
    }
    // `go infinite` too, until stopped.
    gui.send(BOOK_LINE);
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    gui.send("stop");
    let lines = gui.until("bestmove");
    assert!(lines.iter().any(|l| l.contains(" pv ")), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("book move")));
}

#[test]
fn a_game_clock_in_a_book_position_plays_the_book_move() {
    let mut gui = Gui::start();
    for go in [
        "go wtime 60000 btime 60000 winc 1000 binc 1000",
        "go movetime 1000",
    ] {
        gui.send(BOOK_LINE);
        gui.send(go);
        let lines = gui.until("bestmove");
        let book = lines
            .iter()
            .find_map(|l| l.strip_prefix("info string book move "))
            .unwrap_or_else(|| panic!("'{go}': no book move: {lines:#?}"));
        let book_move = book.split_whitespace().next().unwrap();
        assert_eq!(bestmove_of(&lines), book_move);
        assert_eq!(
            lines.len(),
            2,
            "a book move comes without a search: {lines:#?}"
        );
    }
}

#[test]
fn help_and_version_on_the_command_line_exit_at_once() {
    let exe = env!("CARGO_BIN_EXE_brudno");
    for (arg, expect) in [
        ("--help", "Usage"),
        ("-h", "Usage"),
        ("--version", "Brudno "),
        ("-V", "Brudno "),
    ] {
        let out = std::process::Command::new(exe)
            .arg(arg)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{arg}: {:?}", out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(expect), "{arg}: {text}");
    }
}

#[test]
fn bad_network_files_are_errors_and_the_network_in_use_stays() {
    let dir = std::env::temp_dir().join(format!("brudno-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let net = brudno::eval::nnue::network::EMBEDDED.to_vec();
    let cut = dir.join("cut.nnue");
    std::fs::write(&cut, &net[..net.len() / 2]).unwrap();
    let long = dir.join("long.nnue");
    std::fs::write(&long, [&net[..], &[0u8; 64]].concat()).unwrap();
    let garbage = dir.join("garbage.nnue");
    std::fs::write(&garbage, vec![0x7Fu8; net.len()]).unwrap();
    let good = dir.join("good.nnue");
    std::fs::write(&good, &net).unwrap();
    // Version-1 files: one of another shape, and the same with a damaged payload or an
    // unknown version.
    use brudno::eval::nnue::{Network, Shape};
    let shape = Shape {
        width: 256,
        buckets: 8,
        mirrored: true,
    };
    let v1 = Network::random_shape(shape, 1).to_bytes();
    let wide = dir.join("wide.nnue");
    std::fs::write(&wide, &v1).unwrap();
    let mut damaged_bytes = v1.clone();
    damaged_bytes[5000] ^= 1;
    let damaged = dir.join("damaged.nnue");
    std::fs::write(&damaged, &damaged_bytes).unwrap();
    let mut future_bytes = v1.clone();
    future_bytes[8] = 2;
    let future = dir.join("future.nnue");
    std::fs::write(&future, &future_bytes).unwrap();

    let mut gui = Gui::start();
    gui.send("setoption name Evaluation value nnue");
    gui.send("position startpos moves e2e4");
    gui.send("eval");
    let before = gui.sync();
    let final_line = |lines: &[String]| {
        lines
            .iter()
            .find(|l| l.starts_with("Final evaluation"))
            .cloned()
    };
    for bad in [
        dir.join("missing.nnue"),
        dir.clone(),
        std::path::PathBuf::from("/dev/zero"),
        cut,
        long,
        garbage,
        damaged,
        future,
    ] {
        let line = format!("setoption name EvalFile value {}", bad.display());
        answers_with(&mut gui, &line, "info string error: EvalFile");
        gui.send("eval");
        assert_eq!(final_line(&gui.sync()), final_line(&before), "{line}");
    }
    answers_with(
        &mut gui,
        &format!("setoption name EvalFile value {}", good.display()),
        "info string network ",
    );
    gui.send("go depth 4");
    gui.until("bestmove");
    gui.send(&format!("setoption name EvalFile value {}", wide.display()));
    let lines = gui.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("info string network ")
            && l.contains("(768 -> 256)x2 -> 8 buckets, mirrored")),
        "{lines:?}"
    );
    gui.send("eval");
    assert_ne!(final_line(&gui.sync()), final_line(&before));
    gui.send("go depth 4");
    gui.until("bestmove");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `brudno "genfens N seed S book B " "quit"`, as an OpenBench worker runs it.
fn genfens(args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.strip_prefix("info string genfens ")
                .unwrap_or_else(|| panic!("unexpected line {l}"))
                .to_string()
        })
        .collect()
}

#[test]
fn genfens_gives_legal_playable_reproducible_openings() {
    let a = genfens(&["genfens 12 seed 5 book None ", "quit"]);
    assert_eq!(a.len(), 12);
    assert_eq!(a, genfens(&["genfens 12 seed 5 book None ", "quit"]));
    assert_ne!(a, genfens(&["genfens 12 seed 6 book None ", "quit"]));
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/frc-perft.epd");
    let from_book = genfens(&[&format!("genfens 6 seed 1 book {book} dfrc"), "quit"]);
    assert_eq!(from_book.len(), 6);
    for fen in a.iter().chain(&from_book) {
        assert_eq!(fen.split_whitespace().count(), 6, "{fen}");
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(pos.has_legal_move(), "{fen}");
        assert_eq!(pos.to_fen(), *fen);
    }
    // A book that is not there is an error line, and the engine goes on.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["genfens 3 seed 1 book /no/such/book.epd", "isready"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("info string error: genfens:") && text.contains("readyok"),
        "{text}"
    );
}

#[test]
fn a_hash_the_machine_cannot_give_is_an_error_and_the_engine_goes_on() {
    let mut gui = Gui::start();
    gui.send("setoption name Hash value 32");
    gui.send("setoption name Hash value 65536");
    let lines = gui.sync();
    let error = lines
        .iter()
        .find(|l| l.starts_with("info string error: Hash 65536 MiB not used"))
        .unwrap_or_else(|| panic!("no error for 65536 MiB (this test needs a machine with less than 72 GB): {lines:#?}"));
    assert!(error.contains("the table stays at 32 MiB"), "{error}");
    gui.send("position startpos");
    gui.send("go depth 6");
    gui.until("bestmove");
    // The engine is still alive, with a table it could have.
    assert!(gui.exit_status().is_none());
}

#[test]
fn a_debug_log_file_that_cannot_be_opened_leaves_the_log_as_it_was() {
    let dir = std::env::temp_dir().join(format!("brudno-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("transcript.txt");
    let mut gui = Gui::start();
    gui.send(&format!(
        "setoption name Debug Log File value {}",
        log.display()
    ));
    gui.sync();
    answers_with(
        &mut gui,
        "setoption name Debug Log File value /dev/zero",
        "info string error: cannot open debug log file '/dev/zero'",
    );
    gui.send("position startpos moves e2e4");
    gui.sync();
    // The transcript goes on in the first file, after the refusal.
    let text = std::fs::read_to_string(&log).unwrap();
    let refused = text
        .find("<< setoption name Debug Log File value /dev/zero")
        .unwrap_or_else(|| panic!("{text}"));
    let after = &text[refused..];
    assert!(after.contains("<< position startpos moves e2e4"), "{text}");
    assert!(after.contains(">> readyok"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn folders_devices_fifos_and_huge_files_are_refused_before_reading() {
    let dir = std::env::temp_dir().join(format!("brudno-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.bin");
    let made_fifo = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let huge = dir.join("huge.bin");
    // Sparse: 2 GiB on paper, nothing on disk.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let mut paths = vec![dir.clone(), std::path::PathBuf::from("/dev/zero"), huge];
    if made_fifo {
        paths.push(fifo.clone());
    }
    let mut gui = Gui::start();
    for path in &paths {
        for (option, error) in [
            ("BookFile", "info string error: book file"),
            ("EvalFile", "info string error: EvalFile"),
            (
                "Debug Log File",
                "info string error: cannot open debug log file",
            ),
        ] {
            if option == "Debug Log File" && path.ends_with("huge.bin") {
                continue; // a big regular file is a fine place to append a transcript
            }
            let start = Instant::now();
            answers_with(
                &mut gui,
                &format!("setoption name {option} value {}", path.display()),
                error,
            );
            assert!(
                start.elapsed() < Duration::from_secs(2),
                "{option} {}",
                path.display()
            );
        }
    }
    // A FIFO named like a table among real tables: the table reader opens every table name
    // in a folder it is given, so that folder is not used at all (it hung `isready` before);
    // a second folder's tables are.
    let syzygy = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
    let (mixed, good) = (dir.join("mixed"), dir.join("good"));
    for folder in [&mixed, &good] {
        std::fs::create_dir_all(folder).unwrap();
    }
    for table in ["KRvK.rtbw", "KRvK.rtbz"] {
        std::fs::copy(format!("{syzygy}/{table}"), mixed.join(table)).unwrap();
    }
    for table in ["KQvK.rtbw", "KQvK.rtbz"] {
        std::fs::copy(format!("{syzygy}/{table}"), good.join(table)).unwrap();
    }
    if made_fifo {
        std::fs::rename(&fifo, mixed.join("KQvK.rtbw")).unwrap();
        let start = Instant::now();
        gui.send(&format!(
            "setoption name SyzygyPath value {}:{}",
            mixed.display(),
            good.display()
        ));
        let lines = gui.sync();
        assert!(start.elapsed() < Duration::from_secs(2), "{lines:?}");
        let refused = format!(
            "info string SyzygyPath folder {} not used: ",
            mixed.display()
        );
        assert!(lines.iter().any(|l| l.starts_with(&refused)), "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string Syzygy tablebases: 1 WDL and 1 DTZ")),
            "{lines:?}"
        );
        // The good folder's tables are probed at the root.
        gui.send("position fen 8/8/8/3k4/8/8/8/Q3K3 w - - 0 1");
        gui.send("go depth 3");
        let lines = gui.until("bestmove");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string tablebase win")),
            "{lines:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_panic_in_the_main_search_with_helpers_still_answers() {
    // With helpers running, the main thread's panic must stop them too (the tables are
    // cleared afterwards, which waits for every helper).
    let mut gui = Gui::start_with_env(&[("BRUDNO_FAULT_PANIC_AFTER_NODES", "5000")]);
    gui.send("setoption name OwnBook value false");
    gui.send("setoption name Threads value 3");
    gui.send("position startpos");
    gui.send("go infinite");
    gui.until_within(
        "info string error: the search failed",
        Duration::from_secs(20),
    )
    .expect("the panic is reported");
    gui.send("stop");
    gui.until_within("bestmove", Duration::from_secs(20))
        .expect("a bestmove after the stop (the helpers did not hold the engine)");
    gui.send("go depth 3");
    gui.until_within("bestmove", Duration::from_secs(20))
        .expect("the engine searches again");
}
