//! The presence lab (production slides 14–15): how many are watching a room, counted two
//! ways — a sorted set, exact, while the room is under its limit (500), a HyperLogLog above
//! it — and what each costs in memory as the room grows up to 5,00,000.
//!
//! * **The room** (`room` run): one API server marks every active viewer once per 30 s
//!   bucket with the `markactive` script (`EVALSHA`: `PFADD` into the bucket's HyperLogLog,
//!   `ZCARD` of the room, and — only while the room is under the limit — `ZADD` with the time
//!   as score and `EXPIRE`; the size check is inside Redis). It sends the marks 300 to a
//!   pipeline, one pipeline per millisecond. At the end of each bucket a reader trims the
//!   sorted set (`ZREMRANGEBYSCORE` of scores older than the window), reads `ZCARD`, `PFCOUNT`
//!   of the current bucket alone and of the window's buckets together (Redis merges them),
//!   and the buckets' `STRLEN`. Viewers join as the room grows to its final size and a share
//!   leaves each bucket; the lab knows who was active, so it shows the estimate's true error.
//!   The count shown is the seed's rule: the exact `ZCARD` while the room is small (the
//!   estimate under the limit), above it the estimate, but never less than `ZCARD` (the
//!   seed's `onlineCount` script, computed here from the replies: SimRedis runs only its
//!   registered scripts). `ZCARD` alone cannot tell a big room: once the set stops at the
//!   limit, the trim drops those who stopped being refreshed and it falls under it.
//! * **Memory**: a HyperLogLog's bytes are its `STRLEN` (sparse while small, 12,304 bytes
//!   dense past `hll-sparse-max-bytes` 3000 — Redis' own encoding, `redis::hll`); the sorted
//!   set's are SimRedis' per-key estimate (`redis::evict`: the dict entry, the skiplist node
//!   and the member's sds per member; Redis' `MEMORY USAGE` is itself approximate), and
//!   "if every viewer were in the ZSET" is the same estimate for the window's viewers, computed
//!   without storing them.
//! * **The spread** (`spread` run): 0.81% (1.04/√16,384) is a standard error, not a bound.
//!   `seeds` rooms of `sample` distinct viewers each, every room a fresh SimRedis with its own
//!   viewer names (`PFADD` 300 at a time, then `PFCOUNT`); the histogram of the errors, their
//!   standard deviation against 0.81%, and how many rooms were off by more than it. These
//!   rooms have no actors: each is one key filled and counted, asked of SimRedis directly.
//!
//! No live mode: the proxy's command list (`crates/proxy/src/commands.rs`) has no `PFADD`,
//! `PFCOUNT` or `STRLEN`, and a real room of 5,00,000 viewers is far beyond what one browser
//! should send through it.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run_room, run_spread, RoomScenario, SpreadSim};
pub use output::{
    Bucket, PresenceOutput, PresenceRuns, SpreadOutput, BINS, BIN_PCT, STANDARD_ERROR_PCT,
};
pub use params::PresenceParams;

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's main run: the room, bucket by bucket.
    pub struct PresenceRoom = "room", () => PresenceOutput;
}

crate::run_def! {
    /// The spread of the estimate's error over many rooms.
    pub struct PresenceSpread = "spread", () => SpreadOutput;
}

/// The room's sorted set.
pub const ROOM: &str = "presence:room:42";
/// The prefix of the room's HyperLogLog buckets (`hll:room:42:<bucket>`).
pub const HLL_PREFIX: &str = "hll:room:42:";
/// A bucket's length, ms.
pub const BUCKET_MS: u64 = 30_000;
/// Marks per pipeline (the buffered presence flush's chunk, production slide 4/5 of realtime).
pub const CHUNK: usize = 300;
/// Most adds one spread run may do (`sample × seeds`).
pub const SPREAD_MAX_ADDS: i64 = 20_000_000;

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = PresenceRoom;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "presence",
    title: "কতজন দেখছে — ZSET বনাম HyperLogLog",
    blurb: "রুম বাড়ে ৫ লাখ পর্যন্ত: ৫০০-র নিচে ZSET-এ নিখুঁত গোনা, ওপরে HyperLogLog-এর আন্দাজ, ভুল কতটা ছড়ায় আর মেমোরি কত",
    fields: PresenceParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<PresenceParams>,
    runs: &[PresenceRoom::NAME, PresenceSpread::NAME],
    live: false,
};

/// The lab's runner.
pub struct PresenceLab;

/// The registry's entry.
pub static LAB: PresenceLab = PresenceLab;

impl Lab for PresenceLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let p: PresenceParams = p.read();
        match job.run.as_str() {
            "" | PresenceRoom::NAME => Ok(PresenceRoom::erase(model::sim(&p))),
            PresenceSpread::NAME => Ok(PresenceSpread::erase(SpreadSim::new(&p))),
            other => Err(format!("presence has no run `{other}`")),
        }
    }

    fn heaviest(&self) -> &'static str {
        "size=500000&rounds=10&leave=0&sample=20000&seeds=1000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new(
            "a room growing to --size: the sorted set (exact, under --limit) against \
                      the HyperLogLog buckets merged by PFCOUNT, their memory, and the \
                      estimate's error over --seeds rooms",
        )
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: PresenceParams = p.read();
        let runs = PresenceRuns {
            room: run_room(&p),
            spread: run_spread(&p),
        };
        Ok(crate::cli::emit(a, text(&runs.room, &runs.spread), || {
            serde_json::to_value(&runs).unwrap_or_default()
        }))
    }
}

/// The command line's table.
pub fn text(room: &PresenceOutput, spread: &SpreadOutput) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let p = &room.params;
    let _ = writeln!(
        s,
        "presence: room grows to {} over {} buckets of 30 s, {}% leave each, PFCOUNT over {} \
         buckets, ZSET limit {}, seed {}",
        p.size, p.rounds, p.leave, p.window, p.limit, p.seed
    );
    let _ = writeln!(
        s,
        "{:>6} {:>8} {:>8} {:>6} {:>9} {:>9} {:>8} {:>7} {:>10} {:>10} {:>12}",
        "bucket",
        "active",
        "window",
        "zcard",
        "pf-single",
        "pf-window",
        "shown",
        "err%",
        "zset-B",
        "hll-B",
        "all-zset-B"
    );
    for b in &room.buckets {
        let _ = writeln!(
            s,
            "{:>6} {:>8} {:>8} {:>6} {:>9} {:>9} {:>8} {:>7.3} {:>10} {:>10} {:>12}",
            b.bucket,
            b.active,
            b.truth,
            b.zcard,
            b.pf_single,
            b.pf_window,
            b.shown,
            b.err_pct,
            b.zset_bytes,
            b.hll_bytes,
            b.all_zset_bytes
        );
    }
    let _ = writeln!(
        s,
        "marks {} (ZADD {}, skipped {}), commands {}",
        room.marks, room.zadds, room.skipped, room.commands
    );
    let _ = writeln!(
        s,
        "spread: {} rooms of {} viewers: error sd {:.3}% (standard error {:.2}%), mean {:.3}%, \
         beyond ±{:.2}%: {} ({:.1}%), beyond twice: {}, worst {:.3}%",
        spread.seeds,
        spread.sample,
        spread.sd_pct,
        STANDARD_ERROR_PCT,
        spread.mean_pct,
        STANDARD_ERROR_PCT,
        spread.beyond,
        100.0 * f64::from(spread.beyond) / f64::from(spread.seeds.max(1)),
        spread.beyond2,
        spread.worst_pct
    );
    s
}
