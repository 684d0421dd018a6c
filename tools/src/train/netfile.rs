//! The network file, format version 1 (the contract between the trainer and the engine):
//! a 64-byte header, then i16 weights, then zero padding to a multiple of 64 bytes.
//!
//! ```text
//! header:  "BRUDNONN" | version u32 = 1 | inputs u32 = 768 | width H u32 | buckets N u32
//!          | flags u32 (bit 0: horizontal mirroring) | activation u32 (1: SCReLU)
//!          | QA i32 | QB i32 | SCALE i32 | payload bytes u32 | FNV-1a 32 of the payload
//!          | 12 zero bytes
//! payload: feature weights [768][H] | feature biases [H] | output weights [N][2H] (side to
//!          move's half first) | output biases [N] | zeros to a multiple of 64 bytes
//! ```
//! Little-endian. `evaluate` is the engine's integer formula on such a file, written here from
//! the format's definition (i16 accumulators, an i32 sum wrapping as SIMD lanes would,
//! `cp = (sum / QA + b) × SCALE / (QA·QB)`), so the trainer can check its exports without
//! an engine that reads them.

use super::packed::{board_features, bucket};
use anyhow::{bail, ensure, Result};
use brudno::chess::Position;
use brudno::eval::nnue::features::INPUTS;
use brudno::eval::nnue::network::{QA, QB, SCALE};

pub const MAGIC: &[u8; 8] = b"BRUDNONN";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 64;
pub const FLAG_MIRROR: u32 = 1;
pub const ACTIVATION_SCRELU: u32 = 1;

/// FNV-1a, 32 bits.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// A quantised network as the file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetFile {
    pub hidden: usize,
    pub buckets: usize,
    pub mirror: bool,
    /// `[768][H]`, input-major.
    pub ft_w: Vec<i16>,
    pub ft_b: Vec<i16>,
    /// `[N][2H]`.
    pub out_w: Vec<i16>,
    pub out_b: Vec<i16>,
}

/// Whether the format allows this width and this number of buckets.
pub fn check_shape(hidden: usize, buckets: usize) -> Result<()> {
    ensure!(
        hidden.is_multiple_of(32) && (32..=1024).contains(&hidden),
        "width {hidden}: the network format takes a multiple of 32 up to 1024"
    );
    ensure!(
        buckets == 1 || buckets == 8,
        "{buckets} output buckets: the network format takes 1 or 8"
    );
    Ok(())
}

impl NetFile {
    pub fn zeroed(hidden: usize, buckets: usize, mirror: bool) -> NetFile {
        NetFile {
            hidden,
            buckets,
            mirror,
            ft_w: vec![0; INPUTS * hidden],
            ft_b: vec![0; hidden],
            out_w: vec![0; 2 * hidden * buckets],
            out_b: vec![0; buckets],
        }
    }

    fn values(&self) -> usize {
        self.ft_w.len() + self.ft_b.len() + self.out_w.len() + self.out_b.len()
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let payload_len = (self.values() * 2).div_ceil(64) * 64;
        let mut payload = Vec::with_capacity(payload_len);
        for v in [&self.ft_w, &self.ft_b, &self.out_w, &self.out_b] {
            v.iter()
                .for_each(|x| payload.extend_from_slice(&x.to_le_bytes()));
        }
        payload.resize(payload_len, 0);
        let mut out = Vec::with_capacity(HEADER_BYTES + payload_len);
        out.extend_from_slice(MAGIC);
        let flags = if self.mirror { FLAG_MIRROR } else { 0 };
        for v in [
            VERSION,
            INPUTS as u32,
            self.hidden as u32,
            self.buckets as u32,
            flags,
            ACTIVATION_SCRELU,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [QA, QB, SCALE] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(payload_len as u32).to_le_bytes());
        out.extend_from_slice(&fnv1a32(&payload).to_le_bytes());
        out.resize(HEADER_BYTES, 0);
        out.extend_from_slice(&payload);
        out
    }

    /// The headerless file of engines before format version 1 (width 128, one bucket, no
    /// mirroring): exactly the version-1 payload, whose layout it shares.
    pub fn legacy_bytes(&self) -> Result<Vec<u8>> {
        ensure!(
            self.hidden == 128 && self.buckets == 1 && !self.mirror,
            "only a 128-neuron network with one bucket and no mirroring has a legacy file"
        );
        Ok(self.to_bytes()[HEADER_BYTES..].to_vec())
    }

