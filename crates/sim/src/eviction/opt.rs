//! Bélády's OPT (MIN): the offline optimum.
//!
//! Evicts the key whose next use lies furthest in the future; no policy can miss less.
//! László Bélády, "A study of replacement algorithms for a virtual-storage computer", IBM
//! Systems Journal 5(2), 1966. It needs the future, so it is built from the whole trace and
//! replays it in order.
//!
//! Semantics follow the seed exactly: a miss first admits the key (remembering its next
//! use), and if the cache is then over capacity evicts the entry with the furthest next use
//! — which may be the new key itself (bypass); ties (keys never used again) go to the oldest
//! admission, because the seed scans its `Map` in insertion order with a strict `>`. A hit
//! updates the key's next use. An indexed heap keyed by `(furthest first, admission)` makes
//! each access `O(log n)`.

use super::heap::IndexedHeap;
use super::keymap::KeyMap;
use super::{Access, Policy};

const NEVER: u64 = u64::MAX;

/// Bélády's optimal policy replaying a known trace. `keys()` is soonest … furthest next use.
#[derive(Clone, Debug)]
pub struct Opt {
    next_use: Vec<u64>,
    trace: Vec<u32>,
    pos: usize,
    map: KeyMap,
    slot_key: Vec<u32>,
    free: Vec<u32>,
    heap: IndexedHeap,
    seq: u64,
    capacity: u32,
}

/// For each position, the position of the next request of the same key (`u64::MAX`: never).
pub fn next_uses(trace: &[u32]) -> Vec<u64> {
    let mut next = vec![NEVER; trace.len()];
    let mut seen = KeyMap::new();
    for i in (0..trace.len()).rev() {
        let k = trace[i];
        // Positions are stored +1 so that slot u32::MAX stays free; traces longer than
        // u32::MAX - 1 are out of scope.
        if let Some(p) = seen.get(k) {
            next[i] = u64::from(p - 1);
        }
        seen.insert(k, i as u32 + 1);
    }
    next
}

impl Opt {
    /// OPT with room for `capacity` keys (at least 1) that will be asked for `trace`, in
    /// order. An access that does not match the trace is treated as never used again.
    pub fn new(capacity: u32, trace: &[u32]) -> Self {
        let capacity = capacity.max(1);
        Self {
            next_use: next_uses(trace),
            trace: trace.to_vec(),
            pos: 0,
            map: KeyMap::new(),
            slot_key: Vec::with_capacity(capacity as usize + 1),
            free: Vec::new(),
            heap: IndexedHeap::new(),
            seq: 0,
            capacity,
        }
    }

    /// Position in the trace of the next access.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Policy for Opt {
    fn name(&self) -> &'static str {
        "OPT"
    }

    fn victim_rule(&self) -> &'static str {
        "the key needed furthest in the future (maybe the new key itself)"
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
        let next = match self.trace.get(self.pos) {
            Some(&k) if k == key => self.next_use[self.pos],
            _ => NEVER,
        };
        self.pos += 1;
        if let Some(slot) = self.map.get(key) {
            let seq = self.heap.priority(slot).1;
            self.heap.set(slot, (!next, seq));
            return Access::Hit;
        }
        let slot = match self.free.pop() {
            Some(s) => {
                self.slot_key[s as usize] = key;
                s
            }
            None => {
                self.slot_key.push(key);
                self.slot_key.len() as u32 - 1
            }
        };
        self.seq += 1;
        self.heap.set(slot, (!next, self.seq));
        self.map.insert(key, slot);
        let mut evicted = None;
        if self.heap.len() as u32 > self.capacity {
            let victim = self.heap.pop().expect("over capacity");
            let vkey = self.slot_key[victim as usize];
            self.map.remove(vkey);
            self.free.push(victim);
            evicted = Some(vkey);
        }
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v: Vec<((u64, u64), u32)> = self
            .slot_key
            .iter()
            .enumerate()
            .filter(|&(s, &k)| self.map.get(k) == Some(s as u32))
            .map(|(s, &k)| (self.heap.priority(s as u32), k))
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
        // A B C A B at size 2: A miss, B miss, C miss → C is never used again, so C itself
        // is dropped (bypass); A hit, B hit → 2 hits, 3 misses, 1 eviction (C).
        let t = [0, 1, 2, 0, 1];
        let mut p = Opt::new(2, &t);
        let got: Vec<Access> = t.iter().map(|&k| p.access(k)).collect();
        assert_eq!(
            got,
            [
                Access::Miss { evicted: None },
                Access::Miss { evicted: None },
                Access::Miss { evicted: Some(2) },
                Access::Hit,
                Access::Hit,
            ]
        );
        // A B C B at size 2: at C, A is never used again (ties with C broken towards the
        // older admission) → A is evicted, then B hits.
        let t = [0, 1, 2, 1];
        let mut p = Opt::new(2, &t);
        let ev: Vec<_> = t.iter().map(|&k| p.access(k)).collect();
        assert_eq!(ev[2].evicted(), Some(0));
        assert!(ev[3].is_hit());
    }

    #[test]
    fn next_uses_are_positions() {
        assert_eq!(next_uses(&[5, 6, 5, 5]), [2, NEVER, 3, NEVER]);
    }
}
