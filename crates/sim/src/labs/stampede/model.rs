//! The runs: one hot key's arrivals ([`StampedeSim`], an event per arrival), folded into
//! chart buckets a chunk at a time ([`BucketFold`]), the four designs one after another
//! ([`ModeSet`]) and the lab's run over them ([`DesignsCount`]).

use super::output::{StampedeOutput, StampedeRow};
use crate::jsfmt::{js_string, pad_end, pad_start};
use crate::labs::lab::Run;
use crate::rng::{exp_gap, Mulberry32};
use std::collections::VecDeque;

crate::choices! {
    /// How expiry is handled: the seed's four designs, in its row order.
    pub enum Mode {
        /// No protection: every request after expiry recomputes.
        None = "none" / "সুরক্ষা নেই",
        /// Single-flight lock: one recomputes, the others wait.
        Lock = "lock" / "single-flight লক",
        /// Lock + soft TTL: one refreshes in the background, the others get the stale value.
        Stale = "stale" / "লক + পুরোনো মান",
        /// Probabilistic early refresh before expiry (XFetch), no lock.
        XFetch = "xfetch" / "আগাম নবায়ন (XFetch)",
    }
}

/// Parameters (defaults = the seed's constants).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StampedeConfig {
    /// Requests per second (seed: 2000).
    pub rate: f64,
    /// Recompute time in seconds (seed: 0.05).
    pub delta: f64,
    /// TTL in seconds (seed: 10).
    pub ttl: f64,
    /// Simulated seconds (seed: 60).
    pub duration: f64,
    /// XFetch's β (seed: 1).
    pub beta: f64,
    /// Generator seed (seed: 2026).
    pub seed: u32,
    /// Width of the chart buckets in seconds (not in the seed; 0.1 = 100 ms).
    pub bucket: f64,
}

impl Default for StampedeConfig {
    fn default() -> Self {
        Self {
            rate: 2000.0,
            delta: 0.05,
            ttl: 10.0,
            duration: 60.0,
            beta: 1.0,
            seed: 2026,
            bucket: 0.1,
        }
    }
}

/// What happened to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Valid cached value served.
    Fresh,
    /// Valid value served, and this request started an early (XFetch) recompute.
    EarlyRefresh,
    /// Expired: this request recomputed and waited for it.
    Recompute,
    /// Expired: waited for someone else's recompute (lock).
    Waited,
    /// Expired: served the stale value and started the background refresh.
    StaleRefresh,
    /// Expired: served the stale value while a refresh is in flight.
    Stale,
}

/// One arrival.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Arrival time in seconds.
    pub t: f64,
    /// What happened.
    pub outcome: Outcome,
    /// Recomputes in flight after handling this request.
    pub inflight: u32,
    /// The cached value's expiry after handling it.
    pub expiry: f64,
}

/// Counters, as in the seed's table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Requests handled.
    pub requests: u64,
    /// Database recomputes.
    pub db: u64,
    /// Requests that waited at expiry.
    pub waited: u64,
    /// Requests served stale.
    pub stale: u64,
    /// Most recomputes in flight at once.
    pub peak: u32,
}

/// The simulation as a stepping iterator of [`Event`]s (one per arrival).
#[derive(Clone, Debug)]
pub struct StampedeSim {
    cfg: StampedeConfig,
    mode: Mode,
    rng: Mulberry32,
    t: f64,
    expiry: f64,
    inflight: VecDeque<f64>,
    counters: Counters,
    done: bool,
}

impl StampedeSim {
    /// A fresh run of `mode`.
    pub fn new(cfg: StampedeConfig, mode: Mode) -> Self {
        Self {
            rng: Mulberry32::new(cfg.seed),
            expiry: cfg.ttl,
            cfg,
            mode,
            t: 0.0,
            inflight: VecDeque::new(),
            counters: Counters::default(),
            done: false,
        }
    }

    /// Counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    fn recompute(&mut self) {
        self.inflight.push_back(self.t + self.cfg.delta);
        self.counters.db += 1;
        self.counters.peak = self.counters.peak.max(self.inflight.len() as u32);
    }
}

impl Iterator for StampedeSim {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        if self.done {
            return None;
        }
        self.t += exp_gap(&mut self.rng, self.cfg.rate);
        if self.t >= self.cfg.duration || self.t.is_nan() {
            self.done = true;
            return None;
        }
        let t = self.t;
        // Recomputes finish in start order, so the in-flight list is a queue.
        while let Some(&done) = self.inflight.front() {
            if done > t {
                break;
            }
            self.expiry = self.expiry.max(done + self.cfg.ttl);
            self.inflight.pop_front();
        }
        self.counters.requests += 1;
        let outcome = if t < self.expiry {
            let early = self.mode == Mode::XFetch
                && t - self.cfg.delta * self.cfg.beta * libm::log(1.0 - self.rng.next_f64())
                    >= self.expiry;
            if early {
                self.recompute();
                Outcome::EarlyRefresh
            } else {
                Outcome::Fresh
            }
        } else {
            let idle = self.inflight.is_empty();
            match self.mode {
                Mode::None | Mode::XFetch => {
                    self.recompute();
                    self.counters.waited += 1;
                    Outcome::Recompute
                }
                Mode::Lock => {
                    if idle {
                        self.recompute();
                    }
                    self.counters.waited += 1;
                    if idle {
                        Outcome::Recompute
                    } else {
                        Outcome::Waited
                    }
                }
                Mode::Stale => {
                    if idle {
                        self.recompute();
                    }
                    self.counters.stale += 1;
                    if idle {
                        Outcome::StaleRefresh
                    } else {
                        Outcome::Stale
                    }
                }
            }
        };
        Some(Event {
            t,
            outcome,
            inflight: self.inflight.len() as u32,
            expiry: self.expiry,
        })
    }
}

