//! The run: clients A and B as a [`Model`] — each speaks to every node over its own
//! connection (engine actor `client·n + node`, see `world::Nodes`), one command at a time
//! while it acquires, all nodes at once when it releases — the servers with their planned
//! faults, and the analysis of the trace into a [`RedlockOutput`].

use super::output::{
    Attempt, CmdKind, CmdRow, Counters, FaultRow, Hold, HoldEnd, RedlockOutput, RedlockPage, Seg,
    SegKind, Verdict, Write,
};
use super::params::RedlockParams;
use super::{FENCE_KEY, LOCK_KEY, MAX_STEPS, NAMES, NODE_TIMEOUT_MS, REDLOCK_NODES};
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::owners::{self, Overlap};
use crate::redis::{scripts, Reply};
use crate::rng::Mulberry32;
use crate::world::{
    cmd, Action, ActorId, Backend, Fault, Hop, Input, Io, Model, Nodes, OpId, Outcome, What, World,
};

/// A write the storage received (judged later).
#[derive(Clone, Copy, Debug)]
pub(super) struct RawWrite {
    pub(super) step: usize,
    pub(super) at_ms: u64,
    pub(super) client: usize,
    pub(super) fence: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Acquire,
    Unlock,
    Fence,
    Paused,
    Working,
    Release,
    Waiting,
    Done,
}

struct Client {
    phase: Phase,
    token: String,
    started: u64,
    node: usize,
    granted: Vec<usize>,
    fence: Option<i64>,
    pending: usize,
    rng: Mulberry32,
    paused: bool,
}

/// A client's timer: it wakes.
pub(super) type Timer = usize;

/// The two clients, and what they noted.
pub(super) struct Clients {
    p: RedlockParams,
    n: usize,
    cs: Vec<Client>,
    pub(super) segs: Vec<Seg>,
    pub(super) attempts: Vec<Attempt>,
    pub(super) writes: Vec<RawWrite>,
}

impl Clients {
    pub(super) fn new(p: &RedlockParams) -> Self {
        let cs = (0..2)
            .map(|i| Client {
                phase: Phase::Acquire,
                token: String::new(),
                started: 0,
                node: 0,
                granted: Vec::new(),
                fence: None,
                pending: 0,
                rng: Mulberry32::new(p.seed.wrapping_add(0x9E37_79B9u32.wrapping_mul(i + 1))),
                paused: false,
            })
            .collect();
        Clients {
            p: p.clone(),
            n: p.nodes(),
            cs,
            segs: Vec::new(),
            attempts: Vec::new(),
            writes: Vec::new(),
        }
    }

    fn conn(&self, c: usize, node: usize) -> ActorId {
        c * self.n + node
    }

    fn seg(&mut self, io: &Io<Timer>, c: usize, ms: u64, kind: SegKind) {
        let now = io.now();
        self.segs.push(Seg {
            step: io.trace_len(),
            client: c,
            from_ms: now,
            to_ms: now + ms,
            kind,
        });
    }

    /// Logs a decision of client `c` in the trace (on its connection to node 0).
    fn note(&self, io: &mut Io<Timer>, c: usize, input: Input, action: Action) {
        io.log(self.conn(c, 0), What::Act { input, action });
    }

    fn attempt(&mut self, c: usize, io: &mut Io<Timer>) {
        let cl = &mut self.cs[c];
        cl.phase = Phase::Acquire;
        cl.token = format!(
            "{}-{:08x}",
            NAMES[c].to_ascii_lowercase(),
            cl.rng.next_u32()
        );
        cl.started = io.now();
        cl.node = 0;
        cl.granted.clear();
        self.send_set(c, io);
    }

    fn send_set(&mut self, c: usize, io: &mut Io<Timer>) {
        let cl = &self.cs[c];
        let ttl = self.p.ttl.to_string();
        let cmd = cmd(&["SET", LOCK_KEY, &cl.token, "NX", "PX", &ttl]);
        let actor = self.conn(c, cl.node);
        io.send_timeout(actor, cmd, NODE_TIMEOUT_MS);
    }

