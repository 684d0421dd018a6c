//! The hot loops of the network: adding and subtracting weight rows into an accumulator, and
//! the SCReLU dot product of the output layer. Three versions give identical integers:
//!
//! - portable scalar code (any target; fixed-size arrays so the compiler vectorises it for the
//!   baseline instruction set);
//! - AVX2 and AVX-512 (x86-64, stable `std::arch`), detected at run time (the default build
//!   must run on any x86-64, so there is no global `target-cpu`); `Backend::best` picks AVX2.
//!
//! A [`Backend`] names one version; only [`Backend::SCALAR`] and the backends that the CPU is
//! detected to support can be constructed, which is what makes calling the vector code sound.
//!
//! Integer semantics (the reference is `Network::evaluate_from_scratch`): accumulator lanes are
//! i16 with wrapping adds; in the output, `v = clamp(a, 0, QA)`, `v·w` is taken as an i16 (it
//! fits because the trainer clips `|w| ≤ MAX_OUTPUT_WEIGHT`; where it would not, every backend
//! wraps it the same way, as `_mm256_mullo_epi16` does) and `v·(v·w)` summed with wrapping i32
//! adds, whose order then does not matter.

use super::network::QA;

/// Lanes the loops work on at a time: every network width is a multiple of this. One tile is
/// eight AVX2 or four AVX-512 registers, so a refresh keeps a whole tile in registers.
pub const TILE: usize = 128;

/// One tile of an accumulator half or of a weight row.
pub type Tile = [i16; TILE];

/// `s` as tiles; its length must be a multiple of `TILE` (the network's shape ensures it).
#[inline(always)]
fn tiles(s: &[i16]) -> &[Tile] {
    let (tiles, rest) = s.as_chunks::<TILE>();
    debug_assert!(rest.is_empty());
    tiles
}

#[inline(always)]
fn tiles_mut(s: &mut [i16]) -> &mut [Tile] {
    let (tiles, rest) = s.as_chunks_mut::<TILE>();
    debug_assert!(rest.is_empty());
    tiles
}

/// Which implementation of the loops to run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Backend(Kind);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// Calls the function of that name in the backend's module.
macro_rules! dispatch {
    ($backend:expr, $f:ident($($arg:expr),*)) => {
        match $backend.0 {
            Kind::Scalar => scalar::$f($($arg),*),
            // SAFETY: a `Kind::Avx2` backend is only made by `Backend::avx2`, after it detected
            // AVX2 on this CPU, the one precondition of these `target_feature` functions.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::$f($($arg),*) },
            // SAFETY: likewise, `Backend::avx512` detected AVX-512 F and BW.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::$f($($arg),*) },
        }
    };
}

impl Backend {
    /// The portable code; always available.
    pub const SCALAR: Backend = Backend(Kind::Scalar);

