//! TinyLFU's frequency estimator: a count-min sketch of 4-bit counters with periodic
//! halving (aging), fronted by a Bloom-filter doorkeeper.
//!
//! Einziger, Friedman & Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", ACM
//! Transactions on Storage 13(4), 2017. Counters are packed sixteen to a `u64`; four rows are
//! indexed by four seeded hashes, the estimate is the minimum. After `sample_size` recorded
//! accesses (10 × cache size, the paper's W) every counter is halved in one pass (the
//! `(w >> 1) & 0x7777…` trick Caffeine uses) and the doorkeeper is cleared. The doorkeeper
//! absorbs each key's first occurrence per sample so one-hit wonders never touch the
//! counters; an estimate adds 1 if the doorkeeper holds the key.

const ROWS: usize = 4;

/// 64-bit finaliser (splitmix64), used with per-row salts for all hashing.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Count-min sketch with 4-bit counters, doorkeeper and reset.
#[derive(Clone, Debug)]
pub struct FrequencySketch {
    table: Vec<u64>,
    row_mask: u64,
    door: Vec<u64>,
    door_mask: u64,
    salt: u64,
    additions: u64,
    sample_size: u64,
    resets: u64,
}

impl FrequencySketch {
    /// A sketch sized for a cache of `capacity` keys, hashing with `seed`.
    pub fn new(capacity: u32, seed: u32) -> Self {
        let counters = u64::from(capacity.max(16)).next_power_of_two();
        let sample_size = 10 * u64::from(capacity.max(1));
        let door_bits = (8 * sample_size).next_power_of_two().max(64);
        Self {
            table: vec![0; ROWS * (counters as usize / 16).max(1)],
            row_mask: counters - 1,
            door: vec![0; (door_bits / 64) as usize],
            door_mask: door_bits - 1,
            salt: mix(u64::from(seed)),
            additions: 0,
            sample_size,
            resets: 0,
        }
    }

    #[inline]
    fn hash(&self, key: u32, i: u64) -> u64 {
        mix(u64::from(key)
            ^ self
                .salt
                .wrapping_add(i.wrapping_mul(0xD6E8_FEB8_6659_FD93)))
    }

    /// (word, shift) of row `r`'s counter for `key`.
    #[inline]
    fn slot(&self, key: u32, r: usize) -> (usize, u32) {
        let idx = self.hash(key, r as u64) & self.row_mask;
        let per_row = (self.row_mask + 1) as usize / 16;
        let word = r * per_row.max(1) + (idx / 16) as usize;
        (word, ((idx % 16) * 4) as u32)
    }

    #[inline]
    fn door_bits(&self, key: u32) -> [u64; 3] {
        let h = self.hash(key, 17);
        [h, h >> 21, h >> 42].map(|x| x & self.door_mask)
    }

    fn door_contains(&self, key: u32) -> bool {
        self.door_bits(key)
            .iter()
            .all(|&b| self.door[(b / 64) as usize] & (1 << (b % 64)) != 0)
    }

    /// Records one access of `key`.
    pub fn record(&mut self, key: u32) {
        if self.door_contains(key) {
            for r in 0..ROWS {
                let (w, s) = self.slot(key, r);
                if (self.table[w] >> s) & 0xF < 15 {
                    self.table[w] += 1 << s;
                }
            }
        } else {
            for b in self.door_bits(key) {
                self.door[(b / 64) as usize] |= 1 << (b % 64);
            }
        }
        self.additions += 1;
        if self.additions >= self.sample_size {
            self.reset();
        }
    }

    /// Estimated frequency of `key` in the current sample (0..=16).
    pub fn frequency(&self, key: u32) -> u32 {
        let min = (0..ROWS)
            .map(|r| {
                let (w, s) = self.slot(key, r);
                ((self.table[w] >> s) & 0xF) as u32
            })
            .min()
            .unwrap_or(0);
        min + u32::from(self.door_contains(key))
    }

    /// Halves every counter and clears the doorkeeper (aging).
    pub fn reset(&mut self) {
        for w in &mut self.table {
            *w = (*w >> 1) & 0x7777_7777_7777_7777;
        }
        self.door.iter_mut().for_each(|w| *w = 0);
        self.additions /= 2;
        self.resets += 1;
    }

    /// How many times the sketch has aged.
    pub fn resets(&self) -> u64 {
        self.resets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_saturate_and_age() {
        let mut s = FrequencySketch::new(1000, 1);
        assert_eq!(s.frequency(42), 0);
        s.record(42);
        assert_eq!(s.frequency(42), 1, "doorkeeper only");
        for _ in 0..30 {
            s.record(42);
        }
        assert_eq!(s.frequency(42), 16, "15 in the counters + doorkeeper");
        s.reset();
        assert_eq!(s.frequency(42), 7);
        assert_eq!(s.frequency(43), 0);
    }

    #[test]
    fn resets_after_sample() {
        let mut s = FrequencySketch::new(10, 1);
        for k in 0..100 {
            s.record(k);
        }
        assert_eq!(s.resets(), 1);
    }
}
