//! One test per tricky rule of chess, plus the Polyglot key vectors, FEN errors and UCI move
//! notation. Expected move lists were checked with python-chess.

mod common;

use brudno::chess::{
    perft, CastleSide, Color, FenError, GenType, Move, MoveKind, MoveList, Piece, PieceType,
    Position, Square,
};
use common::{parse_perft_epd, Rng, FRC_PERFT_EPD, PERFT_EPD};

// ----- helpers -----

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("'{fen}' rejected: {e}"))
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// The legal moves in UCI notation, sorted.
fn uci_moves(p: &Position, chess960: bool) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .map(|&m| p.move_to_uci(m, chess960))
        .collect();
    v.sort();
    v
}

fn generated(p: &Position, gen: GenType) -> MoveList {
    let mut list = MoveList::new();
    p.generate(gen, &mut list);
    list
}

/// The position's legal moves are exactly `expected` (UCI, any order).
fn assert_moves(fen: &str, chess960: bool, expected: &[&str]) {
    let p = pos(fen);
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(uci_moves(&p, chess960), want, "legal moves of {fen}");
}

fn castling_moves(p: &Position, chess960: bool) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.kind() == MoveKind::Castling)
        .map(|&m| p.move_to_uci(m, chess960))
        .collect();
    v.sort();
    v
}

/// Plays UCI moves (either castling notation), checking the incremental key at every step.
fn play_all(p: &mut Position, moves: &str) {
    for text in moves.split_whitespace() {
        let m = p
            .parse_uci_move(text)
            .unwrap_or_else(|| panic!("{text} is not legal in {}", p.to_fen()));
        p.play(m);
        assert_eq!(
            p.key(),
            p.compute_key(),
            "incremental key after {text}: {}",
            p.to_fen()
        );
    }
}

fn fen_error(fen: &str) -> FenError {
    match Position::from_fen(fen) {
        Ok(p) => panic!("'{fen}' accepted as {}", p.to_fen()),
        Err(e) => e,
    }
}

/// Every position of both suites (the standard ones first).
fn suite_positions() -> Vec<(Position, bool)> {
    let standard = parse_perft_epd(PERFT_EPD)
        .into_iter()
        .map(|c| (pos(&c.fen), false));
    let frc = parse_perft_epd(FRC_PERFT_EPD)
        .into_iter()
        .map(|c| (pos(&c.fen), true));
    standard.chain(frc).collect()
}

// ----- Polyglot keys -----

/// The test vectors of the Polyglot book format description (hgm's "PolyGlot opening book
/// format" page), each checked with python-chess's `chess.polyglot.zobrist_hash`.
#[test]
fn polyglot_key_vectors() {
    let cases: [(&str, &str, u64); 9] = [
        (
            "",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            0x463b96181691fc9c,
        ),
        (
            "e2e4",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            0x823c9b50fd114196,
        ),
        (
            "e2e4 d7d5",
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            0x0756b94461c50fb0,
        ),
        (
            "e2e4 d7d5 e4e5",
            "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
            0x662fafb965db29d4,
        ),
        (
            "e2e4 d7d5 e4e5 f7f5",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            0x22a48b5a8e47ff78,
        ),
        (
            "e2e4 d7d5 e4e5 f7f5 e1e2",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 1 3",
            0x652a607ca3f242c1,
        ),
        (
            "e2e4 d7d5 e4e5 f7f5 e1e2 e8f7",
            "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 2 4",
            0x00fdd303c946bdd9,
        ),
        (
            "a2a4 b7b5 h2h4 b5b4 c2c4",
            "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
            0x3c8123ea7b067637,
        ),
        // The spec's move list says "a1a2" here, but its FEN and key have the rook on a3.
        (
            "a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3",
            "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 1 4",
            0x5c3f9b829b279560,
        ),
    ];
    for (moves, fen, key) in cases {
        let mut p = Position::startpos();
        play_all(&mut p, moves);
        assert_eq!(p.to_fen(), fen, "after '{moves}'");
        assert_eq!(p.key(), key, "incremental key after '{moves}'");
        assert_eq!(p.compute_key(), key, "computed key after '{moves}'");
        assert_eq!(pos(fen).key(), key, "key of the FEN after '{moves}'");
    }
}

