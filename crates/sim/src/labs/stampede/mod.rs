//! Cache stampede on one hot key: Poisson arrivals, a TTL, a recompute that takes `delta`
//! seconds, and four ways to handle expiry — none, a single-flight lock, lock + serve stale
//! (soft TTL), and XFetch (Vattani, Chierichetti & Lowenstein, "Optimal Probabilistic Cache
//! Stampede Prevention", PVLDB 8(8), 2015).
//!
//! Reproduces the seed's `sim(mode)` exactly, including the order of generator draws: one
//! `rnd()` per arrival for the gap `-ln(1 - u) / rate`, and for XFetch one more per arrival
//! *while the value is valid* for the early-refresh test
//! `t - delta * beta * ln(1 - u) >= expiry`. At each arrival, recomputes that finished by
//! then extend the expiry to `done + ttl` (the max over them). Time is virtual seconds.

/// Its practice questions.
pub mod practice;

use super::lab::{erase, no_rules, AnyRun, CliSpec, Job, Lab, LabInfo, Run};
use super::params::{float, seed, Field, Params};
use crate::cli::{Args, CliError};
use crate::jsfmt::{js_string, pad_end, pad_start};
use serde::{Deserialize, Serialize};
use crate::obj;
use crate::rng::{exp_gap, Mulberry32};
use serde_json::Value;
use std::collections::VecDeque;

/// How expiry is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mode {
    /// No protection: every request after expiry recomputes.
    None,
    /// Single-flight lock: one recomputes, the others wait.
    Lock,
    /// Lock + soft TTL: one refreshes in the background, the others get the stale value.
    Stale,
    /// Probabilistic early refresh before expiry (XFetch), no lock.
    XFetch,
}

impl Mode {
    /// The seed's four modes, in its row order.
    pub const ALL: [Mode; 4] = [Mode::None, Mode::Lock, Mode::Stale, Mode::XFetch];

    /// Lower-case name as printed by the seed.
    pub fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Lock => "lock",
            Mode::Stale => "stale",
            Mode::XFetch => "xfetch",
        }
    }

    /// Parses a mode name.
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// Parameters (defaults = the seed's constants).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
pub struct StampedeRun {
    sim: StampedeSim,
    mode: Mode,
    width: f64,
    buckets: Vec<Bucket>,
    t: f64,
}

impl StampedeRun {
    /// A run of `mode` with buckets of `cfg.bucket` seconds (0.1 s when unset).
    pub fn new(cfg: &StampedeConfig, mode: Mode) -> Self {
        let width = if cfg.bucket > 0.0 { cfg.bucket } else { 0.1 };
        let n = libm::ceil(cfg.duration / width).clamp(1.0, 10_000_000.0) as usize;
        StampedeRun {
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

    /// The summary of what has run (the whole run once [`StampedeRun::step`] returned true).
    pub fn finish(self) -> StampedeSummary {
        StampedeSummary {
            mode: self.mode,
            counters: self.sim.counters(),
            buckets: self.buckets,
        }
    }
}

/// A finished run: the seed's counters plus the DB-load series.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
        let mut r = StampedeRun::new(cfg, mode);
        while !r.step(usize::MAX) {}
        r.finish()
    }

    /// Counters over the first `upto` buckets (what the run has done by then, for a
    /// timeline); `peak` is the most recomputes in flight seen in them.
    pub fn so_far(&self, upto: usize) -> Counters {
        let mut c = Counters::default();
        for b in &self.buckets[..upto.min(self.buckets.len())] {
            c.requests += u64::from(b.requests);
            c.db += u64::from(b.recomputes);
            c.waited += u64::from(b.waited);
            c.stale += u64::from(b.stale);
            c.peak = c.peak.max(b.peak_inflight);
        }
        c
    }

    /// The seed's row: `mode.padEnd(8)` then db, waited, stale, peak padded 13, 9, 8, 10.
    pub fn row(&self) -> String {
        let c = &self.counters;
        format!(
            "{}{}{}{}{}",
            pad_end(self.mode.name(), 8),
            pad_start(&c.db.to_string(), 13),
            pad_start(&c.waited.to_string(), 9),
            pad_start(&c.stale.to_string(), 8),
            pad_start(&c.peak.to_string(), 10)
        )
    }

