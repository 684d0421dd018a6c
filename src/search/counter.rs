//! What a counting search counts (`tally.rs`), one counter each; several also name why a node
//! or a move was cut short, as a traced tree shows it (`trace.rs`).

/// What a search counts, one counter each. Some name why a node or a move was cut short,
/// and a traced tree shows them by that name (`label`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Transposition-table probes, the probes that found the position, and the hits that
    /// decided the node by themselves.
    TtProbe,
    TtHit,
    TtCut,
    /// β cut-offs at interior nodes below the root, and those made by the first move searched.
    BetaCut,
    FirstMoveCut,
    /// Quiescence: a move reached β, or standing pat did.
    QuiescenceCut,
    StandPat,
    /// Null-move searches, and those that cut the node off.
    NullMoveTry,
    NullMoveCut,
    /// Nodes cut by reverse futility; quiet moves pruned by futility; captures by delta
    /// pruning in quiescence; quiet moves by late move pruning.
    ReverseFutility,
    Futility,
    Delta,
    LateMovePrune,
    /// Moves searched reduced by LMR, and those searched again at full depth after; nodes
    /// whose depth internal iterative reduction lowered.
    LmrReduction,
    LmrResearch,
    Iir,
    /// SEE pruning: quiet moves, captures (main search), and quiescence nodes whose losing
    /// captures were all skipped.
    SeeQuiet,
    SeeNoisy,
    SeeQuiescence,
    /// Extensions: checks, singular moves (and of those, the double ones), and multi-cuts.
    CheckExtension,
    SingularExtension,
    DoubleExtension,
    MultiCut,
    /// Endgame tables that decided a node.
    Tablebase,
    /// The secondary search's verdicts (main thread, under a clock only).
    Holds,
    FailedLow,
    Dropped,
    Inconclusive,
}

impl Counter {
    pub const COUNT: usize = Counter::Inconclusive as usize + 1;

    /// How a tree picture names the cut or pruning this event stands for.
    pub fn label(self) -> &'static str {
        match self {
            Counter::TtCut => "TT cut",
            Counter::BetaCut | Counter::QuiescenceCut => "β-cut",
            Counter::StandPat => "stand pat",
            Counter::NullMoveCut => "null-move cut",
            Counter::ReverseFutility => "reverse futility",
            Counter::Futility => "futility",
            Counter::Delta => "delta",
            Counter::LateMovePrune => "late-move prune",
            Counter::SeeQuiet | Counter::SeeNoisy | Counter::SeeQuiescence => "SEE prune",
            Counter::MultiCut => "multi-cut",
            Counter::Tablebase => "tablebase",
            _ => "",
        }
    }
}
