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
//!   query, `db_timeout` at most waiting) and calls `sendEachForMulticast` once (`call_ms`).
//!   As in firebase-admin (`src/messaging/messaging.ts`), a list of more than `fcm_max`
//!   tokens throws before anything is sent; otherwise the call settles every token's request
//!   and resolves with one response each — it does not throw when tokens fail. During an
//!   outage every token answers `messaging/server-unavailable`; FCM's quota is one bucket of
//!   `quota` messages a minute per project (6,00,000), and the tokens past it answer 429
//!   `messaging/message-rate-exceeded` with a `retry-after` to the next minute; a dead token
//!   (a seeded `dead` percent) answers `registration-token-not-registered`.
//!   What the batch does with the answers is `responses`: `ignore` completes the job whatever
//!   they say (the failed tokens are lost without a trace, the dead ones never marked);
//!   `retry` — the fix — marks the dead tokens `isValid = false` with one `updateMany` (never
//!   deleting them, never retrying them), writes the tokens that failed with a retryable code
//!   into the job's data (`job.updateData`) and throws, so BullMQ retries the job for them
//!   only: nothing lost, nothing sent twice. The queue's limiter (`throttle` jobs a second;
//!   0 = no limiter: everything at once) paces the batches; a failed batch is retried after
//!   10 s, 20 s, … (`attempts`, `backoff`) and lands in the failed set, with its reason,
//!   after the last. A worker crash (`crash_at`, back after `restart`) leaves its jobs
//!   active; the stalled check takes them back once their locks expire, and they run again.
//!
//! Every token is counted exactly: a per-token send counter (a byte each), so "delivered",
//! "sent twice", "lost" (a valid token never delivered) and "dead" are exact totals, while the
//! simulated events are per batch (1,000 FCM calls, not 5,00,000 sends). FCM is taken to
//! deliver a call it accepted even when the worker dies before hearing the answer: the batch
//! then runs again and those tokens get it twice — at-least-once, shown as it is.
//!
//! [`BroadcastSim`] steps the world one event at a time; [`run`] runs it to the end, and a run
//! stepped in slices gives the same result (tested in `tests.rs` and `tests/broadcast.rs`).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{
    is_dead, live_run, naive_result, run, sim, BroadcastLive, BroadcastScenario, BroadcastSim,
    LIVE_BLOCK_MS, LIVE_CONCURRENCY, LIVE_TOKENS,
};
pub use output::*;
pub use params::{BroadcastConfig, BroadcastParams, Mode, Pace, Paging, Responses, MAX_JOBS};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::{Params, Switch};
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the broadcast, event by event (live: the same, against a real Redis).
    pub struct BroadcastRun = "run", () => BroadcastOutput;
}

/// The queue's name (`bull:push:…`).
pub const QUEUE: &str = "push";
/// The dedup key the API takes before enqueueing.
pub const DEDUP_KEY: &str = "bcast:dedup:campaign:42";
/// Guard against a run that never ends.
pub const MAX_STEPS: usize = 3_000_000;

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = BroadcastRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "broadcast",
    title: "এক ক্লিকে ৫ লাখ ডিভাইস — কিউ, ব্যাচ, রিট্রাই",
    blurb: "API-র ভেতরে লুপ বনাম BullMQ-র মতো কিউ: cursor, ৫০০-র ব্যাচ, থ্রটল, dedup, backoff-এ রিট্রাই, মরা টোকেন, ওয়ার্কার ক্র্যাশ — কে পেল, কে দুবার, কে বাদ",
    fields: BroadcastParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<BroadcastParams>,
    runs: &[BroadcastRun::NAME],
    live: true,
};

/// The run `job` asks for: scaled down for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> BroadcastConfig {
    let p: BroadcastParams = p.read();
    match job.live_scale {
        Some(k) => p.for_live(k),
        None => p.config(),
    }
}

/// The lab's runner.
pub struct BroadcastLab;

/// The registry's entry.
pub static LAB: BroadcastLab = BroadcastLab;

impl Lab for BroadcastLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(BroadcastRun::erase(sim(&shaped(job, p))))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let cfg = shaped(job, p);
        cfg.p
            .queued()
            .then(|| Box::new(live_run(&cfg)) as Box<dyn LiveDriver>)
    }

    fn heaviest(&self) -> &'static str {
        "preset=all-at-once"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            switches: &["trace", "full"],
            usage: &[
                "[--trace] (every event)",
                "[--full] (with --json: every run of every batch and the command log, as the page receives them)",
            ],
            ..CliSpec::new("seed 004's broadcast: one notification to 5,00,000 devices, the naive loop in \
                      the request or a BullMQ-style queue in SimRedis (paging, 500-token chunks, a \
                      throttle, dedup, retries with backoff, dead tokens, a worker crash)")
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let mut run = sim(&p.read::<BroadcastParams>().config());
        run.steps(usize::MAX);
        let r = run.output();
        let mut s = if a.flag("trace") {
            run.world().trace_text()
        } else {
            String::new()
        };
        s.push_str(&text(&r));
        let out = r.for_cli(a.flag("full"));
        Ok(crate::cli::emit(a, s, || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}

/// The summary as text (`labsim broadcast`).
pub fn text(o: &BroadcastOutput) -> String {
    let p = &o.params;
    let c = &o.counters;
    let mut s = String::new();
    if p.mode == Mode::Naive {
        let n = &o.naive;
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
        if p.rerun == Switch::On {
            s.push_str(&format!(
                "rerun from the first token: {} tokens get it twice\n",
                c.sent_twice
            ));
        }
    } else {
        for r in &o.responses {
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
        for a in o.attempts.iter().filter(|a| a.notable()) {
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
        for m in o
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
        o.end_ms
    ));
    s
}
