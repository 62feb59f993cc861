//! The rate-limit lab's simulation: the instances as a world model — each request's limiter
//! checks, in memory or in Redis, with many requests in flight at once — and the run as a
//! [`Scenario`], the same instances on SimRedis or a real Redis.

use super::output::{Bucket, Counter, RateOutput, Tally};
use super::params::{Pattern, RateParams, RateSetup, Target};
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::scenario::Scenario;
use crate::redis::Reply;
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Backend, Command, Hop, Io, Model, OpId, Outcome, World};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// The attacker's IP.
pub const ATTACKER_IP: &str = "203.0.113.7";
/// The office's one IP.
pub const OFFICE_IP: &str = "198.51.100.20";
/// One-way latency between an instance and Redis in the simulation, ms.
pub const HOP_MS: u64 = 1;
/// Log lines kept per bucket.
const LOG_PER_BUCKET: u32 = 4;
/// Buckets on the timeline, about.
const BUCKETS: u64 = 120;

/// Which limiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Layer {
    Ip,
    Identity,
}

/// The model's own events.
#[derive(Debug)]
pub enum Timer {
    /// The attacker's request `k`.
    Attack(u32),
    /// The next student login.
    Student,
}

#[derive(Clone, Copy)]
struct Req {
    attacker: bool,
    /// Attacker account, or student.
    who: u32,
    inst: u16,
}

#[derive(Clone, Copy)]
struct Pending {
    req: u32,
    layer: Layer,
    /// This reply decides (INCR, ZCARD).
    decides: bool,
    /// A fixed window's INCR (its reply 1 starts the window).
    incr: bool,
}

enum Mem {
    Fixed { count: u64, reset_at: u64 },
    Sliding(VecDeque<u64>),
}

/// The instances of one run.
pub struct RateModel {
    p: RateParams,
    burst_ms: u64,
    reqs: Vec<Req>,
    logins: Vec<(u64, u32)>,
    next_login: usize,
    ops: Vec<Option<Pending>>,
    mem: Vec<HashMap<(Layer, u32), Mem>>,
    rr: u32,
    attacker: Tally,
    students: Tally,
    hit: Vec<bool>,
    allowed_at: Vec<u64>,
    per_instance: Vec<u64>,
    counters: BTreeMap<(String, String), u64>,
    commands: u64,
    round_trips: u64,
    bucket_ms: u64,
    buckets: Vec<Bucket>,
    logged: Vec<u32>,
    log: Vec<(CmdLine, usize)>,
    replies: usize,
    end_ms: u64,
    live: bool,
}

impl RateModel {
    /// The instances and clients of `s`; `live`: no simulated network.
    pub fn new(s: &RateSetup, live: bool) -> Self {
        let p = &s.p;
        let w = p.window_ms();
        let mut rng = Mulberry32::new(p.seed);
        let mut logins: Vec<(u64, u32)> = (0..p.office)
            .flat_map(|s| (0..p.tries).map(move |_| s))
            .map(|s| (u64::from(rng.below(w.min(u64::from(u32::MAX)) as u32)), s))
            .collect();
        logins.sort_unstable();
        let attack_end = match p.pattern {
            Pattern::Edge => w + s.burst_ms,
            Pattern::Steady => u64::from(p.attempts) * 1000 / u64::from(p.rps.max(1)),
        };
        let span = attack_end.max(if p.office > 0 { w } else { 0 }) + 200;
        let bucket_ms = (span.div_ceil(BUCKETS)).div_ceil(100).max(1) * 100;
        let n = span.div_ceil(bucket_ms) as usize + 1;
        RateModel {
            p: p.clone(),
            burst_ms: s.burst_ms,
            reqs: Vec::new(),
            logins,
            next_login: 0,
            ops: Vec::new(),
            mem: (0..p.instances).map(|_| HashMap::new()).collect(),
            rr: 0,
            attacker: Tally::default(),
            students: Tally::default(),
            hit: vec![false; p.office as usize],
            allowed_at: Vec::new(),
            per_instance: vec![0; p.instances as usize],
            counters: BTreeMap::new(),
            commands: 0,
            round_trips: 0,
            bucket_ms,
            buckets: (0..n)
                .map(|b| Bucket {
                    to_ms: (b as u64 + 1) * bucket_ms,
                    per_instance: vec![0; p.instances as usize],
                    ..Bucket::default()
                })
                .collect(),
            logged: vec![0; n],
            log: Vec::new(),
            replies: 0,
            end_ms: 0,
            live,
        }
    }

