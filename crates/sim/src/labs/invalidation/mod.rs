//! The invalidation lab (production slides 8–10, broadcast steps 24–25): four ways to make
//! cached keys unreachable after a change, each run by actors speaking real commands to one
//! SimRedis holding the same keyspace, side by side:
//!
//! * **del** — the key's name is known: the app `DEL`s the four keys of one student and one
//!   course (auth, the student-course pair `invalidateCourseStudentAccess` drops, the
//!   course's context, the chat restriction) the bulk way, `Promise.allSettled`: all four
//!   sent at once, one on a stalled connection whose client gives up — that one is reported
//!   rejected, the other three go through regardless (and Redis still ran the late one when
//!   it arrived: a timeout says nothing about whether a command ran);
//! * **scan-del** — the names are not known: `SCAN 0 MATCH cache:course-catalog:v1:list:*
//!   COUNT n` from cursor to cursor, a `DEL` of each page's keys; many round trips, the
//!   whole keyspace walked, and keys written while the walk runs may be missed (SCAN
//!   guarantees only the keys present from start to end) — those then serve stale lists;
//! * **version** — one `INCR cache:course-catalog:v1:version` (41 → 42): every list key
//!   named `…:v41` is orphaned, no SCAN; the next requests build `…:v42` names, load from
//!   the database and fill them, and the orphans leave on their TTL (30 s);
//! * **two-versions** — `my-courses` keys carry the student's version and the catalog's
//!   (`…:sv3:cv41`), read by one `MGET`. A student's purchase and an admin's course edit are
//!   run against three designs (the course version only, the student version only, both) on
//!   a sample of students; what each design invalidates and loads is scaled to the viewers
//!   (5,00,000 by default): course-only sends everyone to the database for one purchase,
//!   student-only never shows the edit, both invalidate only what changed.
//!
//! Each way's database loads are counted where they happen: a reader's cache miss is a load
//! (and a `SET … EX` of the result); a hit on a key filled before the change is a stale read.
//!
//! No live mode: the SCAN walk needs `SCAN`, which the proxy does not pass, and the lab's
//! keyspace view reads SimRedis' keys directly between commands.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, scenario, InvalidationScenario, InvalidationSim, Way, T_EDIT, WAYS};
pub use output::{
    ActionOutcome, ActionSeconds, Counts, Design, DesignOutcome, Effect, InvalidationOutput,
    Sample, LOG_MAX,
};
pub use params::{Action, InvalidationParams};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};
use model::TIMEOUT_MS;

crate::run_def! {
    /// The lab's one run: every action on the same keyspace; its parts are each action's
    /// counters second by second.
    pub struct InvalidationRun = "all", ActionSeconds => InvalidationOutput;
}

/// The catalog's version key.
pub const CATALOG_VERSION: &str = "cache:course-catalog:v1:version";
/// The pattern a SCAN walk matches.
pub const CATALOG_PATTERN: &str = "cache:course-catalog:v1:list:*";
/// The catalog's version before the edit.
pub const CV0: i64 = 41;
/// The student's my-courses version before the purchase.
pub const SV0: i64 = 3;
/// TTL of a catalog list and of a my-courses list, s (the seed's TTL table).
pub const LIST_TTL_S: u64 = 30;
/// Students in the two-versions sample (each stands for `viewers / SAMPLE` of them).
pub const SAMPLE: u32 = 100;

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = InvalidationRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "invalidation",
    title: "ক্যাশ ইনভ্যালিডেশন: DEL, SCAN না ভার্সন",
    blurb: "জানা key মোছা, SCAN করে খুঁজে মোছা, INCR-এ ভার্সন বাড়ানো আর দুই ভার্সনের key — কত key অচল, কত রাউন্ড-ট্রিপ, পরে ডেটাবেসে কত চাপ",
    fields: InvalidationParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<InvalidationParams>,
    runs: &[InvalidationRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct InvalidationLab;

/// The registry's entry.
pub static LAB: InvalidationLab = InvalidationLab;

impl Lab for InvalidationLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(InvalidationRun::erase(InvalidationSim::new(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "action=scan-del&lists=5000&others=5000&count=10&rtt=50&write_ms=1"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            skip: &["action"],
            ..CliSpec::new(
                "cache invalidation four ways on one keyspace: DEL of known keys, SCAN + \
                      DEL, a version bump with INCR, two versions read by MGET: keys made \
                      unreachable, round trips, database loads after",
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

/// The table `labsim invalidation` prints.
pub fn text(r: &InvalidationOutput) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} catalog lists (v{CV0}) among {} other keys; SCAN COUNT {}, round trip {} ms, \
         {} viewers\n\n",
        p.lists, p.others, p.count, p.rtt, p.viewers
    );
    out.push_str(&format!(
        "{:<13} {:>11} {:>6} {:>6} {:>7} {:>8} {:>7} {:>6} {:>8} {:>6}\n",
        "action",
        "unreachable",
        "trips",
        "scans",
        "walked",
        "written",
        "missed",
        "took",
        "loads",
        "stale"
    ));
    for a in &r.actions {
        out.push_str(&format!(
            "{:<13} {:>11} {:>6} {:>6} {:>7} {:>8} {:>7} {:>3} ms {:>8} {:>6}\n",
            a.action.word(),
            a.unreachable,
            a.round_trips,
            a.scan_calls,
            a.walked,
            a.written_during,
            a.missed,
            a.done_ms - a.start_ms,
            a.db_loads,
            a.stale_reads
        ));
    }
    let d = r.action(Action::Del);
    out.push_str(&format!(
        "\ndel: allSettled {} fulfilled, {} rejected (timed out after {TIMEOUT_MS} ms)\n",
        d.fulfilled, d.rejected
    ));
    out.push_str(&format!(
        "\ntwo versions, scaled to {} viewers (sample of {SAMPLE}):\n{:<8} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
        p.viewers, "design", "purchase:unr.", "purchase:loads", "edit:unr.", "edit:loads", "edit:stale"
    ));
    for d in &r.designs {
        out.push_str(&format!(
            "{:<8} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
            d.design.word(),
            d.purchase.unreachable,
            d.purchase.db_loads,
            d.edit.unreachable,
            d.edit.db_loads,
            d.edit.stale_reads
        ));
    }
    out
}
