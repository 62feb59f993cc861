//! The cache-engine lab (production deck, slides 4–6; broadcast deck, steps 20–27): API
//! instances reading one hot key through the envelope cache, with the four layers against a
//! stampede, and Redis healthy, slow or down — every command a real SimRedis command, in virtual time.
//!
//! * The envelope `{"version":2,"freshUntil":<ms>,"value":…}` is written with
//!   `SET key <json> PX <(fresh + stale) ± 10%>`. A read is FRESH (answered at once), STALE
//!   (the old value is answered and a background refresh starts), or a MISS (loaded). A
//!   version mismatch is purged with `DEL`; an entry that does not parse is deleted and counts
//!   as a miss.
//! * The layers, each switchable: singleflight inside an instance (later misses join the
//!   first one's flight); a Redis lock across instances (`SET lock:<key> <token> NX PX
//!   <lockTtl>`); the others polling the cache every 40–100 ms (seeded) until the wait runs
//!   out; then a rescue lock, then an error; a heartbeat every lockTtl/3 while the loader runs
//!   (the token-checked `extend` script, i.e. `PEXPIRE` if the lock is still ours); a second
//!   cache read after taking the lock; release with the token-checked `release` script.
//! * Redis slow (each reply 800–2400 ms late): with the seed's `commandTimeout: 1500`
//!   (`timeout`) a command that has no reply by then is rejected and not sent again (ioredis'
//!   `Command#setTimeout` only rejects), so the request goes to the database; with `timeout=0`
//!   (ioredis' default: no timeout) every command waits for its late reply. Redis down:
//!   ioredis queues the command (the offline queue) until the timeout rejects it, then the
//!   database, through the instance's singleflight when it is on (one query per instance at
//!   a time); a wait is the whole timeout here (the failure lab adds the queue's early
//!   flushes at failed reconnections).
//!
//! Clients: `concurrent` users, each sending a request to a seeded random instance, waiting
//! for the answer, thinking 100–300 ms and sending the next, until `requests` were sent. Each
//! hop to Redis takes 1–2 ms (seeded). The loader (Postgres) takes `loader` ms per query.
//!
//! The instances are a [`model::CacheModel`] of the one engine ([`crate::world::World`]): an
//! instance has many commands in flight, each with the client's timeout when Redis is not
//! healthy, and the link to Redis is healthy, slow or down. [`CacheScenario`] builds it on
//! any backend, so the lab has its simulation ([`CacheRun`], the pair [`PairRun`]) and its
//! live run ([`CacheLive`], the same instances on a real Redis beside their prediction). A
//! run is a pure function of its config.
//!
//! Modules: [`params`] (the fields and the config), [`cmd`] (the commands, typed),
//! [`model`] (the instances), [`result`] (what a run leaves), [`run`] (the scenario, the
//! pair), [`view`] (what the page draws, the table).

/// Its practice questions.
pub mod practice;

pub mod cmd;
pub mod model;
pub mod params;
pub mod result;
pub mod run;
pub mod view;

pub use cmd::{CacheCmd, CmdRow};
pub use params::{
    CacheConfig, CacheParams, Health, Layers, Start, HEALTH_NAMES, KEY, LIVE_CONCURRENT,
    LIVE_REQUESTS, LOCK, POLL_MS, SLOW_MS, START_NAMES, THINK_MS, TIMEOUT_MS, VERSION,
};
pub use result::{CacheLab, CacheResult, Counts, Path, Query, Request};
pub use run::{
    finish, live, pair, run, sim, CacheLive, CacheRun, CacheScenario, PairRun, LIVE_NAMES,
    PAIR_NAMES,
};
pub use view::{table, table_json, CacheSide, CacheView, VIEW_FRAMES, VIEW_MAX};

use super::lab::{erase, AnyRun, Broken, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::{broken, Params};
use crate::cli::{Args, CliError};

/// Redis down with no `commandTimeout`: ioredis keeps the command in its offline queue until
/// reconnection has failed `maxRetriesPerRequest` times, which this lab does not model (the
/// failure lab does).
fn rules(p: &Params) -> Result<(), Broken> {
    if p.get("redis") == "down" && p.int("timeout") == 0 {
        return Err(broken(
            "timeout",
            "Redis ডাউন হলে commandTimeout ছাড়া কমান্ড offline queue-তে পুনঃসংযোগের চেষ্টা ফুরোনো পর্যন্ত বসে থাকে — এই ল্যাবে ডাউনের সাথে timeout ০-এর বেশি দিন (failure ল্যাবে পুরো ছবি)",
        ));
    }
    Ok(())
}

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "cache",
    title: "ক্যাশ ইঞ্জিন — চার স্তর বনাম stampede",
    blurb: "ছয়টা API ইনস্ট্যান্স, খাম, FRESH/STALE/MISS, লক আর heartbeat — সব স্তর বন্ধ বনাম চালু, Redis ধীর বা ডাউন হলে কী হয়",
    fields: params::FIELDS,
    presets: &[],
    rules,
    runs: &["pair"],
    live: true,
};

/// The lab's runner.
pub struct CacheEngineLab;

/// The registry's entry.
pub static LAB: CacheEngineLab = CacheEngineLab;

impl Lab for CacheEngineLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(PairRun::new(&p.typed::<CacheParams>().config())))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let cfg = p.typed::<CacheParams>().config();
        Some(Box::new(live(&cfg.for_live(job.live_scale.unwrap_or(1)))))
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn heaviest(&self) -> &'static str {
        "instances=12&concurrent=500&requests=20000&loader=20000&fresh=100&stale=0&lock_ttl=100&wait=60000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "the cache engine (production deck): API instances, the envelope, the four \
                      layers against a stampede; every layer off beside the chosen layers, same seed",
            skip: &[],
            more: &[],
            switches: &["series"],
            usage: &["[--series]"],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let lab = pair(&p.typed::<CacheParams>().config());
        Ok(crate::cli::emit(a, table(&lab), || {
            table_json(&lab, a.flag("series"))
        }))
    }
}

#[cfg(test)]
mod tests;
