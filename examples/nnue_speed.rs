//! Speed of the NNUE inference per backend (scalar, AVX2, AVX-512): accumulator updates
//! (`NnueState::push`, the move's delta included), evaluations, and full refreshes; the
//! hand-crafted evaluation for scale. Run by hand:
//!
//! ```text
//! cargo run --release --example nnue_speed [ROUNDS] [DISTINCT] [BACKEND] [SHAPE]
//! ```
//! SHAPE is the random network's: `WIDTH`, `WIDTHxBUCKETS`, then `m` for mirroring (default
//! `128x1`, the embedded network's); BACKEND `all` keeps every backend.
//! The machine's speed swings, so each figure is measured ROUNDS times (default 15) in
//! interleaved runs (every backend once per round, the order reversed each round), timed by
//! process CPU time; it prints the median and the range, and the median of the per-round
//! ratio to scalar (each round's runs are close in time, so the ratio is steadier than the
//! rates). The moves come from random games: DISTINCT of them (default 8192, which reads weight
//! rows from all over the 192 KiB table, mostly from L2), repeated to 8192; a small DISTINCT
//! keeps the rows in L1, as the similar positions of a search tree partly do.

use brudno::chess::{Move, MoveDelta, MoveKind, Position};
use brudno::datagen::chess960_start;
use brudno::eval::nnue::{Backend, Network, NnueState, Shape};
use brudno::util::Rng;
use std::hint::black_box;
use std::sync::Arc;

/// Process CPU time in seconds.
#[cfg(unix)]
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is POSIX's process CPU clock.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Elsewhere wall time since the first call: the example then needs an idle machine.
#[cfg(not(unix))]
fn cpu_seconds() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// (position, move) pairs from random games, standard and Chess960.
fn corpus(n: usize) -> Vec<(Position, Move)> {
    let mut rng = Rng::new(4);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = if out.len() % 2 == 0 {
            Position::startpos()
        } else {
            chess960_start(rng.below(960) as u32)
        };
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves.as_slice()[rng.below(moves.len() as u64) as usize];
            out.push((pos, m));
            pos.play(m);
        }
    }
    out.truncate(n);
    out
}

/// `WIDTH[xBUCKETS][m]`, as the SHAPE argument gives it.
fn parse_shape(arg: &str) -> Shape {
    let mirrored = arg.ends_with('m');
    let arg = arg.trim_end_matches('m');
    let (width, buckets) = arg.split_once('x').unwrap_or((arg, "1"));
    Shape {
        width: width.parse().expect("SHAPE: a width"),
        buckets: buckets.parse().expect("SHAPE: a bucket count"),
        mirrored,
    }
}

/// Operations per second of `f`, which does `ops` operations.
fn rate(ops: usize, f: impl FnOnce()) -> f64 {
    let t = cpu_seconds();
    f();
    ops as f64 / (cpu_seconds() - t)
}

struct Bench {
    name: &'static str,
    /// Rates per backend, one per round.
    rates: Vec<Vec<f64>>,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(15, |a| a.parse().expect("ROUNDS is a number"));
    let shape = std::env::args()
        .nth(4)
        .map_or(Shape::LEGACY, |a| parse_shape(&a));
    println!("network: {shape}");
    let net: Arc<Network> = Network::random_shape(shape, 1).into();
    // A third argument keeps only the backend of that name (to profile it alone).
    let only = std::env::args().nth(3).filter(|n| n != "all");
    let backends: Vec<Backend> = Backend::available()
        .into_iter()
        .filter(|b| only.as_deref().is_none_or(|n| n == b.name()))
        .collect();
    let mut states: Vec<NnueState> = backends
        .iter()
        .map(|&b| NnueState::with_backend(net.clone(), b))
        .collect();
    let distinct: usize = std::env::args()
        .nth(2)
        .map_or(8192, |a| a.parse().expect("DISTINCT is a number"));
    let data: Vec<_> = corpus(distinct).into_iter().cycle().take(8192).collect();
    let kinds = |k: MoveKind| data.iter().filter(|(_, m)| m.kind() == k).count();
    let captures = data.iter().filter(|(p, m)| p.is_capture(*m)).count();
    println!(
        "corpus: {} moves ({distinct} distinct) from random games ({captures} captures, {} castling, {} en passant, {} promotions)",
        data.len(),
        kinds(MoveKind::Castling),
        kinds(MoveKind::EnPassant),
        kinds(MoveKind::Promotion)
    );
    const REPS: usize = 100;
    let deltas: Vec<MoveDelta> = data.iter().map(|(p, m)| MoveDelta::of(p, *m)).collect();

