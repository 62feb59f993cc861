//! The producer, workers and recovery as a [`Scenario`], and the analysis of a world's trace
//! into what the lab shows.

use super::actors::{Journal, Producer, Recovery, Worker};
use super::*;
use crate::labs::log::NoReply;
use crate::labs::scenario::{LiveRun, Scenario, SimRun};
use crate::world::{Actors, Backend, Command, Hop, TraceEvent, What, World};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The queue's actors (see the module doc), their journal, and the analysis.
pub struct QueuesScenario {
    params: QueuesParams,
    setup: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    names: Vec<String>,
    /// Stopped: nothing more can happen, or the deadline passed.
    stop: Cell<bool>,
}

impl QueuesScenario {
    /// The run of `p` as `s` says.
    pub fn new(p: &QueuesParams, s: &Setup) -> Self {
        let workers = s.workers as usize;
        let mut names = vec!["producer".to_string()];
        names.extend((1..=workers).map(|i| format!("w{i}")));
        if s.recovery {
            names.push("recovery".into());
        }
        let journal = Journal {
            held: vec![None; workers],
            alive: vec![true; workers],
            ..Journal::default()
        };
        QueuesScenario {
            params: p.clone(),
            setup: Rc::new(s.clone()),
            journal: Rc::new(RefCell::new(journal)),
            names,
            stop: Cell::new(false),
        }
    }
}

impl Scenario for QueuesScenario {
    type Model = Actors;
    type Output = QueuesResult;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 200.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let s = &self.setup;
        let mut world = World::new(s.seed, backend);
        let hop = if live {
            Hop::default()
        } else {
            Hop {
                to_redis_ms: 1,
                from_redis_ms: 1,
                jitter_ms: 2,
            }
        };
        world.add(Box::new(Producer::new(s, self.journal.clone())), hop, 0);
        for i in 0..s.workers as usize {
            world.add(Box::new(Worker::new(i, s, self.journal.clone())), hop, 0);
        }
        if s.recovery {
            world.add(Box::new(Recovery::new(s, self.journal.clone())), hop, 0);
        }
        world
    }

    fn go<B: Backend>(&self, world: &World<B>) -> bool {
        let mut j = self.journal.borrow_mut();
        j.step = world.trace().len();
        let over = j.finished(self.setup.recovery)
            || world.now_ms() >= self.setup.deadline_ms
            || world.trace().len() >= MAX_STEPS;
        if over {
            self.stop.set(true);
        }
        !over
    }

    fn stopped(&self) -> bool {
        self.stop.get()
    }

    fn progress<B: Backend>(&self, world: &World<B>) -> f64 {
        let s = &self.setup;
        let span = u64::from(s.jobs) * (s.every_ms + s.work_ms / u64::from(s.workers.max(1)))
            + s.visibility_ms
            + s.restart_ms
            + 1;
        world.now_ms() as f64 / span as f64
    }

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> QueuesResult {
        analyse(
            self,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

/// The run simulated, stepped one event at a time.
pub type QueuesRun = SimRun<QueuesScenario>;

/// The same actors against a real Redis, in real time (live mode).
pub type QueuesLive = LiveRun<QueuesScenario>;

/// The simulated run of `p` as `s` says (nothing happened yet).
pub fn sim(p: &QueuesParams, s: &Setup) -> QueuesRun {
    SimRun::new(QueuesScenario::new(p, s), s.seed)
}

/// The live run of `p` as `s` says (nothing sent yet).
pub fn live(p: &QueuesParams, s: &Setup) -> QueuesLive {
    LiveRun::new(QueuesScenario::new(p, s))
}

/// Runs `p` to the end.
pub fn run(p: &QueuesParams) -> QueuesResult {
    sim(p, &p.setup()).finish()
}

/// The trace and the counts as text (`labsim queues`).
pub fn run_text(r: &QueuesRun) -> String {
    text(&r.output(), &r.world().trace_text())
}

fn kind_of(c: &[Vec<u8>], actor: usize, workers: usize) -> Option<CmdKind> {
    let w0 = String::from_utf8_lossy(c.first()?).to_ascii_uppercase();
    let recovery = actor > workers;
    Some(match (w0.as_str(), actor, recovery) {
        ("LPUSH", 0, _) => CmdKind::Push,
        ("LPUSH", _, true) => CmdKind::Requeue,
        ("BRPOP" | "BLMOVE", ..) => CmdKind::Pop,
        ("ZADD", _, false) => CmdKind::Stamp,
        ("ZADD", _, true) => CmdKind::StampMissing,
        ("GET", ..) => CmdKind::Check,
        ("SET", ..) => CmdKind::Mark,
        ("LREM", _, false) => CmdKind::Ack,
        ("LREM", _, true) => CmdKind::Take,
        ("ZREM", _, false) => CmdKind::Unstamp,
        ("ZREM", _, true) => CmdKind::Forget,
        ("LRANGE", ..) => CmdKind::Scan,
        ("ZRANGEBYSCORE", ..) => CmdKind::Old,
        _ => return None,
    })
}

/// What the trace shows. A simulated command is one trace entry with its reply (a blocking
/// pop that waited: two, the second when it was served); a live one is two (sent, then its
/// reply when it came; `rtts` are the round trips in that order).
fn analyse(
    sc: &QueuesScenario,
    trace: &[TraceEvent],
    end_ms: u64,
    j: &Journal,
    rtts: &[u32],
) -> QueuesResult {
    let workers = sc.setup.workers as usize;
    let mut pending: Vec<Option<&Command>> = vec![None; sc.names.len()];
    let mut replies = rtts.iter();
    let live = !rtts.is_empty();
    let mut commands = Vec::new();
    for e in trace {
        let (c, reply, rtt_us) = match &e.what {
            What::Exec {
                cmd: c,
                reply: Some(reply),
            } => (c, Ok(reply.clone()), None),
            What::Exec { cmd: c, reply: None } => {
                pending[e.actor] = Some(c);
                continue;
            }
            What::Unblocked { reply } => match pending[e.actor].take() {
                Some(c) => (
                    c,
                    Ok(reply.clone()),
                    if live { replies.next().copied() } else { None },
                ),
                None => continue,
            },
            What::Refused { cmd: c } => (c, Err(NoReply::Refused), None),
            _ => continue,
        };
        let Some(kind) = kind_of(c, e.actor, workers) else {
            continue;
        };
        let mut row = CmdRow {
            step: e.step,
            at_ms: e.at_ms,
            actor: e.actor,
            cmd: c
                .iter()
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect(),
            reply,
            kind,
            job: None,
            rtt_us,
        };
        row.job = row.job_of();
        commands.push(row);
    }
    let segs = j
        .segs
        .iter()
        .map(|s| Seg {
            to_ms: s.to_ms.min(end_ms),
            ..*s
        })
        .collect();
    let mut r = QueuesResult {
        params: sc.params.clone(),
        setup: (*sc.setup).clone(),
        names: sc.names.clone(),
        commands,
        events: j.events.clone(),
        segs,
        cut_short: !j.finished(sc.setup.recovery),
        end: At {
            counters: Counters::default(),
            lists: Lists::default(),
            jobs: Vec::new(),
        },
        end_ms,
    };
    r.end = walk(&r, usize::MAX, r.commands.len());
    r
}