    /// The first timers.
    pub fn start(&mut self, io: &mut Io<Timer>) {
        if self.p.attempts > 0 {
            io.at(self.attack_at(0), Timer::Attack(0));
        }
        if let Some(&(t, _)) = self.logins.first() {
            io.at(t, Timer::Student);
        }
    }

    /// When the attacker sends request `k`.
    fn attack_at(&self, k: u32) -> u64 {
        let p = &self.p;
        let burst = self.burst_ms;
        match p.pattern {
            Pattern::Edge if k > 0 => {
                // One request opens the window at 0; then half the rest in its last burst and
                // half in the first burst of the next window.
                let rest = u64::from(p.attempts - 1);
                let half = rest / 2;
                let i = u64::from(k - 1);
                let (from, n, j) = if i < half {
                    (p.window_ms() - burst, half, i)
                } else {
                    (p.window_ms() + 5, rest - half, i - half)
                };
                from + j * burst / n.max(1)
            }
            Pattern::Edge => 0,
            Pattern::Steady => u64::from(k) * 1000 / u64::from(p.rps.max(1)),
        }
    }

    fn key(&self, layer: Layer, r: &Req) -> (String, u32) {
        match layer {
            Layer::Ip if r.attacker => (format!("rl:ip:{ATTACKER_IP}"), 0),
            Layer::Ip => (format!("rl:ip:{OFFICE_IP}"), 1),
            Layer::Identity if r.attacker => (format!("rl:login:88017{:08}", r.who), r.who),
            Layer::Identity => (
                format!("rl:login:student{}@example.com", r.who + 1),
                100_000 + r.who,
            ),
        }
    }

    fn limit(&self, layer: Layer) -> u64 {
        u64::from(match layer {
            Layer::Ip => self.p.ip_limit,
            Layer::Identity => self.p.limit,
        })
    }

    fn request(&mut self, attacker: bool, who: u32, io: &mut Io<Timer>) {
        let inst = (self.rr % self.p.instances) as u16;
        self.rr += 1;
        let id = self.reqs.len() as u32;
        self.reqs.push(Req {
            attacker,
            who,
            inst,
        });
        if attacker {
            self.attacker.sent += 1;
        } else {
            self.students.sent += 1;
        }
        let first = if self.p.ip_layer() {
            Layer::Ip
        } else {
            Layer::Identity
        };
        self.check(id, first, io);
    }

