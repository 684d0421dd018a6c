//! Unit tests of `command.rs`: what each line parses to.

use super::*;

fn go(line: &str) -> GoParams {
    match parse(line) {
        Command::Go(g) => g,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn simple_commands() {
    assert_eq!(parse("uci"), Command::Uci);
    assert_eq!(parse("isready\r"), Command::IsReady);
    assert_eq!(parse("  quit  "), Command::Quit);
    assert_eq!(parse(""), Command::Empty);
    assert_eq!(parse("d"), Command::Display);
    assert_eq!(parse("perft 3"), Command::Perft(3));
    assert_eq!(parse("bench"), Command::Bench(None));
    assert_eq!(
        parse("genfens 10 seed 42 book None "),
        Command::GenFens {
            count: 10,
            seed: 42,
            book: None,
            extra: String::new()
        }
    );
    assert_eq!(
        parse("genfens 3 seed 7 book books/a.epd dfrc"),
        Command::GenFens {
            count: 3,
            seed: 7,
            book: Some("books/a.epd".into()),
            extra: "dfrc".into()
        }
    );
    assert!(matches!(parse("genfens many"), Command::Invalid { .. }));
    assert_eq!(parse("bench 7"), Command::Bench(Some(7)));
    assert!(matches!(parse("bench x"), Command::Invalid { .. }));
    assert!(matches!(parse("xyzzy"), Command::Invalid { .. }));
}

#[test]
fn setoption_names_and_values_with_spaces() {
    assert_eq!(
        parse("setoption name Clear Hash"),
        Command::SetOption {
            name: "Clear Hash".into(),
            value: None
        }
    );
    assert_eq!(
        parse("setoption name Move Overhead value 30"),
        Command::SetOption {
            name: "Move Overhead".into(),
            value: Some("30".into())
        }
    );
    assert_eq!(
        parse("setoption name BookFile value /tmp/my book.bin"),
        Command::SetOption {
            name: "BookFile".into(),
            value: Some("/tmp/my book.bin".into())
        }
    );
}

#[test]
fn positions_vampirc_rejects_are_still_read() {
    assert_eq!(
        parse("position fen 4k3/8/8/8/8/8/8/4K2R w K - moves e1g1"),
        Command::Position {
            base: PositionBase::Fen("4k3/8/8/8/8/8/8/4K2R w K -".into()),
            moves: vec!["e1g1".into()]
        }
    );
    assert_eq!(
        parse("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
        Command::Position {
            base: PositionBase::Fen(
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into()
            ),
            moves: vec![]
        }
    );
    assert_eq!(
        parse("position startpos moves e2e4 0000"),
        Command::Position {
            base: PositionBase::StartPos,
            moves: vec!["e2e4".into(), "0000".into()]
        }
    );
}

#[test]
fn go_in_all_combinations() {
    let g = go("go wtime 1000 btime -50 winc 10 binc 10 movestogo 20");
    assert_eq!(
        (
            g.limits.wtime,
            g.limits.btime,
            g.limits.winc,
            g.limits.movestogo
        ),
        (Some(1000), Some(-50), Some(10), Some(20))
    );
    let g = go("go ponder wtime 1000 btime 2000");
    assert!(g.limits.ponder);
    assert_eq!((g.limits.wtime, g.limits.btime), (Some(1000), Some(2000)));
    let g = go("go depth 300");
    assert_eq!(g.limits.depth, Some(300));
    let g = go("go infinite searchmoves e2e4 d2d4 depth 3");
    assert!(g.limits.infinite);
    assert_eq!(g.searchmoves, vec!["e2e4", "d2d4"]);
    assert_eq!(g.limits.depth, Some(3));
    let g = go("go searchmoves 0000");
    assert_eq!(g.searchmoves, vec!["0000"]);
    assert_eq!(go("go perft 4").perft, Some(4));
    assert_eq!(go("go movetime 100").limits.movetime, Some(100));
    assert_eq!(go("go mate 3").limits.mate, Some(3));
    assert_eq!(go("go nodes 5000").limits.nodes, Some(5000));
    assert_eq!(go("go"), GoParams::default());
    // A bad parameter is left out with a warning; the search still runs.
    let g = go("go depth x wtime 500");
    assert_eq!((g.limits.depth, g.limits.wtime), (None, Some(500)));
    assert_eq!(g.warnings, vec!["go depth: 'x' is not a number; ignored"]);
    let g = go("go wtime btime 300");
    assert_eq!((g.limits.wtime, g.limits.btime), (None, Some(300)));
    assert_eq!(g.warnings, vec!["go wtime needs a value; ignored"]);
    let g = go("go depth 99999999999 nodes 123456789012345678901234567890");
    assert_eq!(
        (g.limits.depth, g.limits.nodes),
        (Some(u32::MAX), Some(u64::MAX))
    );
    assert!(g.warnings.is_empty());
    let g = go("go nodes -5 movestogo -1 depth 4 frobnicate");
    assert_eq!((g.limits.nodes, g.limits.movestogo), (None, None));
    assert_eq!(g.limits.depth, Some(4));
    assert_eq!(g.warnings.len(), 3, "{:?}", g.warnings);
    assert!(go("go wtime -99999999999999999999999").limits.wtime < Some(-1_000_000_000));
    assert_eq!(go("go btime +1500").limits.btime, Some(1500));
    // Found by tests/uci_fuzz.rs: vampirc-uci dropped these depths.
    assert_eq!(go("go binc -5 depth depth 2").limits.depth, Some(2));
    assert_eq!(
        go("go mate 1 movetime 9 searchmoves depth 2").limits.depth,
        Some(2)
    );
    assert!(matches!(parse("go perft x"), Command::Invalid { .. }));
    assert!(matches!(parse("go perft -1"), Command::Invalid { .. }));
}

#[test]
fn stats_takes_on_off_or_nothing_and_tree_an_engine_mode() {
    assert_eq!(parse("stats"), Command::Stats(StatsRequest::Show));
    assert_eq!(parse("Stats ON"), Command::Stats(StatsRequest::On));
    assert_eq!(parse("stats off"), Command::Stats(StatsRequest::Off));
    for bad in ["stats maybe", "stats on now"] {
        assert!(matches!(parse(bad), Command::Invalid { .. }), "{bad}");
    }
    // Exact words: `statistics` is no `stats`.
    assert!(!matches!(parse("statistics"), Command::Stats(_)));
    match parse("tree 3 engine moves e2e4 d2d4 svg t.svg") {
        Command::Tree(req) => {
            assert_eq!(req.variant, "engine");
            assert_eq!(req.moves, ["e2e4", "d2d4"]);
            assert_eq!(req.svg.as_deref(), Some("t.svg"));
        }
        other => panic!("{other:?}"),
    }
}
