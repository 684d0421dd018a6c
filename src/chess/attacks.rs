//! Attack tables. Leapers (pawn, knight, king) are built at compile time; sliders use "fancy"
//! magic bitboards whose tables are built once, on first use, from the magic numbers in
//! `magics.rs` (found by `find_magic` below and checked by a unit test).

use super::bitboard::Bitboard;
use super::magics::{BISHOP_MAGICS, ROOK_MAGICS};
use super::types::{Color, PieceType, Square};
use crate::util::Rng;
use std::sync::LazyLock;

const fn leaper_table(deltas: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut bits = 0u64;
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                bits |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

static KNIGHT: [Bitboard; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [Bitboard; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[Bitboard; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

#[inline(always)]
pub fn knight(sq: Square) -> Bitboard {
    KNIGHT[sq.index()]
}

#[inline(always)]
pub fn king(sq: Square) -> Bitboard {
    KING[sq.index()]
}

/// Squares a pawn of colour `c` on `sq` attacks.
#[inline(always)]
pub fn pawn(c: Color, sq: Square) -> Bitboard {
    PAWN[c.index()][sq.index()]
}

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Slider attacks by walking rays: slow, used to build the tables and to test them.
pub fn slider_attacks_slow(sq: Square, occupied: Bitboard, dirs: &[(i8, i8); 4]) -> Bitboard {
    let mut bits = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (sq.file() as i8, sq.rank() as i8);
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let to = Square::from_coords(f as u8, r as u8);
            bits = bits.with(to);
            if occupied.contains(to) {
                break;
            }
        }
    }
    bits
}

pub fn rook_attacks_slow(sq: Square, occupied: Bitboard) -> Bitboard {
    slider_attacks_slow(sq, occupied, &ROOK_DIRS)
}

pub fn bishop_attacks_slow(sq: Square, occupied: Bitboard) -> Bitboard {
    slider_attacks_slow(sq, occupied, &BISHOP_DIRS)
}

/// The squares whose occupancy matters for a slider on `sq`: its rays without the board edge.
fn relevant_mask(sq: Square, dirs: &[(i8, i8); 4]) -> Bitboard {
    let mut bits = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (sq.file() as i8 + df, sq.rank() as i8 + dr);
        while (0..8).contains(&(f + df)) && (0..8).contains(&(r + dr)) {
            bits = bits.with(Square::from_coords(f as u8, r as u8));
            f += df;
            r += dr;
        }
    }
    bits
}

#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: u32,
}

