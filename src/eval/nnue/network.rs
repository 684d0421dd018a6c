//! The network's shape, its quantisation and its file format: the contract between the
//! trainer (`tools/`, which writes the file) and the engine (which reads it).
//!
//! ```text
//! (768 → H) × 2 perspectives → SCReLU → N output buckets (one used per position)
//! out_b = Σ screlu(acc_stm)·w_b[0..H] + Σ screlu(acc_ntm)·w_b[H..2H] + bias_b,   screlu(x) = clamp(x, 0, 1)²
//! centipawns = out_b × SCALE,   b = (pieces on the board, kings included, − 2) / 4 when N = 8, else 0
//! ```
//! Quantised to i16: feature weights and biases × `QA`, output weights × `QB`, output biases
//! × `QA·QB`. In integers, `screlu(a) = clamp(a, 0, QA)²` (a multiple of QA²), the sum is an
//! i32, and `cp = (sum / QA + bias_b) × SCALE / (QA·QB)`. The trainer clips weights to
//! ±`WEIGHT_CLIP` so that `QB·w` fits in 7 bits and `v·w` (v ≤ 255) fits an i16 — the SIMD
//! code relies on it, and the reader refuses output weights outside that range.
//!
//! With horizontal mirroring, each perspective whose own king stands on files e–h sees every
//! square mirrored a ↔ h (`features::index_mirrored`), so its accumulator is rebuilt when
//! that king crosses between files d and e.
//!
//! # File format, version 1 (all integers little-endian)
//!
//! A 64-byte header: magic `BRUDNONN`; u32 version (1); u32 inputs (768); u32 width H (a
//! multiple of 128 up to 1024 here); u32 output buckets N (1 or 8); u32 flags (bit 0:
//! horizontal mirroring; other bits 0); u32 activation (1 = SCReLU); i32 QA, QB, SCALE (255,
//! 64, 400: the reader refuses others); u32 payload bytes; u32 FNV-1a 32-bit checksum of the
//! payload; 12 zero bytes. Then the payload, i16 values: feature weights `[768][H]`
//! (input-major, so an update reads one contiguous row), feature biases `[H]`, output weights
//! `[N][2H]` (per bucket the side to move's half first), output biases `[N]`; zero-padded to
//! a multiple of 64 bytes (the padding is part of the payload's length and checksum).
//!
//! A legacy file has no header: exactly `LEGACY_FILE_BYTES` of the payload of shape
//! `Shape::LEGACY` (128 wide, one bucket, no mirroring), as the embedded network is.

use super::features::{self, INPUTS};
use crate::chess::{Color, Position};
use std::fmt;
use std::ops::{Deref, DerefMut};

pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// Centipawns per unit of the float network's output.
pub const SCALE: i32 = 400;
/// The trainer keeps every float weight within ±this.
pub const WEIGHT_CLIP: f32 = 1.98;
/// Largest quantised output weight the clip allows.
pub const MAX_OUTPUT_WEIGHT: i16 = (WEIGHT_CLIP * QB as f32) as i16 + 1;

/// The width of a legacy (headerless) network, and the trainer's default.
pub const HIDDEN: usize = 128;
/// Widths are whole multiples of this: the SIMD code works in tiles of this many lanes.
pub const WIDTH_STEP: usize = super::simd::TILE;
/// The widest network the engine runs (the accumulator stack is sized for it).
pub const MAX_WIDTH: usize = 1024;
/// Output buckets of a bucketed network.
pub const BUCKETS: usize = 8;

pub const MAGIC: [u8; 8] = *b"BRUDNONN";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 64;
/// Flag bit 0: horizontal mirroring.
pub const FLAG_MIRRORED: u32 = 1;
/// The activation field's one value.
pub const ACTIVATION_SCRELU: u32 = 1;

/// Exact size of a legacy headerless network file.
pub const LEGACY_FILE_BYTES: usize = Shape::LEGACY.payload_bytes();
/// The largest network file the engine reads (a reader can bound its read by it).
pub const MAX_FILE_BYTES: usize = Shape {
    width: MAX_WIDTH,
    buckets: BUCKETS,
    mirrored: true,
}
.file_bytes();

