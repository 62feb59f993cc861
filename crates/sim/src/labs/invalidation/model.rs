//! The invalidation lab's simulation, by role:
//!
//! * [`actors`] — the actors of one action as one world model (the app's invalidation, the
//!   requests filling lists during a walk, the reads after the change) and what they count;
//! * [`scenario`] — one action as a [`Scenario`](crate::labs::scenario::Scenario) on any
//!   backend: the keyspace before the change, and what it holds at a moment;
//! * [`run`] — the lab's run: every action and design, a few events at a time, the keyspace
//!   and the counters looked at once a second.

pub mod actors;
pub mod run;
pub mod scenario;

pub use actors::{Inval, Tick, KNOWN};
pub use run::{run, InvalidationSim, WAYS};
pub use scenario::{scenario, InvalidationScenario};

use super::output::Design;

/// One action (and, for two versions, the design of the my-courses key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// `DEL` of the known keys, all at once.
    Del,
    /// `SCAN … MATCH` + `DEL` of each page.
    ScanDel,
    /// `INCR` of the catalog's version.
    Version,
    /// A purchase, then a course edit, with my-courses keys of this design.
    TwoVersions(Design),
}

/// The change is made at this virtual time, ms.
pub const T_CHANGE: u64 = 1_000;
/// Two versions: the admin's course edit, ms.
pub const T_EDIT: u64 = 12_000;
/// The stalled connection's hop each way, ms, and its client's timeout.
pub const STALL_MS: u64 = 250;
/// See [`STALL_MS`].
pub const TIMEOUT_MS: u64 = 100;
/// The most list keys the requests write while the walk runs.
pub const MAX_WRITES: u32 = 500;
