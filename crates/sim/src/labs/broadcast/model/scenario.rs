//! The broadcast as a [`Scenario`]: the API, the worker process's slots and the stalled check
//! on any backend (the simulation and a live run build the same actors), the naive loop's
//! closed form, and the analysis of a world's trace into what the lab shows.

use super::super::output::{BroadcastOutput, Counters, End, Frame, Moment, Naive, Response};
use super::super::params::{BroadcastConfig, BroadcastParams, Mode};
use super::super::{MAX_STEPS, QUEUE};
use super::actors::{is_dead, Api, Bcast};
use super::live;
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::params::Switch;
use crate::labs::scenario::{LiveRun, Scenario, SimRun};
use crate::queue::{Keys, Life, QueueConfig, Slot, StalledCheck};
use crate::redis::Reply;
use crate::world::{Actors, Backend, Command, Hop, What, World};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

// ---------------------------------------------------------------------------------------
// The run.

/// Adds the API, the worker process's slots and its stalled check to `world`, each behind
/// `hop` (the simulation and a live run build the same actors).
pub(super) fn populate<B: Backend>(
    world: &mut World<B>,
    cfg: &BroadcastConfig,
    b: &Rc<RefCell<Bcast>>,
    life: &Rc<RefCell<Life>>,
    hop: Hop,
) {
    let p = &cfg.p;
    world.add(
        Box::new(Api {
            p: p.clone(),
            b: b.clone(),
            click: 0,
            clicked_at: 0,
            stage: 0,
            job: String::new(),
        }),
        hop,
        0,
    );
    let qcfg = QueueConfig {
        attempts: p.attempts,
        backoff_ms: p.backoff,
        lock_ms: p.lock,
        stalled_ms: p.stalled,
        max_stalled: 1,
        limit_max: p.throttle,
        limit_ms: cfg.pace.window,
        block_ms: cfg.pace.block,
    };
    for s in 0..p.concurrency as usize {
        world.add(
            Box::new(Slot::new(
                format!("w{}", s + 1),
                s,
                Keys::new(QUEUE),
                qcfg.clone(),
                life.clone(),
                b.clone(),
                p.restart,
            )),
            hop,
            1,
        );
    }
    world.add(
        Box::new(StalledCheck::new(
            "stalled-check".into(),
            Keys::new(QUEUE),
            qcfg,
            life.clone(),
            b.clone(),
        )),
        hop,
        1,
    );
}

/// The broadcast as a [`Scenario`]: its config (crash and outage schedules of any length),
/// the record outside Redis its actors share, and, live, a deadline.
pub struct BroadcastScenario {
    cfg: BroadcastConfig,
    b: Rc<RefCell<Bcast>>,
    life: Rc<RefCell<Life>>,
    /// Live: the run stops sending at this real time, ms.
    deadline: Option<u64>,
    stopped: Cell<bool>,
}

impl BroadcastScenario {
    /// The broadcast of `cfg`.
    pub fn new(cfg: &BroadcastConfig) -> Self {
        BroadcastScenario {
            cfg: cfg.clone(),
            b: Rc::new(RefCell::new(Bcast::new(cfg))),
            life: Rc::new(RefCell::new(cfg.life.clone())),
            deadline: None,
            stopped: Cell::new(false),
        }
    }

    /// The exact per-token send counts (index = token id; 0 unused).
    pub fn sends(&self) -> Vec<u8> {
        self.b.borrow().sends.clone()
    }
}

impl Scenario for BroadcastScenario {
    type Model = Actors;
    type Output = BroadcastOutput;
    const EVENTS: usize = 8_192;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let p = &self.cfg.p;
        let mut world = World::new(p.seed, backend);
        if live {
            self.deadline = Some(live::LIVE_DEADLINE_MS * (self.cfg.pace.window / 1000).max(1));
        }
        // The naive loop never speaks Redis: no actors, the closed form is its result.
        if p.mode != Mode::Naive {
            let hop = if live {
                Hop::default()
            } else {
                Hop::symmetric(1)
            };
            populate(&mut world, &self.cfg, &self.b, &self.life, hop);
        }
        world
    }

    fn go<B: Backend>(&self, world: &World<B>) -> bool {
        let late = self
            .deadline
            .is_some_and(|d| world.next_at().is_some_and(|t| t > d));
        if world.trace().len() >= MAX_STEPS || late {
            self.stopped.set(true);
        }
        !self.stopped.get()
    }

    fn stopped(&self) -> bool {
        self.stopped.get()
    }

    fn progress<B: Backend>(&self, _world: &World<B>) -> f64 {
        let b = self.b.borrow();
        let total = u64::from(b.p.tokens).max(1);
        b.c.delivered as f64 / total as f64
    }

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> BroadcastOutput {
        let p = &self.cfg.p;
        if p.mode == Mode::Naive {
            return naive_result(p);
        }
        analyse(&self.b.borrow(), world, &self.life.borrow(), live)
    }
}

/// A step-able run of the broadcast (the naive mode is closed-form: [`naive_result`]).
pub type BroadcastSim = SimRun<BroadcastScenario>;

