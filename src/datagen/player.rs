//! The games themselves: the opening (random plies checked by a short search), the moves
//! (node-limited searches) and the adjudication; also the openings files and OpenBench's
//! `genfens`, which share the opening.

use super::format::GameRecord;
use super::Settings;
use crate::chess::game::Game;
use crate::chess::{Color, Outcome, Position};
use crate::eval::EvalChoice;
use crate::search::{Limits, Score, SearchControl, SearchOptions, Searcher};
use crate::tablebase::{Tablebases, Wdl};
use crate::util::Rng;
use anyhow::{bail, Result};
use std::path::Path;
use std::sync::Arc;

/// Openings files (EPD or FEN lines) may be large books, but not endless.
const MAX_OPENINGS_BYTES: u64 = 4 << 30;

pub(crate) fn read_openings(path: &Path) -> Result<Vec<Position>> {
    let bytes = crate::util::files::read_bounded(path, MAX_OPENINGS_BYTES)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // EPD: four fields and operations; FEN: six fields.
        let fields: Vec<&str> = line.split_whitespace().collect();
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields[..6].join(" ")
        } else {
            fields[..fields.len().min(4)].join(" ")
        };
        let pos = Position::from_fen(&fen)
            .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))?;
        out.push(pos);
    }
    if out.is_empty() {
        bail!("{} holds no position", path.display());
    }
    Ok(out)
}

/// OpenBench's `genfens`: `count` openings for data generation on other machines, the same
/// for the same seed, each handed to `emit` as a FEN as soon as it is found. Like datagen's:
/// random plies (8 or 9 from the start position or a random Chess960 start; 2 or 3 on top of
/// a random position of `book`), kept when a verification search of 50,000 nodes scores them
/// within ±1000 cp (datagen's old verification, kept so that a seed still gives its openings).
pub fn genfens(
    count: u64,
    seed: u64,
    book: Option<&str>,
    chess960: bool,
    mut emit: impl FnMut(&str),
) -> Result<()> {
    let openings = match book {
        Some(path) => read_openings(Path::new(path))?,
        None => Vec::new(),
    };
    let settings = Settings {
        chess960,
        random_plies: if openings.is_empty() { 8 } else { 2 },
        hash_mb: 8,
        verify_factor: super::settings::LEGACY_VERIFY_FACTOR,
        ..Settings::default()
    };
    let mut player = GamePlayer::new(&settings, None, EvalChoice::Hce);
    for i in 0..count {
        let mut rng = Rng::derive(seed, &[i]);
        let game = player.opening(&mut rng, &openings)?;
        emit(&game.position().to_fen());
    }
    Ok(())
}

/// Random openings tried before giving up (a book of finished or lost positions).
const MAX_OPENING_TRIES: usize = 10_000;

/// Plays games with one searcher.
pub struct GamePlayer {
    searcher: Searcher,
    options: SearchOptions,
    settings: Settings,
    tablebases: Option<Arc<Tablebases>>,
    control: SearchControl,
    /// Nodes searched for the recorded moves, and those moves, since the last
    /// [`GamePlayer::take_move_counts`] (the soft limit lets a search run past `nodes`).
    move_nodes: u64,
    moves: u64,
}

impl GamePlayer {
    pub fn new(
        settings: &Settings,
        tablebases: Option<Arc<Tablebases>>,
        evaluation: EvalChoice,
    ) -> GamePlayer {
        let options = SearchOptions {
            threads: 1,
            evaluation,
            tablebases: tablebases
                .as_ref()
                .map(|t| crate::search::TablebaseProbing {
                    tables: Arc::clone(t),
                    probe_depth: 1,
                    probe_limit: t.max_pieces(),
                    rule50: true,
                }),
            ..SearchOptions::default()
        };
        GamePlayer {
            searcher: Searcher::new(settings.hash_mb),
            options,
            settings: settings.clone(),
            tablebases,
            control: SearchControl::new(),
            move_nodes: 0,
            moves: 0,
        }
    }

    /// Nodes searched for the recorded moves and the number of those moves since the last call.
    pub fn take_move_counts(&mut self) -> (u64, u64) {
        let counts = (self.move_nodes, self.moves);
        (self.move_nodes, self.moves) = (0, 0);
        counts
    }

