//! The LRU step-through (eviction deck, seed 001 §2): a hash map and a doubly linked list,
//! what each `get`/`put` changes and whom it evicts — the seed's trace or the student's own,
//! through LRU or any policy of the registry.

/// Its practice questions.
pub mod practice;

use super::eviction::POLICY_NAMES;
use super::lab::{erase, no_rules, AnyRun, CliSpec, Job, Lab, LabInfo, Ready};
use super::params::{int, seed, Field, Kind, Params};
use crate::cli::{Args, CliError};
use crate::eviction::lru_trace::{format_table, parse_ops, policy_trace, steps_json, TraceStep};
use crate::eviction::registry::{info, Spec};
use serde::{Deserialize, Serialize};

/// The LRU step-through (seed 001 §2).
const FIELDS: &[Field] = &[
    int("capacity", "ক্যাশের আকার", 1, 12, "3"),
    Field {
        key: "ops",
        label: "অপারেশন",
        kind: Kind::Ops,
        default: "put A, put B, put C, get A, put D, get B, get A",
    },
    Field {
        key: "policy",
        label: "policy",
        kind: Kind::Choice { words: POLICY_NAMES, labels: &[] },
        default: "lru",
    },
    seed("1"),
];


/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "lru",
    title: "LRU-র ভেতরে — ধাপে ধাপে",
    blurb: "hash map আর doubly linked list — প্রতিটি get/put-এ কী বদলায়, কে বেরোয় আর কেন",
    fields: FIELDS,
    presets: &[],
    rules: no_rules,
    runs: &["walk"],
    live: false,
};

/// The LRU step-through's parameters, typed (see [`Params::typed`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LruParams {
    /// Cache size in keys.
    pub capacity: u32,
    /// The operations, `put A, get B, …`.
    pub ops: String,
    /// Registry name of the policy.
    pub policy: String,
    /// Seed of the policy's own randomness.
    pub seed: u32,
}


/// The LRU step-through of one set of operations, with the policy's texts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LruWalk {
    /// Registry name of the policy.
    pub policy: String,
    /// Cache size in keys.
    pub capacity: u32,
    /// One row per operation.
    pub steps: Vec<TraceStep>,
    /// The policy's own one-line rule (English).
    pub rule: String,
    /// Whom it evicts, in Bengali.
    pub rule_bn: String,
    /// What a hit does, in Bengali.
    pub hit_bn: String,
    /// What the two ends of the order mean.
    pub order_bn: [String; 2],
    /// The order is a linked list with HEAD/TAIL.
    pub linked: bool,
}

impl LruWalk {
    /// Runs `p`'s operations through its policy.
    ///
    /// # Errors
    /// A message when the operations do not parse or the policy is unknown (the parameter
    /// form checks both first).
    pub fn new(p: &LruParams) -> Result<Self, String> {
        let ops = parse_ops(&p.ops)?;
        let capacity = p.capacity.max(1);
        let steps = policy_trace(&p.policy, capacity, p.seed, &ops).map_err(|e| e.to_string())?;
        let i = info(&p.policy).ok_or_else(|| format!("unknown policy {}", p.policy))?;
        let spec = Spec {
            capacity,
            seed: p.seed,
            future: &[],
        };
        let rule = (i.build)(&spec).victim_rule().to_string();
        Ok(LruWalk {
            policy: i.name.to_string(),
            capacity,
            steps,
            rule,
            rule_bn: i.rule_bn.to_string(),
            hit_bn: i.hit_bn.to_string(),
            order_bn: i.order_bn.map(str::to_string),
            linked: i.linked,
        })
    }
}

/// How a step of the walk touched its key, for highlighting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// Was resident: a hit or an update.
    Hit,
    /// Newly loaded or stored.
    New,
    /// The policy refused the new key (OPT's bypass, W-TinyLFU's admission).
    Refused,
}

/// How `step` touched its key, given the resident keys `before` it.
pub fn touch(step: &TraceStep, before: &[String]) -> Touch {
    if step.evicted.as_deref() == Some(step.op.key.as_str()) {
        Touch::Refused
    } else if step.outcome == crate::eviction::lru_trace::Outcome::Hit
        || before.contains(&step.op.key)
    {
        Touch::Hit
    } else {
        Touch::New
    }
}


/// The LRU step-through's runner.
pub struct LruLab;

/// The registry's entry.
pub static LAB: LruLab = LruLab;

impl Lab for LruLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(Ready::new(LruWalk::new(&p.typed())?)))
    }

    fn heaviest(&self) -> &'static str {
        "capacity=12&ops=put+A,get+B,put+C,get+D,put+E,get+F,put+G,get+H,put+I,get+J,put+K,get+L,put+M,get+N,put+O,get+P,put+Q,get+R,put+S,get+T,put+A,get+B,put+C,get+D,put+E,get+F,put+G,get+H,put+I,get+J,put+K,get+L,put+M,get+N,put+O,get+P,put+Q,get+R,put+S,get+T&policy=w-tinylfu"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: Some("lru-trace"),
            summary: "the LRU step-through table",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: LruParams = p.typed();
        let ops = parse_ops(&p.ops).map_err(|e| CliError(format!("--ops: {e}")))?;
        let steps = policy_trace(&p.policy, p.capacity, p.seed, &ops)
            .map_err(|e| CliError(e.to_string()))?;
        let is_lru = info(&p.policy).is_some_and(|i| i.name == "lru");
        let label = if is_lru {
            "MRU ... LRU"
        } else {
            "kept ... next victim"
        };
        Ok(crate::cli::emit(a, format_table(&steps, label), || {
            steps_json(&p.policy, p.capacity, &steps)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::lru_trace::lru_trace;

    #[test]
    fn the_lru_walk_is_the_seeds() {
        let p: LruParams = Params::defaults(&INFO).typed();
        let w = LruWalk::new(&p).unwrap();
        assert_eq!(
            w.steps,
            lru_trace(3, &crate::eviction::lru_trace::seed_ops())
        );
        assert_eq!(w.order_bn, ["MRU".to_string(), "LRU".to_string()]);
        assert!(w.linked && !w.rule_bn.is_empty() && !w.hit_bn.is_empty());
        // put A, put B, put C: new; get A: hit; put D: new (evicts B).
        let touches: Vec<Touch> = (0..w.steps.len())
            .map(|i| {
                let before = if i == 0 {
                    &[][..]
                } else {
                    &w.steps[i - 1].order[..]
                };
                touch(&w.steps[i], before)
            })
            .collect();
        use Touch::{Hit, New};
        assert_eq!(touches, [New, New, New, Hit, New, New, Hit]);
        // OPT refuses a key never needed again: "put X" after the cache is full.
        let opt = LruParams {
            policy: "opt".into(),
            capacity: 1,
            ops: "put A, put X, get A".into(),
            ..p.clone()
        };
        let o = LruWalk::new(&opt).unwrap();
        assert_eq!(touch(&o.steps[1], &o.steps[0].order), Touch::Refused);
        // Putting a resident key is an update (a hit), not a new key.
        let upd = LruWalk::new(&LruParams {
            ops: "put A, put A".into(),
            ..p.clone()
        })
        .unwrap();
        assert_eq!(touch(&upd.steps[1], &upd.steps[0].order), Touch::Hit);
        let bad = LruParams {
            ops: "fly A".into(),
            ..p
        };
        assert!(LruWalk::new(&bad).is_err());
    }
}
