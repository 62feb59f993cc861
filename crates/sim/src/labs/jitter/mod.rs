//! TTL jitter: 100,000 keys written at once with TTL 3600 s expire in one second unless each
//! TTL gets a random ±J share, `TTL · (1 + J·u)` with `u` uniform in `[-1, 1)`. Keys are
//! rewritten as they expire; round `r` is each key's `r`-th expiry.
//!
//! Reproduces the seed's `wave(J, round)` exactly: a fresh `mulberry32(5)` per case; for each
//! key, `round` draws summed as `t += TTL * (1 + J * (2 * rnd() - 1))`; bucket
//! `Math.floor(t)`; then span = max − min + 1 seconds, mean = keys / span, max = the busiest
//! second. The per-second histogram is kept (sparse) for a chart.

/// Its practice questions.
pub mod practice;

use super::lab::{erase, no_rules, AnyRun, CliSpec, Job, Lab, LabInfo, Run};
use super::params::{float, int, seed, Field, Params};
use crate::cli::{Args, CliError};
use crate::jsfmt::{js_string, pad_start, to_fixed};
use serde::{Deserialize, Serialize};
use crate::obj;
use crate::rng::Mulberry32;
use serde_json::Value;

/// Parameters shared by all cases.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JitterConfig {
    /// Keys written at the same moment (seed: 100,000).
    pub keys: u32,
    /// Base TTL in seconds (seed: 3600).
    pub ttl: f64,
    /// Generator seed, re-used for every case (seed: 5).
    pub seed: u32,
}

impl Default for JitterConfig {
    fn default() -> Self {
        Self {
            keys: 100_000,
            ttl: 3600.0,
            seed: 5,
        }
    }
}

/// One case: jitter share and expiry round.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JitterCase {
    /// `J`, e.g. 0.1 for ±10%.
    pub jitter: f64,
    /// Which expiry (1 = first).
    pub round: u32,
}

/// The seed's eight cases: J = 0, 1%, 5%, 10%, 20% in round 1; 0 in round 3; 10% in
/// rounds 2 and 3.
pub fn seed_cases() -> Vec<JitterCase> {
    let c = |jitter, round| JitterCase { jitter, round };
    vec![
        c(0.0, 1),
        c(0.01, 1),
        c(0.05, 1),
        c(0.1, 1),
        c(0.2, 1),
        c(0.0, 3),
        c(0.1, 2),
        c(0.1, 3),
    ]
}

/// Each key's expiry time in a case, in key order (the step API: one item per key).
pub fn expiry_times(cfg: &JitterConfig, case: JitterCase) -> impl Iterator<Item = f64> {
    let mut rng = Mulberry32::new(cfg.seed);
    let (ttl, j, round) = (cfg.ttl, case.jitter, case.round);
    (0..cfg.keys).map(move |_| {
        let mut t = 0.0;
        for _ in 0..round {
            t += ttl * (1.0 + j * (2.0 * rng.next_f64() - 1.0));
        }
        t
    })
}

/// Dense counters compacted per step.
const COMPACT: usize = 65_536;
/// Largest dense per-second counter array (beyond it, seconds go to a sorted list).
const DENSE_LIMIT: i64 = 4_000_000;

/// One case being counted a chunk of keys at a time, for a UI that must not block: the same
/// draws and the same result as [`JitterWave::run`] (which runs it to the end).
pub struct JitterRun {
    case: JitterCase,
    times: Box<dyn Iterator<Item = f64>>,
    left: u32,
    keys: u32,
    /// Second of `dense[0]`.
    lo: i64,
    dense: Vec<u32>,
    /// Seconds outside the dense range (only if the float sum strays past its bounds).
    overflow: Vec<i64>,
    /// Compaction position in `dense`.
    pos: usize,
    histogram: Vec<(i64, u32)>,
}

impl JitterRun {
    /// A run of `case`.
    pub fn new(cfg: &JitterConfig, case: JitterCase) -> Self {
        let r = f64::from(case.round);
        let lo = libm::floor(r * cfg.ttl * (1.0 - case.jitter)) as i64 - 2;
        let hi = libm::ceil(r * cfg.ttl * (1.0 + case.jitter)) as i64 + 2;
        let len = hi.saturating_sub(lo).saturating_add(1);
        let dense = if (1..=DENSE_LIMIT).contains(&len) {
            vec![0; len as usize]
        } else {
            Vec::new()
        };
        JitterRun {
            case,
            times: Box::new(expiry_times(cfg, case)),
            left: cfg.keys,
            keys: cfg.keys,
            lo,
            dense,
            overflow: Vec::new(),
            pos: 0,
            histogram: Vec::new(),
        }
    }

