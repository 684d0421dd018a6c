//! The network's shape, its quantisation and its file layout: the contract between the
//! trainer (`tools/`, which writes the file) and the engine (which reads it).
//!
//! ```text
//! (768 → HIDDEN) × 2 perspectives → SCReLU → 1
//! out = Σ screlu(acc_stm)·w[0..H] + Σ screlu(acc_ntm)·w[H..2H] + b,   screlu(x) = clamp(x, 0, 1)²
//! centipawns = out × SCALE
//! ```
//! Quantised to i16: feature weights and biases × `QA`, output weights × `QB`, output bias
//! × `QA·QB`. In integers, `screlu(a) = clamp(a, 0, QA)²` (a multiple of QA²), the sum is an
//! i32, and `cp = (sum / QA + b) × SCALE / (QA·QB)`. The trainer clips weights to
//! ±`WEIGHT_CLIP` so that `QB·w` fits in 7 bits and `v·w` (v ≤ 255) fits an i16 — the SIMD
//! code relies on it.
//!
//! File (little-endian i16, no header): feature weights `[768][HIDDEN]` (input-major, so an
//! update reads one contiguous row), feature biases `[HIDDEN]`, output weights `[2·HIDDEN]`
//! (side to move's half first), output bias; zero-padded to a multiple of 64 bytes.

use super::features::INPUTS;
use std::fmt;

/// Neurons per perspective.
pub const HIDDEN: usize = 128;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// Centipawns per unit of the float network's output.
pub const SCALE: i32 = 400;
/// The trainer keeps every float weight within ±this.
pub const WEIGHT_CLIP: f32 = 1.98;

/// i16 values in the file before padding.
const VALUES: usize = INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN + 1;
/// Exact size of a network file.
pub const FILE_BYTES: usize = (VALUES * 2).div_ceil(64) * 64;

/// The network built into the binary (`nets/`, see its README for where it came from).
pub const EMBEDDED: &[u8] = include_bytes!("../../../nets/brudno-gen2a.nnue");
const _: () = assert!(
    EMBEDDED.len() == FILE_BYTES,
    "nets/: the embedded network has the wrong size"
);

/// The embedded network, read once.
pub fn embedded() -> std::sync::Arc<Network> {
    static NET: std::sync::LazyLock<std::sync::Arc<Network>> = std::sync::LazyLock::new(|| {
        Network::from_bytes(EMBEDDED)
            .expect("the embedded network is valid (checked by a test)")
            .into()
    });
    std::sync::Arc::clone(&NET)
}

/// The quantised network, aligned for vector loads.
#[repr(C, align(64))]
#[derive(Clone)]
pub struct Network {
    pub feature_weights: [[i16; HIDDEN]; INPUTS],
    pub feature_bias: [i16; HIDDEN],
    pub output_weights: [i16; 2 * HIDDEN],
    pub output_bias: i16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// The file is not `FILE_BYTES` long (another architecture, or cut short).
    WrongSize { expected: usize, found: usize },
    /// A weight is outside what the trainer can produce (a corrupt or foreign file).
    WeightOutOfRange { at: usize, value: i16 },
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::WrongSize { expected, found } => write!(
                f,
                "a network file for this engine is {expected} bytes ((768 -> {HIDDEN})x2 -> 1), this one is {found}"
            ),
            NetworkError::WeightOutOfRange { at, value } => write!(
                f,
                "output weight {at} is {value}, outside the trained range (the file is not a Brudno network)"
            ),
        }
    }
}

impl std::error::Error for NetworkError {}

/// Largest quantised output weight the clip allows.
pub const MAX_OUTPUT_WEIGHT: i16 = (WEIGHT_CLIP * QB as f32) as i16 + 1;

impl Network {
    /// A network of zeros (evaluates everything as 0), on the heap: it is ~200 KB.
    pub fn zeroed() -> Box<Network> {
        // SAFETY: Network is plain i16 arrays, for which all-zero bytes are a valid value;
        // allocating it directly on the heap avoids a large stack temporary.
        unsafe {
            let layout = std::alloc::Layout::new::<Network>();
            let ptr = std::alloc::alloc_zeroed(layout) as *mut Network;
            if ptr.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(ptr)
        }
    }

    /// A network of small random weights in the trained range (as a trainer would produce),
    /// for tests and benchmarks while no trained network is at hand.
    pub fn random(seed: u64) -> Box<Network> {
        let mut rng = crate::util::Rng::new(seed);
        let mut small = |range: i64| (rng.below(2 * range as u64 + 1) as i64 - range) as i16;
        let mut net = Network::zeroed();
        for row in net.feature_weights.iter_mut() {
            row.iter_mut().for_each(|w| *w = small(60));
        }
        net.feature_bias.iter_mut().for_each(|b| *b = small(100));
        net.output_weights.iter_mut().for_each(|w| *w = small(126));
        net.output_bias = small(5000);
        net
    }

