//! The policy race of seed 001 §৪: FIFO, RANDOM, LRU, LFU and Belady's OPT (or any registry
//! policies) on the seed's three traces — Zipf, Zipf + scan, shifting popularity — with the
//! seed's table to the last digit, the race replayed step by step on one trace, "why was this
//! key evicted" for one chosen policy, and hit ratio against cache size with OPT as the ceiling.
//! All numbers come from `redislab-sim`; the work runs in short slices.

use super::kit::{
    pct, progress, use_job, use_params, use_timeline, Controls, Job, JobState, LabProps, ParamForm,
};
use super::widgets::{hbars, line_chart, Axes, Bar, Series};
use redislab_deck::bn;
use redislab_sim::labs::params::{eviction_config, Params, EVICTION};
use redislab_sim::{
    by_name, run, Access, EvictionConfig, EvictionRow, EvictionTable, Replay, Spec, Stats, Step,
    Trace, TraceKind,
};
use std::collections::VecDeque;
use std::rc::Rc;
use yew::prelude::*;

/// Positions on the replay timeline.
const FRAMES: usize = 40;
/// Steps of the chosen policy kept for "why evicted".
const LOG: usize = 8;

fn shown_kind(p: &Params) -> TraceKind {
    TraceKind::parse(p.get("trace")).unwrap_or(TraceKind::Zipf)
}

/// The seed's table for these parameters: every policy on every trace, run to the end.
pub struct Table {
    table: EvictionTable,
    /// Wall-clock milliseconds from the start of the work to the finished table.
    millis: f64,
}

/// Work for [`Table`]: the traces, then one fast run (policy, trace) per slice.
struct TableJob {
    started: f64,
    cfg: EvictionConfig,
    traces: Vec<Trace>,
    next: usize,
    stats: Vec<Vec<Stats>>,
    names: Vec<&'static str>,
}

impl TableJob {
    fn new(p: &Params) -> Self {
        let cfg = eviction_config(p);
        let n = cfg.policies.len();
        TableJob {
            started: super::kit::now(),
            cfg,
            traces: Vec::new(),
            next: 0,
            stats: vec![vec![Stats::default(); 3]; n],
            names: vec![""; n],
        }
    }
}

impl Job for TableJob {
    type Output = Table;

    fn slice(&mut self) -> Option<Table> {
        if self.traces.is_empty() {
            self.traces = self.cfg.trace.generate_kinds(&TraceKind::ALL);
            return None;
        }
        let n = self.cfg.policies.len();
        if self.next >= n * self.traces.len() {
            let rows = self
                .names
                .iter()
                .zip(&self.stats)
                .map(|(name, stats)| EvictionRow {
                    name,
                    stats: stats.clone(),
                })
                .collect();
            return Some(Table {
                table: EvictionTable {
                    config: self.cfg.clone(),
                    rows,
                },
                millis: super::kit::now() - self.started,
            });
        }
        let (pi, ti) = (self.next % n, self.next / n);
        let trace = &self.traces[ti];
        let spec = Spec {
            capacity: self.cfg.cache,
            seed: self.cfg.policy_seed,
            future: &trace.keys,
        };
        // Names were checked by the parameter form; skip (leave zeros) rather than panic.
        if let Ok(mut policy) = by_name(&self.cfg.policies[pi], &spec) {
            self.names[pi] = policy.name();
            self.stats[pi][ti] = run(policy.as_mut(), trace, self.cfg.warmup);
        }
        self.next += 1;
        None
    }

    fn progress(&self) -> f64 {
        self.next as f64 / (self.cfg.policies.len() * 3).max(1) as f64
    }
}

/// The race replayed on the shown trace: counters at each frame, and the chosen policy's
/// recent steps for "why was this key evicted".
pub struct Race {
    /// Display names of the raced policies, in row order.
    names: Vec<&'static str>,
    /// Stats per frame per raced policy.
    frames: Vec<Vec<Stats>>,
    /// Requests replayed at the end of each frame.
    positions: Vec<usize>,
    /// The chosen policy's last steps at the end of each frame.
    logs: Vec<Vec<Step>>,
    focus_name: &'static str,
    focus_rule: &'static str,
    trace_len: usize,
}

