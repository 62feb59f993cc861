//! What the LRU step-through gives the view and `labsim --json` alike: the operations' steps
//! (the seed's table: op, key, result, evicted, order) and, for the view, the policy's texts.
//! Its timeline walks the operations: position `k` is the cache after the first `k`.

use crate::eviction::lru_trace::{Outcome, TraceStep};
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::eviction::Policy;
use serde::{Deserialize, Serialize};

/// The step-through of one set of operations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LruOutput {
    /// The policy.
    pub policy: Policy,
    /// Cache size in keys.
    pub capacity: u32,
    /// One row per operation, as the seed's table writes it.
    #[serde(with = "step_rows")]
    pub steps: Vec<TraceStep>,
    /// What the policy does, in words (the view's; `labsim` leaves it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<PolicyText>,
}

/// A policy's rule in words, from the registry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyText {
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

impl LruOutput {
    /// The parameters' policy is LRU itself.
    pub fn is_lru(&self) -> bool {
        self.policy == Policy::Lru
    }

    /// The resident keys after the first `k` operations (position `k`).
    pub fn order_at(&self, k: usize) -> &[String] {
        k.checked_sub(1)
            .and_then(|i| self.steps.get(i))
            .map_or(&[], |s| &s.order)
    }

    /// Hits, misses (loads) and evictions in the first `k` operations.
    pub fn so_far(&self, k: usize) -> (u64, u64, u64) {
        self.steps.iter().take(k).fold((0, 0, 0), |(h, m, e), s| {
            (
                h + u64::from(s.outcome == Outcome::Hit),
                m + u64::from(s.outcome == Outcome::MissLoad),
                e + u64::from(s.evicted.is_some()),
            )
        })
    }

    /// The position that shows step `i` (0-based) done.
    pub fn position_of(&self, i: usize) -> usize {
        (i + 1).min(self.steps())
    }
}

impl Steps for LruOutput {
    /// The operations.
    fn steps(&self) -> usize {
        self.steps.len()
    }
}

impl Figures for LruOutput {
    fn figures(&self) -> Vec<Figure> {
        let (h, m, e) = self.so_far(self.steps.len());
        vec![
            Figure::count("hits", h),
            Figure::count("misses", m),
            Figure::count("evictions", e),
        ]
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
    } else if step.outcome == Outcome::Hit || before.contains(&step.op.key) {
        Touch::Hit
    } else {
        Touch::New
    }
}

/// A step as the seed's table (and `labsim --json`) writes it: `op`, `key`, `result` (the
/// seed's note: `stored`, `hit`, `miss, load`, plus `, evict X`), `evicted`, `order`. The
/// outcome is read back from the operation and the note's first word.
mod step_rows {
    use crate::eviction::lru_trace::{Op, OpKind, Outcome, TraceStep};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Row {
        op: Verb,
        key: String,
        result: String,
        evicted: Option<String>,
        order: Vec<String>,
    }

    #[derive(Clone, Copy, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Verb {
        Get,
        Put,
    }

    pub fn serialize<S: Serializer>(steps: &[TraceStep], s: S) -> Result<S::Ok, S::Error> {
        let rows: Vec<Row> = steps
            .iter()
            .map(|t| Row {
                op: match t.op.kind {
                    OpKind::Get => Verb::Get,
                    OpKind::Put => Verb::Put,
                },
                key: t.op.key.clone(),
                result: t.note(),
                evicted: t.evicted.clone(),
                order: t.order.clone(),
            })
            .collect();
        rows.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TraceStep>, D::Error> {
        let rows = Vec::<Row>::deserialize(d)?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let (kind, outcome) = match r.op {
                    Verb::Put => (OpKind::Put, Outcome::Stored),
                    Verb::Get if r.result.starts_with("hit") => (OpKind::Get, Outcome::Hit),
                    Verb::Get => (OpKind::Get, Outcome::MissLoad),
                };
                TraceStep {
                    op: Op { kind, key: r.key },
                    outcome,
                    evicted: r.evicted,
                    order: r.order,
                }
            })
            .collect())
    }
}
