//! TTL jitter (eviction deck, seed 001 §5): 100,000 keys written at once with TTL 3600 s expire
//! in one second unless each TTL gets a random ±J share, `TTL · (1 + J·u)` with `u` uniform in
//! `[-1, 1)`. Keys are rewritten as they expire; round `r` is each key's `r`-th expiry.
//!
//! Reproduces the seed's `wave(J, round)` exactly: a fresh `mulberry32(5)` per case; for each
//! key, `round` draws summed as `t += TTL * (1 + J * (2 * rnd() - 1))`; bucket
//! `Math.floor(t)`; then span = max − min + 1 seconds, mean = keys / span, max = the busiest
//! second. The per-second histogram is kept (sparse) for the chart.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{seed_cases, table, JitterCase, JitterConfig, JitterWave, HEADER};
pub use output::{JitterCases, JitterOutput, JitterRow};
pub use params::JitterParams;

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};
use model::{ChartCount, TableCount};

crate::run_def! {
    /// The main run: the chosen case, binned for its chart.
    pub struct JitterChart = "chart", () => JitterOutput;
}

crate::run_def! {
    /// The seed's eight cases with the chosen keys, TTL and seed, a row as each finishes.
    pub struct JitterTable = "table", JitterRow => JitterCases;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = JitterChart;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "jitter",
    title: "TTL jitter — একসাথে মরা ঠেকানো",
    blurb: "একসাথে লেখা key একসাথে মরে — jitter দিলে ঢেউ কতটা চ্যাপ্টা হয়",
    fields: JitterParams::FIELDS,
    presets: &[],
    rules: rules_of::<JitterParams>,
    runs: &[JitterChart::NAME, JitterTable::NAME],
    live: false,
};

/// TTL jitter's runner.
pub struct JitterLab;

/// The registry's entry.
pub static LAB: JitterLab = JitterLab;

impl Lab for JitterLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let p: JitterParams = p.read();
        match job.run.as_str() {
            "" | JitterChart::NAME => Ok(JitterChart::erase(ChartCount::new(p.config(), p.case()))),
            JitterTable::NAME => Ok(JitterTable::erase(TableCount::new(
                p.config(),
                seed_cases(),
            ))),
            other => Err(format!("jitter has no run `{other}`")),
        }
    }

    fn heaviest(&self) -> &'static str {
        "keys=1000000&ttl=86400&jitter=0.9&round=10"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            more: &["case"],
            switches: &["series"],
            usage: &["[--case J:ROUND ...]", "[--series]"],
            ..CliSpec::new(
                "TTL jitter: expirations per second (the seed's eight cases, or one \
                      --jitter J --round R, or --case J:ROUND...)",
            )
        }
    }

    /// The seed's table of the cases asked for: `--json` prints their [`JitterCases`] (each
    /// row's histogram with `--series`).
    fn cli(&self, params: &Params, a: &Args) -> Result<String, CliError> {
        let p: JitterParams = params.read();
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
                        None => Ok(p.read::<JitterParams>().case()),
                    }
                })
                .collect::<Result<Vec<_>, CliError>>()?,
        };
        let (waves, text) = table(&cfg, &cases);
        let series = a.flag("series");
        let out = JitterCases::new(
            &cfg,
            waves.iter().map(|w| JitterRow::of(w, series)).collect(),
        );
        Ok(crate::cli::emit(a, text, || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
