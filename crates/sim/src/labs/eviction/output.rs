//! What the policy race gives the view and `labsim --json` alike: the seed's table
//! ([`EvictionOutput`], the main run's: a row per policy, a cell per trace), the race replayed
//! on one trace ([`RaceOutput`]: its timeline walks the replay in `FRAMES` steps, position
//! `k` after the first `k`) and hit ratio against cache size ([`CurveSeries`]).

use super::params::TraceName;
use crate::eviction::runner::EvictionTable as Table;
use crate::eviction::{Access, Stats};
use crate::labs::def::{Figure, Figures, Steps};
use serde::{Deserialize, Serialize};

/// One policy on one trace: the counters and the scored hit ratio.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Hits among the scored requests, in percent.
    pub hit_percent: f64,
    /// Hits among the scored requests.
    pub scored_hits: u64,
    /// Requests scored (user keys after warm-up).
    pub scored_requests: u64,
    /// All accesses.
    pub requests: u64,
    /// All hits.
    pub hits: u64,
    /// All misses.
    pub misses: u64,
    /// Keys removed from the cache (including bypassed new keys).
    pub evictions: u64,
}

impl From<&Stats> for Cell {
    fn from(s: &Stats) -> Self {
        Cell {
            hit_percent: s.hit_percent(),
            scored_hits: s.scored_hits,
            scored_requests: s.scored_requests,
            requests: s.requests,
            hits: s.hits,
            misses: s.misses,
            evictions: s.evictions,
        }
    }
}

/// One policy's row: a cell per trace, in the table's trace order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvictionRow {
    /// The policy's display name (`LRU`).
    pub policy: String,
    /// A cell per trace.
    pub results: Vec<Cell>,
}

/// The seed's table: what ran, and a row per policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvictionOutput {
    /// Distinct user keys.
    pub keys: u32,
    /// Zipf α.
    pub alpha: f64,
    /// Cache size in keys.
    pub cache: u32,
    /// User requests.
    pub requests: u32,
    /// Requests not scored at the start.
    pub warmup: u64,
    /// Trace seed.
    pub seed: u32,
    /// Seed of the policies' own randomness.
    pub policy_seed: u32,
    /// The traces, in column order.
    pub traces: Vec<TraceName>,
    /// A row per policy.
    pub rows: Vec<EvictionRow>,
}

impl EvictionOutput {
    /// The engine's table `t` as the lab's output.
    pub fn of(t: &Table) -> Self {
        let c = &t.config;
        EvictionOutput {
            keys: c.trace.keys,
            alpha: c.trace.alpha,
            cache: c.cache,
            requests: c.trace.requests,
            warmup: c.warmup,
            seed: c.trace.seed,
            policy_seed: c.policy_seed,
            traces: c.traces.iter().map(|&k| TraceName::of(k)).collect(),
            rows: t
                .rows
                .iter()
                .map(|r| EvictionRow {
                    policy: r.name.to_string(),
                    results: r.stats.iter().map(Cell::from).collect(),
                })
                .collect(),
        }
    }

    /// The figure key of `policy` on `trace` (`lru-zipf`).
    pub fn key(policy: &str, trace: TraceName) -> String {
        format!("{}-{}", policy.to_ascii_lowercase(), trace.word())
    }
}

impl Figures for EvictionOutput {
    /// Each policy's scored hit ratio on each trace, in percent (the table's cells).
    fn figures(&self) -> Vec<Figure> {
        self.rows
            .iter()
            .flat_map(|r| {
                self.traces
                    .iter()
                    .zip(&r.results)
                    .map(|(&t, c)| Figure::new(&Self::key(&r.policy, t), c.hit_percent))
            })
            .collect()
    }
}

/// One step of the chosen policy, as "why was this key evicted" shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Logged {
    /// Position in the trace.
    pub index: usize,
    /// The requested key.
    pub key: u32,
    /// What the policy did.
    pub access: Access,
}

/// The race replayed on one trace: counters at the end of each of its `FRAMES` parts, and
/// the chosen policy's recent steps for "why was this key evicted".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaceOutput {
    /// Display names of the raced policies, in row order.
    pub names: Vec<String>,
    /// Stats per frame per raced policy.
    pub frames: Vec<Vec<Stats>>,
    /// Requests replayed at the end of each frame.
    pub positions: Vec<usize>,
    /// The chosen policy's last steps at the end of each frame.
    pub logs: Vec<Vec<Logged>>,
    /// Display name of the chosen policy.
    pub focus_name: String,
    /// Whom the chosen policy evicts, in Bengali (from the registry).
    pub focus_rule: String,
    /// Requests in the trace.
    pub trace_len: usize,
}

impl RaceOutput {
    /// Requests replayed by position `k` (0 at the start).
    pub fn replayed(&self, k: usize) -> usize {
        k.checked_sub(1)
            .and_then(|f| self.positions.get(f))
            .copied()
            .unwrap_or(0)
    }

    /// Policy `i`'s counters at position `k` (nothing at the start).
    pub fn stats(&self, k: usize, i: usize) -> Stats {
        k.checked_sub(1)
            .and_then(|f| self.frames.get(f))
            .and_then(|f| f.get(i))
            .copied()
            .unwrap_or_default()
    }

    /// The chosen policy's last steps by position `k`.
    pub fn log(&self, k: usize) -> &[Logged] {
        k.checked_sub(1)
            .and_then(|f| self.logs.get(f))
            .map_or(&[], Vec::as_slice)
    }
}

impl Steps for RaceOutput {
    /// The replay's parts.
    fn steps(&self) -> usize {
        self.frames.len()
    }
}

/// One policy's curve of hit ratio (percent of scored requests) against cache size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveSeries {
    /// Registry word (for the colour).
    pub policy: String,
    /// Display name.
    pub name: String,
    /// (cache size, hit %) in size order.
    pub points: Vec<(f64, f64)>,
}

/// A new point of a curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Which series.
    pub series: usize,
    /// Cache size.
    pub x: f64,
    /// Hit %.
    pub y: f64,
}
