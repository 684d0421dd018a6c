//! The transposition table: what earlier searches learnt about positions, by Zobrist key.
//!
//! A bucket is one 64-byte cache line of four 16-byte entries. An entry is two words, the
//! data and the key XOR-ed with the data (Hyatt's lockless hashing): a half-written entry
//! (another thread's store torn between the two words) fails the key check instead of
//! passing off one position's move as another's. Moves read from the table are still
//! checked for legality by the move picker before they are played.
//!
//! ```text
//!  data: 63 .. 58 | 57 56 | 55 .. 48 | 47 .. 32 | 31 .. 16 | 15 .. 0
//!        gen (6)  | bound | depth    | eval i16 | score i16| move
//!  check: key ^ data
//! ```

use super::score::{from_tt, to_tt};
use super::types::Bound;
use crate::chess::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

const ENTRIES: usize = 4;

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    entries: [Entry; ENTRIES],
}

const _: () = assert!(std::mem::size_of::<Entry>() == 16);
const _: () = assert!(std::mem::size_of::<Bucket>() == 64);
const _: () = assert!(std::mem::align_of::<Bucket>() == 64);

/// Generations cycle through 6 bits.
const GEN_MASK: u8 = 63;

/// What a probe found, with mate scores already made relative to the probing node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    /// `Move::NULL` when the entry has none. Not yet checked for legality.
    pub mv: Move,
    pub score: i32,
    /// The static evaluation (`score::NONE` if the node was in check).
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

fn bound_bits(b: Bound) -> u64 {
    match b {
        Bound::Upper => 1,
        Bound::Lower => 2,
        Bound::Exact => 3,
    }
}

#[derive(Clone, Copy)]
struct Unpacked {
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    bound: u8,
    gen: u8,
}

