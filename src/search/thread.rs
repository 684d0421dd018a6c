//! What each search thread keeps for itself across searches: its histories, its stack of
//! frames for the current line, its PV table, the keys of the game and the line, and its
//! evaluator (whose state, such as a network's accumulators, follows the line being searched).

use super::correction::CorrectionHistory;
use super::history::{Histories, PieceTo};
use super::params::{LMR_BASE, LMR_DIVISOR};
use super::score::{MAX_PLY, NONE};
use crate::chess::Move;
use crate::eval::Evaluator;
use std::sync::LazyLock;

// The evaluator's per-ply state must reach past the deepest line (frames go to MAX_PLY + 3).
const _: () = assert!(crate::eval::nnue::state::STACK_PLIES >= MAX_PLY + 4);

/// What the search remembers about each ply of the current line.
#[derive(Clone, Copy)]
pub struct Frame {
    /// Static evaluation (`NONE` in check).
    pub eval: i32,
    pub killers: [Move; 2],
    /// The move played from this ply (`NULL` for a null move).
    pub mv: Move,
    /// Its piece-to slot for continuation history (`None` for a null move).
    pub piece_to: Option<PieceTo>,
    /// A move to leave out (singular-extension searches).
    pub excluded: Move,
    /// Plies since the last null move: repetitions are not looked for across one.
    pub plies_from_null: usize,
}

impl Frame {
    const EMPTY: Frame = Frame {
        eval: NONE,
        killers: [Move::NULL; 2],
        mv: Move::NULL,
        piece_to: None,
        excluded: Move::NULL,
        plies_from_null: 0,
    };
}

/// One search thread's own data (the transposition table is shared).
pub struct ThreadData {
    pub history: Box<Histories>,
    pub correction: Box<CorrectionHistory>,
    pub stack: [Frame; MAX_PLY + 4],
    /// Triangular PV table: `pv[ply][ply..pv_len[ply]]` is the best line found from `ply`.
    pub pv: [[Move; MAX_PLY + 1]; MAX_PLY + 1],
    pub pv_len: [usize; MAX_PLY + 1],
    /// Keys of the game's positions, then of the current line (`root_idx + ply`).
    pub keys: Vec<u64>,
    pub eval: Evaluator,
}

impl ThreadData {
    /// Bytes one thread's data takes on the heap once it has searched (the keys, a few KB,
    /// left out): what a helper costs beyond its stack.
    pub const HEAP_BYTES: usize = std::mem::size_of::<ThreadData>()
        + Histories::HEAP_BYTES
        + std::mem::size_of::<CorrectionHistory>()
        + Evaluator::HEAP_BYTES;

    pub fn new() -> Box<ThreadData> {
        Box::new(ThreadData {
            history: Histories::new(),
            correction: CorrectionHistory::new(),
            stack: [Frame::EMPTY; MAX_PLY + 4],
            pv: [[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            keys: Vec::new(),
            eval: Evaluator::new(),
        })
    }

    /// Ready for a search of a root after `history` with `evaluation`.
    pub fn prepare(&mut self, history: &[u64], evaluation: &crate::eval::EvalChoice) {
        self.eval.set_choice(evaluation);
        self.keys.clear();
        self.keys.extend_from_slice(history);
        self.keys.resize(history.len() + MAX_PLY + 4, 0);
    }

    /// Forgets what was learnt (`ucinewgame`).
    pub fn clear(&mut self) {
        self.history.clear();
        self.correction.clear();
        self.stack = [Frame::EMPTY; MAX_PLY + 4];
        self.eval.clear();
    }
}

/// Late-move-reduction table, `[depth][move number]`, log-based: reductions grow with both
/// the remaining depth and how late the move comes in the ordering.
pub struct LmrTable([[i32; 64]; 64]);

/// The one table, shared by every thread.
pub static LMR: LazyLock<LmrTable> = LazyLock::new(|| {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = lmr_formula(d, m);
        }
    }
    LmrTable(t)
});

/// The reduction of the `m`-th move at depth `d` (both at least 1).
fn lmr_formula(d: usize, m: usize) -> i32 {
    let base = LMR_BASE.get() as f64 / 100.0;
    let divisor = LMR_DIVISOR.get() as f64 / 100.0;
    (base + (d as f64).ln() * (m as f64).ln() / divisor) as i32
}

impl LmrTable {
    #[inline(always)]
    pub fn get(&self, depth: i32, moves: usize) -> i32 {
        let (d, m) = ((depth as usize).min(63), moves.min(63));
        // A tuning build reads the parameters afresh (they change after the table is built).
        if cfg!(feature = "tune") && d > 0 && m > 0 {
            return lmr_formula(d, m);
        }
        self.0[d][m]
    }
}
