//! Redis `allkeys-lfu`: approximated LFU with a logarithmic, decaying 8-bit counter.
//!
//! Redis 4.0 (antirez, "Redis 4.0 LFU", 2016; `evict.c`, docs "Key eviction"): each key
//! stores an 8-bit counter and a 16-bit "last decrement" time in minutes.
//! * New keys start at `LFU_INIT_VAL` = 5 so they are not evicted before they can prove
//!   themselves.
//! * On access, first decay: `counter -= elapsed_minutes / lfu-decay-time` (floored at 0);
//!   then increment with probability `1 / ((counter - 5) · lfu-log-factor + 1)`, saturating
//!   at 255 (`LFULogIncr`); then store the current minute.
//! * Eviction uses the same sampling + pool engine as LRU with score `255 - decayed counter`.
//!
//! Virtual clock: one access = one tick, and [`RedisLfu::TICKS_PER_MINUTE`] ticks (default
//! 1,000) = one minute, so the seed's 60,000-request traces span an hour and `lfu-decay-time
//! 1` halves nothing but subtracts one per idle minute, as in Redis. The minute clock does
//! not wrap at 16 bits here (Redis handles the wrap; traces are far shorter).

use super::sampled::{SampleRule, Sampled, REDIS_POOL, REDIS_SAMPLES};
use crate::rng::Mulberry32;

/// Redis' `LFU_INIT_VAL`.
pub const LFU_INIT_VAL: u8 = 5;

/// LFU parameters and clock mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LfuCounter {
    /// `lfu-log-factor` (Redis default 10).
    pub log_factor: u32,
    /// `lfu-decay-time` in minutes (Redis default 1; 0 disables decay).
    pub decay_minutes: u64,
    /// Virtual ticks (accesses) per minute.
    pub ticks_per_minute: u64,
}

impl Default for LfuCounter {
    fn default() -> Self {
        Self {
            log_factor: 10,
            decay_minutes: 1,
            ticks_per_minute: RedisLfu::TICKS_PER_MINUTE,
        }
    }
}

/// Per-key LFU state: the counter and the minute it was last updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LfuMeta {
    /// The 8-bit logarithmic counter.
    pub counter: u8,
    /// Minute of the last update (`ldt`).
    pub minute: u64,
}

impl LfuCounter {
    fn minute(&self, now: u64) -> u64 {
        now / self.ticks_per_minute.max(1)
    }

    /// `LFUDecrAndReturn`: the counter after decay, without storing it.
    pub fn decayed(&self, meta: &LfuMeta, now: u64) -> u8 {
        if self.decay_minutes == 0 {
            return meta.counter;
        }
        let periods = self.minute(now).saturating_sub(meta.minute) / self.decay_minutes;
        u64::from(meta.counter).saturating_sub(periods) as u8
    }

    /// `LFULogIncr`: one probabilistic increment (one generator step unless saturated).
    pub fn log_incr(&self, counter: u8, rng: &mut Mulberry32) -> u8 {
        if counter == 255 {
            return 255;
        }
        let r = rng.next_f64();
        let base = f64::from(counter.saturating_sub(LFU_INIT_VAL));
        let p = 1.0 / (base * f64::from(self.log_factor) + 1.0);
        if r < p {
            counter + 1
        } else {
            counter
        }
    }
}

impl SampleRule for LfuCounter {
    type Meta = LfuMeta;
    const NAME: &'static str = "REDIS-LFU";
    const NAME_NO_POOL: &'static str = "REDIS-LFU-NOPOOL";
    const VICTIM_RULE: &'static str =
        "the sampled/pooled key with the lowest decayed log-frequency counter";

    fn admit(&mut self, now: u64) -> LfuMeta {
        LfuMeta {
            counter: LFU_INIT_VAL,
            minute: self.minute(now),
        }
    }

    fn touch(&mut self, meta: &mut LfuMeta, now: u64, rng: &mut Mulberry32) {
        let c = self.decayed(meta, now);
        *meta = LfuMeta {
            counter: self.log_incr(c, rng),
            minute: self.minute(now),
        };
    }

    fn idle(&self, meta: &LfuMeta, now: u64) -> u64 {
        255 - u64::from(self.decayed(meta, now))
    }
}

/// Redis-style approximated LFU.
pub type RedisLfu = Sampled<LfuCounter>;

impl RedisLfu {
    /// Default virtual ticks per minute.
    pub const TICKS_PER_MINUTE: u64 = 1000;

    /// Approximated LFU with explicit counter parameters, samples and pool size.
    pub fn new(capacity: u32, seed: u32, counter: LfuCounter, samples: u32, pool: usize) -> Self {
        Sampled::with_rule(counter, capacity, seed, samples, pool)
    }

    /// Redis' defaults: log factor 10, decay 1 minute, 5 samples, pool of 16.
    pub fn redis(capacity: u32, seed: u32) -> Self {
        Self::new(
            capacity,
            seed,
            LfuCounter::default(),
            REDIS_SAMPLES,
            REDIS_POOL,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::Policy;

    #[test]
    fn hand_worked() {
        // A A B C at size 2, decay off: A enters at 5 and its hit increments with
        // probability 1/((5-5)·10+1) = 1 → 6; B enters at 5. C's miss evicts B (score
        // 255-5 = 250 > 249) unless all ten samples pick A ((1/2)^10); with seed 1 it is B
        // → 1 hit, 3 misses, 1 eviction.
        let counter = LfuCounter {
            decay_minutes: 0,
            ..LfuCounter::default()
        };
        let mut p = RedisLfu::new(2, 1, counter, 10, 16);
        let ev: Vec<_> = [0, 0, 1, 2].iter().map(|&k| p.access(k)).collect();
        assert!(ev[1].is_hit());
        assert_eq!(ev[3].evicted(), Some(1));
        assert_eq!(p.score(0), Some(255 - 6));
    }

    #[test]
    fn counter_grows_logarithmically_and_decays() {
        let c = LfuCounter::default();
        let mut rng = Mulberry32::new(9);
        let mut v = LFU_INIT_VAL;
        for _ in 0..1000 {
            v = c.log_incr(v, &mut rng);
        }
        // Redis' table for factor 10: ~1K hits → counter ≈ 18.
        assert!((12..=25).contains(&v), "counter {v}");
        let meta = LfuMeta {
            counter: 10,
            minute: 0,
        };
        assert_eq!(c.decayed(&meta, 3 * RedisLfu::TICKS_PER_MINUTE), 7);
        assert_eq!(c.decayed(&meta, 50 * RedisLfu::TICKS_PER_MINUTE), 0);
    }
}
