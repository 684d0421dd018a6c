//! Time management: how long to think, as pure arithmetic on the clock values of `go`.
//!
//! Two limits come out. The *soft* limit is checked between iterations: past it, starting
//! another iteration is not worth it. It is scaled by how settled the search is: a best move
//! that has stayed the same for several iterations and took most of the nodes lets us stop
//! early; a changing best move or a falling score make us think longer. The *hard* limit is
//! checked inside the tree every few thousand nodes and ends the search mid-iteration.
//! Neither ever interrupts depth 1 (the search enforces that).

use super::types::{Limits, SearchOptions};
use crate::chess::Color;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeBudget {
    pub soft_ms: u64,
    pub hard_ms: u64,
    /// Whether the soft limit may be scaled by search stability (not for `movetime`).
    pub scalable: bool,
}

/// Moves we plan for when the GUI does not say (sudden death).
const DEFAULT_MOVES_TO_GO: i64 = 30;

/// What a `movetime` keeps in hand at least (ms) when `Threads` is more than the machine's
/// cores. Then the engine's own threads crowd the cores at the deadline, and the recent waits
/// measured (`Limits::machine_delay_ms`) can be near nothing just before a long one: with
/// `Threads 4` on two cores at 0.05 s a move, two games at a time, the answer's guard waited
/// up to 21 ms for a core, and two soaks each lost a game on time there (6.4 and 0.4 ms over)
/// with 0–5 ms kept (docs/robustness.md, "Time").
pub const OVERSUBSCRIBED_RESERVE_MS: u64 = 20;

/// The budget for this move, or `None` when no clock applies (depth, nodes, mate, infinite).
pub fn budget(limits: &Limits, side: Color, options: &SearchOptions) -> Option<TimeBudget> {
    if limits.infinite {
        return None;
    }
    let overhead = options.move_overhead_ms as i64;
    if let Some(mt) = limits.movetime {
        // A fixed time per move: use it all, less the overhead and how late an answer may
        // come on this machine now (never more than three quarters of it), but at least a
        // millisecond. A game clock keeps a reserve for the machine's delays (below); a
        // movetime has none.
        let floor = if options.threads > crate::util::cores() {
            OVERSUBSCRIBED_RESERVE_MS
        } else {
            0
        };
        let machine_delay = limits.machine_delay_ms.max(floor).min(i64::MAX as u64) as i64;
        let usable = mt.max(0) - overhead;
        let t = (usable - machine_delay.min(usable * 3 / 4)).max(1) as u64;
        return Some(TimeBudget {
            soft_ms: t,
            hard_ms: t,
            scalable: false,
        });
    }
    let (time, inc) = match side {
        Color::White => (limits.wtime, limits.winc),
        Color::Black => (limits.btime, limits.binc),
    };
    let time = time?.max(0);
    let inc = inc.unwrap_or(0).max(0);
    let mtg = limits
        .movestogo
        .map_or(DEFAULT_MOVES_TO_GO, |m| (m as i64).clamp(1, 50));

    // What we may spend in all, keeping the overhead in hand for this move and a little
    // for each of the moves to come.
    let reserve = overhead + overhead.min(20) * (mtg - 1).min(10);
    let avail = (time - reserve).max(1);
    // An even share of the remaining time plus most of the increment.
    let ideal = avail / mtg + inc * 3 / 4;
    // Never plan to use more than 80% of what is left in one move, nor the last moves'
    // whole share when the GUI counts moves to the control.
    // With `movestogo 1` the clock is refilled after this move, so most of it may go, but
    // 10% (at least 20 ms) stays in hand against a loaded machine's late wake-ups.
    // (The machine's measured delays are not subtracted here: the reserve above and the 20%
    // kept back absorb them, and forms that counted them under a clock scored below the
    // engine before them at 1+0.01 — docs/robustness.md, "Time".)
    let max_share = if mtg == 1 {
        avail - (avail / 10).max(20)
    } else {
        avail * 4 / 5
    };
    let hard = (ideal * 5).min(max_share).max(1);
    let soft = ideal.min(hard).max(1);
    Some(TimeBudget {
        soft_ms: soft as u64,
        hard_ms: hard as u64,
        scalable: true,
    })
}

