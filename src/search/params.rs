//! The search's tunable numbers — margins, depth limits, reduction and history constants — in
//! one table, each with the range a tuner may move it in.
//!
//! In a normal build each is a constant that the compiler folds into the code. Built with
//! `--features tune`, each is also a hidden spin option (`setoption name RFP_MARGIN value 90`),
//! which is how an SPSA tuner (OpenBench's SPSA workload, or any other) reaches them; such a
//! build is slower and only for tuning. The `spsa` command prints the table in OpenBench's SPSA
//! input format in every build.

#[cfg(feature = "tune")]
use std::sync::atomic::{AtomicI32, Ordering};

/// One tunable number.
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    #[cfg(feature = "tune")]
    value: AtomicI32,
}

impl Tunable {
    /// The value the search uses.
    #[inline(always)]
    pub fn get(&self) -> i32 {
        #[cfg(not(feature = "tune"))]
        return self.default;
        #[cfg(feature = "tune")]
        return self.value.load(Ordering::Relaxed);
    }

    /// Sets the value (a tuning build only); false when it is out of range.
    #[cfg(feature = "tune")]
    pub fn set(&self, v: i32) -> bool {
        let ok = (self.min..=self.max).contains(&v);
        if ok {
            self.value.store(v, Ordering::Relaxed);
        }
        ok
    }

    /// SPSA's final perturbation (`c_end`): a twentieth of the range, at least 1.
    pub fn step(&self) -> i32 {
        ((self.max - self.min) / 20).max(1)
    }

    /// The line OpenBench's SPSA workload takes: name, type, default, min, max, c_end, r_end.
    pub fn spsa_line(&self) -> String {
        format!(
            "{}, int, {}, {}, {}, {}, 0.002",
            self.name,
            self.default,
            self.min,
            self.max,
            self.step()
        )
    }
}

