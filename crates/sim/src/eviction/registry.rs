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
    /// Whom it evicts, in Bengali (for "why was this key evicted").
    pub rule_bn: &'static str,
    /// What a hit does to its bookkeeping, in Bengali.
    pub hit_bn: &'static str,
    /// What the two ends of its `keys()` order mean, in Bengali (kept end, victim end).
    pub order_bn: [&'static str; 2],
    /// Its order is a real doubly linked list with HEAD/TAIL sentinels (as in the seed).
    pub linked: bool,
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
        rule_bn: "সবচেয়ে আগে যে ঢুকেছিল (FIFO-র মাথা)",
        hit_bn: "FIFO-তে hit-এ ক্রম বদলায় না",
        order_bn: ["নতুন", "পুরোনো"],
        linked: true,
        build: |s| Box::new(Fifo::new(s.capacity)),
    },
    PolicyInfo {
        name: "random",
        aliases: &["rand"],
        summary: "evict a uniformly random key (mulberry32(seed))",
        offline: false,
        rule_bn: "এলোমেলো একটা key",
        hit_bn: "random-এ hit-এ কিছুই বদলায় না",
        order_bn: ["নতুন", "পুরোনো"],
        linked: false,
        build: |s| Box::new(Random::new(s.capacity, s.seed)),
    },
    PolicyInfo {
        name: "lru",
        aliases: &[],
        summary: "least recently used: hash map + doubly linked list",
        offline: false,
        rule_bn: "list-এর লেজ — যাকে সবচেয়ে বেশি সময় কেউ ছোঁয়নি",
        hit_bn: "node খুলে মাথায় (MRU) বসানো হলো — মাত্র দুটি pointer বদল",
        order_bn: ["MRU", "LRU"],
        linked: true,
        build: |s| Box::new(Lru::new(s.capacity)),
    },
    PolicyInfo {
        name: "lfu",
        aliases: &[],
        summary: "least frequently used, no aging (ties: oldest admission)",
        offline: false,
        rule_bn: "সবচেয়ে কম ব্যবহৃত key (সমান হলে যে আগে ঢুকেছিল)",
        hit_bn: "ব্যবহারের counter এক বাড়ল",
        order_bn: ["বেশি ব্যবহৃত", "কম ব্যবহৃত"],
        linked: false,
        build: |s| Box::new(Lfu::new(s.capacity)),
    },
    PolicyInfo {
        name: "opt",
        aliases: &["belady", "min"],
        summary: "Belady's offline optimum: evict the key needed furthest ahead",
        offline: true,
        rule_bn: "যাকে সবচেয়ে দেরিতে আবার লাগবে (হয়তো নতুনটাই)",
        hit_bn: "OPT শুধু ভবিষ্যৎ দেখে; hit-এ কিছু বদলায় না",
        order_bn: ["শিগগির লাগবে", "দেরিতে লাগবে"],
        linked: false,
        build: |s| Box::new(Opt::new(s.capacity, s.future)),
    },
    PolicyInfo {
        name: "clock",
        aliases: &["second-chance"],
        summary: "FIFO with a reference bit: referenced keys get a second chance",
        offline: false,
        rule_bn: "ঘড়ির কাঁটা যাকে reference bit ছাড়া পায়",
        hit_bn: "শুধু reference bit জ্বলল, ক্রম একই",
        order_bn: ["নতুন", "পুরোনো"],
        linked: true,
        build: |s| Box::new(Clock::new(s.capacity)),
    },
    PolicyInfo {
        name: "sieve",
        aliases: &[],
        summary: "SIEVE (NSDI 2024): FIFO queue with a visited bit and a moving hand",
        offline: false,
        rule_bn: "কাঁটা যাকে শেষবার পার হওয়ার পর আর কেউ দেখেনি",
        hit_bn: "শুধু visited bit জ্বলল, ক্রম একই",
        order_bn: ["নতুন", "পুরোনো"],
        linked: true,
        build: |s| Box::new(Sieve::new(s.capacity)),
    },
    PolicyInfo {
        name: "redis-lru",
        aliases: &["allkeys-lru", "sampled-lru"],
        summary: "Redis allkeys-lru: 5 samples + 16-entry eviction pool",
        offline: false,
        rule_bn: "নমুনার মধ্যে সবচেয়ে পুরোনো (eviction pool থেকে)",
        hit_bn: "key-এর শেষ ব্যবহারের সময় হালনাগাদ হলো",
        order_bn: ["সাম্প্রতিক", "অলস"],
        linked: false,
        build: |s| Box::new(RedisLru::redis(s.capacity, s.seed)),
    },
    PolicyInfo {
        name: "redis-lru-2.8",
        aliases: &["redis-lru-nopool"],
        summary: "Redis 2.8 sampled LRU: oldest of 5 samples, no pool",
        offline: false,
        rule_bn: "৫টি নমুনার মধ্যে সবচেয়ে পুরোনো (pool ছাড়া)",
        hit_bn: "key-এর শেষ ব্যবহারের সময় হালনাগাদ হলো",
        order_bn: ["সাম্প্রতিক", "অলস"],
        linked: false,
        build: |s| Box::new(RedisLru::new(s.capacity, s.seed, 5, 0)),
    },
    PolicyInfo {
        name: "redis-lfu",
        aliases: &["allkeys-lfu"],
        summary: "Redis allkeys-lfu: 8-bit log counter (factor 10, decay 1 min), pool",
        offline: false,
        rule_bn: "নমুনার মধ্যে সবচেয়ে ছোট logarithmic counter",
        hit_bn: "log counter হয়তো এক বাড়ল (সম্ভাবনায়)",
        order_bn: ["নিরাপদ", "victim-এর দিকে"],
        linked: false,
        build: |s| Box::new(RedisLfu::redis(s.capacity, s.seed)),
    },
    PolicyInfo {
        name: "slru",
        aliases: &["segmented-lru"],
        summary: "segmented LRU: 20% probation, 80% protected",
        offline: false,
        rule_bn: "probation অংশের লেজ — যাদের একবারই দেখা গেছে",
        hit_bn: "key protected অংশের মাথায় উঠল",
        order_bn: ["নিরাপদ", "victim-এর দিকে"],
        linked: false,
        build: |s| Box::new(Slru::new(s.capacity)),
    },
    PolicyInfo {
        name: "2q",
        aliases: &["twoq"],
        summary: "2Q (VLDB 1994): A1in FIFO 25%, A1out ghosts 50%, Am LRU",
        offline: false,
        rule_bn: "A1in-এর সবচেয়ে পুরোনো নতুন-আসা, নয়তো Am-এর LRU",
        hit_bn: "Am-এ থাকলে মাথায় উঠল",
        order_bn: ["নিরাপদ", "victim-এর দিকে"],
        linked: false,
        build: |s| Box::new(TwoQ::new(s.capacity)),
    },
    PolicyInfo {
        name: "arc",
        aliases: &[],
        summary: "ARC (FAST 2003): self-tuning recency/frequency with ghost lists",
        offline: false,
        rule_bn: "T1 বা T2-এর LRU — যেটা নিজের লক্ষ্য-আকার ছাড়িয়েছে",
        hit_bn: "key T2-এর মাথায় উঠল",
        order_bn: ["নিরাপদ", "victim-এর দিকে"],
        linked: false,
        build: |s| Box::new(Arc::new(s.capacity)),
    },
    PolicyInfo {
        name: "w-tinylfu",
        aliases: &["wtinylfu", "tinylfu", "caffeine"],
        summary: "W-TinyLFU (ACM ToS 2017): 1% LRU window, SLRU main, sketch admission",
        offline: false,
        rule_bn: "window-র বাড়তি আর probation-এর LRU-র মধ্যে frequency-তে যে হারল",
        hit_bn: "frequency sketch-এ গোনা বাড়ল, key নিজের অংশের মাথায়",
        order_bn: ["নিরাপদ", "victim-এর দিকে"],
        linked: false,
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
