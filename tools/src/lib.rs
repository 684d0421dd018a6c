//! Brudno's offline tools as a library, so that the integration tests (and later tools) can
//! call them in-process; `main.rs` is only the command-line front.

pub mod book;
pub mod cli;
pub mod eval_loss;
pub mod input;
pub mod pgn;
pub mod pgn_to_data;
pub mod progress;
pub mod train;
pub mod tune;