impl Magic {
    #[inline(always)]
    fn index(&self, occupied: Bitboard) -> usize {
        self.offset as usize
            + ((occupied.0 & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

/// The slider tables and the between and line tables, built once on first use (see `tables`).
pub struct Tables {
    rook: [Magic; 64],
    bishop: [Magic; 64],
    sliders: Box<[Bitboard]>,
    /// Squares strictly between two squares on a line, empty if they share no line.
    between: Box<[[Bitboard; 64]; 64]>,
    /// The whole line (edge to edge) through two squares, empty if they share none.
    line: Box<[[Bitboard; 64]; 64]>,
}

/// Enumerates every subset of `mask` (Carry-Rippler).
fn subsets(mask: u64) -> impl Iterator<Item = u64> {
    let mut sub = 0u64;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let cur = sub;
        sub = sub.wrapping_sub(mask) & mask;
        done = sub == 0;
        Some(cur)
    })
}

fn fill_magics(
    magics: &mut [Magic; 64],
    numbers: &[u64; 64],
    dirs: &[(i8, i8); 4],
    table: &mut Vec<Bitboard>,
) {
    for sq in Square::all() {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count();
        let m = Magic {
            mask: mask.0,
            magic: numbers[sq.index()],
            shift: 64 - bits,
            offset: table.len() as u32,
        };
        table.resize(table.len() + (1 << bits), Bitboard::EMPTY);
        for occ in subsets(mask.0) {
            let occ = Bitboard(occ);
            table[m.index(occ)] = slider_attacks_slow(sq, occ, dirs);
        }
        magics[sq.index()] = m;
    }
}

fn build_tables() -> Tables {
    let mut rook = [Magic::default(); 64];
    let mut bishop = [Magic::default(); 64];
    let mut sliders = Vec::with_capacity(102_400 + 5_248);
    fill_magics(&mut rook, &ROOK_MAGICS, &ROOK_DIRS, &mut sliders);
    fill_magics(&mut bishop, &BISHOP_MAGICS, &BISHOP_DIRS, &mut sliders);

    let mut between = Box::new([[Bitboard::EMPTY; 64]; 64]);
    let mut line = Box::new([[Bitboard::EMPTY; 64]; 64]);
    for a in Square::all() {
        for b in Square::all() {
            if a == b {
                continue;
            }
            let ab = Bitboard::from_square(b);
            for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
                if slider_attacks_slow(a, Bitboard::EMPTY, dirs) & ab != Bitboard::EMPTY {
                    let from_a = slider_attacks_slow(a, ab, dirs);
                    let from_b = slider_attacks_slow(b, Bitboard::from_square(a), dirs);
                    between[a.index()][b.index()] = from_a & from_b;
                    line[a.index()][b.index()] =
                        slider_ray_through(a, b, dirs) | Bitboard::from_square(a);
                }
            }
        }
    }
    Tables {
        rook,
        bishop,
        sliders: sliders.into_boxed_slice(),
        between,
        line,
    }
}

/// The full ray of `dirs` from `a` that passes through `b`, extended in both directions.
fn slider_ray_through(a: Square, b: Square, dirs: &[(i8, i8); 4]) -> Bitboard {
    let (df, dr) = (
        (b.file() as i8 - a.file() as i8).signum(),
        (b.rank() as i8 - a.rank() as i8).signum(),
    );
    debug_assert!(dirs.contains(&(df, dr)));
    let mut bits = Bitboard::EMPTY;
    for (sf, sr) in [(df, dr), (-df, -dr)] {
        let (mut f, mut r) = (a.file() as i8 + sf, a.rank() as i8 + sr);
        while (0..8).contains(&f) && (0..8).contains(&r) {
            bits = bits.with(Square::from_coords(f as u8, r as u8));
            f += sf;
            r += sr;
        }
    }
    bits
}

static TABLES: LazyLock<Tables> = LazyLock::new(build_tables);

/// Builds the tables now rather than on the first move generation (used at start-up).
pub fn init() {
    LazyLock::force(&TABLES);
}

/// The tables. Every access to them checks that they have been built, so code that looks up
/// many attacks (the move generator) fetches them once and calls the methods of `Tables`
/// rather than the free functions below.
#[inline(always)]
pub fn tables() -> &'static Tables {
    &TABLES
}

impl Tables {
    #[inline(always)]
    pub fn rook(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.sliders[self.rook[sq.index()].index(occupied)]
    }

    #[inline(always)]
    pub fn bishop(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.sliders[self.bishop[sq.index()].index(occupied)]
    }

    /// Squares strictly between two squares on a line, empty if they share no line.
    #[inline(always)]
    pub fn between(&self, a: Square, b: Square) -> Bitboard {
        self.between[a.index()][b.index()]
    }

    /// The whole line (edge to edge) through two squares, empty if they share none.
    #[inline(always)]
    pub fn line(&self, a: Square, b: Square) -> Bitboard {
        self.line[a.index()][b.index()]
    }
}

#[inline(always)]
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    tables().rook(sq, occupied)
}

#[inline(always)]
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    tables().bishop(sq, occupied)
}

#[inline(always)]
pub fn queen(sq: Square, occupied: Bitboard) -> Bitboard {
    rook(sq, occupied) | bishop(sq, occupied)
}

#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    tables().between(a, b)
}