    /// Draws for about `draws` more generator calls, or compacts a chunk of counters; true
    /// when the histogram is whole.
    pub fn step(&mut self, draws: u32) -> bool {
        if self.left > 0 {
            let n = (draws / self.case.round.max(1)).max(1).min(self.left);
            for t in self.times.by_ref().take(n as usize) {
                let s = libm::floor(t) as i64;
                let slot = s
                    .checked_sub(self.lo)
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| self.dense.get_mut(i));
                match slot {
                    Some(c) => *c += 1,
                    None => self.overflow.push(s),
                }
            }
            self.left -= n;
            return false;
        }
        let end = (self.pos + COMPACT).min(self.dense.len());
        for (i, &c) in self.dense[self.pos..end].iter().enumerate() {
            if c > 0 {
                self.histogram.push((self.lo + (self.pos + i) as i64, c));
            }
        }
        self.pos = end;
        if self.pos < self.dense.len() {
            return false;
        }
        if !self.overflow.is_empty() {
            // Seconds outside the dense range never meet one inside it: add them as runs.
            self.overflow.sort_unstable();
            let mut runs: Vec<(i64, u32)> = Vec::new();
            for &s in &self.overflow {
                match runs.last_mut() {
                    Some((last, n)) if *last == s => *n += 1,
                    _ => runs.push((s, 1)),
                }
            }
            self.histogram.extend(runs);
            self.histogram.sort_unstable_by_key(|h| h.0);
            self.overflow = Vec::new();
        }
        true
    }

    /// The finished wave (complete once [`JitterRun::step`] returned true).
    pub fn finish(self) -> JitterWave {
        let histogram = self.histogram;
        let (first, last) = match (histogram.first(), histogram.last()) {
            (Some(a), Some(b)) => (a.0, b.0),
            _ => (0, -1),
        };
        let span = (last - first + 1).max(0) as u64;
        JitterWave {
            case: self.case,
            keys: self.keys,
            span,
            mean: if span == 0 {
                0.0
            } else {
                f64::from(self.keys) / span as f64
            },
            max: histogram.iter().map(|h| h.1).max().unwrap_or(0),
            histogram,
        }
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        let drawn = f64::from(self.keys - self.left) / f64::from(self.keys.max(1));
        let compacted = if self.dense.is_empty() {
            0.0
        } else {
            self.pos as f64 / self.dense.len() as f64
        };
        0.85 * drawn + 0.15 * compacted
    }
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JitterWave {
    /// The case.
    pub case: JitterCase,
    /// Keys simulated.
    pub keys: u32,
    /// Seconds from the first to the last expiry, inclusive.
    pub span: u64,
    /// Keys per second over the span.
    pub mean: f64,
    /// Expirations in the busiest second.
    pub max: u32,
    /// `(second, expirations)` for every second with at least one, ascending.
    pub histogram: Vec<(i64, u32)>,
}

impl JitterWave {
    /// Runs one case to the end.
    pub fn run(cfg: &JitterConfig, case: JitterCase) -> Self {
        let mut r = JitterRun::new(cfg, case);
        while !r.step(u32::MAX) {}
        r.finish()
    }

    /// Dense counts in bins of `bin_seconds` (≥ 1) from the first expiry second, for a bar
    /// chart: `(bin start second, expirations)`.
    pub fn binned(&self, bin_seconds: u32) -> Vec<(i64, u32)> {
        let bin = i64::from(bin_seconds.max(1));
        let Some(&(first, _)) = self.histogram.first() else {
            return Vec::new();
        };
        let mut out: Vec<(i64, u32)> = Vec::new();
        for &(s, n) in &self.histogram {
            let start = first + (s - first) / bin * bin;
            while out.last().is_none_or(|l| l.0 < start) {
                let next = out.last().map_or(first, |l| l.0 + bin);
                out.push((next, 0));
            }
            out.last_mut().expect("pushed").1 += n;
        }
        out
    }

    /// The seed's row: `` `+-${(J * 100).toFixed(0)}%`.padStart(6) `` then round, span,
    /// mean (`toFixed(1)`) and max, padded 7, 10, 12, 10.
    pub fn row(&self) -> String {
        format!(
            "{}{}{}{}{}",
            pad_start(&format!("+-{}%", to_fixed(self.case.jitter * 100.0, 0)), 6),
            pad_start(&self.case.round.to_string(), 7),
            pad_start(&self.span.to_string(), 10),
            pad_start(&to_fixed(self.mean, 1), 12),
            pad_start(&self.max.to_string(), 10),
        )
    }

