//! The failover-and-Redlock lab (patterns deck, "Redlock ১/৪" … "Redlock ৪/৪"; issue 19):
//! clients A and B want the same lock, `lock:reindex`, from Redis servers that fail.
//!
//! * **One primary with an asynchronous replica** (`setup=single`): each client sends
//!   `SET lock:reindex <token> NX PX <ttl>` to the primary. The replica applies what the
//!   primary wrote `lag` ms later; the primary crashes at `crash_at` and the replica is
//!   promoted `promote_after` ms later. When the crash comes before A's write reached the
//!   replica, the new primary has no lock and B gets it too: two owners.
//! * **Redlock over five independent primaries** (`setup=redlock`, nodes r1…r5), the
//!   distlock algorithm: note the start time; `SET … NX PX` on each node in turn, each with a
//!   short timeout ([`NODE_TIMEOUT_MS`]); the lock is won with a majority (≥ 3) and an
//!   elapsed time under the TTL, and is valid for TTL − elapsed − drift (drift = TTL/100 +
//!   2 ms); otherwise the client releases on every node (the token-checked script) and tries
//!   again after a seeded 40–100 ms. A crash (`crash=on`) kills r1: a majority still holds.
//! * **Kleppmann's cases on Redlock**: A pauses (stop-the-world) right after winning, for
//!   `pause` ms, and then works and writes without looking at the clock; r3's wall clock
//!   jumps forward by `jump` ms at `jump_at` (its key expires early) while a partition keeps
//!   A from r4 and r5 (`partition=on`, his example). Two owners happen again. With
//!   `fencing=on` each winner takes a token (`INCR fence:reindex` on r1 — Redlock itself
//!   gives none, which is Kleppmann's point; a real system takes it from a consensus
//!   service or the database) and the storage rejects a write whose token is older than
//!   the newest it accepted.
//!
//! Each client, once it holds the lock: (fence), (pause), its work (`work` ms), one write
//! to the storage, then the release on every node. What the run shows: every command with
//! its reply, per node who holds the key over time (from the servers themselves), the
//! attempts with their counts and validity, the two-owner moments and the writes
//! (`labs::owners`), and one verdict.
//!
//! No live mode: the proxy speaks to one Redis (one namespace per session) and cannot
//! crash, promote or partition servers, nor move one server's clock; the lab needs five.

//!
//! The files: [`params`] (the fields, the presets), [`model`] (the clients, the servers with
//! their faults, the analysis of the trace), [`output`] (what the view draws and `labsim`
//! prints), [`practice`] (the question kinds).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, run_with_trace, text};
pub use output::{
    Attempt, CmdKind, CmdRow, Counters, FaultRow, Hold, HoldEnd, RedlockOutput, RedlockPage, Seg,
    SegKind, Verdict, Write,
};
pub use params::{RedlockParams, Setup, PRESETS};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: both clients against the servers, entry by entry of its trace.
    pub struct RedlockRun = "run", () => RedlockOutput;
}

/// The lock's key.
pub const LOCK_KEY: &str = "lock:reindex";
/// The fencing counter's key (on r1).
pub const FENCE_KEY: &str = "fence:reindex";
/// The clients' names, in id order.
pub const NAMES: [&str; 2] = ["A", "B"];
/// Independent primaries in Redlock.
pub const REDLOCK_NODES: usize = 5;
/// How long a client waits for one node's reply before it moves on, ms.
pub const NODE_TIMEOUT_MS: u64 = 50;
/// Guard against a run that never ends.
pub const MAX_STEPS: usize = 200_000;

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = RedlockRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "redlock",
    title: "Failover আর Redlock — কখন দুই মালিক",
    blurb: "primary মরলে replica-র promote-এ lock হারায়; পাঁচ primary-র সংখ্যাগরিষ্ঠে টেকে — তবু pause আর ঘড়ির লাফে দুই মালিক, fencing token বাসি লেখা ঠেকায়",
    fields: RedlockParams::FIELDS,
    presets: PRESETS,
    rules: rules_of::<RedlockParams>,
    runs: &[RedlockRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct RedlockLab;

/// The registry's entry.
pub static LAB: RedlockLab = RedlockLab;

impl Lab for RedlockLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(RedlockRun::ready(run(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "setup=redlock&ttl=30000&work=10000&gap=0&crash=off&pause=10000&jump=0&partition=off"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            switches: &["page"],
            usage: &["[--page]"],
            ..CliSpec::new("failover and Redlock: a primary with an async replica, or five primaries; \
                      crash, promotion, a pause, a clock jump, fencing (the trace, then the counters; \
                      --page adds what only the lab's page draws to the JSON)")
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let (out, trace) = run_with_trace(&p.read());
        Ok(crate::cli::emit(a, text(&out, &trace), || {
            let out = if a.flag("page") { out } else { out.printed() };
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