#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    tables().line(a, b)
}

/// Attacks of a non-pawn piece type.
#[inline(always)]
pub fn piece(kind: PieceType, sq: Square, occupied: Bitboard) -> Bitboard {
    match kind {
        PieceType::Knight => knight(sq),
        PieceType::Bishop => bishop(sq, occupied),
        PieceType::Rook => rook(sq, occupied),
        PieceType::Queen => queen(sq, occupied),
        PieceType::King => king(sq),
        PieceType::Pawn => panic!("pawn attacks depend on colour"),
    }
}

/// Searches for a magic number for a slider on `sq` (how `magics.rs` is made:
/// `cargo test --release -- --ignored print_magics --nocapture`).
pub fn find_magic(sq: Square, bishop: bool, rng: &mut Rng) -> u64 {
    let dirs = if bishop { &BISHOP_DIRS } else { &ROOK_DIRS };
    let mask = relevant_mask(sq, dirs);
    let bits = mask.count();
    let occs: Vec<u64> = subsets(mask.0).collect();
    let atts: Vec<Bitboard> = occs
        .iter()
        .map(|&o| slider_attacks_slow(sq, Bitboard(o), dirs))
        .collect();
    let mut used = vec![(0u32, Bitboard::EMPTY); 1 << bits];
    let mut epoch = 0u32;
    loop {
        // Sparse candidates (few bits set) are far more often magic.
        let magic = rng.next_u64() & rng.next_u64() & rng.next_u64();
        if (mask.0.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        epoch += 1;
        let ok = occs.iter().zip(&atts).all(|(&o, &a)| {
            let i = (o.wrapping_mul(magic) >> (64 - bits)) as usize;
            if used[i].0 != epoch {
                used[i] = (epoch, a);
                true
            } else {
                used[i].1 == a
            }
        });
        if ok {
            return magic;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_lookups_equal_ray_walking_on_random_occupancies() {
        let mut rng = Rng::new(7);
        for sq in Square::all() {
            for _ in 0..2000 {
                let occ = Bitboard(rng.next_u64() & rng.next_u64());
                assert_eq!(rook(sq, occ), rook_attacks_slow(sq, occ), "rook {sq}");
                assert_eq!(bishop(sq, occ), bishop_attacks_slow(sq, occ), "bishop {sq}");
            }
        }
    }

    #[test]
    fn between_and_line() {
        let sq = |s| Square::parse(s).unwrap();
        assert_eq!(
            between(sq("a1"), sq("d4")),
            Bitboard::EMPTY.with(sq("b2")).with(sq("c3"))
        );
        assert_eq!(between(sq("a1"), sq("b3")), Bitboard::EMPTY);
        assert_eq!(line(sq("b2"), sq("c3")).count(), 8);
        assert!(line(sq("b2"), sq("c3")).contains(sq("h8")));
        assert!(line(sq("e1"), sq("e4")).contains(sq("e8")));
        assert_eq!(line(sq("a1"), sq("b3")), Bitboard::EMPTY);
    }

    #[test]
    fn leapers() {
        let sq = |s| Square::parse(s).unwrap();
        assert_eq!(knight(sq("a1")).count(), 2);
        assert_eq!(knight(sq("d4")).count(), 8);
        assert_eq!(king(sq("h8")).count(), 3);
        assert_eq!(
            pawn(Color::White, sq("a2")),
            Bitboard::from_square(sq("b3"))
        );
        assert_eq!(pawn(Color::Black, sq("e5")).count(), 2);
    }

    #[test]
    #[ignore]
    fn print_magics() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for bishop in [false, true] {
            println!(
                "pub const {}_MAGICS: [u64; 64] = [",
                if bishop { "BISHOP" } else { "ROOK" }
            );
            for sq in Square::all() {
                println!("    {:#018x},", find_magic(sq, bishop, &mut rng));
            }
            println!("];");
        }
    }
}