    /// A node-limited search: the move, its score (White's view) and the nodes searched
    /// (None: no legal move).
    fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        soft: u64,
    ) -> Option<(crate::chess::Move, i32, u64)> {
        let limits = Limits {
            soft_nodes: Some(soft),
            nodes: Some(soft * 8),
            ..Limits::default()
        };
        let result = self.searcher.search(
            pos,
            history,
            &limits,
            &self.options,
            &self.control,
            &mut |_| {},
        );
        let stm = match result.score? {
            Score::Cp(c) => c.clamp(-32_000, 32_000),
            Score::Mate(n) if n > 0 => 32_000,
            Score::Mate(_) => -32_000,
        };
        let white = if pos.side_to_move() == Color::White {
            stm
        } else {
            -stm
        };
        Some((result.best?, white, result.nodes))
    }

    /// A start position after the random plies that the verification search calls playable.
    fn opening(&mut self, rng: &mut Rng, openings: &[Position]) -> Result<Game> {
        for _ in 0..MAX_OPENING_TRIES {
            let pos = if !openings.is_empty() {
                openings[rng.below(openings.len() as u64) as usize]
            } else if self.settings.chess960 {
                chess960_start(rng.below(960) as u32)
            } else {
                Position::startpos()
            };
            let mut game = Game::new(pos);
            let plies = self.settings.random_plies + rng.below(2) as u32;
            let mut ok = true;
            for _ in 0..plies {
                let moves = game.position().legal_moves();
                if moves.is_empty() {
                    ok = false;
                    break;
                }
                game.play(moves.as_slice()[rng.below(moves.len() as u64) as usize]);
            }
            if !ok || !game.position().has_legal_move() {
                continue;
            }
            self.searcher.clear();
            let soft = self.settings.nodes * self.settings.verify_factor;
            match self.search(game.position(), game.history(), soft) {
                Some((_, score, _)) if score.abs() <= self.settings.verify_limit => {
                    return Ok(game)
                }
                _ => continue,
            }
        }
        bail!(
            "no playable opening in {MAX_OPENING_TRIES} tries (each ended or scored beyond ±{} cp)",
            self.settings.verify_limit
        )
    }

    /// Plays one game with the generator `rng`.
    pub fn play(&mut self, rng: &mut Rng, openings: &[Position]) -> Result<GameRecord> {
        let mut game = self.opening(rng, openings)?;
        self.searcher.clear();
        let mut record = GameRecord::new(*game.position());
        let (mut win_run, mut loss_run, mut draw_run) = (0u32, 0u32, 0u32);
        let s = self.settings.clone();
        record.outcome = loop {
            if let Some((_, outcome)) = game.ending() {
                break outcome;
            }
            if let Some(outcome) = self.decided_by_table(game.position()) {
                break outcome;
            }
            let pos = *game.position();
            let Some((m, score, nodes)) = self.search(&pos, game.history(), s.nodes) else {
                unreachable!("a game that has not ended has a legal move");
            };
            self.move_nodes += nodes;
            self.moves += 1;
            record.plies.push((m, score as i16));
            win_run = if score >= s.win_score { win_run + 1 } else { 0 };
            loss_run = if score <= -s.win_score {
                loss_run + 1
            } else {
                0
            };
            let ply = crate::book::game_ply(&pos);
            draw_run = if ply >= s.draw_from_ply && score.abs() <= s.draw_score {
                draw_run + 1
            } else {
                0
            };
            if win_run >= s.win_plies {
                break Outcome::WhiteWins;
            }
            if loss_run >= s.win_plies {
                break Outcome::BlackWins;
            }
            if draw_run >= s.draw_plies {
                break Outcome::Draw;
            }
            game.play(m);
        };
        Ok(record)
    }

    /// The game's result by a Syzygy table, which is exact right after a capture or pawn move.
    fn decided_by_table(&self, pos: &Position) -> Option<Outcome> {
        let tables = self.tablebases.as_ref()?;
        if pos.halfmove_clock() != 0 {
            return None;
        }
        let stm = pos.side_to_move();
        match tables.probe_wdl(pos)? {
            Wdl::Win => Some(Outcome::win_for(stm)),
            Wdl::Loss => Some(Outcome::win_for(stm.flip())),
            _ => Some(Outcome::Draw),
        }
    }
}

/// Chess960 start position number `n` (0–959, 518 = the standard one), by the usual
/// numbering: bishops, queen, the knights' pair, then rook, king, rook on what is left.
pub fn chess960_start(n: u32) -> Position {
    let mut n = n % 960;
    let mut rank = [' '; 8];
    rank[(n % 4 * 2 + 1) as usize] = 'b';
    n /= 4;
    rank[(n % 4 * 2) as usize] = 'b';
    n /= 4;
    let free = |rank: &[char; 8], i: u32| {
        (0..8)
            .filter(|&f| rank[f] == ' ')
            .nth(i as usize)
            .expect("enough free squares")
    };
    let q = free(&rank, n % 6);
    rank[q] = 'q';
    n /= 6;
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n as usize];
    let (fa, fb) = (free(&rank, a), free(&rank, b));
    rank[fa] = 'n';
    rank[fb] = 'n';
    for piece in ['r', 'k', 'r'] {
        let f = free(&rank, 0);
        rank[f] = piece;
    }
    let black: String = rank.iter().collect();
    let white = black.to_uppercase();
    let rooks: Vec<char> = (0..8)
        .filter(|&f| rank[f] == 'r')
        .map(|f| (b'a' + f as u8) as char)
        .collect();
    let castling: String = rooks
        .iter()
        .rev()
        .map(|c| c.to_ascii_uppercase())
        .chain(rooks.iter().rev().copied())
        .collect();
    Position::from_fen(&format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1"
    ))
    .expect("a Chess960 start position is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chess960_numbering() {
        assert_eq!(chess960_start(518), Position::startpos());
        assert_eq!(
            chess960_start(0).to_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        let distinct: std::collections::HashSet<String> =
            (0..960).map(|n| chess960_start(n).to_fen()).collect();
        assert_eq!(distinct.len(), 960);
    }
}