    /// Machine-readable form (buckets included when `with_buckets`).
    pub fn to_json(&self, with_buckets: bool) -> Value {
        let c = &self.counters;
        let mut v = vec![
            ("mode".to_string(), Value::from(self.mode.name())),
            ("requests".to_string(), Value::from(c.requests)),
            ("db_recomputes".to_string(), Value::from(c.db)),
            ("waited".to_string(), Value::from(c.waited)),
            ("served_stale".to_string(), Value::from(c.stale)),
            ("peak_parallel".to_string(), Value::from(c.peak)),
        ];
        if with_buckets {
            v.push((
                "buckets".to_string(),
                Value::Array(
                    self.buckets
                        .iter()
                        .map(|b| {
                            Value::Array(vec![
                                Value::from(b.requests),
                                Value::from(b.recomputes),
                                Value::from(b.peak_inflight),
                                Value::from(b.waited),
                                Value::from(b.stale),
                            ])
                        })
                        .collect(),
                ),
            ));
        }
        Value::Object(v.into_iter().collect())
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
pub struct StampedeSet {
    cfg: StampedeConfig,
    current: Option<StampedeRun>,
    done: Vec<StampedeSummary>,
}

impl StampedeSet {
    /// All four modes of `cfg`.
    pub fn new(cfg: StampedeConfig) -> Self {
        StampedeSet {
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
            .get_or_insert_with(|| StampedeRun::new(&cfg, mode));
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

/// JSON for a whole table.
pub fn table_json(cfg: &StampedeConfig, runs: &[StampedeSummary], with_buckets: bool) -> Value {
    obj([
        ("rate", Value::from(cfg.rate)),
        ("delta", Value::from(cfg.delta)),
        ("ttl", Value::from(cfg.ttl)),
        ("duration", Value::from(cfg.duration)),
        ("beta", Value::from(cfg.beta)),
        ("seed", Value::from(cfg.seed)),
        ("bucket", Value::from(cfg.bucket)),
        (
            "bucket_fields",
            Value::Array(
                ["requests", "recomputes", "peak_inflight", "waited", "stale"]
                    .into_iter()
                    .map(Value::from)
                    .collect(),
            ),
        ),
        (
            "rows",
            Value::Array(runs.iter().map(|r| r.to_json(with_buckets)).collect()),
        ),
    ])
}

// --- the lab -------------------------------------------------------------------------------

/// The four stampede designs of seed 001 §7.
pub const MODE_NAMES: &[&str] = &["none", "lock", "stale", "xfetch"];
/// The stampede comparison (seed 001 §7).
const FIELDS: &[Field] = &[
    float("rate", "রিকোয়েস্ট/s", 1.0, 20_000.0, "2000"),
    float("delta", "recompute Δ (s)", 0.001, 5.0, "0.05"),
    float("ttl", "TTL (s)", 0.1, 3_600.0, "10"),
    float("duration", "সময় (s)", 1.0, 600.0, "60"),
    float("beta", "β", 0.0, 10.0, "1"),
    seed("2026"),
];


/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "stampede",
    title: "Cache stampede — চার নকশা পাশাপাশি",
    blurb: "মেয়াদের মুহূর্তে ডেটাবেসে ভিড় — none, lock, stale, XFetch পাশাপাশি",
    fields: FIELDS,
    presets: &[],
    rules: no_rules,
    runs: &["designs"],
    live: false,
};

/// The stampede comparison's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StampedeParams {
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
}

impl StampedeParams {
    /// The run these parameters describe, with chart buckets of a round width giving at
    /// most 300 buckets ([`bucket_width`]).
    pub fn config(&self) -> StampedeConfig {
        StampedeConfig {
            rate: self.rate,
            delta: self.delta,
            ttl: self.ttl,
            duration: self.duration,
            beta: self.beta,
            seed: self.seed,
            bucket: bucket_width(self.duration),
        }
    }
}


/// Arrivals per unit of work.
const EVENTS: usize = 32_768;

/// The four designs, a design's counters as it finishes (the seed's row; the chart series
/// come with the result).
pub struct StampedeWork {
    set: StampedeSet,
    cfg: StampedeConfig,
}

/// The four designs, with the config they ran with (bucket width included).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StampedeOutput {
    /// What ran.
    pub config: StampedeConfig,
    /// One summary per design.
    pub runs: Vec<StampedeSummary>,
}

impl Run for StampedeWork {
    type Part = (Mode, Counters);
    type Output = StampedeOutput;
    fn step(&mut self) -> Option<(Mode, Counters)> {
        self.set.step(EVENTS).map(|m| (m.mode, m.counters))
    }
    fn is_done(&self) -> bool {
        self.set.is_done()
    }
    fn progress(&self) -> f64 {
        self.set.progress()
    }
    fn output(&mut self) -> StampedeOutput {
        StampedeOutput {
            config: self.cfg,
            runs: self.set.summaries().to_vec(),
        }
    }
}

/// The stampede comparison's runner.
pub struct StampedeLab;

/// The registry's entry.
pub static LAB: StampedeLab = StampedeLab;

impl Lab for StampedeLab {
    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let cfg = p.typed::<StampedeParams>().config();
        Ok(erase(StampedeWork {
            set: StampedeSet::new(cfg),
            cfg,
        }))
    }

    fn heaviest(&self) -> &'static str {
        "rate=20000&duration=600&delta=5&ttl=0.1&beta=10"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "one hot key at expiry: none / lock / stale / xfetch",
            skip: &[],
            more: &["modes", "bucket"],
            switches: &["series"],
            usage: &["[--modes none,lock,stale,xfetch]", "[--bucket W]", "[--series]", "(--bucket defaults to the lab's: a round width, at most 300 buckets)"],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let d = p.typed::<StampedeParams>().config();
        let cfg = StampedeConfig {
            bucket: a.num("bucket", d.bucket, 1e-3, 1e7)?,
            ..d
        };
        if cfg.duration / cfg.bucket > 1e6 {
            return Err(CliError("--bucket: more than 10^6 buckets".into()));
        }
        let modes = a
            .words("modes", MODE_NAMES)?
            .iter()
            .map(|m| {
                Mode::parse(m).ok_or_else(|| {
                    CliError(format!(
                        "--modes: unknown mode '{m}' (none, lock, stale, xfetch)"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (runs, text) = table(&cfg, &modes);
        Ok(crate::cli::emit(a, text, || {
            table_json(&cfg, &runs, a.flag("series"))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepping_matches_run_to_end() {
        let cfg = StampedeConfig::default();
        let mut sim = StampedeSim::new(cfg, Mode::Lock);
        let n = sim.by_ref().count() as u64;
        let s = StampedeSummary::run(&cfg, Mode::Lock);
        assert_eq!(sim.counters(), s.counters);
        assert_eq!(n, s.counters.requests);
        let per_bucket: u64 = s.buckets.iter().map(|b| u64::from(b.recomputes)).sum();
        assert_eq!(per_bucket, s.counters.db);
        assert_eq!(s.buckets.len(), 600);
    }

    #[test]
    fn the_set_in_steps_equals_the_table() {
        let cfg = StampedeConfig {
            duration: 20.0,
            bucket: bucket_width(20.0),
            ..StampedeConfig::default()
        };
        let (want, _) = table(&cfg, &Mode::ALL);
        for events in [1, 777, usize::MAX] {
            let mut set = StampedeSet::new(cfg);
            let mut got = Vec::new();
            while !set.is_done() {
                got.extend(set.step(events));
            }
            assert_eq!(got, want, "events {events}");
            assert_eq!(set.summaries(), &want[..]);
        }
        let s = &want[0];
        assert_eq!(s.so_far(s.buckets.len()), s.counters);
        assert_eq!(s.so_far(0), Counters::default());
    }

    #[test]
    fn bucket_widths_are_round_and_few() {
        assert_eq!(bucket_width(60.0), 0.2);
        assert_eq!(bucket_width(1.0), 0.01);
        assert_eq!(bucket_width(600.0), 2.0);
        for d in [1.0, 7.5, 60.0, 333.0, 600.0] {
            assert!(d / bucket_width(d) <= MAX_BUCKETS, "{d}");
        }
    }
}
