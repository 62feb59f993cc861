//! What the lock race gives the view and `labsim lock --json` alike ([`LockOutput`]): every
//! command with its reply, the lock's owners in Redis, the resource's writes, the two-owner
//! moments and the counters; the page's part ([`LockPage`]: each trace entry's time, the
//! workers' work, pauses and waits, the dropped jobs) rides along for the lanes and the
//! scrubber. Its timeline walks the trace: position `n` is the race after its first `n`
//! entries, and [`LockOutput::so_far`] equals the counters of the same race stopped there.

use super::model::count;
use super::params::LockParams;
use super::NAMES;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::{CmdLine, TraceSteps};
use crate::redis::Reply;
use serde::{Deserialize, Serialize};

/// Why a job was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Dropped {
    /// The dedup key was already there: a double click.
    Duplicate,
    /// The heartbeat found the lock gone (reply 0).
    LostLock,
}

/// A stretch of a worker's time on the axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seg {
    /// Trace index of the decision that began it.
    pub step: usize,
    /// Worker (0 = A, 1 = B).
    pub actor: usize,
    /// Job number (1-based).
    pub job: u32,
    /// Start, ms.
    pub from_ms: u64,
    /// End, ms.
    pub to_ms: u64,
    /// What it is.
    pub kind: SegKind,
}

/// What a [`Seg`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SegKind {
    /// Working in the critical section.
    Work,
    /// Frozen.
    Pause,
    /// Waiting to try the lock again.
    Wait,
}

/// What a command in the run is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CmdKind {
    /// `SET dedup:… NX EX`.
    Dedup,
    /// `SET lock:… NX PX`.
    Acquire,
    /// `INCR fence:…`.
    Fence,
    /// `EVALSHA <extend>`.
    Extend,
    /// `DEL lock:…`.
    Del,
    /// `EVALSHA <release>`.
    Release,
}

/// One command as Redis executed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// Trace index.
    pub step: usize,
    /// When Redis ran it, ms.
    pub at_ms: u64,
    /// When the worker sent it, ms.
    pub sent_ms: u64,
    /// Worker.
    pub actor: usize,
    /// The command's words.
    pub cmd: Vec<String>,
    /// Redis' reply (a live run's may be the proxy's error, as an error reply).
    pub reply: Reply,
    /// What it is for.
    pub kind: CmdKind,
    /// It deleted the other worker's lock (a `DEL`, or a release, that removed a lock the
    /// other worker had been granted).
    pub steals: bool,
    /// Live runs: the round trip to the real Redis through the proxy, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

impl CmdRow {
    /// The command as redis-cli echoes it.
    pub fn cmd_text(&self) -> String {
        self.line().cmd_text()
    }

    /// The row as a line of the command log.
    pub fn line(&self) -> CmdLine {
        CmdLine {
            at_ms: self.at_ms,
            actor: NAMES[self.actor].into(),
            cmd: self.cmd.clone(),
            reply: Ok(self.reply.clone()),
            note: String::new(),
            rtt_us: self.rtt_us,
        }
    }

    /// Redis granted (`OK`) or confirmed (`1`) what it asked.
    pub fn worked(&self) -> bool {
        self.reply == Reply::ok() || self.reply.as_int() == Some(1)
    }
}

/// Who held the lock in Redis, from when to when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    /// Trace index of the granting `SET`.
    pub step: usize,
    /// Worker.
    pub actor: usize,
    /// Its token (the lock's value).
    pub token: String,
    /// Granted at, ms.
    pub from_ms: u64,
    /// Gone at, ms (the run's end when still held).
    pub to_ms: u64,
    /// How it ended.
    pub end: OwnerEnd,
}

/// How an [`Owner`] stretch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OwnerEnd {
    /// Its owner released it.
    Released,
    /// The other worker's `DEL` removed it.
    Stolen,
    /// The TTL ran out.
    Expired,
    /// Still held when the run ended.
    Held,
}

/// A write the resource received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Write {
    /// Trace index.
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Worker.
    pub actor: usize,
    /// Job number.
    pub job: u32,
    /// The fencing token it carried (fencing on).
    pub fence: Option<i64>,
    /// Which lock grant it was made under (1 = the first lock Redis granted).
    pub generation: u32,
    /// Older than a write the resource already accepted.
    pub stale: bool,
    /// The resource took it.
    pub accepted: bool,
}

pub use crate::labs::owners::Overlap;