    /// All nodes asked: won or not.
    fn decide(&mut self, c: usize, io: &mut Io<Timer>) {
        let now = io.now();
        let cl = &self.cs[c];
        let elapsed = now - cl.started;
        let validity = self.p.ttl as i64 - elapsed as i64 - self.p.drift() as i64;
        let won = cl.granted.len() >= self.p.quorum() && validity > 0;
        self.attempts.push(Attempt {
            step: io.trace_len(),
            client: c,
            token: cl.token.clone(),
            from_ms: cl.started,
            to_ms: now,
            granted: cl.granted.clone(),
            validity_ms: validity,
            won,
        });
        if won {
            if self.p.fencing_on() {
                self.cs[c].phase = Phase::Fence;
                io.send_timeout(self.conn(c, 0), cmd(&["INCR", FENCE_KEY]), NODE_TIMEOUT_MS);
            } else {
                self.after_win(c, io);
            }
        } else if self.n > 1 {
            // Release on every node, also those it believes it did not get.
            self.cs[c].phase = Phase::Unlock;
            self.release_all(c, io);
        } else {
            self.wait(c, io);
        }
    }

    fn release_all(&mut self, c: usize, io: &mut Io<Timer>) {
        let token = self.cs[c].token.clone();
        self.cs[c].pending = self.n;
        for node in 0..self.n {
            let cmd = cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK_KEY, &token]);
            io.send_timeout(self.conn(c, node), cmd, NODE_TIMEOUT_MS);
        }
    }

    fn wait(&mut self, c: usize, io: &mut Io<Timer>) {
        let ms = 40 + u64::from(self.cs[c].rng.below(61));
        self.cs[c].phase = Phase::Waiting;
        self.seg(io, c, ms, SegKind::Wait);
        self.note(io, c, Input::Wake, Action::Sleep { ms });
        io.after(ms, c);
    }

    fn after_win(&mut self, c: usize, io: &mut Io<Timer>) {
        let cl = &mut self.cs[c];
        if c == 0 && self.p.pause > 0 && !cl.paused {
            cl.paused = true;
            cl.phase = Phase::Paused;
            let ms = self.p.pause;
            self.seg(io, c, ms, SegKind::Pause);
            let what = "stop-the-world pause".to_string();
            self.note(io, c, Input::Start, Action::Work { ms, what });
            io.after(ms, c);
        } else {
            self.work(c, io);
        }
    }

    fn work(&mut self, c: usize, io: &mut Io<Timer>) {
        self.cs[c].phase = Phase::Working;
        let ms = self.p.work;
        self.seg(io, c, ms, SegKind::Work);
        let what = "critical section".to_string();
        self.note(io, c, Input::Wake, Action::Work { ms, what });
        io.after(ms, c);
    }

    fn write_and_release(&mut self, c: usize, io: &mut Io<Timer>) {
        let fence = self.cs[c].fence;
        self.writes.push(RawWrite {
            step: io.trace_len(),
            at_ms: io.now(),
            client: c,
            fence,
        });
        let what = match fence {
            Some(f) => format!("write to the storage, fencing token {f}"),
            None => "write to the storage".to_string(),
        };
        self.note(io, c, Input::Wake, Action::Work { ms: 0, what });
        self.cs[c].phase = Phase::Release;
        self.release_all(c, io);
    }
}

impl Model for Clients {
    type Timer = Timer;

    fn on_timer(&mut self, c: Timer, io: &mut Io<Timer>) {
        match self.cs[c].phase {
            Phase::Acquire => self.attempt(c, io),
            Phase::Waiting => self.attempt(c, io),
            Phase::Paused => self.work(c, io),
            Phase::Working => self.write_and_release(c, io),
            _ => {}
        }
    }

