//! The round-trips lab's simulation: the clients as one [`Model`], each marking its viewer
//! the chosen way, a batch (one round trip) at a time; an observer reads the room when every
//! client is done; what the world's trace shows of each way.

use super::output::{ClientEnd, Ran, RoundTripsOutput, Trip, WayOutcome};
use super::params::{RoundTripsParams, Way};
use super::{HLL, MAX_TRIES, ROOM, ROOM_TTL};
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::{scripts, Reply, EPOCH_MS};
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Backend, Command, Hop, Io, Model, OpId, Outcome, What, World};

/// Where a client is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Not started.
    Idle,
    /// One by one: waiting for PFADD, ZCARD, ZADD, EXPIRE.
    Pfadd,
    Zcard,
    Zadd,
    Expire,
    /// A pipeline, a transaction or a script: waiting for its batch.
    Batch,
    /// WATCH: waiting for WATCH + ZCARD, or for MULTI … EXEC.
    Watched,
    Exec,
    Done,
}

struct Client {
    step: Step,
    batch: u32,
    /// Replies still to come in this batch.
    waiting: usize,
    /// This batch's replies, in order.
    got: Vec<Reply>,
    started: u64,
    trip_sent: u64,
    failed: bool,
    aborted: u32,
    tries: u32,
}

/// The model's timers: a client starts; the observer reads the room.
#[derive(Clone, Copy, Debug)]
pub enum Tick {
    /// Client `.0` starts.
    Start(usize),
}

/// Every client, the observer, and what they recorded.
pub struct Clients {
    way: Way,
    p: RoundTripsParams,
    clients: Vec<Client>,
    trips: Vec<Trip>,
    /// The observer's replies: ZCARD, PFCOUNT, TTL.
    observed: Vec<Reply>,
    observing: bool,
}

impl Clients {
    fn member(c: usize) -> String {
        format!("new-{}", c + 1)
    }

    fn send_batch(&mut self, c: usize, cmds: Vec<Command>, io: &mut Io<Tick>) {
        let cl = &mut self.clients[c];
        cl.waiting = cmds.len();
        cl.got.clear();
        cl.trip_sent = io.now();
        for k in cmds {
            io.send(c, k);
        }
    }

    fn start(&mut self, c: usize, io: &mut Io<Tick>) {
        let now = io.now();
        self.clients[c].started = now;
        let m = Self::member(c);
        let score = (EPOCH_MS + now as i64).to_string();
        let limit = self.p.limit.to_string();
        let ttl = ROOM_TTL.to_string();
        let four = || {
            vec![
                cmd(&["PFADD", HLL, &m]),
                cmd(&["ZCARD", ROOM]),
                cmd(&["ZADD", ROOM, &score, &m]),
                cmd(&["EXPIRE", ROOM, &ttl]),
            ]
        };
        let (step, batch) = match self.way {
            Way::OneByOne => (Step::Pfadd, vec![cmd(&["PFADD", HLL, &m])]),
            Way::Pipeline => (Step::Batch, four()),
            Way::Multi => {
                let mut b = vec![cmd(&["MULTI"])];
                b.extend(four());
                b.push(cmd(&["EXEC"]));
                (Step::Batch, b)
            }
            Way::Watch => (Step::Watched, Self::watch_batch()),
            Way::Script => (
                Step::Batch,
                vec![cmd(&[
                    "EVALSHA",
                    scripts::MARK_ACTIVE.sha1,
                    "2",
                    ROOM,
                    HLL,
                    &m,
                    &score,
                    &limit,
                    &ttl,
                ])],
            ),
        };
        self.clients[c].step = step;
        self.send_batch(c, batch, io);
    }

    fn watch_batch() -> Vec<Command> {
        vec![cmd(&["WATCH", ROOM]), cmd(&["ZCARD", ROOM])]
    }

