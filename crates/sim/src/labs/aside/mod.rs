//! The cache-aside lab (patterns deck, slides 5–8; seed 003 "Cache-aside"): readers and
//! writers of one product row, the application's code in between — Redis only stores.
//!
//! * A reader asks for product 99 (or, `absent` percent of the time, for product 7777, which
//!   does not exist): `GET cache:product:99` → the row (a hit) → answered; `(nil)` (a miss) →
//!   `SELECT * FROM products WHERE id = 99` (the database is a timer: `db_ms`) → `SET
//!   cache:product:99 <row> EX <ttl>` → answered; then it thinks `read_every` ± 50 % (seeded)
//!   and asks again, until `duration`. A missing id is not in the database: without negative
//!   caching every read of it goes to the database; with it the reader writes `SET
//!   cache:product:7777 none EX <negative>` and the next reads are answered from Redis.
//! * A writer changes the row's price (`UPDATE products SET price = … WHERE id = 99`,
//!   `db_ms`, committed at its end), then either updates the cache in place (`write=update`:
//!   `SET cache:product:99 <its row> EX <ttl>`) or deletes it (`write=delete`: `DEL
//!   cache:product:99`). Writer B starts `write_gap` ms after A, C after B.
//! * One injectable pause freezes an actor in the gap that matters: writer A between its
//!   commit and its cache step (its first write), or reader r1 between its `SELECT` and its
//!   `SET` (its first miss of product 99). With update-in-place two writers then leave the
//!   older price in the cache; with delete the same pause is harmless, but a reader paused
//!   after reading the old row puts it back after the writer's `DEL` — the rarer race.
//! * Redis down: every command is refused (`ECONNREFUSED`) and each reader answers from the
//!   database — slower, but right.
//!
//! What it reads from the run: every command with its reply; the cache key's value over time
//! (from the commands: a `SET`, a `DEL` that deleted, the expiry) beside the database's
//! committed price; the *stale windows* — stretches in which `cache:product:99` held a price
//! the database no longer had — and the *stale reads* served from them, each with its age.
//! A TTL ends every stale window at the latest at its expiry; without one (`ttl=0`) a stale
//! value stays until the next write deletes or replaces it.
//!
//! The timeline's positions are the commands: position `n` shows the first `n` commands (the
//! last position everything), and `AsideResult::so_far(n)` equals the counters of the same
//! run stopped there (tested below).

/// Its practice questions.
pub mod practice;

mod actors;
mod result;
mod scenario;
#[cfg(test)]
mod tests;

pub use result::*;
pub use scenario::{live, run, run_text, sim, AsideLive, AsideRun, AsideScenario};

