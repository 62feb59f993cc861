//! What a run leaves — what the view draws and `labsim redlock --json` prints: every command
//! with its reply, who holds the key on each lane, the attempts, the storage's writes, the
//! faults, the two-owner moments, the counters and the verdict; the page's part
//! ([`RedlockPage`]: each trace entry's time, the clients' work, pauses and waits) rides
//! along for the lanes and the scrubber. Its timeline walks the trace: position `n` is the
//! run after its first `n` entries, and [`RedlockOutput::so_far`] counts what happened there.

use super::model::count;
use super::params::RedlockParams;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::{CmdLine, TraceSteps};
use crate::labs::owners::Overlap;
use serde::{Deserialize, Serialize};

/// A piece of a client's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SegKind {
    /// Working in the critical section (believing it holds the lock).
    Work,
    /// Frozen (stop-the-world).
    Pause,
    /// Waiting to try again.
    Wait,
}

/// A stretch of a client's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seg {
    /// Trace index it began at.
    pub step: usize,
    /// Client (0 = A).
    pub client: usize,
    /// Start, ms.
    pub from_ms: u64,
    /// End, ms.
    pub to_ms: u64,
    /// What it is.
    pub kind: SegKind,
}

/// One try for the lock: its nodes, its time, its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// Trace index of its last reply.
    pub step: usize,
    /// Client.
    pub client: usize,
    /// Its token.
    pub token: String,
    /// Started, ms.
    pub from_ms: u64,
    /// Decided, ms.
    pub to_ms: u64,
    /// Nodes that answered OK.
    pub granted: Vec<usize>,
    /// TTL − elapsed − drift, ms (may be ≤ 0).
    pub validity_ms: i64,
    /// It won the lock.
    pub won: bool,
}

/// What a command in the run is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CmdKind {
    /// `SET lock:… NX PX`.
    Acquire,
    /// `INCR fence:…`.
    Fence,
    /// `EVALSHA <release>`.
    Release,
}

/// One command as a node ran it (or refused it, or its sender gave up).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// Trace index.
    pub step: usize,
    /// Client (0 = A).
    pub client: usize,
    /// Node (0 = r1, or the single primary).
    pub node: usize,
    /// What it is for.
    pub kind: CmdKind,
    /// The log line (time, who, words, reply or why none).
    pub line: CmdLine,
}

/// How a node's hold on the key ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HoldEnd {
    /// Its owner released it.
    Released,
    /// Its TTL ran out.
    Expired,
    /// Its TTL ran out early: the node's clock jumped.
    ClockJump,
    /// The node crashed (or, a primary, its replica took over without it).
    Crashed,
    /// Still there when the run ended.
    Held,
}

/// A stretch in which one node (a lane) held the lock for one client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hold {
    /// Trace index when it was seen first.
    pub step: usize,
    /// Lane (see [`RedlockOutput::lanes`]).
    pub lane: usize,
    /// Client whose token it is.
    pub client: usize,
    /// From, ms.
    pub from_ms: u64,
    /// To, ms.
    pub to_ms: u64,
    /// How it ended.
    pub end: HoldEnd,
}

/// A fault as it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum FaultRow {
    /// Lane `lane`'s server died.
    Crash {
        /// When, ms.
        at_ms: u64,
        /// Trace index.
        step: usize,
        /// Lane.
        lane: usize,
    },
    /// The replica became the primary.
    Promote {
        /// When, ms.
        at_ms: u64,
        /// Trace index.
        step: usize,
        /// Lane.
        lane: usize,
    },
    /// Lane `lane`'s wall clock jumped by `ms`.
    ClockJump {
        /// When, ms.
        at_ms: u64,
        /// Trace index.
        step: usize,
        /// Lane.
        lane: usize,
        /// How far, ms.
        ms: i64,
    },
}

impl FaultRow {
    /// Its trace index.
    pub fn step(&self) -> usize {
        match *self {
            FaultRow::Crash { step, .. }
            | FaultRow::Promote { step, .. }
            | FaultRow::ClockJump { step, .. } => step,
        }
    }
}

/// A write the storage received.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Write {
    /// Trace index.
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Client.
    pub client: usize,
    /// Its fencing token (fencing on).
    pub fence: Option<i64>,
    /// The win it was made under (1 = the first lock won).
    pub generation: u32,
    /// Older than a write already accepted.
    pub stale: bool,
    /// The storage took it.
    pub accepted: bool,
}

/// The lab's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Locks won (a majority in time, or a single Redis' OK).
    pub grants: u32,
    /// Attempts that failed.
    pub failed_attempts: u32,
    /// Moments with two owners.
    pub two_owner_moments: u32,
    /// Their total length, ms.
    pub two_owner_ms: u64,
    /// Writes the storage accepted.
    pub writes_accepted: u32,
    /// Writes it rejected.
    pub writes_rejected: u32,
    /// Stale writes it accepted.
    pub stale_accepted: u32,
    /// Stale writes it rejected.
    pub stale_rejected: u32,
    /// Commands sent.
    pub commands: u32,
}

