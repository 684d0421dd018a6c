//! The weights file the tuner writes (`src/eval/hce/weights.rs`), and the hand-set seed
//! weights a run can start from.

use brudno::eval::hce::packed::S;
use brudno::eval::hce::params::*;
use std::fmt::Write as _;

pub(super) const PIECE_NAMES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// The text of `weights.rs` for these weights.
pub(super) fn render(weights: &[S], header: &str) -> String {
    let mut out = String::new();
    out.push_str("//! Evaluation weights, written by `brudno-tools tune` (tools/src/tune.rs; layout in `params.rs`).\n");
    out.push_str("//! Hand edits are fine, but the next tuning run overwrites this file.\n");
    for line in header.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    out.push_str(
        "\nuse super::packed::S;\nuse super::params::NUM_WEIGHTS;\n\n\
         const fn s(mg: i32, eg: i32) -> S {\n    S::new(mg, eg)\n}\n\n\
         #[rustfmt::skip]\npub static WEIGHTS: [S; NUM_WEIGHTS] = [\n",
    );
    for g in GROUPS {
        for (row, chunk) in weights[g.start..g.start + g.len]
            .chunks(g.per_line)
            .enumerate()
        {
            if g.start == PST && row % 8 == 0 {
                let _ = writeln!(
                    out,
                    "    // PST {} (rank 1 first, a-file first)",
                    PIECE_NAMES[row / 8]
                );
            } else if row == 0 {
                let _ = writeln!(out, "    // {}", g.name);
            }
            out.push_str("    ");
            let cells: Vec<String> = chunk
                .iter()
                .map(|s| format!("s({}, {}),", s.mg(), s.eg()))
                .collect();
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
    }
    out.push_str("];\n");
    out
}

/// Hand-set starting values: material, simple piece-square shapes, and signs for the rest.
pub fn seed_weights() -> Vec<S> {
    let mut w = vec![S::ZERO; NUM_WEIGHTS];
    let material = [(85, 110), (320, 290), (340, 310), (470, 520), (950, 930)];
    for (t, &(mg, eg)) in material.iter().enumerate() {
        w[MATERIAL + t] = S::new(mg, eg);
    }
    for sq in 0..64usize {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let c = (f.min(7 - f)).min(r.min(7 - r));
        let central = (f == 3 || f == 4) as i32;
        if (1..=6).contains(&r) {
            w[PST + sq] = S::new((r - 1) * 3 + central * (r - 1) * 5, (r - 1) * (r - 1) * 4);
        }
        w[PST + 64 + sq] = S::new(c * 12 - 20, c * 8 - 15);
        w[PST + 128 + sq] = S::new(c * 5 - 8, c * 4 - 6);
        w[PST + 192 + sq] = S::new(if r == 6 { 15 } else { 0 } + central * 6 - 3, 0);
        w[PST + 256 + sq] = S::new(c * 3 - 5, c * 6 - 9);
        let home = if r == 0 { 10 } else { -25 * r };
        let wing = if f <= 2 || f >= 5 { 15 } else { -5 };
        w[PST + 320 + sq] = S::new(home + wing, c * 15 - 25);
    }
    for (start, len, step) in [
        (MOB_KNIGHT, 9, 4),
        (MOB_BISHOP, 14, 4),
        (MOB_ROOK, 15, 2),
        (MOB_QUEEN, 28, 1),
    ] {
        for n in 0..len {
            let v = (n as i32 - len as i32 / 3) * step;
            w[start + n] = S::new(v, v);
        }
    }
    w[PAWN_DOUBLED] = S::new(-10, -20);
    w[PAWN_ISOLATED] = S::new(-10, -10);
    w[PAWN_BACKWARD] = S::new(-8, -8);
    for r in 1..7 {
        w[PAWN_SUPPORTED + r] = S::new(4 + 2 * r as i32, 4 + 2 * r as i32);
        w[PAWN_PHALANX + r] = S::new(3 + 2 * r as i32, 2 + r as i32);
        let p = [0, 0, 5, 10, 25, 50, 90, 0][r];
        w[PASSED_RANK + r] = S::new(p / 2, p);
    }
    w[PASSED_UNSTOPPABLE] = S::new(0, 300);
    for d in 0..8 {
        w[PASSED_KING_OWN + d] = S::new(0, -2 * d as i32);
        w[PASSED_KING_THEIR + d] = S::new(0, 4 * d as i32);
    }
    for t in 1..5 {
        w[KS_ATTACKERS + t] = S::new(-5, 0);
        w[KS_SAFE_CHECKS + t] = S::new(-10, -5);
        w[THREAT_BY_PAWN + t] = S::new(40, 30);
        w[THREAT_BY_MINOR + t] = S::new(10 * t as i32, 10 * t as i32);
        w[THREAT_BY_ROOK + t] = S::new(5 * t as i32, 5 * t as i32);
    }
    w[KS_DANGER_SQUARED] = S::new(-2, 0);
    w[KS_SEMIOPEN_FILE] = S::new(-10, 0);
    w[BISHOP_PAIR] = S::new(30, 50);
    w[ROOK_OPEN] = S::new(25, 10);
    w[ROOK_SEMIOPEN] = S::new(10, 5);
    w[ROOK_SEVENTH] = S::new(10, 20);
    for i in 0..4 {
        w[OUTPOST + i] = S::new(10 + 5 * i as i32, 5);
    }
    w[HANGING] = S::new(20, 20);
    w[TEMPO] = S::new(15, 5);
    w
}
