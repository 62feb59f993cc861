//! The policy race (eviction deck, seed 001 §4): FIFO/RANDOM/LRU/LFU/OPT (or any of the
//! registry's policies) on the seed's three traces. Its runs, each step-able: the seed's
//! table (`table`: one policy × trace cell per step, a row as soon as a policy has run on
//! every trace), the race replayed on one trace in timeline frames with "why was this key
//! evicted" for one policy (`race`), and hit ratio against cache size (`curve`). Each is the
//! same computation as its run-to-end function (`eviction_table`, `mrc`), proven equal by the
//! tests below.

/// Its practice questions.
pub mod practice;

use super::lab::{erase, AnyRun, Broken, CliSpec, Job, Lab, LabInfo, Run};
use super::params::{broken, float, int, seed, Field, Kind, Params};
use crate::cli::{Args, CliError};
use crate::eviction::registry::{by_name, info, Spec, UnknownPolicy};
use crate::eviction::runner::{
    eviction_table, run, EvictionConfig, EvictionRow, EvictionTable, Replay, Step,
};
use crate::eviction::trace::{Trace, TraceKind};
use crate::eviction::Stats;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::rc::Rc;

/// Registry names of every eviction policy, for pickers.
pub const POLICY_NAMES: &[&str] = &[
    "fifo",
    "random",
    "lru",
    "lfu",
    "opt",
    "clock",
    "sieve",
    "redis-lru",
    "redis-lru-nopool",
    "redis-lfu",
    "slru",
    "2q",
    "arc",
    "w-tinylfu",
];
/// The three traces of seed 001 §4.
pub const TRACE_NAMES: &[&str] = &["zipf", "scan", "shift"];

/// The policy race (seed 001 §4).
const FIELDS: &[Field] = &[
    float("alpha", "Zipf α", 0.0, 3.0, "0.9"),
    int("cache", "ক্যাশ (key)", 1, 20_000, "300"),
    int("keys", "মোট key", 10, 200_000, "10000"),
    int("requests", "রিকোয়েস্ট", 1_000, 300_000, "60000"),
    int("warmup", "warm-up", 0, 299_000, "10000"),
    seed("7"),
    int("policy_seed", "policy seed", 0, u32::MAX as i64, "99"),
    Field {
        key: "policies",
        label: "policy",
        kind: Kind::Many(POLICY_NAMES),
        default: "fifo,random,lru,lfu,opt",
    },
    Field {
        key: "trace",
        label: "trace",
        kind: Kind::Choice { words: TRACE_NAMES, labels: &[] },
        default: "zipf",
    },
    Field {
        key: "focus",
        label: "কার eviction দেখব",
        kind: Kind::Choice { words: POLICY_NAMES, labels: &[] },
        default: "lru",
    },
    int("scan_period", "scan পালা (রিকোয়েস্ট)", 1, 100_000, "5000"),
    int("scan_keys", "scan key/রিকোয়েস্ট", 1, 8, "2"),
    int("shift_period", "shift পালা (রিকোয়েস্ট)", 1, 200_000, "20000"),
    int("shift_amount", "shift (key)", 0, 200_000, "3000"),
];


/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "eviction",
    title: "Eviction policy-র দৌড়",
    blurb: "FIFO, RANDOM, LRU, LFU, OPT আর আধুনিক policy — তিন trace-এ hit ratio, seed-এর টেবিল হুবহু",
    fields: FIELDS,
    presets: &[],
    rules,
    runs: &["table", "race", "curve"],
    live: false,
};

/// Warm-up shorter than the run; a cache smaller than the keys.
fn rules(p: &Params) -> Result<(), Broken> {
    if p.int("warmup") >= p.int("requests") {
        return Err(broken("warmup", "warm-up মোট রিকোয়েস্টের চেয়ে কম হতে হবে"));
    }
    if p.int("cache") > p.int("keys") {
        return Err(broken(
            "cache",
            "ক্যাশ মোট key-এর চেয়ে বড় হলে সব hit — key-এর চেয়ে ছোট দিন",
        ));
    }
    Ok(())
}

