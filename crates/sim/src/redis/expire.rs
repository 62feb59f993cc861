//! Virtual time and active expiry (`expire.c`'s slow cycle, `databasesCron`).
//!
//! `hz` times per virtual second a cycle samples up to 20 keys with a TTL (each drawn with
//! the seeded RNG), deletes the expired ones and repeats while more than 10% of a sample was
//! expired. A cycle in which no key is past its TTL changes nothing but the RNG (one draw
//! per sampled key) and the counters, so a stretch of such cycles is crossed in one step:
//! the earliest expiry time comes from a min-heap of `(expire, key)` cleaned lazily (an
//! entry whose key no longer has that expiry is dropped when it reaches the top), the RNG
//! moves by the exact number of draws ([`Mulberry32::skip`]) and the counters by the exact
//! counts. Ten virtual days over ten thousand keys thus cost the cycles in which something
//! is actually due, not 8.6 million cycles.
//!
//! INFO's `avg_ttl` is Redis' moving average (`avg/50*49 + sample/50`), fed each cycle with
//! the mean remaining TTL of all keys with a TTL (Redis feeds it its sample's mean; the
//! whole table's mean is what that sample estimates, and it can be skipped exactly).

use super::{ExpireConfig, ExpireStats, SimRedis, EPOCH_MS};
use crate::rng::Mulberry32;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Active expiry's state.
#[derive(Clone, Debug)]
pub(crate) struct Expiry {
    pub(crate) cfg: ExpireConfig,
    rng: Mulberry32,
    pub(crate) stats: ExpireStats,
    /// Virtual ms of the next cycle.
    next_cron: u64,
    /// `DEBUG SET-ACTIVE-EXPIRE` (on by default; a replica never runs the cycle).
    pub(crate) enabled: bool,
    heap: BinaryHeap<Reverse<(i64, Vec<u8>)>>,
    /// The heap was dropped (too many stale entries) and is rebuilt from the keys when
    /// next asked.
    rebuild: bool,
    /// Sum of the expiry times (unix ms) of the keys with a TTL.
    sum: i128,
    pub(crate) avg_ttl: i64,
}

impl Expiry {
    pub(crate) fn new(seed: u32, cfg: ExpireConfig) -> Self {
        Self {
            cfg,
            rng: Mulberry32::new(seed),
            stats: ExpireStats::default(),
            next_cron: period(&cfg),
            enabled: true,
            heap: BinaryHeap::new(),
            rebuild: false,
            sum: 0,
            avg_ttl: 0,
        }
    }

    /// A key got expiry time `when`; `volatile` keys have one now.
    pub(crate) fn remember(&mut self, when: i64, key: &[u8], volatile: usize) {
        self.sum += i128::from(when);
        if self.rebuild {
            return;
        }
        if self.heap.len() > 2 * volatile + 1024 {
            // Mostly stale entries: rebuilt from the keys on the next query.
            self.heap.clear();
            self.rebuild = true;
            return;
        }
        self.heap.push(Reverse((when, key.to_vec())));
    }

    /// A key lost expiry time `when`.
    pub(crate) fn forget(&mut self, when: i64) {
        self.sum -= i128::from(when);
    }

    pub(crate) fn clear(&mut self) {
        self.heap.clear();
        self.rebuild = false;
        self.sum = 0;
    }
}

fn period(cfg: &ExpireConfig) -> u64 {
    if cfg.hz == 0 {
        u64::MAX
    } else {
        (1000 / u64::from(cfg.hz)).max(1)
    }
}

impl SimRedis {
    /// Moves the clock to `t` (never backwards); see [`SimRedis::advance`].
    pub fn advance_to(&mut self, t: u64) {
        loop {
            let timeout = self.next_timeout_ms();
            let cron = self.exp.next_cron;
            let next = timeout.unwrap_or(u64::MAX).min(cron);
            if next > t {
                break;
            }
            if timeout.is_some_and(|d| d <= cron) {
                self.now = self.now.max(next);
                self.time_out_first();
                continue;
            }
            // A cycle is due before any timeout. Cycles that cannot find an expired key
            // (and all of them while the cycle is off) are crossed at once.
            let bound = t.min(timeout.map_or(u64::MAX, |d| d.saturating_sub(1)));
            let quiet = self.quiet_until().min(bound);
            let p = period(&self.exp.cfg);
            if quiet >= cron && quiet - cron >= p {
                let k = (quiet - cron) / p + 1;
                self.skip_cycles(k);
                self.now = self.now.max(cron + (k - 1) * p);
                self.exp.next_cron = cron.saturating_add(k.saturating_mul(p));
            } else {
                self.now = self.now.max(cron);
                if self.cycle_runs() {
                    self.active_expire_cycle();
                }
                self.exp.next_cron = cron.saturating_add(p);
            }
        }
        self.now = self.now.max(t);
        self.mem.clock = lru_clock(self.mstime());
    }

    /// Whether the cron's expire cycle runs at all.
    fn cycle_runs(&self) -> bool {
        self.exp.enabled && !self.repl.is_replica()
    }

