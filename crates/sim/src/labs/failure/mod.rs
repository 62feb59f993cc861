//! The failure lab (production slide 19, "Redis পড়ে গেলেও সাইট পড়ে না"): one stream of
//! requests, each calling a cached function (cache-aside: `GET` → on a miss the database
//! loader → `SET … EX`), run three times on the same seed — Redis healthy, slow and down —
//! through the cache connection as the seed configures it (`redisCacheConnection`:
//! `commandTimeout: 1500`, `maxRetriesPerRequest: 1`), with what ioredis (v5) really does with
//! those options:
//!
//! * **healthy** — every hop 1 ms: a hit answers in 2 ms, a miss loads (`db` ms) and writes
//!   back. The cache starts warm (every key with a seeded TTL left), so the database sees
//!   only the keys that expire during the run.
//! * **slow** — Redis answers 2,000–3,000 ms late (seeded). `commandTimeout` rejects the
//!   `GET` at 1,500 ms ("Command timed out"); ioredis does not send a timed-out command
//!   again (`Command#setTimeout` only rejects its promise), so the catch calls `loader()`
//!   once: every request takes 1,500 ms + the query, and every request is a query.
//! * **down** — connection refused. ioredis keeps reconnecting (`retryStrategy`, v5's
//!   default `min(times × 50, 2000)` ms; Redis has been down a while, so every wait is
//!   2,000 ms) and queues commands meanwhile (`enableOfflineQueue`, on by default). The
//!   timeout is armed in `sendCommand` before the queue, so a queued `GET` fails at 1,500 ms
//!   — or earlier, when every second failed reconnection (`retryAttempts %
//!   (maxRetriesPerRequest + 1) == 0`) flushes the queue with `MaxRetriesPerRequestError`.
//!   `maxRetriesPerRequest` counts reconnections, not resends. So "down" is not fail-fast:
//!   most requests wait the whole 1,500 ms; with `offline_queue=off` the `GET` is rejected
//!   at once and only the query is left. Sources: ioredis `lib/Redis.ts` (`sendCommand`),
//!   `lib/Command.ts` (`setTimeout`), `lib/redis/event_handler.ts` (`closeHandler`),
//!   `lib/redis/RedisOptions.ts` (the defaults).
//!
//! Every `GET`, `SET` and connection attempt is a command of the engine
//! ([`crate::world::World`]) on a SimRedis in virtual time; the offline queue and the
//! reconnect timer are the client's, so they live in the model. The features that need Redis
//! itself (BullMQ queues, streams, the Socket.IO adapter) are the seed's facts, shown beside.
//!
//! No live mode: a lab that makes Redis slow or down cannot do it to the class's shared Redis.

/// Its practice questions.
pub mod practice;

mod model;
#[cfg(test)]
mod tests;

pub use model::{
    requests, run, run_level, FailureOutput, FailureRun, Level, LevelResult, BUCKETS,
    COMMAND_TIMEOUT_MS, LEVELS, MAX_RETRIES_PER_REQUEST, RETRY_CAP_MS, SLOW_MS,
};

use super::lab::{erase, no_rules, AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::{choice, int, seed, Field, Params, ON_OFF};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The levels' parameter words.
pub const LEVEL_NAMES: &[&str] = &["healthy", "slow", "down"];

/// The lab's fields.
pub const FIELDS: &[Field] = &[
    choice("redis", "কোন অবস্থা বিস্তারে", LEVEL_NAMES, "healthy"),
    int("rate", "প্রতি সেকেন্ডে রিকোয়েস্ট", 1, 500, "50"),
    int("seconds", "কত সেকেন্ড", 1, 120, "20"),
    int("db", "ডেটাবেস কোয়েরি (ms)", 1, 1_000, "40"),
    int("keys", "ক্যাশের key", 1, 10_000, "500"),
    int("ttl", "TTL (s)", 1, 3_600, "300"),
    choice("offline_queue", "enableOfflineQueue", ON_OFF, "on"),
    seed("1"),
];

/// The lab's parameters, typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureParams {
    /// The level shown in detail: `healthy` / `slow` / `down`.
    pub redis: String,
    /// Requests per second.
    pub rate: u32,
    /// How long, s (the run has `rate × seconds` requests).
    pub seconds: u32,
    /// One database query, ms.
    pub db: u64,
    /// Distinct cached keys.
    pub keys: u32,
    /// The cache's TTL, s.
    pub ttl: u64,
    /// ioredis' `enableOfflineQueue`: `on` / `off`.
    pub offline_queue: String,
    /// Seed of the arrivals, the keys and the starting TTLs.
    pub seed: u32,
}

