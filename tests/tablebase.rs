//! Syzygy probing against python-chess's expectations, on the tables in `tests/data/syzygy`
//! (see `tests/data/SOURCES.md`). One set of tables is open per process, so the tests here take
//! turns.

use brudno::chess::Position;
use brudno::tablebase::{Tablebases, Wdl};
use std::sync::Mutex;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
static EXPECTED: &str = include_str!("data/syzygy/expected.tsv");
static RANDOM: &str = include_str!("data/syzygy/random.tsv");
static TURN: Mutex<()> = Mutex::new(());

fn rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("fen\t"))
        .map(|l| l.split('\t').collect())
}

/// Checks one position: WDL, root DTZ, and that every root move's result agrees with a WDL
/// probe of the position after it.
fn check(tb: &Tablebases, fen: &str, wdl: Option<i32>, dtz: Option<i32>) {
    let pos = Position::from_fen(fen).unwrap();
    if let Some(w) = wdl {
        assert_eq!(tb.probe_wdl(&pos).map(Wdl::value), Some(w), "wdl {fen}");
    }
    let Some(dtz) = dtz else { return };
    let root = tb
        .probe_root(&pos, &[], true)
        .unwrap_or_else(|| panic!("no root probe for {fen}"));
    assert_eq!(root.dtz, dtz, "dtz {fen}");
    if let Some(w) = wdl {
        // The table's WDL counts the 50-move rule from a fresh clock, like the root probe here.
        assert_eq!(root.wdl.value(), w, "root wdl {fen}");
    }
    assert_eq!(root.moves.len(), pos.legal_moves().len());
    for m in &root.moves {
        let child = pos.after(m.mv);
        if child.legal_moves().is_empty() {
            continue; // mate or stalemate: no table probe needed
        }
        let after = tb.probe_wdl(&child).expect("child probe").flip();
        if child.halfmove_clock() == 0 {
            assert_eq!(after, m.wdl, "{fen} {:?}", m.mv);
        } else {
            // The table does not know the clock: only the 50-move-rule-free results agree.
            assert_eq!(
                after.without_50_move_rule(),
                m.wdl.without_50_move_rule(),
                "{fen} {:?}",
                m.mv
            );
        }
    }
    if root.moves.is_empty() {
        assert!(root.keep.is_empty() && root.dtz_best.is_none());
        return;
    }
    // The kept moves all have the best result; the DTZ pick is one of them.
    let best = root.moves.iter().map(|m| m.wdl).max().unwrap();
    assert!(!root.keep.is_empty());
    for k in &root.keep {
        let m = root.moves.iter().find(|m| m.mv == *k).unwrap();
        assert_eq!(m.wdl, best, "{fen}");
    }
    assert_eq!(best, root.wdl, "{fen}");
    let pick = root.dtz_best.expect("dtz move");
    assert!(root.moves.iter().any(|m| m.mv == pick && m.wdl == best));
}

#[test]
fn python_chess_test_positions() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let tb = Tablebases::open(TABLES).unwrap();
    assert_eq!(tb.max_pieces(), 4);
    assert!(tb.warnings().is_empty(), "{:?}", tb.warnings());
    let (mut wdl_rows, mut dtz_rows) = (0, 0);
    for r in rows(EXPECTED) {
        let wdl = r[2].parse().ok();
        let dtz = r[3].parse().ok();
        check(&tb, r[0], wdl, dtz);
        wdl_rows += wdl.is_some() as u32;
        dtz_rows += dtz.is_some() as u32;
    }
    assert!(wdl_rows >= 180 && dtz_rows >= 80, "{wdl_rows} {dtz_rows}");
}

#[test]
fn random_positions() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let tb = Tablebases::open(TABLES).unwrap();
    let mut n = 0;
    for r in rows(RANDOM) {
        check(&tb, r[0], r[1].parse().ok(), r[2].parse().ok());
        n += 1;
    }
    assert!(n >= 400);
}

#[test]
fn not_covered_positions_are_none() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let tb = Tablebases::open(TABLES).unwrap();
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // 32 pieces
        "4k3/8/8/8/8/8/PP6/R3K3 w Q - 0 1",                         // 5 pieces
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",                           // castling rights
        "8/8/8/8/8/2k5/1p6/4K3 w - - 0 1",                          // fine: KvKP
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let expect = fen.ends_with("w - - 0 1");
        assert_eq!(tb.probe_wdl(&pos).is_some(), expect, "{fen}");
    }
    // KRvKN has a WDL table here but no DTZ table: WDL yes, root probe no.
    let pos = Position::from_fen("8/8/8/3k4/8/1n6/8/R3K3 w - - 0 1").unwrap();
    assert!(tb.probe_wdl(&pos).is_some());
    assert!(tb.probe_root(&pos, &[], true).is_none());
}

