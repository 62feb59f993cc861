//! The step-through of the seed's §2: an LRU cache of 3 keys and the operations
//! `put A, put B, put C, get A, put D, get B, get A`, printed as a table of results and the
//! list from MRU to LRU. Generic over any operation list (a student's own trace) and, for
//! comparison, any policy in the registry.
//!
//! Mapping to the seed's `LRUCache`: a `get` that hits is one access (a hit); a `get` that
//! misses loads the value and `put`s it, which is one access (a miss, maybe evicting); a
//! `put` is one access (a new key is admitted, an existing key is updated and, for LRU,
//! becomes most recent). Notes read `stored`, `hit`, `miss, load`, plus `, evict X`.

use super::lru::Lru;
use super::registry::{by_name, Spec, UnknownPolicy};
use super::{Access, Policy};
use crate::jsfmt::pad_end;
use crate::obj;
use serde_json::Value;

/// `get` or `put`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OpKind {
    /// Read; on a miss, load from the database and store.
    Get,
    /// Write.
    Put,
}

/// One operation on a named key.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Op {
    /// `get` or `put`.
    pub kind: OpKind,
    /// The key's name (any text without commas).
    pub key: String,
}

impl Op {
    /// `get key`.
    pub fn get(key: &str) -> Self {
        Self {
            kind: OpKind::Get,
            key: key.to_string(),
        }
    }

    /// `put key`.
    pub fn put(key: &str) -> Self {
        Self {
            kind: OpKind::Put,
            key: key.to_string(),
        }
    }
}

/// The seed's operations: put A, put B, put C, get A, put D, get B, get A.
pub fn seed_ops() -> Vec<Op> {
    vec![
        Op::put("A"),
        Op::put("B"),
        Op::put("C"),
        Op::get("A"),
        Op::put("D"),
        Op::get("B"),
        Op::get("A"),
    ]
}

/// Parses `"put A, get B, ..."` (commas or semicolons between operations).
///
/// # Errors
/// A message naming the first malformed operation.
pub fn parse_ops(s: &str) -> Result<Vec<Op>, String> {
    let mut ops = Vec::new();
    for part in s.split([',', ';']).map(str::trim).filter(|p| !p.is_empty()) {
        let mut words = part.split_whitespace();
        let (Some(verb), Some(key), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "bad operation '{part}' (want 'get KEY' or 'put KEY')"
            ));
        };
        let kind = match verb.to_ascii_lowercase().as_str() {
            "get" => OpKind::Get,
            "put" | "set" => OpKind::Put,
            _ => {
                return Err(format!(
                    "bad operation '{part}' (want 'get KEY' or 'put KEY')"
                ))
            }
        };
        ops.push(Op {
            kind,
            key: key.to_string(),
        });
    }
    if ops.is_empty() {
        return Err("no operations given".into());
    }
    Ok(ops)
}

/// What an operation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    /// A `put`.
    Stored,
    /// A `get` that hit.
    Hit,
    /// A `get` that missed and loaded the value.
    MissLoad,
}

/// One row of the step table.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceStep {
    /// The operation.
    pub op: Op,
    /// Its outcome.
    pub outcome: Outcome,
    /// The key evicted by it, if any.
    pub evicted: Option<String>,
    /// Resident keys afterwards, in the policy's `keys()` order (LRU: MRU … LRU).
    pub order: Vec<String>,
}

impl TraceStep {
    /// The seed's result note: `stored`, `hit`, `miss, load`, plus `, evict X`.
    pub fn note(&self) -> String {
        let mut n = match self.outcome {
            Outcome::Stored => "stored",
            Outcome::Hit => "hit",
            Outcome::MissLoad => "miss, load",
        }
        .to_string();
        if let Some(e) = &self.evicted {
            n.push_str(", evict ");
            n.push_str(e);
        }
        n
    }
}

