//! The policy registry: names → constructors (Caffeine's `Registry`).
//!
//! A UI lists [`POLICIES`] to build its picker; `labsim` and the runner call [`by_name`].

use super::arc::Arc;
use super::clock::Clock;
use super::fifo::Fifo;
use super::lfu::Lfu;
use super::lru::Lru;
use super::opt::Opt;
use super::random::Random;
use super::redis_lfu::RedisLfu;
use super::redis_lru::RedisLru;
use super::sieve::Sieve;
use super::slru::Slru;
use super::tinylfu::WTinyLfu;
use super::two_q::TwoQ;
use super::Policy;
use std::fmt;

/// What a constructor gets.
#[derive(Clone, Copy, Debug)]
pub struct Spec<'a> {
    /// Cache size in keys (values below 1 are raised to 1).
    pub capacity: u32,
    /// Seed of the policy's own randomness (RANDOM, sampled policies, hashing).
    pub seed: u32,
    /// The full trace the policy will see, for offline policies (OPT); online ones ignore it.
    pub future: &'a [u32],
}

/// One registry entry.
#[derive(Clone, Copy)]
pub struct PolicyInfo {
    /// Registry name (lower case), as typed on the command line.
    pub name: &'static str,
    /// Other accepted spellings.
    pub aliases: &'static [&'static str],
    /// One-line description for pickers and `labsim policies`.
    pub summary: &'static str,
    /// Needs the future (only OPT).
    pub offline: bool,
    /// Builds the policy.
    pub build: fn(&Spec) -> Box<dyn Policy>,
}

impl fmt::Debug for PolicyInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyInfo")
            .field("name", &self.name)
            .finish()
    }
}

/// Every policy, in a sensible display order (the seed's five first).
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "fifo",
        aliases: &[],
        summary: "first in, first out; hits change nothing",
        offline: false,
        build: |s| Box::new(Fifo::new(s.capacity)),
    },
    PolicyInfo {
        name: "random",
        aliases: &["rand"],
        summary: "evict a uniformly random key (mulberry32(seed))",
        offline: false,
        build: |s| Box::new(Random::new(s.capacity, s.seed)),
    },
    PolicyInfo {
        name: "lru",
        aliases: &[],
        summary: "least recently used: hash map + doubly linked list",
        offline: false,
        build: |s| Box::new(Lru::new(s.capacity)),
    },
    PolicyInfo {
        name: "lfu",
        aliases: &[],
        summary: "least frequently used, no aging (ties: oldest admission)",
        offline: false,
        build: |s| Box::new(Lfu::new(s.capacity)),
    },
    PolicyInfo {
        name: "opt",
        aliases: &["belady", "min"],
        summary: "Belady's offline optimum: evict the key needed furthest ahead",
        offline: true,
        build: |s| Box::new(Opt::new(s.capacity, s.future)),
    },
    PolicyInfo {
        name: "clock",
        aliases: &["second-chance"],
        summary: "FIFO with a reference bit: referenced keys get a second chance",
        offline: false,
        build: |s| Box::new(Clock::new(s.capacity)),
    },
    PolicyInfo {
        name: "sieve",
        aliases: &[],
        summary: "SIEVE (NSDI 2024): FIFO queue with a visited bit and a moving hand",
        offline: false,
        build: |s| Box::new(Sieve::new(s.capacity)),
    },
    PolicyInfo {
        name: "redis-lru",
        aliases: &["allkeys-lru", "sampled-lru"],
        summary: "Redis allkeys-lru: 5 samples + 16-entry eviction pool",
        offline: false,
        build: |s| Box::new(RedisLru::redis(s.capacity, s.seed)),
    },
    PolicyInfo {
        name: "redis-lru-2.8",
        aliases: &["redis-lru-nopool"],
        summary: "Redis 2.8 sampled LRU: oldest of 5 samples, no pool",
        offline: false,
        build: |s| Box::new(RedisLru::new(s.capacity, s.seed, 5, 0)),
    },
    PolicyInfo {
        name: "redis-lfu",
        aliases: &["allkeys-lfu"],
        summary: "Redis allkeys-lfu: 8-bit log counter (factor 10, decay 1 min), pool",
        offline: false,
        build: |s| Box::new(RedisLfu::redis(s.capacity, s.seed)),
    },
    PolicyInfo {
        name: "slru",
        aliases: &["segmented-lru"],
        summary: "segmented LRU: 20% probation, 80% protected",
        offline: false,
        build: |s| Box::new(Slru::new(s.capacity)),
    },
    PolicyInfo {
        name: "2q",
        aliases: &["twoq"],
        summary: "2Q (VLDB 1994): A1in FIFO 25%, A1out ghosts 50%, Am LRU",
        offline: false,
        build: |s| Box::new(TwoQ::new(s.capacity)),
    },
    PolicyInfo {
        name: "arc",
        aliases: &[],
        summary: "ARC (FAST 2003): self-tuning recency/frequency with ghost lists",
        offline: false,
        build: |s| Box::new(Arc::new(s.capacity)),
    },
    PolicyInfo {
        name: "w-tinylfu",
        aliases: &["wtinylfu", "tinylfu", "caffeine"],
        summary: "W-TinyLFU (ACM ToS 2017): 1% LRU window, SLRU main, sketch admission",
        offline: false,
        build: |s| Box::new(WTinyLfu::new(s.capacity, s.seed)),
    },
];

/// A policy name the registry does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        write!(
            f,
            "unknown policy '{}' (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownPolicy {}

/// Looks a policy up by name or alias (case-insensitive).
pub fn info(name: &str) -> Option<&'static PolicyInfo> {
    let n = name.trim().to_ascii_lowercase();
    POLICIES
        .iter()
        .find(|p| p.name == n || p.aliases.contains(&n.as_str()))
}

/// Builds the policy called `name`.
///
/// # Errors
/// [`UnknownPolicy`] when neither a name nor an alias matches.
pub fn by_name(name: &str, spec: &Spec) -> Result<Box<dyn Policy>, UnknownPolicy> {
    info(name)
        .map(|p| (p.build)(spec))
        .ok_or_else(|| UnknownPolicy(name.to_string()))
}