impl Default for FailureParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl FailureParams {
    /// The level shown in detail.
    pub fn focus(&self) -> Level {
        Level::parse(&self.redis)
    }
    /// Requests in one level's run.
    pub fn requests(&self) -> usize {
        self.rate as usize * self.seconds as usize
    }
    /// `enableOfflineQueue`.
    pub fn offline_queue(&self) -> bool {
        self.offline_queue != "off"
    }
}

/// The presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "healthy",
        label: "Redis সুস্থ",
        about: "ক্যাশ থেকে ২ ms-এ উত্তর; ডেটাবেসে যায় শুধু মেয়াদ ফুরোনো key",
        pairs: &[("redis", "healthy")],
    },
    Preset {
        id: "slow",
        label: "Redis ধীর",
        about: "২–৩ s দেরি: ১,৫০০ ms-এ Command timed out, আবার পাঠানো নেই, তারপর loader() — প্রতিটা রিকোয়েস্ট ডেটাবেসে",
        pairs: &[("redis", "slow")],
    },
    Preset {
        id: "down",
        label: "Redis ডাউন",
        about: "সংযোগ refused: GET offline queue-তে ১,৫০০ ms পর্যন্ত বসে থাকে (বা MaxRetriesPerRequestError), তারপর loader()",
        pairs: &[("redis", "down")],
    },
    Preset {
        id: "down-no-queue",
        label: "ডাউন, offline queue বন্ধ",
        about: "enableOfflineQueue: false — ডাউন হলে GET সাথে সাথে বাতিল, দেরি শুধু কোয়েরির",
        pairs: &[("redis", "down"), ("offline_queue", "off")],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "failure",
    title: "Redis মরে গেলে — ক্যাশ টেকে, বাকিরা নয়",
    blurb: "একই রিকোয়েস্টের স্রোত তিনবার: Redis সুস্থ, ধীর, ডাউন — ioredis-এর টাইমআউট আর offline queue-তে লেটেন্সি কত, ডেটাবেসে কত কোয়েরি, কোন ফিচার থামে",
    fields: FIELDS,
    presets: PRESETS,
    rules: no_rules,
    runs: &["run"],
    live: false,
};

/// The lab's runner.
pub struct FailureLab;

/// The registry's entry.
pub static LAB: FailureLab = FailureLab;

impl Lab for FailureLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(FailureRun::new(&p.typed::<FailureParams>())))
    }

    fn heaviest(&self) -> &'static str {
        "rate=500&seconds=120&db=1000&keys=10000&ttl=1"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "Redis healthy, slow and down under one stream of cache-aside requests \
                      (ioredis commandTimeout 1500, maxRetriesPerRequest 1): latency and \
                      database load per level",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let out = run(&p.typed::<FailureParams>());
        Ok(crate::cli::emit(a, text(&out), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}

/// The command line's table.
pub fn text(out: &FailureOutput) -> String {
    let mut s = format!(
        "{} requests over {} s, each one cached call (db {} ms); commandTimeout {} ms, \
         maxRetriesPerRequest {}, offline queue {}\n\n",
        out.requests,
        out.seconds,
        out.db_ms,
        COMMAND_TIMEOUT_MS,
        MAX_RETRIES_PER_REQUEST,
        if out.offline_queue { "on" } else { "off" }
    );
    s.push_str(
        "level     p50 ms  p99 ms  mean ms  max ms  hits  misses  timed-out  flushed  rejected  db queries  db q/s\n",
    );
    for l in &out.levels {
        s.push_str(&format!(
            "{:<8} {:>7} {:>7} {:>8.1} {:>7} {:>5} {:>7} {:>10} {:>8} {:>9} {:>11} {:>7.1}\n",
            l.level.name(),
            l.p50_ms,
            l.p99_ms,
            l.mean_ms,
            l.max_ms,
            l.hits,
            l.misses,
            l.timed_out,
            l.flushed,
            l.rejected,
            l.db_queries,
            l.db_qps
        ));
    }
    s
}
