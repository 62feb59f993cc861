//! The race as a [`Scenario`]: both workers on any backend, and the analysis of a world's
//! trace into what the lab shows.

use super::*;
use crate::labs::owners;
use crate::labs::scenario::{LiveRun, Scenario, SimRun};

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
    type Output = LockResult;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 100.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let mut world = World::new(self.params.seed, backend);
        // Live, the real network is in the round trips; the workers draw the same tokens
        // and waits as in the simulation (the same seed).
        let hop = if live {
            Hop::default()
        } else {
            Hop {
                to_redis_ms: 1,
                from_redis_ms: 1,
                jitter_ms: 2,
            }
        };
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

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> LockResult {
        analyse(
            &self.params,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

/// The race simulated, stepped one event at a time (the simulation worker drives it in
/// slices, the view scrubs its trace).
pub type LockRun = SimRun<LockScenario>;

/// The same two workers against a real Redis, in real time (live mode): see [`LiveRun`].
pub type LockLive = LiveRun<LockScenario>;

/// The simulated race of `p` (nothing happened yet).
pub fn sim(p: &LockParams) -> LockRun {
    SimRun::new(LockScenario::new(p), p.seed)
}

/// The live race of `p` (nothing sent yet).
pub fn live(p: &LockParams) -> LockLive {
    LiveRun::new(LockScenario::new(p))
}

/// The trace and the counters as text (`labsim lock`).
pub fn run_text(r: &LockRun) -> String {
    text(&r.output(), &r.world().trace_text())
}

/// Runs `p` to the end.
pub fn run(p: &LockParams) -> LockResult {
    sim(p).finish()
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
) -> LockResult {
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
        j.writes.iter().zip(&generations).map(|(w, &g)| (w.fence, g)),
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
    LockResult {
        params: p.clone(),
        steps: trace.len(),
        times,
        commands,
        segs: j.segs.clone(),
        owners,
        writes,
        dropped: j.dropped.clone(),
        overlaps,
        counters,
        end_ms,
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
