//! The invalidation lab (production slides 8–10, broadcast steps 24–25): four ways to make
//! cached keys unreachable after a change, each run by actors speaking real commands to one
//! SimRedis holding the same keyspace, side by side:
//!
//! * **del** — the key's name is known: the app `DEL`s the four keys of one student and one
//!   course (auth, the student-course pair `invalidateCourseStudentAccess` drops, the
//!   course's context, the chat restriction) the bulk way, `Promise.allSettled`: all four
//!   sent at once, one on a stalled connection whose client gives up — that one is reported
//!   rejected, the other three go through regardless (and Redis still ran the late one when
//!   it arrived: a timeout says nothing about whether a command ran);
//! * **scan-del** — the names are not known: `SCAN 0 MATCH cache:course-catalog:v1:list:*
//!   COUNT n` from cursor to cursor, a `DEL` of each page's keys; many round trips, the
//!   whole keyspace walked, and keys written while the walk runs may be missed (SCAN
//!   guarantees only the keys present from start to end) — those then serve stale lists;
//! * **version** — one `INCR cache:course-catalog:v1:version` (41 → 42): every list key
//!   named `…:v41` is orphaned, no SCAN; the next requests build `…:v42` names, load from
//!   the database and fill them, and the orphans leave on their TTL (30 s);
//! * **two-versions** — `my-courses` keys carry the student's version and the catalog's
//!   (`…:sv3:cv41`), read by one `MGET`. A student's purchase and an admin's course edit are
//!   run against three designs (the course version only, the student version only, both) on
//!   a sample of students; what each design invalidates and loads is scaled to the viewers
//!   (5,00,000 by default): course-only sends everyone to the database for one purchase,
//!   student-only never shows the edit, both invalidate only what changed.
//!
//! Each way's database loads are counted where they happen: a reader's cache miss is a load
//! (and a `SET … EX` of the result); a hit on a key filled before the change is a stale read.
//!
//! No live mode: the SCAN walk needs `SCAN`, which the proxy does not pass, and the lab's
//! keyspace view reads SimRedis' keys directly between commands.

/// Its practice questions.
pub mod practice;

mod model;
mod result;
#[cfg(test)]
mod tests;

pub use model::{run, scenario, text, Design, InvalRun, InvalScenario, Way};
pub use result::*;

use super::lab::{erase, CliSpec, Job, Lab, LabInfo};
use super::params::{choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The catalog's version key.
pub const CATALOG_VERSION: &str = "cache:course-catalog:v1:version";
/// The pattern a SCAN walk matches.
pub const CATALOG_PATTERN: &str = "cache:course-catalog:v1:list:*";
/// The catalog's version before the edit.
pub const CV0: i64 = 41;
/// The student's my-courses version before the purchase.
pub const SV0: i64 = 3;
/// TTL of a catalog list and of a my-courses list, s (the seed's TTL table).
pub const LIST_TTL_S: u64 = 30;
/// Students in the two-versions sample (each stands for `viewers / SAMPLE` of them).
pub const SAMPLE: u32 = 100;

/// The actions, as the `action` field names them, in the table's order.
pub const ACTIONS: &[&str] = &["del", "scan-del", "version", "two-versions"];

/// The lab's fields.
pub const FIELDS: &[Field] = &[
    choice("action", "কোন কৌশল", ACTIONS, "version"),
    int("lists", "ক্যাটালগের লিস্ট key (v41)", 10, 5_000, "1000"),
    int("others", "keyspace-এ অন্য key", 0, 5_000, "1000"),
    int("count", "SCAN-এর COUNT", 10, 1_000, "10"),
    int("rtt", "রাউন্ড-ট্রিপ (ms)", 1, 50, "1"),
    int("write_ms", "SCAN চলাকালে নতুন লিস্ট লেখা, প্রতি কত ms-এ (০ = লেখা নেই)", 0, 1_000, "5"),
    int("viewers", "দর্শক (স্টুডেন্ট)", 1_000, 10_000_000, "500000"),
    seed("0"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalParams {
    /// The action the picture shows (one of [`ACTIONS`]).
    pub action: String,
    /// Catalog list keys of version 41 in the keyspace.
    pub lists: u32,
    /// Other keys in the keyspace (auth, membership, live-class lists).
    pub others: u32,
    /// SCAN's COUNT.
    pub count: u32,
    /// Round trip between the app and Redis, ms.
    pub rtt: u64,
    /// While the SCAN walk runs, a request fills a new list key every this many ms (0: none).
    pub write_ms: u64,
    /// Students watching (the two-versions figures are scaled to them).
    pub viewers: u64,
    /// Seed of the list keys' names and remaining TTLs and the reads' times.
    pub seed: u32,
}

impl Default for InvalParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

/// The presets: one per action.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "del",
        label: "জানা key — DEL",
        about: "চারটা জানা key একসাথে মোছা (allSettled): একটা টাইমআউট হলেও বাকি তিনটা মোছে",
        pairs: &[("action", "del")],
    },
    Preset {
        id: "scan-del",
        label: "SCAN করে DEL",
        about: "লিস্টের key খুঁজতে গোটা keyspace ঘোরা: শত শত রাউন্ড-ট্রিপ, আর চলার সময় লেখা key বাদ পড়ে",
        pairs: &[("action", "scan-del")],
    },
    Preset {
        id: "version",
        label: "ভার্সন বাম্প — INCR",
        about: "একটা INCR, 41 → 42: সব v41 লিস্ট অনাথ, SCAN শূন্য; TTL-এ তারা নিজেরাই সরে",
        pairs: &[("action", "version")],
    },
    Preset {
        id: "two-versions",
        label: "দুই ভার্সন — sv আর cv",
        about: "এক MGET-এ sv আর cv: কেনাকাটায় বাতিল এক স্টুডেন্টের key, কোর্স এডিটে সবার",
        pairs: &[("action", "two-versions")],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "invalidation",
    title: "ক্যাশ ইনভ্যালিডেশন: DEL, SCAN না ভার্সন",
    blurb: "জানা key মোছা, SCAN করে খুঁজে মোছা, INCR-এ ভার্সন বাড়ানো আর দুই ভার্সনের key — কত key অচল, কত রাউন্ড-ট্রিপ, পরে ডেটাবেসে কত চাপ",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["all"],
    live: false,
};

/// The lab's runner.
pub struct InvalidationLab;

/// The registry's entry.
pub static LAB: InvalidationLab = InvalidationLab;

impl Lab for InvalidationLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn super::lab::AnyRun>, String> {
        Ok(erase(InvalRun::new(&p.typed())))
    }

    fn heaviest(&self) -> &'static str {
        "action=scan-del&lists=5000&others=5000&count=10&rtt=50&write_ms=1"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "cache invalidation four ways on one keyspace: DEL of known keys, SCAN + \
                      DEL, a version bump with INCR, two versions read by MGET: keys made \
                      unreachable, round trips, database loads after",
            skip: &["action"],
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