/// How much of the soft limit to use after an iteration.
/// - `stable_iterations`: iterations in a row that ended with the same best move;
/// - `score_drop`: how far the score fell since the previous iterations (cp, ≥ 0 when worse);
/// - `best_move_nodes`: the fraction of the iteration's nodes spent on the best move.
pub fn soft_scale(stable_iterations: u32, score_drop: i32, best_move_nodes: f64) -> f64 {
    // A new best move means the search has just changed its mind: give it time to settle.
    let stability = match stable_iterations {
        0 => 1.8,
        1 => 1.3,
        2 => 1.05,
        3 => 0.9,
        4 => 0.8,
        _ => 0.75,
    };
    // A falling score suggests trouble not yet understood.
    let drop = 1.0 + (score_drop.clamp(0, 100) as f64) / 125.0;
    // A best move whose subtree took nearly all the nodes has no serious rival.
    let nodes = (1.6 - best_move_nodes.clamp(0.0, 1.0)).clamp(0.6, 1.6);
    stability * drop * nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thread, 10 ms of `Move Overhead`.
    fn opts() -> SearchOptions {
        SearchOptions::default()
    }

    fn clock(time: i64, inc: i64, mtg: Option<u32>) -> Limits {
        Limits {
            wtime: Some(time),
            btime: Some(time),
            winc: Some(inc),
            binc: Some(inc),
            movestogo: mtg,
            ..Default::default()
        }
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(budget(&Limits::default(), Color::White, &opts()), None);
        let l = Limits {
            depth: Some(5),
            ..Default::default()
        };
        assert_eq!(budget(&l, Color::Black, &opts()), None);
        let l = Limits {
            infinite: true,
            ..clock(1000, 0, None)
        };
        assert_eq!(budget(&l, Color::White, &opts()), None);
    }

    #[test]
    fn movetime_uses_it_all_less_overhead() {
        let l = Limits {
            movetime: Some(100),
            ..Default::default()
        };
        let b = budget(&l, Color::White, &opts()).unwrap();
        assert_eq!((b.soft_ms, b.hard_ms, b.scalable), (90, 90, false));
        let l = Limits {
            movetime: Some(-5),
            ..Default::default()
        };
        assert_eq!(budget(&l, Color::White, &opts()).unwrap().hard_ms, 1);
    }

    #[test]
    fn a_movetime_keeps_the_machines_recent_delay_in_hand_up_to_three_quarters() {
        let movetime = |machine_delay_ms| Limits {
            movetime: Some(50),
            machine_delay_ms,
            ..Default::default()
        };
        let hard = |l: &Limits| budget(l, Color::White, &opts()).unwrap().hard_ms;
        assert_eq!(hard(&movetime(0)), 40);
        assert_eq!(hard(&movetime(12)), 28);
        assert_eq!(hard(&movetime(500)), 10);
        // A game clock has its own reserve.
        for time in [172, 1000, 60_000] {
            let clock = |machine_delay_ms| Limits {
                machine_delay_ms,
                ..clock(time, 50, None)
            };
            assert_eq!(
                budget(&clock(12), Color::White, &opts()),
                budget(&clock(0), Color::White, &opts())
            );
        }
    }

    #[test]
    fn more_threads_than_cores_keep_a_floor_in_hand_under_a_movetime() {
        let threads = |threads| SearchOptions { threads, ..opts() };
        let movetime = |machine_delay_ms| Limits {
            movetime: Some(50),
            machine_delay_ms,
            ..Default::default()
        };
        let hard = |l: &Limits, o: &SearchOptions| budget(l, Color::White, o).unwrap().hard_ms;
        let cores = crate::util::cores();
        let floor = OVERSUBSCRIBED_RESERVE_MS;
        assert_eq!(hard(&movetime(0), &threads(cores)), 40);
        assert_eq!(hard(&movetime(0), &threads(cores + 1)), 40 - floor);
        assert_eq!(
            hard(&movetime(floor + 5), &threads(cores + 1)),
            40 - floor - 5
        );
        // Still never more than three quarters of the usable time.
        let short = Limits {
            movetime: Some(20),
            ..Default::default()
        };
        assert_eq!(hard(&short, &threads(cores + 1)), 3);
        // A game clock has its own reserve.
        assert_eq!(
            budget(&clock(1000, 10, None), Color::White, &threads(cores + 1)),
            budget(&clock(1000, 10, None), Color::White, &threads(1))
        );
    }

    #[test]
    fn sudden_death_and_increment() {
        let b = budget(&clock(60_000, 0, None), Color::White, &opts()).unwrap();
        assert!(b.soft_ms > 1000 && b.soft_ms < 3000, "{b:?}");
        assert!(b.hard_ms > b.soft_ms && b.hard_ms < 15_000);
        let with_inc = budget(&clock(60_000, 1000, None), Color::White, &opts()).unwrap();
        assert!(with_inc.soft_ms > b.soft_ms);
    }

    #[test]
    fn never_more_than_the_clock() {
        for time in [-100, 0, 1, 5, 20, 50, 100, 300, 1000] {
            for inc in [0, 20, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let b = budget(&clock(time, inc, mtg), Color::Black, &opts()).unwrap();
                    assert!(b.soft_ms <= b.hard_ms);
                    assert!(b.hard_ms >= 1);
                    if time > 50 {
                        assert!((b.hard_ms as i64) < time - 10, "{time} {inc} {mtg:?} {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn last_move_before_the_control_may_use_most_of_the_time() {
        let b = budget(&clock(10_000, 0, Some(1)), Color::White, &opts()).unwrap();
        assert!(b.hard_ms >= 8000, "{b:?}");
    }

    #[test]
    fn stability_shortens_instability_lengthens() {
        assert!(soft_scale(6, 0, 0.9) < 1.0);
        assert!(soft_scale(0, 0, 0.3) > 1.5);
        assert!(soft_scale(3, 50, 0.5) > soft_scale(3, 0, 0.5));
    }
}
