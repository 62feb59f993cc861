//! A map from byte strings with O(1) lookup, insertion and removal and a deterministic
//! order: the entries live in a vector (removal swaps the last one in, as `volatile` does)
//! and a FxHash index points into it. It stands for Redis' `dict` in the hash-table
//! encodings of hashes and sets: Redis' own order there depends on a per-process random
//! hash seed, so any fixed order is as faithful, and this one lets SPOP and SRANDMEMBER pick
//! a uniform member with one draw of the seeded RNG.

use super::Fixed;
use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
pub(crate) struct Table<V> {
    entries: Vec<(Vec<u8>, V)>,
    index: HashMap<Vec<u8>, u32, Fixed>,
}

impl<V: PartialEq> PartialEq for Table<V> {
    /// Same members and values, in any order.
    fn eq(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().all(|(k, v)| o.get(k) == Some(v))
    }
}

impl<V> Table<V> {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn get(&self, k: &[u8]) -> Option<&V> {
        self.index.get(k).map(|&i| &self.entries[i as usize].1)
    }

    pub(crate) fn contains(&self, k: &[u8]) -> bool {
        self.index.contains_key(k)
    }

    /// Sets `k` to `v`; whether `k` is new.
    pub(crate) fn insert(&mut self, k: &[u8], v: V) -> bool {
        match self.index.get(k) {
            Some(&i) => {
                self.entries[i as usize].1 = v;
                false
            }
            None => {
                self.index.insert(k.to_vec(), self.entries.len() as u32);
                self.entries.push((k.to_vec(), v));
                true
            }
        }
    }

    /// Removes `k`; its value if it was there.
    pub(crate) fn remove(&mut self, k: &[u8]) -> Option<V> {
        let i = self.index.remove(k)? as usize;
        let (_, v) = self.entries.swap_remove(i);
        if let Some((moved, _)) = self.entries.get(i) {
            self.index.insert(moved.clone(), i as u32);
        }
        Some(v)
    }

    /// The `i`-th entry in the table's order.
    pub(crate) fn at(&self, i: usize) -> (&[u8], &V) {
        let (k, v) = &self.entries[i];
        (k, v)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8], &V)> {
        self.entries.iter().map(|(k, v)| (k.as_slice(), v))
    }
}
