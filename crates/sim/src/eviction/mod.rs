//! Cache eviction: one policy per file behind the small [`Policy`] trait, a [`registry`]
//! mapping names to constructors, one [`Stats`] type, the seed's traces and runner, and the
//! step-through / curve / sampling experiments built on them.
//!
//! Layout follows Caffeine's simulator: policies that differ only in "what a hit does" and
//! "who is the victim" share one engine ([`linked`] serves FIFO, LRU and CLOCK; [`sampled`]
//! serves both Redis approximations), and every number a chart shows comes from [`Stats`].

pub mod arc;
pub mod bitset;
pub mod clock;
pub mod fifo;
pub mod heap;
pub mod keymap;
pub mod lfu;
pub mod linked;
pub mod list;
pub mod lru;
pub mod lru_trace;
pub mod mrc;
pub mod opt;
pub mod random;
pub mod redis_lfu;
pub mod redis_lru;
pub mod registry;
pub mod runner;
pub mod sampled;
pub mod sampling;
pub mod sieve;
pub mod sketch;
pub mod slru;
pub mod tinylfu;
pub mod trace;
pub mod two_q;

/// Up-front reservation for a cache of `capacity` keys: exact for small caches, bounded for
/// huge ones (which then grow as keys arrive instead of allocating everything at once).
pub(crate) fn reserve_hint(capacity: u32) -> usize {
    capacity.min(1 << 16) as usize
}

/// What one access did to the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Access {
    /// The key was resident.
    Hit,
    /// The key was not resident. `evicted` names the key that left the cache because of this
    /// access: usually an older entry; the requested key itself when the policy declined to
    /// keep it (OPT's bypass, W-TinyLFU's admission filter).
    Miss {
        /// The key removed from the cache, if any.
        evicted: Option<u32>,
    },
}

impl Access {
    /// Whether this access was a hit.
    #[inline]
    pub fn is_hit(self) -> bool {
        matches!(self, Access::Hit)
    }

    /// The key evicted by this access, if any.
    #[inline]
    pub fn evicted(self) -> Option<u32> {
        match self {
            Access::Hit => None,
            Access::Miss { evicted } => evicted,
        }
    }
}

/// A cache replacement policy over `u32` keys with unit-sized entries.
///
/// `access` is the only mutating call: it looks the key up, updates the policy's metadata
/// on a hit, and on a miss admits the key (evicting when full). Each implementation must be
/// `O(1)` or `O(log n)` per access.
pub trait Policy {
    /// Display name, upper case like the seed's tables (`"LRU"`, `"W-TINYLFU"`).
    fn name(&self) -> &'static str;

    /// One line saying whom this policy evicts, for a UI's "why was this key evicted".
    fn victim_rule(&self) -> &'static str;

    /// Maximum number of resident keys.
    fn capacity(&self) -> u32;

    /// Number of resident keys (ghost entries are not counted).
    fn len(&self) -> u32;

    /// Whether no key is resident.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `key` is resident (no metadata changes).
    fn contains(&self, key: u32) -> bool;

    /// Records one request for `key`.
    fn access(&mut self, key: u32) -> Access;

    /// Resident keys, safest first and the next victim last where the policy has such an
    /// order (LRU: MRU … LRU; FIFO: newest … oldest). Sampled and random policies document
    /// their own order. Meant for display: it may allocate and sort.
    fn keys(&self) -> Vec<u32>;
}

/// Counters of one run, shared by every chart and table.
///
/// `scored_*` count only the requests the runner scores (user keys after warm-up, as the
/// seed's `run()` does); the others count every access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// All accesses.
    pub requests: u64,
    /// All hits.
    pub hits: u64,
    /// All misses.
    pub misses: u64,
    /// Keys removed from the cache (including bypassed / rejected new keys).
    pub evictions: u64,
    /// Accesses that count towards the hit ratio.
    pub scored_requests: u64,
    /// Hits among the scored accesses.
    pub scored_hits: u64,
}

impl Stats {
    /// Adds one access.
    #[inline]
    pub fn record(&mut self, access: Access, scored: bool) {
        self.requests += 1;
        let hit = access.is_hit();
        self.hits += u64::from(hit);
        self.misses += u64::from(!hit);
        self.evictions += u64::from(access.evicted().is_some());
        self.scored_requests += u64::from(scored);
        self.scored_hits += u64::from(scored && hit);
    }

    /// Scored hit ratio in percent, computed like the seed (`hits / scored * 100`); 0 when
    /// nothing was scored.
    pub fn hit_percent(&self) -> f64 {
        if self.scored_requests == 0 {
            0.0
        } else {
            self.scored_hits as f64 / self.scored_requests as f64 * 100.0
        }
    }
}

pub use registry::{by_name, PolicyInfo, Spec, UnknownPolicy, POLICIES};
pub use runner::{run, Replay, Step};
pub use trace::{Trace, TraceKind, TraceSpec};
