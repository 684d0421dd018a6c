//! The search: iterative-deepening principal-variation α-β over the rules core.
//! It is a library API: a position, its game history and limits go in; events and a result
//! come out. It knows nothing about text protocols (the UCI layer formats its events).
//!
//! This file only declares the modules and re-exports the API; the modules import one another
//! directly, never through here, so that their graph stays acyclic (tests/search_layout.rs).

mod alphabeta;
pub mod bench;
mod control;
mod correction;
mod counter;
mod faults;
pub mod history;
mod iterate;
pub mod params;
pub mod picker;
mod qsearch;
mod root;
pub mod score;
mod searcher;
mod secondary;
pub mod see;
mod smp;
pub mod strength;
mod tally;
mod thread;
pub mod time;
mod trace;
pub mod tt;
mod types;
mod worker;

pub use control::SearchControl;
pub use counter::Counter;
pub(crate) use faults::{fault_stall, Fault};
pub use searcher::Searcher;
pub use smp::MAX_THREADS;
pub use tally::SearchStats;
pub use trace::{TraceNode, TreeLog};
pub use types::{
    Bound, Limits, LineInfo, Score, SearchEvent, SearchOptions, SearchResult, TablebaseProbing,
};
