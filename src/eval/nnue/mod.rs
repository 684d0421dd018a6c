//! The efficiently updatable neural network (NNUE) evaluation, trained on Brudno's own games
//! (`brudno datagen`, then the trainer in `tools/`).
//!
//! - `features.rs`: the input index (shared with the trainer);
//! - `network.rs`: shape, quantisation, file layout and the from-scratch reference evaluation.

pub mod features;
pub mod network;

pub use network::{Network, NetworkError};