/// One chart bucket.
/// Written as `[requests, recomputes, peak_inflight, waited, stale]` (the output's
/// `bucket_fields`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "[u32; 5]", into = "[u32; 5]")]
pub struct Bucket {
    /// Requests arriving in the bucket.
    pub requests: u32,
    /// Recomputes started in the bucket.
    pub recomputes: u32,
    /// Most recomputes in flight seen at an arrival in the bucket (the DB load).
    pub peak_inflight: u32,
    /// Requests that waited.
    pub waited: u32,
    /// Requests served stale.
    pub stale: u32,
}

/// A run in progress, folded into chart buckets as it goes, so a UI can advance it a few
/// thousand arrivals at a time and get exactly what [`StampedeSummary::run`] gives.
pub struct BucketFold {
    sim: StampedeSim,
    mode: Mode,
    width: f64,
    buckets: Vec<Bucket>,
    t: f64,
}

impl BucketFold {
    /// A run of `mode` with buckets of `cfg.bucket` seconds (0.1 s when unset).
    pub fn new(cfg: &StampedeConfig, mode: Mode) -> Self {
        let width = if cfg.bucket > 0.0 { cfg.bucket } else { 0.1 };
        let n = libm::ceil(cfg.duration / width).clamp(1.0, 10_000_000.0) as usize;
        BucketFold {
            sim: StampedeSim::new(*cfg, mode),
            mode,
            width,
            buckets: vec![Bucket::default(); n],
            t: 0.0,
        }
    }

    /// Virtual time of the last arrival seen.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Folds up to `events` more arrivals into the buckets; true when the run has ended.
    pub fn step(&mut self, events: usize) -> bool {
        let n = self.buckets.len();
        for _ in 0..events {
            let Some(e) = self.sim.next() else {
                return true;
            };
            self.t = e.t;
            let b = &mut self.buckets[((e.t / self.width) as usize).min(n - 1)];
            b.requests += 1;
            b.peak_inflight = b.peak_inflight.max(e.inflight);
            match e.outcome {
                Outcome::EarlyRefresh | Outcome::StaleRefresh => b.recomputes += 1,
                Outcome::Recompute => {
                    b.recomputes += 1;
                    b.waited += 1;
                }
                Outcome::Waited => b.waited += 1,
                Outcome::Stale | Outcome::Fresh => {}
            }
            if matches!(e.outcome, Outcome::Stale | Outcome::StaleRefresh) {
                b.stale += 1;
            }
        }
        false
    }

    /// The summary of what has run (the whole run once [`BucketFold::step`] returned true).
    pub fn finish(self) -> StampedeSummary {
        StampedeSummary {
            mode: self.mode,
            counters: self.sim.counters(),
            buckets: self.buckets,
        }
    }
}

impl From<[u32; 5]> for Bucket {
    fn from([requests, recomputes, peak_inflight, waited, stale]: [u32; 5]) -> Self {
        Bucket {
            requests,
            recomputes,
            peak_inflight,
            waited,
            stale,
        }
    }
}

impl From<Bucket> for [u32; 5] {
    fn from(b: Bucket) -> Self {
        [b.requests, b.recomputes, b.peak_inflight, b.waited, b.stale]
    }
}

/// Counters over the first `upto` of `buckets`; `peak` is the most recomputes in flight seen
/// in them.
pub fn so_far(buckets: &[Bucket], upto: usize) -> Counters {
    let mut c = Counters::default();
    for b in &buckets[..upto.min(buckets.len())] {
        c.requests += u64::from(b.requests);
        c.db += u64::from(b.recomputes);
        c.waited += u64::from(b.waited);
        c.stale += u64::from(b.stale);
        c.peak = c.peak.max(b.peak_inflight);
    }
    c
}

/// A finished run: the seed's counters plus the DB-load series.
#[derive(Clone, Debug, PartialEq)]
pub struct StampedeSummary {
    /// The mode.
    pub mode: Mode,
    /// The seed's counters.
    pub counters: Counters,
    /// Buckets of `cfg.bucket` seconds covering `[0, duration)`.
    pub buckets: Vec<Bucket>,
}

