//! The step-through: the operations through the chosen policy of the registry
//! (`crate::eviction::lru_trace::policy_trace`), with the policy's rule in words.

use super::output::{LruOutput, PolicyText};
use super::params::LruParams;
use crate::eviction::lru_trace::{parse_ops, policy_trace};
use crate::eviction::registry::{info, Spec};

/// The walk of `p`'s operations; with `about`, the policy's texts for the view.
///
/// # Errors
/// A message when the operations do not parse or the policy is unknown (the parameter form
/// checks both first).
pub fn walk(p: &LruParams, about: bool) -> Result<LruOutput, String> {
    let ops = parse_ops(&p.ops)?;
    let capacity = p.capacity.max(1);
    let name = p.policy.word();
    let steps = policy_trace(name, capacity, p.seed, &ops).map_err(|e| e.to_string())?;
    let about = if about {
        let i = info(name).ok_or_else(|| format!("unknown policy {name}"))?;
        let spec = Spec {
            capacity,
            seed: p.seed,
            future: &[],
        };
        Some(PolicyText {
            rule: (i.build)(&spec).victim_rule().to_string(),
            rule_bn: i.rule_bn.to_string(),
            hit_bn: i.hit_bn.to_string(),
            order_bn: i.order_bn.map(str::to_string),
            linked: i.linked,
        })
    } else {
        None
    };
    Ok(LruOutput {
        policy: p.policy,
        capacity,
        steps,
        about,
    })
}

/// The walk as the view receives it (with the policy's texts).
///
/// # Errors
/// As [`walk`].
pub fn run(p: &LruParams) -> Result<LruOutput, String> {
    walk(p, true)
}
