//! Redis `allkeys-lru`: approximated LRU by sampling.
//!
//! Each key stores only its last access time; eviction samples `maxmemory-samples` keys
//! (default 5) and evicts the one idle longest, with the eviction pool of 16 candidates
//! that Redis 3.0 added to improve the approximation (antirez, "Random notes on improving
//! the Redis LRU algorithm", 2016; Redis docs "Key eviction"). Idle time is measured in
//! virtual ticks (one access = one tick) instead of Redis' 1-second LRU clock, so there
//! are no ties from clock resolution.

use super::sampled::{SampleRule, Sampled, REDIS_POOL, REDIS_SAMPLES};
use crate::rng::Mulberry32;

/// The LRU rule: metadata is the tick of the last access; score = idle ticks.
#[derive(Clone, Copy, Debug, Default)]
pub struct LruClock;

impl SampleRule for LruClock {
    type Meta = u64;
    const NAME: &'static str = "REDIS-LRU";
    const NAME_NO_POOL: &'static str = "REDIS-LRU-2.8";
    const VICTIM_RULE: &'static str =
        "the longest-idle key among the sampled keys and the eviction pool";

    fn admit(&mut self, now: u64) -> u64 {
        now
    }

    fn touch(&mut self, meta: &mut u64, now: u64, _rng: &mut Mulberry32) {
        *meta = now;
    }

    fn idle(&self, meta: &u64, now: u64) -> u64 {
        now - meta
    }
}

/// Redis-style sampled LRU.
pub type RedisLru = Sampled<LruClock>;

impl RedisLru {
    /// Sampled LRU with `samples` keys per round and a pool of `pool` entries (0 = Redis
    /// 2.8 behaviour: evict the oldest of the samples).
    pub fn new(capacity: u32, seed: u32, samples: u32, pool: usize) -> Self {
        Sampled::with_rule(LruClock, capacity, seed, samples, pool)
    }

    /// Redis' defaults: 5 samples, pool of 16.
    pub fn redis(capacity: u32, seed: u32) -> Self {
        Self::new(capacity, seed, REDIS_SAMPLES, REDIS_POOL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::Policy;

    #[test]
    fn hand_worked() {
        // A B C A D at size 3 with 10 samples: at D the keys' idle times are B=3, C=2, A=1
        // (ticks), so unless all ten samples miss B — (2/3)^10 < 2% — B is evicted. With
        // seed 1 it is: 1 hit, 4 misses, 1 eviction (B).
        let mut p = RedisLru::new(3, 1, 10, 16);
        let ev: Vec<_> = [0, 1, 2, 0, 3].iter().map(|&k| p.access(k)).collect();
        assert!(ev[3].is_hit());
        assert_eq!(ev[4].evicted(), Some(1));
        assert_eq!(p.keys(), [3, 0, 2]);
    }

    #[test]
    fn pool_gets_closer_to_lru() {
        // On the seed's Zipf trace (cache 300) exact LRU scores 19,568 hits; the Redis 3.0
        // pool recovers part of what plain 5-sampling loses.
        use crate::eviction::{run, TraceSpec};
        let t = TraceSpec::default().generate();
        let hits = |pool| run(&mut RedisLru::new(300, 99, 5, pool), &t, 10_000).scored_hits;
        let (with_pool, without) = (hits(16), hits(0));
        assert!(
            without < with_pool && with_pool < 19_568,
            "{without} {with_pool}"
        );
    }
}
