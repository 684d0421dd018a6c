//! Syzygy endgame tablebases: WDL (win/draw/loss) probes for the search and DTZ (distance to
//! zeroing) probes at the root.
//!
//! The probing itself is the `pyrrhic-rs` crate (MIT; a Rust port of Pyrrhic, itself Fathom, the
//! probing code most engines use), which works on the engine's own bitboards through
//! [`EngineAdapter`]: no board conversion per probe. `shakmaty-syzygy` is the better-kept crate
//! but it is GPL-3.0 (the engine is MIT) and needs a shakmaty board per probe. Writing the probe
//! ourselves is possible but the format (Huffman-like compressed blocks, several piece
//! encodings, DTZ maps) is a large, subtle piece of code.
//!
//! `pyrrhic-rs` has process-wide state and some rough edges, which this module contains:
//! - one set of tables per process: [`Tablebases::open`] replaces the previous set (handles of
//!   the old set then find nothing); probes share a read lock, root probes take it exclusively
//!   (the crate's root probe is not thread-safe);
//! - it registers every table name whether the file exists or not, so this module scans the
//!   folders itself: the piece count limit, the "nothing found" error and which material
//!   signatures may be probed come from the files actually present;
//! - a folder holding a damaged table (wrong magic number or size) is not used at all, since the
//!   crate's unsafe decoder trusts the file; nor is one where a table's name is not a regular
//!   file, since the crate opens every table name in its folders and opening a FIFO blocks.

use crate::chess::{attacks, Bitboard, Color, Move, MoveKind, PieceType, Position, Square};
use pyrrhic_rs::{DtzProbeValue, EngineAdapter, TableBases, WdlProbeResult};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

/// A win/draw/loss result from the side to move's point of view. "Cursed" wins and "blessed"
/// losses are wins and losses that the 50-move rule turns into draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss = -2,
    BlessedLoss = -1,
    Draw = 0,
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    /// -2 ..= 2, as python-chess and the Syzygy tools write it.
    pub fn value(self) -> i32 {
        self as i32
    }

    pub fn from_value(v: i32) -> Option<Wdl> {
        Some(match v {
            -2 => Wdl::Loss,
            -1 => Wdl::BlessedLoss,
            0 => Wdl::Draw,
            1 => Wdl::CursedWin,
            2 => Wdl::Win,
            _ => return None,
        })
    }

    /// The result when the 50-move rule is not played (`Syzygy50MoveRule` false): cursed wins
    /// are wins, blessed losses are losses.
    pub fn without_50_move_rule(self) -> Wdl {
        match self {
            Wdl::CursedWin => Wdl::Win,
            Wdl::BlessedLoss => Wdl::Loss,
            w => w,
        }
    }

    /// Same result seen from the other side.
    pub fn flip(self) -> Wdl {
        Wdl::from_value(-self.value()).unwrap()
    }

    fn from_pyrrhic(w: WdlProbeResult) -> Wdl {
        match w {
            WdlProbeResult::Loss => Wdl::Loss,
            WdlProbeResult::BlessedLoss => Wdl::BlessedLoss,
            WdlProbeResult::Draw => Wdl::Draw,
            WdlProbeResult::CursedWin => Wdl::CursedWin,
            WdlProbeResult::Win => Wdl::Win,
        }
    }
}

/// One legal root move with the tablebase result after it, from the root side's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbRootMove {
    pub mv: Move,
    /// The result of playing this move, counting the 50-move rule from the root's clock (when
    /// it is on).
    pub wdl: Wdl,
    /// Plies to the next zeroing move (capture, pawn move or mate) including this one: positive
    /// when winning, negative when losing, 0 for a draw. Syzygy DTZ values can be one ply off in
    /// some positions (they are stored rounded where it never matters for the 50-move rule).
    pub dtz: i32,
    /// Higher is better; the moves of the highest rank are [`RootTbResult::keep`].
    pub rank: i32,
}

/// The root probe: the position's result and every legal move's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootTbResult {
    /// The position's result (50-move rule per the `rule50` argument).
    pub wdl: Wdl,
    /// DTZ of the position, signed as in [`TbRootMove::dtz`] (as python-chess: -1 when mated,
    /// 0 when stalemated).
    pub dtz: i32,
    /// Every legal move, in move generator order.
    pub moves: Vec<TbRootMove>,
    /// The moves that keep the best result: every certainly winning move (only the
    /// fastest-converting ones, by DTZ, if the game has repeated since the last zeroing move,
    /// so that the engine cannot go round in circles); every drawing move when the best is a
    /// draw; when lost, every move, or the ones resisting longest when a 50-move draw is in
    /// sight. The search chooses among these; [`RootTbResult::dtz_best`] is the table's own
    /// pick.
    pub keep: Vec<Move>,
    /// The DTZ-optimal move (quickest zeroing move when winning, slowest when losing).
    pub dtz_best: Option<Move>,
}

