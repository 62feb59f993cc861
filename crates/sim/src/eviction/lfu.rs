//! LFU: least frequently used, exactly as the seed's simulator.
//!
//! A key enters with count 1 and each hit adds 1; the victim has the smallest count, ties
//! going to the oldest admission (the seed iterates an insertion-ordered `Map` whose entries
//! keep their position on `c.set(k, c.get(k) + 1)`). No aging, so yesterday's favourites
//! stay — the weakness the seed's trace (c) exposes. The policy is folklore from paging
//! (e.g. Coffman & Denning, "Operating Systems Theory", 1973); see Redis LFU and W-TinyLFU
//! for aged variants. An indexed heap keyed by `(count, admission)` gives `O(log n)`.

use super::heap::IndexedHeap;
use super::keymap::KeyMap;
use super::{Access, Policy};

/// Least-frequently-used cache. `keys()` is most … least frequent (next victim last).
#[derive(Clone, Debug)]
pub struct Lfu {
    map: KeyMap,
    slot_key: Vec<u32>,
    heap: IndexedHeap,
    seq: u64,
    capacity: u32,
}

impl Lfu {
    /// An empty cache of `capacity` keys (at least 1).
    pub fn new(capacity: u32) -> Self {
        let capacity = capacity.max(1);
        Self {
            map: KeyMap::new(),
            slot_key: Vec::with_capacity(super::reserve_hint(capacity)),
            heap: IndexedHeap::new(),
            seq: 0,
            capacity,
        }
    }

    /// The use count of a resident key.
    pub fn count(&self, key: u32) -> Option<u64> {
        self.map.get(key).map(|s| self.heap.priority(s).0)
    }
}

impl Policy for Lfu {
    fn name(&self) -> &'static str {
        "LFU"
    }

    fn victim_rule(&self) -> &'static str {
        "the key with the fewest uses (ties: the oldest admission)"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.heap.len() as u32
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        if let Some(slot) = self.map.get(key) {
            let (count, seq) = self.heap.priority(slot);
            self.heap.set(slot, (count + 1, seq));
            return Access::Hit;
        }
        let mut evicted = None;
        let slot = if self.heap.len() as u32 >= self.capacity {
            let slot = self.heap.pop().expect("full cache has a victim");
            let victim = self.slot_key[slot as usize];
            self.map.remove(victim);
            evicted = Some(victim);
            self.slot_key[slot as usize] = key;
            slot
        } else {
            self.slot_key.push(key);
            self.slot_key.len() as u32 - 1
        };
        self.seq += 1;
        self.heap.set(slot, (1, self.seq));
        self.map.insert(key, slot);
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v: Vec<((u64, u64), u32)> = (0..self.slot_key.len() as u32)
            .filter(|&s| self.map.get(self.slot_key[s as usize]) == Some(s))
            .map(|s| (self.heap.priority(s), self.slot_key[s as usize]))
            .collect();
        v.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        v.into_iter().map(|(_, k)| k).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // A A B C D at size 2: A miss (count 1), A hit (2), B miss (1), C miss evicts B
        // (1 < 2), D miss evicts C (1 < 2) → 1 hit, 4 misses, 2 evictions; A keeps count 2.
        let mut p = Lfu::new(2);
        assert!(!p.access(0).is_hit());
        assert!(p.access(0).is_hit());
        assert!(!p.access(1).is_hit());
        assert_eq!(p.access(2).evicted(), Some(1));
        assert_eq!(p.access(3).evicted(), Some(2));
        assert_eq!(p.count(0), Some(2));
        // Ties go to the oldest admission even after hits: A B A B C at size 2 → A and B
        // both have count 2; C evicts A (admitted first).
        let mut p = Lfu::new(2);
        for k in [0, 1, 0, 1] {
            p.access(k);
        }
        assert_eq!(p.access(2).evicted(), Some(0));
        assert_eq!(p.keys(), [1, 2]);
    }
}
