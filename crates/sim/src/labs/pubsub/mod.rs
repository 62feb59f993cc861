//! The Pub/Sub lab (production slide 13): Socket.IO's Redis adapters across PM2 instances.
//!
//! `instances` API processes (PM2), `users` spread over them at random and over `rooms` by a
//! Zipf popularity (`alpha`; 0 spreads them evenly). Each instance has two Redis connections,
//! as the app's `redisPubClient` and `redisSubClient`: one publishes, one subscribes. Users join
//! in the first second; then `rate` chat messages a second for `seconds` seconds, each from a
//! random user to the room it is in. The sender's instance hands the message to its own
//! members of the room at once and publishes it for the others; every instance that receives
//! it from Redis hands it to its members of the room — or drops it: its own message coming
//! back ("same uid"), or a room it has nobody in ("unknown room").
//!
//! The three ways, each as the library does it (`@socket.io/redis-adapter` 8):
//!
//! * `plain` — `createAdapter`: every instance `PSUBSCRIBE socket.io#/#*`; a message to one
//!   room is `PUBLISH socket.io#/#<room># …`. Every instance receives every message.
//! * `static` — `createShardedAdapter(…, {subscriptionMode: "static"})`: every instance
//!   `SSUBSCRIBE socket.io#/#`; `SPUBLISH socket.io#/# …`. Still every instance receives every
//!   message: on one Redis that is not a cluster, a shard channel is just a channel.
//! * `dynamic` (the sharded adapter's default) — one channel per room as well: an instance
//!   `SSUBSCRIBE socket.io#/#<room>#` when its first member joins the room ("create-room") and
//!   a message to one room is `SPUBLISH socket.io#/#<room># …`, so only instances with a
//!   member of the room receive it. The saving comes from these per-room channels, not from
//!   `SSUBSCRIBE` itself (issue 21's correction).
//!
//! What it counts: messages Redis pushed to instances (deliveries), those an instance dropped
//! (wasted: its own echo, or a room it has nobody in), the sockets reached, and — with one
//! instance's subscriber connection gone for `away` ms — the messages its users never got:
//! Pub/Sub keeps nothing, so a message published while nobody listens is gone (a Stream keeps
//! it). The run computes all three adapters with the same users and messages (the comparison
//! table) and records the chosen one in detail (the timeline, the instances, the log).
//!
//! Every command is a real SimRedis command through the world engine ([`crate::world`]); a
//! subscriber's pushes are read from SimRedis' inbox as a client reads them, and reach the
//! instance one network hop later.

/// Its practice questions.
pub mod practice;

mod model;
mod result;
mod run;
#[cfg(test)]
mod tests;

pub use result::*;
pub use run::{run, PubSubRun};

