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

use super::network::{HIDDEN, QA};

/// One accumulator half or one weight row.
pub type Row = [i16; HIDDEN];

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

    /// `dst = bias + Σ table[f]` over `features`.
    #[inline]
    pub fn sum_rows(self, dst: &mut Row, bias: &Row, table: &[Row], features: &[u16]) {
        dispatch!(self, sum_rows(dst, bias, table, features))
    }

    /// `dst = src + a − s` (a quiet move or a promotion).
    #[inline]
    pub fn add1_sub1(self, dst: &mut Row, src: &Row, a: &Row, s: &Row) {
        dispatch!(self, add_sub(dst, src, [a], [s]))
    }

    /// `dst = src + a − s1 − s2` (a capture, en passant included).
    #[inline]
    pub fn add1_sub2(self, dst: &mut Row, src: &Row, a: &Row, s1: &Row, s2: &Row) {
        dispatch!(self, add_sub(dst, src, [a], [s1, s2]))
    }

    /// `dst = src + a1 + a2 − s1 − s2` (castling).
    #[inline]
    pub fn add2_sub2(self, dst: &mut Row, src: &Row, a: [&Row; 2], s: [&Row; 2]) {
        dispatch!(self, add_sub(dst, src, a, s))
    }

    /// `Σ screlu(us)·w[..H] + Σ screlu(them)·w[H..]`, before the bias and scaling.
    #[inline]
    pub fn output_sum(self, us: &Row, them: &Row, weights: &[i16; 2 * HIDDEN]) -> i32 {
        let (w_us, w_them) = weights.split_at(HIDDEN);
        let w_us: &Row = w_us.try_into().unwrap();
        let w_them: &Row = w_them.try_into().unwrap();
        dispatch!(self, output_sum(us, them, w_us, w_them))
    }
}

mod scalar {
    use super::{Row, HIDDEN, QA};

    pub fn sum_rows(dst: &mut Row, bias: &Row, table: &[Row], features: &[u16]) {
        *dst = *bias;
        for &f in features {
            let row = &table[f as usize];
            for i in 0..HIDDEN {
                dst[i] = dst[i].wrapping_add(row[i]);
            }
        }
    }

    #[inline(always)]
    pub fn add_sub<const A: usize, const S: usize>(
        dst: &mut Row,
        src: &Row,
        add: [&Row; A],
        sub: [&Row; S],
    ) {
        for i in 0..HIDDEN {
            let mut x = src[i];
            for a in add {
                x = x.wrapping_add(a[i]);
            }
            for s in sub {
                x = x.wrapping_sub(s[i]);
            }
            dst[i] = x;
        }
    }

    /// Two passes: the i16 products first, then the widening multiply-add, a reduction the
    /// compiler turns into full-width `pmaddwd` (one fused loop gets half-width code).
    #[inline(always)]
    fn screlu_dot(acc: &Row, w: &Row) -> i32 {
        let v: Row = acc.map(|a| a.clamp(0, QA as i16));
        let vw: Row = std::array::from_fn(|i| v[i].wrapping_mul(w[i]));
        let mut sum = 0i32;
        for i in 0..HIDDEN {
            sum = sum.wrapping_add(v[i] as i32 * vw[i] as i32);
        }
        sum
    }

