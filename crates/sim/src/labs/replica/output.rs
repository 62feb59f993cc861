//! What the replica lab's run gives the view and `labsim --json` alike: a frame of both
//! servers' counts every `step_ms`, what the sync found, and the probe's commands. Its
//! timeline walks the frames: position `k` is frame `k`, the servers at `k · step_ms` (0:
//! the start, before anything has expired).

use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// `INFO keyspace`'s two counts on one server, and the stale keys among them (past their
/// TTL, not yet reclaimed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// `keys=` (DBSIZE).
    pub keys: u32,
    /// `expires=`: keys with a TTL.
    pub expires: u32,
    /// Keys past their TTL still stored (counted in both).
    pub stale: u32,
}

impl Counts {
    /// Keys a read finds: stored and not past their TTL.
    pub fn live(&self) -> u32 {
        self.keys - self.stale
    }
}

/// Both servers at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// Virtual ms.
    pub t_ms: u64,
    /// The primary.
    pub primary: Counts,
    /// The second server, once it has loaded the snapshot.
    pub second: Option<Counts>,
    /// Keys the primary deleted lazily (a read found them past their TTL), so far.
    pub lazy: u64,
    /// Keys the primary's active expire cycle deleted, so far.
    pub active: u64,
    /// Keys the second server's own cycle deleted (a restored primary; a replica never).
    pub second_active: u64,
    /// The reader's GETs so far.
    pub reads: u64,
    /// DELs the primary sent that have not reached the replica yet.
    pub in_flight: u32,
}

/// What the sync moment found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtSync {
    /// The primary's `keys=` then.
    pub keys: u32,
    /// Of them, past their TTL.
    pub stale: u32,
    /// Keys the snapshot held.
    pub snapshot: u32,
    /// Keys the second server dropped while loading it (a primary drops the expired ones).
    pub dropped: u32,
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicaOutput {
    /// Virtual ms between frames.
    pub step_ms: u64,
    /// When the snapshot was taken.
    pub sync_ms: u64,
    /// When the second server had loaded it (the replica: `lag` later).
    pub loaded_ms: u64,
    /// The replication lag.
    pub lag_ms: u64,
    /// The second server is a replica (otherwise a primary started from the RDB).
    pub replica: bool,
    /// What the sync found (`None`: the run ended first).
    pub at_sync: Option<AtSync>,
    /// One per `step_ms`, from 0 to the end.
    pub frames: Vec<Frame>,
    /// The probe: a stale key read on both sides, and its DEL arriving.
    pub log: Vec<CmdLine>,
}

impl ReplicaOutput {
    /// The position that shows the servers at `t_ms` (the first frame at or after it).
    pub fn position_of(&self, t_ms: u64) -> usize {
        self.frames
            .iter()
            .position(|f| f.t_ms >= t_ms)
            .unwrap_or(self.frames.len().saturating_sub(1))
    }

    /// The frame at position `k` (the last past the end).
    pub fn frame(&self, k: usize) -> Option<&Frame> {
        self.frames.get(k.min(self.frames.len().saturating_sub(1)))
    }
}

impl Steps for ReplicaOutput {
    /// The frames after the first (the start).
    fn steps(&self) -> usize {
        self.frames.len().saturating_sub(1)
    }
}

impl Figures for ReplicaOutput {
    /// Both servers' counts and the deletions at the last frame (what the page shows at its
    /// end).
    fn figures(&self) -> Vec<Figure> {
        let Some(f) = self.frames.last() else {
            return Vec::new();
        };
        let side = |c: &Counts, keys: &str, expires: &str, stale: &str| {
            [
                Figure::count(keys, u64::from(c.keys)),
                Figure::count(expires, u64::from(c.expires)),
                Figure::count(stale, u64::from(c.stale)),
            ]
        };
        let mut v: Vec<Figure> = side(&f.primary, "p-keys", "p-expires", "p-stale").into();
        if let Some(s) = &f.second {
            v.extend(side(s, "s-keys", "s-expires", "s-stale"));
        }
        v.push(Figure::count("lazy", f.lazy));
        v.push(Figure::count("active", f.active));
        if self.replica {
            v.push(Figure::count("in-flight", u64::from(f.in_flight)));
        } else {
            v.push(Figure::count("second-active", f.second_active));
        }
        v.push(Figure::count("reads", f.reads));
        v
    }
}
