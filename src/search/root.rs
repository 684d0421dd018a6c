//! The root moves: the list iterative deepening searches (with each move's scores, PV and
//! node count), and the legal lines from the root that the search reports.

use super::score::{INF, MAX_PLY};
use super::types::Bound;
use crate::chess::{Move, Position};

/// One move at the root and what the iterations found for it.
pub struct RootMove {
    pub mv: Move,
    /// The score of the search in progress (`-INF` until this move has one).
    pub score: i32,
    /// The score the last completed iteration gave it (the aspiration window's centre).
    pub prev_score: i32,
    /// The last score it was given, even by an unfinished search, and what kind it is.
    pub shown_score: i32,
    pub bound: Bound,
    pub seldepth: usize,
    pub pv: Vec<Move>,
    /// Nodes spent on this move in the current iteration.
    pub nodes: u64,
}

/// The root moves: all legal ones, or those of `searchmoves` (if any of them is legal).
pub fn root_moves(root: &Position, searchmoves: &[Move]) -> Vec<RootMove> {
    let legal = root.legal_moves();
    let wanted: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| searchmoves.contains(m))
        .collect();
    let chosen = if wanted.is_empty() {
        legal.to_vec()
    } else {
        wanted
    };
    chosen
        .into_iter()
        .map(|mv| RootMove {
            mv,
            score: -INF,
            prev_score: -INF,
            shown_score: -INF,
            bound: Bound::Upper,
            seldepth: 0,
            pv: Vec::with_capacity(MAX_PLY),
            nodes: 0,
        })
        .collect()
}

/// The longest legal prefix of a line (PVs from the table are legal by construction; this
/// guarantees it to the GUI).
pub fn verified(root: &Position, pv: &[Move]) -> Vec<Move> {
    let mut pos = *root;
    let mut out = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.legal_moves().contains(m) {
            break;
        }
        out.push(m);
        pos.play(m);
    }
    out
}
