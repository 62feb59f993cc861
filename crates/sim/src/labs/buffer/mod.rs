//! The buffering lab (production slide 16, "Redis-কেও রক্ষা করতে হয়"): `viewers` students
//! watch a video; each sends a presence heartbeat and a progress event every second, at a
//! seeded moment of the second. Two designs, side by side:
//!
//! * **direct**: every heartbeat is its own `ZADD presence:room:42 <ms> user:<i>` — one
//!   command and one round trip each — and every progress event is its own database write;
//! * **buffered**: heartbeats wait in memory for 1 s, then go in one pipeline of
//!   `⌈n / chunk⌉` commands, each a `ZADD` of at most `chunk` (300) members; progress waits in
//!   a `Map` keyed by user (a newer event overwrites the older one) and every `progress_s`
//!   (30) seconds is written to the database `batch` (1,000) rows per query.
//!
//! What each saves, exactly: the pipeline saves **round trips** (one a second instead of one
//! per heartbeat, and with them the syscalls), not commands; the chunking saves
//! **commands** (300 heartbeats in one `ZADD`); Redis still adds the same members either way.
//! The Map saves **database rows** (one per user per flush instead of one per event) and the
//! batches save **queries**.
//!
//! A flush can fail (`fail`: the k-th progress flush's first query errors after `db_ms`):
//! its rows go back to the Map (`requeue`) for the next flush. `newer-wins` puts a row back
//! only when the user has no newer event in the Map meanwhile; `blind` puts every row back
//! over whatever is there (a user's newer progress is replaced by the older one); `drop`
//! loses them. The check at the end compares, per user, what the database (or the Map, not
//! yet flushed) holds with the user's latest event.
//!
//! The numbers for the whole audience are arithmetic on the seeded schedule (per user, per
//! flush: no per-event loop), so 50,000 viewers run in milliseconds. The commands themselves
//! are spoken to a SimRedis by a sample of viewers for three seconds ([`sample`]), both
//! designs, and counted the same way: the sample's counts equal the arithmetic's for the
//! sample's size (a test holds them to it).
//!
//! No live mode: a 300-member `ZADD` has 602 words and the proxy's allowlist takes at most
//! 256 arguments a command (`crates/proxy/src/commands.rs`), and the lab's point — counts of
//! commands, round trips and rows for 50,000 viewers — is the same arithmetic on a real
//! Redis.

/// Its practice questions.
pub mod practice;

mod model;
pub mod sample;
#[cfg(test)]
mod tests;

pub use model::{run, text, BufferResult, Check, Flush, Totals};
pub use sample::{Sample, SampleDesign};

