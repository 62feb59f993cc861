//! The eviction labs' work as step-able runs: the seed's table (one policy × trace cell per
//! step, a row as soon as a policy has run on every trace), the race replayed on one trace in
//! timeline frames with "why was this key evicted" for one policy, hit ratio against cache
//! size, the sampled-LRU experiment one `k` per step, and the LRU step-through. Each is the
//! same computation as its run-to-end function (`eviction_table`, `mrc`,
//! `sampling_quality`, `policy_trace`), proven equal by the tests below.

use crate::eviction::lru_trace::{parse_ops, policy_trace, TraceStep};
use crate::eviction::registry::{by_name, info, Spec, UnknownPolicy};
use crate::eviction::runner::{run, EvictionConfig, EvictionRow, EvictionTable, Replay, Step};
use crate::eviction::sampling::{sampling_point, SamplingPoint};
use crate::eviction::trace::{Trace, TraceKind};
use crate::eviction::Stats;
use crate::labs::params::{EvictionParams, LruParams, SamplingParams};
use crate::rng::Mulberry32;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::rc::Rc;

/// Positions on the race's timeline.
pub const FRAMES: usize = 40;
/// Steps of the chosen policy kept per frame for "why evicted".
pub const LOG: usize = 8;

/// Checks every name against the registry.
fn known(names: &[String]) -> Result<(), UnknownPolicy> {
    match names.iter().find(|n| info(n).is_none()) {
        Some(n) => Err(UnknownPolicy(n.clone())),
        None => Ok(()),
    }
}

/// One table row as text, in the seed's layout, plus its numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Row index (policy order).
    pub index: usize,
    /// Display name.
    pub name: String,
    /// Stats per trace column.
    pub stats: Vec<Stats>,
}

/// The seed's table, a cell per step: traces first, then each policy on each trace in turn.
pub struct TableRun {
    cfg: EvictionConfig,
    traces: Vec<Trace>,
    next: usize,
    row: Vec<Stats>,
    name: &'static str,
    rows: Vec<EvictionRow>,
}

impl TableRun {
    /// The table of `cfg`.
    ///
    /// # Errors
    /// [`UnknownPolicy`] if a name is not in the registry.
    pub fn new(cfg: EvictionConfig) -> Result<Self, UnknownPolicy> {
        known(&cfg.policies)?;
        Ok(TableRun {
            cfg,
            traces: Vec::new(),
            next: 0,
            row: Vec::new(),
            name: "",
            rows: Vec::new(),
        })
    }

    fn cells(&self) -> usize {
        self.cfg.policies.len() * self.cfg.traces.len()
    }

    /// Whether every cell is done.
    pub fn is_done(&self) -> bool {
        !self.traces.is_empty() && self.next >= self.cells()
    }

    /// One unit of work (the traces, or one policy on one trace); a row when it is complete.
    pub fn step(&mut self) -> Option<TableRow> {
        if self.traces.is_empty() {
            self.traces = self.cfg.trace.generate_kinds(&self.cfg.traces);
            return None;
        }
        if self.is_done() {
            return None;
        }
        let nt = self.traces.len();
        let (pi, ti) = (self.next / nt, self.next % nt);
        let trace = &self.traces[ti];
        let spec = Spec {
            capacity: self.cfg.cache,
            seed: self.cfg.policy_seed,
            future: &trace.keys,
        };
        // Names were checked in `new`.
        if let Ok(mut policy) = by_name(&self.cfg.policies[pi], &spec) {
            self.name = policy.name();
            self.row.push(run(policy.as_mut(), trace, self.cfg.warmup));
        }
        self.next += 1;
        if ti + 1 < nt {
            return None;
        }
        let row = EvictionRow {
            name: self.name,
            stats: std::mem::take(&mut self.row),
        };
        self.rows.push(row.clone());
        Some(TableRow {
            index: pi,
            name: row.name.to_string(),
            stats: row.stats,
        })
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        if self.traces.is_empty() {
            return 0.0;
        }
        (0.1 + 0.9 * self.next as f64 / self.cells().max(1) as f64).min(1.0)
    }