macro_rules! tunables {
    ($($(#[doc = $doc:literal])+ $name:ident = $default:literal in $min:literal..=$max:literal;)+) => {
        $(
            $(#[doc = $doc])+
            #[cfg(not(feature = "tune"))]
            pub const $name: Tunable =
                Tunable { name: stringify!($name), default: $default, min: $min, max: $max };
            $(#[doc = $doc])+
            #[cfg(feature = "tune")]
            pub static $name: Tunable = Tunable {
                name: stringify!($name),
                default: $default,
                min: $min,
                max: $max,
                value: AtomicI32::new($default),
            };
        )+

        /// Every tunable, in the order of the search's steps.
        pub static ALL: &[&Tunable] = &[$(&$name),+];
    };
}

tunables! {
    /// Reverse futility pruning: centipawns per ply of depth.
    RFP_MARGIN = 80 in 40..=160;
    /// Reverse futility pruning up to this depth.
    RFP_DEPTH = 8 in 4..=12;
    /// Null-move pruning from this depth on.
    NMP_DEPTH = 3 in 2..=5;
    /// A null move's fail high is verified by a real search from this depth on.
    NMP_VERIFY_DEPTH = 12 in 8..=20;
    /// The null move's reduction: `NMP_BASE + depth / NMP_DEPTH_DIVISOR`, plus a ply for each
    /// `NMP_EVAL_DIVISOR` centipawns above beta (at most three).
    NMP_BASE = 3 in 2..=5;
    /// See `NMP_BASE`.
    NMP_DEPTH_DIVISOR = 3 in 2..=6;
    /// See `NMP_BASE`.
    NMP_EVAL_DIVISOR = 200 in 100..=400;
    /// Internal iterative reduction from this depth on.
    IIR_DEPTH = 4 in 3..=8;
    /// Futility pruning of quiet moves: margin = base + per depth × (reduced) depth.
    FUTILITY_BASE = 100 in 25..=200;
    /// See `FUTILITY_BASE`.
    FUTILITY_PER_DEPTH = 100 in 50..=200;
    /// Futility pruning up to this (reduced) depth.
    FUTILITY_DEPTH = 8 in 4..=12;
    /// Late move pruning up to this depth, after (3 + depth²) / (2 − improving) moves.
    LMP_DEPTH = 8 in 4..=12;
    /// SEE pruning up to this depth: quiet moves losing more than `SEE_QUIET`·depth²,
    /// captures more than `SEE_CAPTURE`·depth, checks more than `SEE_CHECK`·depth.
    SEE_DEPTH = 8 in 4..=12;
    /// See `SEE_DEPTH`.
    SEE_QUIET = 25 in 10..=60;
    /// See `SEE_DEPTH`.
    SEE_CAPTURE = 100 in 50..=200;
    /// See `SEE_DEPTH` (WAC solved by 60k nodes: 262 with this larger room for checks, 257
    /// with the same as captures).
    SEE_CHECK = 300 in 100..=500;
    /// Singular extensions from this depth, with `SE_MARGIN` centipawns per ply, and a second
    /// ply when the alternatives fail by more than `SE_DOUBLE_MARGIN`.
    SE_DEPTH = 8 in 5..=12;
    /// See `SE_DEPTH`.
    SE_MARGIN = 2 in 1..=4;
    /// See `SE_DEPTH`.
    SE_DOUBLE_MARGIN = 20 in 5..=50;
    /// Late move reductions: `LMR_BASE / 100 + ln depth · ln moves / (LMR_DIVISOR / 100)`.
    LMR_BASE = 75 in 0..=150;
    /// See `LMR_BASE`.
    LMR_DIVISOR = 225 in 150..=350;
    /// History that takes a ply off (or adds one to) a reduction: a quiet move's score sums
    /// four tables (butterfly, pawn, two continuations), so 4/3 of the 8192 it was for three.
    LMR_HISTORY_DIVISOR = 10923 in 4096..=16384;
    /// Quiescence: delta pruning's margin over the captured piece's value.
    DELTA_MARGIN = 200 in 50..=400;
    /// History reward at depth d: `HISTORY_PER_DEPTH·d − HISTORY_OFFSET`, at most `HISTORY_MAX`.
    HISTORY_PER_DEPTH = 150 in 50..=300;
    /// See `HISTORY_PER_DEPTH`.
    HISTORY_OFFSET = 100 in 0..=300;
    /// See `HISTORY_PER_DEPTH`.
    HISTORY_MAX = 1600 in 800..=3200;
    /// Aspiration windows: the first half-width (it grows from there).
    ASPIRATION_DELTA = 15 in 5..=40;
    /// Aspiration windows from this depth on (shallower scores are too unstable to centre a
    /// window on).
    ASPIRATION_DEPTH = 4 in 2..=8;
}

/// The tunable named `name` (as `spsa` prints it; case-insensitive, as UCI option names are).
pub fn find(name: &str) -> Option<&'static Tunable> {
    ALL.iter()
        .copied()
        .find(|t| t.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_in_range() {
        for (i, t) in ALL.iter().enumerate() {
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.name);
            assert!(t.min < t.max, "{}", t.name);
            assert!(
                ALL[..i]
                    .iter()
                    .all(|u| !u.name.eq_ignore_ascii_case(t.name)),
                "{} twice",
                t.name
            );
            assert_eq!(t.get(), t.default, "{}", t.name);
        }
        assert_eq!(find("rfp_margin").map(|t| t.default), Some(80));
        assert!(find("RFP").is_none());
    }

    #[test]
    fn spsa_lines_are_what_openbench_reads() {
        assert_eq!(
            RFP_MARGIN.spsa_line(),
            "RFP_MARGIN, int, 80, 40, 160, 6, 0.002"
        );
        assert_eq!(NMP_BASE.spsa_line(), "NMP_BASE, int, 3, 2, 5, 1, 0.002");
    }

    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_sets_values_in_range_only() {
        assert!(!ASPIRATION_DEPTH.set(1));
        assert_eq!(ASPIRATION_DEPTH.get(), 4);
        assert!(ASPIRATION_DEPTH.set(6));
        assert_eq!(ASPIRATION_DEPTH.get(), 6);
        assert!(ASPIRATION_DEPTH.set(4));
    }
}
