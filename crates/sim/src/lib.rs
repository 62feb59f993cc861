//! Redis Lab simulation core: pure Rust, seeded, deterministic, no web dependencies.
//!
//! * [`rng`] — mulberry32 (bit-exact with the seeds' JavaScript), Zipf, Poisson gaps.
//! * [`eviction`] — cache replacement policies behind one [`Policy`] trait, the seed's
//!   traces, runner and comparison table, the LRU step-through, miss-ratio curves and the
//!   sampled-LRU experiment.
//! * [`labs`] — the TTL-jitter and cache-stampede simulations of seed 001 (§5, §7).
//! * [`jsfmt`] — JavaScript-exact number formatting, so the command-line front end
//!   (`labsim`) prints the seeds' tables to the last digit; `--json` output is serde_json.
//! * [`cli`] — the small argument parser `labsim` uses.
//! * [`bn`] — the one way to write a number for a student (Bengali digits, Indian grouping);
//!   the deck crate re-exports it as `redislab_deck::bn`.
//! * [`class`] — class mode's wire (the pages ↔ proxy messages) and its pure parts: join
//!   codes, pseudonyms, the answer chart, a practice set's report.
//! * [`practice`] — questions the simulator writes from a seed and grades (predict, then run).
//! * [`redis`] — SimRedis, an in-memory model of the Redis 7 commands the labs use, on a
//!   virtual clock, with RESP-typed replies and Redis' own error texts.
//! * [`world`] — virtual time for actors that speak Redis: an event queue ordered by
//!   (time, insertion sequence), per-hop latency, a replayable trace, and a [`world::Backend`]
//!   trait so the same actors can later be driven against a real Redis.
//!
//! Every random choice comes from an owned, seeded [`Mulberry32`]; all float maths beyond
//! IEEE arithmetic goes through `libm`, so native and wasm runs are bit-identical.

#![warn(missing_docs)]

pub mod bn;
pub mod class;
pub mod cli;
pub mod eviction;
pub mod jsfmt;
pub mod labs;
pub mod practice;
pub mod queue;
pub mod redis;
pub mod rng;
pub mod wire;
pub mod world;

pub use eviction::lru_trace::{lru_trace, Op, OpKind, TraceStep};
pub use eviction::mrc::{mrc, Curve};
pub use eviction::runner::{eviction_table, EvictionConfig, EvictionRow, EvictionTable};
pub use eviction::sampling::{sampling_point, sampling_quality, SamplingPoint};
pub use eviction::{
    by_name, run, Access, Policy, PolicyInfo, Replay, Spec, Stats, Step, Trace, TraceKind,
    TraceSpec, UnknownPolicy, POLICIES,
};
pub use labs::jitter::{JitterConfig, JitterWave};
pub use labs::stampede::{Mode, StampedeConfig, StampedeSim, StampedeSummary};
pub use redis::{Reply, SimRedis};
pub use rng::{exp_gap, Mulberry32, Zipf};

/// A JSON object from `(key, value)` pairs (for `labsim --json`, written by serde_json).
pub fn obj<const N: usize>(pairs: [(&str, serde_json::Value); N]) -> serde_json::Value {
    serde_json::Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}
