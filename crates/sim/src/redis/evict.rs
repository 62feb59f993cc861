//! `maxmemory` and eviction (`evict.c` of Redis 7.0), with memory accounted approximately.
//!
//! **Accounting.** `used_memory` is a fixed base (what a fresh `redis-server` 7.0 reports,
//! [`BASE_MEMORY`]) plus, per key, an estimate of Redis' allocations rounded up to
//! jemalloc's size classes: the dict entry, the key's sds, the value's `robj`, the value
//! itself (a small `int` string is a shared object, an `embstr` one allocation, a listpack
//! its bytes, a hash table an entry and two sds per field, a skiplist node per member, …),
//! the expires entry of a key with a TTL, plus the two dicts' bucket arrays (8 bytes times
//! the power of two at or above their size). Not counted: a replica's replication backlog
//! (up to 1 MB on a real primary with replicas) and the clients' buffers. While
//! `maxmemory` is set, each key's estimate is kept in its entry and updated after every
//! command that changed the key, so the total follows writes in O(changed keys) (a write to
//! a large collection re-measures that collection); without a limit INFO measures on demand.
//! The estimate is within a few percent of Redis' for many small strings and looser for
//! collections (checked against a real server by `tests/redis_differential.rs`).
//!
//! **Eviction.** Before each command, while the total is above the limit, a key is chosen
//! by the policy and deleted (counted in `evicted_keys`, its DEL sent to a replica, watchers
//! told); if none can be chosen (`noeviction`, or a `volatile-*` policy with no key that has
//! a TTL) a command flagged `denyoom` answers Redis' `OOM command not allowed when used
//! memory > 'maxmemory'.`. The LRU, LFU and TTL policies sample `maxmemory-samples` keys (5)
//! into Redis' 16-entry eviction pool and evict its best candidate, as the simulator's own
//! [`crate::eviction::redis_lru`] does; LRU idle time comes from the LRU clock (seconds, as
//! Redis' `LRU_CLOCK()`), LFU uses the same logarithmic counter as
//! [`crate::eviction::redis_lfu`] (`lfu-log-factor` 10, decay one per minute). Samples are
//! drawn with the seeded RNG from an index of the keys (every key for `allkeys-*`, the keys
//! with a TTL for `volatile-*`) that exists only while a limit and such a policy are set.

use super::{Entry, Fixed, SimRedis, Value};
use crate::eviction::redis_lfu::{LfuCounter, LFU_INIT_VAL};
use crate::rng::Mulberry32;
use std::collections::HashMap;

/// `used_memory` of a fresh `redis-server` 7.0.15 (x86-64, jemalloc) with no keys and one
/// client connected (`used_memory_startup` 876 KB and the client's buffers).
pub const BASE_MEMORY: u64 = 898_000;
const POOL: usize = crate::eviction::sampled::REDIS_POOL;

/// `maxmemory-policy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `noeviction`: writes that need memory are refused.
    NoEviction,
    /// `allkeys-lru`.
    AllkeysLru,
    /// `volatile-lru`.
    VolatileLru,
    /// `allkeys-lfu`.
    AllkeysLfu,
    /// `volatile-lfu`.
    VolatileLfu,
    /// `allkeys-random`.
    AllkeysRandom,
    /// `volatile-random`.
    VolatileRandom,
    /// `volatile-ttl`.
    VolatileTtl,
}

impl Policy {
    /// Every policy with its configuration name, in the order Redis lists them.
    pub const ALL: [(Policy, &'static str); 8] = [
        (Policy::VolatileLru, "volatile-lru"),
        (Policy::VolatileLfu, "volatile-lfu"),
        (Policy::VolatileRandom, "volatile-random"),
        (Policy::VolatileTtl, "volatile-ttl"),
        (Policy::AllkeysLru, "allkeys-lru"),
        (Policy::AllkeysLfu, "allkeys-lfu"),
        (Policy::AllkeysRandom, "allkeys-random"),
        (Policy::NoEviction, "noeviction"),
    ];

    /// The configuration name.
    pub fn name(self) -> &'static str {
        Policy::ALL
            .iter()
            .find(|(p, _)| *p == self)
            .map_or("noeviction", |(_, n)| n)
    }

    /// The policy named `name` (any case).
    pub fn parse(name: &[u8]) -> Option<Policy> {
        Policy::ALL
            .iter()
            .find(|(_, n)| name.eq_ignore_ascii_case(n.as_bytes()))
            .map(|(p, _)| *p)
    }

    fn allkeys(self) -> bool {
        matches!(
            self,
            Policy::AllkeysLru | Policy::AllkeysLfu | Policy::AllkeysRandom
        )
    }

