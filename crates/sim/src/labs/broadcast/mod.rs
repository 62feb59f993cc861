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

/// Its practice questions.
pub mod practice;

mod actors;
mod live;
mod result;
mod scenario;
#[cfg(test)]
mod tests;

pub use actors::is_dead;
pub use live::{LIVE_BLOCK_MS, LIVE_CONCURRENCY, LIVE_TOKENS};
pub use result::*;
pub use scenario::{live, naive_result, run, sim, BroadcastLive, BroadcastRun, BroadcastScenario};
use actors::{Api, Bcast};

use super::lab::{erase, AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use crate::cli::{Args, CliError};
use super::params::{broken, choice, int, Field, Params};
use super::preset::Preset;
use crate::queue::{
    Keys, Life, Outcome, Processor, QueueConfig, Running, Slot, StalledCheck, Step,
};
use crate::redis::Reply;
use crate::world::{
    cmd, Action, Actor, Actors, Backend, Command, Ctx, Hop, Input, What, World,
};
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

fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

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

/// The lab's runner.
pub struct BroadcastLab;

/// The registry's entry.
pub static LAB: BroadcastLab = BroadcastLab;

impl Lab for BroadcastLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(sim(&shaped(job, p))))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let p = shaped(job, p);
        (p.mode == "queue").then(|| Box::new(live(&p)) as Box<dyn LiveDriver>)
    }

    fn heaviest(&self) -> &'static str {
        "preset=all-at-once"
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
        let mut run = sim(&p.typed());
        run.steps(usize::MAX);
        let r = run.output();
        let mut text = if a.flag("trace") {
            run.world().trace_text()
        } else {
            String::new()
        };
        text.push_str(&r.text());
        Ok(crate::cli::emit(a, text, || r.to_json()))
    }
}

