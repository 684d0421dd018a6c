//! Lazy SMP: several threads search the same root at once and share nothing but the
//! transposition table. They help each other only through it: a helper's results become
//! hash moves and cut-offs for the main thread. Half the helpers run one ply ahead, so that
//! the threads spread over two depths. The main thread alone keeps time, reports and
//! decides when everyone stops; at the end a helper whose finished iteration went deeper
//! (with a score at least as good) may supply the move.

use super::iterate::Deepening;
use super::thread::ThreadData;
use super::tt::TranspositionTable;
use super::worker::Worker;
use super::{
    Bound, Limits, LineInfo, Score, SearchControl, SearchEvent, SearchOptions, SearchResult,
};
use crate::chess::Position;
use std::sync::atomic::AtomicU64;
use std::thread::{Scope, ScopedJoinHandle};

/// The `Threads` option's maximum.
pub const MAX_THREADS: usize = 1024;

/// Same as the main search thread (see `engine.rs`): the search keeps ~2.6 KB a ply.
const HELPER_STACK_BYTES: usize = 16 << 20;

/// What every helper shares with the main thread.
#[derive(Clone, Copy)]
pub struct HelperJob<'a> {
    pub tt: &'a TranspositionTable,
    pub root: &'a Position,
    pub history_len: usize,
    pub limits: &'a Limits,
    pub options: &'a SearchOptions,
    /// Stopped by the main thread when it is done.
    pub control: &'a SearchControl,
    /// The helpers' node count, read by the main thread.
    pub nodes: &'a AtomicU64,
}

/// Starts one helper per thread's data. A helper that cannot be spawned is left out (logged).
pub fn spawn_helpers<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    job: HelperJob<'env>,
    threads: &'env mut [Box<ThreadData>],
) -> Vec<ScopedJoinHandle<'scope, SearchResult>> {
    let mut handles = Vec::with_capacity(threads.len());
    for (i, td) in threads.iter_mut().enumerate() {
        let builder = std::thread::Builder::new()
            .name(format!("search helper {}", i + 1))
            .stack_size(HELPER_STACK_BYTES);
        match builder.spawn_scoped(scope, move || run_helper(job, td, i + 1)) {
            Ok(h) => handles.push(h),
            Err(e) => log::warn!("could not start search helper {}: {e}", i + 1),
        }
    }
    handles
}

/// A helper: iterative deepening without limits (until the main thread stops it), without
/// reports, MultiPV or secondary search.
fn run_helper(job: HelperJob, td: &mut ThreadData, id: usize) -> SearchResult {
    let limits = Limits {
        infinite: true,
        searchmoves: job.limits.searchmoves.clone(),
        ..Limits::default()
    };
    let options = SearchOptions {
        multipv: 1,
        secondary_search: false,
        ..job.options.clone()
    };
    let mut worker = Worker::for_root(
        job.tt,
        td,
        job.control,
        &options,
        job.history_len,
        job.nodes,
        true,
    );
    let mut silent = |_: SearchEvent| {};
    let mut deepening = Deepening {
        worker: &mut worker,
        root: *job.root,
        moves: Deepening::root_moves(job.root, &job.limits.searchmoves),
        report: &mut silent,
        multipv: 1,
        helper_id: id,
    };
    deepening.run(&limits, &options)
}

/// Orders scores: mates first by distance, then centipawns.
fn score_key(s: Option<Score>) -> i64 {
    match s {
        None => i64::MIN,
        Some(Score::Cp(cp)) => cp as i64,
        Some(Score::Mate(n)) if n > 0 => 1_000_000 - n as i64,
        Some(Score::Mate(n)) => -1_000_000 - n as i64,
    }
}

/// The result to play: the main thread's, unless a helper finished a deeper iteration with a
/// score at least as good (then its line is reported, so the last PV starts with the move).
/// With MultiPV the main thread's lines stand.
pub fn choose(
    main: SearchResult,
    helpers: Vec<SearchResult>,
    multipv: usize,
    worker: &Worker,
    report: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let nodes = worker.total_nodes();
    let mut best = main;
    let mut from_helper = false;
    if multipv == 1 {
        for h in helpers {
            if h.best.is_some()
                && h.depth > best.depth
                && score_key(h.score) >= score_key(best.score)
            {
                best = h;
                from_helper = true;
            }
        }
    }
    best.nodes = nodes;
    if from_helper {
        if let Some(score) = best.score {
            report(SearchEvent::Line(LineInfo {
                depth: best.depth,
                seldepth: best.depth,
                multipv: 1,
                score,
                bound: Bound::Exact,
                nodes,
                time_ms: worker.thinking_ms(),
                hashfull: worker.tt.hashfull(),
                tbhits: worker.tbhits,
                pv: best.pv.clone(),
            }));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_order_mates_around_centipawns() {
        let keys: Vec<i64> = [
            Some(Score::Mate(-1)),
            Some(Score::Mate(-5)),
            Some(Score::Cp(-300)),
            Some(Score::Cp(0)),
            Some(Score::Cp(250)),
            Some(Score::Mate(7)),
            Some(Score::Mate(2)),
        ]
        .into_iter()
        .map(score_key)
        .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert!(score_key(None) < keys[0]);
    }
}