    fn is_lfu(self) -> bool {
        matches!(self, Policy::AllkeysLfu | Policy::VolatileLfu)
    }
}

/// The memory limit, its policy and the accounting.
#[derive(Clone, Debug)]
pub(crate) struct Memory {
    pub(crate) maxmemory: u64,
    pub(crate) policy: Policy,
    pub(crate) samples: u32,
    /// Redis' LRU clock (seconds, 24 bits) at the current virtual time.
    pub(crate) clock: u32,
    /// Whether the server was out of memory when the current command began.
    pub(crate) pre_oom: bool,
    /// Estimated bytes of the dataset, while `maxmemory` is set.
    used: u64,
    /// Every key, for `allkeys-*` sampling, while such a policy and a limit are set.
    index: Option<Vec<Vec<u8>>>,
    pool: Vec<Option<(u64, Vec<u8>)>>,
}

impl Default for Memory {
    fn default() -> Self {
        Self {
            maxmemory: 0,
            policy: Policy::NoEviction,
            samples: crate::eviction::sampled::REDIS_SAMPLES,
            clock: super::expire::initial_lru_clock(),
            pre_oom: false,
            used: 0,
            index: None,
            pool: vec![None; POOL],
        }
    }
}

impl Memory {
    pub(crate) fn tracking(&self) -> bool {
        self.maxmemory > 0
    }

    pub(crate) fn lfu(&self) -> bool {
        self.policy.is_lfu()
    }

    /// `LFUGetTimeInMinutes()`.
    pub(crate) fn lfu_minutes(&self, unix_ms: i64) -> u32 {
        ((unix_ms / 60_000) as u32) & 0xFFFF
    }

    /// `robj.lru` of a new object.
    pub(crate) fn new_lru(&self, unix_ms: i64) -> u32 {
        if self.lfu() {
            (self.lfu_minutes(unix_ms) << 8) | u32::from(LFU_INIT_VAL)
        } else {
            self.clock
        }
    }

    /// Adds a new key to the sampling index; its position (`u32::MAX` when not indexed).
    pub(crate) fn index_new(&mut self, key: &[u8]) -> u32 {
        match &mut self.index {
            Some(ix) => {
                ix.push(key.to_vec());
                (ix.len() - 1) as u32
            }
            None => u32::MAX,
        }
    }