use super::lab::{erase, AnyRun, Broken, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::{broken, choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The product every writer changes.
pub const PRODUCT: u32 = 99;
/// A product that does not exist.
pub const MISSING: u32 = 7777;
/// Its row's name.
pub const NAME: &str = "Lamp";
/// The price in the database before any write.
pub const FIRST_PRICE: u32 = 1200;
/// Each write's price is this much above the last write begun.
pub const PRICE_STEP: u32 = 50;
/// The negative-cache marker.
pub const NONE: &str = "none";
/// Most reads a run may make (readers × duration ÷ read gap): keeps a run small.
pub const MAX_READS: u64 = 2_000;
/// A live run divides the long times (TTLs, the gaps between reads and between writes, the
/// run's length) by this; the short ones (database, pause, the writers' start) stay.
pub const LIVE_DIV: u64 = 100;
/// Guard against a run that never ends.
pub const MAX_STEPS: usize = 400_000;

/// The cache key of product `id`.
pub fn key(id: u32) -> String {
    format!("cache:product:{id}")
}

/// Product 99's row as the application serialises it.
pub fn row(price: u32) -> String {
    format!("{{\"id\":{PRODUCT},\"name\":\"{NAME}\",\"price\":{price}}}")
}

/// The price in a serialised row (`None`: not a row).
pub fn price_of(v: &[u8]) -> Option<u32> {
    let j: serde_json::Value = serde_json::from_slice(v).ok()?;
    u32::try_from(j.get("price")?.as_u64()?).ok()
}

/// The lab's fields: the seed's `EX 300`, one writer, delete on write.
pub const FIELDS: &[Field] = &[
    choice("write", "লেখার পরে ক্যাশ", &["delete", "update"], "delete"),
    int("ttl", "TTL (s, ০ = নেই)", 0, 3_600, "300"),
    int("readers", "পাঠক", 1, 6, "3"),
    int("read_every", "পাঠকের পড়ার ফাঁক (ms, গড়)", 500, 600_000, "5000"),
    int("writers", "লেখক", 0, 3, "1"),
    int("write_at", "প্রথম লেখা (ms)", 0, 600_000, "1000"),
    int("write_gap", "পরের লেখক আসে পরে (ms)", 0, 60_000, "100"),
    int("writes", "প্রতি লেখকের লেখা", 1, 20, "1"),
    int("write_every", "লেখার ফাঁক (ms)", 100, 600_000, "60000"),
    int("db_ms", "ডেটাবেসের সময় (ms)", 1, 5_000, "40"),
    choice("pause", "কে থমকায়", &["none", "writer", "reader"], "none"),
    int("pause_ms", "থমকানোর দৈর্ঘ্য (ms)", 0, 600_000, "300"),
    int("absent", "নেই-এমন id চাওয়া (%)", 0, 100, "0"),
    int("negative", "“none” ক্যাশের TTL (s, ০ = বন্ধ)", 0, 3_600, "0"),
    choice("redis", "Redis", &["up", "down"], "up"),
    int("duration", "চলবে (s)", 5, 900, "400"),
    seed("3"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AsideParams {
    /// `delete` or `update`.
    pub write: String,
    /// The row's TTL in the cache, s (0: none).
    pub ttl: u64,
    /// Readers.
    pub readers: u32,
    /// Mean gap between a reader's reads, ms.
    pub read_every: u64,
    /// Writers.
    pub writers: u32,
    /// Writer A's first write, ms.
    pub write_at: u64,
    /// Each next writer starts this much later, ms.
    pub write_gap: u64,
    /// Writes per writer.
    pub writes: u32,
    /// Gap between a writer's writes, ms.
    pub write_every: u64,
    /// A database query, ms.
    pub db_ms: u64,
    /// `none`, `writer` or `reader`.
    pub pause: String,
    /// The pause's length, ms.
    pub pause_ms: u64,
    /// Percent of reads asking for the missing product.
    pub absent: u32,
    /// TTL of the "none" marker, s (0: no negative caching).
    pub negative: u64,
    /// `up` or `down`.
    pub redis: String,
    /// Readers stop asking after this, s.
    pub duration: u64,
    /// Seed of the readers' choices and gaps and the network's jitter.
    pub seed: u32,
}

impl Default for AsideParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

/// Who pauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Pauser {
    /// Nobody.
    None,
    /// Writer A, between its first commit and its cache step.
    Writer,
    /// Reader r1, between its first `SELECT` of product 99 and its `SET`.
    Reader,
}

/// What a run runs: the parameters in milliseconds (a live run's long times divided by
/// [`LIVE_DIV`], everything × its time scale).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    /// Update the cache in place on write (else delete it).
    pub update: bool,
    /// The row's TTL, ms (0: none).
    pub ttl_ms: u64,
    /// Readers.
    pub readers: u32,
    /// Mean gap between a reader's reads, ms.
    pub read_every_ms: u64,
    /// Writers.
    pub writers: u32,
    /// Writer A's first write, ms.
    pub write_at_ms: u64,
    /// Each next writer's delay, ms.
    pub write_gap_ms: u64,
    /// Writes per writer.
    pub writes: u32,
    /// Gap between a writer's writes, ms.
    pub write_every_ms: u64,
    /// A database query, ms.
    pub db_ms: u64,
    /// Who pauses.
    pub pause: Pauser,
    /// For how long, ms.
    pub pause_ms: u64,
    /// Percent of reads for the missing product.
    pub absent: u32,
    /// The "none" marker's TTL, ms (0: off).
    pub negative_ms: u64,
    /// Redis refuses every connection.
    pub down: bool,
    /// Readers stop asking after this, ms.
    pub duration_ms: u64,
    /// The seed.
    pub seed: u32,
}

impl AsideParams {
    /// The run of these parameters, in milliseconds.
    pub fn setup(&self) -> Setup {
        Setup {
            update: self.write == "update",
            ttl_ms: self.ttl * 1000,
            readers: self.readers,
            read_every_ms: self.read_every,
            writers: self.writers,
            write_at_ms: self.write_at,
            write_gap_ms: self.write_gap,
            writes: self.writes,
            write_every_ms: self.write_every,
            db_ms: self.db_ms,
            pause: match self.pause.as_str() {
                "writer" => Pauser::Writer,
                "reader" => Pauser::Reader,
                _ => Pauser::None,
            },
            pause_ms: self.pause_ms,
            absent: self.absent,
            negative_ms: self.negative * 1000,
            down: self.redis == "down",
            duration_ms: self.duration * 1000,
            seed: self.seed,
        }
    }

    /// What a live run at time scale `k` runs: the TTLs, the gaps between reads and writes and
    /// the run's length divided by [`LIVE_DIV`] (a 300 s TTL lasts 3 s; a reader reads every
    /// 50 ms — at least 25 ms × readers apart, within the proxy's rate), the database, the
    /// pause and the writers' start as they are; then everything `k` times slower. The
    /// simulation of the same setup is the prediction.
    pub fn for_live(&self, k: u64) -> Setup {
        let k = k.max(1);
        let s = self.setup();
        let div = |ms: u64| ms / LIVE_DIV;
        Setup {
            ttl_ms: div(s.ttl_ms) * k,
            negative_ms: div(s.negative_ms) * k,
            read_every_ms: div(s.read_every_ms).max(25 * u64::from(s.readers)) * k,
            write_every_ms: div(s.write_every_ms).max(1) * k,
            duration_ms: div(s.duration_ms) * k,
            write_at_ms: s.write_at_ms * k,
            write_gap_ms: s.write_gap_ms * k,
            db_ms: s.db_ms * k,
            pause_ms: s.pause_ms * k,
            ..s
        }
    }
}

impl Setup {
    /// `EX <s>` (whole seconds) or `PX <ms>` for a TTL of `ms` (nothing for 0).
    pub fn expiry(ms: u64) -> Vec<String> {
        match ms {
            0 => Vec::new(),
            ms if ms % 1000 == 0 => vec!["EX".into(), (ms / 1000).to_string()],
            ms => vec!["PX".into(), ms.to_string()],
        }
    }

    /// Reads the run will make, about.
    pub fn reads(&self) -> u64 {
        u64::from(self.readers) * self.duration_ms / self.read_every_ms.max(1)
    }
}

fn rules(p: &Params) -> Result<(), Broken> {
    let n = |k: &str| u64::try_from(p.int(k)).unwrap_or(1).max(1);
    if n("readers") * n("duration") * 1000 / n("read_every") > MAX_READS {
        return Err(broken(
            "read_every",
            format!(
                "পাঠক × সময় ÷ পড়ার ফাঁক {MAX_READS}-এর বেশি পড়া হয় — ফাঁক বাড়ান বা সময় কমান"
            ),
        ));
    }
    Ok(())
}

/// The presets: the seed's three rules, each broken and kept, and its two dangers.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "basic",
        label: "সাধারণ",
        about: "প্রথম পড়া miss → ডেটাবেস → SET … EX 300; তারপর সব hit। লেখার পরে DEL, পরের পড়া নতুন দাম আনে",
        pairs: &[],
    },
    Preset {
        id: "update-race",
        label: "জায়গায় বদল: দুই লেখক",
        about: "A আগে লেখে কিন্তু থমকে দেরিতে ক্যাশ বসায় — ক্যাশে A-র পুরোনো দাম, ডেটাবেসে B-র নতুন; TTL পর্যন্ত বাসি",
        pairs: &[
            ("write", "update"),
            ("writers", "2"),
            ("pause", "writer"),
        ],
    },
    Preset {
        id: "delete",
        label: "লেখার পরে মোছো",
        about: "একই দুই লেখক, একই থমকানো — কিন্তু দুজনেই DEL করে; পরের পড়া ডেটাবেস থেকে নতুন দাম আনে",
        pairs: &[
            ("write", "delete"),
            ("writers", "2"),
            ("pause", "writer"),
        ],
    },
    Preset {
        id: "delete-race",
        label: "মোছাতেও race",
        about: "r1 পুরোনো সারি পড়ে থমকায়; এর মধ্যে লেখক বদলে DEL করে; r1 পুরোনোটাই বসায় — বাসি থাকে TTL পর্যন্ত",
        pairs: &[("pause", "reader"), ("write_at", "100")],
    },
    Preset {
        id: "short-ttl",
        label: "ছোট TTL",
        about: "একই race, TTL ৩০ সেকেন্ড: বাসি মানের আয়ু TTL-এর বেশি নয়",
        pairs: &[("pause", "reader"), ("write_at", "100"), ("ttl", "30")],
    },
    Preset {
        id: "no-ttl",
        label: "TTL ছাড়া",
        about: "দুই লেখকের race, কিন্তু SET-এ মেয়াদ নেই — বাসি দাম থেকে যায় চিরকাল (পরের লেখা পর্যন্ত)",
        pairs: &[
            ("write", "update"),
            ("writers", "2"),
            ("pause", "writer"),
            ("ttl", "0"),
        ],
    },
    Preset {
        id: "penetration",
        label: "নেই-এমন id",
        about: "৩০% পড়া চায় product 7777, যা ডেটাবেসেও নেই — প্রতিবার miss, প্রতিবার ডেটাবেস",
        pairs: &[("absent", "30")],
    },
    Preset {
        id: "negative",
        label: "“none” ক্যাশ",
        about: "একই পড়া, কিন্তু “নেই”-ও ৩০ সেকেন্ড ক্যাশে: SET cache:product:7777 none EX 30",
        pairs: &[("absent", "30"), ("negative", "30")],
    },
    Preset {
        id: "redis-down",
        label: "Redis বন্ধ",
        about: "প্রতিটা কমান্ড ECONNREFUSED — পাঠক সোজা ডেটাবেসে যায়: ধীর, কিন্তু ঠিক উত্তর",
        pairs: &[("redis", "down")],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "aside",
    title: "Cache-aside — hit, miss, বাসি মান",
    blurb: "পাঠক আর লেখক একটা product সারি নিয়ে — জায়গায় বদল বনাম মোছা, TTL-ই বাসি মানের সীমা, “none” ক্যাশ, Redis বন্ধ",
    fields: FIELDS,
    presets: PRESETS,
    rules,
    runs: &["run"],
    live: true,
};

/// The setup of `job`: shaped for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> (AsideParams, Setup) {
    let p: AsideParams = p.typed();
    let s = match job.live_scale {
        Some(k) => p.for_live(k),
        None => p.setup(),
    };
    (p, s)
}

/// The lab's runner.
pub struct AsideLab;

/// The registry's entry.
pub static LAB: AsideLab = AsideLab;

impl Lab for AsideLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let (p, s) = shaped(job, p);
        Ok(erase(sim(&p, &s)))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let (p, s) = shaped(job, p);
        Some(Box::new(live(&p, &s)))
    }

    /// Every reader and writer the fields allow, as many reads as the rule lets through.
    fn heaviest(&self) -> &'static str {
        "readers=6&read_every=2700&duration=900&writers=3&writes=20&write_every=20000&absent=30&negative=30&ttl=60"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "cache-aside: readers GET, miss, SELECT, SET … EX; writers update in place \
                      or DEL; a pause that makes the races; negative caching; Redis down (the \
                      commands, then the counters and the stale windows)",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: AsideParams = p.typed();
        let mut run = sim(&p, &p.setup());
        run.steps(usize::MAX);
        Ok(crate::cli::emit(a, run_text(&run), || {
            run.output().to_json()
        }))
    }
}
