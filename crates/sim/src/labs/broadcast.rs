//! The broadcast lab (seed 004, steps 1–17): one notification to 5,00,000 devices, every
//! naive step breaking something and every fix holding, with the numbers moving.
//!
//! Two ways to send:
//!
//! * `mode=naive` — the loop inside the HTTP request: one FCM call of `call_ms` per token, one
//!   after the other. The proxy cuts the admin's connection at `proxy_timeout` (a 504), but
//!   nothing stops the loop: it sends on unobserved until the process dies at `dies_at`, with
//!   no record of who got it. A rerun starts again from the first token, so everyone the
//!   first run reached gets it twice. The seed's counter reads 3,214 after "10 min 42 s":
//!   10 min 42 s is 642 s, and 642 s ÷ 200 ms is 3,210, not 3,214. Both hold if the clock
//!   shows whole seconds: 3,214 × 200 ms = 642.8 s, which a clock without tenths shows as
//!   10:42. So the default `dies_at` is 642,800 ms — and the lab says so in its text.
//! * `mode=queue` — the fix: the API takes a dedup key (`SET bcast:dedup:campaign:42 1 NX EX
//!   900`), adds one `broadcast` job to a BullMQ-style queue in SimRedis ([`crate::queue`]),
//!   writes a log row and answers (≈ 40 ms). A worker process (`concurrency` slots) runs it:
//!   it pages the token ids out of Postgres (`paging`: all at once, offset or cursor, `page`
//!   per page) and adds one `batch` job per `chunk` ids, each with its own job id
//!   (`<broadcast id>-<n>`, added once: a rerun of the broadcast job adds nothing twice).
//!   Each batch job queries its tokens (a Postgres pool of `db_pool` connections, `db_ms` a
//!   query, `db_timeout` at most waiting), calls FCM once (`call_ms`; FCM rejects a call of more
//!   than `fcm_max` tokens whole, answers 429 past `quota` tokens a second, and nothing during
//!   an outage), and marks the dead tokens it reported (`token-not-registered`,
//!   `invalid-token`; a seeded `dead` percent of them) `isValid = false` with one
//!   `updateMany` — never deleting them. The queue's limiter (`throttle` jobs a second; 0 = no
//!   limiter: everything at once) paces the batches; a failed batch is retried after 10 s,
//!   20 s, … (`attempts`, `backoff`) and lands in the failed set, with its reason, after the
//!   last. A worker crash (`crash_at`, back after `restart`) leaves its jobs active; the
//!   stalled check takes them back once their locks expire, and they run again.
//!
//! Every token is counted exactly: a per-token send counter (a byte each), so "delivered",
//! "sent twice", "lost" (a valid token never delivered) and "dead" are exact totals, while the
//! simulated events are per batch (1,000 FCM calls, not 5,00,000 sends). FCM is taken to
//! deliver a call it accepted even when the worker dies before hearing the answer: the batch
//! then runs again and those tokens get it twice — at-least-once, shown as it is.
//!
//! [`BroadcastRun`] steps the world one event at a time; [`run`] runs it to the end, and a run
//! stepped in slices gives the same result (tested below and in `tests/broadcast.rs`).

mod live;

pub use live::{BroadcastLive, LIVE_BLOCK_MS, LIVE_CONCURRENCY, LIVE_TOKENS};

use super::lab::{erase, AnyRun, CliSpec, Job, Json, Lab, LabInfo, LiveDriver, Run};
use crate::cli::{Args, CliError};
use super::params::{broken, choice, int, Field, Params};
use super::preset::Preset;
use crate::queue::{
    Keys, Life, Outcome, Processor, QueueConfig, Running, Slot, StalledCheck, Step,
};
use crate::redis::{Reply, SimRedis};
use crate::world::{cmd, show_cmd, Action, Actor, Backend, Command, Ctx, Hop, Input, What, World};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

/// The queue's name (`bull:push:…`).
pub const QUEUE: &str = "push";
/// The dedup key the API takes before enqueueing.
pub const DEDUP_KEY: &str = "bcast:dedup:campaign:42";
/// Most jobs a run may make (batches × broadcast jobs): keeps a run within a second or two.
pub const MAX_JOBS: u64 = 5_000;
/// Guard against a run that never ends.
pub const MAX_STEPS: usize = 3_000_000;

const ON_OFF: &[&str] = &["off", "on"];