    /// Machine-readable form (histogram included when `with_histogram`).
    pub fn to_json(&self, with_histogram: bool) -> Value {
        let mut j = vec![
            ("jitter".to_string(), Value::from(self.case.jitter)),
            ("round".to_string(), Value::from(self.case.round)),
            ("span".to_string(), Value::from(self.span)),
            ("mean_per_s".to_string(), Value::from(self.mean)),
            ("max_per_s".to_string(), Value::from(self.max)),
        ];
        if with_histogram {
            j.push((
                "histogram".to_string(),
                Value::Array(
                    self.histogram
                        .iter()
                        .map(|&(s, n)| Value::Array(vec![Value::from(s), Value::from(n)]))
                        .collect(),
                ),
            ));
        }
        Value::Object(j.into_iter().collect())
    }
}

/// Most bars in a [`JitterChart`].
pub const MAX_BINS: i64 = 150;
/// Narrowest window a [`JitterChart`] shows, in seconds (so "all in one second" reads as a
/// wall).
pub const MIN_WINDOW: i64 = 60;

/// One case drawn for a chart: the wave without its per-second histogram (which can hold
/// hundreds of thousands of seconds), binned into at most [`MAX_BINS`] bars over a window a
/// little wider than the span, plus how the span's seconds spread by load.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JitterChart {
    /// The wave (its `histogram` left empty).
    pub wave: JitterWave,
    /// First second of the window.
    pub w0: i64,
    /// Seconds per bar.
    pub bin: i64,
    /// Expirations per bar.
    pub bins: Vec<u64>,
    /// The busiest second (the first of them).
    pub peak_at: i64,
    /// Expirations in the last second of each bar (`ends[i]` is second `w0 + bin·(i+1) − 1`),
    /// for "this second" at a timeline position.
    pub ends: Vec<u32>,
    /// How the seconds of the span spread by load: (expirations in a second, bin start) →
    /// number of seconds, in bins of `load_bin`.
    pub loads: Vec<(f64, f64)>,
    /// Width of a load bin.
    pub load_bin: u32,
}

impl JitterChart {
    /// The chart of a finished wave.
    pub fn new(mut wave: JitterWave) -> Self {
        let h = std::mem::take(&mut wave.histogram);
        let (first, last) = match (h.first(), h.last()) {
            (Some(a), Some(b)) => (a.0, b.0),
            _ => (0, 0),
        };
        let span = last - first + 1;
        let total = (span + 2 * (span / 20).max(1)).max(MIN_WINDOW);
        let w0 = first - (total - span) / 2;
        let bin = ((total + MAX_BINS - 1) / MAX_BINS).max(1);
        let n = ((total + bin - 1) / bin).max(1) as usize;
        let mut bins = vec![0u64; n];
        for &(s, c) in &h {
            if let Some(b) = usize::try_from((s - w0) / bin)
                .ok()
                .and_then(|i| bins.get_mut(i))
            {
                *b += u64::from(c);
            }
        }
        let at = |s: i64| h.binary_search_by_key(&s, |x| x.0).map_or(0, |i| h[i].1);
        let ends = (0..n).map(|i| at(w0 + bin * (i as i64 + 1) - 1)).collect();
        let peak_at = h.iter().find(|x| x.1 == wave.max).map_or(first, |x| x.0);
        // Every second of the span, the empty ones too.
        let empty = u64::try_from(span)
            .unwrap_or(0)
            .saturating_sub(h.len() as u64);
        let low = if empty > 0 {
            0
        } else {
            h.iter().map(|x| x.1).min().unwrap_or(0)
        };
        let load_bin = (wave.max - low + 1).div_ceil(40).max(1);
        let mut counts = vec![0u64; ((wave.max - low) / load_bin + 1) as usize];
        counts[0] += empty;
        for &(_, c) in &h {
            if let Some(b) = counts.get_mut(((c - low) / load_bin) as usize) {
                *b += 1;
            }
        }
        let loads = counts
            .iter()
            .enumerate()
            .map(|(i, &n)| (f64::from(low + i as u32 * load_bin), n as f64))
            .collect();
        JitterChart {
            wave,
            w0,
            bin,
            bins,
            peak_at,
            ends,
            loads,
            load_bin,
        }
    }

