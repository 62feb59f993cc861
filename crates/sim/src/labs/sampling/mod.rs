//! Redis' sampled LRU (eviction deck, seed 001 §3): how close the oldest of k sampled keys
//! comes to the true least recently used one, against k/(k+1) — `crate::eviction::sampling`,
//! measured a `k` at a time.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, Sweep};
pub use output::SamplingOutput;
pub use params::SamplingParams;

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};
use crate::eviction::sampling::{format_sampling, sampling_quality, SamplingPoint};

crate::run_def! {
    /// The lab's one run: a point per `k`, as each is measured.
    pub struct SamplingRun = "points", SamplingPoint => SamplingOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = SamplingRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "sampling",
    title: "নমুনা-ভিত্তিক LRU কতটা ভালো",
    blurb: "Redis-এর নমুনা-ভিত্তিক LRU: k-টি নমুনা কতটা কাছে যায়, k/(k+1)",
    fields: SamplingParams::FIELDS,
    presets: &[],
    rules: rules_of::<SamplingParams>,
    runs: &[SamplingRun::NAME],
    live: false,
};

/// The sampled-LRU experiment's runner.
pub struct SamplingLab;

/// The registry's entry.
pub static LAB: SamplingLab = SamplingLab;

impl Lab for SamplingLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(SamplingRun::erase(Sweep::new(p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "keys=100000&kmax=32&trials=20000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            more: &["samples"],
            usage: &["[--samples 1,2,5,...]"],
            ..CliSpec::new("mean age rank of the oldest of k sampled keys vs k/(k+1), k = 1..kmax")
        }
    }

    /// `--samples` measures the listed `k`s instead (one generator continued from `k` to `k`).
    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: SamplingParams = p.read();
        let all: Vec<u32> = (1..=p.kmax).collect();
        let ks = a.num_list("samples", &all, 1, 1000)?;
        let out = SamplingOutput {
            points: sampling_quality(p.keys, &ks, p.trials, p.seed),
        };
        Ok(crate::cli::emit(a, format_sampling(&out.points), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
