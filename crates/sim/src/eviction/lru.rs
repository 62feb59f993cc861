//! LRU: least recently used.
//!
//! A hit moves the key to the front; the back (least recently used) key leaves. The classic
//! hash map + doubly linked list of the seed's §2, `O(1)` per access; analysed as the stack
//! algorithm by Mattson, Gecsei, Slutz & Traiger (IBM Systems Journal 1970). In the seed's
//! simulator this is `c.delete(k); c.set(k, 0)` on a hit.

use super::linked::{Linked, LinkedRule};

/// LRU's rule for the linked engine.
#[derive(Clone, Copy, Debug)]
pub struct LruRule;

impl LinkedRule for LruRule {
    const NAME: &'static str = "LRU";
    const VICTIM_RULE: &'static str = "the least recently used key";
    const MOVE_ON_HIT: bool = true;
    const SECOND_CHANCE: bool = false;
}

/// Least-recently-used cache. `keys()` is MRU … LRU.
pub type Lru = Linked<LruRule>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::{Access, Policy};

    #[test]
    fn hand_worked() {
        // A B C A B at size 2: A miss, B miss, C miss evicts A, A miss evicts B,
        // B miss evicts C → 0 hits, 5 misses, 3 evictions.
        let mut p = Lru::new(2);
        let ev: Vec<Option<u32>> = [0, 1, 2, 0, 1]
            .iter()
            .map(|&k| p.access(k).evicted())
            .collect();
        assert_eq!(ev, [None, None, Some(0), Some(1), Some(2)]);
        // A B A C at size 2: A miss, B miss, A hit (A becomes MRU), C miss evicts B.
        let mut p = Lru::new(2);
        assert_eq!(p.access(0), Access::Miss { evicted: None });
        assert_eq!(p.access(1), Access::Miss { evicted: None });
        assert_eq!(p.access(0), Access::Hit);
        assert_eq!(p.access(2), Access::Miss { evicted: Some(1) });
        assert_eq!(p.keys(), [2, 0]);
    }
}