/// The queue against a real Redis (live mode; see the module [`super::live`]).
pub type BroadcastLive = LiveRun<BroadcastScenario>;

/// The simulated broadcast of `cfg` (nothing happened yet).
pub fn sim(cfg: &BroadcastConfig) -> BroadcastSim {
    SimRun::new(BroadcastScenario::new(cfg), cfg.p.seed)
}

/// The live broadcast of `cfg` (nothing sent yet).
pub fn live_run(cfg: &BroadcastConfig) -> BroadcastLive {
    LiveRun::new(BroadcastScenario::new(cfg))
}

/// Runs `p` to the end, at the lab's pace.
pub fn run(p: &BroadcastParams) -> BroadcastOutput {
    sim(&p.config()).finish()
}

pub(super) fn naive(p: &BroadcastParams) -> Naive {
    let sent = |ms: u64| (ms / p.call_ms).min(u64::from(p.tokens));
    Naive {
        total_ms: u64::from(p.tokens) * p.call_ms,
        at_timeout: sent(p.proxy_timeout * 1000),
        at_death: sent(p.dies_at),
        whole_seconds: sent(p.dies_at / 1000 * 1000),
    }
}

pub(super) fn memory(p: &BroadcastParams) -> (u64, u64) {
    (
        u64::from(p.tokens) * p.row_bytes / 1_000_000,
        u64::from(p.page) * p.row_bytes / 1_000_000,
    )
}

/// The naive loop, closed form: one send per `call_ms`, the proxy's cut, the death, the rerun.
pub fn naive_result(p: &BroadcastParams) -> BroadcastOutput {
    let nv = naive(p);
    let tokens = u64::from(p.tokens);
    let dead_upto = |k: u64| {
        (1..=k as u32)
            .filter(|&i| is_dead(p.seed, p.dead, i))
            .count() as u64
    };
    let first = nv.at_death;
    let first_dead = dead_upto(first);
    let all_dead = dead_upto(tokens);
    let mut moments = vec![
        Moment {
            at_ms: 0,
            kind: "click".into(),
            n: 1,
            job: None,
        },
        Moment {
            at_ms: p.proxy_timeout * 1000,
            kind: "timeout".into(),
            n: nv.at_timeout,
            job: None,
        },
        Moment {
            at_ms: p.dies_at,
            kind: "died".into(),
            n: first,
            job: None,
        },
    ];
    let rerun = p.rerun == Switch::On;
    let end_ms = if rerun {
        p.dies_at + nv.total_ms
    } else {
        p.dies_at
    };
    if rerun {
        moments.push(Moment {
            at_ms: p.dies_at,
            kind: "rerun".into(),
            n: first,
            job: None,
        });
    }
    let counters = Counters {
        delivered: if rerun {
            tokens - all_dead
        } else {
            first - first_dead
        },
        sent_twice: if rerun { first - first_dead } else { 0 },
        lost: if rerun {
            0
        } else {
            tokens - all_dead - (first - first_dead)
        },
        dead: if rerun { all_dead } else { first_dead },
        fcm_calls: if rerun { first + tokens } else { first },
        calls_ok: if rerun { first + tokens } else { first },
        ..Counters::default()
    };
    // Frames: 120 across the first run, then 60 across the rerun.
    let mut frames = Vec::new();
    let sent = |t: u64| (t / p.call_ms).min(tokens);
    for i in 0..=120u64 {
        let t = p.dies_at * i / 120;
        let s = sent(t);
        frames.push(Frame {
            at_ms: t,
            delivered: s,
            calls: s,
            ..Frame::default()
        });
    }
    if rerun {
        for i in 1..=60u64 {
            let t = nv.total_ms * i / 60;
            let s = sent(t);
            frames.push(Frame {
                at_ms: p.dies_at + t,
                delivered: first.max(s),
                twice: s.min(first),
                calls: first + s,
                ..Frame::default()
            });
        }
    }
    BroadcastOutput {
        params: p.clone(),
        end_ms,
        counters,
        batches: p.batches(),
        naive: nv,
        responses: vec![Response {
            click: 1,
            at_ms: 0,
            ms: p.proxy_timeout * 1000,
            queued: false,
        }],
        pages: Vec::new(),
        memory_mb: memory(p),
        attempts: Vec::new(),
        routine: Some(Vec::new()),
        moments,
        frames,
        commands: Some(Vec::new()),
    }
}

/// Most commands kept in the log.
const LOG_MAX: usize = 600;

