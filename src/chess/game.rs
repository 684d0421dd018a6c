//! A game: the position reached and the keys of every position before it (for repetitions),
//! with the rules that end a game. The protocol's `position … moves …`, the engine facade and
//! the data generator all keep their game in this one type.

use super::legality::insufficient_material;
use super::{Move, Outcome, Position};
use std::fmt;

/// Why a game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Checkmate,
    Stalemate,
    FiftyMoves,
    Repetition,
    InsufficientMaterial,
}

/// A move in a `position … moves` list that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// 0-based index in the list.
    pub index: usize,
    pub text: String,
    /// The position it was tried in.
    pub fen: String,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "illegal move '{}' (move {} of the list) in position {}",
            self.text,
            self.index + 1,
            self.fen
        )
    }
}

impl std::error::Error for IllegalMove {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    position: Position,
    /// Keys of the positions before `position`, oldest first.
    history: Vec<u64>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Position::startpos())
    }
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            position: start,
            history: Vec::new(),
        }
    }

    /// `start` followed by moves in UCI notation (`0000` passes, when not in check): all or
    /// nothing.
    pub fn from_uci_moves(start: Position, moves: &[impl AsRef<str>]) -> Result<Game, IllegalMove> {
        let mut game = Game::new(start);
        game.history.reserve(moves.len());
        for (index, text) in moves.iter().enumerate() {
            let text = text.as_ref();
            let pos = game.position;
            if text == "0000" && !pos.in_check() {
                game.play_null();
            } else if let Some(m) = pos.parse_uci_move(text) {
                game.play(m);
            } else {
                return Err(IllegalMove {
                    index,
                    text: text.to_string(),
                    fen: pos.to_fen(),
                });
            }
        }
        Ok(game)
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Keys of the positions before the current one, oldest first.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) {
        self.history.push(self.position.key());
        self.position.play(m);
    }

    /// Passes (a null move: only the side to move changes).
    pub fn play_null(&mut self) {
        self.history.push(self.position.key());
        self.position.play_null();
    }

    /// How many times the current position stood on the board before (within reach of the
    /// last capture or pawn move).
    pub fn repetitions(&self) -> usize {
        let reach = (self.position.halfmove_clock() as usize).min(self.history.len());
        let key = self.position.key();
        self.history[self.history.len() - reach..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&k| k == key)
            .count()
    }

    /// The end of the game by the rules, if it has ended: mate, stalemate, fifty moves (unless
    /// the move that reached them mated), a threefold repetition, or no mating material left.
    pub fn ending(&self) -> Option<(Ending, Outcome)> {
        let pos = &self.position;
        let has_move = pos.has_legal_move();
        if !has_move {
            return Some(if pos.in_check() {
                (
                    Ending::Checkmate,
                    Outcome::win_for(pos.side_to_move().flip()),
                )
            } else {
                (Ending::Stalemate, Outcome::Draw)
            });
        }
        if pos.halfmove_clock() >= 100 {
            return Some((Ending::FiftyMoves, Outcome::Draw));
        }
        if self.repetitions() >= 2 {
            return Some((Ending::Repetition, Outcome::Draw));
        }
        if insufficient_material(pos) {
            return Some((Ending::InsufficientMaterial, Outcome::Draw));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_played_all_or_nothing() {
        let game = Game::from_uci_moves(Position::startpos(), &["e2e4", "e7e5", "0000"]).unwrap();
        assert_eq!(game.history().len(), 3);
        assert_eq!(
            game.position().to_fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 1 2"
        );
        let err = Game::from_uci_moves(Position::startpos(), &["e2e4", "e2e4"]).unwrap_err();
        assert_eq!(err.index, 1);
        assert!(err
            .to_string()
            .contains("illegal move 'e2e4' (move 2 of the list)"));
    }

    #[test]
    fn endings_by_the_rules() {
        let knights = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let twice: Vec<&str> = knights.iter().chain(&knights).copied().collect();
        let once = Game::from_uci_moves(Position::startpos(), &knights).unwrap();
        assert_eq!((once.repetitions(), once.ending()), (1, None));
        let thrice = Game::from_uci_moves(Position::startpos(), &twice).unwrap();
        assert_eq!(thrice.ending(), Some((Ending::Repetition, Outcome::Draw)));
        let mate =
            Game::from_uci_moves(Position::startpos(), &["f2f3", "e7e5", "g2g4", "d8h4"]).unwrap();
        assert_eq!(mate.ending(), Some((Ending::Checkmate, Outcome::BlackWins)));
        let fifty = Game::new(Position::from_fen("8/8/4k3/8/8/4K3/4R3/8 w - - 100 80").unwrap());
        assert_eq!(fifty.ending(), Some((Ending::FiftyMoves, Outcome::Draw)));
        let bare = Game::new(Position::from_fen("8/8/4k3/8/8/4K3/4N3/8 w - - 0 80").unwrap());
        assert_eq!(
            bare.ending(),
            Some((Ending::InsufficientMaterial, Outcome::Draw))
        );
    }
}
