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
//! The instances are a [`model::instances::CacheModel`] of the one engine ([`crate::world::World`]): an
//! instance has many commands in flight, each with the client's timeout when Redis is not
//! healthy, and the link to Redis is healthy, slow or down. [`CacheScenario`] builds it on
//! any backend, so the lab has its simulation ([`CacheSim`], the pair [`PairSim`]) and its
//! live run ([`CacheLive`], the same instances on a real Redis beside their prediction). A
//! run is a pure function of its config.
//!
//! Modules: [`params`] (the fields and the config), [`model`] (the instances, their
//! commands, what a run leaves, the scenario and the pair), [`output`] (what the page and
//! `labsim --json` get), [`practice`] (its questions).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::cmd::{CacheCmd, CmdRow};
pub use model::record::{CacheRecord, Counts, PairRecord, Path, Query, Request};
pub use model::{finish, live, pair, run, sim, CacheLive, CacheScenario, CacheSim, PairSim};
pub use output::{
    CacheOutput, CacheSide, SideKeys, SideTimeline, LIVE_NAMES, PAIR_NAMES, VIEW_FRAMES, VIEW_MAX,
};
pub use params::{
    CacheConfig, CacheParams, Health, Layers, Start, KEY, LIVE_CONCURRENT, LIVE_REQUESTS, LOCK,
    POLL_MS, SLOW_MS, THINK_MS, TIMEOUT_MS, VERSION,
};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's run: every layer off, then the chosen layers beside it, on one time axis.
    pub struct CachePair = "pair", () => CacheOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = CachePair;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "cache",
    title: "ক্যাশ ইঞ্জিন — চার স্তর বনাম stampede",
    blurb: "ছয়টা API ইনস্ট্যান্স, খাম, FRESH/STALE/MISS, লক আর heartbeat — সব স্তর বন্ধ বনাম চালু, Redis ধীর বা ডাউন হলে কী হয়",
    fields: CacheParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<CacheParams>,
    runs: &[CachePair::NAME],
    live: true,
};

/// The lab's runner.
pub struct CacheLab;

/// The registry's entry.
pub static LAB: CacheLab = CacheLab;

impl Lab for CacheLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(CachePair::erase(PairSim::new(
            &p.read::<CacheParams>().config(),
        )))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let cfg = p.read::<CacheParams>().config();
        Some(Box::new(live(&cfg.for_live(job.live_scale.unwrap_or(1)))))
    }

    fn heaviest(&self) -> &'static str {
        "instances=12&concurrent=500&requests=20000&loader=20000&fresh=100&stale=0&lock_ttl=100&wait=60000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            switches: &["series"],
            usage: &["[--series]"],
            ..CliSpec::new("the cache engine (production deck): API instances, the envelope, the four \
                      layers against a stampede; every layer off beside the chosen layers, same seed")
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let out = CacheOutput::summary(&pair(&p.read::<CacheParams>().config()), a.flag("series"));
        Ok(crate::cli::emit(a, out.table(PAIR_NAMES), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
