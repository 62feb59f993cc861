//! What the failure lab's run gives the view and `labsim --json` alike: the three levels on
//! the same requests, each with its latencies, database load and first commands. Its
//! timeline walks the focused level's command log: position `k` shows its first `k` lines.

use super::params::Level;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// What one level's run left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailureLevel {
    /// The level.
    pub level: Level,
    /// Requests answered.
    pub requests: u32,
    /// `GET` found the value.
    pub hits: u32,
    /// `GET` answered nil (loaded, then `SET … EX`).
    pub misses: u32,
    /// "Command timed out" (the 1,500 ms ran out).
    pub timed_out: u32,
    /// `MaxRetriesPerRequestError` (the offline queue flushed).
    pub flushed: u32,
    /// Rejected at once (the offline queue off).
    pub rejected: u32,
    /// Database queries (each `loader()` call).
    pub db_queries: u32,
    /// Database queries per second of the run.
    pub db_qps: f64,
    /// Reconnection attempts during the run (down only).
    pub reconnects: u32,
    /// Median request latency, ms (nearest rank).
    pub p50_ms: u64,
    /// 99th percentile, ms (nearest rank).
    pub p99_ms: u64,
    /// Mean, ms.
    pub mean_ms: f64,
    /// Slowest, ms.
    pub max_ms: u64,
    /// Requests per [`BUCKETS`] bucket (7 counts).
    pub hist: Vec<u32>,
    /// The first commands.
    pub log: Vec<CmdLine>,
}

/// The lab's output: the three levels on the same requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailureOutput {
    /// The level shown in detail.
    pub focus: Level,
    /// Requests per level.
    pub requests: u32,
    /// The run's length, s.
    pub seconds: u32,
    /// One query, ms.
    pub db_ms: u64,
    /// `enableOfflineQueue`.
    pub offline_queue: bool,
    /// Healthy, slow, down.
    pub levels: Vec<FailureLevel>,
}

impl FailureOutput {
    /// The focused level's result.
    pub fn shown(&self) -> &FailureLevel {
        &self.levels[self.focus.index()]
    }
}

impl Steps for FailureOutput {
    /// The focused level's log lines.
    fn steps(&self) -> usize {
        self.levels
            .get(self.focus.index())
            .map_or(0, |l| l.log.len())
    }
}

impl FailureOutput {
    /// The position of the timeline that shows line `i` (0-based) of the focused level's
    /// log as the newest.
    pub fn after_line(&self, i: usize) -> usize {
        (i + 1).min(self.steps())
    }
}

/// The figure keys of a level's card: its p50, its p99 and its database queries a second.
pub fn card_keys(level: Level) -> [&'static str; 3] {
    match level {
        Level::Healthy => ["healthy-p50", "healthy-p99", "healthy-dbqps"],
        Level::Slow => ["slow-p50", "slow-p99", "slow-dbqps"],
        Level::Down => ["down-p50", "down-p99", "down-dbqps"],
    }
}

/// The figure keys of the focused level's histogram bins.
pub const BIN_KEYS: [&str; 7] = [
    "bin-0", "bin-1", "bin-2", "bin-3", "bin-4", "bin-5", "bin-6",
];

impl Figures for FailureOutput {
    fn figures(&self) -> Vec<Figure> {
        let mut f = Vec::new();
        for l in &self.levels {
            let [p50, p99, qps] = card_keys(l.level);
            f.push(Figure::count(p50, l.p50_ms));
            f.push(Figure::count(p99, l.p99_ms));
            f.push(Figure::new(qps, l.db_qps));
        }
        if let Some(l) = self.levels.get(self.focus.index()) {
            for (k, &n) in BIN_KEYS.iter().zip(&l.hist) {
                f.push(Figure::count(k, u64::from(n)));
            }
        }
        f
    }
}