    fn on_reply(&mut self, _op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Timer>) {
        let c = actor / self.n;
        let node = actor % self.n;
        let reply = match outcome {
            Outcome::Reply(r) => Some(r),
            _ => None,
        };
        match self.cs[c].phase {
            Phase::Acquire => {
                if reply == Some(Reply::ok()) {
                    self.cs[c].granted.push(node);
                }
                if node + 1 < self.n {
                    self.cs[c].node = node + 1;
                    self.send_set(c, io);
                } else {
                    self.decide(c, io);
                }
            }
            Phase::Fence => {
                self.cs[c].fence = reply.and_then(|r| r.as_int());
                self.after_win(c, io);
            }
            Phase::Unlock | Phase::Release => {
                self.cs[c].pending -= 1;
                if self.cs[c].pending == 0 {
                    if self.cs[c].phase == Phase::Unlock {
                        self.wait(c, io);
                    } else {
                        self.cs[c].phase = Phase::Done;
                    }
                }
            }
            _ => {}
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        let (c, node) = (actor / self.n, actor % self.n);
        if self.n == 1 {
            NAMES[c].to_string()
        } else {
            format!("{}→r{}", NAMES[c], node + 1)
        }
    }
}

/// The world of `p`: the nodes with their faults, and the clients.
fn world(p: &RedlockParams) -> World<Nodes, Clients> {
    let mut nodes = if p.redlock() {
        Nodes::primaries(REDLOCK_NODES, p.seed)
    } else {
        Nodes::replicated(p.seed, p.lag)
    };
    if p.crash_on() {
        nodes.plan(p.crash_at, Fault::Crash(0));
        if !p.redlock() {
            nodes.plan(p.crash_at + p.promote_after, Fault::Promote(0));
        }
    }
    if p.jump > 0 {
        nodes.plan(p.jump_at, Fault::ClockJump(p.jump_node(), p.jump as i64));
    }
    if p.partition_on() {
        nodes.cut(0, 3);
        nodes.cut(0, 4);
    }
    let n = nodes.len();
    let mut w = World::with_model(p.seed, nodes, Clients::new(p));
    let hop = Hop {
        to_redis_ms: 1,
        from_redis_ms: 1,
        jitter_ms: 2,
    };
    w.start(|_, io| {
        for actor in 0..2 * n {
            io.set_hop(actor, hop);
        }
        io.at(0, 0);
        io.at(p.gap, 1);
    });
    w
}

/// What each lane holds now: (client, deadline in virtual ms).
fn look(p: &RedlockParams, nodes: &Nodes) -> Vec<Option<(usize, u64)>> {
    let key = LOCK_KEY.as_bytes();
    let who = |v: Option<(&[u8], Option<u64>)>| {
        v.map(|(tok, until)| {
            (
                usize::from(tok.starts_with(b"b-")),
                until.unwrap_or(u64::MAX),
            )
        })
    };
    if p.redlock() {
        (0..nodes.len()).map(|i| who(nodes.peek(i, key))).collect()
    } else {
        let primary = if nodes.is_promoted(0) {
            None
        } else {
            who(nodes.peek(0, key))
        };
        let replica = nodes.replica(0).and_then(|r| who(r.peek_string(key)));
        vec![primary, replica]
    }
}

/// Follows the holders lane by lane.
struct Watch {
    open: Vec<Option<(usize, Hold, u64)>>,
    holds: Vec<Hold>,
}

impl Watch {
    fn see(&mut self, now: Vec<Option<(usize, u64)>>, t: u64, step: usize, why: HoldEnd) {
        for (lane, seen) in now.into_iter().enumerate() {
            let open = self.open[lane].take();
            match (open, seen) {
                (Some((c, h, _)), Some((c2, until))) if c == c2 => {
                    self.open[lane] = Some((c, h, until));
                }
                (open, seen) => {
                    if let Some((_, mut h, until)) = open {
                        // Gone: by its deadline if that came first, else by what happened.
                        if until <= t {
                            h.to_ms = until.max(h.from_ms);
                            h.end = HoldEnd::Expired;
                        } else {
                            h.to_ms = t;
                            h.end = why;
                        }
                        self.holds.push(h);
                    }
                    if let Some((c, until)) = seen {
                        let h = Hold {
                            step,
                            lane,
                            client: c,
                            from_ms: t,
                            to_ms: t,
                            end: HoldEnd::Held,
                        };
                        self.open[lane] = Some((c, h, until));
                    }
                }
            }
        }
    }
}

/// A primary with a replica: what it wrote just now reaches the replica `lag` ms later, so
/// the run looks at the replica then (a checkpoint).
fn watch_replica(p: &RedlockParams, w: &World<Nodes, Clients>, planned: &mut Vec<u64>) {
    let n = w.backend();
    if p.redlock() || n.is_down(0) || n.is_promoted(0) {
        return;
    }
    let t = w.now_ms() + p.lag;
    if let Err(i) = planned.binary_search(&t) {
        planned.insert(i, t);
    }
}

/// Runs `p` to the end: the result and the trace as text.
pub fn run_with_trace(p: &RedlockParams) -> (RedlockOutput, String) {
    let mut w = world(p);
    let lanes = if p.redlock() {
        (1..=REDLOCK_NODES).map(|i| format!("r{i}")).collect()
    } else {
        vec!["primary".to_string(), "replica".to_string()]
    };
    let mut watch = Watch {
        open: vec![None; lanes.len()],
        holds: Vec::new(),
    };
    let mut faults = Vec::new();
    let mut applied = 0;
    let mut planned: Vec<u64> = Vec::new();
    if p.crash_on() {
        planned.push(p.crash_at);
        if !p.redlock() {
            planned.push(p.crash_at + p.promote_after);
        }
    }
    if p.jump > 0 {
        planned.push(p.jump_at);
    }
    planned.sort_unstable();
    while w.trace().len() < MAX_STEPS {
        let Some(next) = w.next_at() else { break };
        // A fault due before the next event: bring the nodes to it and look.
        if let Some(&f) = planned.first().filter(|&&f| f <= next) {
            planned.remove(0);
            let _ = Backend::advance_to(w.backend_mut(), f);
            let step = w.trace().len();
            for &(at, fault) in &w.backend().happened()[applied..] {
                let lane = |i: usize| if p.redlock() { i } else { 0 };
                faults.push(match fault {
                    Fault::Crash(i) => FaultRow::Crash {
                        at_ms: at,
                        step,
                        lane: lane(i),
                    },
                    Fault::Promote(_) => FaultRow::Promote {
                        at_ms: at,
                        step,
                        lane: 1,
                    },
                    Fault::ClockJump(i, ms) => FaultRow::ClockJump {
                        at_ms: at,
                        step,
                        lane: lane(i),
                        ms,
                    },
                });
            }
            let why = match faults.last() {
                _ if w.backend().happened().len() == applied => HoldEnd::Released,
                Some(FaultRow::ClockJump { .. }) => HoldEnd::ClockJump,
                _ => HoldEnd::Crashed,
            };
            applied = w.backend().happened().len();
            watch.see(look(p, w.backend()), f, step, why);
            continue;
        }
        let step = w.trace().len();
        if !w.step() {
            break;
        }
        watch.see(look(p, w.backend()), w.now_ms(), step, HoldEnd::Released);
        watch_replica(p, &w, &mut planned);
    }
    // What is still on its way to the replica arrives after the last event.
    let mut end_ms = w.now_ms();
    for f in planned {
        let _ = Backend::advance_to(w.backend_mut(), f);
        watch.see(look(p, w.backend()), f, w.trace().len(), HoldEnd::Released);
        end_ms = end_ms.max(f);
    }
    for (lane, open) in watch.open.iter_mut().enumerate() {
        if let Some((_, mut h, until)) = open.take() {
            let _ = lane;
            if until <= end_ms {
                h.to_ms = until.max(h.from_ms);
                h.end = HoldEnd::Expired;
            } else {
                h.to_ms = end_ms;
            }
            watch.holds.push(h);
        }
    }
    let mut holds = watch.holds;
    holds.sort_by_key(|h| (h.lane, h.from_ms));
    let r = analyse(p, &w, lanes, holds, faults, end_ms);
    let text = w.trace_text();
    (r, text)
}

/// Runs `p` to the end.
pub fn run(p: &RedlockParams) -> RedlockOutput {
    run_with_trace(p).0
}

fn analyse(
    p: &RedlockParams,
    w: &World<Nodes, Clients>,
    lanes: Vec<String>,
    holds: Vec<Hold>,
    faults: Vec<FaultRow>,
    end_ms: u64,
) -> RedlockOutput {
    let n = p.nodes();
    let m = w.model();
    let trace = w.trace();
    let mut commands = Vec::new();
    for e in trace {
        let (c, reply) = match &e.what {
            What::Exec {
                cmd,
                reply: Some(r),
            } => (cmd, Ok(r.clone())),
            What::Refused { cmd } => (cmd, Err(NoReply::Refused)),
            What::TimedOut { cmd, after_ms } => (cmd, Err(NoReply::TimedOut(*after_ms))),
            _ => continue,
        };
        let kind = match c.first().map(|w| w.to_ascii_uppercase()) {
            Some(w) if w == b"SET" => CmdKind::Acquire,
            Some(w) if w == b"INCR" => CmdKind::Fence,
            _ => CmdKind::Release,
        };
        let (client, node) = (e.actor / n, e.actor % n);
        let who = if n == 1 {
            NAMES[client].to_string()
        } else {
            format!("{}→r{}", NAMES[client], node + 1)
        };
        commands.push(CmdRow {
            step: e.step,
            client,
            node,
            kind,
            line: CmdLine::new(e.at_ms, who, c, reply),
        });
    }
    let writes = judge(p, &m.attempts, &m.writes);
    let overlaps = overlaps(&m.segs, usize::MAX);
    let counters = count(&commands, &m.attempts, &m.segs, &writes, usize::MAX);
    let verdict = if counters.stale_rejected > 0 && counters.stale_accepted == 0 {
        Verdict::StaleRejected {
            two_owner_ms: counters.two_owner_ms,
        }
    } else if counters.two_owner_moments > 0 {
        Verdict::TwoOwners {
            ms: counters.two_owner_ms,
            stale: counters.stale_accepted,
        }
    } else {
        Verdict::NeverTwo
    };
    RedlockOutput {
        params: p.clone(),
        status: verdict.line(),
        verdict,
        counters,
        lanes,
        holds,
        attempts: m.attempts.clone(),
        writes,
        faults,
        overlaps,
        commands,
        end_ms,
        page: Some(RedlockPage {
            times: trace.iter().map(|e| e.at_ms).collect(),
            segs: m.segs.clone(),
        }),
    }
}

/// The storage's verdicts: each write's generation is its client's latest win before it.
fn judge(p: &RedlockParams, attempts: &[Attempt], raw: &[RawWrite]) -> Vec<Write> {
    let wins: Vec<&Attempt> = attempts.iter().filter(|a| a.won).collect();
    let generation = |w: &RawWrite| {
        wins.iter()
            .enumerate()
            .filter(|(_, a)| a.client == w.client && a.to_ms <= w.at_ms)
            .map(|(i, _)| i as u32 + 1)
            .next_back()
            .unwrap_or(0)
    };
    let gens: Vec<u32> = raw.iter().map(generation).collect();
    let judged = owners::judge(
        p.fencing_on(),
        raw.iter().zip(&gens).map(|(w, &g)| (w.fence, g)),
    );
    raw.iter()
        .zip(gens)
        .zip(judged)
        .map(|((w, generation), j)| Write {
            step: w.step,
            at_ms: w.at_ms,
            client: w.client,
            fence: w.fence,
            generation,
            stale: j.stale,
            accepted: j.accepted,
        })
        .collect()
}

fn overlaps(segs: &[Seg], n: usize) -> Vec<Overlap> {
    let work = |c: usize| -> Vec<owners::Span> {
        segs.iter()
            .filter(|s| s.step < n && s.client == c && s.kind == SegKind::Work)
            .map(|s| (s.step, s.from_ms, s.to_ms))
            .collect()
    };
    owners::overlaps(&work(0), &work(1))
}

pub(super) fn count(
    commands: &[CmdRow],
    attempts: &[Attempt],
    segs: &[Seg],
    writes: &[Write],
    n: usize,
) -> Counters {
    let o = overlaps(segs, n);
    let c = |it: usize| it as u32;
    let writes = || writes.iter().filter(|x| x.step < n);
    let attempts = || attempts.iter().filter(|x| x.step < n);
    Counters {
        grants: c(attempts().filter(|a| a.won).count()),
        failed_attempts: c(attempts().filter(|a| !a.won).count()),
        two_owner_moments: c(o.len()),
        two_owner_ms: o.iter().map(|o| o.to_ms - o.from_ms).sum(),
        writes_accepted: c(writes().filter(|w| w.accepted).count()),
        writes_rejected: c(writes().filter(|w| !w.accepted).count()),
        stale_accepted: c(writes().filter(|w| w.stale && w.accepted).count()),
        stale_rejected: c(writes().filter(|w| w.stale && !w.accepted).count()),
        commands: c(commands.iter().filter(|x| x.step < n).count()),
    }
}

/// The trace and the counters as text (`labsim redlock`).
pub fn text(r: &RedlockOutput, trace: &str) -> String {
    let p = &r.params;
    let c = &r.counters;
    let mut s = format!(
        "redlock: setup {}, ttl {} ms, work {} ms, gap {} ms, lag {} ms, crash {} at {} ms (promote after {} ms), pause {} ms, clock jump {} ms at {} ms, partition {}, fencing {}, seed {}\n",
        p.setup, p.ttl, p.work, p.gap, p.lag, p.crash, p.crash_at, p.promote_after, p.pause,
        p.jump, p.jump_at, p.partition, p.fencing, p.seed
    );
    s.push_str(trace);
    for a in &r.attempts {
        s.push_str(&format!(
            "attempt {} {}..{} ms: granted {:?}, validity {} ms, {}\n",
            NAMES[a.client],
            a.from_ms,
            a.to_ms,
            a.granted.iter().map(|i| i + 1).collect::<Vec<_>>(),
            a.validity_ms,
            if a.won { "won" } else { "failed" }
        ));
    }
    for h in &r.holds {
        s.push_str(&format!(
            "{} held by {} {}..{} ms ({:?})\n",
            r.lanes[h.lane], NAMES[h.client], h.from_ms, h.to_ms, h.end
        ));
    }
    s.push_str(&format!(
        "grants {}, failed attempts {}, two-owner moments {} ({} ms), writes accepted {} rejected {}, stale writes accepted {} rejected {}, commands {}, end {} ms\n",
        c.grants, c.failed_attempts, c.two_owner_moments, c.two_owner_ms, c.writes_accepted,
        c.writes_rejected, c.stale_accepted, c.stale_rejected, c.commands, r.end_ms
    ));
    s.push_str(&match r.verdict {
        Verdict::StaleRejected { two_owner_ms } => format!(
            "verdict: the storage rejected the stale write (two owners for {two_owner_ms} ms)\n"
        ),
        Verdict::TwoOwners { ms, stale } => {
            format!("verdict: two owners for {ms} ms, stale writes accepted {stale}\n")
        }
        Verdict::NeverTwo => "verdict: never two owners\n".to_string(),
    });
    s
}
