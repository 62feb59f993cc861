//! A key → slot map tuned for the dense `u32` keys the traces produce.
//!
//! Keys below [`DENSE_LIMIT`] live in a plain `Vec` indexed by key (one bounds check and one
//! load per lookup, no hashing); larger keys, which only hand-written traces produce, fall
//! back to a `HashMap`. Lookups never iterate, so iteration order cannot leak into results.

use std::collections::HashMap;

/// Keys below this bound are stored densely (at most 16 MiB of slots).
pub const DENSE_LIMIT: u32 = 1 << 22;
const ABSENT: u32 = u32::MAX;

/// Map from key to a `u32` slot (slot `u32::MAX` is reserved).
#[derive(Clone, Debug, Default)]
pub struct KeyMap {
    dense: Vec<u32>,
    sparse: HashMap<u32, u32>,
}

impl KeyMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The slot stored for `key`.
    #[inline]
    pub fn get(&self, key: u32) -> Option<u32> {
        match self.dense.get(key as usize) {
            Some(&v) if v != ABSENT => Some(v),
            Some(_) => None,
            None if key >= DENSE_LIMIT => self.sparse.get(&key).copied(),
            None => None,
        }
    }

    /// Whether `key` is present.
    #[inline]
    pub fn contains(&self, key: u32) -> bool {
        self.get(key).is_some()
    }

    /// Stores `slot` for `key`, replacing any previous slot.
    #[inline]
    pub fn insert(&mut self, key: u32, slot: u32) {
        debug_assert_ne!(slot, ABSENT);
        if key < DENSE_LIMIT {
            let k = key as usize;
            if k >= self.dense.len() {
                let want = (k + 1).next_power_of_two().max(64);
                self.dense.resize(want.min(DENSE_LIMIT as usize), ABSENT);
            }
            self.dense[k] = slot;
        } else {
            self.sparse.insert(key, slot);
        }
    }

    /// Removes `key`, returning its slot.
    #[inline]
    pub fn remove(&mut self, key: u32) -> Option<u32> {
        if key < DENSE_LIMIT {
            let v = self.dense.get_mut(key as usize)?;
            let old = std::mem::replace(v, ABSENT);
            (old != ABSENT).then_some(old)
        } else {
            self.sparse.remove(&key)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_keys() {
        let mut m = KeyMap::new();
        m.insert(3, 7);
        m.insert(u32::MAX, 9);
        assert_eq!(m.get(3), Some(7));
        assert_eq!(m.get(4), None);
        assert_eq!(m.get(u32::MAX), Some(9));
        assert_eq!(m.remove(3), Some(7));
        assert_eq!(m.remove(3), None);
        assert_eq!(m.remove(u32::MAX), Some(9));
        assert!(!m.contains(u32::MAX));
    }
}