impl Unpacked {
    #[inline(always)]
    fn from_bits(d: u64) -> Unpacked {
        Unpacked {
            mv: d as u16,
            score: (d >> 16) as u16 as i16,
            eval: (d >> 32) as u16 as i16,
            depth: (d >> 48) as u8,
            bound: (d >> 56) as u8 & 3,
            gen: (d >> 58) as u8,
        }
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        self.mv as u64
            | (self.score as u16 as u64) << 16
            | (self.eval as u16 as u64) << 32
            | (self.depth as u64) << 48
            | (self.bound as u64 & 3) << 56
            | ((self.gen & GEN_MASK) as u64) << 58
    }
}

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    /// Atomic so that a new search can begin while helpers of the last one still unwind
    /// (they are not waited for: see `search/smp.rs`).
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of `mb` MiB; panics if it cannot be allocated (see `try_new`).
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of `mb` MiB, or why not: more than the machine has available (refused before
    /// any page is touched, since an overcommitted table would be killed while being cleared),
    /// or an allocation that fails.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = mb.max(1) << 20;
        if let Some(available) = crate::util::memory::available_bytes() {
            if bytes as u64 > available / 10 * 9 {
                return Err(format!(
                    "{mb} MiB is more than this machine can give ({} MiB available)",
                    available >> 20
                ));
            }
        }
        let n = bytes / std::mem::size_of::<Bucket>();
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(n)
            .map_err(|e| format!("{mb} MiB cannot be allocated: {e}"))?;
        crate::util::memory::advise_huge_pages(buckets.spare_capacity_mut());
        buckets.extend((0..n).map(|_| Bucket::default()));
        Ok(TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Its size in MiB.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    pub fn clear(&mut self) {
        for b in &self.buckets {
            for e in &b.entries {
                e.check.store(0, Ordering::Relaxed);
                e.data.store(0, Ordering::Relaxed);
            }
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Called once per search: older entries become preferred victims for replacement.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) & GEN_MASK;
        self.generation.store(next, Ordering::Relaxed);
    }

    /// The bucket for a key: the high bits of key × bucket count, so any size works.
    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Starts loading a key's bucket into the cache, ahead of its probe (a table probe is
    /// otherwise a cache miss at nearly every node).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint; it never faults, and `ptr` is in bounds.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline(always)]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        for e in &self.bucket(key).entries {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            let u = Unpacked::from_bits(data);
            if u.bound != 0 && check ^ data == key {
                return Some(TtHit {
                    mv: Move::from_raw(u.mv),
                    score: from_tt(u.score as i32, ply),
                    eval: u.eval as i32,
                    depth: u.depth as i32,
                    bound: match u.bound {
                        1 => Bound::Upper,
                        2 => Bound::Lower,
                        _ => Bound::Exact,
                    },
                });
            }
        }
        None
    }

    /// Stores a search result. Replacement: the same position's entry if present (keeping its
    /// move when the new result has none, and keeping a much deeper result of this search),
    /// otherwise the entry whose depth, less 8 plies per generation of age, is lowest.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let bucket = self.bucket(key);
        let gen = self.generation.load(Ordering::Relaxed);
        let depth = depth.clamp(0, 255) as u8;

        let mut victim = &bucket.entries[0];
        let mut victim_worth = i32::MAX;
        let mut old: Option<Unpacked> = None;
        for e in &bucket.entries {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            let u = Unpacked::from_bits(data);
            if u.bound == 0 {
                if victim_worth > i32::MIN {
                    victim = e;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            if check ^ data == key {
                victim = e;
                old = Some(u);
                break;
            }
            let age = (gen.wrapping_sub(u.gen) & GEN_MASK) as i32;
            let worth = u.depth as i32 - 8 * age;
            if worth < victim_worth {
                victim = e;
                victim_worth = worth;
            }
        }

        let mut mv = mv.raw();
        if let Some(o) = old {
            if mv == 0 {
                mv = o.mv;
            }
            let keep =
                bound != Bound::Exact && o.gen == gen && (depth as i32) + 4 <= o.depth as i32;
            if keep {
                return;
            }
        }
        let data = Unpacked {
            mv,
            score: to_tt(score, ply) as i16,
            eval: eval as i16,
            depth,
            bound: bound_bits(bound) as u8,
            gen,
        }
        .bits();
        victim.data.store(data, Ordering::Relaxed);
        victim.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permill of a sample of entries written during the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let generation = self.generation.load(Ordering::Relaxed);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for e in &b.entries {
                let u = Unpacked::from_bits(e.data.load(Ordering::Relaxed));
                if u.bound != 0 && u.gen == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * ENTRIES).max(1)) as u32
    }

    /// Bytes allocated (for tests and `info string`).
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;
    use crate::search::score::{mate_in, mated_in};

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.size_bytes(), 1 << 20);
        let m = Move::new(Square::E1, Square::E8);
        tt.store(0x1234_5678_9abc_def0, 0, m, -77, 12, 9, Bound::Lower);
        let hit = tt.probe(0x1234_5678_9abc_def0, 0).unwrap();
        assert_eq!(
            hit,
            TtHit {
                mv: m,
                score: -77,
                eval: 12,
                depth: 9,
                bound: Bound::Lower
            }
        );
        assert!(tt.probe(0x1234_5678_9abc_def1, 0).is_none());
    }

    #[test]
    fn mate_scores_are_ply_adjusted() {
        let tt = TranspositionTable::new(1);
        // Found at ply 6: we mate 5 plies further on (mate at ply 11 from the root).
        tt.store(42, 6, Move::NULL, mate_in(11), 0, 4, Bound::Exact);
        // Met again at ply 2, the same mate is 5 plies away: mate at ply 7.
        assert_eq!(tt.probe(42, 2).unwrap().score, mate_in(7));
        tt.store(43, 3, Move::NULL, mated_in(10), 0, 4, Bound::Exact);
        assert_eq!(tt.probe(43, 5).unwrap().score, mated_in(12));
    }

    #[test]
    fn keeps_the_move_when_a_result_has_none() {
        let tt = TranspositionTable::new(1);
        let m = Move::new(Square::A1, Square::H1);
        tt.store(7, 0, m, 10, 0, 3, Bound::Lower);
        tt.store(7, 0, Move::NULL, 20, 0, 5, Bound::Upper);
        let hit = tt.probe(7, 0).unwrap();
        assert_eq!((hit.mv, hit.score, hit.depth), (m, 20, 5));
    }

    #[test]
    fn torn_entries_miss() {
        let tt = TranspositionTable::new(1);
        let key = 0xdead_beef_u64;
        tt.store(
            key,
            0,
            Move::new(Square::A1, Square::H1),
            1,
            2,
            3,
            Bound::Exact,
        );
        // Simulate another thread overwriting only the data word.
        let b = tt.bucket(key);
        let e = b
            .entries
            .iter()
            .find(|e| e.data.load(Ordering::Relaxed) != 0)
            .unwrap();
        e.data
            .store(e.data.load(Ordering::Relaxed) ^ 0xffff, Ordering::Relaxed);
        assert!(tt.probe(key, 0).is_none());
    }

    #[test]
    fn replaces_old_shallow_entries_first() {
        let tt = TranspositionTable::new(1);
        let n = tt.buckets.len() as u128;
        // Keys landing in bucket 0: the high bits of key * n must be zero.
        let keys: Vec<u64> = (1..=5u64).collect();
        assert!(keys.iter().all(|&k| ((k as u128 * n) >> 64) == 0));
        for (i, &k) in keys[..4].iter().enumerate() {
            tt.store(k, 0, Move::NULL, 0, 0, 10 + i as i32, Bound::Exact);
        }
        tt.new_search();
        tt.store(keys[4], 0, Move::NULL, 0, 0, 1, Bound::Exact);
        // The shallowest old entry (depth 10) gave way.
        assert!(tt.probe(keys[0], 0).is_none());
        assert!(keys[1..].iter().all(|&k| tt.probe(k, 0).is_some()));
        assert_eq!(tt.hashfull(), 1000 / (tt.buckets.len().min(250) * 4) as u32);
    }
}
