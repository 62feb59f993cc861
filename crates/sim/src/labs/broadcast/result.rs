//! What the broadcast lab shows: its counters, frames, attempts, incidents and log.

use super::*;
use crate::labs::log::CmdLine;

// ---------------------------------------------------------------------------------------
// What the run records.

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
    /// FCM was down.
    Unavailable,
    /// Over FCM's quota: 429.
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
            Why::Unavailable => "messaging/unavailable".into(),
            Why::Quota => "429 messaging/quota-exceeded".into(),
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
    /// Calls FCM took.
    pub calls_ok: u64,
    /// Calls answered 429.
    pub calls_429: u64,
    /// Calls rejected for size.
    pub calls_rejected: u64,
    /// Calls during an outage.
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
pub struct BroadcastResult {
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
    /// Every page's cost both ways.
    pub page_costs: Vec<PageCost>,
    /// Memory for all rows at once, MB (and the page's).
    pub memory_mb: (u64, u64),
    /// Every run of every job.
    pub attempts: Vec<Attempt>,
    /// The moments.
    pub moments: Vec<Moment>,
    /// The animation's frames.
    pub frames: Vec<Frame>,
    /// The command log (the broadcast job's, the first batches', every retried, crashed or
    /// failed batch's, the API's and the stalled check's commands).
    pub commands: Vec<CmdLine>,
}


impl BroadcastResult {
    /// Jobs that completed (the broadcast jobs and the batches): what `ZCARD
    /// bull:push:completed` counts.
    pub fn completed(&self) -> u64 {
        self.attempts
            .iter()
            .filter(|a| a.end == End::Completed)
            .count() as u64
    }

    /// Batches that completed.
    pub fn batches_completed(&self) -> u64 {
        self.attempts
            .iter()
            .filter(|a| a.end == End::Completed && a.batch.is_some())
            .count() as u64
    }

    /// The counters at time `t` (the frame at or before it).
    pub fn frame_at(&self, t: u64) -> Frame {
        let i = self.frames.partition_point(|f| f.at_ms <= t);
        self.frames[..i].last().copied().unwrap_or_default()
    }

    /// The JSON `labsim broadcast --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "params": self.params,
            "endMs": self.end_ms,
            "counters": self.counters,
            "batches": self.batches,
            "naive": self.naive,
            "responses": self.responses,
            "pages": self.pages,
            "memoryMb": self.memory_mb,
            "attempts": self.attempts.iter().filter(|a| a.batch.is_none() || a.attempt > 1 || a.end != End::Completed).collect::<Vec<_>>(),
            "moments": self.moments,
            "frames": self.frames,
        })
    }

    /// The summary as text (`labsim broadcast`).
    pub fn text(&self) -> String {
        let p = &self.params;
        let c = &self.counters;
        let mut s = String::new();
        if p.mode == "naive" {
            let n = &self.naive;
            s.push_str(&format!(
                "naive loop: {} tokens x {} ms = {} s ({:.1} h)\n",
                p.tokens,
                p.call_ms,
                n.total_ms / 1000,
                n.total_ms as f64 / 3_600_000.0
            ));
            s.push_str(&format!(
                "proxy timeout at {} s: {} sent, the admin gets a 504; the loop goes on unobserved\n",
                p.proxy_timeout, n.at_timeout
            ));
            s.push_str(&format!(
                "process dies at {} ms: {} sent, no record of who ({} ms / {} ms; at {} whole seconds it would read {})\n",
                p.dies_at,
                n.at_death,
                p.dies_at,
                p.call_ms,
                p.dies_at / 1000,
                n.whole_seconds
            ));
            if p.rerun == "on" {
                s.push_str(&format!(
                    "rerun from the first token: {} tokens get it twice\n",
                    c.sent_twice
                ));
            }
        } else {
            for r in &self.responses {
                s.push_str(&format!(
                    "click {} at {} ms: answered in {} ms, {}\n",
                    r.click,
                    r.at_ms,
                    r.ms,
                    if r.queued {
                        "job added"
                    } else {
                        "dedup key taken, no job"
                    }
                ));
            }
            for a in self
                .attempts
                .iter()
                .filter(|a| a.end != End::Completed || a.attempt > 1 || a.batch.is_none())
            {
                let what = match a.batch {
                    Some(n) => format!("batch {n}"),
                    None => "broadcast".into(),
                };
                s.push_str(&format!(
                    "{:>9} ms  {what} (job {}) run {} on w{}: {:?}{}{}\n",
                    a.from_ms,
                    a.job,
                    a.attempt,
                    a.slot + 1,
                    a.end,
                    a.why
                        .map(|w| format!(" ({})", w.reason(p.fcm_max)))
                        .unwrap_or_default(),
                    a.due_ms
                        .map(|d| format!(", next run at {d} ms"))
                        .unwrap_or_default(),
                ));
            }
            for m in self
                .moments
                .iter()
                .filter(|m| m.kind != "click" && m.kind != "failed")
            {
                s.push_str(&format!("{:>9} ms  {} {}\n", m.at_ms, m.kind, m.n));
            }
        }
        s.push_str(&format!(
            "delivered {}, sent twice {}, lost {}, dead {} (marked {}), FCM calls {} (ok {}, 429 {}, rejected {}, unavailable {}), db timeouts {}, jobs {}, retries {}, failed set {}, stalled {}, dedup refused {}, commands {}, end {} ms\n",
            c.delivered,
            c.sent_twice,
            c.lost,
            c.dead,
            c.dead_marked,
            c.fcm_calls,
            c.calls_ok,
            c.calls_429,
            c.calls_rejected,
            c.calls_unavailable,
            c.db_timeouts,
            c.jobs,
            c.retries,
            c.failed_jobs,
            c.stalled,
            c.dedup_refused,
            c.commands,
            self.end_ms
        ));
        s
    }
}
