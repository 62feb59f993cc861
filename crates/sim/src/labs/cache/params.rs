//! What a cache-engine run is given: the lab's parameters, declared once ([`CacheParams`]), and
//! the run's setup ([`CacheConfig`]: the instances, the clients, the loader, the layers,
//! Redis' health and what is in Redis at the start), and the engine's fixed numbers.

use crate::labs::lab::Broken;
use crate::labs::params::{broken, Switch};
use crate::labs::preset::Preset;
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

crate::choices! {
    /// Redis' health.
    pub enum Health {
        /// Answers in a millisecond or two.
        Healthy = "healthy" / "সুস্থ",
        /// Answers 800–2400 ms late.
        Slow = "slow" / "ধীর",
        /// Refuses connections.
        Down = "down" / "ডাউন",
    }
}

impl Health {
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

crate::choices! {
    /// What is in Redis under the key when the run starts.
    pub enum Start {
        /// Nothing (a cold cache, or the entry just expired).
        Empty = "empty" / "খালি",
        /// A fresh entry, fresh for `fresh` ms more.
        Fresh = "fresh" / "তাজা",
        /// An entry past its `freshUntil`, alive for `stale` ms more.
        Stale = "stale" / "বাসি",
        /// An entry written by the previous version of the code (`version: 1`).
        OldVersion = "old-version" / "পুরোনো version",
        /// A half-written entry that does not parse.
        Corrupt = "corrupt" / "ভাঙা",
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

crate::params! {
    /// The cache-engine lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub struct CacheParams {
        /// API instances.
        pub instances: u32 = int(6, 1..=12, "API ইনস্ট্যান্স"),
        /// Users sending requests at once.
        pub concurrent: u32 = int(40, 1..=500, "একসাথে অনুরোধ"),
        /// Requests in all.
        pub requests: u32 = int(800, 1..=20000, "মোট অনুরোধ"),
        /// One database load, ms.
        pub loader: u64 = int(600, 1..=20000, "DB লোড (ms)"),
        /// Fresh TTL, ms.
        pub fresh: u64 = int(1500, 100..=600000, "fresh TTL (ms)"),
        /// Stale window, ms.
        pub stale: u64 = int(1000, 0..=600000, "stale জানালা (ms)"),
        /// Lock TTL, ms.
        pub lock_ttl: u64 = int(3000, 100..=60000, "লকের TTL (ms)"),
        /// How long a waiter polls, ms.
        pub wait: u64 = int(2000, 100..=60000, "অপেক্ষার সীমা (ms)"),
        /// Singleflight inside an instance.
        pub singleflight: Switch = choice(Switch::On, "singleFlight"),
        /// The Redis lock across instances.
        pub lock: Switch = choice(Switch::On, "Redis lock"),
        /// Waiters poll the cache.
        pub poll: Switch = choice(Switch::On, "poll & wait"),
        /// The rescue lock when the wait runs out.
        pub rescue: Switch = choice(Switch::On, "rescue lock"),
        /// The lock's heartbeat.
        pub heartbeat: Switch = choice(Switch::On, "heartbeat"),
        /// The second read after taking the lock.
        pub recheck: Switch = choice(Switch::On, "লকের পরে আবার পড়া"),
        /// Redis' health.
        pub redis: Health = choice(Health::Healthy, "Redis-এর অবস্থা"),
        /// The client's `commandTimeout`, ms (0: none).
        pub timeout: u64 = int(1500, 0..=10000, "commandTimeout (ms, ০ = নেই)"),
        /// What is in Redis at the start.
        pub start: Start = choice(Start::Empty, "শুরুতে key"),
        /// Seed.
        pub seed: u32 = seed(6),
    }
    rules = rules;
}

/// Redis down with no `commandTimeout`: ioredis keeps the command in its offline queue until
/// reconnection has failed `maxRetriesPerRequest` times, which this lab does not model (the
/// failure lab does).
fn rules(p: &CacheParams) -> Result<(), Broken> {
    if p.redis == Health::Down && p.timeout == 0 {
        return Err(broken(
            "timeout",
            "Redis ডাউন হলে commandTimeout ছাড়া কমান্ড offline queue-তে পুনঃসংযোগের চেষ্টা ফুরোনো পর্যন্ত বসে থাকে — এই ল্যাবে ডাউনের সাথে timeout ০-এর বেশি দিন (failure ল্যাবে পুরো ছবি)",
        ));
    }
    Ok(())
}

/// The presets: none (the decks set the layers they are about; the defaults are the seed's).
pub const PRESETS: &[Preset] = &[];

impl Default for CacheParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl CacheParams {
    /// The run these parameters describe.
    pub fn config(&self) -> CacheConfig {
        let on = |s: Switch| s == Switch::On;
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
                singleflight: on(self.singleflight),
                lock: on(self.lock),
                poll: on(self.poll),
                rescue: on(self.rescue),
                heartbeat: on(self.heartbeat),
                recheck: on(self.recheck),
            },
            redis: self.redis,
            timeout_ms: self.timeout,
            start: self.start,
            seed: self.seed,
        }
    }
}