    /// The batch of client `c` is all back: what next.
    fn next(&mut self, c: usize, io: &mut Io<Tick>) {
        let now = io.now();
        let cl = &mut self.clients[c];
        self.trips.push(Trip {
            client: c as u32,
            sent_ms: cl.trip_sent,
            back_ms: now,
            cmds: cl.got.len() as u32,
        });
        cl.batch += 1;
        let got = std::mem::take(&mut cl.got);
        let m = Self::member(c);
        let score = (EPOCH_MS + cl.started as i64).to_string();
        let ttl = ROOM_TTL.to_string();
        let room_has_space = |r: &Reply| r.as_int().is_some_and(|n| n < i64::from(self.p.limit));
        let first_err = got.iter().any(Reply::is_error);
        let (step, batch): (Step, Vec<Command>) = match cl.step {
            // One by one, an error throws in the client: it stops there.
            Step::Pfadd | Step::Zcard | Step::Zadd | Step::Watched if first_err => {
                cl.failed = true;
                (Step::Done, vec![])
            }
            Step::Pfadd => (Step::Zcard, vec![cmd(&["ZCARD", ROOM])]),
            Step::Zcard if room_has_space(&got[0]) => {
                (Step::Zadd, vec![cmd(&["ZADD", ROOM, &score, &m])])
            }
            Step::Zadd => (Step::Expire, vec![cmd(&["EXPIRE", ROOM, &ttl])]),
            Step::Watched => {
                let mut b = vec![cmd(&["MULTI"]), cmd(&["PFADD", HLL, &m])];
                if room_has_space(&got[1]) {
                    b.push(cmd(&["ZADD", ROOM, &score, &m]));
                    b.push(cmd(&["EXPIRE", ROOM, &ttl]));
                }
                b.push(cmd(&["EXEC"]));
                (Step::Exec, b)
            }
            Step::Exec if got.last() == Some(&Reply::Nil) => {
                cl.aborted += 1;
                cl.tries += 1;
                if cl.tries >= MAX_TRIES {
                    cl.failed = true;
                    (Step::Done, vec![])
                } else {
                    (Step::Watched, Self::watch_batch())
                }
            }
            Step::Batch | Step::Exec | Step::Zcard | Step::Expire => {
                // A pipeline's or a transaction's errors come back with the other replies;
                // a script's error is its only reply.
                cl.failed = got.iter().any(|r| match r {
                    Reply::Error(_) => true,
                    Reply::Array(a) => a.iter().any(Reply::is_error),
                    _ => false,
                });
                (Step::Done, vec![])
            }
            Step::Idle | Step::Done => (Step::Done, vec![]),
        };
        cl.step = step;
        if batch.is_empty() {
            cl.step = Step::Done;
            self.observe_if_all_done(io);
        } else {
            self.send_batch(c, batch, io);
        }
    }

    fn observe_if_all_done(&mut self, io: &mut Io<Tick>) {
        if self.observing || self.clients.iter().any(|c| c.step != Step::Done) {
            return;
        }
        self.observing = true;
        let o = self.clients.len();
        for k in [
            cmd(&["ZCARD", ROOM]),
            cmd(&["PFCOUNT", HLL]),
            cmd(&["TTL", ROOM]),
        ] {
            io.send(o, k);
        }
    }
}

impl Model for Clients {
    type Timer = Tick;

    fn on_timer(&mut self, Tick::Start(c): Tick, io: &mut Io<Tick>) {
        self.start(c, io);
    }

    fn on_reply(&mut self, _op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Tick>) {
        let reply = match outcome {
            Outcome::Reply(r) => r,
            Outcome::Refused | Outcome::TimedOut => Reply::err("ERR no reply"),
        };
        if actor == self.clients.len() {
            self.observed.push(reply);
            return;
        }
        let cl = &mut self.clients[actor];
        cl.got.push(reply);
        cl.waiting -= 1;
        if cl.waiting == 0 {
            self.next(actor, io);
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        super::output::client_name(actor as u32)
    }
}

/// One way as a [`Scenario`].
pub struct WayScenario {
    way: Way,
    p: RoundTripsParams,
    starts: Vec<u64>,
}

/// The clients' start times: seeded, in `0..=spread`.
fn starts(p: &RoundTripsParams) -> Vec<u64> {
    let mut rng = Mulberry32::new(p.seed ^ 0x0015_0415);
    (0..p.clients)
        .map(|_| {
            if p.spread == 0 {
                0
            } else {
                u64::from(rng.below(p.spread as u32 + 1))
            }
        })
        .collect()
}

/// The room before the clients come: `room` members (or a string, when broken) and the same
/// viewers in the HyperLogLog, written at time 0 by client 0 (not drawn).
fn prefill<B: Backend>(backend: &mut B, p: &RoundTripsParams) {
    let mut zadd = cmd(&["ZADD", ROOM]);
    let mut pfadd = cmd(&["PFADD", HLL]);
    for i in 0..p.room {
        zadd.push(EPOCH_MS.to_string().into_bytes());
        let m = format!("viewer-{}", i + 1).into_bytes();
        zadd.push(m.clone());
        pfadd.push(m);
    }
    if p.broken_room() {
        backend.send(0, usize::MAX, 0, &cmd(&["SET", ROOM, "oops"]));
    } else if p.room > 0 {
        backend.send(0, usize::MAX, 0, &zadd);
    }
    backend.send(0, usize::MAX, 0, &pfadd);
}

impl Scenario for WayScenario {
    type Model = Clients;
    type Output = WayOutcome;

