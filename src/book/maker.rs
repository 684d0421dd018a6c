//! Making a Polyglot book from games: every position of each game's opening (up to `max_ply`)
//! with the move played there, weighted by how the games went for the side that played it.
//!
//! Weight = 2 × wins + draws of the games in which that side played that move in that position
//! (Polyglot's own book maker uses the same scale). A move needs at least `min_games` games to
//! enter the book; a move that only lost (weight 0) is left out, since it would never be
//! played, and so is a move far weaker than the position's best (`min_share_percent`).
//! Transpositions merge, because entries are keyed by position. If a position's
//! largest weight exceeds `u16`, its weights are scaled down together.

use super::{encode_move, RawEntry, ENTRY_SIZE};
use crate::chess::{Color, Move, Outcome, Position};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakerOptions {
    /// Only the first `max_ply` moves (half-moves) of each game are used.
    pub max_ply: u32,
    /// Games a (position, move) pair needs to enter the book.
    pub min_games: u32,
    /// A move whose weight is below this percentage of the position's best move's weight is left
    /// out (the games hold rare, forced tournament openings such as 1.g4 and 2.Ke2).
    pub min_share_percent: u32,
}

impl Default for MakerOptions {
    fn default() -> Self {
        MakerOptions {
            max_ply: 32,
            min_games: 3,
            min_share_percent: 5,
        }
    }
}

/// Wins, draws and losses of the side that played the move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStats {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl MoveStats {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    pub fn weight(&self) -> u64 {
        2 * self.wins as u64 + self.draws as u64
    }
}

/// Collects (position, move) statistics from games, then writes the book.
#[derive(Default)]
pub struct BookMaker {
    options: MakerOptions,
    stats: HashMap<(u64, u16), MoveStats>,
    games: u64,
}

impl BookMaker {
    pub fn new(options: MakerOptions) -> BookMaker {
        BookMaker {
            options,
            ..Default::default()
        }
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    /// Adds a game given as moves from the standard start position (legal ones: the caller
    /// replayed them, as the PGN reader does).
    pub fn add_game(&mut self, moves: &[Move], result: Outcome) {
        self.games += 1;
        let mut pos = Position::startpos();
        for (ply, &m) in moves.iter().enumerate() {
            if ply as u32 >= self.options.max_ply {
                break;
            }
            let s = self.stats.entry((pos.key(), encode_move(m))).or_default();
            match (result, pos.side_to_move()) {
                (Outcome::Draw, _) => s.draws += 1,
                (Outcome::WhiteWins, Color::White) | (Outcome::BlackWins, Color::Black) => {
                    s.wins += 1
                }
                _ => s.losses += 1,
            }
            pos.play(m);
        }
    }

    /// The statistics gathered for a position key and Polyglot move.
    pub fn stats(&self, key: u64, raw_move: u16) -> Option<MoveStats> {
        self.stats.get(&(key, raw_move)).copied()
    }

    /// The book's entries, sorted by key, then by weight (highest first), then by move.
    pub fn entries(&self) -> Vec<RawEntry> {
        let mut kept: Vec<(u64, u16, u64)> = self
            .stats
            .iter()
            .filter(|(_, s)| s.games() >= self.options.min_games && s.weight() > 0)
            .map(|(&(key, mv), s)| (key, mv, s.weight()))
            .collect();
        kept.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
        let mut out = Vec::with_capacity(kept.len());
        for group in kept.chunk_by(|a, b| a.0 == b.0) {
            let max = group.iter().map(|e| e.2).max().unwrap_or(0);
            let min_share = self.options.min_share_percent as u64;
            for &(key, raw_move, w) in group.iter().filter(|e| e.2 * 100 >= max * min_share) {
                let weight = if max > u16::MAX as u64 {
                    (w * u16::MAX as u64 / max).max(1)
                } else {
                    w
                };
                out.push(RawEntry {
                    key,
                    raw_move,
                    weight: weight as u16,
                    learn: 0,
                });
            }
        }
        out
    }

    /// The book file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        write_entries(&self.entries())
    }
}

/// Serialises entries (which must already be sorted by key) as a Polyglot file.
pub fn write_entries(entries: &[RawEntry]) -> Vec<u8> {
    debug_assert!(entries.windows(2).all(|w| w[0].key <= w[1].key));
    let mut bytes = Vec::with_capacity(entries.len() * ENTRY_SIZE);
    for e in entries {
        bytes.extend_from_slice(&e.to_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::super::Book;
    use super::*;

    /// A game written as `RESULT uci uci ...`.
    fn add(maker: &mut BookMaker, line: &str) {
        let mut words = line.split_ascii_whitespace();
        let result = Outcome::from_pgn(words.next().unwrap()).unwrap();
        let mut pos = Position::startpos();
        let moves: Vec<Move> = words
            .map(|w| {
                let m = pos.parse_uci_move(w).unwrap();
                pos.play(m);
                m
            })
            .collect();
        maker.add_game(&moves, result);
    }

    #[test]
    fn weights_from_results_and_thresholds() {
        let mut maker = BookMaker::new(MakerOptions {
            max_ply: 4,
            min_games: 2,
            min_share_percent: 5,
        });
        for line in [
            "1-0 e2e4 e7e5 g1f3 b8c6 f1b5",
            "1-0 e2e4 c7c5 g1f3",
            "0-1 e2e4 e7e5 g1f3 g8f6",
            "1/2-1/2 d2d4 d7d5",
            "1/2-1/2 d2d4 g8f6",
            "0-1 c2c4 e7e5",
        ] {
            add(&mut maker, line);
        }
        assert_eq!(maker.games(), 6);
        let book = Book::from_bytes(maker.to_bytes()).unwrap();
        let start = Position::startpos();
        let got: Vec<(String, u16)> = book
            .entries(&start)
            .iter()
            .map(|e| (start.move_to_uci(e.mv, false), e.weight))
            .collect();
        // e4: 2 wins + 1 loss = 4; d4: 2 draws = 2; c4 only once (below min_games).
        assert_eq!(got, vec![("e2e4".into(), 4), ("d2d4".into(), 2)]);
        // After 1.e4 e5 2.Nf3, black's Nc6 (a loss) and Nf6 (a win) were played once each.
        let mut p = start;
        for m in ["e2e4", "e7e5", "g1f3"] {
            p.play(p.parse_uci_move(m).unwrap());
        }
        assert!(book.entries(&p).is_empty());
        // 1...e5 was played twice by black: a loss and a win = weight 2.
        let mut p = start;
        p.play(p.parse_uci_move("e2e4").unwrap());
        let after_e4: Vec<(String, u16)> = book
            .entries(&p)
            .iter()
            .map(|e| (p.move_to_uci(e.mv, false), e.weight))
            .collect();
        assert_eq!(after_e4, vec![("e7e5".into(), 2)]);
    }

    #[test]
    fn castling_is_written_as_king_takes_rook_and_weights_are_scaled() {
        let mut maker = BookMaker::new(MakerOptions {
            max_ply: 10,
            min_games: 1,
            min_share_percent: 0,
        });
        let line = "1-0 e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1";
        for _ in 0..40_000 {
            add(&mut maker, line);
        }
        let mut p = Position::startpos();
        for m in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"] {
            p.play(p.parse_uci_move(m).unwrap());
        }
        let e1h1 = 7 | 4 << 6;
        assert_eq!(maker.stats(p.key(), e1h1).unwrap().wins, 40_000);
        let entries = maker.entries();
        let e = entries.iter().find(|e| e.key == p.key()).unwrap();
        assert_eq!((e.raw_move, e.weight), (e1h1, u16::MAX));
    }
}
