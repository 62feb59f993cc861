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

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{
    requests, run, run_level, BUCKETS, COMMAND_TIMEOUT_MS, MAX_RETRIES_PER_REQUEST, RETRY_CAP_MS,
    SLOW_MS,
};
pub use output::{FailureLevel, FailureOutput};
pub use params::{FailureParams, Level};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the three levels on the same requests.
    pub struct FailureRun = "run", () => FailureOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = FailureRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "failure",
    title: "Redis মরে গেলে — ক্যাশ টেকে, বাকিরা নয়",
    blurb: "একই রিকোয়েস্টের স্রোত তিনবার: Redis সুস্থ, ধীর, ডাউন — ioredis-এর টাইমআউট আর offline queue-তে লেটেন্সি কত, ডেটাবেসে কত কোয়েরি, কোন ফিচার থামে",
    fields: FailureParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<FailureParams>,
    runs: &[FailureRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct FailureLab;

/// The registry's entry.
pub static LAB: FailureLab = FailureLab;

impl Lab for FailureLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(FailureRun::erase(model::Levels::new(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "rate=500&seconds=120&db=1000&keys=10000&ttl=1"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new(
            "Redis healthy, slow and down under one stream of cache-aside requests \
                      (ioredis commandTimeout 1500, maxRetriesPerRequest 1): latency and \
                      database load per level",
        )
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let out = run(&p.read());
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
            l.level.word(),
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
