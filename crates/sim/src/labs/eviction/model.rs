//! The runs, each step-able: the seed's table ([`TableCount`]: one policy × trace cell per
//! step, a row as soon as a policy has run on every trace), the race replayed on one trace
//! ([`RaceReplay`]: a policy's frame per step, "why was this key evicted" for one policy) and
//! hit ratio against cache size ([`CurveCount`]: a point per step). Each is the same
//! computation as its run-to-end function (`eviction_table`, `mrc`), proven equal by the tests.

use super::output::{CurvePoint, CurveSeries, EvictionOutput, EvictionRow, Logged, RaceOutput};
use super::params::EvictionParams;
use crate::eviction::registry::{by_name, info, Spec, UnknownPolicy};
use crate::eviction::runner::{
    run, EvictionConfig, EvictionRow as Row, EvictionTable, Replay, Step,
};
use crate::eviction::trace::{Trace, TraceKind};
use crate::eviction::Stats;
use crate::labs::lab::Run;
use std::collections::VecDeque;
use std::rc::Rc;

/// Parts of the race's replay (its timeline's steps).
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

/// A [`Step`] as "why was this key evicted" shows it (without its running counters, which
/// the race's frames already carry).
fn logged(s: &Step) -> Logged {
    Logged {
        index: s.index,
        key: s.key,
        access: s.access,
    }
}

/// The seed's table, a cell per step: traces first, then each policy on each trace in turn.
pub struct TableCount {
    cfg: EvictionConfig,
    traces: Vec<Trace>,
    next: usize,
    row: Vec<Stats>,
    name: &'static str,
    rows: Vec<Row>,
}

impl TableCount {
    /// The table of `cfg`.
    ///
    /// # Errors
    /// [`UnknownPolicy`] if a name is not in the registry.
    pub fn new(cfg: EvictionConfig) -> Result<Self, UnknownPolicy> {
        known(&cfg.policies)?;
        Ok(TableCount {
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
    pub fn step(&mut self) -> Option<EvictionRow> {
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
        let row = Row {
            name: self.name,
            stats: std::mem::take(&mut self.row),
        };
        let out = EvictionRow {
            policy: row.name.to_string(),
            results: row.stats.iter().map(Into::into).collect(),
        };
        self.rows.push(row);
        Some(out)
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

/// Requests replayed at the end of frame `f` of a trace of `len` requests.
pub fn boundary(f: usize, len: usize) -> usize {
    ((f + 1) * len).div_ceil(FRAMES)
}

/// Work for [`RaceOutput`]: the trace, then each policy one frame per step.
pub struct RaceReplay {
    cfg: EvictionConfig,
    kind: TraceKind,
    focus: String,
    trace: Option<Rc<Trace>>,
    /// Policy indices still to replay; `policies.len()` is the chosen policy when it is not
    /// raced (replayed only for its log).
    queue: VecDeque<usize>,
    current: Option<(usize, Replay, VecDeque<Step>)>,
    race: RaceOutput,
    total: usize,
    done: bool,
}

impl RaceReplay {
    /// The race of `p` on its shown trace.
    ///
    /// # Errors
    /// [`UnknownPolicy`] if a name is not in the registry.
    pub fn new(p: &EvictionParams) -> Result<Self, UnknownPolicy> {
        let cfg = p.config();
        known(&cfg.policies)?;
        let focus = p.focus.word().to_string();
        let n = cfg.policies.len();
        let mut queue: VecDeque<usize> = (0..n).collect();
        if !cfg.policies.contains(&focus) {
            queue.push_back(n);
        }
        Ok(RaceReplay {
            kind: p.kind(),
            cfg,
            focus,
            trace: None,
            total: queue.len(),
            queue,
            current: None,
            race: RaceOutput {
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
    pub fn step(&mut self) -> Option<RaceOutput> {
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
                self.race.logs[f] = log.iter().map(logged).collect();
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
pub struct CurveCount {
    cfg: EvictionConfig,
    kind: TraceKind,
    trace: Option<Trace>,
    sizes: Vec<u32>,
    series: Vec<CurveSeries>,
    next: usize,
}

impl CurveCount {
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
        Ok(CurveCount {
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

impl Run for TableCount {
    type Part = EvictionRow;
    type Output = EvictionOutput;
    fn step(&mut self) -> Option<EvictionRow> {
        TableCount::step(self)
    }
    fn is_done(&self) -> bool {
        TableCount::is_done(self)
    }
    fn progress(&self) -> f64 {
        TableCount::progress(self)
    }
    fn output(&mut self) -> EvictionOutput {
        EvictionOutput::of(&self.table())
    }
}

impl Run for RaceReplay {
    type Part = ();
    type Output = RaceOutput;
    fn step(&mut self) -> Option<()> {
        RaceReplay::step(self);
        None
    }
    fn is_done(&self) -> bool {
        self.done
    }
    fn progress(&self) -> f64 {
        RaceReplay::progress(self)
    }
    fn output(&mut self) -> RaceOutput {
        self.race.clone()
    }
}

impl Run for CurveCount {
    type Part = CurvePoint;
    type Output = Vec<CurveSeries>;
    fn step(&mut self) -> Option<CurvePoint> {
        CurveCount::step(self)
    }
    fn is_done(&self) -> bool {
        CurveCount::is_done(self)
    }
    fn progress(&self) -> f64 {
        CurveCount::progress(self)
    }
    fn output(&mut self) -> Vec<CurveSeries> {
        self.series().to_vec()
    }
}