    fn check(&mut self, id: u32, layer: Layer, io: &mut Io<Timer>) {
        let r = self.reqs[id as usize];
        let (key, kid) = self.key(layer, &r);
        let now = io.now();
        let limit = self.limit(layer);
        if !self.p.redis() {
            let w = self.p.window_ms();
            let sliding = self.p.sliding();
            let m = self.mem[r.inst as usize]
                .entry((layer, kid))
                .or_insert_with(|| {
                    if sliding {
                        Mem::Sliding(VecDeque::new())
                    } else {
                        Mem::Fixed {
                            count: 0,
                            reset_at: 0,
                        }
                    }
                });
            let count = match m {
                Mem::Fixed { count, reset_at } => {
                    if now >= *reset_at {
                        *count = 0;
                        *reset_at = now + w;
                    }
                    *count += 1;
                    *count
                }
                Mem::Sliding(log) => {
                    while log.front().is_some_and(|&t| t + w <= now) {
                        log.pop_front();
                    }
                    log.push_back(now);
                    log.len() as u64
                }
            };
            let place = format!("api-{}", r.inst + 1);
            let c = self.counters.entry((place, key)).or_insert(0);
            *c = (*c).max(count);
            self.decided(id, layer, count <= limit, now, io);
            return;
        }
        if self.p.sliding() {
            let w = self.p.window_ms();
            let member = format!("{now}-{id}");
            let cutoff = format!("{}", now as i64 - w as i64);
            let cmds = [
                cmd(&["ZREMRANGEBYSCORE", &key, "-inf", &cutoff]),
                cmd(&["ZADD", &key, &now.to_string(), &member]),
                cmd(&["ZCARD", &key]),
                cmd(&["PEXPIRE", &key, &w.to_string()]),
            ];
            self.round_trips += 1;
            for (i, c) in cmds.into_iter().enumerate() {
                self.send(io, r.inst, c, id, layer, i == 2, false);
            }
        } else {
            self.round_trips += 1;
            self.send(io, r.inst, cmd(&["INCR", &key]), id, layer, true, true);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        io: &mut Io<Timer>,
        inst: u16,
        c: Command,
        req: u32,
        layer: Layer,
        decides: bool,
        incr: bool,
    ) {
        self.commands += 1;
        let op = io.send(inst as ActorId, c);
        if self.ops.len() <= op {
            self.ops.resize(op + 1, None);
        }
        self.ops[op] = Some(Pending {
            req,
            layer,
            decides,
            incr,
        });
    }

    fn decided(&mut self, id: u32, layer: Layer, ok: bool, now: u64, io: &mut Io<Timer>) {
        if ok && layer == Layer::Ip && self.p.identity_layer() {
            self.check(id, Layer::Identity, io);
            return;
        }
        let r = self.reqs[id as usize];
        let t = if r.attacker {
            &mut self.attacker
        } else {
            &mut self.students
        };
        match (ok, layer) {
            (true, _) => t.allowed += 1,
            (false, Layer::Ip) => t.by_ip += 1,
            (false, Layer::Identity) => t.by_identity += 1,
        }
        if r.attacker && ok {
            self.allowed_at.push(now);
            self.per_instance[r.inst as usize] += 1;
        }
        if !r.attacker && !ok {
            self.hit[r.who as usize] = true;
        }
        let b = self.bucket(now);
        let bk = &mut self.buckets[b];
        match (r.attacker, ok) {
            (true, true) => {
                bk.attacker_ok += 1;
                bk.per_instance[r.inst as usize] += 1;
            }
            (true, false) => bk.attacker_no += 1,
            (false, true) => bk.students_ok += 1,
            (false, false) => bk.students_no += 1,
        }
        self.end_ms = self.end_ms.max(now);
    }

    fn bucket(&self, t: u64) -> usize {
        ((t / self.bucket_ms) as usize).min(self.buckets.len() - 1)
    }

    /// What the run shows so far; `rtts`: a live run's round trips in the order the replies
    /// came.
    pub fn output(&self, rtts: Option<&[u32]>) -> RateOutput {
        let w = self.p.window_ms();
        // The densest window-long stretch of let-through requests (two pointers over times
        // that only grow).
        let (mut best, mut span, mut lo) = (0u64, (0, 0), 0usize);
        for (hi, &t) in self.allowed_at.iter().enumerate() {
            while self.allowed_at[lo] + w <= t {
                lo += 1;
            }
            let n = (hi - lo + 1) as u64;
            if n > best {
                best = n;
                span = (self.allowed_at[lo], t);
            }
        }
        let mut counters: Vec<Counter> = self
            .counters
            .iter()
            .map(|((place, key), &count)| Counter {
                place: place.clone(),
                key: key.clone(),
                count,
            })
            .collect();
        counters.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.place.cmp(&b.place)));
        counters.truncate(if self.p.redis() {
            4
        } else {
            self.p.instances as usize
        });
        let mut log: Vec<CmdLine> = self
            .log
            .iter()
            .map(|(l, i)| CmdLine {
                rtt_us: rtts.and_then(|r| r.get(*i).copied()),
                ..l.clone()
            })
            .collect();
        log.sort_by_key(|l| l.at_ms);
        RateOutput {
            params: self.p.clone(),
            burst_ms: self.burst_ms,
            attacker: self.attacker,
            students: self.students,
            students_hit: self.hit.iter().filter(|&&h| h).count() as u64,
            max_in_window: best,
            max_span: span,
            per_instance: self.per_instance.clone(),
            counters,
            commands: self.commands,
            round_trips: self.round_trips,
            bucket_ms: self.bucket_ms,
            buckets: self.buckets.clone(),
            log,
            end_ms: self.end_ms,
        }
    }
}

