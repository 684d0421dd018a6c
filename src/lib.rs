pub mod chess;
pub mod engine;
pub mod eval;
pub mod search;
pub mod uci;