#[derive(Clone)]
struct Adapter;

impl EngineAdapter for Adapter {
    fn pawn_attacks(color: pyrrhic_rs::Color, square: u64) -> u64 {
        let c = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        attacks::pawn(c, Square::new(square as u8)).0
    }
    fn knight_attacks(square: u64) -> u64 {
        attacks::knight(Square::new(square as u8)).0
    }
    fn bishop_attacks(square: u64, occupied: u64) -> u64 {
        attacks::bishop(Square::new(square as u8), Bitboard(occupied)).0
    }
    fn rook_attacks(square: u64, occupied: u64) -> u64 {
        attacks::rook(Square::new(square as u8), Bitboard(occupied)).0
    }
    fn queen_attacks(square: u64, occupied: u64) -> u64 {
        attacks::queen(Square::new(square as u8), Bitboard(occupied)).0
    }
    fn king_attacks(square: u64) -> u64 {
        attacks::king(Square::new(square as u8)).0
    }
}

/// The loaded tables (at most one set per process, see the module comment).
struct Loaded {
    id: u64,
    tables: TableBases<Adapter>,
}

static LOADED: RwLock<Option<Loaded>> = RwLock::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A handle on the Syzygy tables found in some folders.
#[derive(Debug, Clone)]
pub struct Tablebases {
    id: u64,
    max_pieces: u32,
    /// Material signatures (see [`signature`]) with a WDL table, and with a DTZ table.
    wdl: HashSet<u32>,
    dtz: HashSet<u32>,
    wdl_files: usize,
    dtz_files: usize,
    folders: Vec<PathBuf>,
    warnings: Vec<String>,
}

const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// Material of one side as a number: 4 bits per piece type, pawn to queen.
fn side_signature(counts: [u32; 5]) -> u32 {
    counts
        .iter()
        .enumerate()
        .map(|(i, &n)| n.min(15) << (4 * i))
        .sum()
}

/// The material signature of a position (white side, black side): what names its table.
fn signature(pos: &Position) -> u32 {
    let side = |c: Color| {
        side_signature([
            pos.colored(c, PieceType::Pawn).count(),
            pos.colored(c, PieceType::Knight).count(),
            pos.colored(c, PieceType::Bishop).count(),
            pos.colored(c, PieceType::Rook).count(),
            pos.colored(c, PieceType::Queen).count(),
        ])
    };
    side(Color::White) | side(Color::Black) << 20
}

/// Parses a table name such as `KRPvKN` into both colour orientations' signatures and the
/// number of pieces.
fn parse_table_name(stem: &str) -> Option<([u32; 2], u32)> {
    let (a, b) = stem.split_once('v')?;
    let side = |s: &str| -> Option<u32> {
        let mut chars = s.chars();
        if chars.next()? != 'K' {
            return None;
        }
        let mut counts = [0u32; 5];
        for ch in chars {
            let i = "PNBRQ".find(ch)?;
            counts[i] += 1;
        }
        Some(side_signature(counts))
    };
    let (sa, sb) = (side(a)?, side(b)?);
    let pieces = stem.len() as u32 - 1; // every letter but the 'v'
    Some(([sa | sb << 20, sb | sa << 20], pieces))
}

/// What is wrong with a table file, if anything.
fn check_table(path: &Path, magic: [u8; 4]) -> Result<(), String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size % 64 != 16 {
        return Err(format!("size {size} is not 16 more than a multiple of 64"));
    }
    let mut head = [0u8; 4];
    use std::io::Read;
    crate::util::files::open_regular(path, std::fs::OpenOptions::new().read(true))?
        .read_exact(&mut head)
        .map_err(|e| e.to_string())?;
    if head != magic {
        return Err("not a Syzygy table (wrong magic number)".into());
    }
    Ok(())
}

