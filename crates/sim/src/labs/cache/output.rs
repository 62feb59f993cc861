//! What the cache lab gives the page and `labsim cache --json` alike ([`CacheOutput`]): the
//! config and, per side (every layer off, the chosen layers — or, live, the prediction and
//! the real run), the counters with the requests per path. The page's output carries each
//! side's timeline too ([`SideTimeline`]: the counters at every position, the database queries
//! at once, the first requests and log lines, small whatever the run's size); `labsim
//! --series` carries every request, query and command instead. Its timeline has
//! [`VIEW_FRAMES`] steps of equal time: position `k` is the run up to
//! [`CacheOutput::time_at`]`(k)`.

use super::model::cmd::CmdRow;
use super::model::record::{CacheRecord, Counts, PairRecord, Path, Query, Request};
use super::params::CacheConfig;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Steps of the lab's timeline.
pub const VIEW_FRAMES: usize = 200;
/// Requests and log lines a side's timeline carries at most (the counters are always whole).
pub const VIEW_MAX: usize = 1500;

/// The rows of the lab's pair in its table.
pub const PAIR_NAMES: [&str; 2] = ["layers off", "layers on"];
/// The rows of a live run beside its prediction.
pub const LIVE_NAMES: [&str; 2] = ["simulated", "real redis"];

/// What a side's page draws over time: small whatever the run's size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SideTimeline {
    /// The counters at each position (`VIEW_FRAMES + 1` of them).
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

/// One side of the pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSide {
    /// The final counters.
    pub counts: Counts,
    /// When its last event happened, ms.
    pub end_ms: u64,
    /// Requests per path, by the path's name (`FRESH` …).
    pub paths: BTreeMap<String, u32>,
    /// Every request (`labsim --series`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<Vec<Request>>,
    /// Every database query (`labsim --series`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queries: Option<Vec<Query>>,
    /// Every command with Redis' reply (`labsim --series`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<Vec<CmdLine>>,
    /// What the page draws over time (the page's output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<SideTimeline>,
}

/// The lab's pair: the config and both sides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheOutput {
    /// What ran (the "on" side's layers).
    pub config: CacheConfig,
    /// Every layer off (live: the simulation's prediction).
    pub off: CacheSide,
    /// The chosen layers (live: the real run).
    pub on: CacheSide,
}

/// A side's counters and paths (nothing else).
fn side(r: &CacheRecord) -> CacheSide {
    CacheSide {
        counts: r.counts,
        end_ms: r.end_ms,
        paths: Path::ALL
            .iter()
            .map(|&p| (p.name().to_string(), r.counts.path(p)))
            .collect(),
        requests: None,
        queries: None,
        log: None,
        timeline: None,
    }
}

impl CacheOutput {
    /// What `labsim cache --json` prints of the pair (`series`: every request, query and
    /// command of each side too).
    pub fn summary(pair: &PairRecord, series: bool) -> Self {
        let side = |r: &CacheRecord| CacheSide {
            requests: series.then(|| r.requests.clone()),
            queries: series.then(|| r.queries.clone()),
            log: series.then(|| r.log.iter().map(CmdRow::line).collect()),
            ..side(r)
        };
        CacheOutput {
            config: pair.on.config,
            off: side(&pair.off),
            on: side(&pair.on),
        }
    }

    /// What the page draws of the pair.
    pub fn new(pair: &PairRecord) -> Self {
        CacheOutput::timeline(&pair.off, &pair.on)
    }

    /// What the page draws of `off` (left) beside `on` (right), on one time axis.
    pub fn timeline(off: &CacheRecord, on: &CacheRecord) -> Self {
        let end = off.end_ms.max(on.end_ms).max(1);
        let with = |r: &CacheRecord| CacheSide {
            timeline: Some(SideTimeline {
                frames: (0..=VIEW_FRAMES)
                    .map(|i| r.counts_at(end * i as u64 / VIEW_FRAMES as u64))
                    .collect(),
                db: r.db_series_to(end, VIEW_FRAMES),
                requests: r.requests.iter().take(VIEW_MAX).copied().collect(),
                log: r.log.iter().take(VIEW_MAX).map(CmdRow::line).collect(),
                more_requests: r.requests.len().saturating_sub(VIEW_MAX),
                more_log: r.log.len().saturating_sub(VIEW_MAX),
            }),
            ..side(r)
        };
        CacheOutput {
            config: on.config,
            off: with(off),
            on: with(on),
        }
    }