    fn world<B: Backend>(&mut self, mut backend: B, _live: bool) -> World<B, Clients> {
        prefill(&mut backend, &self.p);
        let n = self.p.clients as usize;
        let model = Clients {
            way: self.way,
            p: self.p.clone(),
            clients: (0..n)
                .map(|_| Client {
                    step: Step::Idle,
                    batch: 0,
                    waiting: 0,
                    got: Vec::new(),
                    started: 0,
                    trip_sent: 0,
                    failed: false,
                    aborted: 0,
                    tries: 0,
                })
                .collect(),
            trips: Vec::new(),
            observed: Vec::new(),
            observing: false,
        };
        let mut world = World::with_model(self.p.seed, backend, model);
        let hop = Hop {
            to_redis_ms: self.p.rtt / 2,
            from_redis_ms: self.p.rtt - self.p.rtt / 2,
            jitter_ms: 0,
        };
        let starts = self.starts.clone();
        world.start(|_, io| {
            for (c, &s) in starts.iter().enumerate() {
                io.set_hop(c, hop);
                // After the prefill (time 0), so a client never lands before it.
                io.at(s + 1, Tick::Start(c));
            }
            io.set_hop(n, hop);
        });
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, Clients>) -> f64 {
        let m = world.model();
        m.clients.iter().filter(|c| c.step == Step::Done).count() as f64
            / (m.clients.len() + 1) as f64
    }

