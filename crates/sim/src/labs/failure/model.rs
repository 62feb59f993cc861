//! The failure lab's simulation: one level's run — the requests as a
//! [`world::Model`](crate::world::Model) on the engine (the cache connection is actor 0, its
//! reconnection attempts actor 1) — and the three levels one after another ([`Levels`]).

use super::output::{FailureLevel, FailureOutput};
use super::params::{FailureParams, Level};
use crate::bn;
use crate::labs::lab::Run;
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::Reply;
use crate::rng::Mulberry32;
use crate::world::{Backend, Command, Health, Hop, Io, Model, OpId, Outcome, World};
use std::collections::{HashMap, VecDeque};

/// ioredis `commandTimeout` of the cache connection, ms.
pub const COMMAND_TIMEOUT_MS: u64 = 1_500;
/// ioredis `maxRetriesPerRequest` of the cache connection.
pub const MAX_RETRIES_PER_REQUEST: u32 = 1;
/// ioredis v5's default `retryStrategy` ceiling, ms (`min(times × 50, 2000)`).
pub const RETRY_CAP_MS: u64 = 2_000;
/// How late a slow Redis answers, ms (seeded in this range).
pub const SLOW_MS: (u64, u64) = (2_000, 3_000);
/// Reconnection attempts already failed when the run starts (Redis has been down a while:
/// `41 × 50 > 2000`, so every wait is at the ceiling; odd, so no flush at 0).
pub const START_ATTEMPTS: u32 = 41;
/// Latency histogram bucket bounds, ms (a bucket holds `[bound[i-1], bound[i])`; the last is
/// open).
pub const BUCKETS: [u64; 6] = [10, 100, 500, 1_000, 1_500, 2_000];
/// Lines kept of each level's command log: of each kind, and in all.
const LOG_KIND: usize = 5;
const LOG_MAX: usize = 16;