impl Tablebases {
    /// Loads the tables in a list of folders (`SyzygyPath`: separated by `;`, or by `:` except
    /// on Windows). Missing folders, folders with damaged tables and folders where a table's name
    /// is not a regular file are skipped with a warning
    /// (see [`Tablebases::warnings`]); it is an error only if no usable table is found. Opening
    /// replaces any set opened before.
    pub fn open(paths: &str) -> Result<Tablebases, String> {
        let separators: &[char] = if cfg!(windows) { &[';'] } else { &[';', ':'] };
        let mut folders = Vec::new();
        let mut warnings = Vec::new();
        let (mut wdl, mut dtz) = (HashSet::new(), HashSet::new());
        let mut max_pieces = 0;
        let (mut wdl_files, mut dtz_files) = (0, 0);
        for folder in paths
            .split(separators)
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let dir = PathBuf::from(folder);
            let read = match std::fs::read_dir(&dir) {
                Ok(r) => r,
                Err(e) => {
                    warnings.push(format!("SyzygyPath folder {folder}: {e}"));
                    continue;
                }
            };
            let mut found = Vec::new();
            // Why the folder cannot be used, if it cannot.
            let mut refused = None;
            for entry in read.flatten() {
                let path = entry.path();
                let (Some(stem), Some(ext)) = (
                    path.file_stem().and_then(|s| s.to_str()),
                    path.extension().and_then(|s| s.to_str()),
                ) else {
                    continue;
                };
                let is_wdl = match ext {
                    "rtbw" => true,
                    "rtbz" => false,
                    _ => continue,
                };
                // The table reader opens every table name in a folder it is given, and opening
                // a FIFO blocks: a folder holding anything but regular files under such names
                // is not given to it at all.
                let meta = std::fs::metadata(&path);
                if let Some(why) = meta.as_ref().map_or(Some("cannot be read"), |m| {
                    crate::util::files::not_regular(m)
                }) {
                    refused = Some(format!("{}: {why}", path.display()));
                    break;
                }
                let Some((sigs, pieces)) = parse_table_name(stem) else {
                    continue;
                };
                if pieces > 7 {
                    continue;
                }
                let magic = if is_wdl { WDL_MAGIC } else { DTZ_MAGIC };
                if let Err(e) = check_table(&path, magic) {
                    refused = Some(format!("damaged table {}: {e}", path.display()));
                    break;
                }
                found.push((is_wdl, sigs, pieces));
            }
            if let Some(why) = refused {
                warnings.push(format!("SyzygyPath folder {folder} not used: {why}"));
                continue;
            }
            if found.is_empty() {
                warnings.push(format!("SyzygyPath folder {folder} has no Syzygy tables"));
                continue;
            }
            for (is_wdl, sigs, pieces) in found {
                if is_wdl {
                    wdl.extend(sigs);
                    wdl_files += 1;
                    max_pieces = max_pieces.max(pieces);
                } else {
                    dtz.extend(sigs);
                    dtz_files += 1;
                }
            }
            folders.push(dir);
        }
        if wdl.is_empty() {
            let why = if warnings.is_empty() {
                "no folder given".to_string()
            } else {
                warnings.join("; ")
            };
            return Err(format!("no Syzygy tables found ({why})"));
        }
        let joined: Vec<&str> = folders.iter().filter_map(|f| f.to_str()).collect();
        if joined.len() != folders.len() || joined.iter().any(|f| f.contains(':')) {
            return Err("SyzygyPath folders must be UTF-8 and contain no ':'".into());
        }