/// The policy race's parameters, typed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvictionParams {
    /// Zipf α.
    pub alpha: f64,
    /// Cache size in keys.
    pub cache: u32,
    /// Distinct user keys.
    pub keys: u32,
    /// User requests.
    pub requests: u32,
    /// User requests not scored at the start.
    pub warmup: u32,
    /// Trace seed.
    pub seed: u32,
    /// Seed of the policies' own randomness.
    pub policy_seed: u32,
    /// Registry names of the raced policies, in row order.
    pub policies: Vec<String>,
    /// The trace replayed on the timeline (`zipf`, `scan`, `shift`).
    pub trace: String,
    /// The policy whose evictions are explained.
    pub focus: String,
    /// Requests between scans.
    pub scan_period: u32,
    /// Scan keys per request.
    pub scan_keys: u32,
    /// Requests between popularity shifts.
    pub shift_period: u32,
    /// Keys the popularity moves by at each shift.
    pub shift_amount: u32,
}

impl EvictionParams {
    /// The policy race these parameters describe (the same run `labsim eviction` makes with
    /// the same values).
    pub fn config(&self) -> crate::EvictionConfig {
        use crate::eviction::trace::{Scan, Shift};
        let mut c = crate::EvictionConfig::default();
        c.trace.keys = self.keys;
        c.trace.alpha = self.alpha;
        c.trace.requests = self.requests;
        c.trace.seed = self.seed;
        c.trace.scan = Some(Scan {
            period: self.scan_period,
            keys_per_request: self.scan_keys,
        });
        c.trace.shift = Some(Shift {
            period: self.shift_period,
            amount: self.shift_amount,
        });
        c.cache = self.cache;
        c.warmup = u64::from(self.warmup);
        c.policy_seed = self.policy_seed;
        c.policies = self.policies.clone();
        c.traces = crate::TraceKind::ALL.to_vec();
        c
    }

    /// The trace shown on the timeline.
    pub fn kind(&self) -> crate::TraceKind {
        crate::TraceKind::parse(&self.trace).unwrap_or(crate::TraceKind::Zipf)
    }
}


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

impl Run for TableRun {
    type Part = TableRow;
    type Output = String;
    fn step(&mut self) -> Option<TableRow> {
        TableRun::step(self)
    }
    fn is_done(&self) -> bool {
        TableRun::is_done(self)
    }
    fn progress(&self) -> f64 {
        TableRun::progress(self)
    }
    /// The table as the seed prints it.
    fn output(&mut self) -> String {
        self.table().to_text()
    }
}

impl Run for RaceRun {
    type Part = ();
    type Output = Race;
    fn step(&mut self) -> Option<()> {
        RaceRun::step(self);
        None
    }
    fn is_done(&self) -> bool {
        self.done
    }
    fn progress(&self) -> f64 {
        RaceRun::progress(self)
    }
    fn output(&mut self) -> Race {
        self.race.clone()
    }
}

impl Run for CurveRun {
    type Part = CurvePoint;
    type Output = Vec<CurveSeries>;
    fn step(&mut self) -> Option<CurvePoint> {
        CurveRun::step(self)
    }
    fn is_done(&self) -> bool {
        CurveRun::is_done(self)
    }
    fn progress(&self) -> f64 {
        CurveRun::progress(self)
    }
    fn output(&mut self) -> Vec<CurveSeries> {
        self.series().to_vec()
    }
}

/// The policy race's runner.
pub struct EvictionLab;

/// The registry's entry.
pub static LAB: EvictionLab = EvictionLab;

impl Lab for EvictionLab {
    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let p: EvictionParams = p.typed();
        let e = |e: UnknownPolicy| e.to_string();
        match job.run.as_str() {
            "" | "table" => Ok(erase(TableRun::new(p.config()).map_err(e)?)),
            "race" => Ok(erase(RaceRun::new(&p).map_err(e)?)),
            "curve" => Ok(erase(CurveRun::new(&p).map_err(e)?)),
            other => Err(format!("eviction has no run `{other}`")),
        }
    }

    fn heaviest(&self) -> &'static str {
        "keys=200000&cache=20000&warmup=0&requests=300000&alpha=3"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "policy hit ratios on the seed's three traces",
            // `trace` and `focus` choose what the lab's timeline shows: not part of the table.
            skip: &["trace", "focus"],
            more: &["traces"],
            switches: &[],
            usage: &["[--traces zipf,scan,shift]"],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: EvictionParams = p.typed();
        let traces = a
            .words("traces", &["zipf", "scan", "shift"])?
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
        Ok(crate::cli::emit(a, table.to_text(), || table.to_json()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const EVICTION: &LabInfo = &INFO;

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

}