    /// The table so far (the whole table once done).
    pub fn table(&self) -> EvictionTable {
        EvictionTable {
            config: self.cfg.clone(),
            rows: self.rows.clone(),
        }
    }
}

/// The race replayed on one trace: counters at each frame, and the chosen policy's recent
/// steps for "why was this key evicted".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Race {
    /// Display names of the raced policies, in row order.
    pub names: Vec<String>,
    /// Stats per frame per raced policy.
    pub frames: Vec<Vec<Stats>>,
    /// Requests replayed at the end of each frame.
    pub positions: Vec<usize>,
    /// The chosen policy's last steps at the end of each frame.
    pub logs: Vec<Vec<Logged>>,
    /// Display name of the chosen policy.
    pub focus_name: String,
    /// Whom the chosen policy evicts, in Bengali (from the registry).
    pub focus_rule: String,
    /// Requests in the trace.
    pub trace_len: usize,
}

/// One step of the chosen policy, as "why was this key evicted" shows it (a [`Step`] without
/// its running counters, which the race's frames already carry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Logged {
    /// Position in the trace.
    pub index: usize,
    /// The requested key.
    pub key: u32,
    /// What the policy did.
    pub access: crate::eviction::Access,
}

impl From<&Step> for Logged {
    fn from(s: &Step) -> Self {
        Logged {
            index: s.index,
            key: s.key,
            access: s.access,
        }
    }
}

/// Requests replayed at the end of frame `f` of a trace of `len` requests.
pub fn boundary(f: usize, len: usize) -> usize {
    ((f + 1) * len).div_ceil(FRAMES)
}

/// Work for [`Race`]: the trace, then each policy one frame per step.
pub struct RaceRun {
    cfg: EvictionConfig,
    kind: TraceKind,
    focus: String,
    trace: Option<Rc<Trace>>,
    /// Policy indices still to replay; `policies.len()` is the chosen policy when it is not
    /// raced (replayed only for its log).
    queue: VecDeque<usize>,
    current: Option<(usize, Replay, VecDeque<Step>)>,
    race: Race,
    total: usize,
    done: bool,
}

impl RaceRun {
    /// The race of `p` on its shown trace.
    ///
    /// # Errors
    /// [`UnknownPolicy`] if a name is not in the registry.
    pub fn new(p: &EvictionParams) -> Result<Self, UnknownPolicy> {
        let cfg = p.config();
        known(&cfg.policies)?;
        known(std::slice::from_ref(&p.focus))?;
        let n = cfg.policies.len();
        let mut queue: VecDeque<usize> = (0..n).collect();
        if !cfg.policies.contains(&p.focus) {
            queue.push_back(n);
        }
        Ok(RaceRun {
            kind: p.kind(),
            cfg,
            focus: p.focus.clone(),
            trace: None,
            total: queue.len(),
            queue,
            current: None,
            race: Race {
                names: vec![String::new(); n],
                frames: vec![vec![Stats::default(); n]; FRAMES],
                positions: Vec::new(),
                logs: vec![Vec::new(); FRAMES],
                focus_name: String::new(),
                focus_rule: String::new(),
                trace_len: 0,
            },
            done: false,
        })
    }

    fn policy_name(&self, pi: usize) -> &str {
        self.cfg
            .policies
            .get(pi)
            .map_or(self.focus.as_str(), String::as_str)
    }