/// The network built into the binary (`nets/`, see its README for where it came from).
pub const EMBEDDED: &[u8] = include_bytes!("../../../nets/brudno-gen3a.nnue");
const _: () = assert!(
    EMBEDDED.len() <= MAX_FILE_BYTES,
    "nets/: the embedded network is larger than any the engine reads"
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

/// What a network looks like: its width H, its output buckets N and its mirroring.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shape {
    pub width: usize,
    pub buckets: usize,
    pub mirrored: bool,
}

impl Shape {
    /// The shape of a headerless file.
    pub const LEGACY: Shape = Shape {
        width: HIDDEN,
        buckets: 1,
        mirrored: false,
    };

    /// Whether the engine runs this shape.
    pub fn check(self) -> Result<Shape, NetworkError> {
        if self.width == 0 || !self.width.is_multiple_of(WIDTH_STEP) || self.width > MAX_WIDTH {
            return Err(NetworkError::Unsupported {
                field: "width",
                value: self.width as i64,
            });
        }
        if self.buckets != 1 && self.buckets != BUCKETS {
            return Err(NetworkError::Unsupported {
                field: "output buckets",
                value: self.buckets as i64,
            });
        }
        Ok(self)
    }

    /// i16 values of the payload, before padding.
    pub const fn payload_values(self) -> usize {
        let h = self.width;
        INPUTS * h + h + self.buckets * 2 * h + self.buckets
    }

    /// Bytes of the payload, padding included.
    pub const fn payload_bytes(self) -> usize {
        (self.payload_values() * 2).div_ceil(64) * 64
    }

    /// Bytes of a version-1 file.
    pub const fn file_bytes(self) -> usize {
        HEADER_BYTES + self.payload_bytes()
    }

    /// The output bucket of a position with `pieces` pieces on the board, kings included.
    #[inline(always)]
    pub fn bucket(self, pieces: usize) -> usize {
        if self.buckets == 1 {
            0
        } else {
            // A FEN may put more than 32 pieces on the board: they share the last bucket.
            (pieces.saturating_sub(2) / 4).min(BUCKETS - 1)
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mirror = if self.mirrored { ", mirrored" } else { "" };
        write!(
            f,
            "(768 -> {})x2 -> {} bucket{}{mirror}",
            self.width,
            self.buckets,
            if self.buckets == 1 { "" } else { "s" }
        )
    }
}

/// i16 values on the heap, the first at a 64-byte boundary, so that no vector load of a row
/// straddles two cache lines. Derefs to the values.
pub struct Aligned {
    buf: Vec<i16>,
    start: usize,
    len: usize,
}

impl Aligned {
    /// Bytes one buffer of `len` values takes.
    pub const fn heap_bytes(len: usize) -> usize {
        (len + 32) * 2
    }

