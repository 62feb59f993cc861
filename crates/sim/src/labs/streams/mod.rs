//! The streams lab (production slide 17, the chat's Redis Streams): producers, a consumer
//! group and its consumers (the group's workers), all speaking real Redis commands — to
//! SimRedis in virtual time, or live to a real Redis — with Pub/Sub beside it for comparison.
//!
//! * Producers `XADD orders MAXLEN ~ <maxlen> * n <i>` at a steady rate (each message is
//!   also `PUBLISH`ed on `orders.live`).
//! * `XGROUP CREATE orders savers $ MKSTREAM`; N consumers loop on
//!   `XREADGROUP GROUP savers w<k> COUNT <count> BLOCK <block> STREAMS orders >`, which
//!   blocks in virtual time until a producer adds something (or times out with nil).
//! * A batch is saved to the database (an idempotent upsert by message number: a second
//!   save of the same message is counted as a duplicate, not stored twice), then `XACK`ed.
//! * A failed batch (a seeded failure rate, or a poison message inside it) is retried one
//!   message at a time; a poison message goes to the dead-letter stream with its reason
//!   (`XADD orders:dead * id <id> n <i> reason …`) and is then `XACK`ed.
//! * One consumer may crash after saving a batch but before its `XACK`: the batch stays in its
//!   pending list. The others run `XAUTOCLAIM orders savers w<k> <idle> <cursor> COUNT <count>`
//!   every few seconds and take over what has been idle that long — saved a second time
//!   (the duplicates; the upsert keeps the data right).
//! * `MAXLEN ~` trims whole stream nodes from the head. When consumers fall behind, entries are
//!   trimmed before anyone read them (lost), or while pending (XAUTOCLAIM then reports them
//!   deleted: lost too).
//! * Pub/Sub: a subscriber on `orders.live` that goes away for a while misses everything
//!   published meanwhile (`PUBLISH` answers 0 receivers): nothing keeps it.
//!
//! A sampler asks Redis for XLEN and the group's pending count over time; the command log
//! keeps the first commands and every notable one (claims, dead letters, a crash, the first
//! loss).
//!
//! The files: [`params`] (fields, presets, the live shape), [`model`] (the actors, one
//! `world::Model`; its parts: the consumers, [`model::scenario`] — the actors as a
//! `Scenario`: [`sim`] simulated, [`StreamsLive`] against a real Redis, the same actors —
//! [`model::journal`], the bounded typed log, and the reading of XREADGROUP's and
//! XAUTOCLAIM's replies), [`output`] (what the view draws and `labsim` prints), [`practice`]
//! (the question kinds). [`sim`] steps one event at a time; [`run`] runs to the end, and a
//! run stepped in any slice sizes equals it (tested).

/// Its practice questions.
pub mod practice;

use super::def::RunDef;
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::Params;
use super::scenario;
use crate::cli::{Args, CliError};

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::journal::LOG_MAX;
pub use model::scenario::{run, StreamsLive, StreamsScenario, StreamsSim, MAX_EVENTS};
pub use output::{Counters, Sample, StreamsOutput};
pub use params::{
    StreamsParams, LIVE_BLOCK_MS, LIVE_CLAIM_EVERY_MS, LIVE_CLAIM_IDLE_MS, LIVE_DEADLINE_MS,
    LIVE_MESSAGES, LIVE_RATE, LIVE_WORKERS, PRESETS,
};

crate::run_def! {
    /// The lab's one run: the producers, the group and the subscriber, sample by sample.
    pub struct StreamsRun = "run", () => StreamsOutput;
}

/// The stream.
pub const STREAM: &str = "orders";
/// The dead-letter stream.
pub const DEAD: &str = "orders:dead";
/// The consumer group.
pub const GROUP: &str = "savers";
/// The Pub/Sub channel.
pub const CHANNEL: &str = "orders.live";

/// The budget's run: 1,000,000 entries, `MAXLEN ~ 100000`, a group of 4 that keeps up.
pub const BENCH_QUERY: &str =
    "messages=1000000&rate=500000&workers=4&count=200&save_ms=1&retry_ms=0";

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = StreamsRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "streams",
    title: "Redis Streams — consumer group, XACK, XAUTOCLAIM",
    blurb: "ব্যাচে পড়া, সেভ করে XACK, poison-এর dead-letter, মরা worker-এর ব্যাচ XAUTOCLAIM-এ — আর পাশে Pub/Sub, যা কেউ না শুনলে হারায়",
    fields: StreamsParams::FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &[StreamsRun::NAME],
    live: true,
};

/// The lab's runner.
pub struct StreamsLab;

/// The registry's entry.
pub static LAB: StreamsLab = StreamsLab;

impl Lab for StreamsLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        scenario::start::<StreamsScenario>(job, p)
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        scenario::live::<StreamsScenario>(job, p)
    }

    fn heaviest(&self) -> &'static str {
        "messages=2000000&rate=1000000&producers=16&workers=16&count=10000&maxlen=10000000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new(
            "Redis Streams: producers XADD MAXLEN ~, a consumer group of workers \
                      (XREADGROUP COUNT BLOCK, save, XACK), retry one by one, dead-letter, \
                      a crash taken over by XAUTOCLAIM, trimming losses; Pub/Sub beside it",
        )
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        scenario::cli::<StreamsScenario>(p, a)
    }
}
