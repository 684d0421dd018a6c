//! Small pieces the engine's parts and tools share.

pub mod files;
pub mod memory;
pub mod rng;
pub mod sched;
pub mod stack_list;

pub use rng::Rng;

/// The machine's cores, as the system reports them (1 when it does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
