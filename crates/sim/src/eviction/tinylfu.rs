//! W-TinyLFU: a small LRU window in front of an SLRU main space, with TinyLFU admission.
//!
//! Einziger, Friedman & Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", ACM
//! Transactions on Storage 13(4), 2017 — the policy of Java's Caffeine. New keys enter a
//! window LRU (1% of the cache). The window's overflow becomes a *candidate* for the main
//! space (SLRU: 20% probation, 80% protected); if the main space is full the candidate
//! duels the probation LRU *victim*, and only the one with the higher sketch frequency
//! stays (`candidate > victim`, ties keep the incumbent) — "admit or not", not just "whom to
//! evict". Frequencies come from [`FrequencySketch`] (4-bit count-min, doorkeeper, aging),
//! which records every access, hit or miss. Structure follows Caffeine's simulator
//! `WindowTinyLfuPolicy`.

use super::keymap::KeyMap;
use super::list::Lists;
use super::sketch::FrequencySketch;
use super::{Access, Policy};

const WINDOW: u8 = 0;
const PROBATION: u8 = 1;
const PROTECTED: u8 = 2;

/// W-TinyLFU cache. `keys()` is window MRU…LRU, protected MRU…LRU, probation MRU…LRU.
#[derive(Clone, Debug)]
pub struct WTinyLfu {
    lists: Lists,
    map: KeyMap,
    sketch: FrequencySketch,
    window_cap: u32,
    protected_cap: u32,
    capacity: u32,
}

impl WTinyLfu {
    /// W-TinyLFU of `capacity` keys (≥ 1) with a 1% window, hashing with `seed`.
    pub fn new(capacity: u32, seed: u32) -> Self {
        Self::with_window(capacity, seed, 1)
    }

    /// W-TinyLFU with the window at `window_percent` of the cache (at least one key).
    pub fn with_window(capacity: u32, seed: u32, window_percent: u32) -> Self {
        let capacity = capacity.max(1);
        let window_cap =
            ((u64::from(capacity) * u64::from(window_percent.min(100)) / 100) as u32).max(1);
        let main = capacity.saturating_sub(window_cap);
        Self {
            lists: Lists::new(3, capacity.saturating_add(1)),
            map: KeyMap::new(),
            sketch: FrequencySketch::new(capacity, seed),
            window_cap,
            protected_cap: (u64::from(main) * 4 / 5) as u32,
            capacity,
        }
    }

    /// The frequency estimator.
    pub fn sketch(&self) -> &FrequencySketch {
        &self.sketch
    }

    fn resident(&self) -> u32 {
        self.lists.len(WINDOW) + self.lists.len(PROBATION) + self.lists.len(PROTECTED)
    }
}

impl Policy for WTinyLfu {
    fn name(&self) -> &'static str {
        "W-TINYLFU"
    }

    fn victim_rule(&self) -> &'static str {
        "the loser of the frequency duel between the window's overflow and the probation LRU"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.resident()
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        self.sketch.record(key);
        if let Some(n) = self.map.get(key) {
            match self.lists.list_of(n) {
                Some(PROBATION) => {
                    self.lists.push_front(PROTECTED, n);
                    if self.lists.len(PROTECTED) > self.protected_cap {
                        let d = self.lists.back(PROTECTED).expect("non-empty");
                        self.lists.push_front(PROBATION, d);
                    }
                }
                Some(l) => self.lists.push_front(l, n),
                None => unreachable!("resident keys are linked"),
            }
            return Access::Hit;
        }
        let n = self.lists.alloc(key);
        self.lists.push_front(WINDOW, n);
        self.map.insert(key, n);
        let mut evicted = None;
        if self.lists.len(WINDOW) > self.window_cap {
            let candidate = self.lists.back(WINDOW).expect("non-empty");
            self.lists.push_front(PROBATION, candidate);
            if self.resident() > self.capacity {
                let victim = self.lists.back(PROBATION).expect("non-empty");
                let (ck, vk) = (self.lists.key(candidate), self.lists.key(victim));
                let loser = if self.sketch.frequency(ck) > self.sketch.frequency(vk) {
                    victim
                } else {
                    candidate
                };
                let k = self.lists.key(loser);
                self.map.remove(k);
                self.lists.free(loser);
                evicted = Some(k);
            }
        }
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v = self.lists.keys(WINDOW);
        v.extend(self.lists.keys(PROTECTED));
        v.extend(self.lists.keys(PROBATION));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // Size 3 (window 1, probation/protected share 2): A A A B C D.
        // A miss (window), A hit, A hit (freq 3). B miss: window overflows, A becomes the
        // candidate; the cache (2 keys) is not over 3, so A joins probation. C miss: B is
        // the candidate, joins probation (A, B, C: 3 keys). D miss: C is the candidate;
        // over capacity, the victim is probation's LRU A: freq(C) = 1 ≤ freq(A) = 3, so C
        // is rejected. → 2 hits, 4 misses, 1 eviction (C, the newcomer).
        let mut p = WTinyLfu::new(3, 1);
        let ev: Vec<_> = [0, 0, 0, 1, 2, 3].iter().map(|&k| p.access(k)).collect();
        assert!(ev[1].is_hit() && ev[2].is_hit());
        assert_eq!(ev[3].evicted(), None);
        assert_eq!(ev[4].evicted(), None);
        assert_eq!(ev[5].evicted(), Some(2));
        assert!(p.contains(0) && p.contains(1) && p.contains(3));
    }
}