    /// AVX2, if this CPU has it.
    pub fn avx2() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            return Some(Backend(Kind::Avx2));
        }
        None
    }

    /// AVX-512 (F and BW), if this CPU has it.
    pub fn avx512() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
            return Some(Backend(Kind::Avx512));
        }
        None
    }

    /// The backend to use: AVX2 where the CPU has it, else the portable code (detected once).
    ///
    /// Not AVX-512 even where present: measured on Zen 4 (`examples/nnue_speed.rs`) it is no
    /// faster for updates and refreshes and saves ~2 ns of an evaluation, while on Intel parts
    /// before Ice Lake 512-bit instructions lower the clock of everything else the core runs.
    ///
    /// `BRUDNO_SIMD=scalar|avx2|avx512` in the environment picks another one the CPU has (to
    /// measure the portable code's speed in a real search).
    pub fn best() -> Backend {
        static BEST: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let asked = std::env::var("BRUDNO_SIMD").ok();
            Backend::available()
                .into_iter()
                .find(|b| asked.as_deref() == Some(b.name()))
                .or_else(Backend::avx2)
                .unwrap_or(Backend::SCALAR)
        })
    }

    /// Every backend this CPU supports, scalar first (for tests and benchmarks).
    pub fn available() -> Vec<Backend> {
        [Some(Backend::SCALAR), Backend::avx2(), Backend::avx512()]
            .into_iter()
            .flatten()
            .collect()
    }

    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => "avx512",
        }
    }

    /// `dst = bias + Σ table[f]` over `features`, where `table` holds rows of `dst.len()`
    /// values. Panics if a length disagrees or is not a multiple of `TILE`.
    #[inline]
    pub fn sum_rows(self, dst: &mut [i16], bias: &[i16], table: &[i16], features: &[u16]) {
        assert!(dst.len().is_multiple_of(TILE) && bias.len() == dst.len());
        // A feature beyond the table panics on its (checked) index inside the loop.
        dispatch!(
            self,
            sum_rows(tiles_mut(dst), tiles(bias), tiles(table), features)
        )
    }

    /// `dst = src + a − s` (a quiet move or a promotion). Panics unless all have one length,
    /// a multiple of `TILE`.
    #[inline]
    pub fn add1_sub1(self, dst: &mut [i16], src: &[i16], a: &[i16], s: &[i16]) {
        let n = same_tiles(dst, [src, a, s]);
        dispatch!(
            self,
            add_sub(n, tiles_mut(dst), tiles(src), [tiles(a)], [tiles(s)])
        )
    }

    /// `dst = src + a − s1 − s2` (a capture, en passant included).
    #[inline]
    pub fn add1_sub2(self, dst: &mut [i16], src: &[i16], a: &[i16], s1: &[i16], s2: &[i16]) {
        let n = same_tiles(dst, [src, a, s1, s2]);
        let sub = [tiles(s1), tiles(s2)];
        dispatch!(
            self,
            add_sub(n, tiles_mut(dst), tiles(src), [tiles(a)], sub)
        )
    }

    /// `dst = src + a1 + a2 − s1 − s2` (castling).
    #[inline]
    pub fn add2_sub2(self, dst: &mut [i16], src: &[i16], a: [&[i16]; 2], s: [&[i16]; 2]) {
        let n = same_tiles(dst, [src, a[0], a[1], s[0], s[1]]);
        let (add, sub) = (a.map(tiles), s.map(tiles));
        dispatch!(self, add_sub(n, tiles_mut(dst), tiles(src), add, sub))
    }

    /// `Σ screlu(us)·w[..H] + Σ screlu(them)·w[H..]`, before the bias and scaling, with H
    /// the accumulators' length.
    #[inline]
    pub fn output_sum(self, us: &[i16], them: &[i16], weights: &[i16]) -> i32 {
        let (w_us, w_them) = weights.split_at(us.len());
        let n = same_tiles(us, [them, w_us, w_them]);
        dispatch!(
            self,
            output_sum(n, tiles(us), tiles(them), tiles(w_us), tiles(w_them))
        )
    }
}

/// The tiles of `first`, which every one of `others` has too; panics otherwise.
#[inline(always)]
fn same_tiles<const N: usize>(first: &[i16], others: [&[i16]; N]) -> usize {
    let len = first.len();
    assert!(len.is_multiple_of(TILE) && others.iter().all(|o| o.len() == len));
    len / TILE
}

mod scalar {
    use super::{Tile, QA, TILE};

    pub fn sum_rows(dst: &mut [Tile], bias: &[Tile], table: &[Tile], features: &[u16]) {
        let n = dst.len();
        for (t, d) in dst.iter_mut().enumerate() {
            *d = bias[t];
            for &f in features {
                let row = &table[f as usize * n + t];
                for i in 0..TILE {
                    d[i] = d[i].wrapping_add(row[i]);
                }
            }
        }
    }

    #[inline(always)]
    pub fn add_sub<const A: usize, const S: usize>(
        n: usize,
        dst: &mut [Tile],
        src: &[Tile],
        add: [&[Tile]; A],
        sub: [&[Tile]; S],
    ) {
        for t in 0..n {
            for i in 0..TILE {
                let mut x = src[t][i];
                for a in add {
                    x = x.wrapping_add(a[t][i]);
                }
                for s in sub {
                    x = x.wrapping_sub(s[t][i]);
                }
                dst[t][i] = x;
            }
        }
    }

