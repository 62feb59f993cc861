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

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{header, run, table, Counters, Mode, StampedeConfig, StampedeSim, StampedeSummary};
pub use output::{StampedeOutput, StampedeRow};
pub use params::StampedeParams;

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};
use model::DesignsCount;

crate::run_def! {
    /// The lab's one run: the four designs, a row as each finishes.
    pub struct StampedeRun = "designs", StampedeRow => StampedeOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = StampedeRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "stampede",
    title: "Cache stampede — চার নকশা পাশাপাশি",
    blurb: "মেয়াদের মুহূর্তে ডেটাবেসে ভিড় — none, lock, stale, XFetch পাশাপাশি",
    fields: StampedeParams::FIELDS,
    presets: &[],
    rules: rules_of::<StampedeParams>,
    runs: &[StampedeRun::NAME],
    live: false,
};

/// The stampede comparison's runner.
pub struct StampedeLab;

/// The registry's entry.
pub static LAB: StampedeLab = StampedeLab;

impl Lab for StampedeLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(StampedeRun::erase(DesignsCount::new(
            p.read::<StampedeParams>().config(),
        )))
    }

    fn heaviest(&self) -> &'static str {
        "rate=20000&duration=600&delta=5&ttl=0.1&beta=10"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            more: &["modes", "bucket"],
            switches: &["series"],
            usage: &[
                "[--modes none,lock,stale,xfetch]",
                "[--bucket W]",
                "[--series]",
                "(--bucket defaults to the lab's: a round width, at most 300 buckets)",
            ],
            ..CliSpec::new("one hot key at expiry: none / lock / stale / xfetch")
        }
    }

    /// The seed's table of the designs asked for: `--json` prints their [`StampedeOutput`]
    /// (each row's buckets with `--series`).
    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let d = p.read::<StampedeParams>().config();
        let cfg = StampedeConfig {
            bucket: a.num("bucket", d.bucket, 1e-3, 1e7)?,
            ..d
        };
        if cfg.duration / cfg.bucket > 1e6 {
            return Err(CliError("--bucket: more than 10^6 buckets".into()));
        }
        let modes = a
            .words("modes", <Mode as super::def::Choice>::WORDS)?
            .iter()
            .map(|m| {
                Mode::from_word(&m.to_ascii_lowercase()).ok_or_else(|| {
                    CliError(format!(
                        "--modes: unknown mode '{m}' (none, lock, stale, xfetch)"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (runs, text) = table(&cfg, &modes);
        let out = StampedeOutput::new(&cfg, &runs, a.flag("series"));
        Ok(crate::cli::emit(a, text, || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
