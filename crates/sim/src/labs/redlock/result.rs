//! The run and what it shows: commands, holders per node, attempts, two owners, writes.

use super::model::{Clients, RawWrite};
pub use super::model::{Attempt, Seg, SegKind};
use super::*;
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::owners::{self, Overlap};
use crate::world::{Backend, Fault, Hop, Nodes, What, World};

/// What a command in the run is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CmdKind {
    /// `SET lock:… NX PX`.
    Acquire,
    /// `INCR fence:…`.
    Fence,
    /// `EVALSHA <release>`.
    Release,
}

/// One command as a node ran it (or refused it, or its sender gave up).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// Trace index.
    pub step: usize,
    /// Client (0 = A).
    pub client: usize,
    /// Node (0 = r1, or the single primary).
    pub node: usize,
    /// What it is for.
    pub kind: CmdKind,
    /// The log line (time, who, words, reply or why none).
    pub line: CmdLine,
}

/// How a node's hold on the key ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HoldEnd {
    /// Its owner released it.
    Released,
    /// Its TTL ran out.
    Expired,
    /// Its TTL ran out early: the node's clock jumped.
    ClockJump,
    /// The node crashed (or, a primary, its replica took over without it).
    Crashed,
    /// Still there when the run ended.
    Held,
}

/// A stretch in which one node (a lane) held the lock for one client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hold {
    /// Trace index when it was seen first.
    pub step: usize,
    /// Lane (see [`RedlockResult::lanes`]).
    pub lane: usize,
    /// Client whose token it is.
    pub client: usize,
    /// From, ms.
    pub from_ms: u64,
    /// To, ms.
    pub to_ms: u64,
    /// How it ended.
    pub end: HoldEnd,
}

/// A fault as it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum FaultRow {
    /// Lane `lane`'s server died.
    Crash {
        /// When, ms.
        at_ms: u64,
        /// Trace index.
        step: usize,
        /// Lane.
        lane: usize,
    },
    /// The replica became the primary.
    Promote {
        /// When, ms.
        at_ms: u64,
        /// Trace index.
        step: usize,
        /// Lane.
        lane: usize,
    },
    /// Lane `lane`'s wall clock jumped by `ms`.
    ClockJump {
        /// When, ms.
        at_ms: u64,
        /// Trace index.
        step: usize,
        /// Lane.
        lane: usize,
        /// How far, ms.
        ms: i64,
    },
}

impl FaultRow {
    /// Its trace index.
    pub fn step(&self) -> usize {
        match *self {
            FaultRow::Crash { step, .. }
            | FaultRow::Promote { step, .. }
            | FaultRow::ClockJump { step, .. } => step,
        }
    }
}

/// A write the storage received.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Write {
    /// Trace index.
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Client.
    pub client: usize,
    /// Its fencing token (fencing on).
    pub fence: Option<i64>,
    /// The win it was made under (1 = the first lock won).
    pub generation: u32,
    /// Older than a write already accepted.
    pub stale: bool,
    /// The storage took it.
    pub accepted: bool,
}

/// The lab's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Locks won (a majority in time, or a single Redis' OK).
    pub grants: u32,
    /// Attempts that failed.
    pub failed_attempts: u32,
    /// Moments with two owners.
    pub two_owner_moments: u32,
    /// Their total length, ms.
    pub two_owner_ms: u64,
    /// Writes the storage accepted.
    pub writes_accepted: u32,
    /// Writes it rejected.
    pub writes_rejected: u32,
    /// Stale writes it accepted.
    pub stale_accepted: u32,
    /// Stale writes it rejected.
    pub stale_rejected: u32,
    /// Commands sent.
    pub commands: u32,
}

/// Which guarantee the setup gave: the lab's one status line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Verdict {
    /// The storage rejected every stale write (fencing), whatever the lock did.
    StaleRejected {
        /// Two-owner time, ms.
        two_owner_ms: u64,
    },
    /// Two owners at once.
    TwoOwners {
        /// How long, ms.
        ms: u64,
        /// Stale writes the storage accepted.
        stale: u32,
    },
    /// Never two owners.
    NeverTwo,
}