    pub fn zeroed(len: usize) -> Aligned {
        // 32 spare values leave room to reach the boundary (a heap block is 2-aligned).
        let buf = vec![0i16; len + 32];
        let start = buf.as_ptr().align_offset(64).min(32);
        Aligned { buf, start, len }
    }
}

impl Deref for Aligned {
    type Target = [i16];
    #[inline(always)]
    fn deref(&self) -> &[i16] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl DerefMut for Aligned {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [i16] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

impl Clone for Aligned {
    /// A fresh buffer: a cloned `Vec` could start at another offset from the boundary.
    fn clone(&self) -> Aligned {
        let mut copy = Aligned::zeroed(self.len);
        copy.copy_from_slice(self);
        copy
    }
}

/// The quantised network. The value arrays are flat (lengths fixed by the shape).
#[derive(Clone)]
pub struct Network {
    shape: Shape,
    /// `[INPUTS][width]`.
    pub feature_weights: Aligned,
    /// `[width]`.
    pub feature_bias: Aligned,
    /// `[buckets][2 × width]`, side to move's half first.
    pub output_weights: Aligned,
    /// `[buckets]`.
    pub output_bias: Vec<i16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// Neither the version-1 magic nor the legacy headerless size.
    NotANetwork {
        found: usize,
    },
    /// The file ends before its header or its payload does.
    Truncated {
        expected: usize,
        found: usize,
    },
    /// The file goes on after its payload.
    TrailingBytes {
        expected: usize,
        found: usize,
    },
    UnsupportedVersion(u32),
    /// A header field the engine cannot run (shape, activation, quantisation, flags).
    Unsupported {
        field: &'static str,
        value: i64,
    },
    /// The header's payload length disagrees with its shape.
    PayloadLength {
        header: u32,
        shape: usize,
    },
    /// The payload is damaged.
    Checksum {
        header: u32,
        payload: u32,
    },
    /// A weight is outside what the trainer can produce (a corrupt or foreign file).
    WeightOutOfRange {
        at: usize,
        value: i16,
    },
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use NetworkError::*;
        match self {
            NotANetwork { found } => write!(
                f,
                "not a network file: no BRUDNONN header, and {found} bytes is not the size of \
                 a headerless one ({LEGACY_FILE_BYTES})"
            ),
            Truncated { expected, found } => write!(
                f,
                "the file is cut short: {found} bytes where its header says {expected}"
            ),
            TrailingBytes { expected, found } => write!(
                f,
                "{found} bytes where the header says {expected}: something follows the network"
            ),
            UnsupportedVersion(v) => write!(
                f,
                "format version {v}; this engine reads version {VERSION}"
            ),
            Unsupported { field, value } => write!(
                f,
                "unsupported {field} {value} (this engine runs 768 inputs, widths that are \
                 multiples of {WIDTH_STEP} up to {MAX_WIDTH}, 1 or {BUCKETS} output buckets, \
                 flags 0 or 1, SCReLU, QA {QA}, QB {QB}, SCALE {SCALE})"
            ),
            PayloadLength { header, shape } => write!(
                f,
                "the header gives a payload of {header} bytes, its shape needs {shape}"
            ),
            Checksum { header, payload } => write!(
                f,
                "checksum mismatch (header {header:08x}, payload {payload:08x}): the file is damaged"
            ),
            WeightOutOfRange { at, value } => write!(
                f,
                "output weight {at} is {value}, outside the trained range (the file is not a Brudno network)"
            ),
        }
    }
}

impl std::error::Error for NetworkError {}

/// FNV-1a, 32 bits: the payload's checksum.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// The header field at `at` (a u32, or an i32 read through `as`).
fn field(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

impl Network {
    /// A network of zeros (evaluates everything as 0) of the legacy shape.
    pub fn zeroed() -> Box<Network> {
        Network::zeroed_shape(Shape::LEGACY)
    }

    /// A network of zeros of `shape`. Panics if the engine cannot run the shape.
    pub fn zeroed_shape(shape: Shape) -> Box<Network> {
        let shape = shape.check().expect("a shape the engine runs");
        let h = shape.width;
        Box::new(Network {
            shape,
            feature_weights: Aligned::zeroed(INPUTS * h),
            feature_bias: Aligned::zeroed(h),
            output_weights: Aligned::zeroed(shape.buckets * 2 * h),
            output_bias: vec![0; shape.buckets],
        })
    }

    /// A network of small random weights in the trained range (as a trainer would produce),
    /// of the legacy shape, for tests and benchmarks.
    pub fn random(seed: u64) -> Box<Network> {
        Network::random_shape(Shape::LEGACY, seed)
    }

    /// As `random`, of `shape`.
    pub fn random_shape(shape: Shape, seed: u64) -> Box<Network> {
        let mut rng = crate::util::Rng::new(seed);
        let mut small = |range: i64| (rng.below(2 * range as u64 + 1) as i64 - range) as i16;
        let mut net = Network::zeroed_shape(shape);
        net.feature_weights.iter_mut().for_each(|w| *w = small(60));
        net.feature_bias.iter_mut().for_each(|b| *b = small(100));
        net.output_weights.iter_mut().for_each(|w| *w = small(126));
        net.output_bias.iter_mut().for_each(|b| *b = small(5000));
        net
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    #[inline(always)]
    pub fn width(&self) -> usize {
        self.shape.width
    }

    /// The weight row of input `f`.
    #[inline(always)]
    pub fn row(&self, f: usize) -> &[i16] {
        let h = self.shape.width;
        &self.feature_weights[f * h..][..h]
    }

    /// The output weights of `bucket` (side to move's half first).
    #[inline(always)]
    pub fn bucket_weights(&self, bucket: usize) -> &[i16] {
        let h2 = 2 * self.shape.width;
        &self.output_weights[bucket * h2..][..h2]
    }

    /// Reads a network file: version 1 (see the module comment), or a legacy headerless
    /// file. Checks the header, the payload's length and checksum, and the output weights
    /// (whose range the SIMD code depends on).
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Network>, NetworkError> {
        if !bytes.starts_with(&MAGIC) {
            if bytes.len() == LEGACY_FILE_BYTES {
                return Network::from_payload(Shape::LEGACY, bytes);
            }
            if MAGIC.starts_with(bytes) && !bytes.is_empty() {
                return Err(NetworkError::Truncated {
                    expected: HEADER_BYTES,
                    found: bytes.len(),
                });
            }
            return Err(NetworkError::NotANetwork { found: bytes.len() });
        }
        if bytes.len() < HEADER_BYTES {
            return Err(NetworkError::Truncated {
                expected: HEADER_BYTES,
                found: bytes.len(),
            });
        }
        let version = field(bytes, 8);
        if version != VERSION {
            return Err(NetworkError::UnsupportedVersion(version));
        }
        let expect = |name: &'static str, at: usize, want: u32| match field(bytes, at) {
            v if v == want => Ok(()),
            v => Err(NetworkError::Unsupported {
                field: name,
                value: if name.starts_with('Q') || name == "SCALE" {
                    v as i32 as i64
                } else {
                    v as i64
                },
            }),
        };
        expect("inputs", 12, INPUTS as u32)?;
        let flags = field(bytes, 24);
        if flags & !FLAG_MIRRORED != 0 {
            return Err(NetworkError::Unsupported {
                field: "flags",
                value: flags as i64,
            });
        }
        expect("activation", 28, ACTIVATION_SCRELU)?;
        expect("QA", 32, QA as u32)?;
        expect("QB", 36, QB as u32)?;
        expect("SCALE", 40, SCALE as u32)?;
        if bytes[52..64].iter().any(|&b| b != 0) {
            return Err(NetworkError::Unsupported {
                field: "reserved header bytes (not zero)",
                value: 0,
            });
        }
        let shape = Shape {
            width: field(bytes, 16) as usize,
            buckets: field(bytes, 20) as usize,
            mirrored: flags & FLAG_MIRRORED != 0,
        }
        .check()?;
        let payload_len = field(bytes, 44);
        if payload_len as usize != shape.payload_bytes() {
            return Err(NetworkError::PayloadLength {
                header: payload_len,
                shape: shape.payload_bytes(),
            });
        }
        let expected = shape.file_bytes();
        if bytes.len() < expected {
            return Err(NetworkError::Truncated {
                expected,
                found: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(NetworkError::TrailingBytes {
                expected,
                found: bytes.len(),
            });
        }
        let payload = &bytes[HEADER_BYTES..];
        let (header, sum) = (field(bytes, 48), fnv1a32(payload));
        if header != sum {
            return Err(NetworkError::Checksum {
                header,
                payload: sum,
            });
        }
        Network::from_payload(shape, payload)
    }

    /// The network from its payload (at least `shape.payload_values()` i16), checking the
    /// output weights' range.
    fn from_payload(shape: Shape, payload: &[u8]) -> Result<Box<Network>, NetworkError> {
        let mut values = payload
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        let mut net = Network::zeroed_shape(shape);
        let mut fill = |to: &mut [i16]| to.iter_mut().for_each(|v| *v = values.next().unwrap());
        fill(&mut net.feature_weights);
        fill(&mut net.feature_bias);
        fill(&mut net.output_weights);
        fill(&mut net.output_bias);
        if let Some((at, &value)) = net
            .output_weights
            .iter()
            .enumerate()
            .find(|(_, w)| w.abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(NetworkError::WeightOutOfRange { at, value });
        }
        Ok(net)
    }

    /// The version-1 file of the network (what `from_bytes` reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = self.shape;
        let mut payload = Vec::with_capacity(shape.payload_bytes());
        let values = [
            &self.feature_weights[..],
            &self.feature_bias[..],
            &self.output_weights[..],
            &self.output_bias[..],
        ];
        for v in values.into_iter().flatten() {
            payload.extend_from_slice(&v.to_le_bytes());
        }
        payload.resize(shape.payload_bytes(), 0);
        let mut out = Vec::with_capacity(shape.file_bytes());
        out.extend_from_slice(&MAGIC);
        let flags = if shape.mirrored { FLAG_MIRRORED } else { 0 };
        for v in [
            VERSION,
            INPUTS as u32,
            shape.width as u32,
            shape.buckets as u32,
            flags,
            ACTIVATION_SCRELU,
            QA as u32,
            QB as u32,
            SCALE as u32,
            payload.len() as u32,
            fnv1a32(&payload),
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.resize(HEADER_BYTES, 0);
        out.extend_from_slice(&payload);
        out
    }

    /// `perspective`'s accumulator of `pos` from scratch, in plain integer arithmetic (i32
    /// sums, wrapped to i16 as the vector lanes wrap): the reference for the incremental code.
    pub fn accumulate_from_scratch(&self, pos: &Position, perspective: Color) -> Vec<i16> {
        let mut acc: Vec<i32> = self.feature_bias.iter().map(|&b| b as i32).collect();
        for f in features::active_mirrored(pos, perspective, self.shape.mirrored) {
            for (a, &w) in acc.iter_mut().zip(self.row(f)) {
                *a += w as i32;
            }
        }
        acc.into_iter().map(|a| a as i16).collect()
    }

    /// The output bucket of `pos`.
    pub fn bucket_of(&self, pos: &Position) -> usize {
        self.shape.bucket(pos.occupied().count() as usize)
    }

    /// The evaluation in centipawns for the side to move from scratch, in plain integer
    /// arithmetic: the reference that the incremental, vectorised code must equal.
    pub fn evaluate_from_scratch(&self, pos: &Position) -> i32 {
        let stm = pos.side_to_move();
        self.output(
            &self.accumulate_from_scratch(pos, stm),
            &self.accumulate_from_scratch(pos, stm.flip()),
            self.bucket_of(pos),
        )
    }

    /// The output layer of `bucket` on two accumulators (side to move first), in centipawns.
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let mut sum: i32 = 0;
        let (w_us, w_them) = self.bucket_weights(bucket).split_at(self.width());
        for (acc, weights) in [(us, w_us), (them, w_them)] {
            assert_eq!(acc.len(), weights.len());
            for (&a, &w) in acc.iter().zip(weights) {
                let v = (a as i32).clamp(0, QA);
                // v·w fits an i16 (the clip), v·(v·w) an i32; the sum wraps as the SIMD
                // lanes would (it cannot in practice: see the module comment).
                sum = sum.wrapping_add(v * (v * w as i32));
            }
        }
        self.scale_output(sum, bucket)
    }

    /// Centipawns from the output layer's sum (before the bias) in `bucket`: the last step,
    /// shared with the incremental evaluation so the two cannot round differently.
    #[inline]
    pub fn scale_output(&self, sum: i32, bucket: usize) -> i32 {
        // In i64: a file with saturating biases can make `sum / QA` about 8.3 M, and ×SCALE
        // would overflow an i32.
        let bias = self.output_bias[bucket] as i64;
        let cp = ((sum / QA) as i64 + bias) * SCALE as i64 / (QA * QB) as i64;
        cp.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
