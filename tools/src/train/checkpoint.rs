//! The training checkpoint: everything a stopped run needs to continue exactly as if it had
//! not stopped — the run's identity (settings and pinned data), where it is (epoch, batch),
//! the float weights, the optimiser's moments and the epoch's loss so far.
//!
//! There is no random-generator state to store: the shuffle of each epoch is derived from
//! (seed, epoch) and the initial weights from the seed, both in the identity.
//!
//! ```text
//! "BRUDNOCK" | version u32 | identity: len u32, UTF-8 | hidden u32 | buckets u32
//! | mirror u32 | epoch u32 | batch u32 | adam steps u64 | loss sum f64 | loss batches u64
//! | n u64 | params [n] f32 | m [n] f32 | v [n] f32 | FNV-1a 64 of all the bytes before
//! ```
//! Version 1 had no buckets and no mirror fields (one bucket, no mirroring): still read.
//! Little-endian. Written to a temporary file and renamed, so a kill leaves the previous
//! checkpoint or the new one, never a mix.

use super::adamw::AdamW;
use super::model::Model;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::Path;

const MAGIC: &[u8; 8] = b"BRUDNOCK";
const VERSION: u32 = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The run's settings and data, as `train::identity` writes them.
    pub identity: String,
    pub model: Model,
    pub adam: AdamW,
    /// Epochs completed.
    pub epoch: u32,
    /// Batches completed in the current epoch.
    pub batch: u32,
    /// The current epoch's training loss so far: Σ batch mean loss, batches.
    pub loss_sum: f64,
    pub loss_batches: u64,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut f =
        std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
}

impl Checkpoint {
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.model.params.len();
        let mut out = Vec::with_capacity(64 + self.identity.len() + 12 * n);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.identity.len() as u32).to_le_bytes());
        out.extend_from_slice(self.identity.as_bytes());
        out.extend_from_slice(&(self.model.hidden as u32).to_le_bytes());
        out.extend_from_slice(&(self.model.buckets as u32).to_le_bytes());
        out.extend_from_slice(&(self.model.mirror as u32).to_le_bytes());
        out.extend_from_slice(&self.epoch.to_le_bytes());
        out.extend_from_slice(&self.batch.to_le_bytes());
        out.extend_from_slice(&self.adam.t.to_le_bytes());
        out.extend_from_slice(&self.loss_sum.to_le_bytes());
        out.extend_from_slice(&self.loss_batches.to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for v in [&self.model.params, &self.adam.m, &self.adam.v] {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a checkpoint; `weight_decay` is the run's (a setting, not state).
    pub fn from_bytes(bytes: &[u8], weight_decay: f32) -> Result<Checkpoint> {
        if bytes.len() < MAGIC.len() + 8 || &bytes[..8] != MAGIC {
            bail!("not a Brudno training checkpoint");
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            bail!("the checkpoint is corrupt (checksum)");
        }
        let mut at = 8;
        let mut take = |n: usize| -> Result<&[u8]> {
            let s = body
                .get(at..at + n)
                .context("the checkpoint is cut short")?;
            at += n;
            Ok(s)
        };
        let u32_ = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
        let u64_ = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
        let version = u32_(take(4)?);
        if version != VERSION && version != 1 {
            bail!("checkpoint version {version}, this trainer reads 1 and {VERSION}");
        }
        let len = u32_(take(4)?) as usize;
        let identity = String::from_utf8(take(len)?.to_vec()).context("checkpoint identity")?;
        let hidden = u32_(take(4)?) as usize;
        let (buckets, mirror) = if version >= 2 {
            (u32_(take(4)?) as usize, u32_(take(4)?) != 0)
        } else {
            (1, false)
        };
        let epoch = u32_(take(4)?);
        let batch = u32_(take(4)?);
        let t = u64_(take(8)?);
        let loss_sum = f64::from_le_bytes(take(8)?.try_into().unwrap());
        let loss_batches = u64_(take(8)?);
        let n = u64_(take(8)?) as usize;
        let model_len = super::model::Layout { hidden, buckets }.len();
        if n != model_len {
            bail!(
                "the checkpoint holds {n} parameters, a {hidden}-neuron network with \
                 {buckets} bucket(s) has {model_len}"
            );
        }
        let mut floats = || -> Result<Vec<f32>> {
            Ok(take(4 * n)?
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect())
        };
        let params = floats()?;
        let m = floats()?;
        let v = floats()?;
        let mut adam = AdamW::new(0, weight_decay);
        adam.m = m;
        adam.v = v;
        adam.t = t;
        Ok(Checkpoint {
            identity,
            model: Model {
                hidden,
                buckets,
                mirror,
                params,
            },
            adam,
            epoch,
            batch,
            loss_sum,
            loss_batches,
        })
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes())
    }

    pub fn load(path: &Path, weight_decay: f32) -> Result<Checkpoint> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Checkpoint::from_bytes(&bytes, weight_decay)
            .with_context(|| format!("reading {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption_is_caught() {
        let model = Model::new_random(8, 8, true, 3);
        let mut adam = AdamW::new(model.params.len(), 0.01);
        adam.m[5] = 0.25;
        adam.v[7] = 1e-6;
        adam.t = 42;
        let c = Checkpoint {
            identity: "hidden 8\nseed 3\n".into(),
            model,
            adam,
            epoch: 2,
            batch: 17,
            loss_sum: 0.123,
            loss_batches: 17,
        };
        let bytes = c.to_bytes();
        assert_eq!(Checkpoint::from_bytes(&bytes, 0.01).unwrap(), c);
        let mut bad = bytes.clone();
        bad[100] ^= 1;
        assert!(Checkpoint::from_bytes(&bad, 0.01).is_err());
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 9], 0.01).is_err());
    }
}
