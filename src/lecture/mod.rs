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

use crate::chess::Position;

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

/// Searches `pos` to `depth` with `variant` (`minimax`, `alphabeta` or `ordered`), keeps the
/// tree and writes it to `svg` and/or `dot`; lines saying what was written.
pub fn draw(
    pos: &Position,
    depth: i64,
    variant: &str,
    moves: &[String],
    svg: Option<&str>,
    dot: Option<&str>,
) -> Result<Vec<String>, String> {
    let depth = u32::try_from(depth)
        .ok()
        .filter(|d| (1..=MAX_DEPTH).contains(d))
        .ok_or_else(|| LectureError::Depth(depth).to_string())?;
    let variant = match variant {
        "minimax" => Variant::Minimax,
        "ordered" => Variant::Ordered,
        _ => Variant::AlphaBeta,
    };
    let mut only = Vec::new();
    for text in moves {
        match pos.parse_uci_move(text) {
            Some(m) => only.push(m),
            None => return Err(format!("'{text}' is not a legal move here")),
        }
    }
    let root_moves = (!only.is_empty()).then_some(only);
    let mut rec = tree::Recorder::new();
    let outcome = search(pos, depth, variant, TREE_NODE_CAP, root_moves, Some(&mut rec))
        .map_err(|e| match e {
            LectureError::NodeCap(cap) => format!(
                "the tree passed {cap} nodes: choose a smaller depth or a few root moves (moves e2e4 d2d4)"
            ),
            e => e.to_string(),
        })?;
    let title = format!(
        "{} to depth {depth}: value {} ({} nodes, {} leaves)",
        variant.name(),
        tree::show(outcome.value),
        rec.len(),
        outcome.counts.leaves
    );
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

/// The lecture's best case for α-β: `B^⌈D/2⌉ + B^⌊D/2⌋ − 1` leaves.
pub fn best_case_leaves(b: f64, depth: u32) -> f64 {
    b.powi(depth.div_ceil(2) as i32) + b.powi((depth / 2) as i32) - 1.0
}
