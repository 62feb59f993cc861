//! What a cache-engine run leaves: every request with its path, every database query, every
//! command with Redis' typed reply ([`CmdLine`]), and the counters.

use super::cmd::CmdRow;
use crate::labs::cache::params::CacheConfig;
use serde::{Deserialize, Serialize};

/// How a request was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Path {
    /// From a fresh entry.
    Fresh,
    /// The stale value, at once (a refresh went on behind it).
    Stale,
    /// Loaded from the database itself, without a lock.
    Miss,
    /// Took the Redis lock (or the rescue lock) and loaded — or found the value on the second
    /// read.
    Lock,
    /// Waited for someone else's load (singleflight or polling).
    Wait,
    /// The wait ran out (and the rescue lock was taken by someone else).
    Error,
    /// Redis failed (the command timed out, or waited out its timeout in the offline queue):
    /// the database.
    Fallback,
}

impl Path {
    /// Every path, in column order.
    pub const ALL: [Path; 7] = [
        Path::Fresh,
        Path::Stale,
        Path::Miss,
        Path::Lock,
        Path::Wait,
        Path::Error,
        Path::Fallback,
    ];
    /// Short name (as in the table and the CSS classes).
    pub fn name(self) -> &'static str {
        match self {
            Path::Fresh => "FRESH",
            Path::Stale => "STALE",
            Path::Miss => "MISS",
            Path::Lock => "LOCK",
            Path::Wait => "WAIT",
            Path::Error => "ERROR",
            Path::Fallback => "FALLBACK",
        }
    }
}

/// One request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The instance that served it (0-based).
    pub inst: u32,
    /// Sent, ms.
    pub start: u64,
    /// Answered, ms.
    pub end: u64,
    /// How.
    pub path: Path,
}

/// One database query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// The instance that ran it.
    pub inst: u32,
    /// Started, ms.
    pub start: u64,
    /// Ended, ms.
    pub end: u64,
    /// A background refresh (a STALE answer went before it).
    pub refresh: bool,
}

/// The counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Requests per path, in [`Path::ALL`] order.
    pub paths: [u32; 7],
    /// Database queries.
    pub db: u32,
    /// Most queries running at once.
    pub peak_db: u32,
    /// Sum of response times, ms.
    pub latency_sum: u64,
    /// Longest response time, ms.
    pub latency_max: u64,
    /// Time requests spent not answered from the cache (paths other than FRESH/STALE), ms.
    pub waited: u64,
    /// Redis commands answered before their timeout (a timed-out one, or one that waited out
    /// its timeout in the offline queue while Redis was down, is not counted).
    pub commands: u32,
    /// Moments two loads ran at once (0 is the goal).
    pub overlaps: u32,
}

impl Counts {
    /// Requests answered by `p`.
    pub fn path(&self, p: Path) -> u32 {
        self.paths[p as usize]
    }
    /// Requests answered.
    pub fn requests(&self) -> u32 {
        self.paths.iter().sum()
    }
    /// Mean response time, ms.
    pub fn latency_mean(&self) -> f64 {
        let n = self.requests();
        if n == 0 {
            0.0
        } else {
            self.latency_sum as f64 / f64::from(n)
        }
    }
}

/// A finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheRecord {
    /// What ran.
    pub config: CacheConfig,
    /// Every request, in the order they were answered.
    pub requests: Vec<Request>,
    /// Every database query, in the order they started.
    pub queries: Vec<Query>,
    /// Every command with its reply, in time order.
    pub log: Vec<CmdRow>,
    /// The counters.
    pub counts: Counts,
    /// When the last event happened, ms.
    pub end_ms: u64,
}

impl CacheRecord {
    /// Nothing happened yet.
    pub(super) fn empty(config: CacheConfig) -> Self {
        CacheRecord {
            config,
            requests: Vec::new(),
            queries: Vec::new(),
            log: Vec::new(),
            counts: Counts::default(),
            end_ms: 0,
        }
    }

    /// The counters only the whole log and every query give.
    pub(super) fn settle_counts(&mut self) {
        self.counts.commands = self.log.iter().filter(|l| l.reached_redis()).count() as u32;
        self.counts.peak_db = peak(self.queries.iter().map(|q| (q.start, q.end)));
    }

    /// The counters of what happened up to `t` ms (requests answered and queries started by
    /// then).
    pub fn counts_at(&self, t: u64) -> Counts {
        let mut c = Counts::default();
        for r in self.requests.iter().filter(|r| r.end <= t) {
            add_request(&mut c, r);
        }
        let qs: Vec<&Query> = self.queries.iter().filter(|q| q.start <= t).collect();
        c.db = qs.len() as u32;
        c.peak_db = peak(qs.iter().map(|q| (q.start, q.end.min(t.max(q.start)))));
        c.commands = self
            .log
            .iter()
            .filter(|l| l.at_ms <= t && l.reached_redis())
            .count() as u32;
        c
    }

    /// Database queries running in each of `buckets` equal slices of `0..=end_ms`: the most
    /// at once within the slice.
    pub fn db_series(&self, buckets: usize) -> Vec<u32> {
        self.db_series_to(self.end_ms, buckets)
    }

    /// [`CacheRecord::db_series`] of `0..=end_ms` (a pair's sides share one time axis).
    pub fn db_series_to(&self, end_ms: u64, buckets: usize) -> Vec<u32> {
        let n = buckets.max(1);
        let width = (end_ms.max(1) as f64) / n as f64;
        let mut out = vec![0u32; n];
        for (i, slot) in out.iter_mut().enumerate() {
            let a = (i as f64 * width) as u64;
            let b = ((i + 1) as f64 * width) as u64;
            *slot = peak(
                self.queries
                    .iter()
                    .filter(|q| q.start <= b && q.end >= a)
                    .map(|q| (q.start, q.end)),
            );
        }
        out
    }
}

/// Counts request `r`.
pub(super) fn add_request(c: &mut Counts, r: &Request) {
    c.paths[r.path as usize] += 1;
    let l = r.end - r.start;
    c.latency_sum += l;
    c.latency_max = c.latency_max.max(l);
    if !matches!(r.path, Path::Fresh | Path::Stale) {
        c.waited += l;
    }
}

/// Most intervals `[start, end)` open at once.
fn peak(iv: impl Iterator<Item = (u64, u64)>) -> u32 {
    let mut ev: Vec<(u64, i32)> = Vec::new();
    for (a, b) in iv {
        ev.push((a, 1));
        ev.push((b.max(a + 1), -1));
    }
    ev.sort_unstable();
    let (mut now, mut best) = (0i32, 0i32);
    for (_, d) in ev {
        now += d;
        best = best.max(now);
    }
    best as u32
}

/// The lab's pair: every layer off, and the chosen layers, on the same seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    /// Every layer off.
    pub off: CacheRecord,
    /// The chosen layers.
    pub on: CacheRecord,
}
