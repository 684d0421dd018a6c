//! The comparison table `lecture` prints.

use super::searches::{engine_nodes, search, Variant};
use super::{best_case_leaves, LectureError};
use crate::chess::Position;
use crate::search::{Score, SearchOptions};
use std::fmt::Write;

/// Searches `pos` to `depth` with the three teaching searches and the full engine (with the
/// search switches and evaluation of `options`), and says what each examined beside the
/// lecture's formulas.
pub fn report(
    pos: &Position,
    depth: u32,
    cap: u64,
    options: &SearchOptions,
) -> Result<String, LectureError> {
    let mut out = String::new();
    let mut rows = Vec::new();
    for v in [Variant::Minimax, Variant::AlphaBeta, Variant::Ordered] {
        rows.push((v, search(pos, depth, v, cap, None, None)?));
    }
    let minimax = &rows[0].1;
    let b = minimax.counts.branching();
    let _ = writeln!(
        out,
        "lecture: depth {depth}, static evaluation at the horizon (no quiescence), no draw rules, no table cut-offs"
    );
    let _ = writeln!(
        out,
        "measured average branching factor B = {b:.2} (legal moves per interior node of the minimax tree)"
    );
    let _ = writeln!(
        out,
        "{:<31} {:>13} {:>13} {:>8} {:>10} {:>8}",
        "search", "leaves", "nodes", "value", "best move", "cuts@1st"
    );
    for (v, o) in &rows {
        let best = o.best.map_or("-".into(), |m| pos.to_san(m));
        let first = if o.counts.cutoffs > 0 {
            format!(
                "{:.0}%",
                100.0 * o.counts.first_move_cutoffs as f64 / o.counts.cutoffs as f64
            )
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "{:<31} {:>13} {:>13} {:>8} {:>10} {:>8}",
            v.name(),
            o.counts.leaves,
            o.counts.nodes(),
            super::tree::show(o.value),
            best,
            first
        );
    }
    let ordered = &rows[2].1;
    let _ = writeln!(
        out,
        "  (Brudno's ordering learns from iterations 1..{}: {} nodes in all iterations)",
        depth.saturating_sub(1).max(1),
        ordered.total.nodes()
    );
    let (nodes, best, score) = engine_nodes(pos, depth, options);
    let _ = writeln!(
        out,
        "{:<31} {:>13} {:>13} {:>8} {:>10}",
        "the full engine (as set)",
        "-",
        nodes,
        score.map_or("-".into(), |s| match s {
            Score::Cp(cp) => cp.to_string(),
            Score::Mate(n) => format!("M{n}"),
        }),
        best.map_or("-".into(), |m| pos.to_san(m))
    );
    let _ = writeln!(
        out,
        "formulas: B^D = {:.0} leaves (minimax); B^ceil(D/2) + B^floor(D/2) - 1 = {:.0} (alpha-beta, perfect ordering)",
        b.powi(depth as i32),
        best_case_leaves(b, depth)
    );
    let _ = writeln!(
        out,
        "checkmates and stalemates before the horizon (minimax): {} and {}",
        minimax.counts.mates, minimax.counts.stalemates
    );
    Ok(out)
}
