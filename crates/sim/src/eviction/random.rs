//! Random replacement.
//!
//! Evicts a uniformly random resident key and keeps no usage information. In the seed's
//! simulator: `j = Math.floor(rr() * c.size)` with `rr = mulberry32(99)`, then the `j`-th key
//! of the insertion-ordered `Map` (admission order; hits do not reorder) leaves. The seed
//! draws `j` on every eviction of every policy but only RANDOM uses it, so one draw per
//! eviction here reproduces its numbers exactly.
//!
//! "The `j`-th key in admission order" is answered in `O(log n)`: admission slots form an
//! occupancy bitmap with a Fenwick tree over its 64-bit words (binary lifting finds the
//! word, a broadword select the bit); slots are renumbered compactly when they run out
//! (and doubled when over half full), `O(slots)` every ~7·capacity admissions.
//! Random replacement as a baseline goes back to Bélády, "A study of replacement
//! algorithms for a virtual-storage computer" (IBM Systems Journal, 1966).

use super::keymap::KeyMap;
use super::{Access, Policy};
use crate::rng::Mulberry32;

/// Occupancy of admission slots: a bitmap plus a Fenwick tree of per-word popcounts, so
/// "the `j`-th occupied slot" costs `O(log(slots / 64))` plus one in-word select.
#[derive(Clone, Debug)]
struct Slots {
    bits: Vec<u64>,
    tree: Vec<u32>,
}

impl Slots {
    fn new(slots: usize) -> Self {
        // A power-of-two word count keeps every probe of `select` in bounds without a test.
        let words = slots.div_ceil(64).next_power_of_two();
        Self {
            bits: vec![0; words],
            tree: vec![0; words + 1],
        }
    }