    /// Two passes: the i16 products first, then the widening multiply-add, a reduction the
    /// compiler turns into full-width `pmaddwd` (one fused loop gets half-width code).
    #[inline(always)]
    fn screlu_dot(acc: &Tile, w: &Tile) -> i32 {
        let v: Tile = acc.map(|a| a.clamp(0, QA as i16));
        let vw: Tile = std::array::from_fn(|i| v[i].wrapping_mul(w[i]));
        let mut sum = 0i32;
        for i in 0..TILE {
            sum = sum.wrapping_add(v[i] as i32 * vw[i] as i32);
        }
        sum
    }

    pub fn output_sum(n: usize, us: &[Tile], them: &[Tile], w_us: &[Tile], w_them: &[Tile]) -> i32 {
        let mut sum = 0i32;
        for t in 0..n {
            sum = sum
                .wrapping_add(screlu_dot(&us[t], &w_us[t]))
                .wrapping_add(screlu_dot(&them[t], &w_them[t]));
        }
        sum
    }
}

/// Generates the vector versions for one register width: `$feature` the target features,
/// `$lanes` i16 lanes per register, then the intrinsics by role.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_backend {
    (
        $feature:literal, $lanes:literal, $reg:ty,
        load: $load:ident, store: $store:ident, zero: $zero:ident, splat16: $splat:ident,
        add16: $add16:ident, sub16: $sub16:ident, max16: $max16:ident, min16: $min16:ident,
        mullo16: $mullo:ident, madd16: $madd:ident, add32: $add32:ident, hsum32: $hsum:path
    ) => {
        use super::{Tile, QA, TILE};
        use std::arch::x86_64::*;

        const LANES: usize = $lanes;
        const CHUNKS: usize = TILE / LANES;
        const _: () = assert!(TILE % LANES == 0);

        #[inline]
        #[target_feature(enable = $feature)]
        fn load(row: &Tile, chunk: usize) -> $reg {
            let part: &[i16; LANES] = row[chunk * LANES..][..LANES].try_into().unwrap();
            // SAFETY: `part` is LANES readable i16, one register's width; the load is
            // unaligned, so any address will do.
            unsafe { $load(part.as_ptr().cast()) }
        }

        #[inline]
        #[target_feature(enable = $feature)]
        fn store(row: &mut Tile, chunk: usize, x: $reg) {
            let part: &mut [i16; LANES] = (&mut row[chunk * LANES..][..LANES]).try_into().unwrap();
            // SAFETY: as in `load`, for writing; `part` is borrowed mutably, so no alias.
            unsafe { $store(part.as_mut_ptr().cast(), x) }
        }

        /// Keeps a whole tile of the accumulator half in registers while the rows are added.
        #[target_feature(enable = $feature)]
        pub fn sum_rows(dst: &mut [Tile], bias: &[Tile], table: &[Tile], features: &[u16]) {
            let n = dst.len();
            for (t, d) in dst.iter_mut().enumerate() {
                let mut acc: [$reg; CHUNKS] = [$zero(); CHUNKS];
                for (c, a) in acc.iter_mut().enumerate() {
                    *a = load(&bias[t], c);
                }
                for &f in features {
                    let row = &table[f as usize * n + t];
                    for (c, a) in acc.iter_mut().enumerate() {
                        *a = $add16(*a, load(row, c));
                    }
                }
                for (c, a) in acc.into_iter().enumerate() {
                    store(d, c, a);
                }
            }
        }

        #[target_feature(enable = $feature)]
        pub fn add_sub<const A: usize, const S: usize>(
            n: usize,
            dst: &mut [Tile],
            src: &[Tile],
            add: [&[Tile]; A],
            sub: [&[Tile]; S],
        ) {
            for t in 0..n {
                for c in 0..CHUNKS {
                    let mut x = load(&src[t], c);
                    for a in add {
                        x = $add16(x, load(&a[t], c));
                    }
                    for s in sub {
                        x = $sub16(x, load(&s[t], c));
                    }
                    store(&mut dst[t], c, x);
                }
            }
        }

        #[target_feature(enable = $feature)]
        pub fn output_sum(
            n: usize,
            us: &[Tile],
            them: &[Tile],
            w_us: &[Tile],
            w_them: &[Tile],
        ) -> i32 {
            let zero = $zero();
            let qa = $splat(QA as i16);
            let mut sum = $zero();
            for (acc, w) in [(us, w_us), (them, w_them)] {
                for t in 0..n {
                    for c in 0..CHUNKS {
                        let v = $min16($max16(load(&acc[t], c), zero), qa);
                        // v·w fits an i16 (see the module comment); madd multiplies v by it
                        // and adds neighbouring lanes in i32.
                        let vw = $mullo(v, load(&w[t], c));
                        sum = $add32(sum, $madd(v, vw));
                    }
                }
            }
            $hsum(sum)
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    vector_backend!(
        "avx2", 16, __m256i,
        load: _mm256_loadu_si256, store: _mm256_storeu_si256, zero: _mm256_setzero_si256,
        splat16: _mm256_set1_epi16, add16: _mm256_add_epi16, sub16: _mm256_sub_epi16,
        max16: _mm256_max_epi16, min16: _mm256_min_epi16, mullo16: _mm256_mullo_epi16,
        madd16: _mm256_madd_epi16, add32: _mm256_add_epi32, hsum32: hsum
    );

    #[inline]
    #[target_feature(enable = "avx2")]
    fn hsum(x: __m256i) -> i32 {
        let s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
        _mm_cvtsi128_si32(s)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    vector_backend!(
        "avx512f,avx512bw", 32, __m512i,
        load: _mm512_loadu_si512, store: _mm512_storeu_si512, zero: _mm512_setzero_si512,
        splat16: _mm512_set1_epi16, add16: _mm512_add_epi16, sub16: _mm512_sub_epi16,
        max16: _mm512_max_epi16, min16: _mm512_min_epi16, mullo16: _mm512_mullo_epi16,
        madd16: _mm512_madd_epi16, add32: _mm512_add_epi32, hsum32: _mm512_reduce_add_epi32
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::network::MAX_OUTPUT_WEIGHT;
    use crate::util::Rng;

    /// Values that stress the lanes: zero, ±1, the clamp edges, the i16 limits.
    const EDGES: [i16; 10] = [
        0,
        1,
        -1,
        254,
        255,
        256,
        -255,
        i16::MAX,
        i16::MIN,
        i16::MIN + 1,
    ];

    /// Widths of one, two and three tiles.
    const WIDTHS: [usize; 3] = [TILE, 2 * TILE, 3 * TILE];

    fn row(rng: &mut Rng, width: usize, range: i16) -> Vec<i16> {
        (0..width)
            .map(|_| match rng.below(4) {
                0 => {
                    let low = if range == i16::MAX { i16::MIN } else { -range };
                    EDGES[rng.below(EDGES.len() as u64) as usize].clamp(low, range)
                }
                _ => (rng.below(2 * range as u64 + 1) as i64 - range as i64) as i16,
            })
            .collect()
    }

    fn others() -> Vec<Backend> {
        let all = Backend::available();
        assert_eq!(all[0], Backend::SCALAR);
        all[1..].to_vec()
    }

    #[test]
    fn best_is_available_and_names_differ() {
        let all = Backend::available();
        assert!(all.contains(&Backend::best()));
        assert_eq!(Backend::best(), Backend::avx2().unwrap_or(Backend::SCALAR));
        let names: std::collections::HashSet<_> = all.iter().map(|b| b.name()).collect();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn row_updates_equal_scalar() {
        let mut rng = Rng::new(1);
        for round in 0..300 {
            let width = WIDTHS[round % WIDTHS.len()];
            let r: Vec<Vec<i16>> = (0..5).map(|_| row(&mut rng, width, i16::MAX)).collect();
            let expect = |f: &dyn Fn(Backend, &mut [i16])| {
                let mut want = vec![7; width];
                f(Backend::SCALAR, &mut want);
                for b in others() {
                    let mut got = vec![-7; width];
                    f(b, &mut got);
                    assert_eq!(got, want, "{} width {width}", b.name());
                }
                want
            };
            let one = expect(&|b, d| b.add1_sub1(d, &r[0], &r[1], &r[2]));
            let two = expect(&|b, d| b.add1_sub2(d, &r[0], &r[1], &r[2], &r[3]));
            let four = expect(&|b, d| b.add2_sub2(d, &r[0], [&r[1], &r[4]], [&r[2], &r[3]]));
            // And the scalar code is the wrapping arithmetic it claims to be.
            for i in 0..width {
                let [s, a, x, y, z] = [0, 1, 2, 3, 4].map(|k| r[k][i] as i32);
                assert_eq!(one[i], (s + a - x) as i16);
                assert_eq!(two[i], (s + a - x - y) as i16);
                assert_eq!(four[i], (s + a + z - x - y) as i16);
            }
        }
    }

    #[test]
    fn sum_rows_equals_scalar() {
        let mut rng = Rng::new(2);
        for width in WIDTHS {
            let table: Vec<i16> = (0..64)
                .flat_map(|_| row(&mut rng, width, i16::MAX))
                .collect();
            for n in [0, 1, 2, 17, 32, 40] {
                let bias = row(&mut rng, width, i16::MAX);
                let features: Vec<u16> = (0..n).map(|_| rng.below(64) as u16).collect();
                let mut want = vec![0; width];
                Backend::SCALAR.sum_rows(&mut want, &bias, &table, &features);
                let mut wide: Vec<i32> = bias.iter().map(|&b| b as i32).collect();
                for &f in &features {
                    let r = &table[f as usize * width..][..width];
                    for (w, &t) in wide.iter_mut().zip(r) {
                        *w += t as i32;
                    }
                }
                let wrapped: Vec<i16> = wide.iter().map(|&w| w as i16).collect();
                assert_eq!(want, wrapped);
                for b in others() {
                    let mut got = vec![1; width];
                    b.sum_rows(&mut got, &bias, &table, &features);
                    assert_eq!(got, want, "{} with {n} rows, width {width}", b.name());
                }
            }
        }
    }

    #[test]
    fn output_sum_equals_scalar_even_for_extreme_inputs() {
        let mut rng = Rng::new(3);
        for round in 0..2000 {
            let width = WIDTHS[round % WIDTHS.len()];
            // Accumulators anywhere in i16; weights in the trained range, and for a quarter of
            // the rounds anywhere (where v·w wraps, which every backend must do alike).
            let w_range = if round % 4 == 0 {
                i16::MAX
            } else {
                MAX_OUTPUT_WEIGHT
            };
            let (us, them) = (
                row(&mut rng, width, i16::MAX),
                row(&mut rng, width, i16::MAX),
            );
            let weights = [row(&mut rng, width, w_range), row(&mut rng, width, w_range)].concat();
            let want = Backend::SCALAR.output_sum(&us, &them, &weights);
            for b in others() {
                assert_eq!(b.output_sum(&us, &them, &weights), want, "{}", b.name());
            }
            if w_range == MAX_OUTPUT_WEIGHT {
                // In range, the scalar code is the reference's arithmetic.
                let mut reference = 0i32;
                for (acc, w) in [(&us, &weights[..width]), (&them, &weights[width..])] {
                    for (&a, &w) in acc.iter().zip(w) {
                        let v = (a as i32).clamp(0, QA);
                        reference = reference.wrapping_add(v * (v * w as i32));
                    }
                }
                assert_eq!(want, reference);
            }
        }
        // Every lane at the maximum: the largest sum a clipped 128-wide network can produce.
        let full = [QA as i16; TILE];
        let weights = [MAX_OUTPUT_WEIGHT; 2 * TILE];
        let top = 2 * TILE as i32 * QA * QA * MAX_OUTPUT_WEIGHT as i32;
        for b in Backend::available() {
            assert_eq!(b.output_sum(&full, &full, &weights), top, "{}", b.name());
        }
    }

    #[test]
    #[should_panic]
    fn lengths_that_disagree_panic() {
        let (a, b) = (vec![0; TILE], vec![0; 2 * TILE]);
        let mut d = vec![0; TILE];
        Backend::best().add1_sub1(&mut d, &a, &b, &a);
    }
}
