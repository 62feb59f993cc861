//! What the broadcast lab's run gives the view and `labsim --json` alike: the counters, the
//! animation's frames, every run of every job, the incidents and the command log. Its
//! timeline walks the frames: position `k` is frame `k` (frame 0 at 0 ms, before anything;
//! the last, the run's end).
//!
//! `labsim broadcast --json` prints this type's JSON without the two parts only the page
//! draws (`routine`, `commands`: `None`, so absent); `--full` prints them too — exactly what
//! the simulation worker sends the view.

use super::params::{BroadcastParams, Mode};
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

/// How one run of a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum End {
    /// Still running when the run stopped.
    Running,
    /// Completed.
    Completed,
    /// Failed, retried later.
    Retry,
    /// Failed for the last time: in the failed set.
    Failed,
    /// The worker crashed while running it.
    Crashed,
    /// Finished after its lock was gone: dropped.
    LockLost,
}

/// Why a batch failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Why {
    /// Waited longer than `db_timeout` for a Postgres connection.
    DbTimeout,
    /// More tokens than FCM takes in one call: rejected whole.
    TooMany,
    /// FCM was down: its tokens answered `messaging/server-unavailable`.
    Unavailable,
    /// Over FCM's quota bucket: its tokens answered 429 `messaging/message-rate-exceeded`.
    Quota,
}

impl Why {
    /// The error the job fails with (the failed set's `failedReason`).
    pub fn reason(self, fcm_max: u32) -> String {
        match self {
            Why::DbTimeout => "Postgres: timeout waiting for a connection".into(),
            Why::TooMany => format!(
                "messaging/invalid-argument: tokens list must not contain more than {fcm_max} items"
            ),
            Why::Unavailable => "messaging/server-unavailable".into(),
            Why::Quota => "429 messaging/message-rate-exceeded".into(),
        }
    }
}

/// One run of one job: a row of the timeline. Its JSON names are one letter (`j` job, `b`
/// batch, `a` attempt, `s` slot, `f` from, `t` to, `e` end, `w` why, `u` due, `d` delivered,
/// `x` twice, `k` dead): a run has thousands of them, and the page parses them all at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// Job id.
    #[serde(rename = "j")]
    pub job: String,
    /// Batch number (0-based) for a batch job; `None` for the broadcast job.
    #[serde(rename = "b")]
    pub batch: Option<u32>,
    /// Which run (1 = first).
    #[serde(rename = "a")]
    pub attempt: u32,
    /// Worker slot.
    #[serde(rename = "s")]
    pub slot: usize,
    /// Began, ms.
    #[serde(rename = "f")]
    pub from_ms: u64,
    /// Ended, ms (the run's end while running).
    #[serde(rename = "t")]
    pub to_ms: u64,
    /// How.
    #[serde(rename = "e")]
    pub end: End,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "w")]
    pub why: Option<Why>,
    /// When it runs again (a retry), ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "u")]
    pub due_ms: Option<u64>,
    /// Tokens FCM took from it.
    #[serde(rename = "d")]
    pub delivered: u32,
    /// Of them, tokens that already had it.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[serde(rename = "x")]
    pub twice: u32,
    /// Dead tokens FCM reported.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[serde(rename = "k")]
    pub dead: u32,
}

/// One page read from Postgres by the broadcast job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// Page number (0-based).
    pub n: u32,
    /// Began, ms.
    pub at_ms: u64,
    /// Rows skipped (offset paging).
    pub skip: u64,
    /// Query time, ms.
    pub ms: u64,
}

/// A page's cost both ways (for the chart, whatever the chosen paging).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCost {
    /// Offset paging (`skip n·page`), ms.
    pub offset_ms: u64,
    /// Cursor paging (`cursor, take`), ms.
    pub cursor_ms: u64,
}

/// The API's answer to one click.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// Click number (1-based).
    pub click: u32,
    /// Clicked at, ms.
    pub at_ms: u64,
    /// How long the answer took, ms.
    pub ms: u64,
    /// A job was added (false: the dedup key was taken).
    pub queued: bool,
}

/// Something worth a line on the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Moment {
    /// When, ms.
    pub at_ms: u64,
    /// What kind (`timeout`, `died`, `rerun`, `outage`, `back`, `crash`, `restart`, `oom`,
    /// `stalled`, `failed`, `click`, `dup`).
    pub kind: String,
    /// A number that goes with it (tokens sent so far, the outage's seconds, …).
    pub n: u64,
    /// The job it is about, if any.
    pub job: Option<String>,
}

/// The counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Valid tokens that got it (at least once).
    pub delivered: u64,
    /// Valid tokens that got it more than once.
    pub sent_twice: u64,
    /// Valid tokens that never got it.
    pub lost: u64,
    /// Dead tokens FCM reported.
    pub dead: u64,
    /// Of them, marked `isValid = false`.
    pub dead_marked: u64,
    /// FCM calls made.
    pub fcm_calls: u64,
    /// Calls whose every token FCM took.
    pub calls_ok: u64,
    /// Calls with tokens answered 429 (past the minute's quota bucket).
    pub calls_429: u64,
    /// Calls rejected for size (firebase-admin throws before sending).
    pub calls_rejected: u64,
    /// Calls during an outage (every token answered unavailable).
    pub calls_unavailable: u64,
    /// Token queries that timed out waiting for a connection.
    pub db_timeouts: u64,
    /// Longest wait for a Postgres connection, ms.
    pub db_wait_max_ms: u64,
    /// Jobs added (broadcast and batch).
    pub jobs: u64,
    /// Broadcast jobs added.
    pub broadcasts: u64,
    /// Runs that failed and were retried.
    pub retries: u64,
    /// Jobs in the failed set.
    pub failed_jobs: u64,
    /// Jobs the stalled check took back.
    pub stalled: u64,
    /// Clicks the dedup key turned away.
    pub dedup_refused: u64,
    /// Redis commands sent.
    pub commands: u64,
}

