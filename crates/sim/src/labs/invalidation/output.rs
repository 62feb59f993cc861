//! What the invalidation lab's run gives the view and `labsim --json` alike: every action on
//! the same keyspace (its log, the keyspace once a second, its totals) and the three designs
//! of the my-courses key. The timeline walks the shown action's seconds: position `k` is the
//! keyspace at `k` s (0: the start, before the change), the last the run's end. The counters
//! up to a second travel as the run's parts ([`ActionSeconds`], one per action as it
//! finishes): the output, which `labsim --json` prints, keeps the totals only.

use super::params::{Action, InvalidationParams};
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

crate::choices! {
    /// Which versions the my-courses key's name carries.
    pub enum Design {
        /// The catalog's (`cv`) only.
        Course = "course" / "শুধু কোর্সের ভার্সন (cv)",
        /// The student's (`sv`) only.
        Student = "student" / "শুধু স্টুডেন্টের ভার্সন (sv)",
        /// Both.
        Both = "both" / "দুটোই (sv আর cv)",
    }
}

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

/// What one action came to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionOutcome {
    /// The action.
    pub action: Action,
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
    /// See [`ActionOutcome::fulfilled`].
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
pub struct DesignOutcome {
    /// The design.
    pub design: Design,
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
pub struct InvalidationOutput {
    /// The parameters.
    pub params: InvalidationParams,
    /// One per action, in [`Action::ALL`]'s order.
    pub actions: Vec<ActionOutcome>,
    /// The two-versions designs, in [`Design::ALL`]'s order.
    pub designs: Vec<DesignOutcome>,
}

/// The most log lines an action keeps.
pub const LOG_MAX: usize = 400;

impl InvalidationOutput {
    /// What action `a` came to.
    pub fn action(&self, a: Action) -> &ActionOutcome {
        self.actions
            .iter()
            .find(|x| x.action == a)
            .expect("every action runs")
    }

    /// The action the picture shows.
    pub fn shown(&self) -> &ActionOutcome {
        self.action(self.params.action)
    }

    /// What design `d` came to.
    pub fn design(&self, d: Design) -> &DesignOutcome {
        self.designs
            .iter()
            .find(|x| x.design == d)
            .expect("every design runs")
    }
}

impl ActionOutcome {
    /// The keyspace at position `k` (`k` s; the last sample past the end).
    pub fn sample_at(&self, k: usize) -> Option<&Sample> {
        self.samples.get(k).or(self.samples.last())
    }

    /// The action's counters at the run's end.
    pub fn totals(&self) -> Counts {
        Counts {
            unreachable: self.unreachable,
            round_trips: self.round_trips,
            scan_calls: self.scan_calls,
            walked: self.walked,
            missed: self.missed,
            db_loads: self.db_loads,
            stale_reads: self.stale_reads,
            commands: self.commands,
        }
    }
}

/// An action's counters at one moment: what happened up to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Keys made unreachable.
    pub unreachable: u32,
    /// The invalidation's round trips.
    pub round_trips: u32,
    /// `SCAN` calls.
    pub scan_calls: u32,
    /// Keys the walk passed over.
    pub walked: u32,
    /// Keys written during the walk that it missed (known when the walk ends).
    pub missed: u32,
    /// Database loads after the change.
    pub db_loads: u32,
    /// Reads that got data from before the change.
    pub stale_reads: u32,
    /// Commands in all.
    pub commands: u32,
}

/// One action's counters second by second, as its keyspace is sampled: `counts[k]` is at
/// `k` s, the last the run's totals. The run's part, sent as each action finishes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionSeconds {
    /// The action.
    pub action: Action,
    /// One per sample.
    pub counts: Vec<Counts>,
}

impl ActionSeconds {
    /// The counters at position `k` (the last past the end).
    pub fn at(&self, k: usize) -> Counts {
        self.counts
            .get(k)
            .or(self.counts.last())
            .copied()
            .unwrap_or_default()
    }
}

impl Steps for InvalidationOutput {
    /// The shown action's seconds: positions `0..=steps()` are its samples.
    fn steps(&self) -> usize {
        self.shown().samples.len().saturating_sub(1)
    }
}

impl Figures for InvalidationOutput {
    /// The shown action's totals, as the page shows them at the end.
    fn figures(&self) -> Vec<Figure> {
        let c = self.shown().totals();
        vec![
            Figure::count("unreachable", u64::from(c.unreachable)),
            Figure::count("trips", u64::from(c.round_trips)),
            Figure::count("scans", u64::from(c.scan_calls)),
            Figure::count("loads", u64::from(c.db_loads)),
            Figure::count("walked", u64::from(c.walked)),
            Figure::count("missed", u64::from(c.missed)),
            Figure::count("stale", u64::from(c.stale_reads)),
            Figure::count("commands", u64::from(c.commands)),
        ]
    }
}