    pub fn output_sum(us: &Row, them: &Row, w_us: &Row, w_them: &Row) -> i32 {
        screlu_dot(us, w_us).wrapping_add(screlu_dot(them, w_them))
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
        use super::{Row, HIDDEN, QA};
        use std::arch::x86_64::*;

        const LANES: usize = $lanes;
        const CHUNKS: usize = HIDDEN / LANES;
        const _: () = assert!(HIDDEN % LANES == 0);

        #[inline]
        #[target_feature(enable = $feature)]
        fn load(row: &Row, chunk: usize) -> $reg {
            let part: &[i16; LANES] = row[chunk * LANES..][..LANES].try_into().unwrap();
            // SAFETY: `part` is LANES readable i16, one register's width; the load is
            // unaligned, so any address will do.
            unsafe { $load(part.as_ptr().cast()) }
        }

        #[inline]
        #[target_feature(enable = $feature)]
        fn store(row: &mut Row, chunk: usize, x: $reg) {
            let part: &mut [i16; LANES] = (&mut row[chunk * LANES..][..LANES]).try_into().unwrap();
            // SAFETY: as in `load`, for writing; `part` is borrowed mutably, so no alias.
            unsafe { $store(part.as_mut_ptr().cast(), x) }
        }

        /// Keeps the whole accumulator half in registers while the rows are added.
        #[target_feature(enable = $feature)]
        pub fn sum_rows(dst: &mut Row, bias: &Row, table: &[Row], features: &[u16]) {
            let mut acc: [$reg; CHUNKS] = [$zero(); CHUNKS];
            for (c, a) in acc.iter_mut().enumerate() {
                *a = load(bias, c);
            }
            for &f in features {
                let row = &table[f as usize];
                for (c, a) in acc.iter_mut().enumerate() {
                    *a = $add16(*a, load(row, c));
                }
            }
            for (c, a) in acc.into_iter().enumerate() {
                store(dst, c, a);
            }
        }

        #[target_feature(enable = $feature)]
        pub fn add_sub<const A: usize, const S: usize>(
            dst: &mut Row,
            src: &Row,
            add: [&Row; A],
            sub: [&Row; S],
        ) {
            for c in 0..CHUNKS {
                let mut x = load(src, c);
                for a in add {
                    x = $add16(x, load(a, c));
                }
                for s in sub {
                    x = $sub16(x, load(s, c));
                }
                store(dst, c, x);
            }
        }

        #[target_feature(enable = $feature)]
        pub fn output_sum(us: &Row, them: &Row, w_us: &Row, w_them: &Row) -> i32 {
            let zero = $zero();
            let qa = $splat(QA as i16);
            let mut sum = $zero();
            for (acc, w) in [(us, w_us), (them, w_them)] {
                for c in 0..CHUNKS {
                    let v = $min16($max16(load(acc, c), zero), qa);
                    // v·w fits an i16 (see the module comment); madd multiplies v by it and
                    // adds neighbouring lanes in i32.
                    let vw = $mullo(v, load(w, c));
                    sum = $add32(sum, $madd(v, vw));
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

    fn row(rng: &mut Rng, range: i16) -> Row {
        std::array::from_fn(|_| match rng.below(4) {
            0 => {
                let low = if range == i16::MAX { i16::MIN } else { -range };
                EDGES[rng.below(EDGES.len() as u64) as usize].clamp(low, range)
            }
            _ => (rng.below(2 * range as u64 + 1) as i64 - range as i64) as i16,
        })
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
        for _ in 0..300 {
            let r: Vec<Row> = (0..5).map(|_| row(&mut rng, i16::MAX)).collect();
            let expect = |f: &dyn Fn(Backend, &mut Row)| {
                let mut want = [7; HIDDEN];
                f(Backend::SCALAR, &mut want);
                for b in others() {
                    let mut got = [-7; HIDDEN];
                    f(b, &mut got);
                    assert_eq!(got, want, "{}", b.name());
                }
                want
            };
            let one = expect(&|b, d| b.add1_sub1(d, &r[0], &r[1], &r[2]));
            let two = expect(&|b, d| b.add1_sub2(d, &r[0], &r[1], &r[2], &r[3]));
            let four = expect(&|b, d| b.add2_sub2(d, &r[0], [&r[1], &r[4]], [&r[2], &r[3]]));
            // And the scalar code is the wrapping arithmetic it claims to be.
            for i in 0..HIDDEN {
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
        let table: Vec<Row> = (0..64).map(|_| row(&mut rng, i16::MAX)).collect();
        for n in [0, 1, 2, 17, 32, 40] {
            let bias = row(&mut rng, i16::MAX);
            let features: Vec<u16> = (0..n).map(|_| rng.below(64) as u16).collect();
            let mut want = [0; HIDDEN];
            Backend::SCALAR.sum_rows(&mut want, &bias, &table, &features);
            let mut wide: [i32; HIDDEN] = bias.map(i32::from);
            for &f in &features {
                for (w, &t) in wide.iter_mut().zip(&table[f as usize]) {
                    *w += t as i32;
                }
            }
            assert_eq!(want, wide.map(|w| w as i16));
            for b in others() {
                let mut got = [1; HIDDEN];
                b.sum_rows(&mut got, &bias, &table, &features);
                assert_eq!(got, want, "{} with {n} rows", b.name());
            }
        }
    }

    #[test]
    fn output_sum_equals_scalar_even_for_extreme_inputs() {
        let mut rng = Rng::new(3);
        for round in 0..2000 {
            // Accumulators anywhere in i16; weights in the trained range, and for a quarter of
            // the rounds anywhere (where v·w wraps, which every backend must do alike).
            let w_range = if round % 4 == 0 {
                i16::MAX
            } else {
                MAX_OUTPUT_WEIGHT
            };
            let (us, them) = (row(&mut rng, i16::MAX), row(&mut rng, i16::MAX));
            let mut weights = [0; 2 * HIDDEN];
            weights[..HIDDEN].copy_from_slice(&row(&mut rng, w_range));
            weights[HIDDEN..].copy_from_slice(&row(&mut rng, w_range));
            let want = Backend::SCALAR.output_sum(&us, &them, &weights);
            for b in others() {
                assert_eq!(b.output_sum(&us, &them, &weights), want, "{}", b.name());
            }
            if w_range == MAX_OUTPUT_WEIGHT {
                // In range, the scalar code is the reference's arithmetic.
                let mut reference = 0i32;
                for (acc, w) in [(&us, &weights[..HIDDEN]), (&them, &weights[HIDDEN..])] {
                    for (&a, &w) in acc.iter().zip(w) {
                        let v = (a as i32).clamp(0, QA);
                        reference = reference.wrapping_add(v * (v * w as i32));
                    }
                }
                assert_eq!(want, reference);
            }
        }
        // Every lane at the maximum: the largest sum the clipped network can produce.
        let full = [QA as i16; HIDDEN];
        let weights = [MAX_OUTPUT_WEIGHT; 2 * HIDDEN];
        let top = 2 * HIDDEN as i32 * QA * QA * MAX_OUTPUT_WEIGHT as i32;
        for b in Backend::available() {
            assert_eq!(b.output_sum(&full, &full, &weights), top, "{}", b.name());
        }
    }
}
