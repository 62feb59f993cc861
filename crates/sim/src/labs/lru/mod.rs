//! The LRU step-through (eviction deck, seed 001 §2): a hash map and a doubly linked list,
//! what each `get`/`put` changes and whom it evicts — the seed's trace (`put A, put B, put C,
//! get A, put D, get B, get A` on 3 keys) or the student's own, through LRU or any policy of
//! the registry (`crate::eviction::lru_trace`).

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::run;
pub use output::{touch, LruOutput, PolicyText, Touch};
pub use params::LruParams;

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};
use crate::eviction::lru_trace::format_table;

crate::run_def! {
    /// The lab's one run: the walk, ready at once (a few dozen operations).
    pub struct LruRun = "walk", () => LruOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = LruRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "lru",
    title: "LRU-র ভেতরে — ধাপে ধাপে",
    blurb: "hash map আর doubly linked list — প্রতিটি get/put-এ কী বদলায়, কে বেরোয় আর কেন",
    fields: LruParams::FIELDS,
    presets: &[],
    rules: rules_of::<LruParams>,
    runs: &[LruRun::NAME],
    live: false,
};

/// The LRU step-through's runner.
pub struct LruLab;

/// The registry's entry.
pub static LAB: LruLab = LruLab;

impl Lab for LruLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(LruRun::ready(run(&p.read())?))
    }

    fn heaviest(&self) -> &'static str {
        "capacity=12&ops=put+A,get+B,put+C,get+D,put+E,get+F,put+G,get+H,put+I,get+J,put+K,get+L,put+M,get+N,put+O,get+P,put+Q,get+R,put+S,get+T,put+A,get+B,put+C,get+D,put+E,get+F,put+G,get+H,put+I,get+J,put+K,get+L,put+M,get+N,put+O,get+P,put+Q,get+R,put+S,get+T&policy=w-tinylfu"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: Some("lru-trace"),
            ..CliSpec::new("the LRU step-through table")
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let out = model::walk(&p.read(), false).map_err(|e| CliError(format!("--ops: {e}")))?;
        let label = if out.is_lru() {
            "MRU ... LRU"
        } else {
            "kept ... next victim"
        };
        Ok(crate::cli::emit(a, format_table(&out.steps, label), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}
