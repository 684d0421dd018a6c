//! Where each weight lives in the flat weight table `weights::WEIGHTS`.
//!
//! The evaluation is a sum of `weight × count` terms (plus the fixed blending and scaling), so a
//! tuner can treat it as linear in the weights. Each group below is a run of consecutive weights;
//! `GROUPS` names them for the generated `weights.rs` and for the `eval` trace.

/// The rows of the `eval` trace; every weight group belongs to one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Term {
    Material,
    Psqt,
    Mobility,
    Pawns,
    Passed,
    KingSafety,
    Pieces,
    Threats,
    Tempo,
}

impl Term {
    pub const ALL: [Term; 9] = [
        Term::Material,
        Term::Psqt,
        Term::Mobility,
        Term::Pawns,
        Term::Passed,
        Term::KingSafety,
        Term::Pieces,
        Term::Threats,
        Term::Tempo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Term::Material => "Material",
            Term::Psqt => "Piece squares",
            Term::Mobility => "Mobility",
            Term::Pawns => "Pawn structure",
            Term::Passed => "Passed pawns",
            Term::KingSafety => "King safety",
            Term::Pieces => "Pieces",
            Term::Threats => "Threats",
            Term::Tempo => "Tempo",
        }
    }
}

pub struct Group {
    pub name: &'static str,
    pub start: usize,
    pub len: usize,
    pub term: Term,
    /// Line length when `weights.rs` is written (8 for square tables).
    pub per_line: usize,
}

macro_rules! layout {
    ($( $(#[$doc:meta])* $name:ident [$len:expr] $term:ident $per_line:literal; )*) => {
        layout!(@offsets 0usize; $( $(#[$doc])* $name [$len]; )*);
        pub const GROUPS: &[Group] = &[
            $(Group {
                name: stringify!($name),
                start: $name,
                len: $len,
                term: Term::$term,
                per_line: $per_line,
            },)*
        ];
    };
    (@offsets $at:expr; $(#[$doc:meta])* $name:ident [$len:expr]; $($rest:tt)*) => {
        $(#[$doc])*
        pub const $name: usize = $at;
        layout!(@offsets $name + $len; $($rest)*);
    };
    (@offsets $at:expr;) => {
        /// How many weights there are.
        pub const NUM_WEIGHTS: usize = $at;
    };
}

layout! {
    /// By piece type (the king's entry is unused).
    MATERIAL[6] Material 6;
    /// [piece type][square from the owner's side, a1 = 0].
    PST[6 * 64] Psqt 8;
    /// By the number of safe squares attacked.
    MOB_KNIGHT[9] Mobility 9;
    MOB_BISHOP[14] Mobility 7;
    MOB_ROOK[15] Mobility 8;
    MOB_QUEEN[28] Mobility 7;
    PAWN_DOUBLED[1] Pawns 1;
    PAWN_ISOLATED[1] Pawns 1;
    PAWN_BACKWARD[1] Pawns 1;
    /// Backward and on a file without enemy pawns, so it can be attacked from the front.
    PAWN_BACKWARD_OPEN[1] Pawns 1;
    /// Defended by a pawn, by relative rank.
    PAWN_SUPPORTED[8] Pawns 8;
    /// With a pawn beside it, by relative rank.
    PAWN_PHALANX[8] Pawns 8;
    /// By relative rank.
    PASSED_RANK[8] Passed 8;
    /// The square in front is empty, by relative rank.
    PASSED_FREE[8] Passed 8;
    /// The whole path is empty and no enemy piece attacks it, by relative rank.
    PASSED_SAFE[8] Passed 8;
    /// By the distance of the own king to the square in front, counted (rank - 2) times.
    PASSED_KING_OWN[8] Passed 8;
    /// By the distance of the enemy king to the square in front, counted (rank - 2) times.
    PASSED_KING_THEIR[8] Passed 8;
    /// The enemy has only king and pawns and its king cannot catch the pawn.
    PASSED_UNSTOPPABLE[1] Passed 1;
    /// Enemy pieces attacking the king zone, by their type (penalty for the king's owner).
    KS_ATTACKERS[6] KingSafety 6;
    /// Attacks on king-zone squares, counted per attacked square and attacker.
    KS_ZONE_HITS[1] KingSafety 1;
    /// Squares from which an enemy piece of this type could give a safe check.
    KS_SAFE_CHECKS[6] KingSafety 6;
    /// King-zone squares the enemy attacks and only the king (or queen) defends.
    KS_WEAK_ZONE[1] KingSafety 1;
    /// Counted (danger units)^2 / 16 when at least two pieces attack: attacks compound.
    KS_DANGER_SQUARED[1] KingSafety 1;
    /// [file distance from the edge, 0..=3][relative rank of the nearest own pawn in front
    /// on that file, 0 = none], over the king's file and its neighbours.
    KS_SHIELD[4 * 7] KingSafety 7;
    /// By relative rank of the nearest enemy pawn coming down a file near the king (0 = none).
    KS_STORM[7] KingSafety 7;
    /// The same when an own pawn blocks it.
    KS_STORM_BLOCKED[7] KingSafety 7;
    /// Files next to (and at) the king without own pawns; without any pawns.
    KS_SEMIOPEN_FILE[1] KingSafety 1;
    KS_OPEN_FILE[1] KingSafety 1;
    BISHOP_PAIR[1] Pieces 1;
    /// Per bishop, own pawns on squares of the bishop's colour.
    BISHOP_PAWNS[1] Pieces 1;
    ROOK_OPEN[1] Pieces 1;
    ROOK_SEMIOPEN[1] Pieces 1;
    /// Rook on the seventh with the enemy king on the eighth or enemy pawns on the seventh.
    ROOK_SEVENTH[1] Pieces 1;
    /// [knight, bishop][not defended, defended by a pawn]: on ranks 4-6 where no enemy pawn can
    /// ever attack.
    OUTPOST[4] Pieces 4;
    /// A knight or bishop with an own pawn right in front of it.
    MINOR_BEHIND_PAWN[1] Pieces 1;
    /// Enemy pieces attacked by our pawns, by victim type.
    THREAT_BY_PAWN[6] Threats 6;
    /// Enemy pieces (and pawns not defended by a pawn) attacked by our knights and bishops.
    THREAT_BY_MINOR[6] Threats 6;
    /// The same, attacked by our rooks.
    THREAT_BY_ROOK[6] Threats 6;
    /// Undefended enemy pieces and pawns next to our king.
    THREAT_BY_KING[1] Threats 1;
    /// Enemy pieces we attack that nothing defends.
    HANGING[1] Threats 1;
    /// Safe pawn pushes that would attack an enemy piece.
    THREAT_PAWN_PUSH[1] Threats 1;
    TEMPO[1] Tempo 1;
}

/// The group a weight index belongs to.
pub fn group_of(index: usize) -> &'static Group {
    GROUPS
        .iter()
        .find(|g| (g.start..g.start + g.len).contains(&index))
        .expect("weight index in range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_tile_the_table() {
        let mut at = 0;
        for g in GROUPS {
            assert_eq!(g.start, at, "{}", g.name);
            at += g.len;
        }
        assert_eq!(at, NUM_WEIGHTS);
    }
}