    fn output<B: Backend>(&self, world: &World<B, Clients>, _live: Option<&[u32]>) -> WayOutcome {
        analyse(self.way, &self.p, world)
    }
}

fn words(c: &Command) -> Vec<String> {
    c.iter()
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

/// What the world's trace shows: the commands in Redis' order, each update's round trips,
/// who ended in the set, what ran inside whose update.
fn analyse<B: Backend>(way: Way, p: &RoundTripsParams, world: &World<B, Clients>) -> WayOutcome {
    let m = world.model();
    let n = m.clients.len() as u32;
    // The batch of each client's commands, in send order: trips are in order per client.
    let mut trip_no = vec![0u32; n as usize + 1];
    let mut left_in_trip = vec![0u32; n as usize + 1];
    let mut trips_of: Vec<Vec<&Trip>> = vec![Vec::new(); n as usize];
    for t in &m.trips {
        trips_of[t.client as usize].push(t);
    }
    let mut ran: Vec<Ran> = Vec::new();
    for e in world.trace() {
        let What::Exec {
            cmd,
            reply: Some(reply),
        } = &e.what
        else {
            continue;
        };
        let c = e.actor as u32;
        let batch = if c < n {
            let i = c as usize;
            if left_in_trip[i] == 0 {
                if let Some(t) = trips_of[i].get(trip_no[i] as usize) {
                    left_in_trip[i] = t.cmds;
                }
                trip_no[i] += 1;
            }
            left_in_trip[i] = left_in_trip[i].saturating_sub(1);
            trip_no[i] - 1
        } else {
            0
        };
        ran.push(Ran {
            at_ms: e.at_ms,
            client: c,
            batch,
            cmd: words(cmd),
            reply: reply.clone(),
            between: false,
            adds: 0,
        });
    }
    // Inside whose update did another client's command run?
    let mut between = 0;
    for c in 0..n {
        let mine: Vec<usize> = (0..ran.len()).filter(|&i| ran[i].client == c).collect();
        if let (Some(&first), Some(&last)) = (mine.first(), mine.last()) {
            for r in &mut ran[first..last] {
                if r.client != c && r.client < n {
                    r.between = true;
                    between += 1;
                }
            }
        }
    }
    let observed = |i: usize| m.observed.get(i).cloned().unwrap_or(Reply::Nil);
    let room_after = observed(0).as_int();
    // What each command added to the room: a ZADD alone, inside EXEC (the commands the
    // client queued after its last MULTI, matched with EXEC's array) or in the script.
    for i in 0..ran.len() {
        let r = &ran[i];
        let c = r.client;
        let added = c < n
            && match r.cmd.first().map(String::as_str) {
                Some("ZADD") => r.reply.as_int() == Some(1),
                Some("EXEC") => match &r.reply {
                    Reply::Array(a) => queued_before(&ran, r, c).iter().zip(a).any(|(k, rep)| {
                        k.first().map(String::as_str) == Some("ZADD") && rep.as_int() == Some(1)
                    }),
                    _ => false,
                },
                Some("EVALSHA") => r.reply.as_int() == Some(1),
                _ => false,
            };
        ran[i].adds = u8::from(added);
    }
    let members_end: Vec<bool> = (0..n)
        .map(|c| ran.iter().any(|r| r.client == c && r.adds > 0))
        .collect();
    let clients: Vec<ClientEnd> = m
        .clients
        .iter()
        .enumerate()
        .map(|(i, cl)| {
            let mine: Vec<&Trip> = m.trips.iter().filter(|t| t.client == i as u32).collect();
            ClientEnd {
                client: i as u32,
                trips: mine.len() as u32,
                took_ms: mine.last().map_or(0, |t| t.back_ms - cl.started),
                in_set: members_end[i],
                failed: cl.failed,
                aborted: cl.aborted,
            }
        })
        .collect();
    let errors = ran
        .iter()
        .filter(|r| r.client < n)
        .map(|r| match &r.reply {
            Reply::Error(_) => 1,
            Reply::Array(a) => a.iter().filter(|x| x.is_error()).count() as u32,
            _ => 0,
        })
        .sum();
    WayOutcome {
        mode: way,
        trips_total: clients.iter().map(|c| c.trips).sum(),
        slowest_ms: clients.iter().map(|c| c.took_ms).max().unwrap_or(0),
        over: room_after.map_or(0, |r| (r - i64::from(p.limit)).max(0)),
        room_after,
        hll_after: observed(1).as_int().unwrap_or(0),
        room_ttl: observed(2).as_int().unwrap_or(-2),
        between,
        errors,
        ran,
        trips: m.trips.clone(),
        clients,
    }
}

/// The commands client `c` queued after its last `MULTI` before `exec`.
fn queued_before(ran: &[Ran], exec: &Ran, c: u32) -> Vec<Vec<String>> {
    let mine: Vec<&Ran> = ran
        .iter()
        .filter(|r| r.client == c && r.at_ms <= exec.at_ms)
        .collect();
    let end = mine
        .iter()
        .rposition(|r| std::ptr::eq(*r, exec))
        .unwrap_or(mine.len());
    let start = mine[..end]
        .iter()
        .rposition(|r| r.cmd.first().map(String::as_str) == Some("MULTI"))
        .map_or(0, |i| i + 1);
    mine[start..end].iter().map(|r| r.cmd.clone()).collect()
}

/// Way `way` of `p` as a [`Scenario`] (on any backend: the differential test runs it on a
/// real Redis).
pub fn scenario(p: &RoundTripsParams, way: Way) -> WayScenario {
    WayScenario {
        way,
        p: p.clone(),
        starts: starts(p),
    }
}

/// Way `way` of `p`, simulated to the end.
pub fn run_mode(p: &RoundTripsParams, way: Way) -> WayOutcome {
    SimRun::new(scenario(p, way), p.seed).finish()
}

/// Every way of `p`.
pub fn run(p: &RoundTripsParams) -> RoundTripsOutput {
    let ways = Way::ALL.iter().map(|&w| run_mode(p, w)).collect();
    RoundTripsOutput {
        params: p.clone(),
        starts: starts(p),
        ways,
    }
}
