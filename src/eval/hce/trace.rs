//! The hook every term of the hand-crafted evaluation goes through: the search's evaluation
//! passes `NoTrace` (and the compiler drops every call), the `eval` table and the tuner pass
//! collectors of their own.

use crate::chess::Color;

/// Receives each term as it is added: `count` times weight `index`, for colour `c`.
pub trait Trace {
    /// False lets the compiler drop every call (the search's evaluation).
    const ACTIVE: bool;
    fn add(&mut self, c: Color, index: usize, count: i32);
}

pub struct NoTrace;

impl Trace for NoTrace {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn add(&mut self, _: Color, _: usize, _: i32) {}
}
