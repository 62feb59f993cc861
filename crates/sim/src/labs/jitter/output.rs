//! What TTL jitter gives the view and `labsim --json`: the chosen case binned for its chart
//! ([`JitterOutput`], the main run's: its timeline walks the bars, position `k` after the
//! first `k`) and the seed's eight cases ([`JitterCases`], what `labsim jitter --json`
//! prints: a row per case, its per-second histogram with `--series`).

use super::model::{ttl_text, JitterConfig, JitterWave};
use crate::labs::def::{Figure, Figures, Steps};
use serde::{Deserialize, Serialize};

/// One case's figures (a row of the seed's table), and its per-second histogram when asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitterRow {
    /// `J`, e.g. 0.1 for ±10%.
    pub jitter: f64,
    /// Which expiry (1 = first).
    pub round: u32,
    /// Seconds from the first to the last expiry, inclusive.
    pub span: u64,
    /// Keys per second over the span.
    pub mean_per_s: f64,
    /// Expirations in the busiest second.
    pub max_per_s: u32,
    /// `(second, expirations)` for every second with at least one, ascending (`--series`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Vec<(i64, u32)>>,
}

impl JitterRow {
    /// The row of `w` (with its histogram when `series`).
    pub fn of(w: &JitterWave, series: bool) -> Self {
        JitterRow {
            jitter: w.case.jitter,
            round: w.case.round,
            span: w.span,
            mean_per_s: w.mean,
            max_per_s: w.max,
            histogram: series.then(|| w.histogram.clone()),
        }
    }
}

/// The seed's cases with some keys, TTL and seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitterCases {
    /// Keys written at the same moment.
    pub keys: u32,
    /// Base TTL in seconds.
    pub ttl: f64,
    /// The TTL as the seed prints it.
    pub ttl_text: String,
    /// Generator seed, re-used for every case.
    pub seed: u32,
    /// A row per case, in order.
    pub rows: Vec<JitterRow>,
}

impl JitterCases {
    /// `rows` of `cfg`.
    pub fn new(cfg: &JitterConfig, rows: Vec<JitterRow>) -> Self {
        JitterCases {
            keys: cfg.keys,
            ttl: cfg.ttl,
            ttl_text: ttl_text(cfg),
            seed: cfg.seed,
            rows,
        }
    }
}

/// Most bars in a [`JitterOutput`].
pub const MAX_BINS: i64 = 150;
/// Narrowest window a [`JitterOutput`] shows, in seconds (so "all in one second" reads as a
/// wall).
pub const MIN_WINDOW: i64 = 60;

/// One case drawn for a chart: its row without the per-second histogram (which can hold
/// hundreds of thousands of seconds), binned into at most [`MAX_BINS`] bars over a window a
/// little wider than the span, plus how the span's seconds spread by load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitterOutput {
    /// The case's figures.
    pub row: JitterRow,
    /// Keys written at once.
    pub keys: u32,
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

impl JitterOutput {
    /// The chart of a finished wave of `keys` keys.
    pub fn new(mut wave: JitterWave, keys: u32) -> Self {
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
        JitterOutput {
            row: JitterRow::of(&wave, false),
            keys,
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

impl JitterOutput {
    /// The second position `k` stands at: the start of bar `k` (the window's end after the
    /// last).
    pub fn second_at(&self, k: usize) -> i64 {
        self.w0 + self.bin * k.min(self.bins.len()) as i64
    }
}

impl Steps for JitterOutput {
    /// The chart's bars.
    fn steps(&self) -> usize {
        self.bins.len()
    }
}

impl Figures for JitterOutput {
    /// The case's span, mean and busiest second; the keys expired by the cursor and in its
    /// last second, at the end.
    fn figures(&self) -> Vec<Figure> {
        let n = self.bins.len();
        vec![
            Figure::count("span", self.row.span),
            Figure::new("mean", self.row.mean_per_s),
            Figure::count("max", u64::from(self.row.max_per_s)),
            Figure::count("gone", self.before(n)),
            Figure::count("this-second", u64::from(self.this_second(n))),
        ]
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
