//! Expiry and the replica (patterns deck, "Replica ১/৫" … "৫/৫"; seed 002): why a freshly
//! synced replica can count fewer keys than its primary though nothing was lost.
//!
//! A primary SimRedis holds `keys` keys written at time 0, `volatile`% of them with a TTL
//! drawn uniformly from `ttl_min..=ttl_max` seconds (seeded). A reader GETs random keys on the
//! primary `reads` times a second: a read of a key past its TTL deletes it (lazy expiry). The
//! primary's active expire cycle (`hz` times a second, `expire.c`'s rules as [`crate::redis`]
//! models them) deletes the rest. Every deletion goes down the replication stream as a `DEL`.
//!
//! At `sync` seconds the primary takes a snapshot ([`crate::redis::rdb`]):
//!
//! * `snapshot=all` (Redis ≥ 4.0.10 and 5.0): every stored key, the expired-but-not-reclaimed
//!   ones too; `snapshot=skip-expired` (Redis ≤ 4.0.9): those were left out while saving —
//!   the seed's story, the old behaviour.
//! * `load=replica`: a replica ([`crate::redis::Replicated`]) loads it `lag` ms later and
//!   keeps every key; it never expires keys itself (a read of a stale key answers nil), and
//!   its count falls as the primary's DELs arrive, `lag` ms after the primary sent them.
//!   `load=primary`: a server started from that RDB as a primary (a restart, a restore from
//!   a backup) drops the keys past their TTL while loading, then runs its own cycle.
//!
//! Every frame (`step_ms`) records `INFO keyspace`'s `keys=` and `expires=` on both sides,
//! the stale keys among them, the primary's lazy and active deletions and the DELs in
//! flight. One second after the second server has loaded, a probe GETs a stale key on both
//! sides (nil on both; the replica still counts it) and the log notes its DEL arriving.
//! What a read finds — the live keys — is the same on both sides at every frame: nothing is
//! lost; the counts differ only by keys already expired (checked by the tests).
//!
//! No live mode: the proxy speaks to one Redis and cannot attach, load or restart a
//! replica, so this lab runs on SimRedis only.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{key, step_ms, ReplicaModel};
pub use output::{AtSync, Counts, Frame, ReplicaOutput};
pub use params::{LoadAs, ReplicaParams, SnapshotKeys, PRESETS};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: a frame of both servers' counts per step.
    pub struct ReplicaRun = "run", () => ReplicaOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = ReplicaRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "replica",
    title: "নতুন replica-তে key কম কেন",
    blurb: "মেয়াদ ফুরোনো key, lazy আর সক্রিয় মোছা, snapshot আর primary-র DEL — দুদিকের INFO keyspace সময়ের সাথে",
    fields: ReplicaParams::FIELDS,
    presets: PRESETS,
    rules: rules_of::<ReplicaParams>,
    runs: &[ReplicaRun::NAME],
    live: false,
};

/// Runs `p` to the end.
pub fn run(p: &ReplicaParams) -> ReplicaOutput {
    ReplicaModel::new(p).finish()
}

/// The lab's runner.
pub struct ReplicaLab;

/// The registry's entry.
pub static LAB: ReplicaLab = ReplicaLab;

impl Lab for ReplicaLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(ReplicaRun::erase(ReplicaModel::new(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "keys=50000&volatile=100&ttl_min=1&ttl_max=600&sync=300&reads=2000&hz=500&duration=600"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new(
            "a primary with expiring keys and a replica synced from a snapshot: INFO \
                      keyspace on both sides over time, stale keys, lazy and active deletions, \
                      the primary's DELs reaching the replica",
        )
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let o = run(&p.read());
        Ok(crate::cli::emit(a, text(&o), || {
            serde_json::to_value(&o).unwrap_or_default()
        }))
    }
}

/// The run as a table, every 10 virtual seconds (and the sync and the end).
pub fn text(o: &ReplicaOutput) -> String {
    let second = if o.replica { "replica" } else { "restored" };
    let mut s = String::new();
    if let Some(a) = o.at_sync {
        s.push_str(&format!(
            "sync at {} s: primary keys={} ({} stale), snapshot holds {}, {} loads it at {} s{}\n",
            o.sync_ms / 1000,
            a.keys,
            a.stale,
            a.snapshot,
            second,
            o.loaded_ms as f64 / 1000.0,
            if a.dropped > 0 {
                format!(" and drops {} expired keys", a.dropped)
            } else {
                String::new()
            }
        ));
    }
    s.push_str(&format!(
        "{:>6} {:>7} {:>7} {:>6} {:>7} {:>7} {:>6} {:>6} {:>7} {:>6}\n",
        "t(s)", "P keys", "P exp", "P stl", "S keys", "S exp", "S stl", "lazy", "active", "DELs>"
    ));
    for f in &o.frames {
        if f.t_ms % 10_000 != 0 && f.t_ms != o.sync_ms && Some(f) != o.frames.last() {
            continue;
        }
        let (sk, se, ss) = match f.second {
            Some(c) => (
                c.keys.to_string(),
                c.expires.to_string(),
                c.stale.to_string(),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        s.push_str(&format!(
            "{:>6} {:>7} {:>7} {:>6} {:>7} {:>7} {:>6} {:>6} {:>7} {:>6}\n",
            format!("{:.1}", f.t_ms as f64 / 1000.0),
            f.primary.keys,
            f.primary.expires,
            f.primary.stale,
            sk,
            se,
            ss,
            f.lazy,
            f.active,
            f.in_flight
        ));
    }
    if let Some(f) = o.frames.last() {
        if let Some(c) = f.second {
            s.push_str(&format!(
                "live keys (what a read finds): primary {}, {second} {}; the counts differ by stale keys only\n",
                f.primary.live(),
                c.live()
            ));
        }
    }
    for l in &o.log {
        s.push_str(&format!(
            "{:>6.1}s {:<8} {}{}\n",
            l.at_ms as f64 / 1000.0,
            l.actor,
            if l.cmd.is_empty() {
                String::new()
            } else {
                format!("{} -> {}  ", l.cmd_text(), l.reply_text())
            },
            l.note
        ));
    }
    s
}