#[test]
fn bad_paths_are_errors_not_crashes() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let err = Tablebases::open("/nonexistent/syzygy").unwrap_err();
    assert!(err.contains("no Syzygy tables found"), "{err}");
    assert!(err.contains("/nonexistent/syzygy"), "{err}");
    assert!(Tablebases::open("").is_err());

    let dir = std::env::temp_dir().join(format!("brudno-tb-test-{}", std::process::id()));
    let (empty, damaged) = (dir.join("empty"), dir.join("damaged"));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&damaged).unwrap();
    let good = std::fs::read(format!("{TABLES}/KQvK.rtbw")).unwrap();
    std::fs::write(damaged.join("KQvK.rtbw"), &good[..good.len() - 7]).unwrap();
    std::fs::write(damaged.join("KRvK.rtbw"), vec![0u8; 208]).unwrap();
    let err = Tablebases::open(empty.to_str().unwrap()).unwrap_err();
    assert!(err.contains("has no Syzygy tables"), "{err}");
    let err = Tablebases::open(damaged.to_str().unwrap()).unwrap_err();
    assert!(err.contains("damaged table"), "{err}");

    // A damaged folder next to a good one: the good one is used, the damaged one reported.
    let both = format!("{};{TABLES}:{}", damaged.display(), empty.display());
    let tb = Tablebases::open(&both).unwrap();
    assert_eq!(tb.folders().len(), 1);
    assert_eq!(tb.warnings().len(), 2, "{:?}", tb.warnings());
    let pos = Position::from_fen("8/8/8/3k4/8/8/8/Q3K3 w - - 0 1").unwrap();
    assert_eq!(tb.probe_wdl(&pos), Some(Wdl::Win));
    assert!(tb.summary().contains("up to 4 pieces"), "{}", tb.summary());

    // Opening again replaces the set: the old handle then finds nothing.
    let again = Tablebases::open(TABLES).unwrap();
    assert_eq!(tb.probe_wdl(&pos), None);
    assert_eq!(again.probe_wdl(&pos), Some(Wdl::Win));
    std::fs::remove_dir_all(&dir).ok();
}

/// Winning with the tables: in KQvK and KRvK, the DTZ move is a mating plan (zeroing = mate).
#[test]
fn root_keeps_winning_moves_and_dtz_converts() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let tb = Tablebases::open(TABLES).unwrap();
    for fen in [
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
    ] {
        let mut pos = Position::from_fen(fen).unwrap();
        let root = tb.probe_root(&pos, &[], true).unwrap();
        assert_eq!(root.wdl, Wdl::Win);
        let start_dtz = root.dtz;
        assert!(root.keep.len() > 1);
        let mut plies = 0;
        while !pos.legal_moves().is_empty() {
            let r = tb.probe_root(&pos, &[], true).unwrap();
            pos.play(r.dtz_best.unwrap());
            plies += 1;
            assert!(plies <= start_dtz.abs() + 1, "{fen}");
        }
        assert!(pos.in_check(), "mate, not stalemate: {fen}");
    }
    // After a repetition only the quickest wins are kept.
    let pos = Position::from_fen("8/8/8/4k3/8/8/8/R3K3 w - - 4 3").unwrap();
    let fresh = tb.probe_root(&pos, &[], true).unwrap();
    let repeated = tb.probe_root(&pos, &[1, 2, pos.key(), 3], true).unwrap();
    assert!(repeated.keep.len() < fresh.keep.len());
    let best = repeated
        .moves
        .iter()
        .filter(|m| m.wdl == Wdl::Win)
        .map(|m| m.dtz)
        .min();
    for k in &repeated.keep {
        assert_eq!(
            repeated.moves.iter().find(|m| m.mv == *k).map(|m| m.dtz),
            best
        );
    }
}

/// The KPK bitbase, and the known-ending evaluation built on it, against the KPvK table: every
/// legal position, pawn on any file, either side to move, either colour.
#[test]
fn kpk_bitbase_equals_syzygy() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let tb = Tablebases::open(TABLES).unwrap();
    let t = std::time::Instant::now();
    brudno::endgame::kpk::init();
    eprintln!("KPK bitbase built in {:?}", t.elapsed());
    let name = |i: u8| brudno::chess::Square::new(i).to_string();
    let mut checked = 0;
    for wk in 0..64u8 {
        for bk in 0..64u8 {
            for p in 8..56u8 {
                if wk == bk || wk == p || bk == p {
                    continue;
                }
                for white_to_move in [true, false] {
                    let mut board = ['.'; 64];
                    board[wk as usize] = 'K';
                    board[bk as usize] = 'k';
                    board[p as usize] = 'P';
                    let fen = fen_of(&board, white_to_move);
                    let Ok(pos) = Position::from_fen(&fen) else {
                        continue;
                    };
                    let wdl = tb.probe_wdl(&pos).expect("KPvK covered");
                    let white_wins = wdl.value().signum() == if white_to_move { 1 } else { -1 };
                    let sq = brudno::chess::Square::new;
                    assert_eq!(
                        brudno::endgame::kpk::probe(sq(wk), sq(p), sq(bk), white_to_move),
                        white_wins,
                        "{fen} ({} {} {})",
                        name(wk),
                        name(p),
                        name(bk)
                    );
                    // The evaluation, for this position and with colours reversed.
                    let known = brudno::endgame::evaluate_known(&pos).unwrap();
                    let stm_wins = white_wins == white_to_move;
                    assert_eq!(known > 0, white_wins && stm_wins, "{fen}");
                    assert_eq!(known == 0, !white_wins, "{fen}");
                    let mut flipped = ['.'; 64];
                    for (i, c) in board.iter().enumerate() {
                        flipped[i ^ 56] = if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        };
                    }
                    let fen2 = fen_of(&flipped, !white_to_move);
                    let pos2 = Position::from_fen(&fen2).unwrap();
                    assert_eq!(
                        brudno::endgame::evaluate_known(&pos2),
                        Some(known),
                        "{fen2}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 300_000, "{checked}");
}

fn fen_of(board: &[char; 64], white_to_move: bool) -> String {
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let c = board[rank * 8 + file];
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    fen.push_str(&empty.to_string());
                    empty = 0;
                }
                fen.push(c);
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen + if white_to_move {
        " w - - 0 1"
    } else {
        " b - - 0 1"
    }
}