    /// One unit of work; the race when it is complete.
    pub fn step(&mut self) -> Option<Race> {
        if self.done {
            return None;
        }
        let Some(trace) = self.trace.clone() else {
            let t = self.cfg.trace.with_kind(self.kind).generate();
            self.race.trace_len = t.keys.len();
            self.race.positions = (0..FRAMES).map(|f| boundary(f, t.keys.len())).collect();
            self.trace = Some(Rc::new(t));
            return None;
        };
        let len = trace.keys.len();
        let Some((pi, replay, log)) = self.current.as_mut() else {
            let Some(pi) = self.queue.pop_front() else {
                self.done = true;
                return Some(self.race.clone());
            };
            let spec = Spec {
                capacity: self.cfg.cache,
                seed: self.cfg.policy_seed,
                future: &trace.keys,
            };
            let name = self.policy_name(pi).to_string();
            let policy = by_name(&name, &spec).ok()?;
            if pi < self.race.names.len() {
                self.race.names[pi] = policy.name().to_string();
            }
            if name == self.focus {
                self.race.focus_name = policy.name().to_string();
                self.race.focus_rule = info(&name).map_or("", |i| i.rule_bn).to_string();
            }
            self.current = Some((
                pi,
                Replay::new(policy, trace, self.cfg.warmup),
                VecDeque::new(),
            ));
            return None;
        };
        let pi = *pi;
        let is_focus = self.cfg.policies.get(pi).is_none_or(|n| *n == self.focus);
        let keep = if is_focus { LOG } else { 0 };
        // One frame per step.
        let pos = replay.replayed();
        let Some(f) = (0..FRAMES).find(|&f| boundary(f, len) > pos) else {
            self.current = None;
            return None;
        };
        let want = boundary(f, len) - pos;
        let got = replay.advance(want, log, keep);
        if got == want {
            if pi < self.race.names.len() {
                self.race.frames[f][pi] = replay.stats();
            }
            if keep > 0 {
                self.race.logs[f] = log.iter().map(Logged::from).collect();
            }
        } else {
            self.current = None;
        }
        None
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        let left = self.queue.len() + usize::from(self.current.is_some());
        1.0 - left as f64 / self.total.max(1) as f64
    }
}

/// One policy's curve of hit ratio (percent of scored requests) against cache size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveSeries {
    /// Registry name (for the colour).
    pub policy: String,
    /// Display name.
    pub name: String,
    /// (cache size, hit %) in size order.
    pub points: Vec<(f64, f64)>,
}

/// A new point of a curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Which series.
    pub series: usize,
    /// Cache size.
    pub x: f64,
    /// Hit %.
    pub y: f64,
}

/// The cache sizes of the curve around `cache` (⅛× … 8×, within the key count).
pub fn curve_sizes(cache: u32, keys: u32) -> Vec<u32> {
    let c = cache;
    let mut sizes: Vec<u32> = [c / 8, c / 4, c / 2, c, c * 2, c * 4, c * 8]
        .into_iter()
        .filter(|&s| s >= 1 && s <= keys)
        .collect();
    sizes.dedup();
    sizes
}

/// The raced policies, with OPT added as the ceiling.
pub fn curve_policies(policies: &[String]) -> Vec<String> {
    let mut names = policies.to_vec();
    if !names.iter().any(|n| n == "opt") {
        names.push("opt".into());
    }
    names
}

/// Hit ratio against cache size on the shown trace, one (policy, size) point per step.
pub struct CurveRun {
    cfg: EvictionConfig,
    kind: TraceKind,
    trace: Option<Trace>,
    sizes: Vec<u32>,
    series: Vec<CurveSeries>,
    next: usize,
}

impl CurveRun {
    /// The curves of `p`.
    ///
    /// # Errors
    /// [`UnknownPolicy`] if a name is not in the registry.
    pub fn new(p: &EvictionParams) -> Result<Self, UnknownPolicy> {
        let cfg = p.config();
        known(&cfg.policies)?;
        let sizes = curve_sizes(cfg.cache, cfg.trace.keys);
        let series = curve_policies(&cfg.policies)
            .into_iter()
            .map(|policy| CurveSeries {
                name: info(&policy).map_or("", |i| i.name).to_ascii_uppercase(),
                policy,
                points: Vec::new(),
            })
            .collect();
        Ok(CurveRun {
            kind: p.kind(),
            cfg,
            trace: None,
            sizes,
            series,
            next: 0,
        })
    }

    /// Whether every point is done.
    pub fn is_done(&self) -> bool {
        self.trace.is_some() && self.next >= self.sizes.len() * self.series.len()
    }

