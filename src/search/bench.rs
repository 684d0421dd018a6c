//! `bench`: a fixed set of positions searched to a fixed depth, each with a fresh table. The
//! node count is the search's signature (the same binary always prints the same number; a
//! change that alters it changes the search), and nodes per second measure its speed.
//!
//! Positions: the start position and four perft-suite classics; 24 positions from TCEC
//! games (`../shared/data/games-sample.pgn`) at moves 8 to 51, half with black to move;
//! six Win At Chess tactics; six endgames.

use super::control::SearchControl;
use super::searcher::Searcher;
use super::types::{Limits, SearchOptions};
use crate::chess::Position;
use std::time::Instant;

pub const BENCH_DEPTH: u32 = 12;
/// What `bench` prints with the default options: the search's signature. A change to the
/// search or the evaluation that changes it updates it here, and its commit says `Bench: N`;
/// a refactoring leaves it alone (`tests/search.rs` holds the build to it).
pub const SIGNATURE: u64 = 2_056_738;
const BENCH_HASH_MB: usize = 16;

pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    // TCEC games, white to move
    "rn1qkb1r/1b1p1ppp/p3pn2/1p1P4/2p1PB2/2N2N2/PPP1QPPP/R3KB1R w KQkq - 0 9",
    "r6r/p1q2kbp/2p1bnp1/4pp2/2P5/B1N1P3/P1Q1BPPP/R4RK1 w - - 2 16",
    "k2r3r/pp3ppp/2b2n2/qN1n4/P1B1p3/BQ2P3/5PPP/R1R2K2 w - - 10 23",
    "2bbk2r/5p1p/8/3pPn2/2p5/4N1B1/2PQ2P1/4K3 w k - 1 31",
    "2q5/b4pk1/2p2p2/P1P1p2p/1B1n3P/3bN1PK/1P3P2/3Q1B2 w - - 2 41",
    "3r2k1/4rp2/3p2pn/1P1P3p/2P2R1P/Q7/5P2/5K2 w - - 7 51",
    "rb2r1k1/pp1n1pp1/2p1p1n1/3p1q2/2PP3p/BPN1PN2/P4PPP/2RQ1RK1 w - - 0 16",
    "2k3r1/1bqpb3/p1n1p2r/1pP2p1p/PP4n1/3NP2R/1B2B1PP/2RQ1NK1 w - - 1 23",
    "8/2k4p/b3p1p1/p1Bn1pP1/P1N2P1P/2bBP3/5K2/8 w - - 1 41",
    "4r1k1/p3qp2/1p3n1p/1Pn1N1p1/2Q5/5PB1/P4PKP/4R3 w - - 3 31",
    "r3r1k1/1b2bp1p/1q2pnp1/2p5/1p2PPP1/1N6/1PP1QBBP/R4R1K w - - 2 23",
    "r1bqrk2/1p3p2/p2p1bp1/6Bp/2BN4/3Q4/PPP3PP/3R2K1 w - - 0 23",
    // TCEC games, black to move
    "rnb1kb1r/2qp1ppp/p3pn2/1p6/P2NP3/3Q4/1PP1BPPP/RNB2RK1 b kq - 0 8",
    "r2qk2r/pp3pb1/2npbnpp/3Np3/2P1P3/4BP2/PP2N1PP/R2QKB1R b KQkq - 2 12",
    "r2qr1k1/2p2ppp/p4n2/1p6/P1bP4/2P3N1/2BQ1PPP/R3R1K1 b - - 2 17",
    "1r2r1k1/5pp1/p1p4p/7n/4P2q/1P1R1P2/P2QNP1P/3R2K1 b - - 0 24",
    "2r1r2k/p2q4/Ppn2p1p/1Npnp1p1/8/1Q1P3P/1PPB1PP1/R3R1K1 b - - 3 31",
    "8/4b3/6p1/3k1P2/p1p3P1/P7/1B2K3/8 b - - 0 40",
    "rn1q1rk1/pbpp1ppp/1p2pn2/8/2PP4/2PBPN2/P4PPP/R1BQ1RK1 b - - 3 8",
    "r2q1rk1/2p1ppbp/p1n1b1p1/1p1nP3/3P4/2N2N2/PP2BPPP/R1BQ1RK1 b - - 4 12",
    "r1bq1rk1/p1pn2bp/1p4p1/3Ppn2/P7/BPNQ1NP1/5PBP/R4RK1 b - - 1 17",
    "1r6/3Rppkp/6p1/5P1n/1Pr5/2N2R1P/1P4P1/6K1 b - - 0 24",
    "5r2/pp2k1p1/3p3p/5r2/7P/P2R4/1PP3P1/1K1R4 b - - 3 31",
    "r6k/r4pb1/1p1Pp2p/2p1P3/q1P2Q2/p6R/R2N1PP1/6K1 b - - 3 40",
    // Win At Chess
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
    "r4q1k/p2bR1rp/2p2Q1N/5p2/5p2/2P5/PP3PPP/R5K1 w - - 0 1",
    "r2r2k1/ppqbppbp/2n2np1/2pp4/6P1/1P1PPNNP/PBP2PB1/R2QK2R b KQ - 0 1",
    // Endgames
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "6k1/5pp1/8/8/8/8/5PPP/3R2K1 b - - 0 1",
    "8/5k2/8/8/2n5/8/3KB3/8 w - - 0 1",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub time_ms: u64,
    pub nps: u64,
}

/// Searches every bench position to `depth` (default [`BENCH_DEPTH`]).
pub fn bench(depth: Option<u32>) -> BenchResult {
    bench_with(depth, &SearchOptions::default())
}

/// [`bench`] with other search options (for measuring what each method is worth).
pub fn bench_with(depth: Option<u32>, options: &SearchOptions) -> BenchResult {
    let limits = Limits {
        depth: Some(depth.unwrap_or(BENCH_DEPTH)),
        ..Default::default()
    };
    let control = SearchControl::new();
    let mut searcher = Searcher::new(BENCH_HASH_MB);
    let start = Instant::now();
    let mut nodes = 0;
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).expect("bench positions are valid");
        searcher.clear();
        let result = searcher.search(&pos, &[], &limits, options, &control, &mut |_| {});
        nodes += result.nodes;
    }
    let time_ms = start.elapsed().as_millis() as u64;
    BenchResult {
        nodes,
        time_ms,
        nps: nodes * 1000 / time_ms.max(1),
    }
}