/// Work for [`Race`]; waits (does nothing) until the table is done, so the table comes first.
struct RaceJob {
    wait: bool,
    cfg: EvictionConfig,
    kind: TraceKind,
    focus: String,
    trace: Option<Rc<Trace>>,
    /// Policy indices still to replay; `policies.len()` is the chosen policy when it is not
    /// raced (replayed only for its log).
    queue: VecDeque<usize>,
    current: Option<(usize, Replay, VecDeque<Step>)>,
    frames: Vec<Vec<Stats>>,
    logs: Vec<Vec<Step>>,
    names: Vec<&'static str>,
    focus_name: &'static str,
    focus_rule: &'static str,
    total: usize,
}

impl RaceJob {
    fn new(p: &Params, wait: bool) -> Self {
        let cfg = eviction_config(p);
        let n = cfg.policies.len();
        let focus = p.get("focus").to_string();
        let mut queue: VecDeque<usize> = (0..n).collect();
        if !cfg.policies.contains(&focus) {
            queue.push_back(n);
        }
        RaceJob {
            wait,
            kind: shown_kind(p),
            cfg,
            focus,
            trace: None,
            total: queue.len(),
            queue,
            current: None,
            frames: vec![vec![Stats::default(); n]; FRAMES],
            logs: vec![Vec::new(); FRAMES],
            names: vec![""; n],
            focus_name: "",
            focus_rule: "",
        }
    }

    fn policy_name(&self, pi: usize) -> &str {
        self.cfg
            .policies
            .get(pi)
            .map_or(self.focus.as_str(), String::as_str)
    }
}

/// Requests replayed at the end of frame `f` of a trace of `len` requests.
fn boundary(f: usize, len: usize) -> usize {
    ((f + 1) * len).div_ceil(FRAMES)
}

impl Job for RaceJob {
    type Output = Race;

    fn slice(&mut self) -> Option<Race> {
        if self.wait {
            return Some(Race {
                names: Vec::new(),
                frames: Vec::new(),
                positions: Vec::new(),
                logs: Vec::new(),
                focus_name: "",
                focus_rule: "",
                trace_len: 0,
            });
        }
        let Some(trace) = self.trace.clone() else {
            self.trace = Some(Rc::new(self.cfg.trace.with_kind(self.kind).generate()));
            return None;
        };
        let len = trace.keys.len();
        if self.current.is_none() {
            let Some(pi) = self.queue.pop_front() else {
                return Some(Race {
                    names: self.names.clone(),
                    frames: std::mem::take(&mut self.frames),
                    positions: (0..FRAMES).map(|f| boundary(f, len)).collect(),
                    logs: std::mem::take(&mut self.logs),
                    focus_name: self.focus_name,
                    focus_rule: self.focus_rule,
                    trace_len: len,
                });
            };
            let spec = Spec {
                capacity: self.cfg.cache,
                seed: self.cfg.policy_seed,
                future: &trace.keys,
            };
            let Ok(policy) = by_name(self.policy_name(pi), &spec) else {
                return None;
            };
            if pi < self.names.len() {
                self.names[pi] = policy.name();
            }
            if self.policy_name(pi) == self.focus {
                self.focus_name = policy.name();
                self.focus_rule = rule_bn(&self.focus).unwrap_or(policy.victim_rule());
            }
            self.current = Some((
                pi,
                Replay::new(policy, trace, self.cfg.warmup),
                VecDeque::new(),
            ));
            return None;
        }
        let is_focus = self
            .current
            .as_ref()
            .is_some_and(|c| self.policy_name(c.0) == self.focus);
        let keep = if is_focus { LOG } else { 0 };
        let (pi, replay, log) = self.current.as_mut()?;
        let pi = *pi;
        // One frame per slice.
        let pos = replay.replayed();
        let Some(f) = (0..FRAMES).find(|&f| boundary(f, len) > pos) else {
            self.current = None;
            return None;
        };
        let want = boundary(f, len) - pos;
        let got = replay.advance(want, log, keep);
        if got == want {
            if pi < self.frames[f].len() {
                self.frames[f][pi] = replay.stats();
            }
            if keep > 0 {
                self.logs[f] = log.iter().copied().collect();
            }
        } else {
            self.current = None;
        }
        None
    }