    /// One unit of work (the trace, or one point); the point when one is made.
    pub fn step(&mut self) -> Option<CurvePoint> {
        let Some(trace) = &self.trace else {
            self.trace = Some(self.cfg.trace.with_kind(self.kind).generate());
            return None;
        };
        if self.next >= self.sizes.len() * self.series.len() {
            return None;
        }
        let (si, zi) = (self.next / self.sizes.len(), self.next % self.sizes.len());
        self.next += 1;
        let size = self.sizes[zi];
        let spec = Spec {
            capacity: size,
            seed: self.cfg.policy_seed,
            future: &trace.keys,
        };
        let mut policy = by_name(&self.series[si].policy, &spec).ok()?;
        self.series[si].name = policy.name().to_string();
        let s = run(policy.as_mut(), trace, self.cfg.warmup);
        let point = CurvePoint {
            series: si,
            x: f64::from(size),
            y: s.hit_percent(),
        };
        self.series[si].points.push((point.x, point.y));
        Some(point)
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        self.next as f64 / (self.sizes.len() * self.series.len()).max(1) as f64
    }

    /// The curves so far (all of them once done).
    pub fn series(&self) -> &[CurveSeries] {
        &self.series
    }
}

/// `sampling_quality` for `k = 1..=kmax`, one `k` per step, continuing one
/// `mulberry32(seed)` from `k` to `k` exactly as the single call (and `labsim`) does.
pub struct SamplingRun {
    p: SamplingParams,
    rng: Mulberry32,
    next: u32,
    drawn: u64,
    points: Vec<SamplingPoint>,
}

impl SamplingRun {
    /// The experiment of `p`.
    pub fn new(p: SamplingParams) -> Self {
        SamplingRun {
            rng: Mulberry32::new(p.seed),
            p,
            next: 1,
            drawn: 0,
            points: Vec::new(),
        }
    }

    /// Whether every `k` is measured.
    pub fn is_done(&self) -> bool {
        self.next > self.p.kmax
    }

    /// Measures the next `k`.
    pub fn step(&mut self) -> Option<SamplingPoint> {
        if self.is_done() {
            return None;
        }
        let k = self.next;
        let pt = sampling_point(self.p.keys, k, self.p.trials, &mut self.rng);
        self.points.push(pt);
        self.drawn += u64::from(self.p.trials) * u64::from(k);
        self.next += 1;
        Some(pt)
    }

    /// How far along, 0.0..=1.0 (by random draws).
    pub fn progress(&self) -> f64 {
        let k = u64::from(self.p.kmax);
        let all = (u64::from(self.p.trials) * k * (k + 1) / 2).max(1);
        self.drawn as f64 / all as f64
    }

