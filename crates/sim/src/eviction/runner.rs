//! Replaying a trace through a policy, scored exactly as the seed's `run()`, and the seed's
//! policy-comparison table.
//!
//! Scoring: only user requests (`key < user_keys`) count, and only after the first `warmup`
//! of them (`if (k < N && ++z > WARM && hit) hits++`). [`Replay`] steps one request at a time
//! for a UI; [`run`] is the fast run-to-end loop.

use super::registry::{by_name, Spec, UnknownPolicy};
use super::trace::{Trace, TraceKind, TraceSpec};
use super::{Access, Policy, Stats};
use crate::jsfmt::{js_string, pad_end, pad_start, to_fixed};
use std::rc::Rc;

/// Replays `trace` through `policy`, scoring user requests after `warmup` of them.
pub fn run<P: Policy + ?Sized>(policy: &mut P, trace: &Trace, warmup: u64) -> Stats {
    let mut stats = Stats::default();
    let mut z = 0u64;
    for &k in &trace.keys {
        let access = policy.access(k);
        let user = k < trace.user_keys;
        z += u64::from(user);
        stats.record(access, user && z > warmup);
    }
    stats
}

/// One replayed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    /// Position in the trace.
    pub index: usize,
    /// The requested key.
    pub key: u32,
    /// What the policy did.
    pub access: Access,
    /// Whether it counts towards the hit ratio.
    pub scored: bool,
    /// Counters after this step.
    pub stats: Stats,
}

/// A trace replay that can be stepped (an [`Iterator`] of [`Step`]s) for a UI that scrubs
/// through a run; the policy stays inspectable between steps.
pub struct Replay {
    policy: Box<dyn Policy>,
    trace: Rc<Trace>,
    warmup: u64,
    index: usize,
    user_seen: u64,
    stats: Stats,
}

impl Replay {
    /// A replay of `trace` through `policy`.
    pub fn new(policy: Box<dyn Policy>, trace: Rc<Trace>, warmup: u64) -> Self {
        Self {
            policy,
            trace,
            warmup,
            index: 0,
            user_seen: 0,
            stats: Stats::default(),
        }
    }

    /// The policy in its current state.
    pub fn policy(&self) -> &dyn Policy {
        self.policy.as_ref()
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Requests replayed so far.
    pub fn replayed(&self) -> usize {
        self.index
    }

    /// Replays up to `n` more requests, keeping the last `keep` steps in `log` (oldest
    /// first); returns how many were replayed. For a UI that works in small chunks.
    pub fn advance(
        &mut self,
        n: usize,
        log: &mut std::collections::VecDeque<Step>,
        keep: usize,
    ) -> usize {
        let mut done = 0;
        while done < n {
            let Some(step) = self.next() else { break };
            if keep > 0 {
                if log.len() == keep {
                    log.pop_front();
                }
                log.push_back(step);
            }
            done += 1;
        }
        done
    }
}

impl Iterator for Replay {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let &key = self.trace.keys.get(self.index)?;
        let access = self.policy.access(key);
        let user = key < self.trace.user_keys;
        self.user_seen += u64::from(user);
        let scored = user && self.user_seen > self.warmup;
        self.stats.record(access, scored);
        let step = Step {
            index: self.index,
            key,
            access,
            scored,
            stats: self.stats,
        };
        self.index += 1;
        Some(step)
    }
}

/// Parameters of the seed's policy comparison (§4).
#[derive(Clone, Debug, PartialEq)]
pub struct EvictionConfig {
    /// Trace parameters (keys, alpha, requests, seed).
    pub trace: TraceSpec,
    /// Cache size in keys.
    pub cache: u32,
    /// User requests not scored at the start.
    pub warmup: u64,
    /// Seed of the policies' own randomness.
    pub policy_seed: u32,
    /// Registry names of the policies, in row order.
    pub policies: Vec<String>,
    /// Columns (traces), in order.
    pub traces: Vec<TraceKind>,
}

impl Default for EvictionConfig {
    /// The seed's table: N=10000, alpha 0.9, cache 300, 60000 requests, warm-up 10000,
    /// trace seed 7, policy seed 99, FIFO/RANDOM/LRU/LFU/OPT on traces a, b, c.
    fn default() -> Self {
        Self {
            trace: TraceSpec::default(),
            cache: 300,
            warmup: 10_000,
            policy_seed: 99,
            policies: ["fifo", "random", "lru", "lfu", "opt"]
                .map(String::from)
                .to_vec(),
            traces: TraceKind::ALL.to_vec(),
        }
    }
}

