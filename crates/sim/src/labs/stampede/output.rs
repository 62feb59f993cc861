//! What the stampede comparison gives the view and `labsim --json` alike: the run's setup, a
//! row per design (the seed's counters) and, for the view and with `--series`, each design's
//! DB load in buckets. Its timeline walks the buckets a few at a time: position `k` is the
//! run up to bucket `k · group` (0: nothing yet).

use super::model::{Bucket, Counters, Mode, StampedeConfig, StampedeSummary};
use crate::labs::def::{Figure, Figures, Steps};
use serde::{Deserialize, Serialize};

/// Timeline positions at most (several buckets per position on long runs).
pub const MAX_POSITIONS: usize = 240;

/// The names of a bucket's five numbers, in order.
pub const BUCKET_FIELDS: [&str; 5] = ["requests", "recomputes", "peak_inflight", "waited", "stale"];

/// One design's counters (a row of the seed's table), and its buckets when asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StampedeRow {
    /// The design.
    pub mode: Mode,
    /// Requests handled.
    pub requests: u64,
    /// Database recomputes.
    pub db_recomputes: u64,
    /// Requests that waited at expiry.
    pub waited: u64,
    /// Requests served stale.
    pub served_stale: u64,
    /// Most recomputes in flight at once.
    pub peak_parallel: u32,
    /// Buckets of `bucket` seconds covering the run (the view's; `labsim` with `--series`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buckets: Option<Vec<Bucket>>,
}

impl StampedeRow {
    /// The row of `s` (with its buckets when `series`).
    pub fn of(s: &StampedeSummary, series: bool) -> Self {
        let c = s.counters;
        StampedeRow {
            mode: s.mode,
            requests: c.requests,
            db_recomputes: c.db,
            waited: c.waited,
            served_stale: c.stale,
            peak_parallel: c.peak,
            buckets: series.then(|| s.buckets.clone()),
        }
    }

    /// Its counters.
    pub fn counters(&self) -> Counters {
        Counters {
            requests: self.requests,
            db: self.db_recomputes,
            waited: self.waited,
            stale: self.served_stale,
            peak: self.peak_parallel,
        }
    }

    /// The design's run as the model gives it (no buckets when the row has none).
    pub fn summary(&self) -> StampedeSummary {
        StampedeSummary {
            mode: self.mode,
            counters: self.counters(),
            buckets: self.buckets.clone().unwrap_or_default(),
        }
    }

    /// Its buckets (none when the row has none).
    pub fn buckets(&self) -> &[Bucket] {
        self.buckets.as_deref().unwrap_or_default()
    }
}

/// The four designs (or those asked for), with what they ran with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StampedeOutput {
    /// Requests per second.
    pub rate: f64,
    /// Recompute time in seconds.
    pub delta: f64,
    /// TTL in seconds.
    pub ttl: f64,
    /// Simulated seconds.
    pub duration: f64,
    /// XFetch's β.
    pub beta: f64,
    /// Generator seed.
    pub seed: u32,
    /// Width of a bucket in seconds.
    pub bucket: f64,
    /// The names of a bucket's five numbers ([`BUCKET_FIELDS`]).
    pub bucket_fields: Vec<String>,
    /// One row per design.
    pub rows: Vec<StampedeRow>,
}

impl StampedeOutput {
    /// The output of `runs` of `cfg` (each row's buckets when `series`).
    pub fn new(cfg: &StampedeConfig, runs: &[StampedeSummary], series: bool) -> Self {
        StampedeOutput {
            rate: cfg.rate,
            delta: cfg.delta,
            ttl: cfg.ttl,
            duration: cfg.duration,
            beta: cfg.beta,
            seed: cfg.seed,
            bucket: cfg.bucket,
            bucket_fields: BUCKET_FIELDS.iter().map(|s| s.to_string()).collect(),
            rows: runs.iter().map(|s| StampedeRow::of(s, series)).collect(),
        }
    }

    /// What it ran with.
    pub fn config(&self) -> StampedeConfig {
        StampedeConfig {
            rate: self.rate,
            delta: self.delta,
            ttl: self.ttl,
            duration: self.duration,
            beta: self.beta,
            seed: self.seed,
            bucket: self.bucket,
        }
    }

    /// The row of design `m`.
    pub fn row(&self, m: Mode) -> Option<&StampedeRow> {
        self.rows.iter().find(|r| r.mode == m)
    }

    /// Buckets per row.
    pub fn buckets(&self) -> usize {
        self.rows.first().map_or(0, |r| r.buckets().len())
    }

    /// Buckets per timeline position.
    pub fn group(&self) -> usize {
        self.buckets().div_ceil(MAX_POSITIONS).max(1)
    }

    /// The buckets run by position `k`.
    pub fn upto(&self, k: usize) -> usize {
        (k * self.group()).min(self.buckets())
    }

    /// The virtual time of position `k`, s.
    pub fn time_at(&self, k: usize) -> f64 {
        (self.upto(k) as f64 * self.bucket).min(self.duration)
    }

    /// Design `r`'s counters over the first `upto` buckets (what it has done by then).
    pub fn so_far(r: &StampedeRow, upto: usize) -> Counters {
        super::model::so_far(r.buckets(), upto)
    }

    /// The figure keys of design `m`: DB recomputes, waited, served stale, peak.
    pub fn keys(m: Mode) -> [&'static str; 4] {
        match m {
            Mode::None => ["none-db", "none-waited", "none-stale", "none-peak"],
            Mode::Lock => ["lock-db", "lock-waited", "lock-stale", "lock-peak"],
            Mode::Stale => ["stale-db", "stale-waited", "stale-stale", "stale-peak"],
            Mode::XFetch => ["xfetch-db", "xfetch-waited", "xfetch-stale", "xfetch-peak"],
        }
    }
}

impl Steps for StampedeOutput {
    /// Groups of buckets.
    fn steps(&self) -> usize {
        self.buckets().div_ceil(self.group())
    }
}

impl Figures for StampedeOutput {
    /// Each design's four counters (the cards' numbers at the end; the seed's table).
    fn figures(&self) -> Vec<Figure> {
        self.rows
            .iter()
            .flat_map(|r| {
                let k = Self::keys(r.mode);
                [
                    Figure::count(k[0], r.db_recomputes),
                    Figure::count(k[1], r.waited),
                    Figure::count(k[2], r.served_stale),
                    Figure::count(k[3], u64::from(r.peak_parallel)),
                ]
            })
            .collect()
    }
}