/// Runs `ops` through `policy`, naming keys by their text.
pub fn run_ops(policy: &mut dyn Policy, ops: &[Op]) -> Vec<TraceStep> {
    let mut names: Vec<String> = Vec::new();
    let mut id = |k: &str| -> u32 {
        match names.iter().position(|n| n == k) {
            Some(i) => i as u32,
            None => {
                names.push(k.to_string());
                names.len() as u32 - 1
            }
        }
    };
    let ids: Vec<u32> = ops.iter().map(|o| id(&o.key)).collect();
    let mut steps = Vec::with_capacity(ops.len());
    for (op, &k) in ops.iter().zip(&ids) {
        let access = policy.access(k);
        let outcome = match (op.kind, access) {
            (OpKind::Put, _) => Outcome::Stored,
            (OpKind::Get, Access::Hit) => Outcome::Hit,
            (OpKind::Get, Access::Miss { .. }) => Outcome::MissLoad,
        };
        steps.push(TraceStep {
            op: op.clone(),
            outcome,
            evicted: access.evicted().map(|e| names[e as usize].clone()),
            order: policy
                .keys()
                .into_iter()
                .map(|x| names[x as usize].clone())
                .collect(),
        });
    }
    steps
}

/// The seed's step-through: `ops` on an LRU cache of `capacity` keys.
pub fn lru_trace(capacity: u32, ops: &[Op]) -> Vec<TraceStep> {
    run_ops(&mut Lru::new(capacity), ops)
}

/// The step-through on any registry policy (OPT sees the operations' keys as its future).
///
/// # Errors
/// [`UnknownPolicy`] for an unknown name.
pub fn policy_trace(
    name: &str,
    capacity: u32,
    seed: u32,
    ops: &[Op],
) -> Result<Vec<TraceStep>, UnknownPolicy> {
    let mut names: Vec<&str> = Vec::new();
    let future: Vec<u32> = ops
        .iter()
        .map(|o| match names.iter().position(|n| *n == o.key) {
            Some(i) => i as u32,
            None => {
                names.push(&o.key);
                names.len() as u32 - 1
            }
        })
        .collect();
    let mut p = by_name(
        name,
        &Spec {
            capacity,
            seed,
            future: &future,
        },
    )?;
    Ok(run_ops(p.as_mut(), ops))
}

/// The seed's table: header `op     result               list (MRU ... LRU)`, then
/// `` `${op} ${k}`.padEnd(7) + note.padEnd(21) + order.join(" <-> ") `` per step.
/// `order_label` replaces `MRU ... LRU` for policies with another order.
pub fn format_table(steps: &[TraceStep], order_label: &str) -> String {
    let mut out = format!("op     result               list ({order_label})\n");
    for s in steps {
        let op = match s.op.kind {
            OpKind::Get => "get",
            OpKind::Put => "put",
        };
        out.push_str(&pad_end(&format!("{op} {}", s.op.key), 7));
        out.push_str(&pad_end(&s.note(), 21));
        out.push_str(&s.order.join(" <-> "));
        out.push('\n');
    }
    out
}

/// Machine-readable form of a step table.
pub fn steps_json(policy: &str, capacity: u32, steps: &[TraceStep]) -> Value {
    obj([
        ("policy", Value::from(policy)),
        ("capacity", Value::from(capacity)),
        (
            "steps",
            Value::Array(
                steps
                    .iter()
                    .map(|s| {
                        obj([
                            (
                                "op",
                                Value::from(match s.op.kind {
                                    OpKind::Get => "get",
                                    OpKind::Put => "put",
                                }),
                            ),
                            ("key", Value::from(s.op.key.as_str())),
                            ("result", Value::from(s.note())),
                            (
                                "evicted",
                                s.evicted.as_deref().map_or(Value::Null, Value::from),
                            ),
                            (
                                "order",
                                Value::Array(
                                    s.order.iter().map(|k| Value::from(k.as_str())).collect(),
                                ),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ops() {
        assert_eq!(
            parse_ops("put A, get B;GET c").unwrap(),
            [Op::put("A"), Op::get("B"), Op::get("c")]
        );
        assert!(parse_ops("fetch A").is_err());
        assert!(parse_ops("get").is_err());
        assert!(parse_ops(" , ").is_err());
    }

    #[test]
    fn put_of_a_resident_key_refreshes_it() {
        // put A, put B, put A, put C at size 2: the second put A makes A most recent, so C
        // evicts B.
        let ops = parse_ops("put A, put B, put A, put C").unwrap();
        let steps = lru_trace(2, &ops);
        assert_eq!(steps[2].note(), "stored");
        assert_eq!(steps[3].note(), "stored, evict B");
        assert_eq!(steps[3].order, ["C", "A"]);
    }
}
