//! What the engine decides before it searches: whether the book answers instead, which root
//! moves the tablebases allow, and the search options the settings make (tables to probe,
//! a limited strength). The protocol layer only asks for a move; these choices are here.

use super::settings::Settings;
use crate::book::{self, Book};
use crate::chess::game::Game;
use crate::chess::Move;
use crate::eval::nnue::Network;
use crate::eval::EvalChoice;
use crate::search::{Limits, SearchOptions, TablebaseProbing};
use crate::tablebase::Tablebases;
use std::sync::Arc;

/// A move from the opening book.
pub struct BookMove {
    pub mv: Move,
    pub weight: u16,
    pub total: u32,
}

/// Whether these limits are a game's (a clock or a fixed time per move, nothing that asks for
/// analysis): only then may the book answer. `go depth`, `go nodes`, `go mate`, `infinite`,
/// `ponder`, `searchmoves` and MultiPV > 1 always search and report.
pub fn plays_a_game(limits: &Limits, settings: &Settings) -> bool {
    let clock = limits.wtime.is_some() || limits.btime.is_some() || limits.movetime.is_some();
    clock
        && !limits.infinite
        && !limits.ponder
        && limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.mate.is_none()
        && limits.searchmoves.is_empty()
        && settings.search.multipv == 1
}

/// The book move to play instead of searching, if the book is on and knows the position.
pub fn book_move(
    settings: &Settings,
    book_file: Option<&Book>,
    game: &Game,
    limits: &Limits,
) -> Option<BookMove> {
    let root = game.position();
    if !settings.own_book
        || !plays_a_game(limits, settings)
        || book::game_ply(root) >= settings.book_depth
    {
        return None;
    }
    let book = book_file.unwrap_or_else(|| Book::embedded());
    let seed = root.key()
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
    let (mv, weight, total) = book.pick(root, settings.book_best_move, seed)?;
    Some(BookMove { mv, weight, total })
}

/// At a root the tables cover, only the moves that keep the tablebase result are searched:
/// `limits.searchmoves` is narrowed, and a line for the user says so.
pub fn tablebase_root_moves(
    settings: &Settings,
    tables: Option<&Tablebases>,
    game: &Game,
    limits: &mut Limits,
) -> Option<String> {
    let tb = tables?;
    let root = game.position();
    if root.occupied().count() > settings.syzygy_probe_limit {
        return None;
    }
    let result = tb.probe_root(root, game.history(), settings.syzygy_50_move_rule)?;
    let before = if limits.searchmoves.is_empty() {
        result.moves.len()
    } else {
        limits.searchmoves.len()
    };
    let keep: Vec<Move> = result
        .keep
        .iter()
        .copied()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
        .collect();
    if keep.is_empty() {
        return None;
    }
    let result_name = format!("{:?}", result.wdl).to_lowercase();
    let note = format!(
        "tablebase {result_name}, dtz {}: {} of {before} moves keep it",
        result.dtz,
        keep.len()
    );
    limits.searchmoves = keep;
    Some(note)
}

/// The static evaluation a search uses. `UCI_LimitStrength` plays with the evaluation its
/// rating table was measured with (src/search/strength.rs): the same node budget with the
/// network plays stronger.
pub fn evaluation(settings: &Settings, network: &Arc<Network>) -> EvalChoice {
    match settings.evaluation.as_str() {
        "nnue" if !settings.limit_strength => EvalChoice::Nnue(Arc::clone(network)),
        _ => EvalChoice::Hce,
    }
}

/// The search options of one search: the settings' own, with the tables to probe and the
/// strength limit filled in.
pub fn search_options(
    settings: &Settings,
    tables: Option<&Arc<Tablebases>>,
    network: &Arc<Network>,
) -> SearchOptions {
    SearchOptions {
        evaluation: evaluation(settings, network),
        tablebases: tables.map(|tables| TablebaseProbing {
            tables: Arc::clone(tables),
            probe_depth: settings.syzygy_probe_depth,
            probe_limit: settings.syzygy_probe_limit,
            rule50: settings.syzygy_50_move_rule,
        }),
        strength_elo: settings.limit_strength.then_some(settings.uci_elo),
        ..settings.search.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_is_the_default_but_limited_strength_keeps_its_calibrated_evaluation() {
        let network = crate::eval::nnue::network::embedded();
        let mut settings = Settings::default();
        let chosen = |s: &Settings| search_options(s, None, &network).evaluation.name();
        assert_eq!(chosen(&settings), "nnue");
        settings.limit_strength = true;
        assert_eq!(chosen(&settings), "hce");
        settings.limit_strength = false;
        settings.evaluation = "hce".into();
        assert_eq!(chosen(&settings), "hce");
    }
}
