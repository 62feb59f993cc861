//! A hierarchical bitset over `0..n`: 64-ary summary levels above a plain bitmap, so
//! insert, remove, minimum and maximum each touch one word per level (`O(log₆₄ n)`; three
//! levels cover 262,144 positions). OPT keeps the next-use positions of resident keys here.

/// Set of `u32` positions below a fixed bound.
#[derive(Clone, Debug)]
pub struct LevelBits {
    /// `levels[0]` is the bitmap; `levels[l + 1]` has one bit per non-zero word of `levels[l]`.
    levels: Vec<Vec<u64>>,
    len: u32,
}

impl LevelBits {
    /// An empty set able to hold `0..n`.
    pub fn new(n: u32) -> Self {
        let mut levels = Vec::new();
        let mut words = (n.max(1) as usize).div_ceil(64);
        loop {
            levels.push(vec![0u64; words]);
            if words == 1 {
                break;
            }
            words = words.div_ceil(64);
        }
        Self { levels, len: 0 }
    }

    /// Exclusive upper bound of storable positions.
    pub fn bound(&self) -> u32 {
        (self.levels[0].len() * 64).min(u32::MAX as usize) as u32
    }

    /// Number of positions in the set.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `i` is in the set.
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.levels[0]
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Adds `i` (below [`LevelBits::bound`]).
    #[inline]
    pub fn insert(&mut self, i: u32) {
        if self.contains(i) {
            return;
        }
        self.len += 1;
        let mut i = i as usize;
        for level in &mut self.levels {
            let w = &mut level[i / 64];
            let was_empty = *w == 0;
            *w |= 1 << (i % 64);
            if !was_empty {
                break;
            }
            i /= 64;
        }
    }

    /// Removes `i` if present.
    #[inline]
    pub fn remove(&mut self, i: u32) {
        if !self.contains(i) {
            return;
        }
        self.len -= 1;
        let mut i = i as usize;
        for level in &mut self.levels {
            let w = &mut level[i / 64];
            *w &= !(1 << (i % 64));
            if *w != 0 {
                break;
            }
            i /= 64;
        }
    }

    /// The largest position in the set.
    #[inline]
    pub fn max(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mut i = 0usize;
        for level in self.levels.iter().rev() {
            let w = level[i];
            i = i * 64 + 63 - w.leading_zeros() as usize;
        }
        Some(i as u32)
    }

    /// The smallest position in the set.
    #[inline]
    pub fn min(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mut i = 0usize;
        for level in self.levels.iter().rev() {
            let w = level[i];
            i = i * 64 + w.trailing_zeros() as usize;
        }
        Some(i as u32)
    }

    /// All positions, ascending (for display and for growing).
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.levels[0].iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    wi as u32 * 64 + b
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Mulberry32;
    use std::collections::BTreeSet;

    #[test]
    fn matches_a_btreeset() {
        for n in [1u32, 63, 64, 65, 5000, 300_000] {
            let mut b = LevelBits::new(n);
            let mut r = BTreeSet::new();
            let mut rng = Mulberry32::new(n);
            for _ in 0..3000 {
                let i = rng.below(n);
                if rng.below(2) == 0 {
                    b.insert(i);
                    r.insert(i);
                } else {
                    b.remove(i);
                    r.remove(&i);
                }
                assert_eq!(b.len() as usize, r.len());
                assert_eq!(b.max(), r.last().copied());
                assert_eq!(b.min(), r.first().copied());
            }
            assert!(b.iter().eq(r.iter().copied()));
        }
    }
}
