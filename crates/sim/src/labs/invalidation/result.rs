//! What a run of the invalidation lab shows, typed to the screen.

use super::InvalParams;
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// The keyspace at one moment, by group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Virtual time, ms.
    pub at_ms: u64,
    /// The four known keys still there.
    pub known: u32,
    /// Catalog lists named with the current version, alive: what a request finds.
    pub reachable: u32,
    /// Catalog lists named with an older version, alive: nobody asks for them.
    pub orphaned: u32,
    /// Catalog lists gone by their TTL.
    pub expired: u32,
    /// Catalog lists gone by a `DEL`.
    pub deleted: u32,
    /// Other keys, alive.
    pub others: u32,
    /// my-courses lists matching the current versions, alive.
    pub mc_reachable: u32,
    /// my-courses lists named with an older version, alive.
    pub mc_orphaned: u32,
}

/// One action's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionRun {
    /// The action's id (one of [`super::ACTIONS`]).
    pub action: String,
    /// The commands, in the order Redis ran them (or their sender gave up), at most
    /// [`LOG_MAX`] of them.
    pub log: Vec<CmdLine>,
    /// Commands in all (the log may stop earlier).
    pub commands: u32,
    /// The keyspace once a second.
    pub samples: Vec<Sample>,
    /// When the change was made (the invalidation starts), ms.
    pub start_ms: u64,
    /// When the invalidation's last reply was back, ms.
    pub done_ms: u64,
    /// Keys made unreachable by the invalidation (deleted, or orphaned by a new name).
    pub unreachable: u32,
    /// The invalidation's round trips.
    pub round_trips: u32,
    /// Of them, SCAN calls.
    pub scan_calls: u32,
    /// Keys the SCAN walk passed over (the keyspace at its start, and what came during).
    pub walked: u32,
    /// List keys written while the walk ran.
    pub written_during: u32,
    /// Of them, still there when the walk ended (SCAN did not return them).
    pub missed: u32,
    /// Bulk DEL: commands that settled fulfilled and rejected.
    pub fulfilled: u32,
    /// See [`ActionRun::fulfilled`].
    pub rejected: u32,
    /// Reads after the change.
    pub reads: u32,
    /// Database loads after the change (cache misses of those reads).
    pub db_loads: u32,
    /// Reads that got data from before the change.
    pub stale_reads: u32,
}

/// What one change does under one design of the my-courses key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effect {
    /// In the sample: the changed student's (or the editor's first viewer's) own key made
    /// unreachable (0 or 1).
    pub own_unreachable: u32,
    /// In the sample: the other students' keys made unreachable.
    pub others_unreachable: u32,
    /// In the sample: database loads of the reads after the change.
    pub sample_loads: u32,
    /// In the sample: reads that showed data from before the change.
    pub sample_stale: u32,
    /// Scaled to the viewers: keys made unreachable.
    pub unreachable: u64,
    /// Scaled to the viewers: database loads.
    pub db_loads: u64,
    /// Scaled to the viewers: stale reads.
    pub stale_reads: u64,
}

/// One design of the my-courses key under a purchase and a course edit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignRun {
    /// `course` (cv only), `student` (sv only), `both`.
    pub design: String,
    /// The key's name for the first student before any change.
    pub key: String,
    /// One student's purchase.
    pub purchase: Effect,
    /// An admin's course edit.
    pub edit: Effect,
    /// Round trips of a read (version read + list read).
    pub read_trips: u32,
}

/// The run: every action on the same keyspace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvalResult {
    /// The parameters.
    pub params: InvalParams,
    /// One per action, in [`super::ACTIONS`]' order.
    pub actions: Vec<ActionRun>,
    /// The two-versions designs: `course`, `student`, `both`.
    pub designs: Vec<DesignRun>,
}

/// The most log lines an action keeps.
pub const LOG_MAX: usize = 400;

impl InvalResult {
    /// The run of action `id`.
    pub fn action(&self, id: &str) -> Option<&ActionRun> {
        self.actions.iter().find(|a| a.action == id)
    }

    /// The action the picture shows.
    pub fn shown(&self) -> &ActionRun {
        self.action(&self.params.action).unwrap_or(&self.actions[0])
    }

    /// The design `id`.
    pub fn design(&self, id: &str) -> Option<&DesignRun> {
        self.designs.iter().find(|d| d.design == id)
    }
}