    /// Reads a version-1 file, refusing anything the format does not allow.
    pub fn from_bytes(bytes: &[u8]) -> Result<NetFile> {
        ensure!(
            bytes.len() >= HEADER_BYTES && &bytes[..8] == MAGIC,
            "not a Brudno network file (no header)"
        );
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let i32_at = |at: usize| u32_at(at) as i32;
        ensure!(u32_at(8) == VERSION, "network format version {}", u32_at(8));
        ensure!(u32_at(12) == INPUTS as u32, "{} inputs", u32_at(12));
        let (hidden, buckets) = (u32_at(16) as usize, u32_at(20) as usize);
        check_shape(hidden, buckets)?;
        let flags = u32_at(24);
        ensure!(flags & !FLAG_MIRROR == 0, "unknown flags {flags:#x}");
        ensure!(u32_at(28) == ACTIVATION_SCRELU, "activation {}", u32_at(28));
        ensure!(
            (i32_at(32), i32_at(36), i32_at(40)) == (QA, QB, SCALE),
            "quantisation QA {} QB {} SCALE {}",
            i32_at(32),
            i32_at(36),
            i32_at(40)
        );
        ensure!(bytes[52..64].iter().all(|&b| b == 0), "reserved bytes set");
        let payload = &bytes[HEADER_BYTES..];
        let mut net = NetFile::zeroed(hidden, buckets, flags & FLAG_MIRROR != 0);
        let expected = (net.values() * 2).div_ceil(64) * 64;
        ensure!(
            u32_at(44) as usize == expected && payload.len() == expected,
            "payload of {} bytes (header says {}), a {hidden}x{buckets} network has {expected}",
            payload.len(),
            u32_at(44)
        );
        if fnv1a32(payload) != u32_at(48) {
            bail!("network checksum mismatch (a corrupt file)");
        }
        let mut values = payload
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        for v in [&mut net.ft_w, &mut net.ft_b, &mut net.out_w, &mut net.out_b] {
            v.iter_mut()
                .for_each(|x| *x = values.next().expect("length checked"));
        }
        ensure!(values.all(|x| x == 0), "padding is not zero");
        Ok(net)
    }

    /// The engine's integer evaluation of `pos`, centipawns for the side to move.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let h = self.hidden;
        let stm = pos.side_to_move();
        let accumulate = |perspective| -> Vec<i16> {
            let mut acc: Vec<i32> = self.ft_b.iter().map(|&b| b as i32).collect();
            for f in board_features(pos, perspective, self.mirror) {
                let row = &self.ft_w[f as usize * h..][..h];
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a += w as i32;
                }
            }
            acc.iter().map(|&a| a as i16).collect()
        };
        let b = bucket(pos.occupied().0.count_ones(), self.buckets);
        let w = &self.out_w[2 * h * b..][..2 * h];
        let mut sum: i32 = 0;
        for (acc, w) in [
            (accumulate(stm), &w[..h]),
            (accumulate(stm.flip()), &w[h..]),
        ] {
            for (&a, &w) in acc.iter().zip(w) {
                let v = (a as i32).clamp(0, QA);
                sum = sum.wrapping_add(v * (v * w as i32));
            }
        }
        let cp = ((sum / QA) as i64 + self.out_b[b] as i64) * SCALE as i64 / (QA * QB) as i64;
        cp.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_net() -> NetFile {
        let mut n = NetFile::zeroed(64, 8, true);
        n.ft_w[5] = -7;
        n.ft_b[63] = 300;
        n.out_w[2 * 64 * 7 + 1] = 127;
        n.out_b[3] = -1000;
        n
    }

    #[test]
    fn the_header_holds_the_fields_and_the_checksum_of_the_payload() {
        let bytes = sample_net().to_bytes();
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(&bytes[..8], b"BRUDNONN");
        assert_eq!(
            [u32_at(8), u32_at(12), u32_at(16), u32_at(20)],
            [1, 768, 64, 8]
        );
        assert_eq!([u32_at(24), u32_at(28)], [1, 1]);
        assert_eq!([u32_at(32), u32_at(36), u32_at(40)], [255, 64, 400]);
        let values = 768 * 64 + 64 + 8 * 128 + 8;
        let payload = (values * 2usize).div_ceil(64) * 64;
        assert_eq!(u32_at(44) as usize, payload);
        assert_eq!(bytes.len(), 64 + payload);
        assert_eq!(u32_at(48), fnv1a32(&bytes[64..]));
        assert!(bytes[52..64].iter().all(|&b| b == 0));
        // FNV-1a 32's published check values.
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn a_file_reads_back_and_damage_is_refused() {
        let net = sample_net();
        let bytes = net.to_bytes();
        assert_eq!(NetFile::from_bytes(&bytes).unwrap(), net);
        let mut bad = bytes.clone();
        bad[200] ^= 1;
        let e = NetFile::from_bytes(&bad).unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
        let mut bad = bytes.clone();
        bad[24] = 2; // an unknown flag
        assert!(NetFile::from_bytes(&bad).is_err());
        assert!(NetFile::from_bytes(&bytes[..bytes.len() - 64]).is_err());
    }
}
