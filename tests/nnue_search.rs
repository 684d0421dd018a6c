//! The network inside the search: with debug assertions on (`cargo test --test nnue_search`,
//! as `.ci/run` does), every evaluation the search makes is checked against a from-scratch
//! evaluation of the same position, so a move made without telling the evaluator (a missed
//! make path) fails here. In any build, the search with the network gives legal moves and
//! sensible scores.

use brudno::chess::Position;
use brudno::eval::nnue::network::embedded;
use brudno::eval::EvalChoice;
use brudno::search::{Limits, Score, SearchControl, SearchOptions, Searcher};

fn search(fen: &str, depth: u32, options: &SearchOptions) -> (String, Score) {
    brudno::chess::attacks::init();
    brudno::endgame::kpk::init();
    let pos = Position::from_fen(fen).unwrap();
    let mut searcher = Searcher::new(8);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let r = searcher.search(
        &pos,
        &[],
        &limits,
        options,
        &SearchControl::new(),
        &mut |_| {},
    );
    let best = r.best.expect("a legal move");
    assert!(pos.legal_moves().contains(best));
    (pos.move_to_uci(best, false), r.score.unwrap())
}

#[test]
fn searches_with_the_network_keep_its_accumulators_exact() {
    let nnue = SearchOptions {
        evaluation: EvalChoice::Nnue(embedded()),
        ..SearchOptions::default()
    };
    let depth = if cfg!(debug_assertions) { 6 } else { 9 };
    for fen in [
        brudno::chess::START_FEN,
        // Castling both ways, en passant and promotions within reach.
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        // Chess960 castling (king and rook on unusual squares).
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        // Null moves and zugzwang guards in a quiet middlegame.
        "r1bq1rk1/pp2bppp/2n2n2/3p4/3P4/2NB1N2/PP3PPP/R1BQ1RK1 w - - 4 10",
    ] {
        let (mv, score) = search(fen, depth, &nnue);
        if let Score::Cp(cp) = score {
            assert!(cp.abs() < 3000, "{fen}: {mv} {cp}");
        }
    }
}

#[test]
fn searches_with_a_wide_bucketed_mirrored_network_keep_its_accumulators_exact() {
    // Random weights: the scores mean nothing, but every evaluation is checked as above,
    // with kings crossing the d/e line (a one-perspective refresh) along the way.
    use brudno::eval::nnue::{Network, Shape};
    let shape = Shape {
        width: 256,
        buckets: 8,
        mirrored: true,
    };
    let random = SearchOptions {
        evaluation: EvalChoice::Nnue(Network::random_shape(shape, 3).into()),
        ..SearchOptions::default()
    };
    let depth = if cfg!(debug_assertions) { 5 } else { 7 };
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2k5/3p4/p2P1p2/P2P1P2/8/3K4/8 w - - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    ] {
        search(fen, depth, &random);
    }
}

#[test]
fn a_mate_is_found_with_the_network_too() {
    let nnue = SearchOptions {
        evaluation: EvalChoice::Nnue(embedded()),
        ..SearchOptions::default()
    };
    let (mv, score) = search("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 5, &nnue);
    assert_eq!((mv.as_str(), score), ("d1d8", Score::Mate(1)));
}