/// The link to Redis at `level`.
fn link(level: Level) -> Health {
    match level {
        Level::Healthy => Health::Healthy,
        Level::Slow => Health::Slow {
            min_ms: SLOW_MS.0,
            max_ms: SLOW_MS.1,
        },
        Level::Down => Health::Down,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Get,
    Queued,
    Db { write: bool },
    Set,
    Done,
}

#[derive(Clone, Copy, Debug)]
enum OpFor {
    Get(usize),
    Set(usize),
    Connect,
}

/// The model's timers.
#[derive(Clone, Copy, Debug)]
pub enum Timer {
    /// Request `i` arrives.
    Arrive(usize),
    /// Request `i`'s query is done.
    Db(usize),
    /// Request `i`'s queued `GET` timed out.
    Timeout(usize),
    /// The client tries to connect again.
    Reconnect,
}

/// One level's requests.
pub struct FailureModel {
    level: Level,
    db_ms: u64,
    ttl_s: u64,
    offline_queue: bool,
    /// (arrival ms, key) per request.
    reqs: Vec<(u64, u32)>,
    step: Vec<Step>,
    done_ms: Vec<u64>,
    ops: HashMap<OpId, OpFor>,
    offline: VecDeque<usize>,
    attempts: u32,
    answered: usize,
    /// Lines in the log per kind.
    logged: HashMap<&'static str, usize>,
    r: FailureLevel,
}

fn key(k: u32) -> Vec<u8> {
    format!("cache:product:{k}").into_bytes()
}

fn value(k: u32) -> Vec<u8> {
    format!("{{\"id\":{k},\"name\":\"course {k}\"}}").into_bytes()
}

impl FailureModel {
    fn new(level: Level, p: &FailureParams, reqs: Vec<(u64, u32)>) -> Self {
        let n = reqs.len();
        FailureModel {
            level,
            db_ms: p.db,
            ttl_s: p.ttl,
            offline_queue: p.offline_queue(),
            reqs,
            step: vec![Step::Get; n],
            done_ms: vec![0; n],
            ops: HashMap::new(),
            offline: VecDeque::new(),
            attempts: START_ATTEMPTS,
            answered: 0,
            logged: HashMap::new(),
            r: FailureLevel {
                level,
                requests: 0,
                hits: 0,
                misses: 0,
                timed_out: 0,
                flushed: 0,
                rejected: 0,
                db_queries: 0,
                db_qps: 0.0,
                reconnects: 0,
                p50_ms: 0,
                p99_ms: 0,
                mean_ms: 0.0,
                max_ms: 0,
                hist: vec![0; BUCKETS.len() + 1],
                log: Vec::new(),
            },
        }
    }

    fn start(&mut self, io: &mut Io<Timer>) {
        if let Some(&(at, _)) = self.reqs.first() {
            io.at(at, Timer::Arrive(0));
        }
        if self.level == Level::Down {
            io.after(RETRY_CAP_MS, Timer::Reconnect);
        }
    }

    fn log(&mut self, kind: &'static str, line: CmdLine) {
        let n = self.logged.entry(kind).or_insert(0);
        if *n < LOG_KIND && self.r.log.len() < LOG_MAX {
            *n += 1;
            self.r.log.push(line);
        }
    }

    /// A request's line: its `GET`, how it ended, what the code did next.
    fn log_get(
        &mut self,
        kind: &'static str,
        i: usize,
        now: u64,
        reply: Result<Reply, NoReply>,
        note: &str,
    ) {
        let cmd = vec![
            "GET".to_string(),
            format!("cache:product:{}", self.reqs[i].1),
        ];
        self.log(
            kind,
            CmdLine {
                at_ms: now,
                actor: format!("req {i}"),
                cmd,
                reply,
                note: note.to_string(),
                rtt_us: None,
            },
        );
    }

    /// A request's `GET` that never reached Redis (the client rejected it): a note line.
    fn log_client(&mut self, kind: &'static str, i: usize, now: u64, what: &str) {
        let note = format!("GET cache:product:{} {what}", self.reqs[i].1);
        self.log(
            kind,
            CmdLine {
                at_ms: now,
                actor: format!("req {i}"),
                cmd: Vec::new(),
                reply: Err(NoReply::Refused),
                note,
                rtt_us: None,
            },
        );
    }

    /// The catch (or the miss): `loader()`.
    fn load(&mut self, i: usize, write: bool, io: &mut Io<Timer>) {
        self.step[i] = Step::Db { write };
        self.r.db_queries += 1;
        io.after(self.db_ms, Timer::Db(i));
    }

    fn finish(&mut self, i: usize, now: u64) {
        self.step[i] = Step::Done;
        self.done_ms[i] = now - self.reqs[i].0;
        self.answered += 1;
    }

    fn arrive(&mut self, i: usize, io: &mut Io<Timer>) {
        if let Some(&(at, _)) = self.reqs.get(i + 1) {
            io.at(at, Timer::Arrive(i + 1));
        }
        let now = io.now();
        if self.level == Level::Down {
            if self.offline_queue {
                self.step[i] = Step::Queued;
                self.offline.push_back(i);
                io.after(COMMAND_TIMEOUT_MS, Timer::Timeout(i));
            } else {
                self.r.rejected += 1;
                self.log_client(
                    "rejected",
                    i,
                    now,
                    "→ Stream isn't writeable (enableOfflineQueue বন্ধ), সাথে সাথে → loader()",
                );
                self.load(i, false, io);
            }
            return;
        }
        let k = self.reqs[i].1;
        let cmd: Command = vec![b"GET".to_vec(), key(k)];
        let op = io.send_timeout(0, cmd, COMMAND_TIMEOUT_MS);
        self.ops.insert(op, OpFor::Get(i));
    }

    fn flush(&mut self, now: u64, io: &mut Io<Timer>) {
        while let Some(i) = self.offline.pop_front() {
            if self.step[i] == Step::Queued {
                self.r.flushed += 1;
                let waited = bn::grouped((now - self.reqs[i].0) as i64);
                self.log_client(
                    "flushed",
                    i,
                    now,
                    &format!(
                        "→ MaxRetriesPerRequestError, offline queue-তে {waited} ms পরে → loader()"
                    ),
                );
                self.load(i, false, io);
            }
        }
    }

    fn result(&self, seconds: u32) -> FailureLevel {
        let mut r = self.r.clone();
        let mut lat: Vec<u64> = (0..self.reqs.len())
            .filter(|&i| self.step[i] == Step::Done)
            .map(|i| self.done_ms[i])
            .collect();
        lat.sort_unstable();
        r.requests = lat.len() as u32;
        let rank = |q: f64| -> u64 {
            if lat.is_empty() {
                return 0;
            }
            let k = libm::ceil(q * lat.len() as f64) as usize;
            lat[k.clamp(1, lat.len()) - 1]
        };
        r.p50_ms = rank(0.5);
        r.p99_ms = rank(0.99);
        r.max_ms = lat.last().copied().unwrap_or(0);
        r.mean_ms = if lat.is_empty() {
            0.0
        } else {
            lat.iter().sum::<u64>() as f64 / lat.len() as f64
        };
        for &l in &lat {
            let b = BUCKETS.iter().position(|&b| l < b).unwrap_or(BUCKETS.len());
            r.hist[b] += 1;
        }
        r.db_qps = f64::from(r.db_queries) / f64::from(seconds.max(1));
        r
    }
}

impl Model for FailureModel {
    type Timer = Timer;

    fn on_timer(&mut self, timer: Timer, io: &mut Io<Timer>) {
        let now = io.now();
        match timer {
            Timer::Arrive(i) => self.arrive(i, io),
            Timer::Db(i) => {
                if self.step[i] == (Step::Db { write: true }) {
                    self.step[i] = Step::Set;
                    let k = self.reqs[i].1;
                    let cmd: Command = vec![
                        b"SET".to_vec(),
                        key(k),
                        value(k),
                        b"EX".to_vec(),
                        self.ttl_s.to_string().into_bytes(),
                    ];
                    let op = io.send_timeout(0, cmd, COMMAND_TIMEOUT_MS);
                    self.ops.insert(op, OpFor::Set(i));
                } else {
                    self.finish(i, now);
                }
            }
            Timer::Timeout(i) => {
                if self.step[i] == Step::Queued {
                    self.r.timed_out += 1;
                    self.log_client(
                        "queued-timeout",
                        i,
                        now,
                        "→ Command timed out: offline queue-তে ১,৫০০ ms বসে → loader()",
                    );
                    self.load(i, false, io);
                }
            }
            Timer::Reconnect => {
                if self.answered < self.reqs.len() {
                    self.r.reconnects += 1;
                    let op = io.send_words(1, &["PING"]);
                    self.ops.insert(op, OpFor::Connect);
                }
            }
        }
    }

    fn on_reply(&mut self, op: OpId, _actor: usize, outcome: Outcome, io: &mut Io<Timer>) {
        let now = io.now();
        let Some(what) = self.ops.remove(&op) else {
            return;
        };
        match what {
            OpFor::Get(i) => match outcome {
                Outcome::Reply(r @ Reply::Bulk(_)) => {
                    self.r.hits += 1;
                    self.log_get("hit", i, now, Ok(r), "hit");
                    self.finish(i, now);
                }
                Outcome::Reply(r) => {
                    self.r.misses += 1;
                    self.log_get("miss", i, now, Ok(r), "miss → loader() → SET EX");
                    self.load(i, true, io);
                }
                Outcome::TimedOut => {
                    self.r.timed_out += 1;
                    self.log_get(
                        "timeout",
                        i,
                        now,
                        Err(NoReply::TimedOut(COMMAND_TIMEOUT_MS)),
                        "Command timed out → catch → loader()",
                    );
                    self.load(i, false, io);
                }
                Outcome::Refused => {
                    self.r.rejected += 1;
                    self.log_get("refused", i, now, Err(NoReply::Refused), "→ loader()");
                    self.load(i, false, io);
                }
            },
            OpFor::Set(i) => {
                let k = self.reqs[i].1;
                let reply = match outcome {
                    Outcome::Reply(r) => Ok(r),
                    Outcome::TimedOut => Err(NoReply::TimedOut(COMMAND_TIMEOUT_MS)),
                    Outcome::Refused => Err(NoReply::Refused),
                };
                self.log(
                    "set",
                    CmdLine {
                        at_ms: now,
                        actor: format!("req {i}"),
                        cmd: vec![
                            "SET".to_string(),
                            format!("cache:product:{k}"),
                            "…".to_string(),
                            "EX".to_string(),
                            self.ttl_s.to_string(),
                        ],
                        reply,
                        note: String::new(),
                        rtt_us: None,
                    },
                );
                self.finish(i, now);
            }
            OpFor::Connect => {
                // connect() refused → closeHandler: retryAttempts + 1, the next try after
                // retryStrategy's wait, and every (maxRetriesPerRequest + 1)th a flush.
                self.attempts += 1;
                let wait = (u64::from(self.attempts) * 50).min(RETRY_CAP_MS);
                io.after(wait, Timer::Reconnect);
                let flush = self.attempts % (MAX_RETRIES_PER_REQUEST + 1) == 0;
                let note = format!(
                    "connect → ECONNREFUSED: retryAttempts {}{}; আবার চেষ্টা {} ms পরে",
                    self.attempts,
                    if flush {
                        ", offline queue খালি (flush)"
                    } else {
                        ""
                    },
                    bn::grouped(wait as i64)
                );
                self.log(
                    if flush { "connect-flush" } else { "connect" },
                    CmdLine {
                        at_ms: now,
                        actor: "ioredis".to_string(),
                        cmd: Vec::new(),
                        reply: Err(NoReply::Refused),
                        note,
                        rtt_us: None,
                    },
                );
                if flush {
                    self.flush(now, io);
                }
            }
        }
    }

    fn actor_name(&self, actor: usize) -> String {
        if actor == 0 {
            "redisCacheConnection".into()
        } else {
            "reconnect".into()
        }
    }
}

/// The requests: `rate × seconds` Poisson arrivals at `rate` per second and a uniform key
/// each, from the seed (the same for every level): (arrival ms, key) per request, the log's
/// `req <i>` being the i-th.
pub fn requests(p: &FailureParams) -> Vec<(u64, u32)> {
    let n = p.requests();
    let mut rng = Mulberry32::new(p.seed);
    let mut t = 0.0f64;
    let mean_gap = 1_000.0 / f64::from(p.rate.max(1));
    (0..n)
        .map(|_| {
            let u = rng.next_f64();
            t += -libm::log(1.0 - u) * mean_gap;
            (libm::floor(t) as u64, rng.below(p.keys.max(1)))
        })
        .collect()
}

/// One level's run as a [`Scenario`].
pub struct LevelScenario {
    level: Level,
    p: FailureParams,
}

impl Scenario for LevelScenario {
    type Model = FailureModel;
    type Output = FailureLevel;
    const EVENTS: usize = 8_192;

    fn world<B: Backend>(&mut self, mut backend: B, _live: bool) -> World<B, FailureModel> {
        let p = &self.p;
        // The warm cache: every key with a seeded part of its TTL left.
        let mut rng = Mulberry32::new(p.seed ^ 0x9E37_79B9);
        for k in 0..p.keys {
            let left = 1 + u64::from(rng.below(p.ttl.max(1) as u32));
            let cmd = vec![
                b"SET".to_vec(),
                key(k),
                value(k),
                b"EX".to_vec(),
                left.to_string().into_bytes(),
            ];
            let _ = backend.send(0, 0, 0, &cmd);
        }
        let model = FailureModel::new(self.level, p, requests(p));
        let mut world = World::with_model(p.seed, backend, model);
        world.set_trace(false);
        world.set_health(link(self.level));
        world.io_mut().set_hop(0, Hop::symmetric(1));
        world.io_mut().set_hop(1, Hop::symmetric(1));
        world.start(|m, io| m.start(io));
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, FailureModel>) -> f64 {
        let m = world.model();
        if m.reqs.is_empty() {
            1.0
        } else {
            m.answered as f64 / m.reqs.len() as f64
        }
    }

    fn output<B: Backend>(
        &self,
        world: &World<B, FailureModel>,
        _live: Option<&[u32]>,
    ) -> FailureLevel {
        world.model().result(self.p.seconds)
    }
}

/// One level's run of `p` to the end.
pub fn run_level(p: &FailureParams, level: Level) -> FailureLevel {
    SimRun::new(
        LevelScenario {
            level,
            p: p.clone(),
        },
        p.seed,
    )
    .finish()
}

/// The three levels of `p`.
pub fn run(p: &FailureParams) -> FailureOutput {
    let mut r = Levels::new(p);
    while !r.is_done() {
        r.step();
    }
    r.output()
}

/// The three levels one after another, a slice of events at a time (the worker's run).
pub struct Levels {
    p: FailureParams,
    current: Option<SimRun<LevelScenario>>,
    done: Vec<FailureLevel>,
}

impl Levels {
    /// Starts the healthy level.
    pub fn new(p: &FailureParams) -> Self {
        Levels {
            p: p.clone(),
            current: Some(SimRun::new(
                LevelScenario {
                    level: Level::Healthy,
                    p: p.clone(),
                },
                p.seed,
            )),
            done: Vec::new(),
        }
    }
}

impl Run for Levels {
    type Part = ();
    type Output = FailureOutput;

    fn step(&mut self) -> Option<()> {
        let cur = self.current.as_mut()?;
        if cur.steps(LevelScenario::EVENTS) {
            self.done.push(cur.output());
            self.current = Level::ALL.get(self.done.len()).map(|&level| {
                SimRun::new(
                    LevelScenario {
                        level,
                        p: self.p.clone(),
                    },
                    self.p.seed,
                )
            });
        }
        None
    }

    fn is_done(&self) -> bool {
        self.current.is_none()
    }

    fn progress(&self) -> f64 {
        let part = self.current.as_ref().map_or(0.0, Run::progress);
        (self.done.len() as f64 + part) / Level::ALL.len() as f64
    }

    fn output(&mut self) -> FailureOutput {
        FailureOutput {
            focus: self.p.focus(),
            requests: self.p.requests() as u32,
            seconds: self.p.seconds,
            db_ms: self.p.db,
            offline_queue: self.p.offline_queue(),
            levels: self.done.clone(),
        }
    }
}
