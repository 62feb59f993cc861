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

mod run;
#[cfg(test)]
mod tests;

pub use run::{key, step_ms, AtSync, Counts, Frame, ReplicaOutput, ReplicaRun};

use super::lab::{erase, AnyRun, Broken, CliSpec, Job, Lab, LabInfo};
use super::params::{broken, choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The lab's fields.
pub const FIELDS: &[Field] = &[
    choice("snapshot", "snapshot-এ মরা key", &["all", "skip-expired"], "all"),
    choice("load", "snapshot লোড করে", &["replica", "primary"], "replica"),
    int("keys", "key", 100, 50_000, "10000"),
    int("volatile", "TTL-ওয়ালা key (%)", 0, 100, "60"),
    int("ttl_min", "সবচেয়ে ছোট TTL (সেকেন্ড)", 1, 3600, "5"),
    int("ttl_max", "সবচেয়ে বড় TTL (সেকেন্ড)", 1, 3600, "120"),
    int("sync", "replica জোড়ে (সেকেন্ড)", 0, 600, "30"),
    int("lag", "replication lag (ms)", 0, 10_000, "1000"),
    int("reads", "client-এর GET / সেকেন্ড", 0, 2000, "50"),
    int("hz", "hz (সক্রিয় চক্র / সেকেন্ড)", 1, 500, "10"),
    int("duration", "চলবে (সেকেন্ড)", 10, 600, "90"),
    seed("2"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaParams {
    /// `all` or `skip-expired`.
    pub snapshot: String,
    /// `replica` or `primary`.
    pub load: String,
    /// Keys on the primary at time 0.
    pub keys: u32,
    /// Percentage of them with a TTL.
    pub volatile: u32,
    /// Shortest TTL, s.
    pub ttl_min: u64,
    /// Longest TTL, s.
    pub ttl_max: u64,
    /// When the snapshot is taken, s.
    pub sync: u64,
    /// Replication lag, ms.
    pub lag: u64,
    /// The reader's GETs a second (on the primary).
    pub reads: u32,
    /// Active expire cycles a second.
    pub hz: u32,
    /// Length of the run, s.
    pub duration: u64,
    /// Seed of the keys, the TTLs, the reads and both servers' cycles.
    pub seed: u32,
}

impl Default for ReplicaParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

/// The slides' steps.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "today",
        label: "আজকের Redis",
        about: "snapshot-এ সব key — sync-এর মুহূর্তে গুনতি মেলে, তারপর primary-র DEL এলে একসাথে নামে",
        pairs: &[],
    },
    Preset {
        id: "old-rdb",
        label: "Redis ৪.০.৯ পর্যন্ত",
        about: "snapshot লেখার সময় মরা key বাদ — replica শুরুই করে কম key নিয়ে, অথচ বেঁচে থাকা key দুদিকে সমান",
        pairs: &[("snapshot", "skip-expired")],
    },
    Preset {
        id: "restart",
        label: "RDB থেকে primary",
        about: "একই RDB থেকে একটা সার্ভার primary হিসেবে চালু হলো — লোডের সময়ই মরা key বাদ, গুনতি সাথে সাথে কম",
        pairs: &[("load", "primary")],
    },
    Preset {
        id: "no-reads",
        label: "কেউ পড়ে না",
        about: "কোনো client পড়ছে না — মরা key মোছে কেবল primary-র সক্রিয় চক্র, replica তার DEL-এর অপেক্ষায়",
        pairs: &[("reads", "0")],
    },
];

fn rules(p: &Params) -> Result<(), Broken> {
    if p.int("ttl_min") > p.int("ttl_max") {
        return Err(broken(
            "ttl_min",
            "সবচেয়ে ছোট TTL সবচেয়ে বড়টার চেয়ে বেশি হতে পারে না",
        ));
    }
    if p.int("sync") >= p.int("duration") {
        return Err(broken(
            "sync",
            "replica জোড়ার সময় চলার সময়ের মধ্যে হতে হবে (duration-এর চেয়ে কম)",
        ));
    }
    Ok(())
}

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "replica",
    title: "নতুন replica-তে key কম কেন",
    blurb: "মেয়াদ ফুরোনো key, lazy আর সক্রিয় মোছা, snapshot আর primary-র DEL — দুদিকের INFO keyspace সময়ের সাথে",
    fields: FIELDS,
    presets: PRESETS,
    rules,
    runs: &["run"],
    live: false,
};

/// Runs `p` to the end.
pub fn run(p: &ReplicaParams) -> ReplicaOutput {
    ReplicaRun::new(p).finish()
}

/// The lab's runner.
pub struct ReplicaLab;

/// The registry's entry.
pub static LAB: ReplicaLab = ReplicaLab;

impl Lab for ReplicaLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(ReplicaRun::new(&p.typed())))
    }

    fn heaviest(&self) -> &'static str {
        "keys=50000&volatile=100&ttl_min=1&ttl_max=600&sync=300&reads=2000&hz=500&duration=600"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "a primary with expiring keys and a replica synced from a snapshot: INFO \
                      keyspace on both sides over time, stale keys, lazy and active deletions, \
                      the primary's DELs reaching the replica",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let o = run(&p.typed());
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
