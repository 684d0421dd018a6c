//! Seeing inside the hand-crafted evaluation: the `eval` command's table, built on the
//! `Trace` hook that every term goes through.

use super::packed::S;
use super::params::{group_of, Term};
use super::terms::{blend, evaluate_traced, MAX_PHASE, SCALE_NORMAL};
use super::trace::Trace;
use super::weights::WEIGHTS;
use crate::chess::{Color, Position};
use crate::eval::from_side_to_move;
use std::fmt::Write;

/// Sums per row of the table and colour.
struct TermTrace {
    sums: [[S; 2]; Term::ALL.len()],
}

impl Trace for TermTrace {
    const ACTIVE: bool = true;
    fn add(&mut self, c: Color, index: usize, count: i32) {
        let row = Term::ALL
            .iter()
            .position(|&t| t == group_of(index).term)
            .expect("every group has a row");
        self.sums[row][c.index()] += WEIGHTS[index] * count;
    }
}

/// The `eval` command's table: each term for white, black and their difference (middlegame,
/// endgame, blended by the position's phase and endgame scale), in centipawns from white's side.
/// The last line is `Final evaluation: <±cp> cp (white side)`, the value `evaluate` returns
/// turned to white's view.
pub fn explain(pos: &Position) -> String {
    let mut t = TermTrace {
        sums: [[S::ZERO; 2]; Term::ALL.len()],
    };
    let b = evaluate_traced(pos, None, &mut t);
    let mut out = String::new();
    let rule = "----------------+-------------+-------------+--------------------";
    let _ = writeln!(
        out,
        "      Term      |    White    |    Black    |        Total"
    );
    let _ = writeln!(
        out,
        "                |   MG    EG  |   MG    EG  |   MG    EG   Blend"
    );
    let _ = writeln!(out, "{rule}");
    for (i, term) in Term::ALL.iter().enumerate() {
        let [w, bl] = t.sums[i];
        let total = w - bl;
        let _ = writeln!(
            out,
            "{:>15} | {:>5} {:>5} | {:>5} {:>5} | {:>5} {:>5} {:>6}",
            term.name(),
            w.mg(),
            w.eg(),
            bl.mg(),
            bl.eg(),
            total.mg(),
            total.eg(),
            blend(total, b.phase, b.scale),
        );
    }
    let _ = writeln!(out, "{rule}");
    let _ = writeln!(
        out,
        "{:>15} |             |             | {:>5} {:>5} {:>6}",
        "Total",
        b.score.mg(),
        b.score.eg(),
        b.white
    );
    let _ = writeln!(
        out,
        "\nPhase {}/{MAX_PHASE} (middlegame share), endgame scale {}/{SCALE_NORMAL}, {} to move",
        b.phase,
        b.scale,
        match pos.side_to_move() {
            Color::White => "white",
            Color::Black => "black",
        }
    );
    let mut white = b.white;
    if let Some(v) = crate::endgame::evaluate_known(pos) {
        white = from_side_to_move(pos, v);
        let _ = writeln!(
            out,
            "Known endgame (src/endgame/): the table above is overruled"
        );
    }
    let _ = write!(out, "Final evaluation: {white:+} cp (white side)");
    out
}
