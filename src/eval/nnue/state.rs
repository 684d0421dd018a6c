//! The accumulator stack of one search thread: what the search calls to keep the network's
//! hidden layer in step with the positions it visits.
//!
//! # Contract
//!
//! The search is copy-make with a ply index, and so is this: slot `ply` holds the accumulator
//! of the position at that ply.
//!
//! - `reset(&root)` fills slot 0 from scratch (at every new search, or whenever the root
//!   changes);
//! - `push(ply, &pos, m)`, with `pos` the position at `ply` *before* the legal move `m`,
//!   writes slot `ply + 1` from slot `ply`; `push_null(ply)` copies it (a null move changes no
//!   piece);
//! - `evaluate(ply, stm)` is the network's score in centipawns for `stm`, the side to move
//!   at `ply`: exactly `Network::evaluate_from_scratch` of that position;
//! - returning from a node needs no call: the parent's slot is untouched, and the next
//!   `push` from it overwrites the child's.
//!
//! Slots above `ply` are stale after returning; evaluating one that no push has written since
//! gives a wrong score (nothing checks, to keep the hot path a single pass). Plies run to
//! `STACK_PLIES - 1`; pushing past that panics. No call allocates except `new`.
//!
//! Each search thread owns one `NnueState`; the network is shared through an `Arc`.

use super::accumulator::Accumulator;
use super::network::{Network, MAX_OUTPUT_WEIGHT};
use super::simd::Backend;
use crate::chess::{Color, Move, MoveDelta, Position};
use std::sync::Arc;

/// Slots in the stack: more than the search's deepest line (it checks this at compile time).
pub const STACK_PLIES: usize = 136;

#[derive(Clone)]
pub struct NnueState {
    net: Arc<Network>,
    simd: Backend,
    stack: Box<[Accumulator]>,
}

impl NnueState {
    /// Bytes one stack takes on the heap.
    pub const HEAP_BYTES: usize = STACK_PLIES * std::mem::size_of::<Accumulator>();

    /// A stack for `net`, using `Backend::best()` (AVX2 where the CPU has it).
    pub fn new(net: Arc<Network>) -> NnueState {
        NnueState::with_backend(net, Backend::best())
    }

    /// A stack that runs the given backend (for tests and benchmarks).
    ///
    /// Panics if an output weight is outside the trained range (`Network::from_bytes`
    /// refuses such files; a network built by hand could have one), where the vector code's
    /// i16 product `v·w` would wrap and the score differ from the reference.
    pub fn with_backend(net: Arc<Network>, simd: Backend) -> NnueState {
        NnueState::on_stack(net, simd, NnueState::new_stack())
    }

    /// A stack's storage, for `on_stack` (the only allocation of this type).
    pub fn new_stack() -> Box<[Accumulator]> {
        vec![Accumulator::ZERO; STACK_PLIES].into_boxed_slice()
    }

    /// A stack for `net` in storage made before (`new_stack`, or `into_stack` of another):
    /// a search thread allocates it once, when it is made, whatever network comes later.
    ///
    /// Panics as `with_backend` does, or if `stack` is not `STACK_PLIES` long.
    pub fn on_stack(net: Arc<Network>, simd: Backend, stack: Box<[Accumulator]>) -> NnueState {
        assert_eq!(stack.len(), STACK_PLIES);
        NnueState::check(&net);
        NnueState { net, simd, stack }
    }

    /// Panics if `net` cannot be run (an output weight outside the trained range): a caller
    /// that gives up a stack for `net` checks first, so that a panic loses nothing.
    pub fn check(net: &Network) {
        assert!(
            net.output_weights
                .iter()
                .all(|w| w.abs() <= MAX_OUTPUT_WEIGHT),
            "an output weight is outside ±{MAX_OUTPUT_WEIGHT}"
        );
    }

    /// The storage, for the next network.
    pub fn into_stack(self) -> Box<[Accumulator]> {
        self.stack
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    pub fn backend(&self) -> Backend {
        self.simd
    }

    /// Slot 0 from scratch.
    pub fn reset(&mut self, root: &Position) {
        self.stack[0].refresh(self.simd, &self.net, root);
    }

    /// Slot `ply + 1` = slot `ply` after `m`, played from `before` (the position at `ply`).
    #[inline]
    pub fn push(&mut self, ply: usize, before: &Position, m: Move) {
        self.push_delta(ply, &MoveDelta::of(before, m));
    }

    /// As `push`, for a delta the caller has already computed.
    #[inline]
    pub fn push_delta(&mut self, ply: usize, delta: &MoveDelta) {
        let (parents, children) = self.stack.split_at_mut(ply + 1);
        children[0].update_from(&parents[ply], self.simd, &self.net, delta);
    }

    /// Slot `ply + 1` = slot `ply` (a null move).
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        self.stack[ply + 1] = self.stack[ply];
    }

    /// The score in centipawns for `stm`, the side to move at `ply`.
    #[inline]
    pub fn evaluate(&self, ply: usize, stm: Color) -> i32 {
        self.stack[ply].evaluate(self.simd, &self.net, stm)
    }

    /// The accumulator at `ply` (for tests and diagnostics).
    pub fn accumulator(&self, ply: usize) -> &Accumulator {
        &self.stack[ply]
    }
}
