//! The waves: each key's expiry drawn as the seed draws it, counted a chunk of keys at a time
//! into a per-second histogram, one case ([`CaseCount`]) or several ([`CaseSet`]), and the
//! lab's two runs over them ([`ChartCount`], [`TableCount`]).

use super::output::{JitterCases, JitterOutput, JitterRow};
use crate::jsfmt::{js_string, pad_start, to_fixed};
use crate::labs::lab::Run;
use crate::rng::Mulberry32;

/// Parameters shared by all cases.
#[derive(Clone, Copy, Debug, PartialEq)]
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
pub struct CaseCount {
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

impl CaseCount {
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
        CaseCount {
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

    /// The finished wave (complete once [`CaseCount::step`] returned true).
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
#[derive(Clone, Debug, PartialEq)]
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
        let mut r = CaseCount::new(cfg, case);
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
}

/// Several cases counted one after another, a chunk of keys per step: the step-able form of
/// [`table`] (waves without histograms unless `keep_histograms`).
pub struct CaseSet {
    cfg: JitterConfig,
    cases: Vec<JitterCase>,
    keep_histograms: bool,
    current: Option<CaseCount>,
    done: usize,
}

impl CaseSet {
    /// The cases of `cfg`, in order.
    pub fn new(cfg: JitterConfig, cases: Vec<JitterCase>, keep_histograms: bool) -> Self {
        CaseSet {
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
            .get_or_insert_with(|| CaseCount::new(&cfg, case));
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
        let cur = self.current.as_ref().map_or(0.0, CaseCount::progress);
        (self.done as f64 + cur) / self.cases.len().max(1) as f64
    }
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

/// Generator draws per unit of work.
const DRAWS: u32 = 65_536;

/// The chosen case, binned for its chart (the lab's main run).
pub struct ChartCount {
    set: CaseSet,
    keys: u32,
    wave: Option<JitterWave>,
}

impl ChartCount {
    /// The case of `p`.
    pub fn new(cfg: JitterConfig, case: JitterCase) -> Self {
        ChartCount {
            set: CaseSet::new(cfg, vec![case], true),
            keys: cfg.keys,
            wave: None,
        }
    }
}

impl Run for ChartCount {
    type Part = ();
    type Output = JitterOutput;
    fn step(&mut self) -> Option<()> {
        if let Some(w) = self.set.step(DRAWS) {
            self.wave = Some(w);
        }
        None
    }
    fn is_done(&self) -> bool {
        self.set.is_done()
    }
    fn progress(&self) -> f64 {
        self.set.progress()
    }
    fn output(&mut self) -> JitterOutput {
        JitterOutput::new(self.wave.take().expect("one case"), self.keys)
    }
}

/// The seed's eight cases with the chosen keys, TTL and seed, a row as each finishes.
pub struct TableCount {
    cfg: JitterConfig,
    set: CaseSet,
    rows: Vec<JitterRow>,
}

impl TableCount {
    /// `cases` of `cfg`.
    pub fn new(cfg: JitterConfig, cases: Vec<JitterCase>) -> Self {
        TableCount {
            cfg,
            set: CaseSet::new(cfg, cases, false),
            rows: Vec::new(),
        }
    }
}

impl Run for TableCount {
    type Part = JitterRow;
    type Output = JitterCases;
    fn step(&mut self) -> Option<JitterRow> {
        let row = JitterRow::of(&self.set.step(DRAWS)?, false);
        self.rows.push(row.clone());
        Some(row)
    }
    fn is_done(&self) -> bool {
        self.set.is_done()
    }
    fn progress(&self) -> f64 {
        self.set.progress()
    }
    fn output(&mut self) -> JitterCases {
        JitterCases::new(&self.cfg, std::mem::take(&mut self.rows))
    }
}

/// The text of `cfg`'s TTL as the seed's JavaScript prints it (`3600`).
pub fn ttl_text(cfg: &JitterConfig) -> String {
    js_string(cfg.ttl)
}