/// The lab's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Moments with two owners.
    pub two_owner_moments: u32,
    /// Their total length, ms.
    pub two_owner_ms: u64,
    /// `DEL`s that removed the other worker's lock.
    pub steals: u32,
    /// Locks Redis granted.
    pub grants: u32,
    /// Writes the resource accepted.
    pub writes_accepted: u32,
    /// Writes it rejected (older fencing token).
    pub writes_rejected: u32,
    /// Stale writes it accepted (lost updates).
    pub stale_accepted: u32,
    /// Stale writes it rejected.
    pub stale_rejected: u32,
    /// Jobs dropped as a double click.
    pub duplicates: u32,
    /// Jobs dropped because the heartbeat found the lock gone.
    pub lost: u32,
    /// Commands sent.
    pub commands: u32,
}

/// A finished (or prefix) race: what the view draws and `labsim lock --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockOutput {
    /// The parameters it ran with.
    pub params: LockParams,
    /// Counters over the whole run.
    pub counters: Counters,
    /// The first command that deleted the other worker's lock.
    pub first_steal: Option<CmdRow>,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// The lock's owners in Redis.
    pub owners: Vec<Owner>,
    /// The resource's writes.
    pub writes: Vec<Write>,
    /// Two-owner moments.
    pub overlaps: Vec<Overlap>,
    /// When the run ended, ms.
    pub end_ms: u64,
    /// What only the page draws (`labsim lock --json` prints it with `--page`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<LockPage>,
}

/// What only the lab's page draws: the trace's times (the scrubber's positions) and the
/// workers' stretches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockPage {
    /// Time of each trace entry, ms.
    pub times: Vec<u64>,
    /// Work, pauses and waits.
    pub segs: Vec<Seg>,
    /// Dropped jobs: (step, worker, job, why).
    pub dropped: Vec<(usize, usize, u32, Dropped)>,
}

/// How a race ended: what the live mode puts beside the simulation's prediction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Who Redis gave the lock to, in order (0 = A, 1 = B).
    pub grants: Vec<usize>,
    /// Who first deleted the other's lock.
    pub first_steal: Option<usize>,
    /// Releases that deleted the other's lock.
    pub steals: u32,
    /// Both workers were in their critical section at once.
    pub two_owners: bool,
    /// Stale writes the resource accepted (lost updates).
    pub stale_accepted: u32,
    /// Stale writes it rejected (fencing).
    pub stale_rejected: u32,
    /// How the last lock ended.
    pub last_end: Option<OwnerEnd>,
}

impl LockOutput {
    /// The page's part (empty when printed without it).
    pub fn page(&self) -> &LockPage {
        static EMPTY: LockPage = LockPage {
            times: Vec::new(),
            segs: Vec::new(),
            dropped: Vec::new(),
        };
        self.page.as_ref().unwrap_or(&EMPTY)
    }

    /// The output without its page's part: what `labsim lock --json` prints.
    pub fn printed(self) -> Self {
        LockOutput { page: None, ..self }
    }

    /// The counters after the first `n` trace entries (what the timeline shows at `n`):
    /// equal to the counters of the same run stopped there.
    pub fn so_far(&self, n: usize) -> Counters {
        let page = self.page();
        count(
            &self.commands,
            &self.writes,
            &page.segs,
            &page.dropped,
            &self.owners,
            n,
        )
    }

    /// The first `DEL` that removed the other worker's lock.
    pub fn first_steal(&self) -> Option<&CmdRow> {
        self.first_steal.as_ref()
    }

    /// How the run ended, in the terms a live run is compared with its simulation.
    pub fn outcome(&self) -> Outcome {
        let c = &self.counters;
        Outcome {
            grants: self.owners.iter().map(|o| o.actor).collect(),
            first_steal: self.first_steal().map(|s| s.actor),
            steals: c.steals,
            two_owners: c.two_owner_moments > 0,
            stale_accepted: c.stale_accepted,
            stale_rejected: c.stale_rejected,
            last_end: self.owners.last().map(|o| o.end),
        }
    }
}

/// Its positions are its trace's entries.
impl TraceSteps for LockOutput {
    fn times(&self) -> &[u64] {
        &self.page().times
    }
}

impl Steps for LockOutput {
    /// The trace's entries.
    fn steps(&self) -> usize {
        self.page().times.len()
    }
}

impl Figures for LockOutput {
    fn figures(&self) -> Vec<Figure> {
        let c = &self.counters;
        [
            ("two-owner", c.two_owner_moments),
            ("steals", c.steals),
            ("stale-accepted", c.stale_accepted),
            ("stale-rejected", c.stale_rejected),
            ("grants", c.grants),
            ("duplicates", c.duplicates),
            ("lost", c.lost),
        ]
        .into_iter()
        .map(|(k, v)| Figure::count(k, u64::from(v)))
        .collect()
    }
}
