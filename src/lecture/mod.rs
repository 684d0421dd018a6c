//! The lecture made visible: the same position searched to the same depth by plain minimax,
//! by α-β with the moves in generator order, by α-β with Brudno's move ordering, and by the
//! full engine, with the leaves and nodes each examined beside the lecture's two formulas:
//! `B^D` leaves for minimax and `B^⌈D/2⌉ + B^⌊D/2⌋ − 1` for α-β with perfect ordering.
//!
//! The three teaching searches share one rule set so that they compute the same minimax value:
//! the hand-crafted static evaluation at the horizon (no quiescence), mate and stalemate
//! scored where they occur, no draw-rule cut-offs and no transposition-table cuts. Plain
//! minimax then reaches exactly perft(D) leaves at depth D (mates and stalemates before the
//! horizon are counted apart).

use crate::chess::{Move, Position};
use crate::search::{Limits, SearchOptions, Searcher};

mod report;
mod searches;
pub mod tree;

pub use report::report;
pub use searches::{engine_nodes, search, Counts, Outcome, Variant};

/// The most nodes one teaching search may visit before it gives up (minimax grows as `B^D`).
pub const DEFAULT_NODE_CAP: u64 = 50_000_000;
/// The deepest search the teaching tools accept.
pub const MAX_DEPTH: u32 = 8;

/// Why a teaching search stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LectureError {
    NodeCap(u64),
    Depth(i64),
}

impl std::fmt::Display for LectureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LectureError::NodeCap(cap) => write!(
                f,
                "the search passed {cap} nodes: choose a smaller depth (minimax grows as B^D)"
            ),
            LectureError::Depth(d) => {
                write!(f, "depth {d} is outside 1..={MAX_DEPTH}")
            }
        }
    }
}

/// The most nodes a tree picture holds.
pub const TREE_NODE_CAP: u64 = 2_000;

const TOO_MANY: &str = "choose a smaller depth or a few root moves (moves e2e4 d2d4)";

/// Searches `pos` to `depth` with `variant` (`minimax`, `alphabeta`, `ordered`, or `engine`:
/// the engine itself with `options`), keeps the tree and writes it to `svg` and/or `dot`;
/// lines saying what was written.
pub fn draw(
    pos: &Position,
    depth: i64,
    variant: &str,
    moves: &[String],
    svg: Option<&str>,
    dot: Option<&str>,
    options: &SearchOptions,
) -> Result<Vec<String>, String> {
    let depth = u32::try_from(depth)
        .ok()
        .filter(|d| (1..=MAX_DEPTH).contains(d))
        .ok_or_else(|| LectureError::Depth(depth).to_string())?;
    let mut only = Vec::new();
    for text in moves {
        match pos.parse_uci_move(text) {
            Some(m) => only.push(m),
            None => return Err(format!("'{text}' is not a legal move here")),
        }
    }
    let (rec, title) = if variant == "engine" {
        engine_tree(pos, depth, only, options)?
    } else {
        lecture_tree(pos, depth, variant, only)?
    };
    let mut said = vec![title.clone()];
    for (path, text) in [
        (svg, svg.map(|_| tree::to_svg(&rec, &title))),
        (dot, dot.map(|_| tree::to_dot(&rec, &title))),
    ] {
        if let (Some(path), Some(text)) = (path, text) {
            std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
            said.push(format!("wrote {path}"));
        }
    }
    Ok(said)
}

/// The tree of one of the lecture's own searches, and its title.
fn lecture_tree(
    pos: &Position,
    depth: u32,
    variant: &str,
    only: Vec<Move>,
) -> Result<(tree::Recorder, String), String> {
    let variant = match variant {
        "minimax" => Variant::Minimax,
        "ordered" => Variant::Ordered,
        _ => Variant::AlphaBeta,
    };
    let root_moves = (!only.is_empty()).then_some(only);
    let mut rec = tree::Recorder::new();
    let outcome = search(
        pos,
        depth,
        variant,
        TREE_NODE_CAP,
        root_moves,
        Some(&mut rec),
    )
    .map_err(|e| match e {
        LectureError::NodeCap(cap) => format!("the tree passed {cap} nodes: {TOO_MANY}"),
        e => e.to_string(),
    })?;
    let title = format!(
        "{} to depth {depth}: value {} ({} nodes, {} leaves)",
        variant.name(),
        tree::show(outcome.value),
        rec.len(),
        outcome.counts.leaves
    );
    Ok((rec, title))
}

/// The engine's own search to `depth` (iterative deepening, its table, every method `options`
/// leave on, one thread, a fresh 16 MiB table): the tree of its last root search, and a title.
fn engine_tree(
    pos: &Position,
    depth: u32,
    only: Vec<Move>,
    options: &SearchOptions,
) -> Result<(tree::Recorder, String), String> {
    if pos.legal_moves().is_empty() {
        return Err("the side to move has no legal move: there is no search to draw".into());
    }
    let limits = Limits {
        depth: Some(depth),
        searchmoves: only,
        ..Limits::default()
    };
    let cap = TREE_NODE_CAP as usize;
    let (result, log, stats) = Searcher::new(16).trace(pos, &limits, options, cap);
    if log.overflowed() {
        return Err(format!("the tree passed {cap} nodes: {TOO_MANY}"));
    }
    let rec = tree::Recorder::from_trace(&log);
    let quiescence = rec.nodes.iter().filter(|n| n.quiescence).count();
    let title = format!(
        "the engine to depth {depth}: value {} ({} nodes, {quiescence} of them quiescence; \
         {} nodes in all iterations)",
        tree::show(rec.nodes[0].value()),
        rec.len(),
        result.nodes
    );
    debug_assert_eq!(stats.nodes(), result.nodes);
    Ok((rec, title))
}

/// The lecture's best case for α-β: `B^⌈D/2⌉ + B^⌊D/2⌋ − 1` leaves.
pub fn best_case_leaves(b: f64, depth: u32) -> f64 {
    b.powi(depth.div_ceil(2) as i32) + b.powi((depth / 2) as i32) - 1.0
}