    /// Keys expired in the first `bars` bars, i.e. before second `w0 + bin · bars`.
    pub fn before(&self, bars: usize) -> u64 {
        self.bins.iter().take(bars).sum()
    }

    /// Keys expiring in the last second before bar `bars` starts (0 at the window's start).
    pub fn this_second(&self, bars: usize) -> u32 {
        bars.checked_sub(1)
            .and_then(|i| self.ends.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Expirations per second in each bar (the bar's count over its width).
    pub fn per_second(&self) -> Vec<f64> {
        self.bins
            .iter()
            .map(|&b| b as f64 / self.bin as f64)
            .collect()
    }
}

/// Several cases counted one after another, a chunk of keys per step: the step-able form of
/// [`table`] (waves without histograms unless `keep_histograms`).
pub struct JitterSet {
    cfg: JitterConfig,
    cases: Vec<JitterCase>,
    keep_histograms: bool,
    current: Option<JitterRun>,
    done: usize,
}

impl JitterSet {
    /// The cases of `cfg`, in order.
    pub fn new(cfg: JitterConfig, cases: Vec<JitterCase>, keep_histograms: bool) -> Self {
        JitterSet {
            cfg,
            cases,
            keep_histograms,
            current: None,
            done: 0,
        }
    }

    /// About `draws` more generator calls; returns a case's wave when it finishes.
    pub fn step(&mut self, draws: u32) -> Option<JitterWave> {
        let &case = self.cases.get(self.done)?;
        let cfg = self.cfg;
        let r = self
            .current
            .get_or_insert_with(|| JitterRun::new(&cfg, case));
        if r.step(draws) {
            let mut w = self.current.take()?.finish();
            if !self.keep_histograms {
                w.histogram = Vec::new();
            }
            self.done += 1;
            return Some(w);
        }
        None
    }

    /// Whether every case is counted.
    pub fn is_done(&self) -> bool {
        self.done == self.cases.len()
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        let cur = self.current.as_ref().map_or(0.0, JitterRun::progress);
        (self.done as f64 + cur) / self.cases.len().max(1) as f64
    }
}

/// A round number at or above `v` (1, 2, 2.5, 5 × 10ⁿ), for an axis ceiling.
pub fn nice_ceil(v: f64) -> f64 {
    if v <= 1.0 || !v.is_finite() {
        return 1.0;
    }
    let p = libm::pow(10.0, libm::floor(libm::log10(v)));
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&x| x >= v)
        .unwrap_or(10.0 * p)
}

/// Header of the seed's table.
pub const HEADER: &str = "jitter  round  span (s)  mean per s  max per s";

/// Runs `cases` and prints the seed's table.
pub fn table(cfg: &JitterConfig, cases: &[JitterCase]) -> (Vec<JitterWave>, String) {
    let waves: Vec<JitterWave> = cases.iter().map(|&c| JitterWave::run(cfg, c)).collect();
    let mut out = format!("{HEADER}\n");
    for w in &waves {
        out.push_str(&w.row());
        out.push('\n');
    }
    (waves, out)
}

/// JSON for a whole table.
pub fn table_json(cfg: &JitterConfig, waves: &[JitterWave], with_histogram: bool) -> Value {
    obj([
        ("keys", Value::from(cfg.keys)),
        ("ttl", Value::from(cfg.ttl)),
        ("ttl_text", Value::from(js_string(cfg.ttl))),
        ("seed", Value::from(cfg.seed)),
        (
            "rows",
            Value::Array(waves.iter().map(|w| w.to_json(with_histogram)).collect()),
        ),
    ])
}

// --- the lab -------------------------------------------------------------------------------

/// TTL jitter (seed 001 §5).
const FIELDS: &[Field] = &[
    int("keys", "key", 1, 1_000_000, "100000"),
    int("ttl", "TTL (s)", 1, 86_400, "3600"),
    float("jitter", "jitter J", 0.0, 0.9, "0.1"),
    int("round", "কততম মেয়াদ", 1, 10, "1"),
    seed("5"),
];


/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "jitter",
    title: "TTL jitter — একসাথে মরা ঠেকানো",
    blurb: "একসাথে লেখা key একসাথে মরে — jitter দিলে ঢেউ কতটা চ্যাপ্টা হয়",
    fields: FIELDS,
    presets: &[],
    rules: no_rules,
    runs: &["chart", "table"],
    live: false,
};

/// TTL jitter's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitterParams {
    /// Keys written at once.
    pub keys: u32,
    /// Base TTL in seconds.
    pub ttl: f64,
    /// J, the jitter share.
    pub jitter: f64,
    /// Which expiry.
    pub round: u32,
    /// Generator seed.
    pub seed: u32,
}