/// The lab's fields: the seed's numbers as defaults (the fixed configuration).
pub const FIELDS: &[Field] = &[
    choice("mode", "পাঠানোর ধরন", &["naive", "queue"], "queue"),
    int("tokens", "টোকেন (ডিভাইস)", 1_000, 2_000_000, "500000"),
    int("call_ms", "একটা FCM কল (ms)", 1, 10_000, "200"),
    int("proxy_timeout", "প্রক্সির টাইমআউট (s)", 1, 3_600, "30"),
    int(
        "dies_at",
        "লুপের প্রসেস মরে (ms)",
        1_000,
        100_000_000,
        "642800",
    ),
    choice("rerun", "আবার চালানো", ON_OFF, "off"),
    int("log_ms", "লগ রো লেখা (ms)", 0, 10_000, "32"),
    choice("paging", "টোকেন আনা", &["all", "offset", "cursor"], "cursor"),
    int("page", "পেজে টোকেন (take)", 100, 100_000, "5000"),
    int("page_ms", "এক পেজের কোয়েরি (ms)", 1, 10_000, "40"),
    int("skip_ns", "skip-এ প্রতি রো (ns)", 0, 100_000, "1000"),
    int("row_bytes", "মেমোরিতে এক রো (বাইট)", 1, 100_000, "1200"),
    int("heap_mb", "প্রসেসের মেমোরি (MB)", 16, 65_536, "512"),
    int("chunk", "এক কলে টোকেন (chunk)", 1, 100_000, "500"),
    int("fcm_max", "FCM-এর সীমা / কল", 1, 100_000, "500"),
    int("throttle", "সেকেন্ডে ব্যাচ (০ = সব একসাথে)", 0, 1_000, "10"),
    int("concurrency", "ওয়ার্কারের concurrency", 1, 1_000, "10"),
    int("quota", "FCM কোটা (টোকেন/s)", 1, 100_000_000, "10000"),
    int("db_pool", "Postgres কানেকশন", 1, 1_000, "10"),
    int("db_ms", "ব্যাচের কোয়েরি (ms)", 1, 10_000, "50"),
    int("db_timeout", "কোয়েরির টাইমআউট (ms)", 10, 600_000, "2000"),
    int("attempts", "attempts", 1, 10, "3"),
    int("backoff", "backoff (ms)", 0, 600_000, "10000"),
    int("outage_at", "FCM আউটেজ শুরু (s)", 0, 100_000, "30"),
    int("outage", "আউটেজের দৈর্ঘ্য (s, ০ = নেই)", 0, 100_000, "0"),
    int("dead", "মরা টোকেন (%)", 0, 100, "0"),
    choice("mark_dead", "মরা টোকেন নেভানো", ON_OFF, "on"),
    int("clicks", "ক্লিক", 1, 10, "1"),
    int("click_gap", "ক্লিকের ফাঁক (ms)", 0, 600_000, "300"),
    choice("dedup", "dedup (SET NX)", ON_OFF, "on"),
    int("dedup_ex", "dedup EX (s)", 1, 86_400, "900"),
    int("crash_at", "ওয়ার্কার ক্র্যাশ (ms, ০ = নেই)", 0, 100_000_000, "0"),
    int("restart", "ফিরে আসে (ms)", 0, 600_000, "5000"),
    int("lock", "জবের লক (ms)", 100, 600_000, "30000"),
    int("stalled", "stalled চেক (ms)", 100, 600_000, "30000"),
    int("seed", "seed", 0, u32::MAX as i64, "4"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BroadcastParams {
    /// `naive` or `queue`.
    pub mode: String,
    /// Devices (FCM tokens).
    pub tokens: u32,
    /// One FCM call, ms.
    pub call_ms: u64,
    /// The proxy's timeout, s.
    pub proxy_timeout: u64,
    /// When the naive loop's process dies, ms.
    pub dies_at: u64,
    /// `on`: the admin runs the naive loop again after it died.
    pub rerun: String,
    /// The API's log row, ms.
    pub log_ms: u64,
    /// `all`, `offset` or `cursor`.
    pub paging: String,
    /// Tokens per page.
    pub page: u32,
    /// One cursor page query, ms.
    pub page_ms: u64,
    /// Offset paging: extra time per skipped row, ns.
    pub skip_ns: u64,
    /// Memory per loaded row, bytes.
    pub row_bytes: u64,
    /// The worker process's memory, MB.
    pub heap_mb: u64,
    /// Tokens per FCM call.
    pub chunk: u32,
    /// FCM's limit per call.
    pub fcm_max: u32,
    /// Batches per second (0: no limiter).
    pub throttle: u32,
    /// Worker slots.
    pub concurrency: u32,
    /// FCM's quota, tokens per second.
    pub quota: u32,
    /// Postgres connections.
    pub db_pool: u32,
    /// A batch's token query, ms.
    pub db_ms: u64,
    /// Longest wait for a connection, ms.
    pub db_timeout: u64,
    /// Runs per job.
    pub attempts: u32,
    /// Backoff base, ms.
    pub backoff: u64,
    /// FCM outage start, s.
    pub outage_at: u64,
    /// Its length, s (0: none).
    pub outage: u64,
    /// Dead tokens, percent.
    pub dead: u32,
    /// `on`: mark them `isValid = false`.
    pub mark_dead: String,
    /// Clicks on "send".
    pub clicks: u32,
    /// Between clicks, ms.
    pub click_gap: u64,
    /// `on`: `SET … NX EX` before enqueueing.
    pub dedup: String,
    /// The dedup key's EX, s.
    pub dedup_ex: u64,
    /// Worker crash, ms (0: none).
    pub crash_at: u64,
    /// Down for, ms.
    pub restart: u64,
    /// Job lock, ms.
    pub lock: u64,
    /// Stalled check interval, ms.
    pub stalled: u64,
    /// Seed.
    pub seed: u32,
    /// Not a field: the window of the queue's limiter and of FCM's quota, ms (1000; a live
    /// run slowed ×k stretches it to k seconds, so `throttle` and `quota` keep their counts).
    #[serde(default = "second", skip_serializing_if = "is_second")]
    pub window: u64,
    /// Not a field: the longest an idle worker slot blocks on the wait list, ms (5000; a live
    /// run blocks briefly, since the proxy runs a session's blocking reads one at a time).
    #[serde(default = "drain", skip_serializing_if = "is_drain")]
    pub block: u64,
    /// Not a field: the outage starts and ends this many ms before its whole seconds (0; a
    /// live run: half a second, so that it falls between two batches' FCM calls, which the
    /// limiter starts a few ms after whole seconds, and a real network cannot move a batch
    /// in or out of it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub outage_lead: u64,
}

fn second() -> u64 {
    1000
}
fn is_second(v: &u64) -> bool {
    *v == second()
}
fn drain() -> u64 {
    5000
}
fn is_drain(v: &u64) -> bool {
    *v == drain()
}

impl Default for BroadcastParams {
    fn default() -> Self {
        super::params::Params::defaults(&INFO).typed()
    }
}

impl BroadcastParams {
    /// Batches per broadcast job.
    pub fn batches(&self) -> u64 {
        let per_page = u64::from(self.chunk.min(self.page).max(1));
        let pages = u64::from(self.tokens).div_ceil(u64::from(self.page));
        let full = u64::from(self.page).div_ceil(per_page);
        let last = u64::from(self.tokens) - (pages - 1) * u64::from(self.page);
        (pages - 1) * full + last.div_ceil(per_page)
    }

    /// The token ids (1-based, inclusive) of batch `n`.
    pub fn batch_range(&self, n: u32) -> (u32, u32) {
        let page = u64::from(self.page);
        let size = u64::from(self.chunk.min(self.page).max(1));
        let per_page = page.div_ceil(size);
        let (pg, k) = (u64::from(n) / per_page, u64::from(n) % per_page);
        let from = pg * page + k * size + 1;
        let to = (from + size - 1)
            .min((pg + 1) * page)
            .min(u64::from(self.tokens));
        (from as u32, to as u32)
    }

    /// The run these parameters describe.
    pub fn config(&self) -> BroadcastConfig {
        let mut life = Life::default();
        if self.crash_at > 0 {
            life.crash(self.crash_at, self.restart);
        }
        let outages = if self.outage > 0 {
            let lead = |s: u64| (s * 1000).saturating_sub(self.outage_lead);
            vec![(lead(self.outage_at), lead(self.outage_at + self.outage))]
        } else {
            Vec::new()
        };
        BroadcastConfig {
            p: self.clone(),
            life,
            outages,
        }
    }
}

/// A run's setup: the parameters, plus crash and outage schedules (the property tests give
/// several of each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BroadcastConfig {
    /// The parameters.
    pub p: BroadcastParams,
    /// When the worker process is down.
    pub life: Life,
    /// FCM outages: (from, to) ms.
    pub outages: Vec<(u64, u64)>,
}

/// The lab's presets: the deck's embeds name them.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "fixed",
        label: "সব মেরামত",
        about: "কিউ, cursor, ৫০০-র ব্যাচ, সেকেন্ডে ১০ ব্যাচ, dedup, রিট্রাই — ১,০০০ কল, ~১০০ সেকেন্ড, কেউ বাদ নেই, কেউ দুবার নয়",
        pairs: &[("mode", "queue")],
    },
    Preset {
        id: "naive",
        label: "API-র ভেতরে লুপ",
        about: "প্রতি টোকেনে একটা কল, রিকোয়েস্টের ভেতরেই — ৩০ সেকেন্ডে কানেকশন কাটে, লুপ চলতে থাকে, প্রসেস মরলে হিসাব নেই; আবার চালালে আগের সবাই দুবার",
        pairs: &[("mode", "naive"), ("rerun", "on")],
    },
    Preset {
        id: "queue",
        label: "কিউতে রেখে উত্তর",
        about: "API শুধু জব রাখে আর ~৪০ms-এ উত্তর দেয়; পাঠায় আলাদা ওয়ার্কার",
        pairs: &[("mode", "queue"), ("clicks", "1")],
    },
    Preset {
        id: "load-all",
        label: "সব রো একসাথে",
        about: "findMany() — ৫ লাখ রো একসাথে মেমোরিতে: OUT OF MEMORY, প্রসেস মরে, জব stalled",
        pairs: &[("mode", "queue"), ("paging", "all")],
    },
    Preset {
        id: "paging",
        label: "offset পেজিং",
        about: "skip যত বাড়ে, পেজ তত ধীর; cursor-এ প্রতিটা পেজ সমান দ্রুত — দুটোই পাশাপাশি",
        pairs: &[("mode", "queue"), ("paging", "offset")],
    },
    Preset {
        id: "no-chunks",
        label: "৫০০০-এর এক কল",
        about: "পুরো পেজ এক কলে — FCM ৫০০-র বেশি নেয় না, গোটা কলটাই বাতিল",
        pairs: &[("mode", "queue"), ("chunk", "5000")],
    },
    Preset {
        id: "chunks",
        label: "৫০০ করে ভাগ",
        about: "chunk(tokens, 500) — পুরো ৫ লাখে ঠিক ১,০০০ কল",
        pairs: &[("mode", "queue"), ("chunk", "500")],
    },
    Preset {
        id: "all-at-once",
        label: "সব একসাথে",
        about: "থ্রটল নেই — ১,০০০ ব্যাচ একসাথে: FCM 429 দেয়, Postgres-এর কানেকশন ফুরায়",
        pairs: &[("mode", "queue"), ("throttle", "0"), ("concurrency", "1000")],
    },
    Preset {
        id: "throttle",
        label: "থ্রটল ১০/s",
        about: "সেকেন্ডে ১০ ব্যাচ = ৫,০০০ টোকেন — ৫ লাখ ~১০০ সেকেন্ডে, একটাও 429 নয়",
        pairs: &[("mode", "queue"), ("throttle", "10"), ("concurrency", "10")],
    },
    Preset {
        id: "double-click",
        label: "দুবার ক্লিক",
        about: "dedup ছাড়া দুই ক্লিক — দুটো জব, সবাই দুবার পায়",
        pairs: &[("mode", "queue"), ("clicks", "2"), ("dedup", "off")],
    },
    Preset {
        id: "dedup",
        label: "SET NX dedup",
        about: "তিনটা ক্লিক, একটাই OK — একটাই জব",
        pairs: &[("mode", "queue"), ("clicks", "3"), ("dedup", "on")],
    },
    Preset {
        id: "no-retry",
        label: "আউটেজ, রিট্রাই নেই",
        about: "FCM ২৫ সেকেন্ড ডাউন, attempts 1 — ওই সময়ের ব্যাচগুলো failed set-এ, তাদের টোকেন পৌঁছায় না",
        pairs: &[("mode", "queue"), ("outage", "25"), ("attempts", "1")],
    },
    Preset {
        id: "outage",
        label: "আউটেজ, ৩ attempts",
        about: "একই আউটেজ, attempts 3, backoff ১০s → ২০s — ফেল করা ব্যাচ পরে আবার চলে, কেউ বাদ নেই",
        pairs: &[("mode", "queue"), ("outage", "25"), ("attempts", "3")],
    },
    Preset {
        id: "crash",
        label: "ওয়ার্কার ক্র্যাশ",
        about: "৪১.৫ সেকেন্ডে ওয়ার্কার মরে — হাতের জবগুলো লকের মেয়াদ শেষে stalled চেকে ফেরে, আবার চলে; FCM যেগুলো আগেই নিয়েছিল, সেই টোকেনগুলো দুবার পায়",
        pairs: &[("mode", "queue"), ("crash_at", "41500")],
    },
    Preset {
        id: "dead-tokens",
        label: "মরা টোকেন",
        about: "২০% টোকেন মরা — FCM জানায়, প্রতি ব্যাচে এক updateMany-তে isValid = false",
        pairs: &[("mode", "queue"), ("dead", "20"), ("mark_dead", "on")],
    },
];


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

fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
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

/// One Redis command of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// When Redis ran it, ms.
    pub at_ms: u64,
    /// Who sent it (`api`, `w3`, `stalled-check`).
    pub who: String,
    /// The command.
    pub cmd: String,
    /// The reply.
    pub reply: String,
    /// A live run's round trip to the real Redis, µs (`None` in a simulation); then `at_ms`
    /// is when the reply arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
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
    pub commands: Vec<CmdRow>,
}

// ---------------------------------------------------------------------------------------
// The world: Postgres, FCM and the tokens, outside Redis.

/// Whether token `id` (1-based) is dead, for a seed and a percentage.
pub fn is_dead(seed: u32, pct: u32, id: u32) -> bool {
    if pct == 0 {
        return false;
    }
    let mut x = id.wrapping_mul(0x9E37_79B9) ^ seed.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    x % 100 < pct
}

#[derive(Clone, Debug)]
enum JobKind {
    Broadcast,
    Batch { n: u32, from: u32, to: u32 },
}

/// Everything outside Redis, and the record: the world's processor.
struct Bcast {
    p: BroadcastParams,
    outages: Vec<(u64, u64)>,
    keys: Keys,
    jobs: BTreeMap<String, JobKind>,
    /// Jobs not yet completed or failed.
    live: u64,
    api_done: bool,
    sends: Vec<u8>,
    marked: Vec<bool>,
    window: VecDeque<(u64, u32)>,
    window_sum: u64,
    db_free: Vec<u64>,
    /// Per slot: why its current batch fails, and how much it delivered.
    why: BTreeMap<usize, Why>,
    attempts: Vec<Attempt>,
    open: BTreeMap<String, usize>,
    pages: Vec<Page>,
    moments: Vec<Moment>,
    responses: Vec<Response>,
    /// (ms, delivered so far, twice so far, calls so far, marked so far)
    series: Vec<(u64, u64, u64, u64, u64)>,
    /// When retried jobs become due.
    dues: BTreeSet<u64>,
    c: Counters,
}

impl Bcast {
    fn new(cfg: &BroadcastConfig) -> Self {
        let p = cfg.p.clone();
        let n = p.tokens as usize + 1;
        Bcast {
            outages: cfg.outages.clone(),
            keys: Keys::new(QUEUE),
            jobs: BTreeMap::new(),
            live: 0,
            api_done: false,
            sends: vec![0; n],
            marked: vec![false; n],
            window: VecDeque::new(),
            window_sum: 0,
            db_free: vec![0; p.db_pool as usize],
            why: BTreeMap::new(),
            attempts: Vec::new(),
            open: BTreeMap::new(),
            pages: Vec::new(),
            moments: Vec::new(),
            responses: Vec::new(),
            series: Vec::new(),
            dues: BTreeSet::new(),
            c: Counters::default(),
            p,
        }
    }

    fn moment(&mut self, at_ms: u64, kind: &str, n: u64) {
        self.moments.push(Moment {
            at_ms,
            kind: kind.into(),
            n,
            job: None,
        });
    }

