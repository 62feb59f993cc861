//! How good is sampled LRU? The seed's §3 argument, as an experiment.
//!
//! Rank the resident keys by age, 0 = newest … 1 = oldest (percentile). Draw `k` keys
//! uniformly and evict the oldest of them: its expected percentile rank is the mean of the
//! maximum of `k` uniforms, `k/(k+1)` — 83% for Redis' default `k = 5`, 91% for `k = 10`,
//! 100% for exact LRU. Sampling is with replacement (as independent draws are in the
//! formula) from `mulberry32(seed)`.

use crate::rng::Mulberry32;

/// One `k`: measured mean percentile rank of the victim and the formula's value.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SamplingPoint {
    /// Samples per eviction.
    pub k: u32,
    /// Mean percentile rank of the oldest sampled key, in `[0, 1]`.
    pub measured: f64,
    /// `k / (k + 1)`.
    pub theory: f64,
}

/// Measures the mean victim rank over `trials` evictions from `keys` resident keys.
pub fn sampling_quality(keys: u32, ks: &[u32], trials: u32, seed: u32) -> Vec<SamplingPoint> {
    let mut rng = Mulberry32::new(seed);
    ks.iter()
        .map(|&k| sampling_point(keys, k, trials, &mut rng))
        .collect()
}

/// One `k` of [`sampling_quality`], drawing from `rng` (which the next `k` continues), so a
/// UI can measure one `k` at a time and get exactly the same numbers.
pub fn sampling_point(keys: u32, k: u32, trials: u32, rng: &mut Mulberry32) -> SamplingPoint {
    let keys = keys.max(2);
    let k = k.max(1);
    let mut total = 0.0;
    for _ in 0..trials {
        let oldest = (0..k).map(|_| rng.below(keys)).max().unwrap_or(0);
        total += f64::from(oldest) / f64::from(keys - 1);
    }
    SamplingPoint {
        k,
        measured: total / f64::from(trials.max(1)),
        theory: f64::from(k) / f64::from(k + 1),
    }
}

/// Table: `k`, measured and theoretical mean percentile rank.
pub fn format_sampling(points: &[SamplingPoint]) -> String {
    use crate::jsfmt::{pad_start, to_fixed};
    let mut out = String::from("samples  victim older than  k/(k+1)\n");
    for p in points {
        out.push_str(&pad_start(&p.k.to_string(), 7));
        out.push_str(&pad_start(
            &format!("{}%", to_fixed(p.measured * 100.0, 1)),
            18,
        ));
        out.push_str(&pad_start(
            &format!("{}%", to_fixed(p.theory * 100.0, 1)),
            9,
        ));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_k_over_k_plus_one() {
        let pts = sampling_quality(10_000, &[1, 5, 10], 100_000, 1);
        for p in &pts {
            assert!((p.measured - p.theory).abs() < 0.005, "{p:?}");
        }
        assert_eq!(crate::jsfmt::to_fixed(pts[1].measured * 100.0, 0), "83");
        assert_eq!(crate::jsfmt::to_fixed(pts[2].measured * 100.0, 0), "91");
    }
}

#[cfg(test)]
mod point_tests {
    use super::*;

    /// Measuring one `k` at a time on one generator gives exactly the single call's numbers.
    #[test]
    fn one_k_at_a_time_equals_the_whole_run() {
        let ks: Vec<u32> = (1..=12).collect();
        let whole = sampling_quality(1000, &ks, 300, 1);
        let mut rng = Mulberry32::new(1);
        let parts: Vec<SamplingPoint> = ks
            .iter()
            .map(|&k| sampling_point(1000, k, 300, &mut rng))
            .collect();
        assert_eq!(whole, parts);
    }
}
