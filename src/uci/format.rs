//! Engine→GUI text: `info` lines from search events, `bestmove`, and the `d` board.

use crate::chess::{Color, Move, Position, Square};
use crate::engine::options::{Kind, OptionSpec, Value};
use crate::search::{Bound, Counter, LineInfo, Score, SearchEvent, SearchResult, SearchStats};

#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    pub chess960: bool,
    pub show_wdl: bool,
    /// `debug on`: the search's debug notes are shown too.
    pub debug: bool,
}

/// `currmove` lines are only worth sending once a search has run this long.
pub const CURRMOVE_AFTER_MS: u64 = 1000;

/// The info line for a search event (`None` when nothing should be sent).
pub fn event(root: &Position, event: &SearchEvent, style: Style) -> Option<String> {
    match event {
        SearchEvent::Line(info) => Some(line(root, info, style)),
        SearchEvent::CurrMove {
            depth,
            mv,
            number,
            time_ms,
        } => (*time_ms >= CURRMOVE_AFTER_MS).then(|| {
            format!(
                "info depth {depth} currmove {} currmovenumber {number}",
                root.move_to_uci(*mv, style.chess960)
            )
        }),
        SearchEvent::Message(text) => Some(format!("info string {text}")),
        SearchEvent::Debug(text) => style.debug.then(|| format!("info string {text}")),
    }
}

fn line(root: &Position, info: &LineInfo, style: Style) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {}",
        info.depth,
        info.seldepth.max(info.depth),
        info.multipv,
        score(info.score)
    );
    match info.bound {
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
        Bound::Exact => {}
    }
    if style.show_wdl {
        let (w, d, l) = wdl(info.score, root);
        s.push_str(&format!(" wdl {w} {d} {l}"));
    }
    let nps = info.nodes * 1000 / info.time_ms.max(1);
    s.push_str(&format!(
        " nodes {} nps {nps} hashfull {} tbhits {} time {}",
        info.nodes, info.hashfull, info.tbhits, info.time_ms
    ));
    let pv = pv_text(root, &info.pv, style.chess960);
    if !pv.is_empty() {
        s.push_str(" pv ");
        s.push_str(&pv);
    }
    s
}

pub fn score(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

/// The win/draw/loss model behind `UCI_ShowWDL`: with x = material on the board / 78 (1 at the
/// start), P(win) = 1 / (1 + exp((a(x) − s) / b(x))) and P(loss) the same for −s, where
/// a(x) = WDL_A[0] + WDL_A[1]·x and b(x) = WDL_B[0] + WDL_B[1]·x. The constants were fitted once
/// on Brudno's self-play games by a script since removed (it is in the git history): both sides
/// of 400 games with the network as the evaluation (SecondarySearch on against off, 1+0.01;
/// 46,311 scored moves, log-loss 1.072 → 0.724). (The hand-crafted evaluation's fit was
/// [295.8, −215.9], [110.9, 41.8].)
const WDL_A: [f64; 2] = [381.6, -298.7];
const WDL_B: [f64; 2] = [126.6, 23.6];

/// Win/draw/loss per mille for the side to move, from its score and the material on the board.
pub fn wdl(score: Score, pos: &Position) -> (u32, u32, u32) {
    match score {
        Score::Mate(n) if n > 0 => (1000, 0, 0),
        Score::Mate(_) => (0, 0, 1000),
        Score::Cp(cp) => {
            let x = material_units(pos) as f64 / 78.0;
            let a = WDL_A[0] + WDL_A[1] * x;
            let b = (WDL_B[0] + WDL_B[1] * x).max(1.0);
            let p = |s: f64| 1.0 / (1.0 + ((a - s) / b).exp());
            let w = (p(cp as f64) * 1000.0).round() as u32;
            let l = ((p(-cp as f64) * 1000.0).round() as u32).min(1000 - w);
            (w, 1000 - w - l, l)
        }
    }
}

/// Material in pawn units, both sides (pawn 1, knight and bishop 3, rook 5, queen 9).
fn material_units(pos: &Position) -> u32 {
    use crate::chess::PieceType;
    [
        (PieceType::Pawn, 1),
        (PieceType::Knight, 3),
        (PieceType::Bishop, 3),
        (PieceType::Rook, 5),
        (PieceType::Queen, 9),
    ]
    .iter()
    .map(|&(pt, v)| pos.kind(pt).count() * v)
    .sum()
}

/// The moves of a PV as UCI text, stopping at the first one that is not legal (which the
/// search should never send, but the GUI must never see).
pub fn pv_text(root: &Position, pv: &[Move], chess960: bool) -> String {
    let mut pos = *root;
    let mut words = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.legal_moves().contains(m) {
            log::error!("illegal move {m:?} in PV from {}", root.to_fen());
            break;
        }
        words.push(pos.move_to_uci(m, chess960));
        pos.play(m);
    }
    words.join(" ")
}

