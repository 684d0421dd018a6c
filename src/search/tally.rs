//! Search statistics for the curious (the UCI command `stats`, `tree … engine`): how many nodes
//! at each ply, how often the table and the move ordering paid, and how often each of the
//! lecture's methods acted.
//!
//! Counting must not slow the search that plays: the search is generic over a `Tally`, and
//! the normal search (`go`, `bench`, data generation) is its `NoTally` instantiation, whose
//! methods are empty and inline to nothing (the zero-sized tally adds no field either). A
//! `Counting` search is the same code with the counters kept, per thread, in plain integers;
//! threads are summed once, at the end. Both instantiations search exactly the same tree: a
//! tally only watches (tests/stats.rs, `counting_searches_the_same_tree`).

use super::counter::Counter;
use super::score::MAX_PLY;
use super::trace::TreeLog;
use crate::chess::{Move, Position};

/// What one search counted, summed over its threads.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchStats {
    /// Nodes by ply: interior (the root and the α-β nodes) and quiescence.
    interior: [u64; MAX_PLY + 1],
    quiescence: [u64; MAX_PLY + 1],
    counts: [u64; Counter::COUNT],
    /// The main thread's completed iterations: (depth, nodes it searched in it).
    iterations: Vec<(u32, u64)>,
    threads: usize,
}

/// Nothing counted, by no thread yet (a `Counting` tally's stats are one thread's).
impl Default for SearchStats {
    fn default() -> Self {
        SearchStats {
            interior: [0; MAX_PLY + 1],
            quiescence: [0; MAX_PLY + 1],
            counts: [0; Counter::COUNT],
            iterations: Vec::new(),
            threads: 0,
        }
    }
}

impl SearchStats {
    pub fn nodes(&self) -> u64 {
        self.interior_nodes() + self.quiescence_nodes()
    }

    pub fn interior_nodes(&self) -> u64 {
        self.interior.iter().sum()
    }

    pub fn quiescence_nodes(&self) -> u64 {
        self.quiescence.iter().sum()
    }

    /// (ply, interior nodes, quiescence nodes), from the root to the deepest ply reached.
    pub fn plies(&self) -> Vec<(usize, u64, u64)> {
        let reached = (0..=MAX_PLY)
            .rev()
            .find(|&p| self.interior[p] + self.quiescence[p] > 0)
            .map_or(0, |p| p + 1);
        (0..reached)
            .map(|p| (p, self.interior[p], self.quiescence[p]))
            .collect()
    }

    pub fn count(&self, e: Counter) -> u64 {
        self.counts[e as usize]
    }

    /// The share of β cut-offs made by the first move searched: how good the move ordering
    /// is (1 would be perfect). `None` without a cut-off.
    pub fn first_move_share(&self) -> Option<f64> {
        let cuts = self.count(Counter::BetaCut);
        (cuts > 0).then(|| self.count(Counter::FirstMoveCut) as f64 / cuts as f64)
    }

    pub fn iterations(&self) -> &[(u32, u64)] {
        &self.iterations
    }

    /// The effective branching factor of each iteration after the first: its nodes over the
    /// nodes of the iteration before.
    pub fn branching(&self) -> Vec<(u32, f64)> {
        self.iterations
            .windows(2)
            .map(|w| (w[1].0, w[1].1 as f64 / w[0].1.max(1) as f64))
            .collect()
    }

    /// Threads whose counts are in here.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Adds a helper thread's counts (its iterations are its own, not the main thread's).
    pub fn add_thread(&mut self, other: &SearchStats) {
        for (a, b) in self.interior.iter_mut().zip(&other.interior) {
            *a += b;
        }
        for (a, b) in self.quiescence.iter_mut().zip(&other.quiescence) {
            *a += b;
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.threads += other.threads;
    }
}

/// What the search tells a tally. Every method does nothing unless overridden: `NoTally`'s
/// calls vanish from the compiled search.
pub trait Tally {
    /// Whether a tree is being recorded (so that what only the picture needs, such as the
    /// moves a cut-off left unsearched, is gathered only then).
    #[inline(always)]
    fn tracing(&self) -> bool {
        false
    }

    /// A node counted (`Worker::count_node`) at `ply`.
    #[inline(always)]
    fn node(&mut self, _ply: usize, _quiescence: bool) {}

    #[inline(always)]
    fn add(&mut self, _e: Counter) {}

    /// A completed iteration of `depth` that took `nodes`.
    #[inline(always)]
    fn iteration(&mut self, _depth: i32, _nodes: u64) {}

    /// A move left unsearched by a pruning rule (counted, and shown in a traced tree).
    #[inline(always)]
    fn pruned(&mut self, _e: Counter, _pos: &Position, _m: Move) {}

    /// The node being searched ends early for `e` (counted, and shown in a traced tree).
    #[inline(always)]
    fn ended(&mut self, _e: Counter) {}

    // The tree, when one is traced.

    /// The root search begins again (a new iteration or aspiration window): the tree shows
    /// the last one.
    #[inline(always)]
    fn new_tree(&mut self) {}

