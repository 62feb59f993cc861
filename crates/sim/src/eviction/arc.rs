//! ARC: Adaptive Replacement Cache.
//!
//! Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", USENIX FAST 2003.
//! `T1` holds keys seen once recently, `T2` keys seen at least twice; `B1`/`B2` remember the
//! keys recently evicted from each (ghosts, keys only). A miss that hits `B1` means recency
//! was under-served, so the target size `p` of `T1` grows; a `B2` hit shrinks it. `REPLACE`
//! evicts from `T1` when it is above target, else from `T2`. Follows the paper's Fig. 4
//! with integer adaptation steps (`max(1, |B2|/|B1|)`), as Caffeine's simulator does.

use super::keymap::KeyMap;
use super::list::Lists;
use super::{Access, Policy};

const T1: u8 = 0;
const T2: u8 = 1;
const B1: u8 = 2;
const B2: u8 = 3;

/// ARC cache. `keys()` is `T2` MRU…LRU then `T1` MRU…LRU.
#[derive(Clone, Debug)]
pub struct Arc {
    lists: Lists,
    map: KeyMap,
    p: u32,
    capacity: u32,
}

impl Arc {
    /// An empty ARC of `capacity` keys (≥ 1).
    pub fn new(capacity: u32) -> Self {
        let capacity = capacity.max(1);
        Self {
            lists: Lists::new(4, capacity.saturating_mul(2)),
            map: KeyMap::new(),
            p: 0,
            capacity,
        }
    }

    /// The adaptive target size of `T1`.
    pub fn target(&self) -> u32 {
        self.p
    }

    fn len_of(&self, l: u8) -> u32 {
        self.lists.len(l)
    }

    /// `REPLACE(x, p)`: moves one resident key to its ghost list, returning it.
    fn replace(&mut self, in_b2: bool) -> Option<u32> {
        if self.len_of(T1) + self.len_of(T2) < self.capacity {
            return None;
        }
        let t1 = self.len_of(T1);
        let from_t1 = t1 >= 1 && ((in_b2 && t1 == self.p) || t1 > self.p);
        let (src, ghost) = if from_t1 { (T1, B1) } else { (T2, B2) };
        let y = self
            .lists
            .back(src)
            .or_else(|| self.lists.back(if from_t1 { T2 } else { T1 }))
            .expect("full cache");
        self.lists.push_front(ghost, y);
        Some(self.lists.key(y))
    }

    fn drop_back(&mut self, l: u8) {
        if let Some(n) = self.lists.back(l) {
            self.map.remove(self.lists.key(n));
            self.lists.free(n);
        }
    }
}

impl Policy for Arc {
    fn name(&self) -> &'static str {
        "ARC"
    }

    fn victim_rule(&self) -> &'static str {
        "the LRU key of T1 (seen once) or T2 (seen twice), whichever exceeds its adaptive target"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.len_of(T1) + self.len_of(T2)
    }

    fn contains(&self, key: u32) -> bool {
        self.map
            .get(key)
            .is_some_and(|n| matches!(self.lists.list_of(n), Some(T1 | T2)))
    }

    fn access(&mut self, key: u32) -> Access {
        let c = self.capacity;
        match self.map.get(key).map(|n| (n, self.lists.list_of(n))) {
            // Case I: a hit in T1 or T2 moves the key to the MRU end of T2.
            Some((n, Some(T1 | T2))) => {
                self.lists.push_front(T2, n);
                Access::Hit
            }
            // Case II: ghost hit in B1 — favour recency.
            Some((n, Some(B1))) => {
                let (b1, b2) = (self.len_of(B1), self.len_of(B2));
                let delta = if b1 >= b2 { 1 } else { b2 / b1 };
                self.p = (self.p + delta).min(c);
                self.lists.unlink(n);
                let evicted = self.replace(false);
                self.lists.push_front(T2, n);
                Access::Miss { evicted }
            }
            // Case III: ghost hit in B2 — favour frequency.
            Some((n, _)) => {
                let (b1, b2) = (self.len_of(B1), self.len_of(B2));
                let delta = if b2 >= b1 { 1 } else { b1 / b2 };
                self.p = self.p.saturating_sub(delta);
                self.lists.unlink(n);
                let evicted = self.replace(true);
                self.lists.push_front(T2, n);
                Access::Miss { evicted }
            }
            // Case IV: a brand-new key.
            None => {
                let l1 = self.len_of(T1) + self.len_of(B1);
                let total = l1 + self.len_of(T2) + self.len_of(B2);
                let mut evicted = None;
                if l1 == c {
                    if self.len_of(T1) < c {
                        self.drop_back(B1);
                        evicted = self.replace(false);
                    } else {
                        let y = self.lists.back(T1).expect("T1 is full");
                        evicted = Some(self.lists.key(y));
                        self.drop_back(T1);
                    }
                } else if total >= c {
                    if total >= 2 * c {
                        self.drop_back(B2);
                    }
                    evicted = self.replace(false);
                }
                let n = self.lists.alloc(key);
                self.lists.push_front(T1, n);
                self.map.insert(key, n);
                Access::Miss { evicted }
            }
        }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v = self.lists.keys(T2);
        v.extend(self.lists.keys(T1));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // Size 2: A B → T1 = [B A]. A hit → T2 = [A], T1 = [B]. C: |T1|+|B1| = 1 < 2,
        // total 2 ≥ 2 → REPLACE: |T1| = 1 > p = 0 → B goes to ghost B1; T1 = [C].
        // B again: ghost hit in B1 → p = 1, REPLACE: |T1| = 1 = p, not in B2 → evict T2's
        // LRU A into B2; B enters T2. → 1 hit, 4 misses, 2 evictions (B, A).
        let mut p = Arc::new(2);
        let ev: Vec<_> = [0, 1, 0, 2, 1].iter().map(|&k| p.access(k)).collect();
        assert!(ev[2].is_hit());
        assert_eq!(ev[3].evicted(), Some(1));
        assert_eq!(ev[4].evicted(), Some(0));
        assert_eq!(p.target(), 1);
        assert_eq!(p.keys(), [1, 2]);
    }
}
