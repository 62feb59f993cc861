//! What a cache-engine run is given: the lab's fields, their typed form ([`CacheParams`]) and
//! the run's setup ([`CacheConfig`]: the instances, the clients, the loader, the layers,
//! Redis' health and what is in Redis at the start), and the engine's fixed numbers.

use super::super::params::{choice, int, seed, Field, ON_OFF};
use serde::{Deserialize, Serialize};

/// The cached key.
pub const KEY: &str = "cache:course-catalog";
/// Its lock.
pub const LOCK: &str = "lock:cache:course-catalog";
/// The envelope version the code writes.
pub const VERSION: u32 = 2;
/// The cache connection's `commandTimeout` as the seed sets it, ms (the `timeout` field's
/// default; ioredis' own default is none).
pub const TIMEOUT_MS: u64 = 1500;
/// Redis' extra reply delay when slow: `SLOW_MS.0..=SLOW_MS.1` ms.
pub const SLOW_MS: (u64, u64) = (800, 2400);
/// A client's think time between requests, ms.
pub const THINK_MS: (u64, u64) = (100, 300);
/// The gap between two polls of a waiter, ms.
pub const POLL_MS: (u64, u64) = (40, 100);

/// Redis' health.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Health {
    /// Answers in a millisecond or two.
    Healthy,
    /// Answers 800–2400 ms late.
    Slow,
    /// Refuses connections.
    Down,
}

impl Health {
    /// Parameter word.
    pub fn name(self) -> &'static str {
        match self {
            Health::Healthy => "healthy",
            Health::Slow => "slow",
            Health::Down => "down",
        }
    }
    /// From its parameter word (anything else is `healthy`).
    pub fn parse(s: &str) -> Self {
        match s {
            "slow" => Health::Slow,
            "down" => Health::Down,
            _ => Health::Healthy,
        }
    }
    /// The engine's link to Redis in this health.
    pub fn link(self) -> crate::world::Health {
        match self {
            Health::Healthy => crate::world::Health::Healthy,
            Health::Slow => crate::world::Health::Slow {
                min_ms: SLOW_MS.0,
                max_ms: SLOW_MS.1,
            },
            Health::Down => crate::world::Health::Down,
        }
    }
}

/// What is in Redis under the key when the run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Start {
    /// Nothing (a cold cache, or the entry just expired).
    Empty,
    /// A fresh entry, fresh for `fresh` ms more.
    Fresh,
    /// An entry past its `freshUntil`, alive for `stale` ms more.
    Stale,
    /// An entry written by the previous version of the code (`version: 1`).
    OldVersion,
    /// A half-written entry that does not parse.
    Corrupt,
}

impl Start {
    /// Parameter word.
    pub fn name(self) -> &'static str {
        match self {
            Start::Empty => "empty",
            Start::Fresh => "fresh",
            Start::Stale => "stale",
            Start::OldVersion => "old-version",
            Start::Corrupt => "corrupt",
        }
    }
    /// From its parameter word (anything else is `empty`).
    pub fn parse(s: &str) -> Self {
        match s {
            "fresh" => Start::Fresh,
            "stale" => Start::Stale,
            "old-version" => Start::OldVersion,
            "corrupt" => Start::Corrupt,
            _ => Start::Empty,
        }
    }
}

/// The four layers (and their helpers), each on or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// Misses in one instance share one load.
    pub singleflight: bool,
    /// A Redis lock across instances.
    pub lock: bool,
    /// Those who lose the lock poll the cache (off: they load themselves).
    pub poll: bool,
    /// When the wait runs out: one more try for the lock, then an error (off: the error).
    pub rescue: bool,
    /// Extend the lock every lockTtl/3 while loading.
    pub heartbeat: bool,
    /// Read the cache again after taking the lock.
    pub recheck: bool,
}

impl Layers {
    /// Every layer on.
    pub const ALL: Layers = Layers {
        singleflight: true,
        lock: true,
        poll: true,
        rescue: true,
        heartbeat: true,
        recheck: true,
    };
    /// Every layer off.
    pub const NONE: Layers = Layers {
        singleflight: false,
        lock: false,
        poll: false,
        rescue: false,
        heartbeat: false,
        recheck: false,
    };
}

/// One run's setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheConfig {
    /// API instances.
    pub instances: u32,
    /// Users sending requests at once (each waits for its answer before the next).
    pub concurrent: u32,
    /// Requests in all.
    pub requests: u32,
    /// One database load, ms.
    pub loader_ms: u64,
    /// How long an entry is fresh, ms.
    pub fresh_ms: u64,
    /// How long it may be served stale after that, ms.
    pub stale_ms: u64,
    /// The lock's TTL, ms.
    pub lock_ttl_ms: u64,
    /// How long a waiter polls before the rescue lock, ms.
    pub wait_ms: u64,
    /// Which layers are on.
    pub layers: Layers,
    /// Redis' health.
    pub redis: Health,
    /// The client's `commandTimeout`, ms (0: none, ioredis' default).
    pub timeout_ms: u64,
    /// What is in Redis at the start.
    pub start: Start,
    /// Seed of every random draw.
    pub seed: u32,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            instances: 6,
            concurrent: 40,
            requests: 800,
            loader_ms: 600,
            fresh_ms: 1500,
            stale_ms: 1000,
            lock_ttl_ms: 3000,
            wait_ms: 2000,
            layers: Layers::ALL,
            redis: Health::Healthy,
            timeout_ms: TIMEOUT_MS,
            start: Start::Empty,
            seed: 6,
        }
    }
}

