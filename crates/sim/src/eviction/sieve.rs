//! SIEVE: a FIFO queue with one "visited" bit and a hand that sweeps from old to new.
//!
//! Zhang, Yang, Yue, Vigfusson & Rashmi, "SIEVE is Simpler than LRU: an Efficient Turn-Key
//! Eviction Algorithm for Web Caches", USENIX NSDI 2024. A hit only sets the visited bit (no
//! list movement, like FIFO). To evict, the hand starts where it stopped last time (at the
//! tail, the oldest, initially), clears visited bits as it moves towards the head, and
//! evicts the first unvisited key; it wraps to the tail at the head. Unlike CLOCK, survivors
//! stay in place, so new keys (inserted at the head) are examined sooner — quick demotion.

use super::keymap::KeyMap;
use super::linked::set_bit;
use super::list::Lists;
use super::{Access, Policy};

const Q: u8 = 0;

/// SIEVE cache. `keys()` is newest … oldest (queue order; the hand may be anywhere).
#[derive(Clone, Debug)]
pub struct Sieve {
    lists: Lists,
    map: KeyMap,
    visited: Vec<bool>,
    hand: Option<u32>,
    capacity: u32,
}

impl Sieve {
    /// An empty SIEVE cache of `capacity` keys (≥ 1).
    pub fn new(capacity: u32) -> Self {
        let capacity = capacity.max(1);
        Self {
            lists: Lists::new(1, capacity),
            map: KeyMap::new(),
            visited: Vec::new(),
            hand: None,
            capacity,
        }
    }

    /// The key under the hand, if it has moved.
    pub fn hand(&self) -> Option<u32> {
        self.hand.map(|n| self.lists.key(n))
    }

    fn evict(&mut self) -> u32 {
        let mut o = self
            .hand
            .or_else(|| self.lists.back(Q))
            .expect("full cache");
        while self.visited[o as usize] {
            self.visited[o as usize] = false;
            o = self
                .lists
                .toward_front(o)
                .or_else(|| self.lists.back(Q))
                .expect("non-empty");
        }
        self.hand = self.lists.toward_front(o);
        o
    }
}

impl Policy for Sieve {
    fn name(&self) -> &'static str {
        "SIEVE"
    }

    fn victim_rule(&self) -> &'static str {
        "the first key the hand finds not visited since it last passed"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.lists.len(Q)
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        if let Some(n) = self.map.get(key) {
            set_bit(&mut self.visited, n, true);
            return Access::Hit;
        }
        let mut evicted = None;
        let node = if self.lists.len(Q) >= self.capacity {
            let v = self.evict();
            let old = self.lists.key(v);
            self.map.remove(old);
            self.lists.unlink(v);
            self.lists.set_key(v, key);
            evicted = Some(old);
            v
        } else {
            self.lists.alloc(key)
        };
        set_bit(&mut self.visited, node, false);
        self.lists.push_front(Q, node);
        self.map.insert(key, node);
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        self.lists.keys(Q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // Size 3: A B C A D E. Queue (head→tail) C B A; A hit sets A.visited.
        // D: hand starts at the tail A (visited → clear, move to B), B unvisited → evict B;
        // hand stays at C (B's neighbour towards the head). Queue D C A.
        // E: hand at C, unvisited → evict C. Queue E D A. → 1 hit, 5 misses, 2 evictions
        // (B, C), and A survives although it is the oldest.
        let mut p = Sieve::new(3);
        let ev: Vec<_> = [0, 1, 2, 0, 3, 4].iter().map(|&k| p.access(k)).collect();
        assert!(ev[3].is_hit());
        assert_eq!(ev[4].evicted(), Some(1));
        assert_eq!(ev[5].evicted(), Some(2));
        assert_eq!(p.keys(), [4, 3, 0]);
    }
}
