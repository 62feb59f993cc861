//! The race's model: workers A and B (World actors that speak real Redis commands), the
//! journal of what the resource saw, the race as a [`Scenario`] on any backend (simulated,
//! or live against a real Redis), and the analysis of a world's trace into the lab's output.

use super::output::{
    CmdKind, CmdRow, Counters, Dropped, LockOutput, LockPage, Overlap, Owner, OwnerEnd, Seg,
    SegKind, Write,
};
use super::params::LockParams;
use super::LockRun;
use super::{FENCE_KEY, LOCK_KEY, MAX_STEPS, NAMES, PAUSE, WORK};
use crate::labs::owners;
use crate::labs::scenario::{self, LiveRun, Scenario, ScenarioLab, SimRun};
use crate::redis::{scripts, Reply};
use crate::world::{
    cmd, Action, Actor, Actors, Backend, Command, Ctx, Hop, Input, TraceEvent, What, World,
};
use std::cell::RefCell;
use std::rc::Rc;

// --- the workers ---------------------------------------------------------------------------
/// What the workers note as they go (the world owns the actors; the run reads this).
#[derive(Debug, Default)]
pub(super) struct Journal {
    pub(super) segs: Vec<Seg>,
    pub(super) writes: Vec<RawWrite>,
    /// Jobs each worker dropped: (step, worker, job, why).
    pub(super) dropped: Vec<(usize, usize, u32, Dropped)>,
    /// Set by the run before each event: the trace index an actor's decision gets.
    pub(super) step: usize,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawWrite {
    pub(super) step: usize,
    pub(super) at_ms: u64,
    pub(super) actor: usize,
    pub(super) job: u32,
    pub(super) fence: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Dedup,
    Acquire,
    Fence,
    Working,
    Extending,
    Releasing,
    Waiting,
    Between,
}

/// One worker: a state machine that speaks Redis (see the module doc).
pub(super) struct Worker {
    pub(super) id: usize,
    pub(super) p: LockParams,
    pub(super) journal: Rc<RefCell<Journal>>,
    pub(super) job: u32,
    pub(super) token: String,
    pub(super) fence: Option<i64>,
    pub(super) phase: Phase,
    pub(super) left: u64,
    pub(super) next_hb: u64,
    /// Pause still to come: (from, length).
    pub(super) pause: Option<(u64, u64)>,
}

impl Worker {
    pub(super) fn new(id: usize, p: &LockParams, journal: Rc<RefCell<Journal>>) -> Self {
        let pause = (p.pauser() == id && p.pause > 0).then_some((p.pause_at, p.pause));
        Worker {
            id,
            p: p.clone(),
            journal,
            job: 1,
            token: String::new(),
            fence: None,
            phase: Phase::Dedup,
            left: 0,
            next_hb: 0,
            pause,
        }
    }

    fn seg(&self, now: u64, ms: u64, kind: SegKind) {
        let mut j = self.journal.borrow_mut();
        let step = j.step;
        j.segs.push(Seg {
            step,
            actor: self.id,
            job: self.job,
            from_ms: now,
            to_ms: now + ms,
            kind,
        });
    }

    fn begin_job(&mut self, ctx: &mut Ctx<'_>) -> Action {
        if self.p.dedup_on() {
            self.phase = Phase::Dedup;
            let key = format!("dedup:click-{}", self.job);
            let ex = self.p.dedup_ex.to_string();
            Action::Send {
                cmd: cmd(&["SET", &key, "1", "NX", "EX", &ex]),
            }
        } else {
            self.acquire(ctx)
        }
    }

    fn acquire(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Acquire;
        self.token = format!(
            "{}-{:08x}",
            NAMES[self.id].to_ascii_lowercase(),
            ctx.rng.next_u32()
        );
        let ttl = self.p.ttl.to_string();
        Action::Send {
            cmd: cmd(&["SET", LOCK_KEY, &self.token, "NX", "PX", &ttl]),
        }
    }

    fn wait(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Waiting;
        let ms = 40 + u64::from(ctx.rng.below(61));
        self.seg(ctx.now_ms, ms, SegKind::Wait);
        Action::Sleep { ms }
    }

    fn start_work(&mut self, now: u64) -> Action {
        self.left = self.p.work;
        self.next_hb = now + self.p.ttl / 3;
        self.work_on(now)
    }

