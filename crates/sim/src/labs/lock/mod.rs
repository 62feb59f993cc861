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
//! [`LockRun`] steps the world one event at a time (the worker drives it in slices, the UI
//! scrubs its trace); [`run`] runs it to the end, and `LockRun::result().so_far(n)` equals
//! the result of the same run stopped after `n` trace entries (tested below).

/// Its practice questions.
pub mod practice;

mod actors;
mod result;
mod scenario;
#[cfg(test)]
mod tests;

use actors::{Journal, RawWrite, Worker};
pub use result::*;
pub use scenario::{live, run, run_text, sim, LockLive, LockRun, LockScenario};
use scenario::count;

use super::lab::{erase, AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::log::CmdLine;
use super::params::Params;
use crate::cli::{Args, CliError};
use super::params::{Field, Kind};
use crate::redis::{scripts, Reply};
use crate::world::{
    cmd, Action, Actor, Actors, Backend, Command, Ctx, Hop, Input, TraceEvent, What,
    World,
};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

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

const ON_OFF: &[&str] = &["off", "on"];

/// The lab's fields: ranges, the "plain DEL" preset's values as defaults.
pub const FIELDS: &[Field] = &[
    Field {
        key: "ttl",
        label: "লকের TTL (ms)",
        kind: Kind::Int {
            min: 300,
            max: 30_000,
        },
        default: "1000",
    },
    Field {
        key: "work",
        label: "কাজের সময় (ms)",
        kind: Kind::Int {
            min: 10,
            max: 10_000,
        },
        default: "600",
    },
    Field {
        key: "jobs",
        label: "প্রতি worker-এ কাজ",
        kind: Kind::Int { min: 1, max: 5 },
        default: "2",
    },
    Field {
        key: "release",
        label: "লক ছাড়া",
        kind: Kind::Choice { words: &["del", "token"], labels: &[] },
        default: "del",
    },
    Field {
        key: "heartbeat",
        label: "heartbeat",
        kind: Kind::Choice { words: ON_OFF, labels: &[] },
        default: "off",
    },
    Field {
        key: "fencing",
        label: "fencing token",
        kind: Kind::Choice { words: ON_OFF, labels: &[] },
        default: "off",
    },
    Field {
        key: "dedup",
        label: "ডাবল-ক্লিক dedup",
        kind: Kind::Choice { words: ON_OFF, labels: &[] },
        default: "off",
    },
    Field {
        key: "dedup_ex",
        label: "dedup EX (s)",
        kind: Kind::Int {
            min: 1,
            max: 86_400,
        },
        default: "900",
    },
    Field {
        key: "pause_worker",
        label: "কে থমকাবে",
        kind: Kind::Choice { words: &["a", "b"], labels: &[] },
        default: "a",
    },
    Field {
        key: "pause_at",
        label: "থমকানো শুরু (ms)",
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        default: "200",
    },
    Field {
        key: "pause",
        label: "থমকানোর দৈর্ঘ্য (ms)",
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        default: "800",
    },
    Field {
        key: "gap",
        label: "B আসে পরে (ms)",
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        default: "20",
    },
    Field {
        key: "seed",
        label: "seed",
        kind: Kind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        default: "4",
    },
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LockParams {
    /// Lock TTL, ms.
    pub ttl: u64,
    /// Work per job, ms.
    pub work: u64,
    /// Jobs per worker.
    pub jobs: u32,
    /// `del` or `token`.
    pub release: String,
    /// `on`: extend the lock every ttl/3 while working.
    pub heartbeat: String,
    /// `on`: INCR a fencing token on acquire; the resource rejects older tokens.
    pub fencing: String,
    /// `on`: `SET dedup:click-<k> 1 NX EX <dedup_ex>` before each job.
    pub dedup: String,
    /// The dedup key's EX, seconds.
    pub dedup_ex: u64,
    /// `a` or `b`: who pauses.
    pub pause_worker: String,
    /// When the pause may start, ms.
    pub pause_at: u64,
    /// How long it lasts, ms (0: no pause).
    pub pause: u64,
    /// B starts this long after A, ms.
    pub gap: u64,
    /// Seed of the tokens, the waits between tries and the network jitter.
    pub seed: u32,
}

impl Default for LockParams {
    fn default() -> Self {
        super::params::Params::defaults(&INFO).typed()
    }
}

impl LockParams {
    fn on(v: &str) -> bool {
        v == "on"
    }
    /// Release by the token-checked script.
    pub fn token_release(&self) -> bool {
        self.release == "token"
    }
    /// Heartbeat on.
    pub fn heartbeat_on(&self) -> bool {
        Self::on(&self.heartbeat)
    }
    /// Fencing on.
    pub fn fencing_on(&self) -> bool {
        Self::on(&self.fencing)
    }
    /// Dedup on.
    pub fn dedup_on(&self) -> bool {
        Self::on(&self.dedup)
    }
    /// Index of the worker that pauses.
    pub fn pauser(&self) -> usize {
        usize::from(self.pause_worker == "b")
    }

    /// The same race `k` times slower: the TTL, the work, the pause, when it starts and B's
    /// gap all multiplied by `k` (the live mode's time scale; the waits between tries stay
    /// 40–100 ms). The simulation of the slowed parameters is the live run's prediction.
    pub fn slowed(&self, k: u64) -> LockParams {
        let k = k.max(1);
        LockParams {
            ttl: self.ttl * k,
            work: self.work * k,
            pause_at: self.pause_at * k,
            pause: self.pause * k,
            gap: self.gap * k,
            ..self.clone()
        }
    }
}

pub use super::preset::Preset;

/// The four presets of issue 9.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "plain-del",
        label: "সাধারণ DEL",
        about: "A থমকে যায়, মেয়াদ ফুরোয়, B লক নেয় — কাজ সেরে A-র DEL মুছে দেয় B-র লক",
        pairs: &[
            ("release", "del"),
            ("heartbeat", "off"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "800"),
        ],
    },
    Preset {
        id: "token",
        label: "টোকেন মিলিয়ে ছাড়া",
        about: "Lua স্ক্রিপ্ট কেবল নিজের টোকেন মুছে দেয়, heartbeat মেয়াদ বাড়ায় — কখনো দুই মালিক নয়",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "on"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "800"),
        ],
    },
    Preset {
        id: "pause",
        label: "TTL পেরোনো pause, fencing ছাড়া",
        about: "A এত লম্বা থমকায় যে B লক নিয়ে লিখে ফেলে — জেগে উঠে A-র পুরোনো লেখা চেপে বসে",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "off"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "1500"),
        ],
    },
    Preset {
        id: "fencing",
        label: "fencing token সহ",
        about: "একই pause, কিন্তু লেখায় fencing token — পুরোনো token দেখে resource লেখাটা ফিরিয়ে দেয়",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "off"),
            ("fencing", "on"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "1500"),
        ],
    },
];