use super::lab::{erase, Broken, CliSpec, Job, Lab, LabInfo, Ready};
use super::params::{broken, choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The room's sorted set (as in the presence lab).
pub const ROOM: &str = "presence:room:42";
/// The presence buffer's window, ms (the seed's 1 s).
pub const PRESENCE_MS: u64 = 1_000;
/// Seconds the SimRedis sample runs.
pub const SAMPLE_S: u32 = 3;
/// The requeue ways, as the `requeue` field names them.
pub const REQUEUES: &[&str] = &["newer-wins", "blind", "drop"];

/// The lab's fields.
pub const FIELDS: &[Field] = &[
    int("viewers", "দর্শক", 1, 100_000, "50000"),
    int("seconds", "কত সেকেন্ড চলবে", 10, 300, "120"),
    int("chunk", "এক ZADD-এ সর্বোচ্চ সদস্য", 1, 1_000, "300"),
    int("progress_s", "প্রোগ্রেস ফ্লাশের ফাঁক (s)", 5, 120, "30"),
    int("batch", "এক কোয়েরিতে রো", 1, 10_000, "1000"),
    int("leave", "চালানোর মাঝে চলে যায় (%)", 0, 100, "0"),
    int("fail", "কত নম্বর ফ্লাশ ফেল করে (0 = কোনোটা না)", 0, 60, "0"),
    int("db_ms", "ফেল টের পেতে লাগে (ms)", 1, 10_000, "2000"),
    choice("requeue", "ফেল হলে রো-গুলো", REQUEUES, "newer-wins"),
    int("sample", "SimRedis-এ যত দর্শক চলে", 1, 2_000, "600"),
    seed("0"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferParams {
    /// Viewers, each a heartbeat and a progress event a second.
    pub viewers: u32,
    /// The run's length, s.
    pub seconds: u32,
    /// Most members in one `ZADD` of the presence flush.
    pub chunk: u32,
    /// Seconds between two progress flushes.
    pub progress_s: u32,
    /// Rows in one database query.
    pub batch: u32,
    /// Percent of viewers that leave at a seeded moment of the run.
    pub leave: u32,
    /// The progress flush (1-based) whose first query fails; 0: none.
    pub fail: u32,
    /// How long the failing query takes to fail, ms.
    pub db_ms: u32,
    /// What a failed flush does with its rows (`newer-wins`, `blind`, `drop`).
    pub requeue: String,
    /// Viewers the SimRedis sample runs.
    pub sample: u32,
    /// Seed of the moments in the second and of who leaves when.
    pub seed: u32,
}

impl Default for BufferParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl BufferParams {
    /// Progress flushes in the run.
    pub fn flushes(&self) -> u32 {
        self.seconds / self.progress_s.max(1)
    }
}

fn rules(p: &Params) -> Result<(), Broken> {
    let n = |k: &str| p.int(k).max(0);
    if n("fail") > n("seconds") / n("progress_s").max(1) {
        return Err(broken(
            "fail",
            "এই সময়ে এতগুলো ফ্লাশ হয় না — সেকেন্ড ÷ ফ্লাশের ফাঁকের বেশি নয়",
        ));
    }
    if n("db_ms") >= n("progress_s") * 1_000 {
        return Err(broken(
            "db_ms",
            "ফেল টের পাওয়ার আগেই পরের ফ্লাশ এসে যায় — ফ্লাশের ফাঁকের চেয়ে কম দিন",
        ));
    }
    Ok(())
}

/// The presets: a failed flush and what each requeue does with it; a pipeline without
/// chunks.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "db-fails",
        label: "ফ্লাশ ফেল",
        about: "দ্বিতীয় ফ্লাশ ফেল করে, রো-গুলো Map-এ ফেরে — তবে নতুনটা থাকলে সেটাই জেতে; কারও প্রোগ্রেস হারায় না",
        pairs: &[("fail", "2"), ("leave", "30")],
    },
    Preset {
        id: "blind-requeue",
        label: "অন্ধ requeue",
        about: "ফেরত রো নতুনটার ওপর বসে যায়: ফেলের ফাঁকে নতুন ইভেন্ট পাঠিয়ে চলে গেছে যারা, তাদের পুরোনো প্রোগ্রেস লেখা হয়",
        pairs: &[("fail", "2"), ("leave", "30"), ("requeue", "blind")],
    },
    Preset {
        id: "no-requeue",
        label: "requeue নেই",
        about: "ফেল করা রো ফেলে দিলে, যারা এর মধ্যে চলে গেছে তাদের শেষ প্রোগ্রেস আর কখনো লেখা হয় না",
        pairs: &[("fail", "2"), ("leave", "30"), ("requeue", "drop")],
    },
    Preset {
        id: "no-chunks",
        label: "চাঙ্ক ছাড়া pipeline",
        about: "chunk=1: প্রতি হার্টবিট আলাদা ZADD, তবু এক pipeline-এ — রাউন্ড-ট্রিপ এক, কমান্ড ৫০,০০০-ই",
        pairs: &[("chunk", "1")],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "buffer",
    title: "বাফার: Redis-কেও রক্ষা করা",
    blurb: "৫০ হাজার দর্শকের হার্টবিট আর প্রোগ্রেস — সরাসরি লিখলে আর বাফারে জমিয়ে লিখলে সেকেন্ডে কত কমান্ড, রাউন্ড-ট্রিপ, DB-তে রো; ফ্লাশ ফেল হলে requeue",
    fields: FIELDS,
    presets: PRESETS,
    rules,
    runs: &["run"],
    live: false,
};

/// The lab's runner.
pub struct BufferLab;

/// The registry's entry.
pub static LAB: BufferLab = BufferLab;

impl Lab for BufferLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn super::lab::AnyRun>, String> {
        Ok(erase(Ready::new(run(&p.typed()))))
    }

    fn heaviest(&self) -> &'static str {
        "viewers=100000&seconds=300&chunk=1&progress_s=5&batch=1&leave=50&fail=60&db_ms=4999&sample=2000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "presence heartbeats and progress events written directly or buffered \
                      (1 s pipeline of chunked ZADDs; a per-user Map flushed in batches): \
                      Redis commands, round trips and database rows per second; a failed \
                      flush requeued",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.typed());
        Ok(crate::cli::emit(a, text(&r), || {
            serde_json::to_value(&r).expect("serialises")
        }))
    }
}