/// The naive loop's numbers (always computed, to set beside the queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Naive {
    /// The whole loop, ms (tokens × call).
    pub total_ms: u64,
    /// Sent when the proxy cut the connection.
    pub at_timeout: u64,
    /// Sent when the process died.
    pub at_death: u64,
    /// What 642 s (the seed's clock, whole seconds) gives: dies_at rounded down to seconds ÷ call.
    pub whole_seconds: u64,
}

/// The state at one moment of the run (a frame of the animation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// When, ms.
    pub at_ms: u64,
    /// Valid tokens delivered so far.
    pub delivered: u64,
    /// Tokens sent twice so far.
    pub twice: u64,
    /// FCM calls so far.
    pub calls: u64,
    /// Failed runs retried so far.
    pub retries: u64,
    /// Jobs in the failed set so far.
    pub failed: u64,
    /// Dead tokens marked so far.
    pub marked: u64,
}

/// A finished (or prefix) run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BroadcastOutput {
    /// The parameters.
    pub params: BroadcastParams,
    /// When the run ended (the last batch finished), ms.
    pub end_ms: u64,
    /// The counters at the end.
    pub counters: Counters,
    /// Batches per broadcast job.
    pub batches: u64,
    /// The naive loop's numbers.
    pub naive: Naive,
    /// The API's answers.
    pub responses: Vec<Response>,
    /// Pages read, as read.
    pub pages: Vec<Page>,
    /// Memory for all rows at once, MB (and the page's).
    pub memory_mb: (u64, u64),
    /// The runs worth a line: every broadcast job's, and every batch's that failed, crashed,
    /// lost its lock or was not its first.
    pub attempts: Vec<Attempt>,
    /// The other runs (a batch's first, completed), for the page's grid (`None`: left out,
    /// as `labsim --json` leaves it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine: Option<Vec<Attempt>>,
    /// The moments.
    pub moments: Vec<Moment>,
    /// The animation's frames.
    pub frames: Vec<Frame>,
    /// The command log (the broadcast job's, the first batches', every retried, crashed or
    /// failed batch's, the API's and the stalled check's commands; `None`: left out, as
    /// `labsim --json` leaves it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<CmdLine>>,
}

impl Attempt {
    /// A run worth a line of its own (see [`BroadcastOutput::attempts`]).
    pub fn notable(&self) -> bool {
        self.batch.is_none() || self.attempt > 1 || self.end != End::Completed
    }
}

impl BroadcastOutput {
    /// Every run of every job, in the order they started.
    pub fn runs(&self) -> Vec<&Attempt> {
        let mut all: Vec<&Attempt> = self
            .attempts
            .iter()
            .chain(self.routine.iter().flatten())
            .collect();
        all.sort_by_key(|a| a.from_ms);
        all
    }

    /// The command log (empty when left out).
    pub fn log(&self) -> &[CmdLine] {
        self.commands.as_deref().unwrap_or_default()
    }

    /// Jobs that completed (the broadcast jobs and the batches): what `ZCARD
    /// bull:push:completed` counts.
    pub fn completed(&self) -> u64 {
        self.runs()
            .iter()
            .filter(|a| a.end == End::Completed)
            .count() as u64
    }

    /// Batches that completed.
    pub fn batches_completed(&self) -> u64 {
        self.runs()
            .iter()
            .filter(|a| a.end == End::Completed && a.batch.is_some())
            .count() as u64
    }

    /// The counters at time `t` (the frame at or before it).
    pub fn frame_at(&self, t: u64) -> Frame {
        let i = self.frames.partition_point(|f| f.at_ms <= t);
        self.frames[..i].last().copied().unwrap_or_default()
    }

    /// Every page's cost both ways (for the chart, whatever the chosen paging).
    pub fn page_costs(&self) -> Vec<PageCost> {
        page_costs(&self.params)
    }

    /// The output as `labsim broadcast --json` prints it: without the parts only the page
    /// draws, unless `full`.
    pub fn for_cli(mut self, full: bool) -> Self {
        if !full {
            self.routine = None;
            self.commands = None;
        }
        self
    }
}

/// Every page's cost both ways: offset paging grows with the rows it skips, cursor paging
/// stays flat.
pub fn page_costs(p: &BroadcastParams) -> Vec<PageCost> {
    let pages = u64::from(p.tokens).div_ceil(u64::from(p.page));
    (0..pages)
        .map(|n| PageCost {
            offset_ms: p.page_ms + n * u64::from(p.page) * p.skip_ns / 1_000_000,
            cursor_ms: p.page_ms,
        })
        .collect()
}

impl Steps for BroadcastOutput {
    /// The frames after the first (frame 0 is the start).
    fn steps(&self) -> usize {
        self.frames.len().saturating_sub(1)
    }
}

impl Figures for BroadcastOutput {
    fn figures(&self) -> Vec<Figure> {
        let f = self.frames.last().copied().unwrap_or_default();
        let c = &self.counters;
        let mut out = vec![
            Figure::count("delivered", f.delivered),
            Figure::count("twice", f.twice),
            Figure::count("lost", c.lost),
            Figure::count("calls", f.calls),
        ];
        if self.params.mode == Mode::Queue {
            out.extend([
                Figure::count("retries", f.retries),
                Figure::count("failed", f.failed),
                Figure::count("dead", f.marked),
                Figure::count("429", c.calls_429),
                Figure::count("stalled", c.stalled),
                Figure::count("commands", c.commands),
            ]);
        }
        out
    }
}
