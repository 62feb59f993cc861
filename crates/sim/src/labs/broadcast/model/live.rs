//! The queue against a real Redis (live mode): the same API and worker slots as the
//! simulation — `SET … NX EX` dedup, `INCR` for the job id, the job's `HSET` and `LPUSH`, the
//! `addjob` named script for every batch, `BLMOVE wait → active`, the token lock and its
//! token-checked `release`/`extend`, the limiter's `INCR`/`PEXPIRE`/`PTTL`, the delayed set,
//! the completed and failed sets, the stalled check — on a [`World`] whose backend is
//! [`LiveRedis`]: the commands go out through the driver (the simulation worker in the
//! browser, a test natively) and the replies come back in real time. FCM and Postgres are not
//! Redis: they stay the simulation's timers, run in real time.
//!
//! A live run carries what a proxy session carries well within a minute at ×1
//! ([`BroadcastParams::for_live`]): 5,000 tokens (10 batches of 500), 5 worker slots, the
//! queue's timers a tenth of the lab's (backoff 1 s → 2 s, lock and stalled check 3 s, the
//! outage 3 s long from 2.5 s on, between two batches' FCM calls) and the rates with them
//! (throttle and FCM's quota a tenth), and an idle slot blocks on the wait list for 200 ms,
//! not 5 s: the proxy runs one blocking read of a session at a time, so the slots' `BLMOVE`s
//! take turns, and one may wait at most the proxy's request timeout (2 s) for its turn. The
//! simulation of the same shaped parameters is the prediction.

use super::super::params::{BroadcastConfig, BroadcastParams, Pace};

/// A live run sends at most this many tokens (10 batches of 500 with the lab's chunk).
pub const LIVE_TOKENS: u32 = 5_000;
/// At most this many worker slots in a live run.
pub const LIVE_CONCURRENCY: u32 = 5;
/// An idle slot's block on the wait list in a live run, ms (not slowed by the time scale:
/// the slots' blocking reads take turns on the proxy).
pub const LIVE_BLOCK_MS: u64 = 200;
/// The queue's timers and rates in a live run: the lab's divided by this.
const LIVE_TIME_DIV: u64 = 10;
/// A live run stops after this long (× the time scale), finished or not, ms.
pub(super) const LIVE_DEADLINE_MS: u64 = 90_000;

impl BroadcastParams {
    /// What a live run at time scale `k` runs: at most [`LIVE_TOKENS`] tokens and
    /// [`LIVE_CONCURRENCY`] slots; the queue's timers (backoff, lock, stalled check, the
    /// crash and the restart, the outage) and its rates (throttle, FCM's quota) a tenth of
    /// the lab's, so the same story fits in seconds; the worker's memory scaled with the
    /// tokens (so loading them all still runs out of it); then everything `k` times slower
    /// (every duration and the limiter's and quota's window). The queue mode only: the naive
    /// loop never speaks Redis.
    pub fn for_live(&self, k: u64) -> BroadcastConfig {
        let k = k.max(1);
        let tokens = self.tokens.min(LIVE_TOKENS);
        let tenth = |ms: u64| ms / LIVE_TIME_DIV * k;
        let rate = |n: u32| n.div_ceil(LIVE_TIME_DIV as u32).max(1);
        let p = BroadcastParams {
            tokens,
            heap_mb: (self.heap_mb * u64::from(tokens) / u64::from(self.tokens.max(1))).max(1),
            throttle: if self.throttle == 0 {
                0
            } else {
                rate(self.throttle)
            },
            quota: rate(self.quota),
            concurrency: self.concurrency.min(LIVE_CONCURRENCY),
            outage_at: self.outage_at.div_ceil(LIVE_TIME_DIV) * k,
            outage: self.outage.div_ceil(LIVE_TIME_DIV) * k,
            backoff: tenth(self.backoff),
            lock: tenth(self.lock).max(100),
            stalled: tenth(self.stalled).max(100),
            crash_at: tenth(self.crash_at),
            restart: tenth(self.restart),
            call_ms: self.call_ms * k,
            log_ms: self.log_ms * k,
            page_ms: self.page_ms * k,
            db_ms: self.db_ms * k,
            db_timeout: self.db_timeout * k,
            click_gap: self.click_gap * k,
            ..self.clone()
        };
        BroadcastConfig::paced(
            &p,
            Pace {
                window: 1000 * k,
                block: LIVE_BLOCK_MS,
                outage_lead: 500 * k,
            },
        )
    }
}
