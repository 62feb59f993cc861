//! The round-trips lab (production slide 15): presence's four commands — `PFADD`, `ZCARD`,
//! `ZADD`, `EXPIRE`, with "is the room under the limit?" between the second and the third —
//! sent five ways, under a round trip the student sets, by several clients marking new
//! viewers into a room that has one place left:
//!
//! * **one by one**: four round trips; the check happens in the client, so another client's
//!   `ZADD` can land between our `ZCARD` and our `ZADD` — the room ends over the limit;
//! * **pipeline**: one round trip, but the `ZADD` is sent before the `ZCARD`'s answer is
//!   known, so the check cannot stop it; nothing makes the four atomic either (here each
//!   pipeline reaches Redis in one read and runs back to back — Redis promises no more);
//! * **MULTI/EXEC**: one round trip and atomic — nothing runs between — but the `ZCARD`'s
//!   answer comes only with `EXEC`'s array, so the write is unconditional too;
//! * **WATCH + MULTI**: the way a transaction can read first: `WATCH` and `ZCARD` (one
//!   round trip), then `MULTI … EXEC` (another); `EXEC` answers nil when someone touched the
//!   room meanwhile, and the client tries again;
//! * **script**: `EVALSHA` of the `markactive` script — one round trip, the check inside
//!   Redis, nothing between.
//!
//! With the room's key holding the wrong type (`room_type=string`), every way stops part-way
//! and keeps what it wrote before the error — no rollback, in a script or in `EXEC`.
//!
//! The clients are one [`world::Model`](crate::world::Model) on the one engine: each sends a
//! batch of commands (a pipeline is a batch of several, sent at once over one connection, so
//! they reach Redis together and in order) and decides the next batch when the last reply
//! of this one is back. One run simulates all five ways on the same seed, so the view's table
//! compares them; the picture draws the chosen one.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, run_mode, scenario, Clients, WayScenario};
pub use output::{client_name, ClientEnd, Ran, RoundTripsOutput, Trip, WayOutcome};
pub use params::{RoomType, RoundTripsParams, Way};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: every way on the same clients (ready at once).
    pub struct RoundTripsRun = "ways", () => RoundTripsOutput;
}

/// The room's sorted set.
pub const ROOM: &str = "presence:room:42";
/// The room's HyperLogLog bucket.
pub const HLL: &str = "hll:room:42";
/// The sorted set's TTL, seconds (`EXPIRE room 120`).
pub const ROOM_TTL: u64 = 120;
/// How many times a WATCH client tries before it gives up.
pub const MAX_TRIES: u32 = 10;

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = RoundTripsRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "roundtrips",
    title: "চার কমান্ড, এক রাউন্ড-ট্রিপ",
    blurb: "একটা একটা করে, pipeline, MULTI/EXEC, WATCH আর Lua স্ক্রিপ্ট — কত রাউন্ড-ট্রিপ, আর ফাঁকে অন্য ক্লায়েন্ট লিখলে কী হয়",
    fields: RoundTripsParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<RoundTripsParams>,
    runs: &[RoundTripsRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct RoundTripsLab;

/// The registry's entry.
pub static LAB: RoundTripsLab = RoundTripsLab;

impl Lab for RoundTripsLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(RoundTripsRun::ready(run(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "mode=watch&rtt=500&clients=8&spread=0"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            skip: &["mode"],
            ..CliSpec::new(
                "presence's four commands one by one, pipelined, in MULTI/EXEC, with \
                      WATCH and as one script: round trips, the room's size against its limit",
            )
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.read());
        Ok(crate::cli::emit(a, text(&r), || {
            serde_json::to_value(&r).unwrap_or_default()
        }))
    }
}

/// The table `labsim roundtrips` prints.
pub fn text(r: &RoundTripsOutput) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} clients, round trip {} ms, room {} of limit {}{}\n\n",
        p.clients,
        p.rtt,
        p.room,
        p.limit,
        if p.broken_room() {
            " (the room's key is a string)"
        } else {
            ""
        }
    );
    out.push_str(&format!(
        "{:<11} {:>6} {:>8} {:>6} {:>5} {:>8} {:>8} {:>7} {:>6}\n",
        "way", "trips", "slowest", "room", "over", "between", "aborted", "errors", "hll"
    ));
    for w in &r.ways {
        out.push_str(&format!(
            "{:<11} {:>6} {:>5} ms {:>6} {:>5} {:>8} {:>8} {:>7} {:>6}\n",
            w.mode.word(),
            w.trips_total,
            w.slowest_ms,
            w.room_after
                .map_or_else(|| "WRONG".to_string(), |n| n.to_string()),
            w.over,
            w.between,
            w.aborted(),
            w.errors,
            w.hll_after
        ));
    }
    out
}