impl Verdict {
    /// The lab's status line, in Bengali: which guarantee the setup gave.
    pub fn line(&self) -> String {
        let ms = |v: u64| format!("{} ms", crate::bn::int(v as i64));
        match *self {
            Verdict::StaleRejected { two_owner_ms: 0 } => {
                "বাসি লেখা ফিরিয়ে দিল: fencing token পুরোনো".to_string()
            }
            Verdict::StaleRejected { two_owner_ms } => format!(
                "বাসি লেখা ফিরিয়ে দিল: দুই মালিক {} ছিল, কিন্তু storage পুরোনো fencing token মানেনি",
                ms(two_owner_ms)
            ),
            Verdict::TwoOwners { ms: t, stale: 0 } => format!("দুই মালিক: {}", ms(t)),
            Verdict::TwoOwners { ms: t, stale } => format!(
                "দুই মালিক: {} — বাসি লেখা গৃহীত {}টা",
                ms(t),
                crate::bn::int(i64::from(stale))
            ),
            Verdict::NeverTwo => "কখনো দুই মালিক নয়".to_string(),
        }
    }
}

/// A run, finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RedlockResult {
    /// The parameters it ran with.
    pub params: RedlockParams,
    /// Trace entries (the timeline's positions).
    pub steps: usize,
    /// Time of each trace entry, ms.
    pub times: Vec<u64>,
    /// The lanes' names: `primary`, `replica`, or `r1` … `r5`.
    pub lanes: Vec<String>,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// Who held the key on which lane, over time.
    pub holds: Vec<Hold>,
    /// The attempts.
    pub attempts: Vec<Attempt>,
    /// Work, pauses and waits.
    pub segs: Vec<Seg>,
    /// The storage's writes.
    pub writes: Vec<Write>,
    /// Crashes, promotions, clock jumps.
    pub faults: Vec<FaultRow>,
    /// Two-owner moments.
    pub overlaps: Vec<Overlap>,
    /// Counters over the whole run.
    pub counters: Counters,
    /// The verdict.
    pub verdict: Verdict,
    /// When the run ended, ms.
    pub end_ms: u64,
}

impl RedlockResult {
    /// The counters over what happened before trace entry `n` (the timeline at `n`).
    pub fn so_far(&self, n: usize) -> Counters {
        count(
            &self.commands,
            &self.attempts,
            &self.segs,
            &self.writes,
            n,
        )
    }

    /// Time of trace entry `n` (the last entry's after the end).
    pub fn time_at(&self, n: usize) -> u64 {
        self.times
            .get(n)
            .or(self.times.last())
            .copied()
            .unwrap_or(0)
    }

    /// Who holds the key on each lane at `t` ms (as far as the timeline at `n` knows).
    pub fn holders_at(&self, n: usize, t: u64) -> Vec<Option<usize>> {
        (0..self.lanes.len())
            .map(|lane| {
                self.holds
                    .iter()
                    .find(|h| h.lane == lane && h.step < n && h.from_ms <= t && t < h.to_ms.max(h.from_ms + 1))
                    .map(|h| h.client)
            })
            .collect()
    }

    /// The JSON `labsim redlock --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "params": self.params,
            "verdict": self.verdict,
            "status": self.verdict.line(),
            "counters": self.counters,
            "lanes": self.lanes,
            "holds": self.holds,
            "attempts": self.attempts,
            "writes": self.writes,
            "faults": self.faults,
            "overlaps": self.overlaps,
            "commands": self.commands,
            "endMs": self.end_ms,
        })
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
        v.map(|(tok, until)| (usize::from(tok.starts_with(b"b-")), until.unwrap_or(u64::MAX)))
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
pub fn run_with_trace(p: &RedlockParams) -> (RedlockResult, String) {
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
                    Fault::Crash(i) => FaultRow::Crash { at_ms: at, step, lane: lane(i) },
                    Fault::Promote(_) => FaultRow::Promote { at_ms: at, step, lane: 1 },
                    Fault::ClockJump(i, ms) => FaultRow::ClockJump { at_ms: at, step, lane: lane(i), ms },
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
pub fn run(p: &RedlockParams) -> RedlockResult {
    run_with_trace(p).0
}

fn analyse(
    p: &RedlockParams,
    w: &World<Nodes, Clients>,
    lanes: Vec<String>,
    holds: Vec<Hold>,
    faults: Vec<FaultRow>,
    end_ms: u64,
) -> RedlockResult {
    let n = p.nodes();
    let m = w.model();
    let trace = w.trace();
    let mut commands = Vec::new();
    for e in trace {
        let (c, reply) = match &e.what {
            What::Exec { cmd, reply: Some(r) } => (cmd, Ok(r.clone())),
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
    RedlockResult {
        params: p.clone(),
        steps: trace.len(),
        times: trace.iter().map(|e| e.at_ms).collect(),
        lanes,
        commands,
        holds,
        attempts: m.attempts.clone(),
        segs: m.segs.clone(),
        writes,
        faults,
        overlaps,
        counters,
        verdict,
        end_ms,
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

fn count(
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
pub fn text(r: &RedlockResult, trace: &str) -> String {
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
