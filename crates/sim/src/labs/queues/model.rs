//! The queue's model: the producer, the workers and the recovery pass (World actors that
//! speak real Redis commands), the journal of what they did, the run as a [`Scenario`] on
//! any backend (simulated, or live against a real Redis), and the analysis of a world's trace
//! into the lab's output.

use super::output::{
    walk, At, CmdKind, CmdRow, Counters, Event, EventKind, Lists, QueuesOutput, QueuesPage, Seg,
    SegKind,
};
use super::params::{CrashIn, QueuesParams, Setup};
use super::QueuesRun;
use super::{done_key, id_of, payload, DONE_EX, MAX_STEPS, PROCESSING, QUEUE, STARTED};
use crate::labs::log::NoReply;
use crate::labs::scenario::{self, LiveRun, Scenario, ScenarioLab, SimRun};
use crate::redis::Reply;
use crate::world::{
    cmd, Action, Actor, Actors, Backend, Command, Ctx, Hop, Input, TraceEvent, What, World,
};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

// --- the actors ----------------------------------------------------------------------------

/// What the actors note as they go (the world owns the actors; the run reads this).
#[derive(Debug, Default)]
pub(super) struct Journal {
    /// Set by the run before each event: the trace index an actor's decision gets.
    pub(super) step: usize,
    /// Jobs in the queue, as the replies tell it (pushes heard − takes heard).
    pub(super) queued: i64,
    /// Jobs in the processing list, as the replies tell it.
    pub(super) processing: i64,
    /// The job each worker holds.
    pub(super) held: Vec<Option<u32>>,
    /// Each worker is alive or coming back.
    pub(super) alive: Vec<bool>,
    /// The producer heard its last push's reply.
    pub(super) producer_done: bool,
    /// A recovery pass is under way.
    pub(super) recovering: bool,
    pub(super) events: Vec<Event>,
    pub(super) segs: Vec<Seg>,
}

impl Journal {
    fn event(&mut self, at_ms: u64, actor: usize, job: Option<u32>, kind: EventKind) {
        let step = self.step;
        self.events.push(Event {
            step,
            at_ms,
            actor,
            job,
            kind,
        });
    }

    fn seg(&mut self, actor: usize, job: Option<u32>, from_ms: u64, to_ms: u64, kind: SegKind) {
        let step = self.step;
        self.segs.push(Seg {
            step,
            actor,
            job,
            from_ms,
            to_ms,
            kind,
        });
    }

    /// Nothing more can happen: every push heard, no recovery pass under way, no job held,
    /// the queue empty and (with recovery) the processing list too — or nobody left alive to
    /// take them.
    pub(super) fn finished(&self, recovery: bool) -> bool {
        let anyone = self.alive.iter().any(|&a| a);
        self.producer_done
            && !self.recovering
            && self.held.iter().all(Option::is_none)
            && (!anyone || (self.queued <= 0 && (!recovery || self.processing <= 0)))
    }
}

fn words(w: &[&str]) -> Command {
    cmd(w)
}

/// The producer: one `LPUSH` per job.
pub(super) struct Producer {
    s: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    next: u32,
}

impl Producer {
    pub(super) fn new(s: &Rc<Setup>, journal: Rc<RefCell<Journal>>) -> Self {
        Producer {
            s: s.clone(),
            journal,
            next: 1,
        }
    }
}

