//! The lab's pair as the page draws it ([`CacheView`]: small whatever the run's size) and
//! as `labsim cache` prints it (the table, the JSON).

use super::super::log::CmdLine;
use super::cmd::CmdRow;
use super::params::CacheConfig;
use super::result::{CacheLab, CacheResult, Counts, Path, Request};
use super::run::PAIR_NAMES;
use serde::{Deserialize, Serialize};

/// Time positions of the lab's timeline.
pub const VIEW_FRAMES: usize = 200;
/// Requests and log lines a view carries per side at most (the counters are always whole).
pub const VIEW_MAX: usize = 1500;

/// One side of the lab as the page draws it: small whatever the run's size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSide {
    /// The final counters.
    pub counts: Counts,
    /// The counters at each timeline position (`VIEW_FRAMES + 1` of them).
    pub frames: Vec<Counts>,
    /// Database queries at once, the most in each of `VIEW_FRAMES` slices.
    pub db: Vec<u32>,
    /// The first requests answered (at most `VIEW_MAX`).
    pub requests: Vec<Request>,
    /// The first lines of the command log (at most `VIEW_MAX`).
    pub log: Vec<CmdLine>,
    /// Requests left out.
    pub more_requests: usize,
    /// Log lines left out.
    pub more_log: usize,
}

/// The lab's pair on one time axis, as the worker sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheView {
    /// What ran (the "on" side's layers).
    pub config: CacheConfig,
    /// Both sides end by then, ms.
    pub end_ms: u64,
    /// Every layer off.
    pub off: CacheSide,
    /// The chosen layers.
    pub on: CacheSide,
    /// `labsim cache`'s table for the same run.
    pub table: String,
}

impl CacheView {
    /// The view of the lab's pair.
    pub fn new(lab: &CacheLab) -> Self {
        CacheView::of(&lab.off, &lab.on, PAIR_NAMES)
    }

    /// The view of `off` (left) beside `on` (right), the table's rows named `names`.
    pub fn of(off: &CacheResult, on: &CacheResult, names: [&str; 2]) -> Self {
        let end = off.end_ms.max(on.end_ms).max(1);
        let side = |r: &CacheResult| CacheSide {
            counts: r.counts,
            frames: (0..=VIEW_FRAMES)
                .map(|i| r.counts_at(end * i as u64 / VIEW_FRAMES as u64))
                .collect(),
            db: r.db_series_to(end, VIEW_FRAMES),
            requests: r.requests.iter().take(VIEW_MAX).copied().collect(),
            log: r.log.iter().take(VIEW_MAX).map(CmdRow::line).collect(),
            more_requests: r.requests.len().saturating_sub(VIEW_MAX),
            more_log: r.log.len().saturating_sub(VIEW_MAX),
        };
        CacheView {
            config: on.config,
            end_ms: end,
            off: side(off),
            on: side(on),
            table: table_named(off, on, names),
        }
    }

    /// The time of timeline position `i`, ms.
    pub fn time_at(&self, i: usize) -> u64 {
        self.end_ms * i.min(VIEW_FRAMES) as u64 / VIEW_FRAMES as u64
    }
}

/// The table `labsim cache` prints.
pub fn table(lab: &CacheLab) -> String {
    table_named(&lab.off, &lab.on, PAIR_NAMES)
}

/// The table with these names for the `off` and `on` rows.
fn table_named(off: &CacheResult, on: &CacheResult, names: [&str; 2]) -> String {
    let c = &on.config;
    let l = c.layers;
    let onoff = |b: bool| if b { "on" } else { "off" };
    let mut s = format!(
        "cache engine: {} instances, {} concurrent, {} requests, loader {} ms, fresh {} ms, stale {} ms, lock TTL {} ms, wait {} ms, redis {}, start {}, seed {}\n",
        c.instances, c.concurrent, c.requests, c.loader_ms, c.fresh_ms, c.stale_ms, c.lock_ttl_ms, c.wait_ms, c.redis.name(), c.start.name(), c.seed
    );
    s += &format!(
        "layers: singleflight {}, lock {}, poll {}, rescue {}, heartbeat {}, recheck {}\n",
        onoff(l.singleflight),
        onoff(l.lock),
        onoff(l.poll),
        onoff(l.rescue),
        onoff(l.heartbeat),
        onoff(l.recheck)
    );
    s += "run       ";
    for p in Path::ALL {
        s += &format!(" {:>8}", p.name());
    }
    s += "  queries  peak  mean ms  max ms  commands\n";
    for (name, r) in [(names[0], off), (names[1], on)] {
        let k = &r.counts;
        s += &format!("{name:<10}");
        for p in Path::ALL {
            s += &format!(" {:>8}", k.path(p));
        }
        s += &format!(
            " {:>8} {:>5} {:>8.1} {:>7} {:>9}\n",
            k.db,
            k.peak_db,
            k.latency_mean(),
            k.latency_max,
            k.commands
        );
    }
    s
}

/// The JSON `labsim cache --json` prints: the config and both runs' counters (`--series`
/// adds requests, queries and the command log, each line a [`CmdLine`]: the command's words
/// and Redis' reply as JSON).
pub fn table_json(lab: &CacheLab, series: bool) -> serde_json::Value {
    let side = |r: &CacheResult| {
        let mut v = serde_json::json!({
            "counts": r.counts,
            "paths": Path::ALL.iter().map(|p| (p.name().to_string(), serde_json::Value::from(r.counts.path(*p)))).collect::<serde_json::Map<_, _>>(),
            "endMs": r.end_ms,
        });
        if series {
            v["requests"] = serde_json::to_value(&r.requests).unwrap_or_default();
            v["queries"] = serde_json::to_value(&r.queries).unwrap_or_default();
            let lines: Vec<CmdLine> = r.log.iter().map(CmdRow::line).collect();
            v["log"] = serde_json::to_value(&lines).unwrap_or_default();
        }
        v
    };
    serde_json::json!({
        "config": lab.on.config,
        "off": side(&lab.off),
        "on": side(&lab.on),
    })
}
