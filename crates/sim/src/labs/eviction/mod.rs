//! The policy race (eviction deck, seed 001 §4): FIFO/RANDOM/LRU/LFU/OPT (or any of the
//! registry's policies, `crate::eviction`) on the seed's three traces. Its runs: the seed's
//! table ([`EvictionTable`], the main run), the race replayed on one trace with "why was this
//! key evicted" for one policy ([`EvictionRace`]), and hit ratio against cache size
//! ([`EvictionCurve`]).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{FRAMES, LOG};
pub use output::{Cell, CurvePoint, CurveSeries, EvictionOutput, EvictionRow, Logged, RaceOutput};
pub use params::{EvictionParams, Policy, TraceName};

use super::def::{rules_of, Choice, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};
use crate::eviction::registry::UnknownPolicy;
use crate::eviction::runner::{eviction_table, EvictionConfig};
use crate::eviction::trace::TraceKind;
use model::{CurveCount, RaceReplay, TableCount};

/// Registry words of every eviction policy, for pickers.
pub const POLICY_NAMES: &[&str] = <Policy as Choice>::WORDS;

crate::run_def! {
    /// The main run: the seed's table, a row as soon as a policy has run on every trace.
    pub struct EvictionTable = "table", EvictionRow => EvictionOutput;
}

crate::run_def! {
    /// The race replayed on the shown trace, for the timeline.
    pub struct EvictionRace = "race", () => RaceOutput;
}

crate::run_def! {
    /// Hit ratio against cache size on the shown trace, a point at a time.
    pub struct EvictionCurve = "curve", CurvePoint => Vec<CurveSeries>;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = EvictionTable;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "eviction",
    title: "Eviction policy-র দৌড়",
    blurb: "FIFO, RANDOM, LRU, LFU, OPT আর আধুনিক policy — তিন trace-এ hit ratio, seed-এর টেবিল হুবহু",
    fields: EvictionParams::FIELDS,
    presets: &[],
    rules: rules_of::<EvictionParams>,
    runs: &[EvictionTable::NAME, EvictionRace::NAME, EvictionCurve::NAME],
    live: false,
};

/// The policy race's runner.
pub struct EvictionLab;

/// The registry's entry.
pub static LAB: EvictionLab = EvictionLab;

impl Lab for EvictionLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let p: EvictionParams = p.read();
        let e = |e: UnknownPolicy| e.to_string();
        match job.run.as_str() {
            "" | EvictionTable::NAME => Ok(EvictionTable::erase(
                TableCount::new(p.config()).map_err(e)?,
            )),
            EvictionRace::NAME => Ok(EvictionRace::erase(RaceReplay::new(&p).map_err(e)?)),
            EvictionCurve::NAME => Ok(EvictionCurve::erase(CurveCount::new(&p).map_err(e)?)),
            other => Err(format!("eviction has no run `{other}`")),
        }
    }

    fn heaviest(&self) -> &'static str {
        "keys=200000&cache=20000&warmup=0&requests=300000&alpha=3"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            // `trace` and `focus` choose what the lab's timeline shows: not part of the table.
            skip: &["trace", "focus"],
            more: &["traces"],
            usage: &["[--traces zipf,scan,shift]"],
            ..CliSpec::new("policy hit ratios on the seed's three traces")
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: EvictionParams = p.read();
        let traces = a
            .words("traces", <TraceName as Choice>::WORDS)?
            .iter()
            .map(|w| {
                TraceKind::parse(w).ok_or_else(|| {
                    CliError(format!("--traces: unknown trace '{w}' (zipf, scan, shift)"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let cfg = EvictionConfig {
            traces,
            ..p.config()
        };
        let table = eviction_table(&cfg).map_err(|e| CliError(e.to_string()))?;
        let out = EvictionOutput::of(&table);
        Ok(crate::cli::emit(a, table.to_text(), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