/// The spec's "a1a2" typo, for the record: that position has a different key (python-chess).
#[test]
fn polyglot_key_after_a1a2() {
    let mut p = Position::startpos();
    play_all(&mut p, "a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a2");
    assert_eq!(
        p.to_fen(),
        "rnbqkbnr/p1pppppp/8/8/P6P/2p5/RP1PPPP1/1NBQKBNR b Kkq - 1 4"
    );
    assert_eq!(p.key(), 0x742ec75da0e25edc);
}

/// The en-passant file enters the key only when a pawn of the side to move could capture.
#[test]
fn polyglot_en_passant_only_when_capturable() {
    let with_ep = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
    // The same position with a d-pawn double step (no white pawn next to d5) keeps no ep.
    let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
    assert_eq!(p.en_passant(), None);
    assert_eq!(p.key(), 0x0756b94461c50fb0);
    assert_eq!(
        p.to_fen(),
        "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(with_ep.en_passant(), Some(sq("f6")));
    // Polyglot's rule is pseudo-legal: an ep capture that is illegal (pinned pawn) still counts.
    let pinned = pos("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1");
    assert_eq!(pinned.en_passant(), Some(sq("d6")));
    assert_eq!(pinned.key(), pinned.compute_key());
}

// ----- en passant -----

/// Taking en passant would take both pawns off the rank between the king and a rook.
#[test]
fn en_passant_horizontal_pin() {
    assert_moves(
        "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
        false,
        &["a5a4", "a5a6", "a5b4", "a5b5", "a5b6", "e5e6"],
    );
    assert_moves(
        "7K/8/8/8/R2Pp2k/8/8/8 b - d3 0 1",
        false,
        &["e4e3", "h4g3", "h4g4", "h4g5", "h4h3", "h4h5"],
    );
    // With a third piece on the rank the capture is fine.
    let p = pos("8/8/8/KB1pP2r/8/8/8/7k w - d6 0 1");
    assert!(uci_moves(&p, false).contains(&"e5d6".to_string()));
    assert_eq!(p.legal_moves().len(), 15);
}

/// A pawn pinned on a diagonal may take en passant only along the pin line.
#[test]
fn en_passant_diagonal_pin() {
    assert_moves(
        "k7/6b1/8/3pP3/8/2K5/8/8 w - d6 0 1",
        false,
        &["c3b2", "c3b3", "c3b4", "c3c2", "c3d2", "c3d3", "c3d4"],
    );
    assert_moves(
        "1b5k/8/8/3pP3/8/6K1/8/8 w - d6 0 1",
        false,
        &[
            "e5d6", "g3f2", "g3f3", "g3f4", "g3g2", "g3g4", "g3h2", "g3h3", "g3h4",
        ],
    );
}

/// The captured pawn was the one shielding the king from a bishop.
#[test]
fn en_passant_captured_pawn_was_shielding() {
    assert_moves(
        "8/5b2/8/3pP3/8/1K6/8/7k w - d6 0 1",
        false,
        &[
            "b3a2", "b3a3", "b3a4", "b3b2", "b3b4", "b3c2", "b3c3", "e5e6",
        ],
    );
}

/// The double step gave check; taking the checking pawn en passant is an evasion.
#[test]
fn en_passant_captures_checking_pawn() {
    let p = pos("8/8/8/2PpP3/4K3/8/8/7k w - d6 0 1");
    assert!(p.in_check());
    assert_moves(
        "8/8/8/2PpP3/4K3/8/8/7k w - d6 0 1",
        false,
        &[
            "c5d6", "e4d3", "e4d4", "e4d5", "e4e3", "e4f3", "e4f4", "e4f5", "e5d6",
        ],
    );
    let ep = p.parse_uci_move("e5d6").unwrap();
    assert_eq!(ep.kind(), MoveKind::EnPassant);
    let after = p.after(ep);
    assert_eq!(after.to_fen(), "8/8/3P4/2P5/4K3/8/8/7k b - - 0 1");
    assert_eq!(after.key(), after.compute_key());
}

/// In check from a slider the double step uncovered, en passant neither captures nor blocks.
#[test]
fn en_passant_not_allowed_when_it_does_not_resolve_check() {
    let p = pos("2b4k/8/8/3pP3/6K1/8/8/8 w - d6 0 1");
    assert!(p.in_check());
    assert_eq!(p.en_passant(), Some(sq("d6")));
    assert_moves(
        "2b4k/8/8/3pP3/6K1/8/8/8 w - d6 0 1",
        false,
        &["e5e6", "g4f3", "g4f4", "g4g3", "g4g5", "g4h4", "g4h5"],
    );
}

/// En passant that lands between the king and a checking bishop blocks the check. (The
/// position cannot arise in a game, but the generator must still get it right.)
#[test]
fn en_passant_blocks_check() {
    assert_moves(
        "5b1k/8/8/3pP3/1K6/8/8/8 w - d6 0 1",
        false,
        &["b4a4", "b4a5", "b4b3", "b4b5", "b4c3", "e5d6"],
    );
}

// ----- castling -----

#[test]
fn castling_both_ways_when_free() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castling_moves(&p, false), ["e1c1", "e1g1"]);
    assert_eq!(castling_moves(&p, true), ["e1a1", "e1h1"]);
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(castling_moves(&p, false), ["e8c8", "e8g8"]);
}

