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

use super::accumulator;
use super::network::{Aligned, Network, MAX_OUTPUT_WEIGHT, MAX_WIDTH};
use super::simd::Backend;
use crate::chess::{Color, Move, MoveDelta, Position};
use std::sync::Arc;

/// Slots in the stack: more than the search's deepest line (it checks this at compile time).
pub const STACK_PLIES: usize = 136;

/// A stack's storage: room for `STACK_PLIES` slots of the widest network, of which a
/// network uses `2 × width` values per slot, packed from the start (a narrow network touches
/// no more memory than it needs). With each slot, its position's piece count (for the output
/// bucket).
#[derive(Clone)]
pub struct Stack {
    values: Aligned,
    pieces: [u8; STACK_PLIES],
}

impl Stack {
    /// Bytes one stack takes on the heap.
    pub const HEAP_BYTES: usize = Aligned::heap_bytes(STACK_PLIES * 2 * MAX_WIDTH);

    pub fn new() -> Stack {
        Stack {
            values: Aligned::zeroed(STACK_PLIES * 2 * MAX_WIDTH),
            pieces: [0; STACK_PLIES],
        }
    }

    /// Where the values are (to check that storage is passed on, not made again).
    pub fn as_ptr(&self) -> *const i16 {
        self.values.as_ptr()
    }
}

impl Default for Stack {
    fn default() -> Self {
        Stack::new()
    }
}

#[derive(Clone)]
pub struct NnueState {
    net: Arc<Network>,
    simd: Backend,
    stack: Stack,
    /// Values per slot: `2 × width`.
    stride: usize,
}

impl NnueState {
    /// Bytes one stack takes on the heap.
    pub const HEAP_BYTES: usize = Stack::HEAP_BYTES;

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
    pub fn new_stack() -> Stack {
        Stack::new()
    }

    /// A stack for `net` in storage made before (`new_stack`, or `into_stack` of another):
    /// a search thread allocates it once, when it is made, whatever network comes later.
    ///
    /// Panics as `with_backend` does.
    pub fn on_stack(net: Arc<Network>, simd: Backend, stack: Stack) -> NnueState {
        NnueState::check(&net);
        let stride = 2 * net.width();
        NnueState {
            net,
            simd,
            stack,
            stride,
        }
    }

    /// Panics if `net` cannot be run (an output weight outside the trained range, or wider
    /// than the stack): a caller that gives up a stack for `net` checks first, so that a
    /// panic loses nothing.
    pub fn check(net: &Network) {
        assert!(
            net.output_weights
                .iter()
                .all(|w| w.abs() <= MAX_OUTPUT_WEIGHT),
            "an output weight is outside ±{MAX_OUTPUT_WEIGHT}"
        );
        assert!(net.width() <= MAX_WIDTH);
    }

    /// The storage, for the next network.
    pub fn into_stack(self) -> Stack {
        self.stack
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    pub fn backend(&self) -> Backend {
        self.simd
    }

    #[inline(always)]
    fn slot(&self, ply: usize) -> &[i16] {
        &self.stack.values[ply * self.stride..][..self.stride]
    }

    /// Slot 0 from scratch.
    pub fn reset(&mut self, root: &Position) {
        let stride = self.stride;
        let slot = &mut self.stack.values[..stride];
        accumulator::refresh(slot, self.simd, &self.net, root);
        self.stack.pieces[0] = root.occupied().count() as u8;
    }

    /// Slot `ply + 1` = slot `ply` after `m`, played from `before` (the position at `ply`).
    #[inline]
    pub fn push(&mut self, ply: usize, before: &Position, m: Move) {
        self.push_delta(ply, before, &MoveDelta::of(before, m));
    }

    /// As `push`, for a delta the caller has already computed.
    #[inline]
    pub fn push_delta(&mut self, ply: usize, before: &Position, delta: &MoveDelta) {
        let s = self.stride;
        let (parents, children) = self.stack.values.split_at_mut((ply + 1) * s);
        let (parent, child) = (&parents[ply * s..], &mut children[..s]);
        accumulator::update(child, parent, self.simd, &self.net, before, delta);
        let change = delta.added().len() as u8;
        self.stack.pieces[ply + 1] = self.stack.pieces[ply] + change - delta.removed().len() as u8;
    }

    /// Slot `ply + 1` = slot `ply` (a null move).
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        let s = self.stride;
        self.stack
            .values
            .copy_within(ply * s..(ply + 1) * s, (ply + 1) * s);
        self.stack.pieces[ply + 1] = self.stack.pieces[ply];
    }

    /// The score in centipawns for `stm`, the side to move at `ply`.
    #[inline]
    pub fn evaluate(&self, ply: usize, stm: Color) -> i32 {
        let pieces = self.stack.pieces[ply] as usize;
        accumulator::evaluate(self.slot(ply), self.simd, &self.net, stm, pieces)
    }

    /// The accumulator at `ply`, by perspective (`Color::index()`), for tests and diagnostics.
    pub fn accumulator(&self, ply: usize) -> [&[i16]; 2] {
        let w = self.net.width();
        Color::ALL.map(|c| accumulator::half(self.slot(ply), c, w))
    }
}