impl Actor for Producer {
    fn name(&self) -> String {
        "producer".into()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        match input {
            Input::Start | Input::Wake => Action::Send {
                cmd: words(&["LPUSH", QUEUE, &payload(self.next)]),
            },
            Input::Reply { .. } | Input::Failed { .. } => {
                let mut j = self.journal.borrow_mut();
                j.queued += 1;
                j.event(ctx.now_ms, ctx.id, Some(self.next), EventKind::Pushed);
                if self.next >= self.s.jobs {
                    j.producer_done = true;
                    return Action::Done;
                }
                self.next += 1;
                Action::Sleep {
                    ms: self.s.every_ms,
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Pop,
    Stamp,
    Check,
    Working,
    Mark,
    Ack,
    Unstamp,
    Dead,
}

/// A worker (see the module doc): takes a job, works, acknowledges; maybe dies.
pub(super) struct Worker {
    idx: usize,
    s: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    phase: Phase,
    /// The job in hand: id and payload.
    job: Option<(u32, String)>,
    /// Its crash still to come: when, where.
    crash: Option<(u64, CrashIn)>,
    /// The work's end, and the death inside it.
    work_end: u64,
    dies_at: Option<u64>,
    /// It dies on its next input (after an effect, with the mark on the wire).
    dying: bool,
    sent_at: u64,
}

impl Worker {
    pub(super) fn new(idx: usize, s: &Rc<Setup>, journal: Rc<RefCell<Journal>>) -> Self {
        Worker {
            idx,
            s: s.clone(),
            journal,
            phase: Phase::Pop,
            job: None,
            crash: (s.crash == Some(idx)).then_some((s.crash_at_ms, s.crash_in)),
            work_end: 0,
            dies_at: None,
            dying: false,
            sent_at: 0,
        }
    }

    fn send(&mut self, phase: Phase, now: u64, c: Command) -> Action {
        self.phase = phase;
        self.sent_at = now;
        Action::Send { cmd: c }
    }

    fn id(&self) -> u32 {
        self.job.as_ref().map_or(0, |j| j.0)
    }

    fn pop(&mut self, now: u64) -> Action {
        let b = self.s.block_arg();
        let c = if self.s.reliable {
            words(&["BLMOVE", QUEUE, PROCESSING, "RIGHT", "LEFT", &b])
        } else {
            words(&["BRPOP", QUEUE, &b])
        };
        self.send(Phase::Pop, now, c)
    }

    /// What a reply says Redis did, noted before the worker decides (or dies).
    fn note(&mut self, reply: &Reply, ctx: &Ctx<'_>) {
        let now = ctx.now_ms;
        let mut j = self.journal.borrow_mut();
        match self.phase {
            Phase::Pop => {
                let p = match reply {
                    Reply::Array(a) => a.get(1).and_then(Reply::as_bulk),
                    r => r.as_bulk(),
                };
                let job = p.and_then(|p| Some((id_of(p)?, String::from_utf8_lossy(p).into())));
                j.seg(
                    ctx.id,
                    job.as_ref().map(|x| x.0),
                    self.sent_at,
                    now,
                    SegKind::Wait,
                );
                if let Some((id, _)) = &job {
                    j.queued -= 1;
                    if self.s.reliable {
                        j.processing += 1;
                    }
                    j.held[self.idx] = Some(*id);
                    j.event(now, ctx.id, Some(*id), EventKind::Took);
                }
                self.job = job;
            }
            Phase::Ack if reply.as_int() == Some(1) => j.processing -= 1,
            _ => {}
        }
    }

    fn after_take(&mut self, now: u64) -> Action {
        if self.s.idem {
            let k = done_key(self.id());
            self.send(Phase::Check, now, words(&["GET", &k]))
        } else {
            self.start_work(now)
        }
    }

    fn start_work(&mut self, now: u64) -> Action {
        let end = now + self.s.work_ms;
        self.work_end = end;
        self.dies_at = match self.crash {
            Some((at, CrashIn::Work)) if end > at => Some(if at > now {
                at
            } else {
                now + self.s.work_ms / 2
            }),
            Some((at, CrashIn::Any)) if at > now && at < end => Some(at),
            _ => None,
        };
        let to = self.dies_at.unwrap_or(end);
        self.journal
            .borrow_mut()
            .seg(self.idx + 1, Some(self.id()), now, to, SegKind::Work);
        self.phase = Phase::Working;
        Action::Work {
            ms: to - now,
            what: format!("job {}: ইমেইল পাঠানো", self.id()),
        }
    }

    fn effect(&mut self, now: u64) -> Action {
        let id = self.id();
        self.journal
            .borrow_mut()
            .event(now, self.idx + 1, Some(id), EventKind::Effect);
        if matches!(self.crash, Some((at, CrashIn::Ack)) if now >= at) {
            self.dying = true;
        }
        if self.s.idem {
            let (k, ex) = (done_key(id), DONE_EX.to_string());
            return self.send(Phase::Mark, now, words(&["SET", &k, "1", "NX", "EX", &ex]));
        }
        if self.dying {
            return self.die(now);
        }
        self.ack(now)
    }

    fn ack(&mut self, now: u64) -> Action {
        if self.s.reliable {
            let p = self.job.as_ref().map_or(String::new(), |j| j.1.clone());
            self.send(Phase::Ack, now, words(&["LREM", PROCESSING, "1", &p]))
        } else {
            self.finish(now)
        }
    }

    fn finish(&mut self, now: u64) -> Action {
        self.job = None;
        self.journal.borrow_mut().held[self.idx] = None;
        self.pop(now)
    }

    fn die(&mut self, now: u64) -> Action {
        self.crash = None;
        self.dying = false;
        self.dies_at = None;
        let held = self.job.take().map(|j| j.0);
        let restart = self.s.restart_ms;
        let mut j = self.journal.borrow_mut();
        j.held[self.idx] = None;
        j.event(now, self.idx + 1, held, EventKind::Crashed);
        let to = if restart > 0 { now + restart } else { u64::MAX };
        j.seg(self.idx + 1, held, now, to, SegKind::Dead);
        if restart == 0 {
            j.alive[self.idx] = false;
            return Action::Done;
        }
        self.phase = Phase::Dead;
        Action::Sleep { ms: restart }
    }
}

impl Actor for Worker {
    fn name(&self) -> String {
        format!("w{}", self.idx + 1)
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        if let Input::Reply { reply } = input {
            self.note(reply, ctx);
        }
        if self.dying && self.phase != Phase::Working {
            return self.die(now);
        }
        let any_due = matches!(self.crash, Some((at, CrashIn::Any)) if now >= at);
        if any_due && self.phase != Phase::Dead && !matches!(input, Input::Start) {
            return self.die(now);
        }
        match (self.phase, input) {
            (Phase::Pop, Input::Start) => self.pop(now),
            (Phase::Dead, Input::Wake) => {
                self.journal
                    .borrow_mut()
                    .event(now, self.idx + 1, None, EventKind::Restarted);
                self.pop(now)
            }
            (Phase::Pop, Input::Reply { .. }) if self.job.is_some() => {
                if self.s.reliable {
                    let (score, id) = (now.to_string(), self.id().to_string());
                    self.send(Phase::Stamp, now, words(&["ZADD", STARTED, &score, &id]))
                } else {
                    self.after_take(now)
                }
            }
            (Phase::Pop, _) => self.pop(now),
            (Phase::Stamp, _) => self.after_take(now),
            (
                Phase::Check,
                Input::Reply {
                    reply: Reply::Bulk(_),
                },
            ) => {
                let id = self.id();
                self.journal
                    .borrow_mut()
                    .event(now, self.idx + 1, Some(id), EventKind::Skipped);
                self.ack(now)
            }
            (Phase::Check, _) => self.start_work(now),
            (Phase::Working, Input::Wake) if self.dies_at == Some(now) => self.die(now),
            (Phase::Working, Input::Wake) => self.effect(now),
            (Phase::Mark, _) => self.ack(now),
            (Phase::Ack, _) => {
                let id = self.id().to_string();
                self.send(Phase::Unstamp, now, words(&["ZREM", STARTED, &id]))
            }
            (Phase::Unstamp, _) => self.finish(now),
            _ => Action::Done,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RPhase {
    Sleep,
    Scan,
    Stamp,
    Old,
    Take(usize),
    /// `ZREM` of a job taken back, then its `LPUSH`.
    Unstamp(usize),
    Push(usize),
    Forget(usize),
}

/// The recovery pass (see the module doc).
pub(super) struct Recovery {
    s: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    phase: RPhase,
    /// The processing list as the pass read it: (id, payload).
    seen: Vec<(u32, String)>,
    /// The ids that started too long ago.
    old: Vec<String>,
}

impl Recovery {
    pub(super) fn new(s: &Rc<Setup>, journal: Rc<RefCell<Journal>>) -> Self {
        Recovery {
            s: s.clone(),
            journal,
            phase: RPhase::Sleep,
            seen: Vec::new(),
            old: Vec::new(),
        }
    }

    fn sleep(&mut self) -> Action {
        self.journal.borrow_mut().recovering = false;
        self.phase = RPhase::Sleep;
        Action::Sleep {
            ms: self.s.recover_every_ms,
        }
    }

    fn ask_old(&mut self, now: u64) -> Action {
        // Before `visibility` has passed nothing can be that old.
        let Some(max) = now.checked_sub(self.s.visibility_ms) else {
            return self.sleep();
        };
        self.phase = RPhase::Old;
        Action::Send {
            cmd: words(&["ZRANGEBYSCORE", STARTED, "-inf", &max.to_string()]),
        }
    }

    fn next_old(&mut self, i: usize) -> Action {
        let Some(id) = self.old.get(i) else {
            return self.sleep();
        };
        match self.seen.iter().find(|(n, _)| n.to_string() == *id) {
            Some((_, p)) => {
                self.phase = RPhase::Take(i);
                Action::Send {
                    cmd: words(&["LREM", PROCESSING, "1", p]),
                }
            }
            None => self.forget(i),
        }
    }

    fn forget(&mut self, i: usize) -> Action {
        self.phase = RPhase::Forget(i);
        Action::Send {
            cmd: words(&["ZREM", STARTED, &self.old[i]]),
        }
    }
}

fn bulk_list(r: &Reply) -> Vec<Vec<u8>> {
    match r {
        Reply::Array(a) => a
            .iter()
            .filter_map(|x| x.as_bulk().map(<[u8]>::to_vec))
            .collect(),
        _ => Vec::new(),
    }
}

impl Actor for Recovery {
    fn name(&self) -> String {
        "recovery".into()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        let reply = match input {
            Input::Reply { reply } => reply.clone(),
            Input::Failed { .. } => Reply::Nil,
            Input::Start => return self.sleep(),
            Input::Wake => Reply::Nil,
        };
        match self.phase {
            RPhase::Sleep => {
                self.journal.borrow_mut().recovering = true;
                self.phase = RPhase::Scan;
                Action::Send {
                    cmd: words(&["LRANGE", PROCESSING, "0", "-1"]),
                }
            }
            RPhase::Scan => {
                self.seen = bulk_list(&reply)
                    .into_iter()
                    .filter_map(|p| Some((id_of(&p)?, String::from_utf8_lossy(&p).into())))
                    .collect();
                if self.seen.is_empty() {
                    return self.ask_old(now);
                }
                let mut w: Vec<String> = vec!["ZADD".into(), STARTED.into(), "NX".into()];
                for (id, _) in &self.seen {
                    w.push(now.to_string());
                    w.push(id.to_string());
                }
                self.phase = RPhase::Stamp;
                Action::Send {
                    cmd: w.iter().map(|x| x.as_bytes().to_vec()).collect(),
                }
            }
            RPhase::Stamp => self.ask_old(now),
            RPhase::Old => {
                self.old = bulk_list(&reply)
                    .into_iter()
                    .map(|v| String::from_utf8_lossy(&v).into_owned())
                    .collect();
                self.next_old(0)
            }
            // Taken off the processing list: its start time goes first, so that the worker
            // who takes it next stamps a start time nobody deletes.
            RPhase::Take(i) if reply.as_int() == Some(1) => {
                self.journal.borrow_mut().processing -= 1;
                self.phase = RPhase::Unstamp(i);
                Action::Send {
                    cmd: words(&["ZREM", STARTED, &self.old[i]]),
                }
            }
            RPhase::Take(i) => self.forget(i),
            RPhase::Unstamp(i) => {
                let p = self.seen.iter().find(|(n, _)| n.to_string() == self.old[i]);
                let p = p.map_or(String::new(), |x| x.1.clone());
                self.phase = RPhase::Push(i);
                Action::Send {
                    cmd: words(&["LPUSH", QUEUE, &p]),
                }
            }
            RPhase::Push(i) => {
                let id = self.old[i].parse().ok();
                let mut j = self.journal.borrow_mut();
                j.queued += 1;
                j.event(now, ctx.id, id, EventKind::Requeued);
                drop(j);
                self.next_old(i + 1)
            }
            RPhase::Forget(i) => self.next_old(i + 1),
        }
    }
}

// --- the run -------------------------------------------------------------------------------

/// The queue's actors (see the module doc), their journal, and the analysis.
pub struct QueuesScenario {
    params: QueuesParams,
    setup: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    /// Stopped: nothing more can happen, or the deadline passed.
    stop: Cell<bool>,
}

impl QueuesScenario {
    /// The run of `p` as `s` says.
    pub fn new(p: &QueuesParams, s: &Setup) -> Self {
        let workers = s.workers as usize;
        let journal = Journal {
            held: vec![None; workers],
            alive: vec![true; workers],
            ..Journal::default()
        };
        QueuesScenario {
            params: p.clone(),
            setup: Rc::new(s.clone()),
            journal: Rc::new(RefCell::new(journal)),
            stop: Cell::new(false),
        }
    }
}

impl Scenario for QueuesScenario {
    type Model = Actors;
    type Output = QueuesOutput;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 200.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let s = &self.setup;
        let mut world = World::new(s.seed, backend);
        let hop = Hop::lan(live);
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

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> QueuesOutput {
        analyse(
            self,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

impl ScenarioLab for QueuesScenario {
    type Params = QueuesParams;
    type Run = QueuesRun;

    fn of(p: &QueuesParams, live_scale: Option<u64>) -> Self {
        QueuesScenario::new(p, &live_scale.map_or_else(|| p.setup(), |k| p.for_live(k)))
    }

    fn seed(&self) -> u32 {
        self.setup.seed
    }

    const TEXT: fn(&QueuesOutput, &str) -> String = super::text;
    const PRINTED: fn(QueuesOutput) -> QueuesOutput = QueuesOutput::printed;
}

/// The simulated queue, stepped one event at a time.
pub type QueuesSim = SimRun<QueuesScenario>;
/// The same actors against a real Redis, in real time (live mode).
pub type QueuesLive = LiveRun<QueuesScenario>;

/// Runs `p` to the end.
pub fn run(p: &QueuesParams) -> QueuesOutput {
    scenario::run::<QueuesScenario>(p)
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
) -> QueuesOutput {
    let workers = sc.setup.workers as usize;
    let mut pending: Vec<Option<&Command>> = vec![None; sc.setup.actors()];
    let mut replies = rtts.iter();
    let live = !rtts.is_empty();
    let mut commands = Vec::new();
    for e in trace {
        let (c, reply, rtt_us) = match &e.what {
            What::Exec {
                cmd: c,
                reply: Some(reply),
            } => (c, Ok(reply.clone()), None),
            What::Exec {
                cmd: c,
                reply: None,
            } => {
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
    let mut r = QueuesOutput {
        params: sc.params.clone(),
        setup: (*sc.setup).clone(),
        commands,
        events: j.events.clone(),
        page: Some(QueuesPage { segs }),
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