        let mut slot = LOADED.write().unwrap_or_else(|e| e.into_inner());
        *slot = None; // frees the previous set first: the crate allows one at a time
        let tables = TableBases::<Adapter>::new(joined.join(":"))
            .map_err(|e| format!("Syzygy tables could not be loaded: {e:?}"))?;
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        *slot = Some(Loaded { id, tables });
        log::info!("Syzygy: {wdl_files} WDL and {dtz_files} DTZ tables, up to {max_pieces} pieces");
        Ok(Tablebases {
            id,
            max_pieces,
            wdl,
            dtz,
            wdl_files,
            dtz_files,
            folders,
            warnings,
        })
    }

    /// The most pieces (kings included) of any table found.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Folders that had tables, in search order.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// Problems met while loading that did not stop it (missing or damaged folders).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A one-line description for an `info string`, e.g. `Syzygy tablebases: 35 WDL and 35 DTZ
    /// tables, up to 4 pieces, in 1 folder`.
    pub fn summary(&self) -> String {
        format!(
            "Syzygy tablebases: {} WDL and {} DTZ tables, up to {} pieces, in {} folder{}",
            self.wdl_files,
            self.dtz_files,
            self.max_pieces,
            self.folders.len(),
            if self.folders.len() == 1 { "" } else { "s" }
        )
    }

    /// Whether a position can be probed at all: few enough pieces, no castling rights, and a
    /// table for its material.
    pub fn covers(&self, pos: &Position) -> bool {
        pos.occupied().count() <= self.max_pieces
            && pos.castling == 0
            && self.wdl.contains(&signature(pos))
    }

    /// The win/draw/loss value of a position from the side to move's point of view, if the
    /// tables cover it. Exact when the position was just reached by a capture or pawn move
    /// (halfmove clock 0); otherwise cursed/blessed results may be off, since the table does not
    /// know the clock. Safe to call from several search threads at once.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if !self.covers(pos) {
            return None;
        }
        let slot = LOADED.read().unwrap_or_else(|e| e.into_inner());
        let loaded = slot.as_ref().filter(|l| l.id == self.id)?;
        let b = Boards::of(pos);
        loaded
            .tables
            .probe_wdl(
                b.white,
                b.black,
                b.kings,
                b.queens,
                b.rooks,
                b.bishops,
                b.knights,
                b.pawns,
                b.ep,
                b.white_to_move,
            )
            .ok()
            .map(Wdl::from_pyrrhic)
    }

    /// The root probe with DTZ tables: the result of every legal move and the moves that keep
    /// the best result (see [`RootTbResult`]). `history` holds the keys of the game's earlier
    /// positions, oldest first (to see repetitions); `rule50` is `Syzygy50MoveRule`.
    pub fn probe_root(
        &self,
        pos: &Position,
        history: &[u64],
        rule50: bool,
    ) -> Option<RootTbResult> {
        if !self.covers(pos) || !self.dtz.contains(&signature(pos)) {
            return None;
        }
        // Exclusive: the crate's root probe is not thread-safe.
        let slot = LOADED.write().unwrap_or_else(|e| e.into_inner());
        let loaded = slot.as_ref().filter(|l| l.id == self.id)?;
        let b = Boards::of(pos);
        let cnt50 = pos.halfmove_clock().min(100) as u32;
        let result = loaded
            .tables
            .probe_root(
                b.white,
                b.black,
                b.kings,
                b.queens,
                b.rooks,
                b.bishops,
                b.knights,
                b.pawns,
                cnt50,
                b.ep,
                b.white_to_move,
            )
            .ok()?;
        drop(slot);

        let adjust = |w: Wdl| if rule50 { w } else { w.without_50_move_rule() };
        let signed = |w: Wdl, dtz: u16| match w.value().signum() {
            1 => dtz as i32,
            -1 => -(dtz as i32),
            _ => 0,
        };
        let (wdl, dtz, best) = match result.root {
            DtzProbeValue::Checkmate => (Wdl::Loss, -1, None),
            DtzProbeValue::Stalemate => (Wdl::Draw, 0, None),
            DtzProbeValue::Failed => return None,
            DtzProbeValue::DtzResult(r) => {
                let w = adjust(Wdl::from_pyrrhic(r.wdl));
                (w, signed(w, r.dtz), Some(r))
            }
        };
        let legal = pos.legal_moves();
        let find = |from: u8, to: u8, promo: pyrrhic_rs::Piece| {
            let promo = match promo {
                pyrrhic_rs::Piece::Knight => Some(PieceType::Knight),
                pyrrhic_rs::Piece::Bishop => Some(PieceType::Bishop),
                pyrrhic_rs::Piece::Rook => Some(PieceType::Rook),
                pyrrhic_rs::Piece::Queen => Some(PieceType::Queen),
                _ => None,
            };
            legal.iter().copied().find(|m| {
                m.from().index() == from as usize
                    && m.to().index() == to as usize
                    && m.promotion_piece() == promo
                    && m.kind() != MoveKind::Castling
            })
        };
        let repeated = has_repeated(pos, history);
        let mut moves = Vec::with_capacity(result.num_moves);
        for v in &result.moves[..result.num_moves] {
            let DtzProbeValue::DtzResult(r) = v else {
                continue;
            };
            let Some(mv) = find(r.from_square, r.to_square, r.promotion) else {
                return None; // the crate and the rules core disagree: trust neither
            };
            let w = adjust(Wdl::from_pyrrhic(r.wdl));
            let dtz = signed(w, r.dtz);
            moves.push(TbRootMove {
                mv,
                wdl: w,
                dtz,
                rank: rank(w, dtz, cnt50 as i32, rule50, repeated),
            });
        }
        if moves.len() != legal.len() {
            return None;
        }
        let top = moves.iter().map(|m| m.rank).max();
        let keep = moves
            .iter()
            .filter(|m| Some(m.rank) == top)
            .map(|m| m.mv)
            .collect();
        let dtz_best = best.and_then(|r| find(r.from_square, r.to_square, r.promotion));
        Some(RootTbResult {
            wdl,
            dtz,
            moves,
            keep,
            dtz_best,
        })
    }
}

