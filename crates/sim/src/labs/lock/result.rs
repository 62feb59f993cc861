//! What the lock-race lab shows: commands, owners, writes, overlaps, counters.

use super::*;

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

/// A finished (or prefix) run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockResult {
    /// The parameters it ran with.
    pub params: LockParams,
    /// Trace entries (the timeline's positions).
    pub steps: usize,
    /// Time of each trace entry, ms.
    pub times: Vec<u64>,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// Work, pauses and waits.
    pub segs: Vec<Seg>,
    /// The lock's owners in Redis.
    pub owners: Vec<Owner>,
    /// The resource's writes.
    pub writes: Vec<Write>,
    /// Dropped jobs: (step, worker, job, why).
    pub dropped: Vec<(usize, usize, u32, Dropped)>,
    /// Two-owner moments.
    pub overlaps: Vec<Overlap>,
    /// Counters over the whole run.
    pub counters: Counters,
    /// When the run ended, ms.
    pub end_ms: u64,
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

impl LockResult {
    /// The counters after the first `n` trace entries (what the timeline shows at `n`):
    /// equal to the counters of the same run stopped there.
    pub fn so_far(&self, n: usize) -> Counters {
        count(
            &self.commands,
            &self.writes,
            &self.segs,
            &self.dropped,
            &self.owners,
            n,
        )
    }

    /// Time of trace entry `n` (the last entry's after the end).
    pub fn time_at(&self, n: usize) -> u64 {
        self.times
            .get(n)
            .or(self.times.last())
            .copied()
            .unwrap_or(0)
    }

    /// The first `DEL` that removed the other worker's lock.
    pub fn first_steal(&self) -> Option<&CmdRow> {
        self.commands.iter().find(|c| c.steals)
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

    /// The JSON `labsim lock --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "params": self.params,
            "counters": self.counters,
            "firstSteal": self.first_steal(),
            "commands": self.commands,
            "owners": self.owners,
            "writes": self.writes,
            "overlaps": self.overlaps,
            "endMs": self.end_ms,
        })
    }
}

pub(super) fn text(r: &LockResult, trace: &str) -> String {
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
        p.pause_worker.to_ascii_uppercase(),
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