impl Model for RateModel {
    type Timer = Timer;

    fn on_timer(&mut self, t: Timer, io: &mut Io<Timer>) {
        match t {
            Timer::Attack(k) => {
                let who = if self.p.target == Target::Many {
                    k + 1
                } else {
                    0
                };
                self.request(true, who, io);
                if k + 1 < self.p.attempts {
                    io.at(self.attack_at(k + 1), Timer::Attack(k + 1));
                }
            }
            Timer::Student => {
                let (_, s) = self.logins[self.next_login];
                self.next_login += 1;
                self.request(false, s, io);
                if let Some(&(t, _)) = self.logins.get(self.next_login) {
                    io.at(t, Timer::Student);
                }
            }
        }
    }

    fn on_reply(&mut self, op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Timer>) {
        let idx = self.replies;
        self.replies += 1;
        let Some(pend) = self.ops.get_mut(op).and_then(Option::take) else {
            return;
        };
        let now = io.now();
        let reply = match outcome {
            Outcome::Reply(r) => Ok(r),
            Outcome::Refused => Err(NoReply::Refused),
            Outcome::TimedOut => Err(NoReply::TimedOut(0)),
        };
        let at = if self.live {
            now
        } else {
            now.saturating_sub(HOP_MS)
        };
        let b = self.bucket(at);
        if self.logged[b] < LOG_PER_BUCKET {
            self.logged[b] += 1;
            let line = CmdLine::new(at, self.actor_name(actor), io.cmd(op), reply.clone());
            self.log.push((line, idx));
        }
        let r = self.reqs[pend.req as usize];
        let (key, _) = self.key(pend.layer, &r);
        let n = reply.as_ref().ok().and_then(Reply::as_int);
        if pend.decides {
            let c = self
                .counters
                .entry(("redis".into(), key.clone()))
                .or_insert(0);
            *c = (*c).max(n.unwrap_or(0).max(0) as u64);
        }
        if pend.incr && n == Some(1) {
            // The first request of a window starts it.
            let w = self.p.window_ms().to_string();
            self.round_trips += 1;
            self.commands += 1;
            let op2 = io.send(r.inst as ActorId, cmd(&["PEXPIRE", &key, &w]));
            if self.ops.len() <= op2 {
                self.ops.resize(op2 + 1, None);
            }
            self.ops[op2] = Some(Pending {
                decides: false,
                incr: false,
                ..pend
            });
        }
        if pend.decides {
            // A limiter that cannot reach Redis lets the request through (fail open).
            let ok = n.is_none_or(|n| n as u64 <= self.limit(pend.layer));
            self.decided(pend.req, pend.layer, ok, now, io);
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        format!("api-{}", actor + 1)
    }
}

/// The run as a [`Scenario`]: the same instances on SimRedis or a real Redis.
pub struct RateScenario {
    s: RateSetup,
}

impl RateScenario {
    /// The run of `s`.
    pub fn new(s: &RateSetup) -> Self {
        RateScenario { s: s.clone() }
    }
}

impl Scenario for RateScenario {
    type Model = RateModel;
    type Output = RateOutput;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B, RateModel> {
        let p = &self.s.p;
        let mut world = World::with_model(p.seed, backend, RateModel::new(&self.s, live));
        world.set_trace(false);
        let hop = if live {
            Hop::default()
        } else {
            Hop::symmetric(HOP_MS)
        };
        let n = p.instances as usize;
        world.start(|m, io| {
            for a in 0..n {
                io.set_hop(a, hop);
            }
            m.start(io);
        });
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, RateModel>) -> f64 {
        let m = world.model();
        let p = &self.s.p;
        let total =
            m.attacker.sent.max(u64::from(p.attempts)) + u64::from(p.office) * u64::from(p.tries);
        let done =
            m.attacker.allowed + m.attacker.blocked() + m.students.allowed + m.students.blocked();
        done as f64 / total.max(1) as f64
    }

    fn output<B: Backend>(&self, world: &World<B, RateModel>, live: Option<&[u32]>) -> RateOutput {
        world.model().output(live)
    }
}
