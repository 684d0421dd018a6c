//! Small data files for the tests: random legal games in the datagen format, made in
//! milliseconds (a real datagen run takes seconds per hundred games).
//!
//! The scores are a material count (White's view) plus noise and the result follows the
//! final material, so a network has something consistent to learn.

use brudno::chess::{Color, Outcome, PieceType, Position};
use brudno::datagen::format::GameRecord;
use brudno::util::Rng;

fn material(pos: &Position) -> i32 {
    let values = [
        (PieceType::Pawn, 100),
        (PieceType::Knight, 300),
        (PieceType::Bishop, 300),
        (PieceType::Rook, 500),
        (PieceType::Queen, 900),
    ];
    values
        .iter()
        .map(|&(t, v)| {
            v * (pos.colored(Color::White, t).count() as i32
                - pos.colored(Color::Black, t).count() as i32)
        })
        .sum()
}

/// `games` random games (40 to 120 plies, or to the end of the game), one after another as a
/// `.vf` file holds them.
pub fn random_games(games: usize, seed: u64) -> Vec<u8> {
    brudno::chess::attacks::init();
    let mut out = Vec::new();
    for g in 0..games {
        let mut rng = Rng::derive(seed, &[g as u64]);
        let start = Position::from_fen(brudno::chess::START_FEN).unwrap();
        let mut game = GameRecord::new(start);
        let mut pos = start;
        let plies = 40 + rng.below(81) as usize;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.as_slice().is_empty() {
                break;
            }
            let m = moves.as_slice()[rng.below(moves.as_slice().len() as u64) as usize];
            let score = material(&pos) + rng.below(61) as i32 - 30;
            game.plies.push((m, score as i16));
            pos.play(m);
        }
        let m = material(&pos);
        game.outcome = match m {
            m if m > 200 => Outcome::WhiteWins,
            m if m < -200 => Outcome::BlackWins,
            _ => Outcome::Draw,
        };
        game.encode(&mut out);
    }
    out
}

/// Writes `random_games(games, seed)` to `path`.
pub fn write_random_games(path: &std::path::Path, games: usize, seed: u64) -> std::io::Result<()> {
    std::fs::write(path, random_games(games, seed))
}
