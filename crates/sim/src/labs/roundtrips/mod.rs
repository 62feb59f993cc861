//! The round-trips lab (production slide 15): presence's four commands — `PFADD`, `ZCARD`,
//! `ZADD`, `EXPIRE`, with "is the room under the limit?" between the second and the third —
//! sent five ways, under a round trip the student sets, by several clients marking new
//! viewers into a room that has one place left:
//!
//! * **one by one**: four round trips; the check happens in the client, so another client's
//!   `ZADD` can land between our `ZCARD` and our `ZADD` — the room ends over the limit;
//! * **pipeline**: one round trip, but the `ZADD` is sent before the `ZCARD`'s answer is
//!   known, so the check cannot stop it; nothing makes the four atomic either (here each
//!   pipeline reaches Redis in one read and runs back to back — Redis promises no more);
//! * **MULTI/EXEC**: one round trip and atomic — nothing runs between — but the `ZCARD`'s
//!   answer comes only with `EXEC`'s array, so the write is unconditional too;
//! * **WATCH + MULTI**: the way a transaction can read first: `WATCH` and `ZCARD` (one
//!   round trip), then `MULTI … EXEC` (another); `EXEC` answers nil when someone touched the
//!   room meanwhile, and the client tries again;
//! * **script**: `EVALSHA` of the `markactive` script — one round trip, the check inside
//!   Redis, nothing between.
//!
//! With the room's key holding the wrong type (`room_type=string`), every way stops part-way
//! and keeps what it wrote before the error — no rollback, in a script or in `EXEC`.
//!
//! The clients are one [`world::Model`](crate::world::Model) on the one engine: each sends a
//! batch of commands (a pipeline is a batch of several, sent at once over one connection, so
//! they reach Redis together and in order) and decides the next batch when the last reply
//! of this one is back. One run simulates all five ways on the same seed, so the view's table
//! compares them; the picture draws the chosen one.

/// Its practice questions.
pub mod practice;

mod model;
mod result;
#[cfg(test)]
mod tests;

pub use model::{run, run_mode, scenario, text, Clients, Way, WayScenario};
pub use result::*;

use super::lab::{erase, CliSpec, Job, Lab, LabInfo, Ready};
use super::params::{choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The room's sorted set.
pub const ROOM: &str = "presence:room:42";
/// The room's HyperLogLog bucket.
pub const HLL: &str = "hll:room:42";
/// The sorted set's TTL, seconds (`EXPIRE room 120`).
pub const ROOM_TTL: u64 = 120;
/// How many times a WATCH client tries before it gives up.
pub const MAX_TRIES: u32 = 10;

/// The ways, as the `mode` field names them, in the table's order.
pub const MODES: &[&str] = &["one-by-one", "pipeline", "multi", "watch", "script"];

/// The lab's fields.
pub const FIELDS: &[Field] = &[
    choice("mode", "কোন পথে", MODES, "one-by-one"),
    int("rtt", "রাউন্ড-ট্রিপ (ms)", 1, 500, "10"),
    int("clients", "একসাথে কতজন ক্লায়েন্ট", 1, 8, "2"),
    int("spread", "শুরুর ফারাক, সর্বোচ্চ (ms)", 0, 2_000, "5"),
    int("room", "রুমে আগে থেকে (জন)", 0, 1_000, "499"),
    int("limit", "ZSET-এর সীমা", 1, 1_000, "500"),
    choice("room_type", "রুমের key-এর টাইপ", &["zset", "string"], "zset"),
    seed("0"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundTripsParams {
    /// The way the picture shows (`one-by-one`, `pipeline`, `multi`, `watch`, `script`).
    pub mode: String,
    /// Round trip between a client and Redis, ms.
    pub rtt: u64,
    /// Clients marking a new viewer each.
    pub clients: u32,
    /// The clients start at seeded times in `0..=spread` ms.
    pub spread: u64,
    /// Members in the room before.
    pub room: u32,
    /// The sorted set's limit (the script's `ARGV[3]`).
    pub limit: u32,
    /// `zset`, or `string`: the room's key holds a string (a bug elsewhere), so `ZCARD` fails.
    pub room_type: String,
    /// Seed of the clients' start times.
    pub seed: u32,
}

impl Default for RoundTripsParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl RoundTripsParams {
    /// The way the picture shows.
    pub fn way(&self) -> Way {
        Way::from_id(&self.mode).unwrap_or(Way::OneByOne)
    }
    /// The room's key holds the wrong type.
    pub fn broken_room(&self) -> bool {
        self.room_type == "string"
    }
}

/// The presets: one per way, and the error that shows there is no rollback.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "one-by-one",
        label: "একটা একটা করে",
        about: "চার কমান্ড, চার রাউন্ড-ট্রিপ; যাচাই ক্লায়েন্টে, তাই ফাঁকে অন্যজনের ZADD ঢুকে রুম সীমা ছাড়ায়",
        pairs: &[("mode", "one-by-one")],
    },
    Preset {
        id: "pipeline",
        label: "pipeline",
        about: "এক রাউন্ড-ট্রিপ, কিন্তু ZCARD-এর উত্তর আসার আগেই ZADD চলে গেছে — যাচাই কিছুই থামায় না",
        pairs: &[("mode", "pipeline")],
    },
    Preset {
        id: "multi",
        label: "MULTI/EXEC",
        about: "এক রাউন্ড-ট্রিপ, মাঝে কেউ ঢোকে না; তবু ZCARD-এর উত্তর আসে EXEC-এর সাথে, লেখা শর্তহীন",
        pairs: &[("mode", "multi")],
    },
    Preset {
        id: "watch",
        label: "WATCH + MULTI",
        about: "আগে WATCH আর ZCARD, তারপর MULTI…EXEC; কেউ রুম ছুঁলে EXEC nil, ক্লায়েন্ট আবার চেষ্টা করে",
        pairs: &[("mode", "watch")],
    },
    Preset {
        id: "script",
        label: "Lua স্ক্রিপ্ট",
        about: "এক রাউন্ড-ট্রিপ, যাচাই আর লেখা Redis-এর ভেতরে এক টানে — রুম ঠিক সীমায় থামে",
        pairs: &[("mode", "script")],
    },
    Preset {
        id: "no-rollback",
        label: "মাঝপথে এরর",
        about: "রুমের key-এ ভুল টাইপ: ZCARD এরর দেয়, কিন্তু আগের PFADD থেকে যায় — স্ক্রিপ্টেও rollback নেই",
        pairs: &[("mode", "script"), ("room_type", "string")],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "roundtrips",
    title: "চার কমান্ড, এক রাউন্ড-ট্রিপ",
    blurb: "একটা একটা করে, pipeline, MULTI/EXEC, WATCH আর Lua স্ক্রিপ্ট — কত রাউন্ড-ট্রিপ, আর ফাঁকে অন্য ক্লায়েন্ট লিখলে কী হয়",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["ways"],
    live: false,
};

/// The lab's runner.
pub struct RoundTripsLab;

/// The registry's entry.
pub static LAB: RoundTripsLab = RoundTripsLab;

impl Lab for RoundTripsLab {
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
        "mode=watch&rtt=500&clients=8&spread=0"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "presence's four commands one by one, pipelined, in MULTI/EXEC, with \
                      WATCH and as one script: round trips, the room's size against its limit",
            skip: &["mode"],
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
