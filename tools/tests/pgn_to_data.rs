//! `brudno-tools pgn-to-data` on two real fastchess PGNs (copies in `tests/data`, see
//! `SOURCES.md` there): the counts, scores, moves and results checked by hand from the PGN text,
//! every written game read back, the player filter, and appending to a cut file.

use brudno::chess::{Outcome, Position};
use brudno::datagen::format::{whole_games, GameReader, GameRecord};
use brudno_tools::pgn_to_data::{convert, run, Summary, MATE};
use std::path::{Path, PathBuf};

const ETHEREAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/brudno-ethereal-8+0.08.pgn"
);
const TOGA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/brudno-toga2-8+0.08.pgn"
);

/// A fresh output path for one test.
fn out(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pgn-to-data-{name}.vf"));
    let _ = std::fs::remove_file(&path);
    path
}

fn read_back(path: &Path) -> Vec<GameRecord> {
    let bytes = std::fs::read(path).unwrap();
    let games: Vec<GameRecord> = GameReader::new(&bytes).map(Result::unwrap).collect();
    assert_eq!(whole_games(&bytes), (games.len(), bytes.len()));
    games
}

fn uci(record: &GameRecord, ply: usize) -> String {
    let mut pos = record.start;
    for &(m, _) in &record.plies[..ply] {
        pos.play(m);
    }
    pos.move_to_uci(record.plies[ply].0, false)
}

#[test]
fn the_fastchess_samples_convert_as_their_text_reads() {
    let path = out("samples");
    let files = [ETHEREAL.to_string(), TOGA.to_string()];
    let s = convert(&files, &path, None).unwrap();
    // 60 games a file, every one with a result and a score on each move after the book:
    // 6,551 and 5,925 scored moves (counted independently with python-chess).
    let positions = 6_551 + 5_925;
    assert_eq!(
        s,
        Summary {
            games: 120,
            kept: 120,
            positions,
            bytes: 120 * 36 + 4 * positions,
            ..Summary::default()
        }
    );
    let games = read_back(&path);
    assert_eq!(games.len(), 120);
    assert_eq!(
        games.iter().map(|g| g.plies.len()).sum::<usize>(),
        positions
    );
    let outcomes = |o| games.iter().filter(|g| g.outcome == o).count();
    // Result tags: 25 + 32 white wins, 30 + 23 black wins, 5 + 5 draws.
    assert_eq!(outcomes(Outcome::WhiteWins), 57);
    assert_eq!(outcomes(Outcome::BlackWins), 53);
    assert_eq!(outcomes(Outcome::Draw), 10);

    // Game 1 (Ethereal-Brudno 1-0): 16 book plies, then `9. Be2 {-0.15/14 0.263s} b6
    // {-0.26/14 1.319s}` … `58... Kh8 {-15.44/10 0.086s, White wins by adjudication}`.
    let g = &games[0];
    assert_eq!(
        g.start,
        Position::from_fen("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/1PN2N2/PB3PPP/R2QKB1R w KQ - 1 9")
            .unwrap()
    );
    assert_eq!(g.outcome, Outcome::WhiteWins);
    assert_eq!(g.plies.len(), 100);
    assert_eq!((uci(g, 0).as_str(), g.plies[0].1), ("f1e2", -15));
    assert_eq!((uci(g, 1).as_str(), g.plies[1].1), ("b7b6", 26));
    assert_eq!((uci(g, 99).as_str(), g.plies[99].1), ("g8h8", 1544));
    // Game 2 (Brudno-Ethereal 0-1): `105... Rb3 {+M45/18 0.111s}`, Black mating.
    let g = &games[1];
    assert_eq!(g.outcome, Outcome::BlackWins);
    assert_eq!((uci(g, 209 - 16).as_str(), g.plies[193].1), ("g3b3", -MATE));
    // The Toga file's first game ends `36. Be1 {-M6/63 0.021s, Black wins by adjudication}`.
    let g = &games[60];
    assert_eq!((g.plies.len(), g.outcome), (55, Outcome::BlackWins));
    assert_eq!(g.plies[54].1, -MATE);
    // Its last: `33... Rhg2+ {0.00/19 0.202s, Draw by 3-fold repetition} 1/2-1/2`.
    let g = &games[119];
    assert_eq!((g.plies.len(), g.outcome), (50, Outcome::Draw));
    assert_eq!((uci(g, 49).as_str(), g.plies[49].1), ("h2g2", 0));
}

#[test]
fn brudno_plays_in_none_of_the_samples_games_by_itself() {
    let path = out("brudno-only");
    let s = convert(&[ETHEREAL.to_string()], &path, Some("Brudno")).unwrap();
    assert_eq!((s.games, s.kept, s.other_players), (60, 0, 60));
    assert!(read_back(&path).is_empty());
    // `ethereal` against `Ethereal 12.00`: one side matching is not enough.
    let s = convert(&[ETHEREAL.to_string()], &path, Some("ethereal")).unwrap();
    assert_eq!((s.kept, s.other_players), (0, 60));
}

#[test]
fn appending_cuts_a_partial_last_game_and_refuses_what_is_not_data() {
    let path = out("append");
    run(&[
        "--out".into(),
        path.display().to_string(),
        "--players".into(),
        "any".into(),
        ETHEREAL.into(),
    ])
    .unwrap();
    let once = std::fs::read(&path).unwrap();
    let last = read_back(&path)[59].encoded_len();
    // A run killed while writing its last game.
    std::fs::write(&path, &once[..once.len() - 7]).unwrap();
    let s = convert(&[ETHEREAL.to_string()], &path, None).unwrap();
    assert_eq!((s.games_before, s.cut_off), (59, last - 7));
    let games = read_back(&path);
    assert_eq!(games.len(), 119);
    assert_eq!(games[..59], games[59..118]);

    // A PGN given as the output by mistake is left as it is.
    let pgn = out("not-data");
    std::fs::copy(TOGA, &pgn).unwrap();
    assert!(convert(&[ETHEREAL.to_string()], &pgn, None).is_err());
    assert_eq!(std::fs::read(&pgn).unwrap(), std::fs::read(TOGA).unwrap());
    assert!(run(&[ETHEREAL.into()]).is_err(), "--out is needed");
}