#[test]
fn castling_through_check_not_generated() {
    // f1 attacked: no short castling; d1 attacked: no long castling.
    assert_eq!(
        castling_moves(&pos("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1"), false),
        ["e1c1"]
    );
    assert_eq!(
        castling_moves(&pos("3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), false),
        ["e1g1"]
    );
    // b1 attacked does not matter: the king does not cross it (only the rook does).
    assert_eq!(
        castling_moves(&pos("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), false),
        ["e1c1", "e1g1"]
    );
}

#[test]
fn castling_out_of_check_not_generated() {
    let p = pos("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(p.in_check());
    assert!(castling_moves(&p, false).is_empty());
    assert_eq!(p.legal_moves().len(), 4);
}

#[test]
fn castling_into_check_not_generated() {
    assert_eq!(
        castling_moves(&pos("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1"), false),
        ["e1c1"]
    );
    assert_eq!(
        castling_moves(&pos("2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), false),
        ["e1g1"]
    );
    assert_eq!(
        castling_moves(&pos("4k3/8/8/8/8/8/7b/R3K2R w KQ - 0 1"), false),
        ["e1c1"]
    );
}

#[test]
fn castling_with_piece_in_between_not_generated() {
    // A knight on b1 (only the rook crosses it) and an enemy bishop on g1.
    assert!(castling_moves(&pos("4k3/8/8/8/8/8/8/RN2K1bR w KQ - 0 1"), false).is_empty());
    assert!(castling_moves(&pos("4k3/8/8/8/8/8/8/R2QKB1R w KQ - 0 1"), false).is_empty());
    let p = pos("r1n1k1Nr/8/8/8/8/8/8/4K3 b kq - 0 1");
    assert!(castling_moves(&p, false).is_empty());
}

/// Chess960: the castling rook on b1 shields the king's destination c1 from the queen on a1;
/// once the rook has gone to d1 the king would stand in check.
#[test]
fn chess960_castling_rook_shields_destination() {
    let p = pos("k7/8/8/8/8/8/8/qR1K4 w B - 0 1");
    assert!(!p.in_check());
    assert!(castling_moves(&p, true).is_empty());
    assert_eq!(p.legal_moves().len(), 7);
    // With a knight on a1 instead it is legal.
    let p = pos("k7/8/8/8/8/8/8/nR1K4 w B - 0 1");
    assert_eq!(castling_moves(&p, true), ["d1b1"]);
    let after = p.after(p.parse_uci_move("d1b1").unwrap());
    assert_eq!(after.to_fen(), "k7/8/8/8/8/8/8/n1KR4 b - - 1 1");
    // King side: the castling rook on g1 shields g1 from the rook on h1.
    let p = pos("4k3/8/8/8/8/8/8/1R3KRr w G - 0 1");
    assert!(castling_moves(&p, true).is_empty());
    assert_eq!(p.legal_moves().len(), 16);
}

/// Chess960 castlings where the king or the rook does not move.
#[test]
fn chess960_castling_king_or_rook_stays() {
    // King already on g1: only the rook moves (h1 to f1).
    let p = pos("4k3/8/8/8/8/8/8/6KR w H - 0 1");
    assert_eq!(castling_moves(&p, true), ["g1h1"]);
    let after = p.after(p.parse_uci_move("g1h1").unwrap());
    assert_eq!(after.to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    assert_eq!(after.key(), after.compute_key());
    // Rook already on f1: only the king moves (e1 to g1, over its own rook).
    let p = pos("4k3/8/8/8/8/8/8/4KR2 w F - 0 1");
    assert_eq!(castling_moves(&p, true), ["e1f1"]);
    let after = p.after(p.parse_uci_move("e1f1").unwrap());
    assert_eq!(after.to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    // King next to g1: "f1g1" is the king step, "f1h1" the castling.
    let p = pos("4k3/8/8/8/8/8/8/5K1R w H - 0 1");
    assert_eq!(castling_moves(&p, true), ["f1h1"]);
    assert_eq!(p.parse_uci_move("f1g1").unwrap().kind(), MoveKind::Normal);
    assert_eq!(p.parse_uci_move("f1h1").unwrap().kind(), MoveKind::Castling);
}

#[test]
fn castling_rights_lost_when_rook_captured() {
    let start = "r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1";
    let cases = [
        ("g2a8", "B3k2r/8/8/8/8/8/8/R3K2R b KQk - 0 1"),
        ("h1h8", "r3k2R/8/8/8/8/8/6B1/R3K3 b Qq - 0 1"),
        ("a1a2 h8h7", "r3k3/7r/8/8/8/8/R5B1/4K2R w Kq - 2 2"),
        ("e1f1", "r3k2r/8/8/8/8/8/6B1/R4K1R b kq - 1 1"),
        ("e1g1", "r3k2r/8/8/8/8/8/6B1/R4RK1 b kq - 1 1"),
    ];
    for (moves, fen) in cases {
        let mut p = pos(start);
        play_all(&mut p, moves);
        assert_eq!(p.to_fen(), fen, "after {moves}");
    }
    // Promotion capturing the rook.
    let mut p = pos("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1");
    play_all(&mut p, "b7a8n");
    assert_eq!(p.to_fen(), "N3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    // Chess960: rooks on b and g files; the inner rook captured. The survivors are the
    // outermost rooks, so X-FEN writes them as K and k.
    let mut p = pos("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w BGbg - 0 1");
    play_all(&mut p, "b1b8");
    assert_eq!(p.to_fen(), "1R2k1r1/8/8/8/8/8/8/4K1R1 b Kk - 0 1");
    assert_eq!(
        p.castling_rook(Color::White, CastleSide::King),
        Some(sq("g1"))
    );
    assert_eq!(p.castling_rook(Color::Black, CastleSide::Queen), None);
}

// ----- promotions -----

#[test]
fn promotion_with_capture_all_four_pieces() {
    let fen = "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1";
    assert_moves(
        fen,
        false,
        &[
            "b7a8b", "b7a8n", "b7a8q", "b7a8r", "b7b8b", "b7b8n", "b7b8q", "b7b8r", "e1d1", "e1d2",
            "e1e2", "e1f1", "e1f2",
        ],
    );
    let p = pos(fen);
    for piece in [
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
    ] {
        let m = p
            .parse_uci_move(&format!("b7a8{}", piece.letter()))
            .unwrap();
        assert_eq!(m.promotion_piece(), Some(piece));
        assert_eq!(p.captured(m), Some(PieceType::Rook));
        let after = p.after(m);
        assert_eq!(
            after.piece_at(sq("a8")),
            Some(Piece::new(Color::White, piece))
        );
        assert_eq!(after.piece_at(sq("b7")), None);
        assert_eq!(after.halfmove_clock(), 0);
        assert_eq!(after.key(), after.compute_key());
    }
    assert_moves(
        "4k3/8/8/8/8/8/6p1/4K2R b K - 0 1",
        false,
        &[
            "e8d7", "e8d8", "e8e7", "e8f7", "e8f8", "g2g1b", "g2g1n", "g2g1q", "g2g1r", "g2h1b",
            "g2h1n", "g2h1q", "g2h1r",
        ],
    );
}

#[test]
fn promotions_are_noisy_not_quiet() {
    let p = pos("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1");
    let noisy = generated(&p, GenType::Noisy);
    let quiet = generated(&p, GenType::Quiet);
    let promos: Vec<String> = noisy.iter().map(|&m| p.move_to_uci(m, false)).collect();
    assert_eq!(noisy.len(), 8, "{promos:?}");
    assert!(noisy.iter().all(|m| m.kind() == MoveKind::Promotion));
    assert!(quiet.iter().all(|m| m.kind() != MoveKind::Promotion));
    assert_eq!(quiet.len(), 5);
    // In check, promotions that do not resolve it are not generated; ones that capture the
    // checker or block it are, all in the noisy list.
    let p = pos("4k3/6P1/8/8/8/8/8/r3K3 w - - 0 1");
    assert!(generated(&p, GenType::Noisy).is_empty());
    assert_eq!(generated(&p, GenType::Quiet).len(), 3);
    let p = pos("r6K/1P6/8/8/8/8/8/k7 w - - 0 1");
    let noisy = generated(&p, GenType::Noisy);
    assert_eq!(noisy.len(), 8);
    assert!(noisy.iter().all(|m| m.kind() == MoveKind::Promotion));
    assert_eq!(generated(&p, GenType::Quiet).len(), 2);
}

// ----- checks and pins -----

#[test]
fn double_check_only_king_moves() {
    // Rook e8 and knight d3 both give check; Bxd3 and Rxe8 would each answer only one.
    let p = pos("R3r2k/8/8/8/8/3n4/2B5/4K3 w - - 0 1");
    assert_eq!(p.checkers().count(), 2);
    assert_moves(
        "R3r2k/8/8/8/8/3n4/2B5/4K3 w - - 0 1",
        false,
        &["e1d1", "e1d2", "e1f1"],
    );
    for gen in [GenType::Noisy, GenType::Quiet] {
        assert!(generated(&p, gen).iter().all(|m| m.from() == sq("e1")));
    }
}

/// Two bishops on one diagonal both checking (unreachable in a game, but in the perft suite).
#[test]
fn two_bishop_double_check_loads() {
    let fen = "B6b/8/8/8/2K5/5k2/8/b6B b - -";
    let p = pos(fen);
    assert_eq!(p.checkers().count(), 2);
    assert_eq!(p.to_fen(), "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1");
    assert!(p.legal_moves().iter().all(|m| m.from() == sq("f3")));
    assert_eq!(perft::perft(&p, 1), 6);
    assert_eq!(perft::perft(&p, 3), 1829);
}

#[test]
fn pinned_pieces_move_only_along_the_pin() {
    // Rook pinned on the e-file, bishop on the e1-h4 diagonal, knight on the e1-a5 diagonal.
    assert_moves(
        "k3r3/8/8/q7/4R2b/8/3N1B2/4K3 w - - 0 1",
        false,
        &[
            "e1d1", "e1e2", "e1f1", "e4e2", "e4e3", "e4e5", "e4e6", "e4e7", "e4e8", "f2g3", "f2h4",
        ],
    );
    // Pawns: pinned on a file may push; pinned on a diagonal may only take the pinner.
    assert_moves(
        "4r2k/8/8/8/8/2b3b1/3PPP2/4K3 w - - 0 1",
        false,
        &["d2c3", "e1d1", "e1f1", "e2e3", "e2e4", "f2g3"],
    );
    // Pinned along a rank: cannot move at all.
    assert_moves(
        "7k/8/8/K1P4r/8/8/8/8 w - - 0 1",
        false,
        &["a5a4", "a5a6", "a5b4", "a5b5", "a5b6"],
    );
    let p = pos("k3r3/8/8/q7/4R2b/8/3N1B2/4K3 w - - 0 1");
    assert_eq!(p.pinned(Color::White).count(), 3);
}

#[test]
fn king_cannot_step_back_along_checking_ray() {
    assert_moves(
        "4r2k/8/8/8/4K3/8/8/8 w - - 0 1",
        false,
        &["e4d3", "e4d4", "e4d5", "e4f3", "e4f4", "e4f5"],
    );
    assert_moves(
        "7k/b7/8/8/3K4/8/8/8 w - - 0 1",
        false,
        &["d4c3", "d4c4", "d4d3", "d4d5", "d4e4", "d4e5"],
    );
    // Nor take a protected checker: here only Kf1 is left, and one file over it is mate.
    assert_moves("7k/8/8/8/8/2b5/3q4/4K3 w - - 0 1", false, &["e1f1"]);
    assert_moves("7k/8/8/8/8/2b5/3q4/3K4 w - - 0 1", false, &[]);
}

// ----- clocks -----

#[test]
fn halfmove_clock_and_fullmove_number() {
    // (move, halfmove clock after, fullmove number after), checked with python-chess.
    let steps = [
        ("e2e4", 0, 1),
        ("e7e5", 0, 2),
        ("g1f3", 1, 2),
        ("b8c6", 2, 3),
        ("f1b5", 3, 3),
        ("g8f6", 4, 4),
        ("e1g1", 5, 4),
        ("f6e4", 0, 5),
        ("d2d4", 0, 5),
        ("f8e7", 1, 6),
        ("d4e5", 0, 6),
        ("e8g8", 1, 7),
    ];
    let mut p = Position::startpos();
    for (m, half, full) in steps {
        play_all(&mut p, m);
        assert_eq!(
            (p.halfmove_clock(), p.fullmove_number()),
            (half, full),
            "after {m}"
        );
    }
    assert_eq!(
        p.to_fen(),
        "r1bq1rk1/ppppbppp/2n5/1B2P3/4n3/5N2/PPP2PPP/RNBQ1RK1 w - - 1 7"
    );
    // Clocks are read from the FEN; fullmove 0 is taken as 1.
    let p = pos("4k3/8/8/8/8/8/8/4K3 b - - 37 80");
    assert_eq!((p.halfmove_clock(), p.fullmove_number()), (37, 80));
    let p = p.after(p.parse_uci_move("e8d8").unwrap());
    assert_eq!((p.halfmove_clock(), p.fullmove_number()), (38, 81));
    assert_eq!(pos("4k3/8/8/8/8/8/8/4K3 w - - 0 0").fullmove_number(), 1);
    // The largest clocks a FEN can give stay there instead of overflowing.
    let p = pos("4k3/8/8/8/8/8/8/4K3 b - - 65535 65535");
    let p = p.after(p.parse_uci_move("e8d8").unwrap());
    assert_eq!((p.halfmove_clock(), p.fullmove_number()), (65535, 65535));
    assert_eq!(p.to_fen(), "3k4/8/8/8/8/8/8/4K3 w - - 65535 65535");
}

// ----- FEN -----

#[test]
fn fen_errors_each_variant() {
    let s = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let cases: Vec<(String, FenError, &str)> = vec![
        (
            "8/8/8 w".into(),
            FenError::FieldCount(2),
            "expected 4 to 6 fields, found 2",
        ),
        (
            format!("{s} w KQkq - 0 1 extra"),
            FenError::FieldCount(7),
            "expected 4 to 6 fields, found 7",
        ),
        (
            "".into(),
            FenError::FieldCount(0),
            "expected 4 to 6 fields, found 0",
        ),
        (
            "8/8/8/8/8/8/8 w - - 0 1".into(),
            FenError::RankCount(7),
            "expected 8 ranks, found 7",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/P8/1PPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            FenError::RankWidth {
                rank: 3,
                squares: 9,
            },
            "rank 3 has 9 squares",
        ),
        (
            "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            FenError::RankWidth {
                rank: 7,
                squares: 7,
            },
            "rank 7 has 7 squares",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4x3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            FenError::BadPieceChar('x'),
            "'x' is not a piece or a digit 1-8",
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            FenError::BadPieceChar('9'),
            "'9' is not a piece or a digit 1-8",
        ),
        (
            "4k3/8/8/8/8/8/8/3KK3 w - - 0 1".into(),
            FenError::KingCount {
                color: Color::White,
                count: 2,
            },
            "white has 2 kings",
        ),
        (
            "8/8/8/8/8/8/8/4K3 w - - 0 1".into(),
            FenError::KingCount {
                color: Color::Black,
                count: 0,
            },
            "black has 0 kings",
        ),
        (
            "P3k3/8/8/8/8/8/8/4K3 w - - 0 1".into(),
            FenError::PawnOnBackRank(sq("a8")),
            "pawn on rank 8 (a8)",
        ),
        (
            "4k3/8/8/8/8/8/8/4K2p b - - 0 1".into(),
            FenError::PawnOnBackRank(sq("h1")),
            "pawn on rank 1 (h1)",
        ),
        (
            "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1".into(),
            FenError::TooManyPawns(Color::White),
            "white has more than 8 pawns",
        ),
        (
            "4k3/PPPPPPPP/8/8/8/8/8/QQ2K3 w - - 0 1".into(),
            FenError::TooManyPieces(Color::White),
            "white has more pieces than its missing pawns could have promoted to",
        ),
        (
            format!("{s} x KQkq - 0 1"),
            FenError::BadSideToMove("x".into()),
            "side to move must be 'w' or 'b', not 'x'",
        ),
        (
            format!("{s} w KQkqz - 0 1"),
            FenError::BadCastling("KQkqz".into()),
            "bad castling field 'KQkqz'",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w K - 0 1".into(),
            FenError::CastlingWithoutRook {
                right: 'K',
                detail: "no rook on h1".into(),
            },
            "castling right K but no rook on h1",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w G - 0 1".into(),
            FenError::CastlingWithoutRook {
                right: 'G',
                detail: "no rook on g1".into(),
            },
            "castling right G but no rook on g1",
        ),
        (
            "r3k3/8/8/8/8/8/4K3/R6R w Q - 0 1".into(),
            FenError::CastlingWithoutRook {
                right: 'Q',
                detail: "the white king is not on its back rank".into(),
            },
            "castling right Q but the white king is not on its back rank",
        ),
        (
            format!("{s} w KQkq e4 0 1"),
            FenError::BadEnPassant("e4".into()),
            "bad en passant square 'e4'",
        ),
        (
            format!("{s} w KQkq z9 0 1"),
            FenError::BadEnPassant("z9".into()),
            "bad en passant square 'z9'",
        ),
        (
            format!("{s} w KQkq e6 0 1"),
            FenError::EnPassantWithoutPawn {
                ep: sq("e6"),
                pawn: sq("e5"),
            },
            "en passant square e6 but no pawn that just moved two squares on e5",
        ),
        (
            format!("{s} w KQkq - x 1"),
            FenError::BadClock("x".into()),
            "bad move counter 'x'",
        ),
        (
            format!("{s} w KQkq - 0 -1"),
            FenError::BadClock("-1".into()),
            "bad move counter '-1'",
        ),
        (
            format!("{s} w KQkq - 0 99999"),
            FenError::BadClock("99999".into()),
            "bad move counter '99999'",
        ),
        (
            "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1".into(),
            FenError::OpponentInCheck,
            "side not to move is in check",
        ),
    ];
    for (fen, want, message) in cases {
        let e = fen_error(&fen);
        assert_eq!(e, want, "{fen}");
        assert_eq!(e.to_string(), message, "{fen}");
    }
}

/// Errors the variant list above does not reach by itself: a castling letter for the king's
/// own file and two different rooks claimed for one side.
#[test]
fn fen_castling_field_conflicts() {
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/R3K2R w E - 0 1"),
        FenError::CastlingWithoutRook {
            right: 'E',
            detail: "no rook on e1".into()
        }
    );
    assert_eq!(
        fen_error("4k3/8/8/8/8/8/8/RR2K3 w AB - 0 1"),
        FenError::BadCastling("AB".into())
    );
    // The same rook named twice (X-FEN and Shredder-FEN) is accepted.
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/R3K2R w KHQA - 0 1").to_fen(),
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"
    );
}

#[test]
fn fen_four_and_five_fields_accepted() {
    let start = Position::startpos();
    let four = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(four, start);
    assert_eq!(
        four.to_fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let five = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7");
    assert_eq!((five.halfmove_clock(), five.fullmove_number()), (7, 1));
    // Extra spaces between fields are fine.
    assert_eq!(
        pos("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq -  0 1 "),
        start
    );
}

#[test]
fn fen_round_trips_for_the_suites() {
    for (p, _) in suite_positions() {
        let again = pos(&p.to_fen());
        assert_eq!(again, p, "{}", p.to_fen());
        assert_eq!(again.to_fen(), p.to_fen());
        assert_eq!(p.key(), p.compute_key());
    }
}

/// Shredder-FEN castling comes back as X-FEN when the rooks are the outermost ones.
#[test]
fn fen_writes_x_fen_castling() {
    let p = pos("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    assert_eq!(
        p.to_fen(),
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"
    );
    // An inner rook keeps its file letter.
    let p = pos("4k3/8/8/8/8/8/8/4KR1R w F - 0 1");
    assert_eq!(p.to_fen(), "4k3/8/8/8/8/8/8/4KR1R w F - 0 1");
    assert_eq!(
        p.castling_rook(Color::White, CastleSide::King),
        Some(sq("f1"))
    );
}

// ----- move generation as a whole -----

/// Noisy and quiet moves split the legal moves exactly: disjoint, together all of them,
/// noisy = captures (en passant included) and promotions. Checked along random games from
/// every suite position.
#[test]
fn noisy_and_quiet_partition_all_moves() {
    let mut rng = Rng::new(7);
    let mut checked = 0;
    for (start, _) in suite_positions() {
        let mut p = start;
        for _ in 0..24 {
            let all = p.legal_moves();
            let noisy = generated(&p, GenType::Noisy);
            let quiet = generated(&p, GenType::Quiet);
            let mut a: Vec<u16> = all.iter().map(|m| m.raw()).collect();
            let mut nq: Vec<u16> = noisy.iter().chain(quiet.iter()).map(|m| m.raw()).collect();
            a.sort_unstable();
            nq.sort_unstable();
            assert_eq!(a, nq, "noisy + quiet != all in {}", p.to_fen());
            a.dedup();
            assert_eq!(a.len(), all.len(), "duplicate moves in {}", p.to_fen());
            for &m in noisy.iter() {
                assert!(
                    p.is_capture(m) || m.promotion_piece().is_some(),
                    "{m:?} noisy in {p:?}"
                );
            }
            for &m in quiet.iter() {
                assert!(
                    !p.is_capture(m) && m.promotion_piece().is_none(),
                    "{m:?} quiet in {p:?}"
                );
            }
            checked += 1;
            if all.is_empty() {
                break;
            }
            p.play(all[rng.below(all.len())]);
        }
    }
    assert!(checked > 20_000, "{checked}");
}

// ----- UCI notation -----

#[test]
fn uci_castling_accepted_in_both_notations() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let short = p.parse_uci_move("e1g1").unwrap();
    assert_eq!(short, Move::castling(Square::E1, Square::H1));
    assert_eq!(p.parse_uci_move("e1h1"), Some(short));
    let long = p.parse_uci_move("e1c1").unwrap();
    assert_eq!(long, Move::castling(Square::E1, Square::A1));
    assert_eq!(p.parse_uci_move("e1a1"), Some(long));
    // Without the right, neither.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1");
    assert_eq!(p.parse_uci_move("e1g1"), None);
    assert_eq!(p.parse_uci_move("e1h1"), None);
}

#[test]
fn uci_promotion_letter() {
    let p = pos("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1");
    assert_eq!(
        p.parse_uci_move("b7b8q"),
        Some(Move::promotion(sq("b7"), sq("b8"), PieceType::Queen))
    );
    assert_eq!(
        p.parse_uci_move("b7a8n"),
        Some(Move::promotion(sq("b7"), sq("a8"), PieceType::Knight))
    );
    for bad in ["b7b8", "b7b8k", "b7b8p", "b7b8x", "b7a8", "e1e2q"] {
        assert_eq!(p.parse_uci_move(bad), None, "{bad}");
    }
}

#[test]
fn uci_rejects_malformed_and_illegal() {
    let p = Position::startpos();
    for bad in [
        "", "e2", "e2e", "e2e9", "i2e4", "e2e4e4", "e2e5", "e7e5", "0000", "é2e4",
    ] {
        assert_eq!(p.parse_uci_move(bad), None, "{bad:?}");
    }
    assert!(p.parse_uci_move("e2e4").is_some());
    assert!(p.parse_uci_move(" g1f3\n").is_some());
}

#[test]
fn move_to_uci_standard_and_chess960() {
    let p = pos("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let short = Move::castling(Square::E1, Square::H1);
    let long = Move::castling(Square::E1, Square::A1);
    assert_eq!(p.move_to_uci(short, false), "e1g1");
    assert_eq!(p.move_to_uci(short, true), "e1h1");
    assert_eq!(p.move_to_uci(long, false), "e1c1");
    assert_eq!(p.move_to_uci(long, true), "e1a1");
    let promo = Move::promotion(sq("b7"), sq("a8"), PieceType::Rook);
    assert_eq!(p.move_to_uci(promo, false), "b7a8r");
    assert_eq!(p.move_to_uci(promo, true), "b7a8r");
    assert_eq!(p.move_to_uci(Move::new(sq("a1"), sq("a7")), true), "a1a7");
    assert_eq!(p.move_to_uci(Move::NULL, false), "0000");
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(
        p.move_to_uci(Move::castling(Square::E8, Square::H8), false),
        "e8g8"
    );
    assert_eq!(
        p.move_to_uci(Move::castling(Square::E8, Square::A8), true),
        "e8a8"
    );
}

/// Every legal move's UCI text parses back to the same move: both notations for the standard
/// suite, king-takes-rook for Chess960.
#[test]
fn uci_round_trip_for_every_suite_move() {
    let mut rng = Rng::new(11);
    for (start, chess960) in suite_positions() {
        let mut p = start;
        for _ in 0..8 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            for &m in moves.iter() {
                for notation in [true, false] {
                    if chess960 && !notation {
                        continue;
                    }
                    let text = p.move_to_uci(m, notation);
                    assert_eq!(p.parse_uci_move(&text), Some(m), "{text} in {}", p.to_fen());
                }
            }
            p.play(moves[rng.below(moves.len())]);
        }
    }
}