    fn progress(&self) -> f64 {
        let left = self.queue.len() + usize::from(self.current.is_some());
        1.0 - left as f64 / self.total.max(1) as f64
    }
}

/// Hit ratio against cache size on the shown trace.
struct CurveJob {
    /// Waits (does nothing) until the race is done, so the race gets the whole CPU.
    wait: bool,
    cfg: EvictionConfig,
    kind: TraceKind,
    trace: Option<Rc<Trace>>,
    sizes: Vec<u32>,
    names: Vec<String>,
    points: Vec<Vec<(f64, f64)>>,
    labels: Vec<&'static str>,
    next: usize,
}

impl CurveJob {
    fn new(p: &Params, wait: bool) -> Self {
        let cfg = eviction_config(p);
        let c = cfg.cache;
        let mut sizes: Vec<u32> = [c / 8, c / 4, c / 2, c, c * 2, c * 4, c * 8]
            .into_iter()
            .filter(|&s| s >= 1 && s <= cfg.trace.keys)
            .collect();
        sizes.dedup();
        let mut names = cfg.policies.clone();
        if !names.iter().any(|n| n == "opt") {
            names.push("opt".into());
        }
        let n = names.len();
        CurveJob {
            wait,
            kind: shown_kind(p),
            cfg,
            trace: None,
            sizes,
            points: vec![Vec::new(); n],
            labels: vec![""; n],
            names,
            next: 0,
        }
    }
}

impl Job for CurveJob {
    type Output = Vec<Series>;

    fn slice(&mut self) -> Option<Vec<Series>> {
        if self.wait {
            return Some(Vec::new());
        }
        let Some(trace) = self.trace.clone() else {
            self.trace = Some(Rc::new(self.cfg.trace.with_kind(self.kind).generate()));
            return None;
        };
        let total = self.sizes.len() * self.names.len();
        if self.next >= total {
            return Some(
                self.names
                    .iter()
                    .zip(&self.points)
                    .zip(&self.labels)
                    .map(|((n, pts), label)| Series {
                        name: label.to_string(),
                        points: pts.clone(),
                        class: format!("p-{n}"),
                    })
                    .collect(),
            );
        }
        let (pi, si) = (self.next / self.sizes.len(), self.next % self.sizes.len());
        let size = self.sizes[si];
        let spec = Spec {
            capacity: size,
            seed: self.cfg.policy_seed,
            future: &trace.keys,
        };
        if let Ok(mut policy) = by_name(&self.names[pi], &spec) {
            self.labels[pi] = policy.name();
            let s = run(policy.as_mut(), &trace, self.cfg.warmup);
            self.points[pi].push((f64::from(size), pct(s.scored_hits, s.scored_requests)));
        }
        self.next += 1;
        None
    }

    fn progress(&self) -> f64 {
        self.next as f64 / (self.sizes.len() * self.names.len()).max(1) as f64
    }
}