    /// Reads a network file (see the module comment), checking its size and its output
    /// weights (whose range the SIMD code depends on).
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Network>, NetworkError> {
        if bytes.len() != FILE_BYTES {
            return Err(NetworkError::WrongSize {
                expected: FILE_BYTES,
                found: bytes.len(),
            });
        }
        let mut values = bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        let mut net = Network::zeroed();
        for row in net.feature_weights.iter_mut() {
            for w in row.iter_mut() {
                *w = values.next().unwrap();
            }
        }
        for b in net.feature_bias.iter_mut() {
            *b = values.next().unwrap();
        }
        for (i, w) in net.output_weights.iter_mut().enumerate() {
            *w = values.next().unwrap();
            if w.abs() > MAX_OUTPUT_WEIGHT {
                return Err(NetworkError::WeightOutOfRange { at: i, value: *w });
            }
        }
        net.output_bias = values.next().unwrap();
        Ok(net)
    }

    /// The file form of the network (what `from_bytes` reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_BYTES);
        let mut push = |v: i16| out.extend_from_slice(&v.to_le_bytes());
        self.feature_weights.iter().flatten().for_each(|&w| push(w));
        self.feature_bias.iter().for_each(|&b| push(b));
        self.output_weights.iter().for_each(|&w| push(w));
        push(self.output_bias);
        out.resize(FILE_BYTES, 0);
        out
    }

    /// The evaluation in centipawns for the side to move from scratch, in plain integer
    /// arithmetic: the reference that the incremental, vectorised code must equal.
    pub fn evaluate_from_scratch(&self, pos: &crate::chess::Position) -> i32 {
        let stm = pos.side_to_move();
        let accumulate = |perspective| {
            let mut acc = self.feature_bias.map(i32::from);
            for f in super::features::active(pos, perspective) {
                for (a, &w) in acc.iter_mut().zip(&self.feature_weights[f]) {
                    *a += w as i32;
                }
            }
            acc.map(|a| a as i16)
        };
        self.output(&accumulate(stm), &accumulate(stm.flip()))
    }

    /// The output layer on two accumulators (side to move first), in centipawns.
    pub fn output(&self, us: &[i16; HIDDEN], them: &[i16; HIDDEN]) -> i32 {
        let mut sum: i32 = 0;
        let (w_us, w_them) = self.output_weights.split_at(HIDDEN);
        for (acc, weights) in [(us, w_us), (them, w_them)] {
            for (&a, &w) in acc.iter().zip(weights) {
                let v = (a as i32).clamp(0, QA);
                // v·w fits an i16 (the clip), v·(v·w) an i32; the sum wraps as the SIMD
                // lanes would (it cannot in practice: see the module comment).
                sum = sum.wrapping_add(v * (v * w as i32));
            }
        }
        self.scale_output(sum)
    }

    /// Centipawns from the output layer's sum (before the bias): the last step, shared with
    /// the incremental evaluation so the two cannot round differently.
    #[inline]
    pub fn scale_output(&self, sum: i32) -> i32 {
        // In i64: a file with saturating biases can make `sum / QA` about 8.3 M, and ×SCALE
        // would overflow an i32.
        let cp = ((sum / QA) as i64 + self.output_bias as i64) * SCALE as i64 / (QA * QB) as i64;
        cp.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_round_trip_and_size_checks() {
        let net = Network::random(3);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), FILE_BYTES);
        assert_eq!(FILE_BYTES % 64, 0);
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        assert!(matches!(
            Network::from_bytes(&bytes[..bytes.len() - 64]),
            Err(NetworkError::WrongSize { .. })
        ));
        let mut bad = bytes.clone();
        let at = (INPUTS * HIDDEN + HIDDEN) * 2;
        bad[at..at + 2].copy_from_slice(&1000i16.to_le_bytes());
        assert_eq!(
            Network::from_bytes(&bad).err(),
            Some(NetworkError::WeightOutOfRange { at: 0, value: 1000 })
        );
    }

    #[test]
    fn a_zero_network_with_a_bias_gives_the_bias() {
        let mut net = Network::zeroed();
        net.output_bias = (QA * QB) as i16 / 4; // 0.25 in float units
        let pos = crate::chess::Position::startpos();
        assert_eq!(net.evaluate_from_scratch(&pos), SCALE / 4);
    }

    #[test]
    fn colour_flipped_positions_give_the_same_side_to_move_score() {
        let net = Network::random(11);
        let a = crate::chess::Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        )
        .unwrap();
        let b = crate::chess::Position::from_fen(
            "rnb1k1nr/pppp1ppp/8/2b1p3/4P2q/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
        )
        .unwrap();
        assert_eq!(net.evaluate_from_scratch(&a), net.evaluate_from_scratch(&b));
        assert_ne!(net.evaluate_from_scratch(&a), 0);
    }
}