    /// The points so far.
    pub fn points(&self) -> &[SamplingPoint] {
        &self.points
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::lru_trace::lru_trace;
    use crate::eviction::runner::eviction_table;
    use crate::eviction::sampling::sampling_quality;
    use crate::labs::params::{Params, EVICTION, LRU, SAMPLING};

    fn small() -> EvictionParams {
        let (p, e) = Params::from_query(
            EVICTION,
            "keys=2000&cache=100&warmup=1000&requests=6000&policies=lru,arc,w-tinylfu,opt,random&focus=lfu&trace=scan",
        );
        assert!(e.is_empty(), "{e:?}");
        p.typed()
    }

    #[test]
    fn the_table_in_steps_equals_the_table() {
        for p in [
            Params::defaults(EVICTION).typed::<EvictionParams>(),
            small(),
        ] {
            let cfg = p.config();
            let want = eviction_table(&cfg).unwrap();
            let mut run = TableRun::new(cfg).unwrap();
            let mut rows = Vec::new();
            while !run.is_done() {
                rows.extend(run.step());
            }
            assert_eq!(run.table(), want);
            assert_eq!(rows.len(), want.rows.len());
            for (i, r) in rows.iter().enumerate() {
                assert_eq!((r.index, r.name.as_str()), (i, want.rows[i].name));
                assert_eq!(r.stats, want.rows[i].stats);
            }
            assert_eq!(run.progress(), 1.0);
        }
        let seed = TableRun::new(EvictionConfig::default()).unwrap();
        assert_eq!(seed.progress(), 0.0);
        let mut bad = EvictionConfig::default();
        bad.policies.push("nope".into());
        assert!(TableRun::new(bad).is_err());
    }

    #[test]
    fn the_race_ends_where_a_run_to_the_end_does() {
        let p = small();
        let mut run = RaceRun::new(&p).unwrap();
        let race = loop {
            if let Some(r) = run.step() {
                break r;
            }
        };
        let cfg = p.config();
        let trace = cfg.trace.with_kind(p.kind()).generate();
        assert_eq!(race.trace_len, trace.keys.len());
        assert_eq!(race.positions.last(), Some(&trace.keys.len()));
        for (i, name) in cfg.policies.iter().enumerate() {
            let spec = Spec {
                capacity: cfg.cache,
                seed: cfg.policy_seed,
                future: &trace.keys,
            };
            let mut pol = by_name(name, &spec).unwrap();
            let want = run_to(&mut *pol, &trace, cfg.warmup, usize::MAX);
            assert_eq!(race.frames[FRAMES - 1][i], want, "{name}");
            // Every frame is the run up to its boundary.
            for f in [0, 7, 23] {
                let mut pol = by_name(name, &spec).unwrap();
                let want = run_to(&mut *pol, &trace, cfg.warmup, race.positions[f]);
                assert_eq!(race.frames[f][i], want, "{name} frame {f}");
            }
        }
        // LFU is not raced but explained: its log ends at each frame's boundary.
        assert_eq!(race.focus_name, "LFU");
        assert!(race.focus_rule.contains("কম ব্যবহৃত"));
        for f in 0..FRAMES {
            let last = race.logs[f].last().unwrap();
            assert_eq!(last.index + 1, race.positions[f]);
            assert!(race.logs[f].len() <= LOG);
        }
        assert_eq!(run.progress(), 1.0);
        assert!(run.step().is_none());
    }

    /// The first `n` requests of `trace` through `policy`, scored like `run`.
    fn run_to(
        policy: &mut dyn crate::eviction::Policy,
        trace: &Trace,
        warmup: u64,
        n: usize,
    ) -> Stats {
        let cut = Trace {
            keys: trace.keys[..n.min(trace.keys.len())].to_vec(),
            user_keys: trace.user_keys,
        };
        run(policy, &cut, warmup)
    }

    #[test]
    fn the_curves_in_steps_equal_mrc() {
        let p = small();
        let cfg = p.config();
        let mut run = CurveRun::new(&p).unwrap();
        let mut points = Vec::new();
        while !run.is_done() {
            points.extend(run.step());
        }
        let trace = cfg.trace.with_kind(p.kind()).generate();
        let names = curve_policies(&cfg.policies);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let sizes = curve_sizes(cfg.cache, cfg.trace.keys);
        let want = crate::mrc(&names, &trace, cfg.warmup, &sizes, cfg.policy_seed).unwrap();
        assert_eq!(run.series().len(), want.len());
        for (s, w) in run.series().iter().zip(&want) {
            assert_eq!(s.name, w.name);
            let pts: Vec<(f64, f64)> = w
                .points
                .iter()
                .map(|(size, st)| (f64::from(*size), st.hit_percent()))
                .collect();
            assert_eq!(s.points, pts);
        }
        assert_eq!(points.len(), sizes.len() * want.len());
        assert_eq!(sizes, [12, 25, 50, 100, 200, 400, 800]);
    }

    #[test]
    fn sampling_in_steps_equals_sampling_quality() {
        let p: SamplingParams = Params::defaults(SAMPLING).typed();
        let mut run = SamplingRun::new(p);
        let mut got = Vec::new();
        while !run.is_done() {
            got.extend(run.step());
        }
        let ks: Vec<u32> = (1..=p.kmax).collect();
        assert_eq!(got, sampling_quality(p.keys, &ks, p.trials, p.seed));
        assert_eq!(run.points(), &got[..]);
        assert_eq!(run.progress(), 1.0);
    }

    #[test]
    fn the_lru_walk_is_the_seeds() {
        let p: LruParams = Params::defaults(LRU).typed();
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