/// Who each policy evicts, in Bengali (the simulator's own wording is English).
fn rule_bn(policy: &str) -> Option<&'static str> {
    Some(match policy {
        "fifo" => "সবচেয়ে আগে যে ঢুকেছিল (FIFO-র মাথা)",
        "random" => "এলোমেলো একটা key",
        "lru" => "list-এর লেজ — যাকে সবচেয়ে বেশি সময় কেউ ছোঁয়নি",
        "lfu" => "সবচেয়ে কম ব্যবহৃত key (সমান হলে যে আগে ঢুকেছিল)",
        "opt" => "যাকে সবচেয়ে দেরিতে আবার লাগবে (হয়তো নতুনটাই)",
        "clock" => "ঘড়ির কাঁটা যাকে reference bit ছাড়া পায়",
        "sieve" => "কাঁটা যাকে শেষবার পার হওয়ার পর আর কেউ দেখেনি",
        "redis-lru" | "redis-lru-nopool" | "redis-lru-2.8" => {
            "নমুনার মধ্যে সবচেয়ে পুরোনো (eviction pool থেকে)"
        }
        "redis-lfu" => "নমুনার মধ্যে সবচেয়ে ছোট logarithmic counter",
        "slru" => "probation অংশের লেজ — যাদের একবারই দেখা গেছে",
        "2q" => "A1in-এর সবচেয়ে পুরোনো নতুন-আসা, নয়তো Am-এর LRU",
        "arc" => "T1 বা T2-এর LRU — যেটা নিজের লক্ষ্য-আকার ছাড়িয়েছে",
        "w-tinylfu" => "window-র বাড়তি আর probation-এর LRU-র মধ্যে frequency-তে যে হারল",
        _ => return None,
    })
}

fn access_text(step: &Step, rule: &str) -> Html {
    let (class, what) = match step.access {
        Access::Hit => ("hit", "hit — আগে থেকেই ক্যাশে".to_string()),
        Access::Miss { evicted: Some(e) } if e == step.key => (
            "bypass",
            "miss — নতুন key-টাকেই রাখা হলো না (admission)".to_string(),
        ),
        Access::Miss { evicted: Some(e) } => ("evict", format!("miss → key {e} বেরোল: {rule}")),
        Access::Miss { evicted: None } => ("miss", "miss — জায়গা ছিল, কাউকে সরাতে হয়নি".to_string()),
    };
    html! {
        <li class={classes!("why-row", class)}>
            <span class="why-idx">{ format!("#{}", step.index + 1) }</span>
            <span class="why-key">{ format!("key {}", step.key) }</span>
            <span class="why-what">{ what }</span>
        </li>
    }
}