/// Orders root moves (higher is better). Certain wins rank equally unless the game has
/// repeated, then the quicker conversion ranks higher; wins the 50-move rule spoils (cursed)
/// rank above draws by DTZ; losses rank equally unless the 50-move rule could save the game,
/// then the slower loss ranks higher.
fn rank(wdl: Wdl, dtz: i32, cnt50: i32, rule50: bool, repeated: bool) -> i32 {
    const TOP: i32 = 1000;
    match wdl {
        Wdl::Win if repeated => TOP - dtz,
        Wdl::Win => TOP,
        Wdl::CursedWin => TOP / 2 - dtz,
        Wdl::Draw => 0,
        Wdl::BlessedLoss => -TOP / 2 - dtz, // dtz < 0: slower is higher
        Wdl::Loss if rule50 && cnt50 - 2 * dtz >= 100 => -TOP - dtz,
        Wdl::Loss => -TOP,
    }
}

/// Whether a position has occurred before since the last zeroing move (the keys of the
/// game's earlier positions, oldest first; only the last `halfmove_clock` of them can repeat).
pub fn has_repeated(pos: &Position, history: &[u64]) -> bool {
    let window = (pos.halfmove_clock() as usize).min(history.len());
    let recent = &history[history.len() - window..];
    let mut all: Vec<u64> = recent.to_vec();
    all.push(pos.key());
    let mut seen = HashSet::new();
    all.iter().any(|k| !seen.insert(*k))
}

struct Boards {
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    white_to_move: bool,
}

impl Boards {
    fn of(pos: &Position) -> Boards {
        let k = |t| pos.kind(t).0;
        Boards {
            white: pos.pieces(Color::White).0,
            black: pos.pieces(Color::Black).0,
            kings: k(PieceType::King),
            queens: k(PieceType::Queen),
            rooks: k(PieceType::Rook),
            bishops: k(PieceType::Bishop),
            knights: k(PieceType::Knight),
            pawns: k(PieceType::Pawn),
            // The rules core sets it only when a pawn can take there, as the tables expect.
            ep: pos.en_passant().map_or(0, |s| s.index() as u32),
            white_to_move: pos.side_to_move() == Color::White,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names() {
        let (sigs, n) = parse_table_name("KRPvKN").unwrap();
        assert_eq!(n, 5);
        let p = Position::from_fen("8/8/8/3k4/8/1n6/4P3/R3K3 w - - 0 1").unwrap();
        assert_eq!(signature(&p), sigs[0]);
        let p = Position::from_fen("r3k3/4p3/1N6/8/3K4/8/8/8 w - - 0 1").unwrap();
        assert_eq!(signature(&p), sigs[1]);
        assert!(parse_table_name("KvK").is_some());
        assert!(parse_table_name("KXvK").is_none());
        assert!(parse_table_name("QvK").is_none());
    }

    #[test]
    fn wdl_values() {
        for v in -2..=2 {
            let w = Wdl::from_value(v).unwrap();
            assert_eq!(w.value(), v);
            assert_eq!(w.flip().value(), -v);
        }
        assert_eq!(Wdl::CursedWin.without_50_move_rule(), Wdl::Win);
        assert!(Wdl::Win > Wdl::CursedWin && Wdl::Draw > Wdl::BlessedLoss);
    }

    #[test]
    fn repetition_since_zeroing() {
        let mut pos = Position::from_fen("8/8/8/3k4/8/8/8/R3K3 w - - 0 1").unwrap();
        let mut history = Vec::new();
        for m in ["a1a2", "d5d6", "a2a1", "d6d5"] {
            history.push(pos.key());
            pos.play(pos.parse_uci_move(m).unwrap());
        }
        assert!(has_repeated(&pos, &history));
        assert!(!has_repeated(&pos, &history[1..]));
        // Before the last zeroing move, repetitions do not count.
        let p = Position::from_fen("8/8/8/3k4/8/8/8/R3K3 w - - 0 1").unwrap();
        assert!(!has_repeated(&p, &[p.key()]));
    }
}