    #[inline]
    fn add(&mut self, word: usize, delta: i32) {
        let mut i = word + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn set(&mut self, slot: u32) {
        let (w, b) = (slot as usize / 64, slot % 64);
        self.bits[w] |= 1 << b;
        self.add(w, 1);
    }

    #[inline]
    fn clear(&mut self, slot: u32) {
        let (w, b) = (slot as usize / 64, slot % 64);
        self.bits[w] &= !(1 << b);
        self.add(w, -1);
    }

    #[inline]
    fn is_set(&self, slot: u32) -> bool {
        self.bits[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// The `j`-th (0-based) occupied slot; `j` must be below the occupied count.
    /// Written without data-dependent branches (random `j` would mispredict them).
    #[inline]
    fn select(&self, j: u32) -> u32 {
        let n = self.tree.len() - 1;
        let mut rank = j;
        let mut word = 0usize;
        let mut step = n;
        while step > 0 {
            let t = self.tree[word + step];
            let take = t <= rank;
            word += step * usize::from(take);
            rank -= t * u32::from(take);
            step >>= 1;
        }
        // `word` full words precede the answer; select the rank-th set bit inside it.
        word as u32 * 64 + select64(self.bits[word], rank)
    }
}

/// `SELECT_IN_BYTE[b][r]`: position of the `r`-th set bit of byte `b`.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut r = 0;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][r] = bit as u8;
                r += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// Position of the `r`-th (0-based) set bit of `w` (broadword: byte popcounts, their prefix
/// sums by one multiplication, then a byte table), without data-dependent branches.
#[inline]
fn select64(w: u64, r: u32) -> u32 {
    const L8: u64 = 0x0101_0101_0101_0101;
    let mut s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let cum = s.wrapping_mul(L8); // byte i = set bits in bytes 0..=i
    let mut byte = 0u32;
    for i in 0..8 {
        byte += u32::from(((cum >> (8 * i)) & 0xFF) as u32 <= r);
    }
    let before = if byte == 0 {
        0
    } else {
        ((cum >> (8 * (byte - 1))) & 0xFF) as u32
    };
    let b = ((w >> (8 * byte)) & 0xFF) as usize;
    byte * 8 + u32::from(SELECT_IN_BYTE[b][(r - before) as usize])
}

/// Random-replacement cache. `keys()` is newest … oldest admission.
#[derive(Clone, Debug)]
pub struct Random {
    rng: Mulberry32,
    map: KeyMap,
    slot_key: Vec<u32>,
    slots: Slots,
    next_slot: u32,
    len: u32,
    capacity: u32,
}

impl Random {
    /// An empty cache of `capacity` keys (at least 1) drawing victims from
    /// `mulberry32(seed)`.
    pub fn new(capacity: u32, seed: u32) -> Self {
        let capacity = capacity.max(1);
        let slots = (super::reserve_hint(capacity) * 8).max(64);
        Self {
            rng: Mulberry32::new(seed),
            map: KeyMap::new(),
            slot_key: vec![0; slots],
            slots: Slots::new(slots),
            next_slot: 0,
            len: 0,
            capacity,
        }
    }

    /// Renumbers occupied slots `0..len` keeping their order, doubling the slot space when
    /// more than half of it is occupied (`O(slots)`, amortised `O(1)` per admission).
    fn compact(&mut self) {
        if self.len as usize * 2 > self.slot_key.len() {
            let bigger = self.slot_key.len() * 2;
            self.slot_key.resize(bigger, 0);
        }
        let mut n = 0u32;
        for s in 0..self.next_slot {
            if self.slots.is_set(s) {
                let k = self.slot_key[s as usize];
                self.slot_key[n as usize] = k;
                self.map.insert(k, n);
                n += 1;
            }
        }
        self.slots = Slots::new(self.slot_key.len());
        for s in 0..n {
            self.slots.set(s);
        }
        self.next_slot = n;
    }
}

impl Policy for Random {
    fn name(&self) -> &'static str {
        "RANDOM"
    }

    fn victim_rule(&self) -> &'static str {
        "a uniformly random resident key"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        if self.map.contains(key) {
            return Access::Hit;
        }
        let mut evicted = None;
        if self.len >= self.capacity {
            let j = self.rng.below(self.len);
            let slot = self.slots.select(j);
            let victim = self.slot_key[slot as usize];
            self.slots.clear(slot);
            self.map.remove(victim);
            self.len -= 1;
            evicted = Some(victim);
        }
        if self.next_slot as usize == self.slot_key.len() {
            self.compact();
        }
        let slot = self.next_slot;
        self.next_slot += 1;
        self.slot_key[slot as usize] = key;
        self.slots.set(slot);
        self.map.insert(key, slot);
        self.len += 1;
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        (0..self.next_slot)
            .rev()
            .filter(|&s| self.slots.is_set(s))
            .map(|s| self.slot_key[s as usize])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // A B C at size 2 with seed 99: the first draw of mulberry32(99) times 2 picks the
        // j-th key in admission order [A, B]; A B A then is 1 hit, C's miss evicts one of them.
        let mut first = Mulberry32::new(99);
        let j = first.below(2);
        let mut p = Random::new(2, 99);
        assert!(!p.access(0).is_hit());
        assert!(!p.access(1).is_hit());
        assert!(p.access(0).is_hit());
        assert_eq!(p.access(2).evicted(), Some(j));
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn select64_matches_a_bit_loop() {
        let mut rng = Mulberry32::new(5);
        for _ in 0..2000 {
            let w = u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32());
            let w = w & (u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32()));
            let set: Vec<u32> = (0..64).filter(|b| w & (1 << b) != 0).collect();
            for (r, &b) in set.iter().enumerate() {
                assert_eq!(select64(w, r as u32), b);
            }
        }
        assert_eq!(select64(u64::MAX, 63), 63);
        assert_eq!(select64(1 << 63, 0), 63);
    }

    #[test]
    fn select_finds_the_jth_set_bit() {
        let mut s = Slots::new(300);
        let set: Vec<u32> = (0..300).filter(|x| x % 3 == 0 || x % 7 == 0).collect();
        for &x in &set {
            s.set(x);
        }
        for (j, &x) in set.iter().enumerate() {
            assert_eq!(s.select(j as u32), x);
        }
        s.clear(0);
        assert_eq!(s.select(0), 3);
    }

    #[test]
    fn huge_caches_grow_their_slot_space() {
        // 300,000 keys fill more than half of the initial 8 × 65,536 slots: the slot space
        // must double rather than compact in a loop.
        let mut p = Random::new(300_000, 1);
        for k in 0..700_000 {
            p.access(k);
        }
        assert_eq!(p.len(), 300_000);
        assert!(p.slot_key.len() > 8 * 65_536);
        let keys = p.keys();
        assert!(keys.windows(2).all(|w| w[0] > w[1]));
    }

    #[test]
    fn jth_in_admission_order_survives_compaction() {
        // Many admissions force several compactions; the order must stay admission order.
        let mut p = Random::new(3, 1);
        for k in 0..100 {
            p.access(k);
            let keys = p.keys();
            let mut sorted = keys.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(keys, sorted, "keys are admitted in increasing order here");
        }
    }
}
