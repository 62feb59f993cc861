//! 2Q: a FIFO for first-timers, a ghost list of their keys, an LRU for proven keys.
//!
//! Johnson & Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement
//! Algorithm", VLDB 1994 (the full version). New keys go to `A1in` (FIFO, `Kin` ≈ 25% of
//! the cache); keys pushed out of `A1in` are remembered (key only) in `A1out` (`Kout` ≈ 50%
//! of the cache, in keys); a miss on a key remembered in `A1out` admits it to `Am` (LRU).
//! A hit in `A1in` does nothing (correlated references). When room is needed, `A1in` gives
//! up its oldest key if it is over `Kin`, otherwise `Am` its LRU key.

use super::keymap::KeyMap;
use super::list::Lists;
use super::{Access, Policy};

const A1IN: u8 = 0;
const AM: u8 = 1;
const A1OUT: u8 = 2;

/// 2Q cache. `keys()` is `Am` MRU…LRU then `A1in` newest…oldest.
#[derive(Clone, Debug)]
pub struct TwoQ {
    lists: Lists,
    map: KeyMap,
    kin: u32,
    kout: u32,
    capacity: u32,
}

impl TwoQ {
    /// 2Q with the paper's recommended `Kin` = 25% and `Kout` = 50% of `capacity` (≥ 1).
    pub fn new(capacity: u32) -> Self {
        Self::with_params(capacity, 25, 50)
    }

    /// 2Q with `Kin` and `Kout` as percentages of `capacity` (each at least one key).
    pub fn with_params(capacity: u32, kin_percent: u32, kout_percent: u32) -> Self {
        let capacity = capacity.max(1);
        let pct = |p: u32| ((u64::from(capacity) * u64::from(p) / 100) as u32).max(1);
        Self {
            lists: Lists::new(3, capacity.saturating_mul(2)),
            map: KeyMap::new(),
            kin: pct(kin_percent),
            kout: pct(kout_percent),
            capacity,
        }
    }

    fn resident(&self) -> u32 {
        self.lists.len(A1IN) + self.lists.len(AM)
    }

    /// `reclaimfor`: frees one resident slot if the cache is full.
    fn reclaim(&mut self) -> Option<u32> {
        if self.resident() < self.capacity {
            return None;
        }
        if self.lists.len(A1IN) > self.kin || self.lists.len(AM) == 0 {
            let y = self.lists.back(A1IN).expect("A1in non-empty");
            self.lists.push_front(A1OUT, y);
            if self.lists.len(A1OUT) > self.kout {
                let old = self.lists.back(A1OUT).expect("non-empty");
                self.map.remove(self.lists.key(old));
                self.lists.free(old);
            }
            Some(self.lists.key(y))
        } else {
            let y = self.lists.back(AM).expect("Am non-empty");
            let k = self.lists.key(y);
            self.map.remove(k);
            self.lists.free(y);
            Some(k)
        }
    }
}

impl Policy for TwoQ {
    fn name(&self) -> &'static str {
        "2Q"
    }

    fn victim_rule(&self) -> &'static str {
        "the oldest first-timer (A1in) when it is over its share, else the LRU proven key (Am)"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.resident()
    }

    fn contains(&self, key: u32) -> bool {
        self.map
            .get(key)
            .is_some_and(|n| self.lists.list_of(n) != Some(A1OUT))
    }

    fn access(&mut self, key: u32) -> Access {
        match self.map.get(key) {
            Some(n) => match self.lists.list_of(n) {
                Some(AM) => {
                    self.lists.push_front(AM, n);
                    Access::Hit
                }
                Some(A1IN) => Access::Hit,
                _ => {
                    // Remembered in A1out: detach first so trimming A1out cannot drop it.
                    self.lists.unlink(n);
                    let evicted = self.reclaim();
                    self.lists.push_front(AM, n);
                    Access::Miss { evicted }
                }
            },
            None => {
                let evicted = self.reclaim();
                let n = self.lists.alloc(key);
                self.lists.push_front(A1IN, n);
                self.map.insert(key, n);
                Access::Miss { evicted }
            }
        }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v = self.lists.keys(AM);
        v.extend(self.lists.keys(A1IN));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // Size 4 (Kin 1, Kout 2): A B C D fill A1in; E needs room → A1in (4 > 1) drops A
        // into A1out; A again → miss, but remembered: reclaim drops B into A1out and A
        // enters Am. Then A hits in Am. 1 hit, 6 misses, 2 evictions (A, B).
        let mut p = TwoQ::new(4);
        let ev: Vec<_> = [0, 1, 2, 3, 4, 0, 0].iter().map(|&k| p.access(k)).collect();
        assert_eq!(ev[4].evicted(), Some(0));
        assert_eq!(ev[5].evicted(), Some(1));
        assert!(ev[6].is_hit());
        assert_eq!(p.keys(), [0, 4, 3, 2]);
        assert!(!p.contains(1));
    }
}