/// `bestmove …`, `bestmove … ponder …`, or `bestmove (none)` when there is no legal move.
pub fn bestmove(root: &Position, result: &SearchResult, style: Style) -> String {
    let legal = root.legal_moves();
    let best = result
        .best
        .filter(|m| legal.contains(*m))
        .or_else(|| legal.first().copied());
    let Some(best) = best else {
        return "bestmove (none)".to_string();
    };
    let mut s = format!("bestmove {}", root.move_to_uci(best, style.chess960));
    let after = root.after(best);
    if let Some(p) = result.ponder.filter(|p| after.legal_moves().contains(*p)) {
        s.push_str(&format!(" ponder {}", after.move_to_uci(p, style.chess960)));
    }
    s
}

/// The `d` command: the board, FEN, key and checkers (in Stockfish's layout).
pub fn board(pos: &Position, chess960: bool) -> Vec<String> {
    let sep = " +---+---+---+---+---+---+---+---+".to_string();
    let mut lines = vec![String::new(), sep.clone()];
    for rank in (0..8).rev() {
        let mut row = String::from(" |");
        for file in 0..8 {
            let c = pos
                .piece_at(Square::from_coords(file, rank))
                .map_or(' ', |p| p.letter());
            row.push_str(&format!(" {c} |"));
        }
        row.push_str(&format!(" {}", rank + 1));
        lines.push(row);
        lines.push(sep.clone());
    }
    lines.push("   a   b   c   d   e   f   g   h".to_string());
    lines.push(String::new());
    lines.push(format!("Fen: {}", pos.to_fen()));
    lines.push(format!("Key: {:016X}", pos.key()));
    let checkers: Vec<String> = pos.checkers().map(|s| s.to_string()).collect();
    lines.push(format!("Checkers: {}", checkers.join(" ")));
    lines.push(format!(
        "Side to move: {}{}",
        if pos.side_to_move() == Color::White {
            "white"
        } else {
            "black"
        },
        if chess960 { " (Chess960)" } else { "" }
    ));
    lines
}

/// The `option name … type spin …` line for a spin option.
pub fn spin_line(name: &str, default: i64, min: i64, max: i64) -> String {
    format!("option name {name} type spin default {default} min {min} max {max}")
}

/// The `option name … type …` line that answers `uci` for one option.
pub fn option_line(spec: &OptionSpec) -> String {
    let name = spec.name;
    match (&spec.kind, spec.default_value()) {
        (Kind::Check, Value::Bool(default)) => {
            format!("option name {name} type check default {default}")
        }
        (Kind::Spin { min, max }, Value::Int(default)) => spin_line(name, default, *min, *max),
        (Kind::Combo { choices }, Value::Text(default)) => {
            let vars: String = choices.iter().map(|c| format!(" var {c}")).collect();
            format!("option name {name} type combo default {default}{vars}")
        }
        (Kind::Button, _) => format!("option name {name} type button"),
        (Kind::Text, Value::Text(default)) => format!(
            "option name {name} type string default {}",
            if default.is_empty() {
                "<empty>"
            } else {
                &default
            }
        ),
        (kind, default) => unreachable!("option {name}: {kind:?} with default {default:?}"),
    }
}