impl StampedeSummary {
    /// Runs `mode` to the end.
    pub fn run(cfg: &StampedeConfig, mode: Mode) -> Self {
        let mut r = BucketFold::new(cfg, mode);
        while !r.step(usize::MAX) {}
        r.finish()
    }

    /// Counters over the first `upto` buckets (what the run has done by then, for a
    /// timeline).
    pub fn so_far(&self, upto: usize) -> Counters {
        so_far(&self.buckets, upto)
    }

    /// The seed's row: `mode.padEnd(8)` then db, waited, stale, peak padded 13, 9, 8, 10.
    pub fn row(&self) -> String {
        let c = &self.counters;
        format!(
            "{}{}{}{}{}",
            pad_end(self.mode.word(), 8),
            pad_start(&c.db.to_string(), 13),
            pad_start(&c.waited.to_string(), 9),
            pad_start(&c.stale.to_string(), 8),
            pad_start(&c.peak.to_string(), 10)
        )
    }
}

/// Most chart buckets [`bucket_width`] gives.
pub const MAX_BUCKETS: f64 = 300.0;

/// A round bucket width (seconds) giving at most [`MAX_BUCKETS`] buckets over `duration`.
pub fn bucket_width(duration: f64) -> f64 {
    const NICE: [f64; 12] = [
        0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0,
    ];
    NICE.into_iter()
        .find(|w| duration / w <= MAX_BUCKETS)
        .unwrap_or(5.0)
}

/// The four modes run one after another, a chunk of arrivals per step: the step-able form
/// of [`table`] over [`Mode::ALL`].
pub struct ModeSet {
    cfg: StampedeConfig,
    current: Option<BucketFold>,
    done: Vec<StampedeSummary>,
}

impl ModeSet {
    /// All four modes of `cfg`.
    pub fn new(cfg: StampedeConfig) -> Self {
        ModeSet {
            cfg,
            current: None,
            done: Vec::new(),
        }
    }

    /// Folds up to `events` more arrivals; returns a mode's summary when it finishes.
    pub fn step(&mut self, events: usize) -> Option<StampedeSummary> {
        let &mode = Mode::ALL.get(self.done.len())?;
        let cfg = self.cfg;
        let r = self
            .current
            .get_or_insert_with(|| BucketFold::new(&cfg, mode));
        if r.step(events) {
            let s = self.current.take()?.finish();
            self.done.push(s.clone());
            return Some(s);
        }
        None
    }

    /// Whether every mode has run.
    pub fn is_done(&self) -> bool {
        self.done.len() == Mode::ALL.len()
    }

    /// The summaries so far, in [`Mode::ALL`] order.
    pub fn summaries(&self) -> &[StampedeSummary] {
        &self.done
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        let cur = self
            .current
            .as_ref()
            .map_or(0.0, |r| (r.time() / self.cfg.duration).clamp(0.0, 1.0));
        (self.done.len() as f64 + cur) / Mode::ALL.len() as f64
    }
}

/// The seed's three header lines for `cfg`.
pub fn header(cfg: &StampedeConfig) -> String {
    format!(
        "recompute {} ms, TTL {} s, {} req/s for {} s\n\
         mode     DB recomputes   waited  served  peak DB\n                      at expiry   stale  parallel\n",
        js_string(cfg.delta * 1000.0),
        js_string(cfg.ttl),
        js_string(cfg.rate),
        js_string(cfg.duration)
    )
}

/// Runs `modes` and prints the seed's table.
pub fn table(cfg: &StampedeConfig, modes: &[Mode]) -> (Vec<StampedeSummary>, String) {
    let runs: Vec<StampedeSummary> = modes
        .iter()
        .map(|&m| StampedeSummary::run(cfg, m))
        .collect();
    let mut out = header(cfg);
    for r in &runs {
        out.push_str(&r.row());
        out.push('\n');
    }
    (runs, out)
}

/// Arrivals per unit of work.
const EVENTS: usize = 32_768;

/// The lab's run: the four designs, a design's row as it finishes (the chart series come
/// with the output).
pub struct DesignsCount {
    set: ModeSet,
    cfg: StampedeConfig,
}

impl DesignsCount {
    /// The four designs of `cfg`.
    pub fn new(cfg: StampedeConfig) -> Self {
        DesignsCount {
            set: ModeSet::new(cfg),
            cfg,
        }
    }
}

impl Run for DesignsCount {
    type Part = StampedeRow;
    type Output = StampedeOutput;
    fn step(&mut self) -> Option<StampedeRow> {
        self.set.step(EVENTS).map(|s| StampedeRow::of(&s, false))
    }
    fn is_done(&self) -> bool {
        self.set.is_done()
    }
    fn progress(&self) -> f64 {
        self.set.progress()
    }
    fn output(&mut self) -> StampedeOutput {
        StampedeOutput::new(&self.cfg, self.set.summaries(), true)
    }
}

/// Every design of `cfg` run to the end (what the lab's run gives).
pub fn run(cfg: &StampedeConfig) -> StampedeOutput {
    let (runs, _) = table(cfg, Mode::ALL);
    StampedeOutput::new(cfg, &runs, true)
}
