//! Static evaluation e(p): what a position is worth when the search stops. Two backends sit
//! side by side behind one `Evaluator` per search thread: the lecture's hand-crafted
//! evaluation (`hce/`) and an efficiently updatable neural network trained on Brudno's own
//! games (`nnue/`); the `Evaluation` option chooses. Known endgames (`src/endgame/`) come
//! first for both.

pub mod hce;
pub mod nnue;

use crate::chess::{Color, Move, Position};
use hce::pawns::PawnTable;
use nnue::{Network, NnueState, Stack};
use std::sync::Arc;

#[inline(always)]
pub(crate) fn from_side_to_move(pos: &Position, white: i32) -> i32 {
    match pos.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// The hand-crafted evaluation in centipawns from the side to move's point of view, known
/// endgames first: what an `Evaluator` on `hce` returns, without its pawn table.
pub fn evaluate(pos: &Position) -> i32 {
    crate::endgame::evaluate_known(pos).unwrap_or_else(|| hce::evaluate(pos, None))
}

/// Which evaluation the search uses: the hand-crafted one, or a network.
#[derive(Clone)]
pub enum EvalChoice {
    Hce,
    Nnue(Arc<Network>),
}

/// The embedded network: it beats the hand-crafted evaluation by 80 Elo at 8+0.08
/// (nets/README.md), so it is what a search gets unless told otherwise.
impl Default for EvalChoice {
    fn default() -> Self {
        EvalChoice::Nnue(nnue::network::embedded())
    }
}

impl PartialEq for EvalChoice {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (EvalChoice::Hce, EvalChoice::Hce) => true,
            (EvalChoice::Nnue(a), EvalChoice::Nnue(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl std::fmt::Debug for EvalChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl EvalChoice {
    /// `hce` or `nnue`, as the `Evaluation` option names them.
    pub fn name(&self) -> &'static str {
        match self {
            EvalChoice::Hce => "hce",
            EvalChoice::Nnue(_) => "nnue",
        }
    }
}

/// The evaluation as the search sees it: one per search thread, told about every move made
/// along the line (`begin` at the root, then `on_move` / `on_null` with the ply they are
/// played from), so that the network's accumulators follow the line incrementally. Known
/// endgames come first, then the chosen backend; the search keeps the result out of the mate
/// range.
pub struct Evaluator {
    pawns: PawnTable,
    /// The network's accumulator stack when `Evaluation` is `nnue`.
    nnue: Option<NnueState>,
    /// The stack's storage while no network is in use: allocated with the evaluator, so
    /// that a helper thread allocates nothing when a search starts (`search/smp.rs`).
    spare_stack: Option<Stack>,
}

impl Evaluator {
    /// Bytes one evaluator takes on the heap at most (the network's stack included).
    pub const HEAP_BYTES: usize = PawnTable::HEAP_BYTES + NnueState::HEAP_BYTES;

    pub fn new() -> Evaluator {
        Evaluator {
            pawns: PawnTable::new(),
            nnue: None,
            spare_stack: Some(NnueState::new_stack()),
        }
    }

    /// Uses `choice` from now on (a new network takes over the old one's stack).
    pub fn set_choice(&mut self, choice: &EvalChoice) {
        let unchanged = match (choice, &self.nnue) {
            (EvalChoice::Hce, None) => true,
            (EvalChoice::Nnue(net), Some(n)) => Arc::ptr_eq(n.network(), net),
            _ => false,
        };
        if unchanged {
            return;
        }
        if let EvalChoice::Nnue(net) = choice {
            // Before the old network's stack is taken: a panic here leaves all as it was.
            NnueState::check(net);
        }
        if let Some(old) = self.nnue.take() {
            self.spare_stack = Some(old.into_stack());
        }
        if let EvalChoice::Nnue(net) = choice {
            let stack = self.spare_stack.take().unwrap_or_else(NnueState::new_stack);
            self.nnue = Some(NnueState::on_stack(
                Arc::clone(net),
                nnue::simd::Backend::best(),
                stack,
            ));
        }
    }

    /// The search starts a line at `root` (ply 0).
    #[inline(always)]
    pub fn begin(&mut self, root: &Position) {
        if let Some(n) = &mut self.nnue {
            n.reset(root);
        }
    }

    /// `m` is played from `parent` at `ply`; the child is at `ply + 1`.
    #[inline(always)]
    pub fn on_move(&mut self, ply: usize, parent: &Position, m: Move) {
        if let Some(n) = &mut self.nnue {
            n.push(ply, parent, m);
        }
    }

    /// A null move is played at `ply`.
    #[inline(always)]
    pub fn on_null(&mut self, ply: usize) {
        if let Some(n) = &mut self.nnue {
            n.push_null(ply);
        }
    }

    /// The value of `pos`, the position at `ply` of the line, for the side to move.
    #[inline(always)]
    pub fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        // Endgames with exact knowledge (KPK bitbase, mating technique) come first.
        if let Some(v) = crate::endgame::evaluate_known(pos) {
            return v;
        }
        match &self.nnue {
            Some(n) => {
                let v = n.evaluate(ply, pos.side_to_move());
                // The incremental accumulators must equal a refresh at every node the search
                // evaluates (tests/nnue_search.rs runs with this check on).
                debug_assert_eq!(
                    v,
                    n.network().evaluate_from_scratch(pos),
                    "{}",
                    pos.to_fen()
                );
                v
            }
            None => hce::evaluate(pos, Some(&mut self.pawns)),
        }
    }

    /// Forgets the cached pawn structures (`ucinewgame`); never needed for correctness.
    pub fn clear(&mut self) {
        self.pawns.clear();
    }
}

impl Default for Evaluator {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_and_the_hce_take_turns_on_the_one_stack_made_with_the_evaluator() {
        // A search thread allocates nothing when its search starts (`search/smp.rs`): the
        // accumulator stack is made with the evaluator and passed from network to network.
        let net = nnue::network::embedded();
        let other = Arc::new((*net).clone());
        let pos =
            Position::from_fen("r1bq1rk1/p1pn2bp/1p4p1/3Ppn2/P7/BPNQ1NP1/5PBP/R4RK1 b - - 1 17")
                .unwrap();
        let mut e = Evaluator::new();
        let storage = e.spare_stack.as_ref().unwrap().as_ptr();
        let other_shape = Arc::<Network>::from(Network::random_shape(
            nnue::Shape {
                width: 256,
                buckets: 8,
                mirrored: true,
            },
            4,
        ));
        let choices = [
            EvalChoice::Nnue(Arc::clone(&net)),
            EvalChoice::Hce,
            EvalChoice::Nnue(Arc::clone(&other)),
            EvalChoice::Nnue(Arc::clone(&net)),
            EvalChoice::Nnue(Arc::clone(&other_shape)),
            EvalChoice::Hce,
        ];
        for choice in &choices {
            e.set_choice(choice);
            e.begin(&pos);
            let expected = match choice {
                EvalChoice::Hce => hce::evaluate(&pos, None),
                EvalChoice::Nnue(n) => n.evaluate_from_scratch(&pos),
            };
            assert_eq!(e.evaluate(&pos, 0), expected, "{}", choice.name());
            let now = match &e.nnue {
                Some(n) => n.accumulator(0)[0].as_ptr(),
                None => e.spare_stack.as_ref().unwrap().as_ptr(),
            };
            assert_eq!(now, storage, "{}", choice.name());
        }
    }

    #[test]
    fn a_network_that_cannot_run_is_refused_before_the_stack_changes_hands() {
        let net = nnue::network::embedded();
        let mut bad = (*net).clone();
        bad.output_weights[0] = nnue::network::MAX_OUTPUT_WEIGHT + 1;
        let mut e = Evaluator::new();
        e.set_choice(&EvalChoice::Nnue(Arc::clone(&net)));
        let storage = e.nnue.as_ref().unwrap().accumulator(0)[0].as_ptr();
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            e.set_choice(&EvalChoice::Nnue(Arc::new(bad)))
        }));
        assert!(refused.is_err());
        // The old network still runs, on the same storage.
        let n = e.nnue.as_ref().expect("the old network kept");
        assert!(Arc::ptr_eq(n.network(), &net));
        assert_eq!(n.accumulator(0)[0].as_ptr(), storage);
    }
}