/// What the run shows. A simulated command is one trace entry with its reply (or none while
/// it blocks); a live one (`rtts`: the round trips, in the order the replies arrived) is two:
/// sent, then its reply when it arrived.
pub(super) fn analyse<B: Backend>(
    b: &Bcast,
    w: &World<B>,
    life: &Life,
    rtts: Option<&[u32]>,
) -> BroadcastOutput {
    let p = &b.p;
    let trace = w.trace();
    // Jobs worth their commands in the log: the broadcast jobs, the first two batches, and
    // every batch that failed, crashed, stalled or ran more than once.
    let mut keep: BTreeSet<&str> = BTreeSet::new();
    for a in &b.attempts {
        if a.batch.is_none_or(|n| n < 2) || a.attempt > 1 || a.end != End::Completed {
            keep.insert(a.job.as_str());
        }
    }
    let prefix = b.keys.key("");
    let job_of = |word: &[u8]| -> Option<String> {
        let s = String::from_utf8_lossy(word);
        let s = s.strip_prefix(prefix.as_str()).unwrap_or(&s);
        let s = s.strip_suffix(":lock").unwrap_or(s);
        b.jobs.contains_key(s).then(|| s.to_string())
    };
    let mut commands = Vec::new();
    let mut n_cmds = 0u64;
    let mut routine = 0usize;
    let mut sent: BTreeMap<usize, &Command> = BTreeMap::new();
    let mut rtt_of = rtts.unwrap_or_default().iter().copied();
    for e in trace {
        let (c, reply, rtt_us) = match (&e.what, rtts.is_some()) {
            (What::Exec { cmd: c, reply }, false) => (c, reply.as_ref(), None),
            (What::Exec { cmd: c, .. }, true) => {
                sent.insert(e.actor, c);
                continue;
            }
            (What::Unblocked { reply }, true) => match sent.remove(&e.actor) {
                Some(c) => (c, Some(reply), rtt_of.next()),
                None => continue,
            },
            _ => continue,
        };
        n_cmds += 1;
        if commands.len() >= LOG_MAX {
            continue;
        }
        let mut job = c.iter().skip(1).find_map(|x| job_of(x));
        if job.is_none() {
            if let Some(Reply::Bulk(x)) = reply {
                job = job_of(x);
            }
        }
        let who = w.actor_name(e.actor);
        let interesting = match &job {
            Some(j) => keep.contains(j.as_str()),
            None => {
                who == "api" || who == "stalled-check" || {
                    let empty = matches!(reply, Some(Reply::Array(a)) if a.is_empty())
                        || matches!(reply, Some(Reply::Nil));
                    routine += 1;
                    !empty && routine <= 60
                }
            }
        };
        if interesting {
            let reply = reply.cloned().ok_or(NoReply::Blocked);
            let mut line = CmdLine::new(e.at_ms, who, c, reply);
            line.rtt_us = rtt_us;
            commands.push(line);
        }
    }
    let end_ms = b
        .attempts
        .iter()
        .map(|a| a.to_ms)
        .chain(b.responses.iter().map(|r| r.at_ms + r.ms))
        .max()
        .unwrap_or(0);
    let mut attempts = b.attempts.clone();
    for a in attempts.iter_mut().filter(|a| a.end == End::Running) {
        a.to_ms = w.now_ms();
    }
    let mut c = b.c;
    c.commands = n_cmds;
    let valid = (1..=p.tokens)
        .filter(|&i| !is_dead(p.seed, p.dead, i))
        .count() as u64;
    c.lost = valid - c.delivered;
    // Frames: one a second (more apart on long runs, at most 400).
    let step = (end_ms.div_ceil(400)).max(1000).div_ceil(1000) * 1000;
    let mut frames = Vec::new();
    let mut i = 0;
    let mut last = (0, 0, 0, 0, 0);
    let mut t = 0;
    loop {
        while i < b.series.len() && b.series[i].0 <= t {
            last = b.series[i];
            i += 1;
        }
        let retries = b
            .attempts
            .iter()
            .filter(|a| a.end == End::Retry && a.to_ms <= t)
            .count() as u64;
        let failed = b
            .moments
            .iter()
            .filter(|m| m.kind == "failed" && m.at_ms <= t)
            .count() as u64;
        frames.push(Frame {
            at_ms: t,
            delivered: last.1,
            twice: last.2,
            calls: last.3,
            retries,
            failed,
            marked: last.4,
        });
        if t >= end_ms {
            break;
        }
        t = (t + step).min(end_ms);
    }
    let mut moments = b.moments.clone();
    for &(a, z) in &b.outages {
        moments.push(Moment {
            at_ms: a,
            kind: "outage".into(),
            n: (z - a) / 1000,
            job: None,
        });
        moments.push(Moment {
            at_ms: z,
            kind: "back".into(),
            n: 0,
            job: None,
        });
    }
    for &(a, z) in life.down.iter().filter(|d| d.0 <= w.now_ms()) {
        moments.push(Moment {
            at_ms: a,
            kind: "crash".into(),
            n: 0,
            job: None,
        });
        moments.push(Moment {
            at_ms: z,
            kind: "restart".into(),
            n: 0,
            job: None,
        });
    }
    moments.sort_by_key(|m| m.at_ms);
    let (attempts, routine) = attempts.into_iter().partition(|a| a.notable());
    BroadcastOutput {
        params: p.clone(),
        end_ms,
        counters: c,
        batches: p.batches(),
        naive: naive(p),
        responses: b.responses.clone(),
        pages: b.pages.clone(),
        memory_mb: memory(p),
        attempts,
        routine: Some(routine),
        moments,
        frames,
        commands: Some(commands),
    }
}