    fn job_moment(&mut self, at_ms: u64, kind: &str, job: &str) {
        let n = match self.jobs.get(job) {
            Some(JobKind::Batch { n, .. }) => u64::from(*n),
            _ => 0,
        };
        self.moments.push(Moment {
            at_ms,
            kind: kind.into(),
            n,
            job: Some(job.to_string()),
        });
    }

    fn snap(&mut self, now: u64) {
        let s = (
            now,
            self.c.delivered,
            self.c.sent_twice,
            self.c.fcm_calls,
            self.c.dead_marked,
        );
        match self.series.last_mut() {
            Some(l) if l.0 == now => *l = s,
            _ => self.series.push(s),
        }
    }

    fn down(&self, now: u64) -> bool {
        self.outages.iter().any(|&(a, b)| a <= now && now < b)
    }

    fn page_ms(&self, n: u64) -> u64 {
        let skip = n * u64::from(self.p.page);
        self.p.page_ms
            + if self.p.paging == "offset" {
                skip * self.p.skip_ns / 1_000_000
            } else {
                0
            }
    }

    /// Chunks of the page `[from, to]` (1-based ids).
    fn chunks(&self, from: u32, to: u32) -> Vec<(u32, u32)> {
        let size = self.p.chunk.min(self.p.page).max(1);
        let mut out = Vec::new();
        let mut a = from;
        while a <= to {
            let b = to.min(a.saturating_add(size - 1));
            out.push((a, b));
            a = b + 1;
        }
        out
    }

