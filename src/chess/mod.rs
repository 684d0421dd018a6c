//! The rules of chess: board representation, move generation, FEN, SAN, Zobrist keys, perft.
//! Nothing here knows about search, evaluation or text protocols.

pub mod attacks;
pub mod bitboard;
pub mod cuckoo;
pub mod delta;
pub mod fen;
pub mod game;
pub mod legality;
mod magics;
pub mod movegen;
pub mod moves;
pub mod outcome;
pub mod perft;
mod polyglot_random;
pub mod position;
pub mod san;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use delta::MoveDelta;
pub use fen::FenError;
pub use movegen::GenType;
pub use moves::{Move, MoveKind, MoveList};
pub use outcome::Outcome;
pub use position::{CastleSide, Position, START_FEN};
pub use types::{Color, Piece, PieceType, Square, PIECE_VALUES};
