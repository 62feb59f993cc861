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

/// Its practice questions.
pub mod practice;

mod model;
mod result;
#[cfg(test)]
mod tests;

pub use result::*;

use super::lab::{erase, AnyRun, CliSpec, Job, Lab, LabInfo, Ready};
use super::params::{choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

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

const ON_OFF: &[&str] = &["off", "on"];

/// The lab's fields; the defaults are the failover preset.
pub const FIELDS: &[Field] = &[
    choice(
        "setup",
        "ব্যবস্থা",
        &["single", "redlock"],
        "single",
    ),
    int("ttl", "lock-এর TTL (ms)", 300, 30_000, "1000"),
    int("work", "কাজের সময় (ms)", 10, 10_000, "600"),
    int("gap", "B আসে পরে (ms)", 0, 10_000, "200"),
    int("lag", "replication lag (ms)", 0, 5_000, "50"),
    choice("crash", "primary (Redlock-এ r1) মরবে", ON_OFF, "on"),
    int("crash_at", "মৃত্যুর সময় (ms)", 0, 10_000, "20"),
    int("promote_after", "promote হয় পরে (ms)", 0, 10_000, "100"),
    int("pause", "A-র pause (ms)", 0, 10_000, "0"),
    int("jump", "ঘড়ির লাফ, r3 বা primary (ms)", 0, 60_000, "0"),
    int("jump_at", "লাফের সময় (ms)", 0, 10_000, "100"),
    choice("partition", "A থেকে r4, r5 বিচ্ছিন্ন", ON_OFF, "off"),
    choice("fencing", "fencing token", ON_OFF, "off"),
    seed("19"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RedlockParams {
    /// `single` (a primary and its replica) or `redlock` (five primaries).
    pub setup: String,
    /// Lock TTL, ms.
    pub ttl: u64,
    /// Work in the critical section, ms.
    pub work: u64,
    /// B starts this long after A, ms.
    pub gap: u64,
    /// Replication lag (single), ms.
    pub lag: u64,
    /// `on`: the primary (single) or r1 (redlock) crashes.
    pub crash: String,
    /// When it crashes, ms.
    pub crash_at: u64,
    /// Single: the replica is promoted this long after the crash, ms.
    pub promote_after: u64,
    /// A's stop-the-world pause right after it wins the lock, ms (0: none).
    pub pause: u64,
    /// How far r3's wall clock (single: the primary's) jumps forward, ms (0: none).
    pub jump: u64,
    /// When it jumps, ms.
    pub jump_at: u64,
    /// `on`: A cannot reach r4 and r5.
    pub partition: String,
    /// `on`: winners take a fencing token, the storage checks it.
    pub fencing: String,
    /// Seed of the tokens, the retry waits and the network jitter.
    pub seed: u32,
}

impl Default for RedlockParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl RedlockParams {
    /// Five independent primaries.
    pub fn redlock(&self) -> bool {
        self.setup == "redlock"
    }
    /// Nodes the clients talk to.
    pub fn nodes(&self) -> usize {
        if self.redlock() {
            REDLOCK_NODES
        } else {
            1
        }
    }
    /// Nodes a win needs.
    pub fn quorum(&self) -> usize {
        self.nodes() / 2 + 1
    }
    /// The drift allowance subtracted from the validity, ms (distlock: TTL/100 + 2; none
    /// for a single Redis, whose client does not compute a validity).
    pub fn drift(&self) -> u64 {
        if self.redlock() {
            self.ttl / 100 + 2
        } else {
            0
        }
    }
    /// A crash is planned.
    pub fn crash_on(&self) -> bool {
        self.crash == "on"
    }
    /// The partition is on (Redlock only).
    pub fn partition_on(&self) -> bool {
        self.partition == "on" && self.redlock()
    }
    /// Fencing on.
    pub fn fencing_on(&self) -> bool {
        self.fencing == "on"
    }
    /// The node whose clock jumps.
    pub fn jump_node(&self) -> usize {
        if self.redlock() {
            2
        } else {
            0
        }
    }
}

/// One preset per step of the slides' story.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "failover",
        label: "failover-এ lock হারায়",
        about: "A lock পায়, replica-তে পৌঁছানোর আগেই primary মরে, replica promote হয় — B-ও একই lock পায়",
        pairs: &[
            ("setup", "single"),
            ("crash", "on"),
            ("lag", "50"),
            ("crash_at", "20"),
            ("pause", "0"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "redlock",
        label: "Redlock, পাঁচ primary",
        about: "পাঁচটা স্বাধীন primary-র অন্তত তিনটায় lock — B অপেক্ষা করে, A ছাড়লে পায়",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "0"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "redlock-node-down",
        label: "Redlock, একটা node মৃত",
        about: "A lock পাওয়ার পরই r1 মরে — বাকি চারটায় A-র lock, B সংখ্যাগরিষ্ঠ পায় না",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "on"),
            ("crash_at", "20"),
            ("pause", "0"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "pause",
        label: "Kleppmann: pause",
        about: "A lock পেয়েই থমকে যায়, validity পেরিয়ে যায়, B lock নিয়ে লেখে — জেগে উঠে A-র বাসি লেখা চেপে বসে",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "1500"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "clock-jump",
        label: "Kleppmann: ঘড়ির লাফ",
        about: "A পায় r1–r3 (r4, r5 বিচ্ছিন্ন); r3-এর ঘড়ি লাফ দেয়, key আগেই মেয়াদোত্তীর্ণ — B পায় r3–r5",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "0"),
            ("jump", "1000"),
            ("jump_at", "100"),
            ("partition", "on"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "fencing",
        label: "fencing token সহ",
        about: "একই pause, কিন্তু লেখায় fencing token — storage পুরোনো token দেখে বাসি লেখা ফিরিয়ে দেয়",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "1500"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "on"),
        ],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "redlock",
    title: "Failover আর Redlock — কখন দুই মালিক",
    blurb: "primary মরলে replica-র promote-এ lock হারায়; পাঁচ primary-র সংখ্যাগরিষ্ঠে টেকে — তবু pause আর ঘড়ির লাফে দুই মালিক, fencing token বাসি লেখা ঠেকায়",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["run"],
    live: false,
};

/// The lab's runner.
pub struct RedlockLab;

/// The registry's entry.
pub static LAB: RedlockLab = RedlockLab;

impl Lab for RedlockLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(Ready::new(run(&p.typed()))))
    }

    fn heaviest(&self) -> &'static str {
        "setup=redlock&ttl=30000&work=10000&gap=0&crash=off&pause=10000&jump=0&partition=off"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "failover and Redlock: a primary with an async replica, or five primaries; \
                      crash, promotion, a pause, a clock jump, fencing (the trace, then the counters)",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let (r, trace) = run_with_trace(&p.typed());
        Ok(crate::cli::emit(a, text(&r, &trace), || r.to_json()))
    }
}