/// Text of a critical-section piece of work in the trace.
pub const WORK: &str = "কাজ";
/// Text of the pause in the trace.
pub const PAUSE: &str = "থমকে আছে (GC / ধীর কোয়েরি)";

// --- the lab -------------------------------------------------------------------------------

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "lock",
    title: "লকের দৌড় — DEL, টোকেন, fencing",
    blurb: "দুই worker একই লক চায় — সাধারণ DEL অন্যের লক মোছে, টোকেন-স্ক্রিপ্ট আর fencing token তা ঠেকায়",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["race"],
    live: true,
};

/// The parameters of `job`: slowed for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> LockParams {
    let p: LockParams = p.typed();
    match job.live_scale {
        Some(k) => p.slowed(k),
        None => p,
    }
}

/// The lab's runner.
pub struct LockLab;

/// The registry's entry.
pub static LAB: LockLab = LockLab;

impl Lab for LockLab {
    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(sim(&shaped(job, p))))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        Some(Box::new(live(&shaped(job, p))))
    }

    fn heaviest(&self) -> &'static str {
        "ttl=300&work=10000&jobs=5&release=token&heartbeat=on&pause_at=0&pause=10000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "the lock race: workers A and B, SET NX PX, DEL or the token script, \
                      heartbeat, a pause, fencing, dedup (the trace, then the counters)",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let mut run = sim(&p.typed());
        run.steps(usize::MAX);
        Ok(crate::cli::emit(a, run_text(&run), || run.output().to_json()))
    }
}
