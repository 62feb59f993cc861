//! What the buffering lab's run gives the view and `labsim --json` alike: both designs'
//! totals, the progress flushes, the check of every user's latest progress and the SimRedis
//! sample. Its timeline walks the progress flushes: position `k` is the run after its first
//! `k` flushes.

use super::params::BufferParams;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// One design's counts over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Redis commands.
    pub redis_cmds: u64,
    /// Round trips to Redis (a pipeline is one).
    pub round_trips: u64,
    /// Sorted-set members Redis wrote (the same in both designs).
    pub members: u64,
    /// Rows written to the database.
    pub db_rows: u64,
    /// Database queries sent (a failed one included).
    pub db_queries: u64,
}

/// One progress flush of the buffered design.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flush {
    /// When, s.
    pub at_s: u32,
    /// Rows in the Map it took (written when `ok`).
    pub rows: u64,
    /// Queries it sent (a failed flush: its first, which failed).
    pub queries: u64,
    /// It was written.
    pub ok: bool,
    /// A failed flush: rows put back in the Map.
    pub requeued: u64,
    /// A failed flush (`newer-wins`): rows not put back, the user's newer event being there.
    pub kept_newer: u64,
    /// A failed flush (`blind`): rows put back over the user's newer event.
    pub overwrote_newer: u64,
    /// A failed flush (`drop`): rows thrown away.
    pub dropped: u64,
}

/// Per user at the end: does the database (or the Map, not yet flushed) hold the latest
/// progress?
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Users with at least one event.
    pub users: u64,
    /// The database holds their latest event.
    pub written: u64,
    /// The Map holds their latest event, for the next flush.
    pub pending: u64,
    /// Neither: their progress in the database is older than their latest event (or none).
    pub behind: u64,
}

impl Check {
    /// Every user's latest progress is written or waiting in the Map.
    pub fn all_kept(&self) -> bool {
        self.behind == 0 && self.written + self.pending == self.users
    }
}

/// One design's sample on SimRedis.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleDesign {
    /// Commands the viewers (or the buffer) sent.
    pub cmds: u64,
    /// Round trips.
    pub round_trips: u64,
    /// Sorted-set members in those commands.
    pub members: u64,
    /// `ZCARD` of the room at the end.
    pub zcard: i64,
    /// The first commands as Redis ran them (a long one cut, its size in the note), and the
    /// observer's `ZCARD`.
    pub log: Vec<CmdLine>,
}

/// Both designs' samples.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Viewers in the sample (the first of the audience: the same moments in the second).
    pub viewers: u32,
    /// Seconds it ran.
    pub seconds: u32,
    /// Direct writes.
    pub direct: SampleDesign,
    /// Buffered.
    pub buffered: SampleDesign,
}

/// The run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferOutput {
    /// The parameters.
    pub params: BufferParams,
    /// Viewers still there in each second (each sends one heartbeat and one progress event
    /// in it).
    pub active: Vec<u32>,
    /// Direct writes.
    pub direct: Totals,
    /// Buffered.
    pub buffered: Totals,
    /// Every progress flush.
    pub flushes: Vec<Flush>,
    /// When the failed flush's rows went back, ms (none without a failure).
    pub requeue_at_ms: Option<u64>,
    /// The buffered design's progress at the end.
    pub check: Check,
    /// The commands themselves, spoken to a SimRedis by a sample of viewers.
    pub sample: Sample,
}

impl BufferOutput {
    /// `v` per second of the run.
    pub fn per_s(&self, v: u64) -> f64 {
        v as f64 / f64::from(self.params.seconds.max(1))
    }

    /// Commands the buffered presence flush sends in second `s` (`⌈active / chunk⌉`).
    pub fn buffered_cmds_at(&self, s: usize) -> u64 {
        u64::from(self.active.get(s).copied().unwrap_or(0))
            .div_ceil(u64::from(self.params.chunk.max(1)))
    }

    /// Commands in one buffered pipeline (the run's average, whole).
    pub fn per_trip(&self) -> u64 {
        self.buffered
            .redis_cmds
            .checked_div(self.buffered.round_trips)
            .unwrap_or(0)
    }

    /// The failed flush (`None`: none failed).
    pub fn failed(&self) -> Option<&Flush> {
        self.flushes.iter().find(|f| !f.ok)
    }

    /// The position of the timeline just after flush `n` (1-based) is done.
    pub fn after_flush(&self, n: usize) -> usize {
        n.min(self.steps())
    }
}

impl Steps for BufferOutput {
    /// The progress flushes.
    fn steps(&self) -> usize {
        self.flushes.len()
    }
}

/// The rows of the per-second chart: their keys and each design's total.
pub fn chart_rows(d: &Totals, b: &Totals) -> [(&'static str, u64, u64); 4] {
    [
        ("cmds", d.redis_cmds, b.redis_cmds),
        ("trips", d.round_trips, b.round_trips),
        ("rows", d.db_rows, b.db_rows),
        ("queries", d.db_queries, b.db_queries),
    ]
}

/// The figure key of a chart cell: its row's key and its design (`cmds-direct`).
pub fn cell_key(row: &str, buffered: bool) -> String {
    format!("{row}-{}", if buffered { "buffered" } else { "direct" })
}

/// The figure keys of a design's sample: its commands, round trips and `ZCARD`.
pub fn sample_keys(buffered: bool) -> [&'static str; 3] {
    if buffered {
        [
            "sample-buffered-cmds",
            "sample-buffered-trips",
            "sample-buffered-zcard",
        ]
    } else {
        [
            "sample-direct-cmds",
            "sample-direct-trips",
            "sample-direct-zcard",
        ]
    }
}

impl Figures for BufferOutput {
    fn figures(&self) -> Vec<Figure> {
        let f = self.failed().copied().unwrap_or_default();
        let mut out = vec![
            Figure::count("per-trip", self.per_trip()),
            Figure::new("members", self.per_s(self.buffered.members).round()),
            Figure::count("requeued", f.requeued),
            Figure::count("behind", self.check.behind),
            Figure::count("kept-newer", f.kept_newer),
            Figure::count("overwrote", f.overwrote_newer),
            Figure::count("dropped", f.dropped),
            Figure::count("written", self.check.written),
            Figure::count("pending", self.check.pending),
        ];
        for (row, d, b) in chart_rows(&self.direct, &self.buffered) {
            out.push(Figure::count(&cell_key(row, false), d));
            out.push(Figure::count(&cell_key(row, true), b));
        }
        for (buffered, s) in [(false, &self.sample.direct), (true, &self.sample.buffered)] {
            let [cmds, trips, zcard] = sample_keys(buffered);
            out.push(Figure::count(cmds, s.cmds));
            out.push(Figure::count(trips, s.round_trips));
            out.push(Figure::new(zcard, s.zcard as f64));
        }
        out
    }
}