/// `stats`: what the last search counted, one `info string stats <what> <name> <n> …` line
/// per subject (protocol.md, "Search statistics").
pub fn stats(s: &SearchStats) -> Vec<String> {
    let n = |e: Counter| s.count(e);
    let mut lines = vec![format!(
        "nodes {} interior {} quiescence {} threads {}",
        s.nodes(),
        s.interior_nodes(),
        s.quiescence_nodes(),
        s.threads()
    )];
    for (ply, interior, quiescence) in s.plies() {
        lines.push(format!(
            "ply {ply} interior {interior} quiescence {quiescence}"
        ));
    }
    let ebf = s.branching();
    for &(depth, nodes) in s.iterations() {
        let mut line = format!("iteration {depth} nodes {nodes}");
        if let Some((_, b)) = ebf.iter().find(|(d, _)| *d == depth) {
            line.push_str(&format!(" ebf {b:.2}"));
        }
        lines.push(line);
    }
    lines.extend([
        format!(
            "tt probes {} hits {} cutoffs {}",
            n(Counter::TtProbe),
            n(Counter::TtHit),
            n(Counter::TtCut)
        ),
        format!(
            "betacuts {} first {} firstshare {} quiescence {} standpat {}",
            n(Counter::BetaCut),
            n(Counter::FirstMoveCut),
            s.first_move_share()
                .map_or("-".to_string(), |f| format!("{f:.3}")),
            n(Counter::QuiescenceCut),
            n(Counter::StandPat)
        ),
        format!(
            "nullmove tries {} cuts {}",
            n(Counter::NullMoveTry),
            n(Counter::NullMoveCut)
        ),
        format!(
            "futility reverse {} moves {} delta {}",
            n(Counter::ReverseFutility),
            n(Counter::Futility),
            n(Counter::Delta)
        ),
        format!("lmp moves {}", n(Counter::LateMovePrune)),
        format!(
            "lmr reductions {} researches {} iir {}",
            n(Counter::LmrReduction),
            n(Counter::LmrResearch),
            n(Counter::Iir)
        ),
        format!(
            "see quiet {} noisy {} quiescence {}",
            n(Counter::SeeQuiet),
            n(Counter::SeeNoisy),
            n(Counter::SeeQuiescence)
        ),
        format!(
            "extensions check {} singular {} double {} multicut {}",
            n(Counter::CheckExtension),
            n(Counter::SingularExtension),
            n(Counter::DoubleExtension),
            n(Counter::MultiCut)
        ),
        format!("tablebase cutoffs {}", n(Counter::Tablebase)),
        format!(
            "secondary holds {} faillows {} drops {} inconclusive {}",
            n(Counter::Holds),
            n(Counter::FailedLow),
            n(Counter::Dropped),
            n(Counter::Inconclusive)
        ),
    ]);
    lines
        .into_iter()
        .map(|l| format!("info string stats {l}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn wdl_sums_to_a_thousand_and_is_monotonic() {
        for fen in [crate::chess::START_FEN, "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"] {
            let pos = Position::from_fen(fen).unwrap();
            let mut last_w = 0;
            for cp in (-1000..=1000).step_by(25) {
                let (w, d, l) = wdl(Score::Cp(cp), &pos);
                assert_eq!(w + d + l, 1000);
                assert!(w >= last_w);
                last_w = w;
            }
            assert_eq!(wdl(Score::Cp(0), &pos).0, wdl(Score::Cp(0), &pos).2);
            assert_eq!(wdl(Score::Mate(3), &pos), (1000, 0, 0));
        }
        assert_eq!(material_units(&Position::startpos()), 78);
    }

    #[test]
    fn bestmove_none_without_legal_moves() {
        let mated = Position::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        let r = SearchResult {
            best: None,
            ponder: None,
            score: None,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            surprise_depth: 0,
            longest_stall: Duration::ZERO,
        };
        assert_eq!(bestmove(&mated, &r, Style::default()), "bestmove (none)");
    }

    #[test]
    fn castling_is_written_per_mode() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
        let castle = pos.parse_uci_move("e1g1").unwrap();
        let r = SearchResult {
            best: Some(castle),
            ponder: None,
            score: None,
            depth: 1,
            nodes: 1,
            pv: vec![castle],
            surprise_depth: 0,
            longest_stall: Duration::ZERO,
        };
        assert_eq!(bestmove(&pos, &r, Style::default()), "bestmove e1g1");
        let style = Style {
            chess960: true,
            ..Style::default()
        };
        assert_eq!(bestmove(&pos, &r, style), "bestmove e1h1");
    }
}