    /// A key was deleted: out of the index and of the total.
    pub(crate) fn forget(
        &mut self,
        keys: &mut HashMap<Vec<u8>, Entry, Fixed>,
        apos: u32,
        mem: u32,
    ) {
        self.used = self.used.saturating_sub(u64::from(mem));
        if let Some(ix) = &mut self.index {
            let pos = apos as usize;
            if pos < ix.len() {
                ix.swap_remove(pos);
                if let Some(moved) = ix.get(pos) {
                    if let Some(e) = keys.get_mut(moved.as_slice()) {
                        e.apos = pos as u32;
                    }
                }
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.used = 0;
        if let Some(ix) = &mut self.index {
            ix.clear();
        }
        self.pool = vec![None; POOL];
    }
}

/// Marks an entry accessed: the LRU clock, or `updateLFU` under an LFU policy.
pub(crate) fn touch(mem: &Memory, rand: &mut Mulberry32, unix_ms: i64, e: &mut Entry) {
    if mem.lfu() {
        let now = mem.lfu_minutes(unix_ms);
        let counter = lfu_decayed(e.lru, now);
        let counter = LfuCounter::default().log_incr(counter, rand);
        e.lru = (now << 8) | u32::from(counter);
    } else {
        e.lru = mem.clock;
    }
}

/// `LFUDecrAndReturn` with `lfu-decay-time` 1: one off per elapsed minute (16-bit minutes).
pub(crate) fn lfu_decayed(lru: u32, now_minutes: u32) -> u8 {
    let ldt = lru >> 8;
    let counter = (lru & 255) as u8;
    let elapsed = if now_minutes >= ldt {
        now_minutes - ldt
    } else {
        65535 - ldt + now_minutes
    };
    counter.saturating_sub(elapsed.min(255) as u8)
}

/// `estimateObjectIdleTime` in ms.
pub(crate) fn idle_ms(clock: u32, lru: u32) -> u64 {
    let idle = if clock >= lru {
        clock - lru
    } else {
        clock + ((1 << 24) - 1 - lru)
    };
    u64::from(idle) * 1000
}

/// jemalloc's size class for an allocation of `n` bytes.
pub(crate) fn alloc(n: usize) -> usize {
    if n <= 8 {
        return 8;
    }
    if n <= 128 {
        return n.div_ceil(16) * 16;
    }
    // Four classes per doubling above 128.
    let p = usize::BITS - (n - 1).leading_zeros(); // 2^p >= n
    let step = 1usize << (p - 3);
    n.div_ceil(step) * step
}

/// Bytes of an sds string holding `len` bytes (header by size, plus the NUL).
pub(crate) fn sds(len: usize) -> usize {
    let hdr = match len {
        0..=255 => 3,
        256..=65535 => 5,
        _ => 9,
    };
    alloc(hdr + len + 1)
}

/// Estimated bytes of one key and its value (the dicts' bucket arrays are counted apart).
fn key_bytes(key: &[u8], e: &Entry) -> u64 {
    let mut n = alloc(24) + sds(key.len()); // dict entry, key
    n += match &e.value {
        Value::Str(s) => match super::keys::encoding(&e.value, e.enc) {
            // 0..9999 are shared objects (unless an LRU/LFU limit gives each its own).
            "int" if super::num::parse_i64(s).is_some_and(|v| (0..10_000).contains(&v)) => 0,
            "int" => 16,
            "embstr" => alloc(16 + 3 + s.len() + 1),
            _ => 16 + sds(s.len()),
        },
        Value::List(l) => {
            let bytes: usize = l.iter().map(|v| v.len() + 2).sum();
            let nodes = l.len().div_ceil(128).max(1);
            16 + alloc(40) + nodes * (alloc(32) + 7) + bytes
        }
        Value::Hash(h) => 16 + h.mem_estimate(),
        Value::Set(s) => 16 + s.mem_estimate(),
        Value::ZSet(z) => 16 + z.mem_estimate(),
        Value::Stream(s) => 16 + s.mem_estimate(),
    };
    if e.expire >= 0 {
        n += alloc(24);
    }
    n as u64
}

/// The main and expires dicts' bucket arrays (a power of two at least the size).
fn buckets(keys: usize, volatile: usize) -> u64 {
    let table = |n: usize| {
        if n == 0 {
            0
        } else {
            8 * n.next_power_of_two() as u64
        }
    };
    table(keys) + table(volatile)
}

impl SimRedis {
    /// `used_memory`: the base plus the dataset's estimate.
    pub(crate) fn used_memory(&self) -> u64 {
        let data = if self.mem.tracking() {
            self.mem.used
        } else {
            self.keys.iter().map(|(k, e)| key_bytes(k, e)).sum()
        };
        BASE_MEMORY + data + buckets(self.keys.len(), self.volatile.len())
    }

    /// Re-measures `key` after a command changed it.
    pub(crate) fn account(&mut self, key: &[u8]) {
        if let Some(e) = self.keys.get_mut(key) {
            let new = key_bytes(key, e).min(u64::from(u32::MAX));
            self.mem.used = self.mem.used - u64::from(e.mem) + new;
            e.mem = new as u32;
        }
    }

    /// Applies a new limit or policy: accounting and the sampling index start or stop.
    pub(crate) fn memory_config_changed(&mut self) {
        let was = self.mem.index.is_some();
        let want = self.mem.tracking() && self.mem.policy.allkeys();
        if want && !was {
            let mut ix = Vec::with_capacity(self.keys.len());
            for (k, e) in self.keys.iter_mut() {
                e.apos = ix.len() as u32;
                ix.push(k.clone());
            }
            self.mem.index = Some(ix);
        } else if !want && was {
            self.mem.index = None;
        }
        if self.mem.tracking() {
            let mut used = 0;
            for (k, e) in self.keys.iter_mut() {
                let n = key_bytes(k, e).min(u64::from(u32::MAX));
                e.mem = n as u32;
                used += n;
            }
            self.mem.used = used;
        }
        self.mem.pool = vec![None; POOL];
        if !self.mem.tracking() {
            self.mem.pre_oom = false;
        }
        self.update_track();
    }

    /// `performEvictions`: evicts until under the limit; `false` when it cannot.
    pub(crate) fn perform_evictions(&mut self) -> bool {
        let limit = self.mem.maxmemory;
        while self.used_memory() > limit {
            let Some(victim) = self.pick_victim() else {
                return false;
            };
            self.delete(&victim);
            self.stat_evicted += 1;
            self.expired_deleted(&victim);
        }
        true
    }

    /// The key the policy evicts next, if any.
    fn pick_victim(&mut self) -> Option<Vec<u8>> {
        let policy = self.mem.policy;
        let from_all = policy.allkeys();
        let pool_len = if from_all {
            self.mem.index.as_ref().map_or(0, Vec::len)
        } else {
            self.volatile.len()
        };
        if pool_len == 0 || policy == Policy::NoEviction {
            return None;
        }
        let sample = |s: &mut SimRedis| -> Vec<u8> {
            let i = s.rand.below(pool_len as u32) as usize;
            if from_all {
                s.mem.index.as_ref().expect("indexed")[i].clone()
            } else {
                s.volatile[i].clone()
            }
        };
        if matches!(policy, Policy::AllkeysRandom | Policy::VolatileRandom) {
            return Some(sample(self));
        }
        // evictionPoolPopulate, then the best candidate that still exists.
        for _ in 0..self.mem.samples {
            let key = sample(self);
            let e = &self.keys[key.as_slice()];
            let idle = match policy {
                Policy::AllkeysLfu | Policy::VolatileLfu => {
                    255 - u64::from(lfu_decayed(e.lru, self.mem.lfu_minutes(self.mstime())))
                }
                Policy::VolatileTtl => u64::MAX - e.expire as u64,
                _ => idle_ms(self.mem.clock, e.lru),
            };
            pool_insert(&mut self.mem.pool, idle, key);
        }
        for k in (0..POOL).rev() {
            let Some((_, key)) = self.mem.pool[k].take() else {
                continue;
            };
            let ok = match self.keys.get(key.as_slice()) {
                Some(e) => from_all || e.expire >= 0,
                None => false,
            };
            if ok {
                return Some(key);
            }
        }
        None
    }
}

/// Inserts a candidate into the eviction pool (ascending idle; full pool drops its best
/// no-one: the smallest goes when a bigger one comes), as `evictionPoolPopulate`.
fn pool_insert(pool: &mut [Option<(u64, Vec<u8>)>], idle: u64, key: Vec<u8>) {
    let n = pool.len();
    let mut k = 0;
    while k < n && pool[k].as_ref().is_some_and(|(i, _)| *i < idle) {
        k += 1;
    }
    if k == 0 && pool[n - 1].is_some() {
        return; // worse than every candidate of a full pool
    } else if k < n && pool[k].is_none() {
        // an empty slot
    } else if pool[n - 1].is_none() {
        pool[k..].rotate_right(1); // room on the right
    } else {
        k -= 1;
        pool[..=k].rotate_left(1); // drop the worst on the left
    }
    pool[k] = Some((idle, key));
}

impl SimRedis {
    /// `key`'s bytes as [`SimRedis::used_memory`] counts them (the module's estimate of
    /// Redis' allocations: the dict entry, the key, the value, its expires entry), or `None`
    /// when the key does not exist. Not `MEMORY USAGE` (which samples a large collection),
    /// and approximate in the same way as INFO's `used_memory` here.
    pub fn key_memory_estimate(&self, key: &[u8]) -> Option<u64> {
        self.keys.get(key).map(|e| key_bytes(key, e))
    }
}

/// What [`SimRedis::key_memory_estimate`] would count for a sorted set under a key of
/// `key_len` bytes holding members of the given lengths, with or without a TTL — without
/// building it (the presence lab's "if every viewer were in the ZSET" at sizes it does not
/// store). The encoding is chosen as `zsets` does: a listpack up to 128 members of at most 64
/// bytes, else a skiplist and its dict.
pub fn zset_estimate(key_len: usize, members: impl Iterator<Item = usize>, ttl: bool) -> u64 {
    let (mut n, mut longest, mut lp, mut sl) = (0usize, 0usize, 0usize, 0usize);
    for len in members {
        n += 1;
        longest = longest.max(len);
        lp += len + 12;
        sl += alloc(24) + alloc(40) + sds(len);
    }
    let value = if n <= 128 && longest <= 64 {
        alloc(7 + lp)
    } else {
        alloc(96) + n.next_power_of_two() * 8 + sl
    };
    (alloc(24) + sds(key_len) + 16 + value + if ttl { alloc(24) } else { 0 }) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jemalloc_classes() {
        let classes: Vec<usize> = [1, 8, 9, 24, 33, 128, 129, 161, 200, 257, 1025]
            .iter()
            .map(|&n| alloc(n))
            .collect();
        assert_eq!(classes, [8, 8, 16, 32, 48, 128, 160, 192, 224, 320, 1280]);
    }

    #[test]
    fn the_pool_keeps_the_longest_idle() {
        let mut pool = vec![None; 4];
        for (i, idle) in [5u64, 1, 9, 3, 7, 2, 8].iter().enumerate() {
            pool_insert(&mut pool, *idle, vec![i as u8]);
        }
        let idles: Vec<u64> = pool.iter().map(|e| e.as_ref().unwrap().0).collect();
        assert_eq!(idles, [5, 7, 8, 9]);
    }
}
