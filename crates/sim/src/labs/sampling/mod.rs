//! Redis' sampled LRU (eviction deck, seed 001 §3): how close the oldest of k sampled keys
//! comes to the true least recently used one, against k/(k+1).

/// Its practice questions.
pub mod practice;

use super::lab::{erase, no_rules, AnyRun, CliSpec, Job, Lab, LabInfo, Run};
use super::params::{int, seed, Field, Params};
use crate::cli::{Args, CliError};
use crate::eviction::sampling::{format_sampling, sampling_json, sampling_point, sampling_quality, SamplingPoint};
use crate::rng::Mulberry32;
use serde::{Deserialize, Serialize};

/// The sampled-LRU quality experiment (seed 001 §3).
const FIELDS: &[Field] = &[
    int("keys", "key", 10, 100_000, "1000"),
    int("kmax", "সর্বোচ্চ k", 1, 32, "16"),
    int("trials", "পরীক্ষা", 10, 20_000, "2000"),
    seed("1"),
];


/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "sampling",
    title: "নমুনা-ভিত্তিক LRU কতটা ভালো",
    blurb: "Redis-এর নমুনা-ভিত্তিক LRU: k-টি নমুনা কতটা কাছে যায়, k/(k+1)",
    fields: FIELDS,
    presets: &[],
    rules: no_rules,
    runs: &["points"],
    live: false,
};

/// The sampled-LRU experiment's parameters, typed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingParams {
    /// Resident keys.
    pub keys: u32,
    /// Largest k (samples per eviction); the run measures k = 1..=kmax.
    pub kmax: u32,
    /// Evictions measured per k.
    pub trials: u32,
    /// Generator seed.
    pub seed: u32,
}


/// `sampling_quality` for `k = 1..=kmax`, one `k` per step, continuing one
/// `mulberry32(seed)` from `k` to `k` exactly as the single call (and `labsim`) does.
pub struct SamplingRun {
    p: SamplingParams,
    rng: Mulberry32,
    next: u32,
    drawn: u64,
    points: Vec<SamplingPoint>,
}

impl SamplingRun {
    /// The experiment of `p`.
    pub fn new(p: SamplingParams) -> Self {
        SamplingRun {
            rng: Mulberry32::new(p.seed),
            p,
            next: 1,
            drawn: 0,
            points: Vec::new(),
        }
    }

    /// Whether every `k` is measured.
    pub fn is_done(&self) -> bool {
        self.next > self.p.kmax
    }

    /// Measures the next `k`.
    pub fn step(&mut self) -> Option<SamplingPoint> {
        if self.is_done() {
            return None;
        }
        let k = self.next;
        let pt = sampling_point(self.p.keys, k, self.p.trials, &mut self.rng);
        self.points.push(pt);
        self.drawn += u64::from(self.p.trials) * u64::from(k);
        self.next += 1;
        Some(pt)
    }

    /// How far along, 0.0..=1.0 (by random draws).
    pub fn progress(&self) -> f64 {
        let k = u64::from(self.p.kmax);
        let all = (u64::from(self.p.trials) * k * (k + 1) / 2).max(1);
        self.drawn as f64 / all as f64
    }

    /// The points so far.
    pub fn points(&self) -> &[SamplingPoint] {
        &self.points
    }
}


impl Run for SamplingRun {
    type Part = SamplingPoint;
    type Output = Vec<SamplingPoint>;
    fn step(&mut self) -> Option<SamplingPoint> {
        SamplingRun::step(self)
    }
    fn is_done(&self) -> bool {
        SamplingRun::is_done(self)
    }
    fn progress(&self) -> f64 {
        SamplingRun::progress(self)
    }
    fn output(&mut self) -> Vec<SamplingPoint> {
        self.points.clone()
    }
}

/// The sampled-LRU experiment's runner.
pub struct SamplingLab;

/// The registry's entry.
pub static LAB: SamplingLab = SamplingLab;

impl Lab for SamplingLab {
    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(SamplingRun::new(p.typed())))
    }

    fn heaviest(&self) -> &'static str {
        "keys=100000&kmax=32&trials=20000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "mean age rank of the oldest of k sampled keys vs k/(k+1), k = 1..kmax",
            skip: &[],
            more: &["samples"],
            switches: &[],
            usage: &["[--samples 1,2,5,...]"],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: SamplingParams = p.typed();
        let all: Vec<u32> = (1..=p.kmax).collect();
        let ks = a.num_list("samples", &all, 1, 1000)?;
        let pts = sampling_quality(p.keys, &ks, p.trials, p.seed);
        Ok(crate::cli::emit(a, format_sampling(&pts), || sampling_json(&pts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_in_steps_equals_sampling_quality() {
        let p: SamplingParams = Params::defaults(&INFO).typed();
        let mut run = SamplingRun::new(p);
        let mut got = Vec::new();
        while !run.is_done() {
            got.extend(run.step());
        }
        let ks: Vec<u32> = (1..=p.kmax).collect();
        assert_eq!(got, sampling_quality(p.keys, &ks, p.trials, p.seed));
        assert_eq!(run.points(), &got[..]);
        assert_eq!(run.progress(), 1.0);
    }

}
