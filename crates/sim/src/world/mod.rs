//! The world: actors that speak Redis, in virtual time — the one event engine every lab that
//! talks to Redis runs on.
//!
//! * A virtual clock and an event queue ordered by `(time, insertion sequence)`, so two
//!   events at the same millisecond always run in the order they were scheduled (desque's
//!   rule); nothing depends on a hash order or the wall clock.
//! * A [`Model`] is the lab's side: it reacts to its own timers ([`Model::on_timer`]) and to
//!   the outcome of each command it sent ([`Model::on_reply`]: a reply, a refused connection,
//!   or its own timeout running out). A model may have any number of commands in flight, from
//!   any number of simulated processes ("actors": API instances, workers, producers), and
//!   may keep its own command log ([`Model::on_logged`]: each command when Redis ran or
//!   refused it, or when its sender gave up).
//! * [`Actors`] is the model most labs want: a set of [`Actor`] state machines, each with one
//!   command or sleep outstanding (`World<B>` is `World<B, Actors>`; [`World::add`] adds one).
//! * "What to send next" (the model) is kept apart from "who answers" (a [`Backend`]):
//!   [`SimRedis`] answers in virtual time; [`LiveRedis`] hands the same commands to a real
//!   Redis (through the proxy) and delivers the real replies when they come ([`live`]);
//!   [`Nodes`] is several SimRedis servers (independent primaries, or a primary and its
//!   asynchronous replica) with crashes, failover and clock jumps planned in virtual time.
//! * Each actor has its own network hop ([`Hop`]: one-way latency each way plus seeded
//!   jitter) and the link to Redis has a [`Health`] (healthy, slow, down), so a lab shows a
//!   slow or absent Redis with the same actors.
//! * Every event can be written to a [`Trace`] (step, time, actor, command, reply, what the
//!   actor chose), which the views render. Rewinding to step `n` re-runs the same scenario from
//!   its seed up to that step ([`World::run_to_step`]): runs are pure functions of the seed, so
//!   this is exact and needs no snapshots.
//!
//! The queue is `std`'s `BinaryHeap` over `(time, seq)`; the traits are ours because the
//! simulation crates that exist (desque, nexosim, …) bring their own runtimes and models where
//! we need a few lines that mirror the labs' vocabulary.

mod actors;
mod backend;
mod engine;
pub mod live;
mod nodes;

pub use actors::{Action, Actor, ActorTimer, Actors, Ctx, Input};
pub use backend::{Backend, Delivery, LiveRedis, Sent, To};
pub use engine::{Health, Io, Logged, Model, OpId, Outcome, Ran, World};
pub use live::LiveWorld;
pub use nodes::{Fault, Nodes};

use crate::redis::Reply;
#[cfg(test)]
use crate::redis::SimRedis;
use serde::Serialize;

/// Index of an actor in its world. Redis sees actor `i` as client `i + 1`.
pub type ActorId = usize;

/// One Redis command: its words.
pub type Command = Vec<Vec<u8>>;

/// A command from text words, e.g. `cmd(&["SET", "lock", "tok", "NX", "PX", "1000"])`.
pub fn cmd(words: &[&str]) -> Command {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// The network between one actor and Redis: one-way latency each way, plus up to
/// `jitter_ms` more per hop, drawn from the world's seeded RNG.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hop {
    /// Actor → Redis, ms.
    pub to_redis_ms: u64,
    /// Redis → actor, ms.
    pub from_redis_ms: u64,
    /// Extra delay per hop, uniform in `0..=jitter_ms`.
    pub jitter_ms: u64,
}

impl Hop {
    /// The same latency both ways, no jitter.
    pub fn symmetric(ms: u64) -> Self {
        Self {
            to_redis_ms: ms,
            from_redis_ms: ms,
            jitter_ms: 0,
        }
    }

    /// A scenario lab's hop: 1 ms each way with up to 2 ms of jitter when simulated, none in
    /// a live run (`live`: the real network is in the round trips).
    pub fn lan(live: bool) -> Self {
        if live {
            Hop::default()
        } else {
            Hop {
                to_redis_ms: 1,
                from_redis_ms: 1,
                jitter_ms: 2,
            }
        }
    }
}

/// One entry of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceEvent {
    /// Position in the trace (0-based).
    pub step: usize,
    /// Virtual time, ms.
    pub at_ms: u64,
    /// The actor concerned.
    pub actor: ActorId,
    /// What happened.
    pub what: What,
}

/// What a trace entry records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum What {
    /// The actor got `input` and chose `action` ([`Actors`] only).
    Act {
        /// What happened to it.
        input: Input,
        /// What it chose.
        action: Action,
    },
    /// The actor's command reached Redis: the reply, or `None` when the client blocks (or,
    /// live, until the real reply comes).
    Exec {
        /// The command.
        #[serde(serialize_with = "ser_cmd")]
        cmd: Command,
        /// Redis' reply, `None` while blocked.
        reply: Option<Reply>,
    },
    /// A blocked command of the actor got its reply (a push, or the timeout), or a live
    /// command's real reply came.
    Unblocked {
        /// The reply.
        reply: Reply,
    },
    /// The actor's command found no Redis to connect to (the link is down).
    Refused {
        /// The command.
        #[serde(serialize_with = "ser_cmd")]
        cmd: Command,
    },
    /// The actor stopped waiting for its command's reply.
    TimedOut {
        /// The command.
        #[serde(serialize_with = "ser_cmd")]
        cmd: Command,
        /// How long it had waited, ms.
        after_ms: u64,
    },
}

/// The trace of a run.
pub type Trace = Vec<TraceEvent>;

fn ser_cmd<S: serde::Serializer>(cmd: &Command, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(cmd.iter().map(|w| String::from_utf8_lossy(w)))
}

/// A command as `redis-cli` would echo it.
pub fn show_cmd(cmd: &[Vec<u8>]) -> String {
    cmd.iter()
        .map(|w| {
            let s = String::from_utf8_lossy(w);
            if s.is_empty() || s.contains([' ', '"', '\'']) {
                format!("{s:?}")
            } else {
                s.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