/// The policy race.
#[component]
pub fn EvictionLab(props: &LabProps) -> Html {
    let p = use_params(EVICTION, &props.query, props.on_query.clone());
    let params = p.state.good.clone();
    // Three pieces of work, one after the other: the table first (the seed's numbers), then
    // the race replay for the timeline, then the curve.
    let table = use_job(params.clone(), TableJob::new);
    let table_done = matches!(table, JobState::Done(_));
    let race = use_job((params.clone(), table_done), |(p, done)| {
        RaceJob::new(p, !done)
    });
    let race_done = table_done && matches!(&race, JobState::Done(r) if !r.names.is_empty());
    let curves = use_job((params.clone(), race_done), |(p, done)| {
        CurveJob::new(p, !done)
    });
    let t = use_timeline(FRAMES, 250);
    let kind = shown_kind(&params);
    let kind_label = match kind {
        TraceKind::Zipf => "(a) Zipf",
        TraceKind::Scan => "(b) + scan",
        TraceKind::Shift => "(c) shift",
    };
    // The everyday knobs first; the trace's finer shape behind "more".
    const MAIN: [&str; 7] = [
        "alpha", "cache", "keys", "trace", "policies", "focus", "seed",
    ];
    const MORE: [&str; 7] = [
        "requests",
        "warmup",
        "policy_seed",
        "scan_period",
        "scan_keys",
        "shift_period",
        "shift_amount",
    ];
    let form = if props.embedded {
        html! { <ParamForm state={(*p.state).clone()} set={p.set.clone()} only={vec!["alpha", "cache", "trace"]} /> }
    } else {
        let open_more = MORE.iter().any(|k| p.state.errors.contains_key(*k));
        html! {
            <>
                <ParamForm state={(*p.state).clone()} set={p.set.clone()} only={MAIN.to_vec()} />
                <details class="lab-more" open={open_more}>
                    <summary>{"আরও প্যারামিটার — অনুরোধ, warm-up, policy seed, scan আর shift-এর আকার"}</summary>
                    <ParamForm state={(*p.state).clone()} set={p.set.clone()} only={MORE.to_vec()} unknown=false />
                </details>
            </>
        }
    };

    let table_view = match &table {
        JobState::Running(x) => progress(*x),
        JobState::Done(r) => html! {
            <div class="race-table">
                <p class="lab-caption">{ format!("তিন trace-এ পুরো ফল (seed-এর টেবিলের বিন্যাসে) · এই ব্রাউজারে হিসাব লাগল {} ms", bn::digits(r.millis.round() as usize, 1)) }</p>
                <pre class="lab-table" data-testid="eviction-table" data-ms={format!("{:.1}", r.millis)}>{ r.table.to_text() }</pre>
            </div>
        },
    };
    let race_view = match &race {
        JobState::Done(r) if !r.names.is_empty() => {
            let f = t.cursor.min(FRAMES - 1);
            let pos = r.positions.get(f).copied().unwrap_or(0);
            let bars: Vec<Bar> = r
                .names
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let s = r.frames[f].get(i).copied().unwrap_or_default();
                    // During warm-up nothing is scored yet: show all requests, marked as such.
                    let warm = s.scored_requests == 0;
                    let v = if warm {
                        pct(s.hits, s.requests)
                    } else {
                        pct(s.scored_hits, s.scored_requests)
                    };
                    Bar {
                        label: name.to_string(),
                        value: v,
                        text: if warm {
                            format!("{v:.1}% ·w")
                        } else {
                            format!("{v:.1}%")
                        },
                        class: if *name == "OPT" {
                            "opt"
                        } else if warm {
                            "warm"
                        } else {
                            ""
                        },
                    }
                })
                .collect();
            let label = format!(
                "{} / {} অনুরোধ · {kind_label}",
                bn::digits(pos, 1),
                bn::digits(r.trace_len, 1)
            );
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <div class="race">
                        <div class="race-bars" data-testid="race-bars">
                            <p class="lab-caption">{ format!("{kind_label} trace-এ এ পর্যন্ত hit ratio — প্রথম {} অনুরোধ warm-up (·w), গোনা হয় না", bn::digits(params.int("warmup").max(0) as usize, 1)) }</p>
                            { hbars(&bars, 100.0) }
                        </div>
                        if !props.embedded {
                            <div class="why">
                                <p class="lab-caption">{ format!("{} — শেষ {}টা অনুরোধে কী হলো, আর কেন", r.focus_name, bn::digits(LOG, 1)) }</p>
                                <ol class="why-list">{ for r.logs[f].iter().map(|s| access_text(s, r.focus_rule)) }</ol>
                            </div>
                        }
                    </div>
                </>
            }
        }
        JobState::Running(x) if table_done => progress(*x),
        _ => Html::default(),
    };
    let curve = match (&curves, props.embedded) {
        (_, true) => Html::default(),
        (JobState::Running(x), _) => progress(*x),
        (JobState::Done(series), _) if series.is_empty() => Html::default(),
        (JobState::Done(series), _) => html! {
            <div class="race-curve">
                <p class="lab-caption">{ format!("ক্যাশের আকার বনাম hit ratio ({kind_label}) — OPT হলো ছাদ") }</p>
                { line_chart(series, &Axes { x: "ক্যাশের আকার (key, log স্কেল)".into(), y: "hit %".into(), log_x: true }, 100.0, Some(f64::from(params.u32("cache")))) }
            </div>
        },
    };
    html! {
        <div class={classes!("lab", "lab-eviction", props.embedded.then_some("embedded"))} data-lab="eviction">
            { form }
            { race_view }
            { table_view }
            { curve }
            if props.embedded { { super::open_full("eviction", &params.to_query()) } }
        </div>
    }
}
