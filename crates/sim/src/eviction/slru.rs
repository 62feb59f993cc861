//! SLRU: segmented LRU.
//!
//! New keys enter a *probation* segment; a hit there promotes the key to the *protected*
//! segment, whose overflow is demoted back to the front of probation; victims come only from
//! the back of probation (or of protected, if probation is empty). A key read once — a scan —
//! never reaches protected. Karedla, Love & Wherry, "Caching strategies to improve disk
//! system performance", IEEE Computer 27(3), 1994. Default split 20% probation / 80%
//! protected, as in Caffeine's main space.

use super::keymap::KeyMap;
use super::list::Lists;
use super::{Access, Policy};

const PROBATION: u8 = 0;
const PROTECTED: u8 = 1;

/// Segmented LRU. `keys()` is protected MRU…LRU then probation MRU…LRU.
#[derive(Clone, Debug)]
pub struct Slru {
    lists: Lists,
    map: KeyMap,
    protected_cap: u32,
    capacity: u32,
}

impl Slru {
    /// SLRU with 80% of `capacity` (≥ 1) protected.
    pub fn new(capacity: u32) -> Self {
        Self::with_protected(capacity, 80)
    }

    /// SLRU with `protected_percent` of `capacity` in the protected segment.
    pub fn with_protected(capacity: u32, protected_percent: u32) -> Self {
        let capacity = capacity.max(1);
        let protected_cap =
            (u64::from(capacity) * u64::from(protected_percent.min(100)) / 100) as u32;
        Self {
            lists: Lists::new(2, capacity),
            map: KeyMap::new(),
            protected_cap,
            capacity,
        }
    }

    fn len_all(&self) -> u32 {
        self.lists.len(PROBATION) + self.lists.len(PROTECTED)
    }
}

impl Policy for Slru {
    fn name(&self) -> &'static str {
        "SLRU"
    }

    fn victim_rule(&self) -> &'static str {
        "the least recently used key of the probation segment (keys read only once)"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.len_all()
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        if let Some(n) = self.map.get(key) {
            self.lists.push_front(PROTECTED, n);
            if self.lists.len(PROTECTED) > self.protected_cap {
                let demoted = self.lists.back(PROTECTED).expect("non-empty");
                self.lists.push_front(PROBATION, demoted);
            }
            return Access::Hit;
        }
        let mut evicted = None;
        if self.len_all() >= self.capacity {
            let victim = self
                .lists
                .back(PROBATION)
                .or_else(|| self.lists.back(PROTECTED))
                .expect("full cache");
            let k = self.lists.key(victim);
            self.map.remove(k);
            self.lists.free(victim);
            evicted = Some(k);
        }
        let n = self.lists.alloc(key);
        self.lists.push_front(PROBATION, n);
        self.map.insert(key, n);
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v = self.lists.keys(PROTECTED);
        v.extend(self.lists.keys(PROBATION));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // Size 5 (protected 4): A B A C D E F → A hit promotes A to protected; at F the
        // cache (A | E D C B) is full and the probation LRU B is evicted, not A although A
        // is older. 1 hit, 6 misses, 1 eviction.
        let mut p = Slru::new(5);
        let ev: Vec<_> = [0, 1, 0, 2, 3, 4, 5].iter().map(|&k| p.access(k)).collect();
        assert!(ev[2].is_hit());
        assert_eq!(ev[6].evicted(), Some(1));
        assert_eq!(p.keys(), [0, 5, 4, 3, 2]);
        // A scan of fresh keys only churns probation: A stays.
        for k in 100..200 {
            p.access(k);
        }
        assert!(p.contains(0));
    }
}
