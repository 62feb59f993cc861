//! Random replacement.
//!
//! Evicts a uniformly random resident key and keeps no usage information. In the seed's
//! simulator: `j = Math.floor(rr() * c.size)` with `rr = mulberry32(99)`, then the `j`-th key
//! of the insertion-ordered `Map` (admission order; hits do not reorder) leaves. The seed
//! draws `j` on every eviction of every policy but only RANDOM uses it, so one draw per
//! eviction here reproduces its numbers exactly.
//!
//! "The `j`-th key in admission order" is answered in `O(log n)` by a Fenwick tree over
//! admission slots (1 = occupied), found by binary lifting; slots are renumbered compactly
//! when they run out, which costs `O(capacity)` once every ~3·capacity admissions.
//! Random replacement as a baseline goes back to Bélády, "A study of replacement
//! algorithms for a virtual-storage computer" (IBM Systems Journal, 1966).

use super::keymap::KeyMap;
use super::{Access, Policy};
use crate::rng::Mulberry32;

/// A Fenwick (binary indexed) tree of 0/1 occupancy over admission slots.
#[derive(Clone, Debug)]
struct Fenwick {
    tree: Vec<u32>,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Self {
            tree: vec![0; n + 1],
        }
    }

    fn add(&mut self, slot: u32, delta: i32) {
        let mut i = slot as usize + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Slot of the `j`-th (0-based) occupied slot; `j` must be below the occupied count.
    fn find(&self, j: u32) -> u32 {
        let n = self.tree.len() - 1;
        let mut rank = j + 1;
        let mut pos = 0usize;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] < rank {
                pos = next;
                rank -= self.tree[next];
            }
            step >>= 1;
        }
        pos as u32
    }
}

/// Random-replacement cache. `keys()` is newest … oldest admission.
#[derive(Clone, Debug)]
pub struct Random {
    rng: Mulberry32,
    map: KeyMap,
    slot_key: Vec<u32>,
    occupied: Vec<bool>,
    fenwick: Fenwick,
    next_slot: u32,
    len: u32,
    capacity: u32,
}

impl Random {
    /// An empty cache of `capacity` keys (at least 1) drawing victims from
    /// `mulberry32(seed)`.
    pub fn new(capacity: u32, seed: u32) -> Self {
        let capacity = capacity.max(1);
        let slots = capacity as usize * 4 + 16;
        Self {
            rng: Mulberry32::new(seed),
            map: KeyMap::new(),
            slot_key: vec![0; slots],
            occupied: vec![false; slots],
            fenwick: Fenwick::new(slots),
            next_slot: 0,
            len: 0,
            capacity,
        }
    }

    /// Renumbers occupied slots `0..len` keeping their order.
    fn compact(&mut self) {
        let slots = self.slot_key.len();
        let mut keys = Vec::with_capacity(self.len as usize);
        for s in 0..self.next_slot as usize {
            if self.occupied[s] {
                keys.push(self.slot_key[s]);
            }
        }
        self.occupied.iter_mut().for_each(|o| *o = false);
        self.fenwick = Fenwick::new(slots);
        for (s, &k) in keys.iter().enumerate() {
            self.slot_key[s] = k;
            self.occupied[s] = true;
            self.fenwick.add(s as u32, 1);
            self.map.insert(k, s as u32);
        }
        self.next_slot = keys.len() as u32;
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
            let slot = self.fenwick.find(j);
            let victim = self.slot_key[slot as usize];
            self.fenwick.add(slot, -1);
            self.occupied[slot as usize] = false;
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
        self.occupied[slot as usize] = true;
        self.fenwick.add(slot, 1);
        self.map.insert(key, slot);
        self.len += 1;
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        (0..self.next_slot as usize)
            .rev()
            .filter(|&s| self.occupied[s])
            .map(|s| self.slot_key[s])
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