    /// Queues the adds of a page's batch jobs.
    fn enqueue_page(&self, run: &mut Running, from: u32, to: u32) {
        let parent = run.id.clone();
        for (a, b) in self.chunks(from, to) {
            let n = self.batch_no(a);
            let id = format!("{parent}-{n}");
            let data = format!(r#"{{"from":{a},"to":{b}}}"#);
            run.queue.push_back(self.keys.add(&id, "batch", &data));
        }
    }

    fn batch_no(&self, first_id: u32) -> u32 {
        // Batches are numbered page by page, chunk by chunk.
        let page = u64::from(self.p.page);
        let size = u64::from(self.p.chunk.min(self.p.page).max(1));
        let i = u64::from(first_id - 1);
        let per_page = page.div_ceil(size);
        ((i / page) * per_page + (i % page) / size) as u32
    }

    fn pages(&self) -> u64 {
        u64::from(self.p.tokens).div_ceil(u64::from(self.p.page))
    }

    fn broadcast_step(&mut self, run: &mut Running, reply: Option<&Reply>, now: u64) -> Step {
        // stage 0: start; 1: next page; 2: sending the adds; 3: waiting for EXISTS; 10: all loaded.
        loop {
            match run.stage {
                0 => {
                    if self.p.paging == "all" {
                        run.stage = 10;
                        let ms = self.pages() * self.p.page_ms;
                        return Step::Work {
                            ms,
                            what: "findMany() — সব টোকেন একসাথে".into(),
                        };
                    }
                    run.stage = 1;
                }
                1 => {
                    if run.pos >= self.pages() {
                        return Step::Finish(Ok(()));
                    }
                    let n = run.pos;
                    let from = (n * u64::from(self.p.page)) as u32 + 1;
                    let to =
                        ((n + 1) * u64::from(self.p.page)).min(u64::from(self.p.tokens)) as u32;
                    let ms = self.page_ms(n);
                    self.pages.push(Page {
                        n: n as u32,
                        at_ms: now,
                        skip: if self.p.paging == "offset" {
                            n * u64::from(self.p.page)
                        } else {
                            0
                        },
                        ms,
                    });
                    self.enqueue_page(run, from, to);
                    run.pos += 1;
                    run.stage = 2;
                    let what = if self.p.paging == "offset" {
                        format!(
                            "SELECT id … OFFSET {} LIMIT {}",
                            n * u64::from(self.p.page),
                            self.p.page
                        )
                    } else {
                        format!("SELECT id … WHERE id > {} LIMIT {}", from - 1, self.p.page)
                    };
                    return Step::Work { ms, what };
                }
                2 => match run.queue.pop_front() {
                    Some(c) => {
                        run.stage = 3;
                        run.sent = Some(c.clone());
                        return Step::Send(c);
                    }
                    None => run.stage = 1,
                },
                3 => {
                    // The add script's reply: 0 = added before (a rerun of this broadcast
                    // job), nothing twice; 1 = a new batch job.
                    run.stage = 2;
                    if reply.and_then(Reply::as_int) == Some(1) {
                        if let Some(sent) = run.sent.take() {
                            let id = String::from_utf8_lossy(&sent[5]).into_owned();
                            let data = String::from_utf8_lossy(&sent[7]).into_owned();
                            let (from, to) = parse_range(&data);
                            let n = self.batch_no(from);
                            self.jobs.insert(id, JobKind::Batch { n, from, to });
                            self.live += 1;
                            self.c.jobs += 1;
                        }
                    }
                }
                10 => {
                    let mb = u64::from(self.p.tokens) * self.p.row_bytes / 1_000_000;
                    if mb > self.p.heap_mb {
                        self.moment(now, "oom", mb);
                        run.stage = 0;
                        return Step::Crash;
                    }
                    self.enqueue_page(run, 1, self.p.tokens);
                    run.pos = self.pages();
                    run.stage = 2;
                }
                _ => return Step::Finish(Ok(())),
            }
        }
    }

    fn batch_step(&mut self, run: &mut Running, now: u64, from: u32, to: u32) -> Step {
        let slot = run.slot;
        match run.stage {
            0 => {
                // The batch's token query: the first free connection of the pool.
                let (i, free) = self
                    .db_free
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by_key(|&(i, f)| (f, i))
                    .unwrap_or((0, 0));
                let start = free.max(now);
                let wait = start - now;
                if wait >= self.p.db_timeout {
                    self.c.db_timeouts += 1;
                    self.c.db_wait_max_ms = self.c.db_wait_max_ms.max(self.p.db_timeout);
                    self.why.insert(slot, Why::DbTimeout);
                    run.stage = 9;
                    return Step::Work {
                        ms: self.p.db_timeout,
                        what: "Postgres: কানেকশনের অপেক্ষা".into(),
                    };
                }
                self.c.db_wait_max_ms = self.c.db_wait_max_ms.max(wait);
                self.db_free[i] = start + self.p.db_ms;
                run.stage = 1;
                Step::Work {
                    ms: wait + self.p.db_ms,
                    what: format!("SELECT token … WHERE id BETWEEN {from} AND {to}"),
                }
            }
            1 => {
                let n = to - from + 1;
                self.c.fcm_calls += 1;
                run.stage = 9;
                let fail = |s: &mut Self, why: Why, ms: u64| {
                    s.why.insert(slot, why);
                    s.snap(now);
                    Step::Work {
                        ms,
                        what: format!("sendEachForMulticast({n})"),
                    }
                };
                if n > self.p.fcm_max {
                    self.c.calls_rejected += 1;
                    return fail(self, Why::TooMany, (self.p.call_ms / 4).max(1));
                }
                if self.down(now) {
                    self.c.calls_unavailable += 1;
                    return fail(self, Why::Unavailable, self.p.call_ms);
                }
                while self
                    .window
                    .front()
                    .is_some_and(|&(t, _)| t + self.p.window <= now)
                {
                    let (_, k) = self.window.pop_front().expect("front");
                    self.window_sum -= u64::from(k);
                }
                if self.window_sum + u64::from(n) > u64::from(self.p.quota) {
                    self.c.calls_429 += 1;
                    return fail(self, Why::Quota, (self.p.call_ms / 4).max(1));
                }
                self.window.push_back((now, n));
                self.window_sum += u64::from(n);
                self.c.calls_ok += 1;
                // FCM has the call: it delivers, whatever happens to the worker next.
                let (mut got, mut twice, mut dead) = (0, 0, 0);
                for id in from..=to {
                    if is_dead(self.p.seed, self.p.dead, id) {
                        dead += 1;
                        if self.sends[id as usize] == 0 {
                            self.c.dead += 1;
                        }
                        self.sends[id as usize] = self.sends[id as usize].saturating_add(1);
                        continue;
                    }
                    let s = &mut self.sends[id as usize];
                    *s = s.saturating_add(1);
                    got += 1;
                    match *s {
                        1 => self.c.delivered += 1,
                        2 => {
                            self.c.sent_twice += 1;
                            twice += 1;
                        }
                        _ => twice += 1,
                    }
                }
                if let Some(&i) = self.open.get(&run.id) {
                    let a = &mut self.attempts[i];
                    a.delivered = got;
                    a.twice = twice;
                    a.dead = dead;
                }
                self.snap(now);
                run.pos = u64::from(dead);
                run.stage = if dead > 0 && self.p.mark_dead == "on" {
                    2
                } else {
                    3
                };
                Step::Work {
                    ms: self.p.call_ms,
                    what: format!("sendEachForMulticast({n})"),
                }
            }
            2 => {
                for id in from..=to {
                    if is_dead(self.p.seed, self.p.dead, id) && !self.marked[id as usize] {
                        self.marked[id as usize] = true;
                        self.c.dead_marked += 1;
                    }
                }
                self.snap(now);
                run.stage = 3;
                Step::Work {
                    ms: self.p.db_ms,
                    what: format!("updateMany({} টোকেন, isValid = false)", run.pos),
                }
            }
            9 => {
                let why = self.why.remove(&slot).unwrap_or(Why::Unavailable);
                Step::Finish(Err(why.reason(self.p.fcm_max)))
            }
            _ => Step::Finish(Ok(())),
        }
    }
}

fn parse_range(data: &str) -> (u32, u32) {
    let num = |k: &str| -> u32 {
        data.split(k)
            .nth(1)
            .map(|r| {
                r.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|s| s.parse().ok())
            .unwrap_or(1)
    };
    (num("\"from\":"), num("\"to\":"))
}

impl Processor for Bcast {
    fn step(&mut self, run: &mut Running, reply: Option<&Reply>, now: u64) -> Step {
        match self.jobs.get(&run.id).cloned() {
            Some(JobKind::Broadcast) => self.broadcast_step(run, reply, now),
            Some(JobKind::Batch { from, to, .. }) => self.batch_step(run, now, from, to),
            None => Step::Finish(Err("unknown job".into())),
        }
    }

    fn started(&mut self, run: &Running, now: u64) {
        let batch = match self.jobs.get(&run.id) {
            Some(JobKind::Batch { n, .. }) => Some(*n),
            _ => None,
        };
        self.open.insert(run.id.clone(), self.attempts.len());
        self.attempts.push(Attempt {
            job: run.id.clone(),
            batch,
            attempt: run.attempt,
            slot: run.slot,
            from_ms: now,
            to_ms: now,
            end: End::Running,
            why: None,
            due_ms: None,
            delivered: 0,
            twice: 0,
            dead: 0,
        });
    }

    fn ended(&mut self, run: &Running, o: &Outcome, now: u64) {
        let Some(i) = self.open.remove(&run.id) else {
            return;
        };
        let a = &mut self.attempts[i];
        a.to_ms = now;
        let why_of = |r: &str| -> Option<Why> {
            Some(if r.starts_with("Postgres") {
                Why::DbTimeout
            } else if r.starts_with("messaging/invalid") {
                Why::TooMany
            } else if r.starts_with("429") {
                Why::Quota
            } else {
                Why::Unavailable
            })
        };
        match o {
            Outcome::Completed => {
                a.end = End::Completed;
                self.live -= 1;
            }
            Outcome::Retry { reason, due_ms } => {
                a.end = End::Retry;
                a.why = why_of(reason);
                a.due_ms = Some(*due_ms);
                self.c.retries += 1;
                self.dues.insert(*due_ms);
            }
            Outcome::Failed { reason } => {
                a.end = End::Failed;
                a.why = why_of(reason);
                self.c.failed_jobs += 1;
                self.live -= 1;
                self.job_moment(now, "failed", &run.id);
            }
            Outcome::Crashed => {
                a.end = End::Crashed;
            }
            Outcome::LockLost => a.end = End::LockLost,
        }
        self.snap(now);
    }

    fn stalled(&mut self, id: &str, to_failed: bool, now: u64) {
        self.c.stalled += 1;
        self.job_moment(now, "stalled", id);
        if to_failed {
            self.c.failed_jobs += 1;
            self.live -= 1;
            self.job_moment(now, "failed", id);
        }
    }

    fn finished(&self) -> bool {
        self.api_done && self.live == 0
    }

    fn next_due(&self, now: u64) -> Option<u64> {
        self.dues.range(now + 1..).next().copied()
    }
}

/// The admin's clicks and the API behind them.
struct Api {
    p: BroadcastParams,
    b: Rc<RefCell<Bcast>>,
    click: u32,
    clicked_at: u64,
    stage: u8,
    job: String,
}

impl Api {
    fn click(&mut self, now: u64) -> Action {
        self.click += 1;
        self.clicked_at = now;
        self.b
            .borrow_mut()
            .moment(now, "click", u64::from(self.click));
        if self.p.dedup == "on" {
            self.stage = 1;
            let ex = self.p.dedup_ex.to_string();
            Action::Send {
                cmd: cmd(&["SET", DEDUP_KEY, "1", "NX", "EX", &ex]),
            }
        } else {
            self.incr()
        }
    }
    fn incr(&mut self) -> Action {
        self.stage = 2;
        Action::Send {
            cmd: cmd(&["INCR", &Keys::new(QUEUE).key("id")]),
        }
    }
    fn answer(&mut self, now: u64, queued: bool) -> Action {
        {
            let mut b = self.b.borrow_mut();
            b.responses.push(Response {
                click: self.click,
                at_ms: self.clicked_at,
                ms: now - self.clicked_at,
                queued,
            });
            if !queued {
                b.c.dedup_refused += 1;
                b.moment(now, "dup", u64::from(self.click));
            }
        }
        if self.click >= self.p.clicks {
            self.b.borrow_mut().api_done = true;
            return Action::Done;
        }
        self.stage = 0;
        let next = self.clicked_at + self.p.click_gap;
        Action::Sleep {
            ms: next.saturating_sub(now).max(1),
        }
    }
}

impl Actor for Api {
    fn name(&self) -> String {
        "api".into()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        let reply = match input {
            Input::Reply { reply } => Some(reply),
            _ => None,
        };
        let keys = Keys::new(QUEUE);
        match (self.stage, reply) {
            (0, _) => self.click(now),
            (1, Some(r)) if *r == Reply::ok() => self.incr(),
            (1, _) => self.answer(now, false),
            (2, Some(r)) => {
                self.job = r.as_int().unwrap_or(1).to_string();
                {
                    let mut b = self.b.borrow_mut();
                    b.jobs.insert(self.job.clone(), JobKind::Broadcast);
                    b.live += 1;
                    b.c.jobs += 1;
                    b.c.broadcasts += 1;
                }
                self.stage = 3;
                Action::Send {
                    cmd: cmd(&[
                        "HSET",
                        &keys.job(&self.job),
                        "name",
                        "broadcast",
                        "data",
                        r#"{"campaign":42}"#,
                        "atm",
                        "0",
                    ]),
                }
            }
            (3, _) => {
                self.stage = 4;
                Action::Send {
                    cmd: cmd(&["LPUSH", &keys.wait(), &self.job]),
                }
            }
            (4, _) => {
                self.stage = 5;
                Action::Work {
                    ms: self.p.log_ms,
                    what: "INSERT INTO broadcast_log".into(),
                }
            }
            (5, _) => self.answer(now, true),
            _ => Action::Done,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The run.

/// Adds the API, the worker process's slots and its stalled check to `world`, each behind
/// `hop` (the simulation and a live run build the same actors).
fn populate<B: Backend>(
    world: &mut World<B>,
    p: &BroadcastParams,
    b: &Rc<RefCell<Bcast>>,
    life: &Rc<RefCell<Life>>,
    hop: Hop,
) {
    world.add(
        Box::new(Api {
            p: p.clone(),
            b: b.clone(),
            click: 0,
            clicked_at: 0,
            stage: 0,
            job: String::new(),
        }),
        hop,
        0,
    );
    let qcfg = QueueConfig {
        attempts: p.attempts,
        backoff_ms: p.backoff,
        lock_ms: p.lock,
        stalled_ms: p.stalled,
        max_stalled: 1,
        limit_max: p.throttle,
        limit_ms: p.window,
        block_ms: p.block,
    };
    for s in 0..p.concurrency as usize {
        world.add(
            Box::new(Slot::new(
                format!("w{}", s + 1),
                s,
                Keys::new(QUEUE),
                qcfg.clone(),
                life.clone(),
                b.clone(),
                p.restart,
            )),
            hop,
            1,
        );
    }
    world.add(
        Box::new(StalledCheck::new(
            "stalled-check".into(),
            Keys::new(QUEUE),
            qcfg,
            life.clone(),
            b.clone(),
        )),
        hop,
        1,
    );
}

/// A step-able run of the queue mode (the naive mode is closed-form: [`naive_result`]).
pub struct BroadcastRun {
    cfg: BroadcastConfig,
    world: Option<World<SimRedis>>,
    b: Rc<RefCell<Bcast>>,
    life: Rc<RefCell<Life>>,
    done: bool,
}

impl BroadcastRun {
    /// The run of `p`.
    pub fn new(p: &BroadcastParams) -> Self {
        Self::with_config(&p.config())
    }

    /// The run of a config (crash and outage schedules of any length).
    pub fn with_config(cfg: &BroadcastConfig) -> Self {
        let b = Rc::new(RefCell::new(Bcast::new(cfg)));
        let life = Rc::new(RefCell::new(cfg.life.clone()));
        let p = &cfg.p;
        if p.mode == "naive" {
            return BroadcastRun {
                cfg: cfg.clone(),
                world: None,
                b,
                life,
                done: true,
            };
        }
        let mut world = World::with_sim(p.seed);
        populate(&mut world, p, &b, &life, Hop::symmetric(1));
        BroadcastRun {
            cfg: cfg.clone(),
            world: Some(world),
            b,
            life,
            done: false,
        }
    }

    /// One event; false when the run is over.
    pub fn step(&mut self) -> bool {
        let Some(w) = self.world.as_mut() else {
            self.done = true;
            return false;
        };
        if self.done {
            return false;
        }
        if w.trace().len() >= MAX_STEPS || !w.step() {
            self.done = true;
        }
        !self.done
    }

    /// Up to `n` events; true when the run is over.
    pub fn steps(&mut self, n: usize) -> bool {
        for _ in 0..n {
            if !self.step() {
                break;
            }
        }
        self.done
    }

    /// Over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// How far along, 0..1 (an estimate until done).
    pub fn progress(&self) -> f64 {
        if self.done {
            return 1.0;
        }
        let b = self.b.borrow();
        let total = u64::from(b.p.tokens).max(1);
        (b.c.delivered as f64 / total as f64).min(0.99)
    }

    /// Trace entries so far.
    pub fn len(&self) -> usize {
        self.world.as_ref().map_or(0, |w| w.trace().len())
    }

    /// Nothing happened yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The world's trace as text (`labsim broadcast --trace`).
    pub fn trace_text(&self) -> String {
        self.world
            .as_ref()
            .map_or_else(String::new, World::trace_text)
    }

    /// The exact per-token send counts (index = token id; 0 unused).
    pub fn sends(&self) -> Vec<u8> {
        self.b.borrow().sends.clone()
    }

    /// What the run shows so far.
    pub fn result(&self) -> BroadcastResult {
        let p = &self.cfg.p;
        if p.mode == "naive" {
            return naive_result(p);
        }
        let b = self.b.borrow();
        let w = self.world.as_ref().expect("queue mode has a world");
        analyse(&b, w, &self.life.borrow(), None)
    }
}

/// Runs `p` to the end.
pub fn run(p: &BroadcastParams) -> BroadcastResult {
    let mut r = BroadcastRun::new(p);
    while r.step() {}
    r.result()
}

fn naive(p: &BroadcastParams) -> Naive {
    let sent = |ms: u64| (ms / p.call_ms).min(u64::from(p.tokens));
    Naive {
        total_ms: u64::from(p.tokens) * p.call_ms,
        at_timeout: sent(p.proxy_timeout * 1000),
        at_death: sent(p.dies_at),
        whole_seconds: sent(p.dies_at / 1000 * 1000),
    }
}

fn page_costs(p: &BroadcastParams) -> Vec<PageCost> {
    let pages = u64::from(p.tokens).div_ceil(u64::from(p.page));
    (0..pages)
        .map(|n| PageCost {
            offset_ms: p.page_ms + n * u64::from(p.page) * p.skip_ns / 1_000_000,
            cursor_ms: p.page_ms,
        })
        .collect()
}

fn memory(p: &BroadcastParams) -> (u64, u64) {
    (
        u64::from(p.tokens) * p.row_bytes / 1_000_000,
        u64::from(p.page) * p.row_bytes / 1_000_000,
    )
}

/// The naive loop, closed form: one send per `call_ms`, the proxy's cut, the death, the rerun.
pub fn naive_result(p: &BroadcastParams) -> BroadcastResult {
    let nv = naive(p);
    let tokens = u64::from(p.tokens);
    let dead_upto = |k: u64| {
        (1..=k as u32)
            .filter(|&i| is_dead(p.seed, p.dead, i))
            .count() as u64
    };
    let first = nv.at_death;
    let first_dead = dead_upto(first);
    let all_dead = dead_upto(tokens);
    let mut moments = vec![
        Moment {
            at_ms: 0,
            kind: "click".into(),
            n: 1,
            job: None,
        },
        Moment {
            at_ms: p.proxy_timeout * 1000,
            kind: "timeout".into(),
            n: nv.at_timeout,
            job: None,
        },
        Moment {
            at_ms: p.dies_at,
            kind: "died".into(),
            n: first,
            job: None,
        },
    ];
    let rerun = p.rerun == "on";
    let end_ms = if rerun {
        p.dies_at + nv.total_ms
    } else {
        p.dies_at
    };
    if rerun {
        moments.push(Moment {
            at_ms: p.dies_at,
            kind: "rerun".into(),
            n: first,
            job: None,
        });
    }
    let counters = Counters {
        delivered: if rerun {
            tokens - all_dead
        } else {
            first - first_dead
        },
        sent_twice: if rerun { first - first_dead } else { 0 },
        lost: if rerun {
            0
        } else {
            tokens - all_dead - (first - first_dead)
        },
        dead: if rerun { all_dead } else { first_dead },
        fcm_calls: if rerun { first + tokens } else { first },
        calls_ok: if rerun { first + tokens } else { first },
        ..Counters::default()
    };
    // Frames: 120 across the first run, then 60 across the rerun.
    let mut frames = Vec::new();
    let sent = |t: u64| (t / p.call_ms).min(tokens);
    for i in 0..=120u64 {
        let t = p.dies_at * i / 120;
        let s = sent(t);
        frames.push(Frame {
            at_ms: t,
            delivered: s,
            calls: s,
            ..Frame::default()
        });
    }
    if rerun {
        for i in 1..=60u64 {
            let t = nv.total_ms * i / 60;
            let s = sent(t);
            frames.push(Frame {
                at_ms: p.dies_at + t,
                delivered: first.max(s),
                twice: s.min(first),
                calls: first + s,
                ..Frame::default()
            });
        }
    }
    BroadcastResult {
        params: p.clone(),
        end_ms,
        counters,
        batches: p.clone().batches(),
        naive: nv,
        responses: vec![Response {
            click: 1,
            at_ms: 0,
            ms: p.proxy_timeout * 1000,
            queued: false,
        }],
        pages: Vec::new(),
        page_costs: page_costs(p),
        memory_mb: memory(p),
        attempts: Vec::new(),
        moments,
        frames,
        commands: Vec::new(),
    }
}

/// Most commands kept in the log.
const LOG_MAX: usize = 600;

/// What the run shows. A simulated command is one trace entry with its reply (or none while
/// it blocks); a live one (`rtts`: the round trips, in the order the replies arrived) is two:
/// sent, then its reply when it arrived.
fn analyse<B: Backend>(
    b: &Bcast,
    w: &World<B>,
    life: &Life,
    rtts: Option<&[u32]>,
) -> BroadcastResult {
    let p = &b.p;
    let trace = w.trace();
    // Jobs worth their commands in the log: the broadcast jobs, the first two batches, and
    // every batch that failed, crashed, stalled or ran more than once.
    let mut keep: BTreeSet<&str> = BTreeSet::new();
    for a in &b.attempts {
        if a.batch.is_none_or(|n| n < 2) || a.attempt > 1 || a.end != End::Completed {
            keep.insert(a.job.as_str());
        }
    }
    let prefix = b.keys.key("");
    let job_of = |word: &[u8]| -> Option<String> {
        let s = String::from_utf8_lossy(word);
        let s = s.strip_prefix(prefix.as_str()).unwrap_or(&s);
        let s = s.strip_suffix(":lock").unwrap_or(s);
        b.jobs.contains_key(s).then(|| s.to_string())
    };
    let mut commands = Vec::new();
    let mut n_cmds = 0u64;
    let mut routine = 0usize;
    let mut sent: BTreeMap<usize, &Command> = BTreeMap::new();
    let mut rtt_of = rtts.unwrap_or_default().iter().copied();
    for e in trace {
        let (c, reply, rtt_us) = match (&e.what, rtts.is_some()) {
            (What::Exec { cmd: c, reply }, false) => (c, reply.as_ref(), None),
            (What::Exec { cmd: c, .. }, true) => {
                sent.insert(e.actor, c);
                continue;
            }
            (What::Unblocked { reply }, true) => match sent.remove(&e.actor) {
                Some(c) => (c, Some(reply), rtt_of.next()),
                None => continue,
            },
            _ => continue,
        };
        n_cmds += 1;
        if commands.len() >= LOG_MAX {
            continue;
        }
        let r = reply.map_or_else(|| "(blocked)".to_string(), |r| r.to_string());
        let mut job = c.iter().skip(1).find_map(|x| job_of(x));
        if job.is_none() {
            if let Some(Reply::Bulk(x)) = reply {
                job = job_of(x);
            }
        }
        let who = w.actor_name(e.actor);
        let interesting = match &job {
            Some(j) => keep.contains(j.as_str()),
            None => {
                who == "api" || who == "stalled-check" || {
                    let empty = matches!(reply, Some(Reply::Array(a)) if a.is_empty())
                        || matches!(reply, Some(Reply::Nil));
                    routine += 1;
                    !empty && routine <= 60
                }
            }
        };
        if interesting {
            commands.push(CmdRow {
                at_ms: e.at_ms,
                who,
                cmd: show_cmd(c as &Command),
                reply: r,
                rtt_us,
            });
        }
    }
    let end_ms = b
        .attempts
        .iter()
        .map(|a| a.to_ms)
        .chain(b.responses.iter().map(|r| r.at_ms + r.ms))
        .max()
        .unwrap_or(0);
    let mut attempts = b.attempts.clone();
    for a in attempts.iter_mut().filter(|a| a.end == End::Running) {
        a.to_ms = w.now_ms();
    }
    let mut c = b.c;
    c.commands = n_cmds;
    let valid = (1..=p.tokens)
        .filter(|&i| !is_dead(p.seed, p.dead, i))
        .count() as u64;
    c.lost = valid - c.delivered;
    // Frames: one a second (more apart on long runs, at most 400).
    let step = (end_ms.div_ceil(400)).max(1000).div_ceil(1000) * 1000;
    let mut frames = Vec::new();
    let mut i = 0;
    let mut last = (0, 0, 0, 0, 0);
    let mut t = 0;
    loop {
        while i < b.series.len() && b.series[i].0 <= t {
            last = b.series[i];
            i += 1;
        }
        let retries = b
            .attempts
            .iter()
            .filter(|a| a.end == End::Retry && a.to_ms <= t)
            .count() as u64;
        let failed = b
            .moments
            .iter()
            .filter(|m| m.kind == "failed" && m.at_ms <= t)
            .count() as u64;
        frames.push(Frame {
            at_ms: t,
            delivered: last.1,
            twice: last.2,
            calls: last.3,
            retries,
            failed,
            marked: last.4,
        });
        if t >= end_ms {
            break;
        }
        t = (t + step).min(end_ms);
    }
    let mut moments = b.moments.clone();
    for &(a, z) in &b.outages {
        moments.push(Moment {
            at_ms: a,
            kind: "outage".into(),
            n: (z - a) / 1000,
            job: None,
        });
        moments.push(Moment {
            at_ms: z,
            kind: "back".into(),
            n: 0,
            job: None,
        });
    }
    for &(a, z) in life.down.iter().filter(|d| d.0 <= w.now_ms()) {
        moments.push(Moment {
            at_ms: a,
            kind: "crash".into(),
            n: 0,
            job: None,
        });
        moments.push(Moment {
            at_ms: z,
            kind: "restart".into(),
            n: 0,
            job: None,
        });
    }
    moments.sort_by_key(|m| m.at_ms);
    BroadcastResult {
        params: p.clone(),
        end_ms,
        counters: c,
        batches: p.batches(),
        naive: naive(p),
        responses: b.responses.clone(),
        pages: b.pages.clone(),
        page_costs: page_costs(p),
        memory_mb: memory(p),
        attempts,
        moments,
        frames,
        commands,
    }
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

// --- the lab -------------------------------------------------------------------------------

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "broadcast",
    title: "এক ক্লিকে ৫ লাখ ডিভাইস — কিউ, ব্যাচ, রিট্রাই",
    blurb: "API-র ভেতরে লুপ বনাম BullMQ-র মতো কিউ: cursor, ৫০০-র ব্যাচ, থ্রটল, dedup, backoff-এ রিট্রাই, মরা টোকেন, ওয়ার্কার ক্র্যাশ — কে পেল, কে দুবার, কে বাদ",
    fields: FIELDS,
    presets: PRESETS,
    rules,
    runs: &["run"],
    live: true,
};

/// Batch jobs (× broadcast jobs without dedup) within [`MAX_JOBS`].
fn rules(p: &Params) -> Result<(), super::lab::Broken> {
    let num = |k: &str| u64::try_from(p.int(k)).unwrap_or(1).max(1);
    let per = num("chunk").min(num("page"));
    let copies = if p.get("dedup") == "off" { num("clicks") } else { 1 };
    if num("tokens").div_ceil(per) * copies > MAX_JOBS {
        return Err(broken(
            "chunk",
            format!(
                "ব্যাচ (টোকেন ÷ chunk, ক্লিক ধরে) {MAX_JOBS}-এর বেশি হলে হিসাব অনেক লম্বা — chunk বাড়ান বা টোকেন কমান"
            ),
        ));
    }
    Ok(())
}

/// The parameters of `job`: scaled down for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> BroadcastParams {
    let p: BroadcastParams = p.typed();
    match job.live_scale {
        Some(k) => p.for_live(k),
        None => p,
    }
}

/// World events per unit of work.
const EVENTS: usize = 8_192;

impl Run for BroadcastRun {
    type Part = ();
    type Output = BroadcastResult;
    fn step(&mut self) -> Option<()> {
        self.steps(EVENTS);
        None
    }
    fn is_done(&self) -> bool {
        BroadcastRun::is_done(self)
    }
    fn progress(&self) -> f64 {
        BroadcastRun::progress(self)
    }
    fn output(&mut self) -> BroadcastResult {
        self.result()
    }
}

/// The lab's runner.
pub struct BroadcastLab;

/// The registry's entry.
pub static LAB: BroadcastLab = BroadcastLab;

impl Lab for BroadcastLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(BroadcastRun::new(&shaped(job, p))))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let p = shaped(job, p);
        (p.mode == "queue").then(|| Box::new(BroadcastLive::new(&p)) as Box<dyn LiveDriver>)
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "seed 004's broadcast: one notification to 5,00,000 devices, the naive loop in \
                      the request or a BullMQ-style queue in SimRedis (paging, 500-token chunks, a \
                      throttle, dedup, retries with backoff, dead tokens, a worker crash)",
            skip: &[],
            more: &[],
            switches: &["trace"],
            usage: &["[--trace] (every event)"],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let mut run = BroadcastRun::new(&p.typed());
        while BroadcastRun::step(&mut run) {}
        let r = run.result();
        let mut text = if a.flag("trace") {
            run.trace_text()
        } else {
            String::new()
        };
        text.push_str(&r.text());
        Ok(crate::cli::emit(a, text, || r.to_json()))
    }
}

impl LiveDriver for BroadcastLive {
    fn advance(&mut self, now_ms: u64) -> Vec<(usize, Command)> {
        BroadcastLive::advance(self, now_ms)
    }
    fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        BroadcastLive::arrived(self, tag, reply, now_ms, rtt_us);
    }
    fn next_at(&self) -> Option<u64> {
        BroadcastLive::next_at(self)
    }
    fn is_done(&self) -> bool {
        BroadcastLive::is_done(self)
    }
    fn snapshot(&self) -> Json {
        Json::of(&self.result())
    }
    fn snapshot_ms(&self) -> f64 {
        250.0
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::params::Params;

    fn preset_params(id: &str) -> BroadcastParams {
        let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
        assert!(errs.is_empty(), "{errs:?}");
        p.typed()
    }

    #[test]
    fn defaults_are_the_fixed_preset_and_every_preset_is_valid() {
        assert_eq!(BroadcastParams::default(), preset_params("fixed"));
        assert_eq!(
            Params::defaults(&INFO).preset().map(|p| p.id),
            Some("fixed")
        );
        for pr in PRESETS {
            let (p, errs) = Params::from_query(&INFO, &format!("preset={}", pr.id));
            assert!(errs.is_empty(), "{}: {errs:?}", pr.id);
            assert!(p.preset().is_some(), "{}", pr.id);
        }
        assert_eq!(BroadcastParams::default().batches(), 1000);
    }

    #[test]
    fn stepping_in_slices_equals_the_run_to_the_end() {
        for id in ["fixed", "outage", "crash", "dedup"] {
            let p = preset_params(id);
            let full = run(&p);
            let mut r = BroadcastRun::new(&p);
            while !r.steps(997) {}
            assert_eq!(r.result(), full, "{id}");
        }
    }

    #[test]
    fn the_worker_protocol_gives_the_same_result() {
        use crate::labs::work::{Body, Job, Work};
        let p = preset_params("dead-tokens");
        let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=dead-tokens").0);
        let msgs = Work::new(job).unwrap().run_to_end();
        let Some(Body::Done(r)) = msgs.last() else {
            panic!("no result")
        };
        assert_eq!(r.read::<BroadcastResult>().unwrap(), run(&p));
        let s = serde_json::to_string(&msgs).unwrap();
        assert_eq!(serde_json::from_str::<Vec<Body>>(&s).unwrap(), msgs);
    }
}