    /// The move that leads to the next node entered.
    #[inline(always)]
    fn next_move(&mut self, _pos: &Position, _m: Move) {}

    /// The next node entered is not reached by a move (a null move, a verification search).
    #[inline(always)]
    fn next_label(&mut self, _label: &'static str) {}

    #[inline(always)]
    fn enter(&mut self, _ply: usize, _alpha: i32, _beta: i32, _quiescence: bool) {}

    #[inline(always)]
    fn leave(&mut self, _value: i32) {}

    /// Moves the node will not search for `e` (after a cut-off: the rest of the list).
    #[inline(always)]
    fn skipped(&mut self, _e: Counter, _pos: &Position, _moves: &[Move]) {}
}

/// The normal search: nothing counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTally;

impl Tally for NoTally {}

/// A counting search's tally: the counters of this thread and, if asked for, its tree.
#[derive(Clone, Debug)]
pub struct Counting {
    pub stats: Box<SearchStats>,
    pub tree: Option<Box<TreeLog>>,
}

impl Counting {
    pub fn new(tree: Option<Box<TreeLog>>) -> Counting {
        Counting {
            stats: Box::new(SearchStats {
                threads: 1,
                ..SearchStats::default()
            }),
            tree,
        }
    }
}

impl Default for Counting {
    fn default() -> Self {
        Counting::new(None)
    }
}

impl Tally for Counting {
    #[inline(always)]
    fn tracing(&self) -> bool {
        self.tree.is_some()
    }

    #[inline(always)]
    fn node(&mut self, ply: usize, quiescence: bool) {
        let ply = ply.min(MAX_PLY);
        if quiescence {
            self.stats.quiescence[ply] += 1;
        } else {
            self.stats.interior[ply] += 1;
        }
    }

    #[inline(always)]
    fn add(&mut self, e: Counter) {
        self.stats.counts[e as usize] += 1;
    }

    fn iteration(&mut self, depth: i32, nodes: u64) {
        self.stats.iterations.push((depth as u32, nodes));
    }

    #[inline(always)]
    fn pruned(&mut self, e: Counter, pos: &Position, m: Move) {
        self.add(e);
        if let Some(t) = &mut self.tree {
            t.skipped(e, &[pos.to_san(m)]);
        }
    }

    #[inline(always)]
    fn ended(&mut self, e: Counter) {
        self.add(e);
        if let Some(t) = &mut self.tree {
            t.ended(e);
        }
    }

    fn new_tree(&mut self) {
        if let Some(t) = &mut self.tree {
            t.clear();
        }
    }

    #[inline(always)]
    fn next_move(&mut self, pos: &Position, m: Move) {
        if let Some(t) = &mut self.tree {
            t.next_move(pos.to_san(m));
        }
    }

    #[inline(always)]
    fn next_label(&mut self, label: &'static str) {
        if let Some(t) = &mut self.tree {
            t.next_move(label.to_string());
        }
    }

    #[inline(always)]
    fn enter(&mut self, ply: usize, alpha: i32, beta: i32, quiescence: bool) {
        if let Some(t) = &mut self.tree {
            t.enter(ply, alpha, beta, quiescence);
        }
    }

    #[inline(always)]
    fn leave(&mut self, value: i32) {
        if let Some(t) = &mut self.tree {
            t.leave(value);
        }
    }

    fn skipped(&mut self, e: Counter, pos: &Position, moves: &[Move]) {
        if let Some(t) = &mut self.tree {
            let sans: Vec<String> = moves.iter().map(|&m| pos.to_san(m)).collect();
            t.skipped(e, &sans);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_add_up_by_ply_and_threads_sum() {
        let mut c = Counting::default();
        c.node(0, false);
        c.node(1, false);
        c.node(1, false);
        c.node(2, true);
        c.node(MAX_PLY + 5, true);
        c.add(Counter::BetaCut);
        c.add(Counter::BetaCut);
        c.add(Counter::FirstMoveCut);
        c.iteration(1, 3);
        c.iteration(2, 12);
        let mut s = *c.stats;
        assert_eq!(
            (s.nodes(), s.interior_nodes(), s.quiescence_nodes()),
            (5, 3, 2)
        );
        assert_eq!(s.plies().len(), MAX_PLY + 1);
        assert_eq!(s.plies()[1], (1, 2, 0));
        assert_eq!(s.first_move_share(), Some(0.5));
        assert_eq!(s.branching(), vec![(2, 4.0)]);
        let helper = s.clone();
        s.add_thread(&helper);
        assert_eq!(
            (s.nodes(), s.threads(), s.count(Counter::BetaCut)),
            (10, 2, 4)
        );
        // A helper's iterations are not the main thread's.
        assert_eq!(s.iterations().len(), 2);
    }

    #[test]
    fn no_cut_off_has_no_share_and_no_tally_is_nothing() {
        assert_eq!(SearchStats::default().first_move_share(), None);
        assert_eq!(SearchStats::default().threads(), 0);
        assert_eq!(std::mem::size_of::<NoTally>(), 0);
        assert!(!NoTally.tracing());
    }
}