use super::lab::{erase, AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::{choice, float, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The three adapters, in the comparison's order.
pub const ADAPTERS: [&str; 3] = ["plain", "static", "dynamic"];

/// The lab's fields; the defaults are the app's setup (six PM2 instances, the sharded adapter
/// in its default mode).
pub const FIELDS: &[Field] = &[
    choice("adapter", "adapter", &ADAPTERS, "dynamic"),
    int("instances", "ইনস্ট্যান্স (PM2)", 1, 16, "6"),
    int("rooms", "রুম", 1, 2000, "200"),
    int("users", "ইউজার", 1, 20_000, "1200"),
    float("alpha", "রুমের জনপ্রিয়তা (Zipf α, ০ = সমান)", 0.0, 2.0, "1.0"),
    int("rate", "মেসেজ / সেকেন্ড", 1, 500, "100"),
    int("seconds", "মেসেজ চলে (সেকেন্ড)", 1, 30, "10"),
    int("away_at", "api-1 সরে যায় (ms, মেসেজ শুরুর পরে)", 0, 60_000, "3000"),
    int("away", "api-1 কতক্ষণ নেই (ms, ০ = নেই)", 0, 60_000, "0"),
    seed("13"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PubSubParams {
    /// `plain`, `static` or `dynamic`.
    pub adapter: String,
    /// API instances.
    pub instances: u32,
    /// Rooms.
    pub rooms: u32,
    /// Users.
    pub users: u32,
    /// Zipf exponent of the rooms' popularity (0: even).
    pub alpha: f64,
    /// Messages per second, all rooms together.
    pub rate: u32,
    /// How long messages are sent, s.
    pub seconds: u32,
    /// When api-1's subscriber connection drops, ms after the messages start.
    pub away_at: u64,
    /// How long it is gone, ms (0: never).
    pub away: u64,
    /// Seed of the users' rooms and instances and the messages' senders.
    pub seed: u32,
}

impl Default for PubSubParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl PubSubParams {
    /// The same setup with another adapter.
    pub fn with_adapter(&self, adapter: &str) -> Self {
        PubSubParams {
            adapter: adapter.into(),
            ..self.clone()
        }
    }
}

/// The slide's steps.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "plain",
        label: "সাধারণ adapter",
        about: "প্রতিটা মেসেজ ছয়টা ইনস্ট্যান্সই পায় — যার রুমে কেউ নেই সেও পায়, পেয়ে ফেলে দেয়",
        pairs: &[("adapter", "plain")],
    },
    Preset {
        id: "sharded",
        label: "sharded adapter (রুমপ্রতি চ্যানেল)",
        about: "রুমপ্রতি আলাদা চ্যানেল: মেসেজ পায় কেবল সেই ইনস্ট্যান্সগুলো, যাদের কাছে রুমের কেউ আছে",
        pairs: &[("adapter", "dynamic")],
    },
    Preset {
        id: "static",
        label: "SSUBSCRIBE, কিন্তু এক চ্যানেল",
        about: "sharded adapter-এর static মোড: SSUBSCRIBE-ই, তবু সবাই সব পায় — এক Redis-এ সাশ্রয়টা আসে রুমপ্রতি চ্যানেল থেকে",
        pairs: &[("adapter", "static")],
    },
    Preset {
        id: "small-rooms",
        label: "ছোট ছোট রুম",
        about: "৪০০টা রুমে গড়ে ৩ জন — বেশির ভাগ রুম দু-একটা ইনস্ট্যান্সে, রুমপ্রতি চ্যানেলে বাঁচে সবচেয়ে বেশি",
        pairs: &[("adapter", "dynamic"), ("rooms", "400"), ("alpha", "0")],
    },
    Preset {
        id: "one-class",
        label: "একটাই বড় ক্লাস",
        about: "সবাই এক রুমে — সব ইনস্ট্যান্সেই সদস্য আছে, রুমপ্রতি চ্যানেলে কিছুই বাঁচে না",
        pairs: &[("adapter", "dynamic"), ("rooms", "1")],
    },
    Preset {
        id: "away",
        label: "api-1 দুই সেকেন্ড নেই",
        about: "api-1-এর subscriber সংযোগ ২ সেকেন্ড ছিন্ন — সেই সময়ের মেসেজ তার ইউজাররা কখনো পায় না: Pub/Sub কিছুই রাখে না",
        pairs: &[("adapter", "dynamic"), ("away", "2000")],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "pubsub",
    title: "Pub/Sub — ছয় ইনস্ট্যান্স, অনেক রুম",
    blurb: "Socket.IO-র সাধারণ adapter বনাম sharded adapter: কোন ইনস্ট্যান্স কোন মেসেজ পায়, কতটা অকারণে, আর কেউ না শুনলে মেসেজের কী হয়",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["run"],
    live: false,
};

/// The lab's runner.
pub struct PubSubLab;

/// The registry's entry.
pub static LAB: PubSubLab = PubSubLab;

impl Lab for PubSubLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(PubSubRun::new(&p.typed())))
    }

    fn heaviest(&self) -> &'static str {
        "instances=16&users=20000&rooms=2000&alpha=0&rate=500&seconds=30&away=10000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "Socket.IO's Redis adapters across PM2 instances: the plain adapter (PSUBSCRIBE, \
                      every instance gets every message) against the sharded one (static: one shard \
                      channel; dynamic: one per room), deliveries and wasted deliveries, and what a \
                      message published while an instance is away becomes",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.typed());
        Ok(crate::cli::emit(a, r.text(), || r.to_json()))
    }
}