    let mut benches = [
        Bench {
            name: "update (push)",
            rates: vec![Vec::new(); backends.len()],
        },
        Bench {
            name: "update (push_delta: the delta computed beforehand)",
            rates: vec![Vec::new(); backends.len()],
        },
        Bench {
            name: "evaluate",
            rates: vec![Vec::new(); backends.len()],
        },
        Bench {
            name: "refresh",
            rates: vec![Vec::new(); backends.len()],
        },
    ];
    let (mut hce, mut delta_only) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..backends.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for &b in &order {
            let state = &mut states[b];
            state.reset(&data[0].0);
            // The cost does not depend on whether slot 0 is the move's parent, so every move
            // updates slot 0 into slot 1 (a parent in L1, as in a search).
            let r = rate(data.len() * REPS, || {
                for _ in 0..REPS {
                    for (pos, m) in &data {
                        state.push(0, pos, *m);
                        black_box(state.accumulator(1));
                    }
                }
            });
            benches[0].rates[b].push(r);

            let r = rate(deltas.len() * REPS, || {
                for _ in 0..REPS {
                    for ((pos, _), d) in data.iter().zip(&deltas) {
                        state.push_delta(0, pos, d);
                        black_box(state.accumulator(1));
                    }
                }
            });
            benches[1].rates[b].push(r);

            // Slots 0 and 1 in turn, as a search evaluates a node and then its child; the
            // arithmetic does not depend on the values.
            state.reset(&data[0].0);
            state.push(0, &data[0].0, data[0].1);
            let stm = [data[0].0.side_to_move(), data[1].0.side_to_move()];
            let r = rate(data.len() * REPS, || {
                let mut sum = 0i32;
                for i in 0..data.len() * REPS {
                    sum = sum.wrapping_add(state.evaluate(i % 2, stm[i % 2]));
                }
                black_box(sum);
            });
            benches[2].rates[b].push(r);

            let r = rate(data.len() * REPS / 10, || {
                for _ in 0..REPS / 10 {
                    for (pos, _) in &data {
                        state.reset(pos);
                        black_box(state.accumulator(0));
                    }
                }
            });
            benches[3].rates[b].push(r);
        }
        hce.push(rate(data.len(), || {
            let mut sum = 0i32;
            for (pos, _) in &data {
                sum = sum.wrapping_add(brudno::eval::evaluate(pos));
            }
            black_box(sum);
        }));
        delta_only.push(rate(data.len() * REPS, || {
            for _ in 0..REPS {
                for (pos, m) in &data {
                    black_box(MoveDelta::of(pos, *m));
                }
            }
        }));
    }

    println!("{rounds} interleaved rounds; millions per second of CPU time, median [min, max]; ×first = median of per-round ratios to the first backend");
    for bench in &benches {
        println!("{}:", bench.name);
        for (b, rates) in bench.rates.iter().enumerate() {
            let ratios: Vec<f64> = rates
                .iter()
                .zip(&bench.rates[0])
                .map(|(r, s)| r / s)
                .collect();
            let (lo, hi) = rates
                .iter()
                .fold((f64::MAX, 0f64), |(l, h), &r| (l.min(r), h.max(r)));
            println!(
                "  {:7} {:7.2} M/s [{:6.2}, {:6.2}]  {:5.1} ns each  ×{:.2} {}",
                backends[b].name(),
                median(rates) / 1e6,
                lo / 1e6,
                hi / 1e6,
                1e9 / median(rates),
                median(&ratios),
                backends[0].name()
            );
        }
    }
    for (name, rates) in [
        ("MoveDelta::of alone", &delta_only),
        ("hand-crafted evaluate (for scale)", &hce),
    ] {
        let (lo, hi) = rates
            .iter()
            .fold((f64::MAX, 0f64), |(l, h), &r| (l.min(r), h.max(r)));
        println!(
            "{name}: {:.2} M/s [{:.2}, {:.2}]  {:.1} ns each",
            median(rates) / 1e6,
            lo / 1e6,
            hi / 1e6,
            1e9 / median(rates)
        );
    }
}
