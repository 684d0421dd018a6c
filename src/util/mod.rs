//! Small pieces the engine's parts and tools share.

pub mod files;
pub mod memory;
pub mod rng;
pub mod sched;

pub use rng::Rng;