/// At most this many users send requests at once in a live run: every command goes through
/// the proxy, which takes 200 a second from one connection (the simulation has no such bound).
pub const LIVE_CONCURRENT: u32 = 8;
/// At most this many requests in a live run (a few seconds of real time).
pub const LIVE_REQUESTS: u32 = 120;

impl CacheConfig {
    /// The same run `k` times slower: the loader, the fresh and stale times, the lock's TTL
    /// and the wait multiplied by `k` (the think times, the polls and the network stay as
    /// they are). The simulation of the slowed config is the live run's prediction.
    pub fn slowed(&self, k: u64) -> CacheConfig {
        let k = k.max(1);
        CacheConfig {
            loader_ms: self.loader_ms * k,
            fresh_ms: self.fresh_ms * k,
            stale_ms: self.stale_ms * k,
            lock_ttl_ms: self.lock_ttl_ms * k,
            wait_ms: self.wait_ms * k,
            ..*self
        }
    }

    /// What a live run at time scale `k` runs: at most [`LIVE_CONCURRENT`] users and
    /// [`LIVE_REQUESTS`] requests, slowed `k` times, against a healthy Redis (a slow or
    /// refusing Redis is the simulation's; the real one answers as it does).
    pub fn for_live(&self, k: u64) -> CacheConfig {
        CacheConfig {
            concurrent: self.concurrent.min(LIVE_CONCURRENT),
            requests: self.requests.min(LIVE_REQUESTS),
            redis: Health::Healthy,
            ..self.slowed(k)
        }
    }
}

/// Redis' health in the cache-engine lab.
pub const HEALTH_NAMES: &[&str] = &["healthy", "slow", "down"];
/// What the cache-engine lab finds in Redis at the start.
pub const START_NAMES: &[&str] = &["empty", "fresh", "stale", "old-version", "corrupt"];

/// The lab's fields, with the seed's defaults ([`CacheConfig::default`]).
pub(super) const FIELDS: &[Field] = &[
    int("instances", "API ইনস্ট্যান্স", 1, 12, "6"),
    int("concurrent", "একসাথে অনুরোধ", 1, 500, "40"),
    int("requests", "মোট অনুরোধ", 1, 20_000, "800"),
    int("loader", "DB লোড (ms)", 1, 20_000, "600"),
    int("fresh", "fresh TTL (ms)", 100, 600_000, "1500"),
    int("stale", "stale জানালা (ms)", 0, 600_000, "1000"),
    int("lock_ttl", "লকের TTL (ms)", 100, 60_000, "3000"),
    int("wait", "অপেক্ষার সীমা (ms)", 100, 60_000, "2000"),
    choice("singleflight", "singleFlight", ON_OFF, "on"),
    choice("lock", "Redis lock", ON_OFF, "on"),
    choice("poll", "poll & wait", ON_OFF, "on"),
    choice("rescue", "rescue lock", ON_OFF, "on"),
    choice("heartbeat", "heartbeat", ON_OFF, "on"),
    choice("recheck", "লকের পরে আবার পড়া", ON_OFF, "on"),
    choice("redis", "Redis-এর অবস্থা", HEALTH_NAMES, "healthy"),
    int("timeout", "commandTimeout (ms, ০ = নেই)", 0, 10_000, "1500"),
    choice("start", "শুরুতে key", START_NAMES, "empty"),
    seed("6"),
];

/// The cache-engine lab's parameters, typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheParams {
    /// API instances.
    pub instances: u32,
    /// Users sending requests at once.
    pub concurrent: u32,
    /// Requests in all.
    pub requests: u32,
    /// One database load, ms.
    pub loader: u64,
    /// Fresh TTL, ms.
    pub fresh: u64,
    /// Stale window, ms.
    pub stale: u64,
    /// Lock TTL, ms.
    pub lock_ttl: u64,
    /// How long a waiter polls, ms.
    pub wait: u64,
    /// `on` / `off`.
    pub singleflight: String,
    /// `on` / `off`.
    pub lock: String,
    /// `on` / `off`.
    pub poll: String,
    /// `on` / `off`.
    pub rescue: String,
    /// `on` / `off`.
    pub heartbeat: String,
    /// `on` / `off`.
    pub recheck: String,
    /// `healthy` / `slow` / `down`.
    pub redis: String,
    /// The client's `commandTimeout`, ms (0: none).
    pub timeout: u64,
    /// What is in Redis at the start.
    pub start: String,
    /// Seed.
    pub seed: u32,
}

impl CacheParams {
    /// The run these parameters describe.
    pub fn config(&self) -> CacheConfig {
        let on = |s: &str| s == "on";
        CacheConfig {
            instances: self.instances,
            concurrent: self.concurrent,
            requests: self.requests,
            loader_ms: self.loader,
            fresh_ms: self.fresh,
            stale_ms: self.stale,
            lock_ttl_ms: self.lock_ttl,
            wait_ms: self.wait,
            layers: Layers {
                singleflight: on(&self.singleflight),
                lock: on(&self.lock),
                poll: on(&self.poll),
                rescue: on(&self.rescue),
                heartbeat: on(&self.heartbeat),
                recheck: on(&self.recheck),
            },
            redis: Health::parse(&self.redis),
            timeout_ms: self.timeout,
            start: Start::parse(&self.start),
            seed: self.seed,
        }
    }
}
