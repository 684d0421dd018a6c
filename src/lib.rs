pub mod chess;
pub mod search;
pub mod eval;
