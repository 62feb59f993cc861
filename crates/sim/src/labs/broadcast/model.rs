//! The broadcast's simulation, in three parts:
//!
//! * [`actors`] — the API (the admin's clicks, the dedup key, the broadcast job) and `Bcast`,
//!   everything outside Redis (FCM, Postgres, the page cursor), the record of what each token
//!   got, and the queue's processor for the broadcast and batch jobs;
//! * [`scenario`] — the broadcast as a [`Scenario`](crate::labs::scenario::Scenario) on any
//!   backend (the simulation and a live run build the same actors), the naive loop's closed
//!   form, and the analysis of a world's trace into the lab's output;
//! * [`live`] — what a live run against a real Redis runs (the parameters scaled down).

pub mod actors;
pub mod live;
pub mod scenario;

pub use actors::is_dead;
pub use live::{LIVE_BLOCK_MS, LIVE_CONCURRENCY, LIVE_TOKENS};
pub use scenario::{
    live_run, naive_result, run, sim, BroadcastLive, BroadcastScenario, BroadcastSim,
};