    /// The last virtual ms at which a cycle would find no key past its TTL.
    fn quiet_until(&mut self) -> u64 {
        if !self.cycle_runs() || self.volatile.is_empty() {
            return u64::MAX;
        }
        match self.min_expire() {
            // Alive while `now <= expire`.
            Some(m) => {
                let v = m - self.epoch_ms;
                if v < 0 {
                    0
                } else {
                    v as u64
                }
            }
            None => u64::MAX,
        }
    }

    /// The earliest expiry time of a stored key.
    fn min_expire(&mut self) -> Option<i64> {
        if self.exp.rebuild {
            self.exp.rebuild = false;
            for k in &self.volatile {
                let when = self.keys[k.as_slice()].expire;
                self.exp.heap.push(Reverse((when, k.clone())));
            }
        }
        while let Some(Reverse((when, key))) = self.exp.heap.peek() {
            if self.keys.get(key.as_slice()).map(|e| e.expire) == Some(*when) {
                return Some(*when);
            }
            self.exp.heap.pop();
        }
        None
    }

    /// `k` cycles in which nothing is expired, at once: the same counters, draws and
    /// `avg_ttl` as running them one by one.
    fn skip_cycles(&mut self, k: u64) {
        if !self.cycle_runs() {
            return;
        }
        let cfg = self.exp.cfg;
        self.exp.stats.cycles += k;
        let v = self.volatile.len() as u64;
        if v == 0 {
            self.exp.avg_ttl = 0;
            return;
        }
        if cfg.max_loops == 0 {
            self.feed_avg_ttl_stretch(k);
            return;
        }
        let n = v.min(u64::from(cfg.keys_per_loop));
        self.exp.stats.sampled += k * n;
        self.exp.rng.skip(k * n);
        self.feed_avg_ttl_stretch(k);
    }

    /// `avg_ttl` after `k` cycles from the next one, each fed the mean remaining TTL
    /// `A - now` (`A` the mean expiry time, constant while no key changes). With Redis'
    /// integer update `x' = x/50*49 + m/50` and an input falling by a multiple of 50 per
    /// cycle, `d = 50·(m/50) - x` follows a map of its own (`d' = 49·(⌈d/50⌉ - Δ)`), which
    /// settles on a fixed point within a few hundred cycles; from there `x = 50·(m/50) - d`
    /// exactly, so the rest of the stretch is one step.
    fn feed_avg_ttl_stretch(&mut self, k: u64) {
        let p = period(&self.exp.cfg) as i64;
        let first = self.epoch_ms + self.exp.next_cron as i64;
        let v = self.volatile.len() as i128;
        let a = (self.exp.sum / v) as i64;
        let mut prev_d = None;
        for i in 0..k {
            let now = first + i as i64 * p;
            self.feed_avg_ttl(now);
            let mean = a - now;
            let x = self.exp.avg_ttl;
            if p % 50 != 0 || mean <= 0 || x <= 0 {
                prev_d = None;
                continue;
            }
            let d = 50 * (mean / 50) - x;
            if prev_d == Some(d) {
                let last_mean = a - (first + (k - 1) as i64 * p);
                let last_x = 50 * (last_mean / 50) - d;
                if last_mean > 0 && last_x > 0 {
                    self.exp.avg_ttl = last_x;
                    return;
                }
            }
            prev_d = Some(d);
        }
    }

    fn feed_avg_ttl(&mut self, now: i64) {
        let v = self.volatile.len() as i128;
        if v == 0 {
            self.exp.avg_ttl = 0;
            return;
        }
        let mean = (self.exp.sum / v - i128::from(now)) as i64;
        if mean <= 0 {
            return;
        }
        if self.exp.avg_ttl == 0 {
            self.exp.avg_ttl = mean;
        }
        self.exp.avg_ttl = (self.exp.avg_ttl / 50) * 49 + mean / 50;
    }

    fn active_expire_cycle(&mut self) {
        self.repl.set_now(self.now);
        self.exp.stats.cycles += 1;
        let cfg = self.exp.cfg;
        let now = self.mstime();
        self.feed_avg_ttl(now);
        for _ in 0..cfg.max_loops {
            if self.volatile.is_empty() {
                break;
            }
            let n = (self.volatile.len() as u32).min(cfg.keys_per_loop);
            let (mut sampled, mut expired) = (0u32, 0u32);
            for _ in 0..n {
                if self.volatile.is_empty() {
                    break;
                }
                let i = self.exp.rng.below(self.volatile.len() as u32) as usize;
                sampled += 1;
                let when = self.vexp[i];
                if now > when {
                    let key = self.volatile[i].clone();
                    self.delete(&key);
                    self.expired_deleted(&key);
                    expired += 1;
                }
            }
            self.exp.stats.sampled += u64::from(sampled);
            self.exp.stats.active += u64::from(expired);
            if sampled == 0 || expired * 100 / sampled <= cfg.acceptable_stale {
                break;
            }
        }
    }
}

/// Redis' `LRU_CLOCK()`: seconds, 24 bits.
pub(crate) fn lru_clock(unix_ms: i64) -> u32 {
    ((unix_ms / 1000) as u32) & ((1 << 24) - 1)
}

/// The default epoch's LRU clock, for a server that has not moved yet.
pub(crate) fn initial_lru_clock() -> u32 {
    lru_clock(EPOCH_MS)
}
