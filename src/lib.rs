pub mod book;
pub mod chess;
pub mod endgame;
pub mod engine;
pub mod eval;
pub mod search;
pub mod tablebase;
pub mod uci;