/// Which guarantee the setup gave: the lab's one status line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Verdict {
    /// The storage rejected every stale write (fencing), whatever the lock did.
    StaleRejected {
        /// Two-owner time, ms.
        two_owner_ms: u64,
    },
    /// Two owners at once.
    TwoOwners {
        /// How long, ms.
        ms: u64,
        /// Stale writes the storage accepted.
        stale: u32,
    },
    /// Never two owners.
    NeverTwo,
}

impl Verdict {
    /// The lab's status line, in Bengali: which guarantee the setup gave.
    pub fn line(&self) -> String {
        let ms = |v: u64| format!("{} ms", crate::bn::int(v as i64));
        match *self {
            Verdict::StaleRejected { two_owner_ms: 0 } => {
                "বাসি লেখা ফিরিয়ে দিল: fencing token পুরোনো".to_string()
            }
            Verdict::StaleRejected { two_owner_ms } => format!(
                "বাসি লেখা ফিরিয়ে দিল: দুই মালিক {} ছিল, কিন্তু storage পুরোনো fencing token মানেনি",
                ms(two_owner_ms)
            ),
            Verdict::TwoOwners { ms: t, stale: 0 } => format!("দুই মালিক: {}", ms(t)),
            Verdict::TwoOwners { ms: t, stale } => format!(
                "দুই মালিক: {} — বাসি লেখা গৃহীত {}টা",
                ms(t),
                crate::bn::int(i64::from(stale))
            ),
            Verdict::NeverTwo => "কখনো দুই মালিক নয়".to_string(),
        }
    }
}

/// A finished run: what the view draws and `labsim redlock --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RedlockOutput {
    /// The parameters it ran with.
    pub params: RedlockParams,
    /// The verdict.
    pub verdict: Verdict,
    /// The verdict's line, in Bengali (the lab's status).
    pub status: String,
    /// Counters over the whole run.
    pub counters: Counters,
    /// The lanes' names: `primary`, `replica`, or `r1` … `r5`.
    pub lanes: Vec<String>,
    /// Who held the key on which lane, over time.
    pub holds: Vec<Hold>,
    /// The attempts.
    pub attempts: Vec<Attempt>,
    /// The storage's writes.
    pub writes: Vec<Write>,
    /// Crashes, promotions, clock jumps.
    pub faults: Vec<FaultRow>,
    /// Two-owner moments.
    pub overlaps: Vec<Overlap>,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// When the run ended, ms.
    pub end_ms: u64,
    /// What only the page draws (`labsim redlock --json` prints it with `--page`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<RedlockPage>,
}

/// What only the lab's page draws: the trace's times (the scrubber's positions) and the
/// clients' stretches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RedlockPage {
    /// Time of each trace entry, ms.
    pub times: Vec<u64>,
    /// Work, pauses and waits.
    pub segs: Vec<Seg>,
}

impl RedlockOutput {
    /// The page's part (empty when printed without it).
    pub fn page(&self) -> &RedlockPage {
        static EMPTY: RedlockPage = RedlockPage {
            times: Vec::new(),
            segs: Vec::new(),
        };
        self.page.as_ref().unwrap_or(&EMPTY)
    }

    /// The output without its page's part: what `labsim redlock --json` prints.
    pub fn printed(self) -> Self {
        RedlockOutput { page: None, ..self }
    }

    /// The counters after the first `n` trace entries (what the timeline shows at `n`).
    pub fn so_far(&self, n: usize) -> Counters {
        count(
            &self.commands,
            &self.attempts,
            &self.page().segs,
            &self.writes,
            n,
        )
    }

    /// Who holds the key on each lane at `t` ms (as far as the timeline at `n` knows).
    pub fn holders_at(&self, n: usize, t: u64) -> Vec<Option<usize>> {
        (0..self.lanes.len())
            .map(|lane| {
                self.holds
                    .iter()
                    .find(|h| {
                        h.lane == lane
                            && h.step < n
                            && h.from_ms <= t
                            && t < h.to_ms.max(h.from_ms + 1)
                    })
                    .map(|h| h.client)
            })
            .collect()
    }
}

/// Its positions are its trace's entries.
impl TraceSteps for RedlockOutput {
    fn times(&self) -> &[u64] {
        &self.page().times
    }
}

impl Steps for RedlockOutput {
    /// The trace's entries.
    fn steps(&self) -> usize {
        self.page().times.len()
    }
}

impl Figures for RedlockOutput {
    fn figures(&self) -> Vec<Figure> {
        let c = &self.counters;
        vec![
            Figure::count("grants", u64::from(c.grants)),
            Figure::count("two-owner", u64::from(c.two_owner_moments)),
            Figure::count("two-owner-ms", c.two_owner_ms),
            Figure::count("stale-accepted", u64::from(c.stale_accepted)),
            Figure::count("stale-rejected", u64::from(c.stale_rejected)),
        ]
    }
}
