//! What the presence lab's two runs give the view and `labsim --json` alike: the room bucket
//! by bucket (the main run; the timeline walks its buckets, position `k` is the room after
//! its first `k`) and the spread of the estimate's error over many rooms.

use super::params::PresenceParams;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// One bucket, as the reader saw it at its end.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    /// 0-based.
    pub bucket: u32,
    /// When it started, virtual ms.
    pub at_ms: u64,
    /// Viewers who joined at its start.
    pub joined: u32,
    /// Viewers who left at its start.
    pub left: u32,
    /// Viewers marked in it.
    pub active: u32,
    /// Distinct viewers marked in the window (this bucket and the `window - 1` before):
    /// the true count.
    pub truth: u32,
    /// `markactive` answers 1 (added to the sorted set) in this bucket.
    pub zadds: u32,
    /// `markactive` answers 0 (the room was at its limit: only `PFADD`).
    pub skipped: u32,
    /// Members `ZREMRANGEBYSCORE` trimmed.
    pub trimmed: i64,
    /// `ZCARD` after the trim.
    pub zcard: i64,
    /// `PFCOUNT` of this bucket's key alone.
    pub pf_single: i64,
    /// `PFCOUNT` of the window's keys together.
    pub pf_window: i64,
    /// The count shown: `zcard` while the estimate is under the limit, else
    /// `max(pf_window, zcard)` (never less than the exact count).
    pub shown: i64,
    /// `true`: the shown count is the sorted set's (exact).
    pub exact: bool,
    /// `(pf_window - truth) / truth`, percent.
    pub err_pct: f64,
    /// The sorted set's bytes (SimRedis' estimate; 0 when it does not exist).
    pub zset_bytes: u64,
    /// The window's HyperLogLog keys, `STRLEN` summed.
    pub hll_bytes: u64,
    /// This bucket's HyperLogLog, `STRLEN`.
    pub hll_cur_bytes: u64,
    /// Keys of the window that are dense (`STRLEN` 12,304).
    pub dense: u32,
    /// What a sorted set of every viewer in the window would take (the same estimate).
    pub all_zset_bytes: u64,
    /// A few of its commands: the first marks and the reader's.
    pub log: Vec<CmdLine>,
}

/// The room run's output (the lab's main run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresenceOutput {
    /// The parameters.
    pub params: PresenceParams,
    /// Every bucket done so far.
    pub buckets: Vec<Bucket>,
    /// `markactive` calls.
    pub marks: u64,
    /// Of them, answered 1.
    pub zadds: u64,
    /// Of them, answered 0.
    pub skipped: u64,
    /// Commands sent in all.
    pub commands: u64,
}

impl Steps for PresenceOutput {
    /// The room's buckets.
    fn steps(&self) -> usize {
        self.buckets.len()
    }
}

impl PresenceOutput {
    /// The bucket position `k` shows: the `k`-th (`None` at the start, before the first).
    pub fn bucket_at(&self, k: usize) -> Option<&Bucket> {
        k.checked_sub(1).and_then(|i| self.buckets.get(i))
    }
}

impl Figures for PresenceOutput {
    /// The last bucket's numbers, as the page shows them at the end.
    fn figures(&self) -> Vec<Figure> {
        let Some(b) = self.buckets.last() else {
            return Vec::new();
        };
        vec![
            Figure::count("zcard", b.zcard.max(0) as u64),
            Figure::count("zbytes", b.zset_bytes),
            Figure::count("allbytes", b.all_zset_bytes),
            Figure::count("skipped", u64::from(b.skipped)),
            Figure::count("pf", b.pf_window.max(0) as u64),
            Figure::new("err", b.err_pct),
            Figure::count("hllbytes", b.hll_bytes),
            Figure::count("single", b.pf_single.max(0) as u64),
            Figure::count("shown", b.shown.max(0) as u64),
        ]
    }
}

/// Redis' standard error with 16,384 registers: 1.04/√16384, percent.
pub const STANDARD_ERROR_PCT: f64 = 0.8125;
/// The histogram's bins, each 0.25% wide, from -4% to +4% (the outer two catch the rest).
pub const BINS: usize = 32;
/// A bin's width, percent.
pub const BIN_PCT: f64 = 0.25;

/// The spread run's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpreadOutput {
    /// Rooms counted.
    pub seeds: u32,
    /// Viewers per room.
    pub sample: u32,
    /// Each room's error, percent: `(PFCOUNT - sample) / sample`.
    pub errors: Vec<f64>,
    /// How many errors fall in each bin of [`BIN_PCT`] from -4% ([`BINS`] bins).
    pub histogram: Vec<u32>,
    /// Mean error, percent.
    pub mean_pct: f64,
    /// Standard deviation of the errors, percent.
    pub sd_pct: f64,
    /// Rooms off by more than the standard error.
    pub beyond: u32,
    /// Rooms off by more than twice the standard error.
    pub beyond2: u32,
    /// The largest error by size, percent (with its sign).
    pub worst_pct: f64,
}

/// What `labsim presence --json` prints: both runs' outputs, each as its view receives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresenceRuns {
    /// The room (the main run).
    pub room: PresenceOutput,
    /// The spread.
    pub spread: SpreadOutput,
}
