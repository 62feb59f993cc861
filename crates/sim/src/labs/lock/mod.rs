//! The lock-race lab (production slide 7, seed 004 steps 10–13): workers A and B, World
//! actors that send real SimRedis commands, race for one job's lock.
//!
//! Each worker, per job: (optionally) `SET dedup:click-<k> 1 NX EX <s>` so a double click
//! runs once; `SET lock:<resource> <token> NX PX <ttl>` until it gets `OK` (a seeded 40–100 ms
//! wait between tries); (optionally) `INCR fence:<resource>` for a fencing token; its work,
//! with (optionally) a heartbeat `EVALSHA <extend> 1 lock:<resource> <token> <ttl>` every
//! ttl/3 (a reply 0 means the lock is gone: the worker stops that job); a write to the
//! resource carrying the fencing token; then the release, by plain `DEL` or by `EVALSHA` of
//! the token-checked release script. One injectable pause (GC, a slow query) freezes the
//! chosen worker for a while at the first moment at or after the chosen time when it is inside
//! its critical section; nothing it would send (a heartbeat) goes out meanwhile.
//!
//! The resource (the database the job writes to) sits outside Redis: it keeps the newest
//! fencing token it accepted and, with fencing on, rejects a write with an older one. A
//! *stale write* is one whose lock generation (the order in which Redis granted the locks) is
//! older than a write the resource already accepted — it would overwrite newer data.
//!
//! What it reads from the run: every command with its reply; who owns the lock in Redis over
//! time (from the replies: a granted `SET`, an extend, a delete, the expiry); the moments a
//! `DEL` removed the other worker's lock; the *two-owner moments* — stretches in which both
//! workers were working in their critical section, each believing it held the lock (a paused
//! worker does nothing, so a pause is not work); and the stale writes accepted or rejected.
//!
//! [`sim`] steps the world one event at a time (the worker drives it in slices, the view
//! scrubs its trace); [`run`] runs it to the end, and [`LockOutput::so_far`]`(n)` equals the
//! counters of the same run stopped after `n` trace entries (tested).
//!
//! The files: [`params`] (the fields, the presets), [`model`] (the workers, the race as a
//! scenario, the analysis of its trace), [`output`] (what the view draws and `labsim`
//! prints), [`practice`] (the question kinds).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, LockLive, LockScenario, LockSim};
pub use output::{
    CmdKind, CmdRow, Counters, Dropped, LockOutput, LockPage, Outcome, Overlap, Owner, OwnerEnd,
    Seg, SegKind, Write,
};
pub use params::{LockParams, Release, Who, PRESETS};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::Params;
use super::scenario;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the race, entry by entry of its trace.
    pub struct LockRun = "race", () => LockOutput;
}

/// The resource the job works on (its lock is `lock:<RESOURCE>`).
pub const RESOURCE: &str = "campaign:42";
/// The lock's key.
pub const LOCK_KEY: &str = "lock:campaign:42";
/// The fencing counter's key.
pub const FENCE_KEY: &str = "fence:campaign:42";
/// The workers' names, in id order.
pub const NAMES: [&str; 2] = ["A", "B"];
/// Guard against a run that never ends (far above the largest parameters' event count).
pub const MAX_STEPS: usize = 400_000;
/// Text of a critical-section piece of work in the trace.
pub const WORK: &str = "কাজ";
/// Text of the pause in the trace.
pub const PAUSE: &str = "থমকে আছে (GC / ধীর কোয়েরি)";

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = LockRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "lock",
    title: "লকের দৌড় — DEL, টোকেন, fencing",
    blurb: "দুই worker একই লক চায় — সাধারণ DEL অন্যের লক মোছে, টোকেন-স্ক্রিপ্ট আর fencing token তা ঠেকায়",
    fields: LockParams::FIELDS,
    presets: PRESETS,
    rules: rules_of::<LockParams>,
    runs: &[LockRun::NAME],
    live: true,
};

/// The lab's runner.
pub struct LockLab;

/// The registry's entry.
pub static LAB: LockLab = LockLab;

impl Lab for LockLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        scenario::start::<LockScenario>(job, p)
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        scenario::live::<LockScenario>(job, p)
    }

    fn heaviest(&self) -> &'static str {
        "ttl=300&work=10000&jobs=5&release=token&heartbeat=on&pause_at=0&pause=10000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            switches: &["page"],
            usage: &["[--page]"],
            ..CliSpec::new(
                "the lock race: workers A and B, SET NX PX, DEL or the token script, \
                      heartbeat, a pause, fencing, dedup (the trace, then the counters; --page \
                      adds what only the lab's page draws to the JSON)",
            )
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        scenario::cli::<LockScenario>(p, a)
    }
}

/// The command line's text: the parameters, the trace, the counters.
pub fn text(r: &LockOutput, trace: &str) -> String {
    let p = &r.params;
    let c = &r.counters;
    let mut s = format!(
        "lock race: ttl {} ms, work {} ms, jobs {}, release {}, heartbeat {}, fencing {}, dedup {}, pause {} at {} ms for {} ms, gap {} ms, seed {}\n",
        p.ttl,
        p.work,
        p.jobs,
        p.release,
        p.heartbeat,
        p.fencing,
        p.dedup,
        p.pause_worker.word().to_ascii_uppercase(),
        p.pause_at,
        p.pause,
        p.gap,
        p.seed
    );
    s.push_str(trace);
    s.push_str(&format!(
        "two-owner moments {} ({} ms), DEL removed the other's lock {}, writes accepted {} rejected {}, stale writes accepted {} rejected {}, duplicates {}, lost locks {}, grants {}, commands {}, end {} ms\n",
        c.two_owner_moments,
        c.two_owner_ms,
        c.steals,
        c.writes_accepted,
        c.writes_rejected,
        c.stale_accepted,
        c.stale_rejected,
        c.duplicates,
        c.lost,
        c.grants,
        c.commands,
        r.end_ms
    ));
    if let Some(st) = r.first_steal() {
        s.push_str(&format!(
            "first steal: {} at {} ms: {}\n",
            NAMES[st.actor],
            st.at_ms,
            st.cmd_text()
        ));
    }
    s
}
