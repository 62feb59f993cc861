//! The cache-aside lab (patterns deck, slides 5–8; seed 003 "Cache-aside"): readers and
//! writers of one product row, the application's code in between — Redis only stores.
//!
//! * A reader asks for product 99 (or, `absent` percent of the time, for product 7777, which
//!   does not exist): `GET cache:product:99` → the row (a hit) → answered; `(nil)` (a miss) →
//!   `SELECT * FROM products WHERE id = 99` (the database is a timer: `db_ms`) → `SET
//!   cache:product:99 <row> EX <ttl>` → answered; then it thinks `read_every` ± 50 % (seeded)
//!   and asks again, until `duration`. A missing id is not in the database: without negative
//!   caching every read of it goes to the database; with it the reader writes `SET
//!   cache:product:7777 none EX <negative>` and the next reads are answered from Redis.
//! * A writer changes the row's price (`UPDATE products SET price = … WHERE id = 99`,
//!   `db_ms`, committed at its end), then either updates the cache in place (`write=update`:
//!   `SET cache:product:99 <its row> EX <ttl>`) or deletes it (`write=delete`: `DEL
//!   cache:product:99`). Writer B starts `write_gap` ms after A, C after B.
//! * One injectable pause freezes an actor in the gap that matters: writer A between its
//!   commit and its cache step (its first write), or reader r1 between its `SELECT` and its
//!   `SET` (its first miss of product 99). With update-in-place two writers then leave the
//!   older price in the cache; with delete the same pause is harmless, but a reader paused
//!   after reading the old row puts it back after the writer's `DEL` — the rarer race.
//! * Redis down: every command is refused (`ECONNREFUSED`) and each reader answers from the
//!   database — slower, but right.
//!
//! What it reads from the run: every command with its reply; the cache key's value over time
//! (from the commands: a `SET`, a `DEL` that deleted, the expiry) beside the database's
//! committed price; the *stale windows* — stretches in which `cache:product:99` held a price
//! the database no longer had — and the *stale reads* served from them, each with its age.
//! A TTL ends every stale window at the latest at its expiry; without one (`ttl=0`) a stale
//! value stays until the next write deletes or replaces it.
//!
//! The timeline's positions are the commands: position `n` shows the first `n` commands (the
//! last position everything), and [`AsideOutput::so_far`]`(n)` equals the counters of the
//! same run stopped there (tested).
//!
//! The files: [`params`] (the fields, the presets, what a run runs), [`model`] (the readers
//! and writers, the run as a scenario, the analysis of its trace), [`output`] (what the view
//! draws and `labsim` prints), [`practice`] (the question kinds).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, AsideLive, AsideScenario, AsideSim};
pub use output::*;
pub use params::{AsideParams, Pause, Redis, Setup, Write, PRESETS, WRITERS};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::Params;
use super::scenario;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the readers and the writers, command by command.
    pub struct AsideRun = "run", () => AsideOutput;
}

/// The product every writer changes.
pub const PRODUCT: u32 = 99;
/// A product that does not exist.
pub const MISSING: u32 = 7777;
/// Its row's name.
pub const NAME: &str = "Lamp";
/// The price in the database before any write.
pub const FIRST_PRICE: u32 = 1200;
/// Each write's price is this much above the last write begun.
pub const PRICE_STEP: u32 = 50;
/// The negative-cache marker.
pub const NONE: &str = "none";
/// Most reads a run may make (readers × duration ÷ read gap): keeps a run small.
pub const MAX_READS: u64 = 2_000;
/// A live run divides the long times (TTLs, the gaps between reads and between writes, the
/// run's length) by this; the short ones (database, pause, the writers' start) stay.
pub const LIVE_DIV: u64 = 100;
/// Guard against a run that never ends.
pub const MAX_STEPS: usize = 400_000;

/// The cache key of product `id`.
pub fn key(id: u32) -> String {
    format!("cache:product:{id}")
}