impl JitterParams {
    /// The setup shared by all cases.
    pub fn config(&self) -> JitterConfig {
        JitterConfig {
            keys: self.keys,
            ttl: self.ttl,
            seed: self.seed,
        }
    }

    /// The chosen case (J, round).
    pub fn case(&self) -> JitterCase {
        JitterCase {
            jitter: self.jitter,
            round: self.round,
        }
    }
}


/// Generator draws per unit of work.
const DRAWS: u32 = 65_536;

/// The chosen case, binned for its chart (`chart`), or the seed's eight cases with the
/// chosen keys, TTL and seed, a row as each finishes (`table`).
pub struct JitterWork {
    set: JitterSet,
    chart: bool,
    waves: Vec<JitterWave>,
}

/// What a jitter run gives: the chosen case's chart, or the eight cases (without histograms).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JitterOutput {
    /// The chosen case's chart.
    Chart(JitterChart),
    /// The eight cases.
    Table(Vec<JitterWave>),
}

impl Run for JitterWork {
    type Part = JitterWave;
    type Output = JitterOutput;
    fn step(&mut self) -> Option<JitterWave> {
        let w = self.set.step(DRAWS)?;
        self.waves.push(w.clone());
        (!self.chart).then_some(w)
    }
    fn is_done(&self) -> bool {
        self.set.is_done()
    }
    fn progress(&self) -> f64 {
        self.set.progress()
    }
    fn output(&mut self) -> JitterOutput {
        let waves = std::mem::take(&mut self.waves);
        if self.chart {
            JitterOutput::Chart(JitterChart::new(waves.into_iter().next().expect("one case")))
        } else {
            JitterOutput::Table(waves)
        }
    }
}

/// TTL jitter's runner.
pub struct JitterLab;

/// The registry's entry.
pub static LAB: JitterLab = JitterLab;