/// One row of the comparison: a policy and its stats per trace.
#[derive(Clone, Debug, PartialEq)]
pub struct EvictionRow {
    /// Display name (upper case).
    pub name: &'static str,
    /// Stats per trace column.
    pub stats: Vec<Stats>,
}

/// The result of [`eviction_table`].
#[derive(Clone, Debug, PartialEq)]
pub struct EvictionTable {
    /// What was run.
    pub config: EvictionConfig,
    /// One row per policy.
    pub rows: Vec<EvictionRow>,
}

/// Runs every policy of `config` on every trace.
///
/// # Errors
/// [`UnknownPolicy`] if a name is not in the registry.
pub fn eviction_table(config: &EvictionConfig) -> Result<EvictionTable, UnknownPolicy> {
    let traces: Vec<Trace> = config.trace.generate_kinds(&config.traces);
    let mut rows = Vec::with_capacity(config.policies.len());
    for name in &config.policies {
        let mut stats = Vec::with_capacity(traces.len());
        let mut label = "";
        for t in &traces {
            let spec = Spec {
                capacity: config.cache,
                seed: config.policy_seed,
                future: &t.keys,
            };
            let mut p = by_name(name, &spec)?;
            label = p.name();
            stats.push(run(p.as_mut(), t, config.warmup));
        }
        rows.push(EvictionRow { name: label, stats });
    }
    Ok(EvictionTable {
        config: config.clone(),
        rows,
    })
}

fn column_title(kind: TraceKind) -> &'static str {
    match kind {
        TraceKind::Zipf => "(a) Zipf",
        TraceKind::Scan => "(b) + scan",
        TraceKind::Shift => "(c) shift",
    }
}

impl EvictionTable {
    /// The seed's text layout: a header line, the column titles, then one row per policy
    /// (`name.padEnd(8)` and `(x.toFixed(1) + "%").padStart(10)` per column). Names longer
    /// than 7 characters widen the first column so the table stays aligned.
    pub fn to_text(&self) -> String {
        let c = &self.config;
        let mut out = format!(
            "keys {}, Zipf alpha {}, cache {} keys, {} user requests (first {} = warm-up)\n",
            c.trace.keys,
            js_string(c.trace.alpha),
            c.cache,
            c.trace.requests,
            c.warmup
        );
        let width = self
            .rows
            .iter()
            .map(|r| r.name.chars().count() + 1)
            .max()
            .unwrap_or(0)
            .max(8);
        // The seed's header: "policy     (a) Zipf  (b) + scan  (c) shift".
        let titles: Vec<&str> = c.traces.iter().map(|&k| column_title(k)).collect();
        let header = format!("policy{}{}", " ".repeat(width - 3), titles.join("  "));
        out.push_str(header.trim_end());
        out.push('\n');
        for row in &self.rows {
            out.push_str(&pad_end(row.name, width));
            for s in &row.stats {
                out.push_str(&pad_start(
                    &format!("{}%", to_fixed(s.hit_percent(), 1)),
                    10,
                ));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Replaying in chunks of any size gives exactly what `run` gives, and the log keeps the
    /// newest steps.
    #[test]
    fn chunked_replay_equals_run() {
        let trace = Rc::new(
            TraceSpec {
                requests: 5_000,
                ..TraceSpec::default()
            }
            .with_kind(TraceKind::Scan)
            .generate(),
        );
        for name in ["fifo", "random", "lru", "lfu", "opt", "arc"] {
            let spec = Spec {
                capacity: 100,
                seed: 99,
                future: &trace.keys,
            };
            let expected = run(by_name(name, &spec).unwrap().as_mut(), &trace, 1000);
            for chunk in [1, 7, 1000, 100_000] {
                let mut r = Replay::new(by_name(name, &spec).unwrap(), trace.clone(), 1000);
                let mut log = VecDeque::new();
                while r.advance(chunk, &mut log, 5) > 0 {}
                assert_eq!(r.stats(), expected, "{name} in chunks of {chunk}");
                assert_eq!(r.replayed(), trace.keys.len());
                assert_eq!(log.len(), 5);
                assert_eq!(log.back().unwrap().index, trace.keys.len() - 1);
            }
        }
    }
}
