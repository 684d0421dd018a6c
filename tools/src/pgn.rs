//! Just enough PGN for the tuner: games from the standard start position, moves in SAN, no
//! comments or variations needed (they are skipped if present).

use brudno::chess::{Move, MoveKind, PieceType, Position, Square};

/// One game: its moves from the start position and the result from white's side.
pub struct Game {
    pub moves: Vec<Move>,
    pub result: f32,
}

/// The legal move a SAN token names (`e4`, `Nbd2`, `exd6`, `e8=Q+`, `O-O-O`), if exactly one.
pub fn parse_san(pos: &Position, san: &str) -> Option<Move> {
    let san = san.trim_end_matches(['+', '#', '!', '?']);
    let moves = pos.legal_moves();
    if san == "O-O" || san == "0-0" || san == "O-O-O" || san == "0-0-0" {
        let king_side = san.len() == 3;
        return moves
            .iter()
            .copied()
            .find(|m| m.kind() == MoveKind::Castling && (m.to() > m.from()) == king_side);
    }
    let (body, promotion) = match san.find('=') {
        Some(i) => (
            &san[..i],
            PieceType::from_letter(san[i + 1..].chars().next()?),
        ),
        None => match san.chars().last() {
            Some(c @ ('Q' | 'R' | 'B' | 'N')) if san.len() > 2 => {
                (&san[..san.len() - 1], PieceType::from_letter(c))
            }
            _ => (san, None),
        },
    };
    let kind = match body.chars().next()? {
        c @ ('N' | 'B' | 'R' | 'Q' | 'K') => PieceType::from_letter(c)?,
        _ => PieceType::Pawn,
    };
    let body = if kind == PieceType::Pawn {
        body
    } else {
        &body[1..]
    };
    let body: String = body.chars().filter(|&c| c != 'x').collect();
    if body.len() < 2 {
        return None;
    }
    let to = Square::parse(&body[body.len() - 2..])?;
    let hint = &body[..body.len() - 2];
    let mut found = None;
    for &m in moves.iter() {
        let piece = pos.piece_at(m.from())?;
        if piece.kind() != kind || m.to() != to || m.promotion_piece() != promotion {
            continue;
        }
        if m.kind() == MoveKind::Castling {
            continue;
        }
        let from = m.from().to_string();
        if !hint.chars().all(|c| from.contains(c)) {
            continue;
        }
        if found.is_some() {
            return None; // ambiguous
        }
        found = Some(m);
    }
    found
}

/// Reads games from PGN text, skipping (and counting) those that do not replay.
pub fn read_games(text: impl Iterator<Item = String>) -> (Vec<Game>, usize) {
    let mut games = Vec::new();
    let mut bad = 0;
    let mut result: Option<f32> = None;
    let mut movetext = String::new();
    let mut finish = |result: &mut Option<f32>, movetext: &mut String| {
        if let Some(r) = result.take() {
            match replay(movetext) {
                Some(moves) => games.push(Game { moves, result: r }),
                None => bad += 1,
            }
        }
        movetext.clear();
    };
    for line in text {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[') {
            if !movetext.trim().is_empty() {
                finish(&mut result, &mut movetext);
            }
            if let Some(value) = tag.strip_prefix("Result \"") {
                result = match value.split('"').next() {
                    Some("1-0") => Some(1.0),
                    Some("0-1") => Some(0.0),
                    Some("1/2-1/2") => Some(0.5),
                    _ => None,
                };
            }
        } else {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    finish(&mut result, &mut movetext);
    (games, bad)
}

/// The moves of a game's movetext, or `None` if one does not parse.
fn replay(movetext: &str) -> Option<Vec<Move>> {
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    let mut depth = 0; // inside comments or variations
    for token in movetext.split_ascii_whitespace() {
        if token.starts_with('{') || token.starts_with('(') {
            depth += 1;
        }
        if depth > 0 {
            if token.ends_with('}') || token.ends_with(')') {
                depth -= 1;
            }
            continue;
        }
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
            continue;
        }
        let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() || token.starts_with('$') {
            continue;
        }
        let m = parse_san(&pos, token)?;
        pos.play(m);
        moves.push(m);
    }
    Some(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn san_moves_replay() {
        let text = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3\nd6 8. c3 O-O 1-0\n\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
        let (games, bad) = read_games(text.lines().map(String::from));
        assert_eq!(bad, 0);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 16);
        assert_eq!(games[0].result, 1.0);
        assert_eq!(games[1].moves.len(), 4);
        assert_eq!(games[1].result, 0.0);
    }

    #[test]
    fn disambiguation_and_promotion() {
        let pos = Position::from_fen("4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        assert_eq!(
            pos.move_to_uci(parse_san(&pos, "b8=Q+").unwrap(), false),
            "b7b8q"
        );
        assert_eq!(
            pos.move_to_uci(parse_san(&pos, "b8N").unwrap(), false),
            "b7b8n"
        );
        assert_eq!(
            pos.move_to_uci(parse_san(&pos, "O-O-O").unwrap(), false),
            "e1c1"
        );
        assert_eq!(
            pos.move_to_uci(parse_san(&pos, "O-O").unwrap(), false),
            "e1g1"
        );
        let pos = Position::from_fen("4k3/8/8/8/8/8/4K3/R6R w - - 0 1").unwrap();
        assert_eq!(
            pos.move_to_uci(parse_san(&pos, "Rad1").unwrap(), false),
            "a1d1"
        );
        assert!(parse_san(&pos, "Rd1").is_none(), "ambiguous");
        let pos = Position::from_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(
            pos.move_to_uci(parse_san(&pos, "exd5").unwrap(), false),
            "e4d5"
        );
    }
}