    /// The next piece of the critical section: pause, heartbeat, work, or the write and the
    /// release.
    fn work_on(&mut self, now: u64) -> Action {
        self.phase = Phase::Working;
        if let Some((at, ms)) = self.pause {
            if now >= at {
                self.pause = None;
                self.seg(now, ms, SegKind::Pause);
                return Action::Work {
                    ms,
                    what: PAUSE.into(),
                };
            }
        }
        if self.left == 0 {
            return self.write_and_release(now);
        }
        if self.p.heartbeat_on() && now >= self.next_hb {
            self.phase = Phase::Extending;
            self.next_hb = now + self.p.ttl / 3;
            let ttl = self.p.ttl.to_string();
            return Action::Send {
                cmd: cmd(&[
                    "EVALSHA",
                    scripts::EXTEND.sha1,
                    "1",
                    LOCK_KEY,
                    &self.token,
                    &ttl,
                ]),
            };
        }
        let mut ms = self.left;
        if self.p.heartbeat_on() {
            ms = ms.min(self.next_hb - now);
        }
        if let Some((at, _)) = self.pause {
            ms = ms.min(at - now);
        }
        self.left -= ms;
        self.seg(now, ms, SegKind::Work);
        Action::Work {
            ms,
            what: WORK.into(),
        }
    }

    fn write_and_release(&mut self, now: u64) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.writes.push(RawWrite {
                step,
                at_ms: now,
                actor: self.id,
                job: self.job,
                fence: self.fence,
            });
        }
        self.phase = Phase::Releasing;
        Action::Send {
            cmd: if self.p.token_release() {
                cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK_KEY, &self.token])
            } else {
                cmd(&["DEL", LOCK_KEY])
            },
        }
    }

    fn drop_job(&mut self, why: Dropped, ctx: &mut Ctx<'_>) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.dropped.push((step, self.id, self.job, why));
        }
        self.next_job(ctx)
    }

    fn next_job(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.fence = None;
        if self.job >= self.p.jobs {
            return Action::Done;
        }
        self.job += 1;
        self.phase = Phase::Between;
        Action::Sleep {
            ms: 40 + u64::from(ctx.rng.below(61)),
        }
    }
}

impl Actor for Worker {
    fn name(&self) -> String {
        NAMES[self.id].to_string()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        match (self.phase, input) {
            (_, Input::Start) | (Phase::Between, Input::Wake) => self.begin_job(ctx),
            (Phase::Dedup, Input::Reply { reply }) if *reply == Reply::ok() => self.acquire(ctx),
            (Phase::Dedup, Input::Reply { .. }) => self.drop_job(Dropped::Duplicate, ctx),
            (Phase::Acquire, Input::Reply { reply }) if *reply == Reply::ok() => {
                if self.p.fencing_on() {
                    self.phase = Phase::Fence;
                    Action::Send {
                        cmd: cmd(&["INCR", FENCE_KEY]),
                    }
                } else {
                    self.start_work(now)
                }
            }
            (Phase::Acquire, Input::Reply { .. }) => self.wait(ctx),
            (Phase::Waiting, Input::Wake) => self.acquire(ctx),
            (Phase::Fence, Input::Reply { reply }) => {
                self.fence = reply.as_int();
                self.start_work(now)
            }
            (Phase::Working, Input::Wake) => self.work_on(now),
            (Phase::Extending, Input::Reply { reply }) if reply.as_int() == Some(1) => {
                self.work_on(now)
            }
            (Phase::Extending, Input::Reply { .. }) => self.drop_job(Dropped::LostLock, ctx),
            (Phase::Releasing, Input::Reply { .. }) => self.next_job(ctx),
            _ => Action::Done,
        }
    }
}

// --- the race ------------------------------------------------------------------------------

/// The race as a [`Scenario`]: workers A and B (B `gap` ms later), their shared journal of
/// what the resource saw, and the analysis of the trace.
pub struct LockScenario {
    params: LockParams,
    journal: Rc<RefCell<Journal>>,
}

impl LockScenario {
    /// The race of `p`.
    pub fn new(p: &LockParams) -> Self {
        LockScenario {
            params: p.clone(),
            journal: Rc::new(RefCell::new(Journal::default())),
        }
    }

    /// The parameters it runs with.
    pub fn params(&self) -> &LockParams {
        &self.params
    }
}

