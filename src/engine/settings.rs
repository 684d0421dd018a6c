//! Everything the options set, in one value: the search's options and the engine's own
//! (book, tables, strength, the protocol's style). `Settings::default()` is where every
//! default lives (the search's part is `SearchOptions::default()`); the option table in
//! `options.rs` reads and writes these fields.

use crate::search::SearchOptions;

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `Hash`, MiB.
    pub hash_mb: usize,
    /// Threads, MultiPV, Move Overhead and the search method switches. Its `tablebases` and
    /// `strength_elo` are filled in per search (from the fields below).
    pub search: SearchOptions,
    pub ponder: bool,
    pub own_book: bool,
    /// `BookFile`: empty = the embedded book.
    pub book_file: String,
    pub book_depth: u32,
    pub book_best_move: bool,
    pub syzygy_path: String,
    pub syzygy_probe_depth: u32,
    pub syzygy_probe_limit: u32,
    pub syzygy_50_move_rule: bool,
    /// `UCI_Chess960`: castling is written king-takes-rook.
    pub chess960: bool,
    pub show_wdl: bool,
    pub limit_strength: bool,
    pub uci_elo: u32,
    pub debug_log_file: String,
    /// `Evaluation`: `hce` or `nnue`.
    pub evaluation: String,
    /// `EvalFile`: empty = the embedded network.
    pub eval_file: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            hash_mb: 16,
            search: SearchOptions::default(),
            ponder: false,
            own_book: true,
            book_file: String::new(),
            book_depth: 32,
            book_best_move: false,
            syzygy_path: String::new(),
            syzygy_probe_depth: 1,
            syzygy_probe_limit: 7,
            syzygy_50_move_rule: true,
            chess960: false,
            show_wdl: false,
            limit_strength: false,
            uci_elo: 1500,
            debug_log_file: String::new(),
            evaluation: "nnue".to_string(),
            eval_file: String::new(),
        }
    }
}
