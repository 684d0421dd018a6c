//! The efficiently updatable neural network (NNUE) evaluation, trained on Brudno's own games
//! (`brudno datagen`, then the trainer in `tools/`).
//!
//! - `features.rs`: the input index (shared with the trainer);
//! - `network.rs`: shape, quantisation, file format and the from-scratch reference evaluation;
//! - `accumulator.rs`: one position's hidden layer, refreshed or updated from its parent's by
//!   a `MoveDelta` (with mirroring, one perspective refreshed when its king changes sides);
//! - `state.rs`: `NnueState`, the per-thread accumulator stack the search drives (its contract
//!   is in that file's header);
//! - `simd.rs`: the hot loops, portable and AVX2/AVX-512, chosen at run time.

pub mod accumulator;
pub mod features;
pub mod network;
pub mod simd;
pub mod state;

pub use network::{Network, NetworkError, Shape};
pub use simd::Backend;
pub use state::{NnueState, Stack};
