//! How a game ended, from White's point of view: the one result type that the book maker, the
//! tuner, the data generator and the training data share.

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    BlackWins,
    Draw,
    WhiteWins,
}

impl Outcome {
    /// White's score: 0, ½ or 1.
    pub fn white_score(self) -> f32 {
        match self {
            Outcome::BlackWins => 0.0,
            Outcome::Draw => 0.5,
            Outcome::WhiteWins => 1.0,
        }
    }

    /// 0 = black win, 1 = draw, 2 = white win (the marlinformat/viriformat `wdl` byte).
    pub fn wdl_byte(self) -> u8 {
        self as u8
    }

    pub fn from_wdl_byte(b: u8) -> Option<Outcome> {
        match b {
            0 => Some(Outcome::BlackWins),
            1 => Some(Outcome::Draw),
            2 => Some(Outcome::WhiteWins),
            _ => None,
        }
    }

    /// The PGN result tag: `1-0`, `1/2-1/2`, `0-1`.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::Draw => "1/2-1/2",
            Outcome::BlackWins => "0-1",
        }
    }

    /// Reads a PGN result token; `*` (unfinished) and anything else give `None`.
    pub fn from_pgn(text: &str) -> Option<Outcome> {
        match text {
            "1-0" => Some(Outcome::WhiteWins),
            "0-1" => Some(Outcome::BlackWins),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }

    /// A win for `winner`.
    pub fn win_for(winner: super::Color) -> Outcome {
        match winner {
            super::Color::White => Outcome::WhiteWins,
            super::Color::Black => Outcome::BlackWins,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_and_pgn_forms_round_trip() {
        for o in [Outcome::BlackWins, Outcome::Draw, Outcome::WhiteWins] {
            assert_eq!(Outcome::from_wdl_byte(o.wdl_byte()), Some(o));
            assert_eq!(Outcome::from_pgn(o.pgn()), Some(o));
        }
        assert_eq!(Outcome::from_wdl_byte(3), None);
        assert_eq!(Outcome::from_pgn("*"), None);
        assert_eq!(Outcome::WhiteWins.white_score(), 1.0);
    }
}
