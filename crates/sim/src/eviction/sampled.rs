//! The sampling engine shared by Redis' approximated LRU and LFU (`evict.c`).
//!
//! Redis keeps no eviction order. When memory is full it samples `maxmemory-samples` keys
//! and, since 3.0, merges them into an *eviction pool* of the 16 best candidates seen so
//! far (sorted by "idle" score, larger = better victim), then evicts the best pool entry
//! whose key still exists. This engine reproduces `evictionPoolPopulate` and the pick loop
//! of `performEvictions` (including their quirks: duplicates may enter the pool, and a pool
//! entry's score is not refreshed if its key is read again before it is chosen). Sampling
//! here is uniform with replacement via `mulberry32`, where Redis' `dictGetSomeKeys` walks
//! adjacent hash buckets; with `pool = 0` it is the Redis 2.8 scheme (oldest of k samples).
//!
//! Time is virtual: one access is one tick. Each access and each sample is `O(1)`; an
//! eviction costs `O(samples + pool)`.

use super::keymap::KeyMap;
use super::{Access, Policy};
use crate::rng::Mulberry32;

/// Size of Redis' eviction pool (`EVPOOL_SIZE`).
pub const REDIS_POOL: usize = 16;
/// Redis' default `maxmemory-samples`.
pub const REDIS_SAMPLES: u32 = 5;

/// Per-policy behaviour for the sampling engine.
pub trait SampleRule {
    /// Per-key metadata (Redis keeps it in the object's 24-bit `lru` field).
    type Meta: Copy;
    /// Display name.
    const NAME: &'static str;
    /// Display name of the pool-less (Redis 2.8) variant.
    const NAME_NO_POOL: &'static str;
    /// Whom the policy evicts.
    const VICTIM_RULE: &'static str;
    /// Metadata of a newly written key at tick `now`.
    fn admit(&mut self, now: u64) -> Self::Meta;
    /// Updates metadata on a read hit at tick `now`.
    fn touch(&mut self, meta: &mut Self::Meta, now: u64, rng: &mut Mulberry32);
    /// Eviction score at tick `now`: larger means a better victim.
    fn idle(&self, meta: &Self::Meta, now: u64) -> u64;
}

/// A cache evicting by sampling, under rule `R`. `keys()` is sorted by current score,
/// best-kept first (the next victim is *probably* near the end; sampling decides).
#[derive(Clone, Debug)]
pub struct Sampled<R: SampleRule> {
    rule: R,
    rng: Mulberry32,
    map: KeyMap,
    members: Vec<u32>,
    meta: Vec<R::Meta>,
    pool: Vec<(u64, u32)>,
    pool_size: usize,
    samples: u32,
    now: u64,
    capacity: u32,
}

impl<R: SampleRule> Sampled<R> {
    /// An empty cache of `capacity` keys (≥ 1) drawing `samples` keys (≥ 1) per eviction
    /// round into a pool of `pool_size` entries (0 = no pool).
    pub fn with_rule(rule: R, capacity: u32, seed: u32, samples: u32, pool_size: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            rule,
            rng: Mulberry32::new(seed),
            map: KeyMap::new(),
            members: Vec::with_capacity(super::reserve_hint(capacity)),
            meta: Vec::with_capacity(super::reserve_hint(capacity)),
            pool: Vec::with_capacity(pool_size),
            pool_size,
            samples: samples.max(1),
            now: 0,
            capacity,
        }
    }

    /// The rule (for inspecting its parameters).
    pub fn rule(&self) -> &R {
        &self.rule
    }

    /// The current virtual time (number of accesses so far).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Current eviction score of a resident key.
    pub fn score(&self, key: u32) -> Option<u64> {
        self.map
            .get(key)
            .map(|i| self.rule.idle(&self.meta[i as usize], self.now))
    }

    /// `evictionPoolPopulate`: merge one round of samples into the sorted pool.
    fn populate(&mut self) {
        let len = self.members.len() as u32;
        for _ in 0..self.samples {
            let i = self.rng.below(len) as usize;
            let key = self.members[i];
            let idle = self.rule.idle(&self.meta[i], self.now);
            let mut k = 0;
            while k < self.pool.len() && self.pool[k].0 < idle {
                k += 1;
            }
            if k == 0 && self.pool.len() == self.pool_size {
                continue; // worse than everything in a full pool
            }
            if self.pool.len() < self.pool_size {
                self.pool.insert(k, (idle, key));
            } else {
                // Full: drop the entry with the smallest idle and insert at k - 1.
                self.pool.remove(0);
                self.pool.insert(k - 1, (idle, key));
            }
        }
    }

    /// Chooses the victim's index in `members`.
    fn choose(&mut self) -> usize {
        if self.pool_size == 0 {
            let len = self.members.len() as u32;
            let mut best: Option<(u64, usize)> = None;
            for _ in 0..self.samples {
                let i = self.rng.below(len) as usize;
                let idle = self.rule.idle(&self.meta[i], self.now);
                if best.is_none_or(|(b, _)| idle > b) {
                    best = Some((idle, i));
                }
            }
            return best.expect("samples ≥ 1").1;
        }
        loop {
            self.populate();
            while let Some((_, key)) = self.pool.pop() {
                if let Some(i) = self.map.get(key) {
                    return i as usize;
                }
            }
        }
    }

    fn remove_at(&mut self, i: usize) -> u32 {
        let key = self.members.swap_remove(i);
        self.meta.swap_remove(i);
        self.map.remove(key);
        if let Some(&moved) = self.members.get(i) {
            self.map.insert(moved, i as u32);
        }
        key
    }
}

impl<R: SampleRule> Policy for Sampled<R> {
    fn name(&self) -> &'static str {
        if self.pool_size == 0 {
            R::NAME_NO_POOL
        } else {
            R::NAME
        }
    }

    fn victim_rule(&self) -> &'static str {
        R::VICTIM_RULE
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.members.len() as u32
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        self.now += 1;
        if let Some(i) = self.map.get(key) {
            self.rule
                .touch(&mut self.meta[i as usize], self.now, &mut self.rng);
            return Access::Hit;
        }
        let mut evicted = None;
        if self.members.len() as u32 >= self.capacity {
            let i = self.choose();
            evicted = Some(self.remove_at(i));
        }
        let meta = self.rule.admit(self.now);
        self.map.insert(key, self.members.len() as u32);
        self.members.push(key);
        self.meta.push(meta);
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v: Vec<(u64, u32)> = self
            .members
            .iter()
            .zip(&self.meta)
            .map(|(&k, m)| (self.rule.idle(m, self.now), k))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, k)| k).collect()
    }
}