impl Lab for JitterLab {
    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let p: JitterParams = p.typed();
        let chart = match job.run.as_str() {
            "" | "chart" => true,
            "table" => false,
            other => return Err(format!("jitter has no run `{other}`")),
        };
        let cases = if chart { vec![p.case()] } else { seed_cases() };
        Ok(erase(JitterWork {
            set: JitterSet::new(p.config(), cases, chart),
            chart,
            waves: Vec::new(),
        }))
    }

    fn heaviest(&self) -> &'static str {
        "keys=1000000&ttl=86400&jitter=0.9&round=10"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "TTL jitter: expirations per second (the seed's eight cases, or one \
                      --jitter J --round R, or --case J:ROUND...)",
            skip: &[],
            more: &["case"],
            switches: &["series"],
            usage: &["[--case J:ROUND ...]", "[--series]"],
        }
    }

    fn cli(&self, params: &Params, a: &Args) -> Result<String, CliError> {
        let p: JitterParams = params.typed();
        let cfg = p.config();
        let one = a.value("jitter").is_some() || a.value("round").is_some();
        let cases = match a.all("case") {
            v if v.is_empty() && one => vec![p.case()],
            v if v.is_empty() => seed_cases(),
            v => v
                .into_iter()
                .map(|c| {
                    let (j, r) = c.split_once(':').ok_or_else(|| {
                        CliError(format!("--case: '{c}' is not J:ROUND (e.g. 0.1:2)"))
                    })?;
                    let (p, errors) = Params::from_pairs(
                        &INFO,
                        [("jitter".into(), j.into()), ("round".into(), r.into())],
                    );
                    match errors.first() {
                        Some(e) => Err(CliError(format!("--case: {}: {}", e.key, e.message))),
                        None => Ok(p.typed::<JitterParams>().case()),
                    }
                })
                .collect::<Result<Vec<_>, CliError>>()?,
        };
        let (waves, text) = table(&cfg, &cases);
        Ok(crate::cli::emit(a, text, || {
            table_json(&cfg, &waves, a.flag("series"))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_jitter_is_one_second() {
        let w = JitterWave::run(
            &JitterConfig::default(),
            JitterCase {
                jitter: 0.0,
                round: 1,
            },
        );
        assert_eq!((w.span, w.max), (1, 100_000));
        assert_eq!(w.histogram, [(3600, 100_000)]);
    }

    #[test]
    fn binned_sums_to_keys() {
        let cfg = JitterConfig {
            keys: 1000,
            ..JitterConfig::default()
        };
        let w = JitterWave::run(
            &cfg,
            JitterCase {
                jitter: 0.1,
                round: 1,
            },
        );
        let bins = w.binned(60);
        assert_eq!(bins.iter().map(|b| b.1).sum::<u32>(), 1000);
        assert!(bins.windows(2).all(|p| p[1].0 - p[0].0 == 60));
        let chart = JitterChart::new(w.clone());
        assert_eq!(chart.before(chart.bins.len()), 1000);
        assert!(chart.bins.len() as i64 <= MAX_BINS);
        assert_eq!(chart.wave.max, w.max);
        assert!(chart.wave.histogram.is_empty());
        // "This second" at the end of each bar is the histogram's count of that second.
        for (i, &e) in chart.ends.iter().enumerate() {
            let s = chart.w0 + chart.bin * (i as i64 + 1) - 1;
            let want = w.histogram.iter().find(|h| h.0 == s).map_or(0, |h| h.1);
            assert_eq!(e, want, "bar {i}");
            assert_eq!(chart.this_second(i + 1), want);
        }
        assert_eq!(chart.this_second(0), 0);
        // The load spread counts every second of the span once.
        let seconds: f64 = chart.loads.iter().map(|l| l.1).sum();
        assert_eq!(seconds as u64, w.span);
    }

    #[test]
    fn a_wall_is_one_bar_in_a_minute_window() {
        let w = JitterWave::run(
            &JitterConfig::default(),
            JitterCase {
                jitter: 0.0,
                round: 1,
            },
        );
        let c = JitterChart::new(w);
        assert_eq!(c.bin, 1);
        assert_eq!(c.bins.len() as i64, MIN_WINDOW);
        assert_eq!(c.bins.iter().filter(|&&b| b > 0).count(), 1);
        assert_eq!(c.peak_at, 3600);
    }

    #[test]
    fn the_set_in_steps_equals_the_table() {
        let cfg = JitterConfig {
            keys: 3000,
            ..JitterConfig::default()
        };
        let (want, _) = table(&cfg, &seed_cases());
        for draws in [1, 5000, u32::MAX] {
            let mut set = JitterSet::new(cfg, seed_cases(), true);
            let mut got = Vec::new();
            while !set.is_done() {
                got.extend(set.step(draws));
            }
            assert_eq!(got, want, "draws {draws}");
        }
    }

    #[test]
    fn nice_ceilings() {
        for (v, want) in [
            (0.5, 1.0),
            (1.0, 1.0),
            (1.2, 2.0),
            (2.2, 2.5),
            (3.0, 5.0),
            (7.0, 10.0),
            (180.0, 200.0),
            (100_000.0, 100_000.0),
            (f64::NAN, 1.0),
        ] {
            assert_eq!(nice_ceil(v), want, "{v}");
        }
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;

    /// The plain definition: floor every expiry, sort, count runs.
    fn reference(cfg: &JitterConfig, case: JitterCase) -> Vec<(i64, u32)> {
        let mut secs: Vec<i64> = expiry_times(cfg, case)
            .map(|t| libm::floor(t) as i64)
            .collect();
        secs.sort_unstable();
        let mut h: Vec<(i64, u32)> = Vec::new();
        for s in secs {
            match h.last_mut() {
                Some((last, n)) if *last == s => *n += 1,
                _ => h.push((s, 1)),
            }
        }
        h
    }

    /// Counting in chunks of any size gives the plain definition's histogram.
    #[test]
    fn chunked_counting_equals_the_definition() {
        for (keys, ttl, seed) in [(5_000, 3600.0, 5), (777, 10.0, 1), (3_000, 86_400.0, 42)] {
            let cfg = JitterConfig { keys, ttl, seed };
            for (jitter, round) in [(0.0, 1), (0.01, 1), (0.1, 3), (0.5, 2), (0.9, 10)] {
                let case = JitterCase { jitter, round };
                let want = reference(&cfg, case);
                for draws in [1, 97, 8192, u32::MAX] {
                    let mut r = JitterRun::new(&cfg, case);
                    while !r.step(draws) {}
                    assert_eq!(
                        r.finish().histogram,
                        want,
                        "keys {keys} ttl {ttl} J {jitter} round {round} draws {draws}"
                    );
                }
            }
        }
    }
}