/// Product 99's row as the application serialises it.
pub fn row(price: u32) -> String {
    format!("{{\"id\":{PRODUCT},\"name\":\"{NAME}\",\"price\":{price}}}")
}

/// The price in a serialised row (`None`: not a row).
pub fn price_of(v: &[u8]) -> Option<u32> {
    let j: serde_json::Value = serde_json::from_slice(v).ok()?;
    u32::try_from(j.get("price")?.as_u64()?).ok()
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = AsideRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "aside",
    title: "Cache-aside — hit, miss, বাসি মান",
    blurb: "পাঠক আর লেখক একটা product সারি নিয়ে — জায়গায় বদল বনাম মোছা, TTL-ই বাসি মানের সীমা, “none” ক্যাশ, Redis বন্ধ",
    fields: AsideParams::FIELDS,
    presets: PRESETS,
    rules: rules_of::<AsideParams>,
    runs: &[AsideRun::NAME],
    live: true,
};

/// The lab's runner.
pub struct AsideLab;

/// The registry's entry.
pub static LAB: AsideLab = AsideLab;

impl Lab for AsideLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        scenario::start::<AsideScenario>(job, p)
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        scenario::live::<AsideScenario>(job, p)
    }

    /// Every reader and writer the fields allow, as many reads as the rule lets through.
    fn heaviest(&self) -> &'static str {
        "readers=6&read_every=2700&duration=900&writers=3&writes=20&write_every=20000&absent=30&negative=30&ttl=60"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            switches: &["page"],
            usage: &["[--page]"],
            ..CliSpec::new(
                "cache-aside: readers GET, miss, SELECT, SET … EX; writers update in place \
                      or DEL; a pause that makes the races; negative caching; Redis down (the \
                      commands, then the counters and the stale windows; --page adds what only \
                      the lab's page draws to the JSON)",
            )
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        scenario::cli::<AsideScenario>(p, a)
    }
}

/// The command line's text: the setup, the trace, the counters and the stale windows.
pub fn text(r: &AsideOutput, trace: &str) -> String {
    let s = &r.setup;
    let c = &r.counters;
    let ttl = |ms: u64| match ms {
        0 => "none".to_string(),
        ms => format!("{ms} ms"),
    };
    let mut out = format!(
        "cache-aside: write {}, ttl {}, readers {} every ~{} ms, writers {} × {} from {} ms (+{} ms each), db {} ms, pause {:?} {} ms, absent {}%, negative ttl {}, redis {}, duration {} ms, seed {}\n",
        if s.update { "update" } else { "delete" },
        ttl(s.ttl_ms),
        s.readers,
        s.read_every_ms,
        s.writers,
        s.writes,
        s.write_at_ms,
        s.write_gap_ms,
        s.db_ms,
        s.pause,
        s.pause_ms,
        s.absent,
        ttl(s.negative_ms),
        if s.down { "down" } else { "up" },
        s.duration_ms,
        s.seed
    );
    out.push_str(trace);
    out.push_str(&format!(
        "requests {}, hits {}, negative hits {}, misses {}, refused {}, db reads {}, db writes {}, stale reads {} (stalest {} ms), stale windows {} ({} ms, longest {} ms), mean answer {:.1} ms, commands {}, end {} ms\n",
        c.requests,
        c.hits,
        c.negative_hits,
        c.misses,
        c.refused,
        c.db_reads,
        c.db_writes,
        c.stale_reads,
        c.stalest_read_ms,
        c.stale_windows,
        c.stale_ms,
        c.longest_stale_ms,
        c.mean_ms(),
        c.commands,
        r.end_ms
    ));
    for w in &r.windows {
        out.push_str(&format!(
            "stale window: {}–{} ms ({} ms): cache {} while the database had {}, ended {:?}\n",
            w.from_ms,
            w.to_ms,
            w.to_ms - w.from_ms,
            w.cached,
            w.db,
            w.end
        ));
    }
    out
}
