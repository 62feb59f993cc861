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

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, PubSubSim};
pub use output::{Bucket, Fate, Instance, Line, PubSubOutput, Push, Summary};
pub use params::{Adapter, PubSubParams};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the three adapters on the same users and messages.
    pub struct PubSubRun = "run", () => PubSubOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = PubSubRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "pubsub",
    title: "Pub/Sub — ছয় ইনস্ট্যান্স, অনেক রুম",
    blurb: "Socket.IO-র সাধারণ adapter বনাম sharded adapter: কোন ইনস্ট্যান্স কোন মেসেজ পায়, কতটা অকারণে, আর কেউ না শুনলে মেসেজের কী হয়",
    fields: PubSubParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<PubSubParams>,
    runs: &[PubSubRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct PubSubLab;

/// The registry's entry.
pub static LAB: PubSubLab = PubSubLab;

impl Lab for PubSubLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(PubSubRun::erase(PubSubSim::new(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "instances=16&users=20000&rooms=2000&alpha=0&rate=500&seconds=30&away=10000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new("Socket.IO's Redis adapters across PM2 instances: the plain adapter (PSUBSCRIBE, \
                      every instance gets every message) against the sharded one (static: one shard \
                      channel; dynamic: one per room), deliveries and wasted deliveries, and what a \
                      message published while an instance is away becomes")
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.read());
        Ok(crate::cli::emit(a, text(&r), || {
            serde_json::to_value(&r).unwrap_or_default()
        }))
    }
}

/// The comparison and the chosen adapter's instances as text (`labsim pubsub`).
pub fn text(r: &PubSubOutput) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} instances, {} users in {} rooms (alpha {}; biggest room {}, {} rooms on every \
         instance), {} messages/s for {} s\n\n",
        p.instances,
        p.users,
        r.rooms_used,
        p.alpha,
        r.biggest_room,
        r.rooms_everywhere,
        p.rate,
        p.seconds
    );
    out.push_str(
        "adapter   publishes  deliveries  /s        wasted   /s        reached   lost  subscriptions\n",
    );
    for s in &r.compare {
        let mark = if s.adapter == p.adapter { "*" } else { " " };
        out.push_str(&format!(
            "{mark}{:<8} {:>9} {:>11} {:>9.1} {:>9} {:>9.1} {:>9} {:>6} {:>14}\n",
            s.adapter.word(),
            s.publishes,
            s.deliveries,
            s.per_sec(s.deliveries),
            s.wasted,
            s.per_sec(s.wasted),
            s.reached,
            s.lost,
            s.subscriptions
        ));
    }
    out.push_str(&format!(
        "\n{} (chosen): wasted = {} own echoes + {} rooms with nobody there\n",
        r.summary.adapter, r.summary.echo, r.summary.no_member
    ));
    for (i, r) in r.instances.iter().zip(r.instances_so_far(usize::MAX)) {
        out.push_str(&format!(
            "  {:<7} users {:>5}  rooms {:>4}  subscriptions {:>4}  received {:>6}  dropped {:>6}\n",
            i.name, i.users, i.rooms, i.subscriptions, r.0, r.1
        ));
    }
    if let Some((from, to)) = r.away {
        out.push_str(&format!(
            "api-1's subscriber away {from}–{to} ms: {} sockets never got their message \
             (Pub/Sub keeps nothing)\n",
            r.summary.lost
        ));
    }
    out
}