    /// Both sides end by then, ms.
    pub fn end_ms(&self) -> u64 {
        self.off.end_ms.max(self.on.end_ms).max(1)
    }

    /// The time of timeline position `k`, ms.
    pub fn time_at(&self, k: usize) -> u64 {
        self.end_ms() * k.min(VIEW_FRAMES) as u64 / VIEW_FRAMES as u64
    }

    /// The table `labsim cache` prints, its rows named `names` (off's, on's).
    pub fn table(&self, names: [&str; 2]) -> String {
        let c = &self.config;
        let l = c.layers;
        let onoff = |b: bool| if b { "on" } else { "off" };
        let mut s = format!(
            "cache engine: {} instances, {} concurrent, {} requests, loader {} ms, fresh {} ms, stale {} ms, lock TTL {} ms, wait {} ms, redis {}, start {}, seed {}\n",
            c.instances, c.concurrent, c.requests, c.loader_ms, c.fresh_ms, c.stale_ms, c.lock_ttl_ms, c.wait_ms, c.redis, c.start, c.seed
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
        for (name, side) in [(names[0], &self.off), (names[1], &self.on)] {
            let k = &side.counts;
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
}

impl Steps for CacheOutput {
    /// Equal slices of the pair's time.
    fn steps(&self) -> usize {
        self.on
            .timeline
            .as_ref()
            .map_or(0, |t| t.frames.len().saturating_sub(1))
    }
}

/// The keys of the figures a side's card shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideKeys {
    /// Its CSS class and the card's `data-side`.
    pub id: &'static str,
    /// Database queries.
    pub db: &'static str,
    /// The most at once.
    pub peak: &'static str,
    /// Stale answers.
    pub stale: &'static str,
    /// Time waited, s.
    pub waited: &'static str,
    /// Errors.
    pub error: &'static str,
    /// Requests answered.
    pub answered: &'static str,
}

/// The keys of a side's figures: the simulation's pair (`OFF`, `ON`) and a live run
/// (`SIM`, `REAL`).
macro_rules! side_keys {
    ($name:ident = $id:literal) => {
        /// The figures of this side's card.
        pub const $name: SideKeys = SideKeys {
            id: $id,
            db: concat!($id, "-db"),
            peak: concat!($id, "-peak"),
            stale: concat!($id, "-stale"),
            waited: concat!($id, "-waited"),
            error: concat!($id, "-error"),
            answered: concat!($id, "-answered"),
        };
    };
}

impl SideKeys {
    side_keys!(OFF = "off");
    side_keys!(ON = "on");
    side_keys!(SIM = "sim");
    side_keys!(REAL = "real");

    /// The figures of counters `c` under these keys.
    pub fn figures(&self, c: &Counts) -> Vec<Figure> {
        vec![
            Figure::count(self.db, c.db.into()),
            Figure::count(self.peak, c.peak_db.into()),
            Figure::count(self.stale, c.path(Path::Stale).into()),
            Figure::new(self.waited, waited_s(c)),
            Figure::count(self.error, c.path(Path::Error).into()),
            Figure::count(self.answered, c.requests().into()),
        ]
    }
}

/// The time requests waited, s.
pub fn waited_s(c: &Counts) -> f64 {
    c.waited as f64 / 1000.0
}

impl Figures for CacheOutput {
    /// The cards' counters at the end (the simulation's pair).
    fn figures(&self) -> Vec<Figure> {
        let mut f = SideKeys::OFF.figures(&self.off.counts);
        f.extend(SideKeys::ON.figures(&self.on.counts));
        f
    }
}