impl Scenario for LockScenario {
    type Model = Actors;
    type Output = LockOutput;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 100.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let mut world = World::new(self.params.seed, backend);
        // Live, the real network is in the round trips; the workers draw the same tokens
        // and waits as in the simulation (the same seed).
        let hop = Hop::lan(live);
        for (id, start) in [(0, 0), (1, self.params.gap)] {
            let w = Worker::new(id, &self.params, self.journal.clone());
            world.add(Box::new(w), hop, start);
        }
        world
    }

    fn go<B: Backend>(&self, world: &World<B>) -> bool {
        self.journal.borrow_mut().step = world.trace().len();
        world.trace().len() < MAX_STEPS
    }

    fn progress<B: Backend>(&self, world: &World<B>) -> f64 {
        let p = &self.params;
        let span = (p.work + p.pause + p.ttl) * u64::from(p.jobs) * 2 + p.gap + 1;
        world.now_ms() as f64 / span as f64
    }

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> LockOutput {
        analyse(
            &self.params,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

impl ScenarioLab for LockScenario {
    type Params = LockParams;
    type Run = LockRun;

    /// A live race runs the parameters slowed `k` times.
    fn of(p: &LockParams, live_scale: Option<u64>) -> Self {
        LockScenario::new(&live_scale.map_or_else(|| p.clone(), |k| p.slowed(k)))
    }

    fn seed(&self) -> u32 {
        self.params.seed
    }

    const TEXT: fn(&LockOutput, &str) -> String = super::text;
    const PRINTED: fn(LockOutput) -> LockOutput = LockOutput::printed;
}

/// The simulated race, stepped one event at a time (the simulation worker drives it in
/// slices, the view scrubs its trace).
pub type LockSim = SimRun<LockScenario>;
/// The same two workers against a real Redis, in real time (live mode): see [`LiveRun`].
pub type LockLive = LiveRun<LockScenario>;

/// Runs `p` to the end.
pub fn run(p: &LockParams) -> LockOutput {
    scenario::run::<LockScenario>(p)
}

pub(super) fn kind_of(c: &[Vec<u8>]) -> Option<CmdKind> {
    let w = |i: usize| {
        c.get(i)
            .map(|x| String::from_utf8_lossy(x).to_ascii_uppercase())
    };
    Some(match w(0)?.as_str() {
        "SET" if c.get(1).is_some_and(|k| k.starts_with(b"dedup:")) => CmdKind::Dedup,
        "SET" => CmdKind::Acquire,
        "INCR" => CmdKind::Fence,
        "DEL" => CmdKind::Del,
        "EVALSHA" if w(1)?.eq_ignore_ascii_case(scripts::EXTEND.sha1) => CmdKind::Extend,
        "EVALSHA" => CmdKind::Release,
        _ => return None,
    })
}

/// What the trace shows. A simulated command is one trace entry with its reply; a live one is
/// two (sent, then its reply when it arrived; `rtts` are the round trips in that order).
pub(super) fn analyse(
    p: &LockParams,
    trace: &[TraceEvent],
    end_ms: u64,
    j: &Journal,
    rtts: &[u32],
) -> LockOutput {
    let times: Vec<u64> = trace.iter().map(|e| e.at_ms).collect();
    let mut sent = [0u64; 2];
    let mut pending: [Option<&Command>; 2] = [None, None];
    let mut replies = rtts.iter();
    let mut commands = Vec::new();
    let mut owners: Vec<Owner> = Vec::new();
    // The open owner: index into `owners` and its expiry.
    let mut open: Option<(usize, u64)> = None;
    // Lock grants in order: (actor, token) → generation.
    let mut grants: Vec<(usize, usize)> = Vec::new();
    for e in trace {
        let (c, reply, rtt_us) = match &e.what {
            What::Act {
                action: Action::Send { .. },
                ..
            } => {
                sent[e.actor] = e.at_ms;
                continue;
            }
            What::Exec {
                cmd: c,
                reply: Some(reply),
            } => (c, reply, None),
            What::Exec {
                cmd: c,
                reply: None,
            } => {
                pending[e.actor] = Some(c);
                continue;
            }
            What::Unblocked { reply } => match pending[e.actor].take() {
                Some(c) => (c, reply, replies.next().copied()),
                None => continue,
            },
            _ => continue,
        };
        {
            {
                // Redis drops a key when now > its expiry.
                if let Some((i, exp)) = open {
                    if e.at_ms > exp {
                        owners[i].to_ms = exp;
                        owners[i].end = OwnerEnd::Expired;
                        open = None;
                    }
                }
                let Some(kind) = kind_of(c) else { continue };
                let mut steals = false;
                match kind {
                    CmdKind::Acquire if *reply == Reply::ok() => {
                        grants.push((e.actor, e.step));
                        owners.push(Owner {
                            step: e.step,
                            actor: e.actor,
                            token: String::from_utf8_lossy(&c[2]).into_owned(),
                            from_ms: e.at_ms,
                            to_ms: end_ms,
                            end: OwnerEnd::Held,
                        });
                        open = Some((owners.len() - 1, e.at_ms + p.ttl));
                    }
                    CmdKind::Extend if reply.as_int() == Some(1) => {
                        if let Some((_, exp)) = open.as_mut() {
                            *exp = e.at_ms + p.ttl;
                        }
                    }
                    CmdKind::Del | CmdKind::Release if reply.as_int() == Some(1) => {
                        if let Some((i, _)) = open.take() {
                            steals = owners[i].actor != e.actor;
                            owners[i].to_ms = e.at_ms;
                            owners[i].end = if steals {
                                OwnerEnd::Stolen
                            } else {
                                OwnerEnd::Released
                            };
                        }
                    }
                    _ => {}
                }
                commands.push(CmdRow {
                    step: e.step,
                    at_ms: e.at_ms,
                    sent_ms: sent[e.actor],
                    actor: e.actor,
                    cmd: c
                        .iter()
                        .map(|w| String::from_utf8_lossy(w).into_owned())
                        .collect(),
                    reply: reply.clone(),
                    kind,
                    steals,
                    rtt_us,
                });
            }
        }
    }
    if let Some((i, exp)) = open {
        if end_ms > exp {
            owners[i].to_ms = exp;
            owners[i].end = OwnerEnd::Expired;
        }
    }

    // The resource (see `labs::owners`).
    let generations: Vec<u32> = j.writes.iter().map(|w| generation_of(&grants, w)).collect();
    let judged = owners::judge(
        p.fencing_on(),
        j.writes
            .iter()
            .zip(&generations)
            .map(|(w, &g)| (w.fence, g)),
    );
    let writes: Vec<Write> = j
        .writes
        .iter()
        .zip(generations)
        .zip(judged)
        .map(|((w, generation), v)| Write {
            step: w.step,
            at_ms: w.at_ms,
            actor: w.actor,
            job: w.job,
            fence: w.fence,
            generation,
            stale: v.stale,
            accepted: v.accepted,
        })
        .collect();

    let overlaps = overlaps(&j.segs, usize::MAX);
    let counters = count(&commands, &writes, &j.segs, &j.dropped, &owners, usize::MAX);
    LockOutput {
        params: p.clone(),
        counters,
        first_steal: commands.iter().find(|c| c.steals).cloned(),
        commands,
        owners,
        writes,
        overlaps,
        end_ms,
        page: Some(LockPage {
            times,
            segs: j.segs.clone(),
            dropped: j.dropped.clone(),
        }),
    }
}

/// The grant a write was made under: the position (1-based) among all grants of the
/// writer's latest grant before the write (a job holds one grant at a time).
pub(super) fn generation_of(grants: &[(usize, usize)], w: &RawWrite) -> u32 {
    grants
        .iter()
        .enumerate()
        .filter(|(_, (actor, step))| *actor == w.actor && *step < w.step)
        .map(|(i, _)| i as u32 + 1)
        .next_back()
        .unwrap_or(0)
}

/// Pieces of work of different workers (among those begun before trace entry `n`) that
/// overlap, merged into moments (see `labs::owners`).
pub(super) fn overlaps(segs: &[Seg], n: usize) -> Vec<Overlap> {
    let work = |a: usize| -> Vec<owners::Span> {
        segs.iter()
            .filter(|s| s.step < n && s.actor == a && s.kind == SegKind::Work)
            .map(|s| (s.step, s.from_ms, s.to_ms))
            .collect()
    };
    owners::overlaps(&work(0), &work(1))
}

/// The counters over what happened before trace entry `n`.
pub(super) fn count(
    commands: &[CmdRow],
    writes: &[Write],
    segs: &[Seg],
    dropped: &[(usize, usize, u32, Dropped)],
    owners: &[Owner],
    n: usize,
) -> Counters {
    let overlaps = overlaps(segs, n);
    let c = |it: usize| it as u32;
    let commands = || commands.iter().filter(|x| x.step < n);
    let writes = || writes.iter().filter(|x| x.step < n);
    let dropped = || dropped.iter().filter(|x| x.0 < n);
    Counters {
        two_owner_moments: c(overlaps.len()),
        two_owner_ms: overlaps.iter().map(|o| o.to_ms - o.from_ms).sum(),
        steals: c(commands().filter(|x| x.steals).count()),
        grants: c(owners.iter().filter(|o| o.step < n).count()),
        writes_accepted: c(writes().filter(|w| w.accepted).count()),
        writes_rejected: c(writes().filter(|w| !w.accepted).count()),
        stale_accepted: c(writes().filter(|w| w.stale && w.accepted).count()),
        stale_rejected: c(writes().filter(|w| w.stale && !w.accepted).count()),
        duplicates: c(dropped().filter(|d| d.3 == Dropped::Duplicate).count()),
        lost: c(dropped().filter(|d| d.3 == Dropped::LostLock).count()),
        commands: c(commands().count()),
    }
}
