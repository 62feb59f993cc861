//! The Pub/Sub lab's simulation: the instances as a world model — each has a publishing and a
//! subscribing connection (actors `2i` and `2i + 1`), its users' rooms, and what it does with
//! a message Redis pushes to it — and the run: the three adapters one after the other on
//! fresh SimRedis worlds (the chosen one first, recorded), stepped a slice of events at a
//! time.

use super::output::{Bucket, Fate, Instance, Line, PubSubOutput, Push, Summary};
use super::params::{Adapter, PubSubParams};
use crate::labs::lab::Run;
use crate::labs::log::{CmdLine, NoReply};
use crate::redis::{ClientId, Reply, SimRedis};
use crate::rng::{Mulberry32, Zipf};
use crate::world::{cmd, ActorId, Command, Hop, Io, Model, OpId, Outcome, World};

/// The adapter's channel prefix for the namespace `/` (`socket.io#/#`).
pub const PREFIX: &str = "socket.io#/#";
/// Users join in the first this-many ms.
pub const JOIN_MS: u64 = 1000;
/// Messages start here, ms (every join and subscription done).
pub const START_MS: u64 = 1500;
/// One-way network latency between an instance and Redis, ms.
pub const HOP_MS: u64 = 1;
/// The timeline's bucket, ms.
pub const BUCKET_MS: u64 = 500;
/// Log lines kept per bucket: commands, and pushes.
const LOG_CMDS: u32 = 3;
const LOG_PUSHES: u32 = 3;

/// The model's own events.
#[derive(Debug)]
pub enum Timer {
    /// User `u` connects and joins its room.
    Join(u32),
    /// Message `k` is sent.
    Publish(u32),
    /// A message Redis pushed reaches instance `inst`'s subscriber.
    Deliver {
        /// The instance.
        inst: u16,
        /// The message.
        msg: u32,
        /// `message`, `pmessage` or `smessage`.
        kind: &'static str,
    },
    /// api-1's subscriber connection drops.
    Away,
    /// It is back and subscribes again.
    Back,
}

struct Msg {
    room: u32,
    from: u16,
    at_ms: u64,
    expected: u32,
    reached: u32,
}

/// What the chosen adapter's run records for the view.
pub struct Recorder {
    /// The timeline's buckets.
    pub buckets: Vec<Bucket>,
    /// The sampled log.
    pub log: Vec<Line>,
    logged: Vec<(u32, u32)>,
}

/// The instances of one run.
pub struct PubSubModel {
    mode: Adapter,
    n: usize,
    rooms: usize,
    user_room: Vec<u32>,
    user_inst: Vec<u16>,
    join_at: Vec<u64>,
    members: Vec<u32>,
    room_total: Vec<u32>,
    total_msgs: u32,
    rate: u64,
    senders: Mulberry32,
    msgs: Vec<Msg>,
    away: Option<(u64, u64)>,
    away_now: bool,
    /// A subscriber connection to close now (the run tells SimRedis).
    pub drop_client: Option<ClientId>,
    /// Publishes sent and not answered yet (while any is, the run reads the inboxes).
    pub in_flight: u32,
    /// The totals so far.
    pub sum: Summary,
    subs_at_start: Vec<u32>,
    /// The recording, for the chosen adapter.
    pub rec: Option<Recorder>,
}

/// The client id SimRedis sees for actor `a`.
pub fn client_of(a: ActorId) -> ClientId {
    a as ClientId + 1
}

/// Instance `i`'s subscribing connection, as a client.
pub fn sub_client(i: usize) -> ClientId {
    client_of(2 * i + 1)
}

/// The room's name.
pub fn room_name(r: u32) -> String {
    format!("r{}", r + 1)
}

impl PubSubModel {
    /// The instances of `p` with `adapter`, their users drawn from the seed (the same users
    /// and messages for every adapter); `record` keeps the timeline and the log.
    pub fn new(p: &PubSubParams, adapter: Adapter, record: bool) -> Self {
        let mut rng = Mulberry32::new(p.seed);
        let zipf = Zipf::new(p.rooms, p.alpha);
        let users = p.users as usize;
        let mut user_room = Vec::with_capacity(users);
        let mut user_inst = Vec::with_capacity(users);
        let mut join_at = Vec::with_capacity(users);
        for _ in 0..users {
            user_room.push(zipf.sample(&mut rng));
            user_inst.push(rng.below(p.instances) as u16);
            join_at.push(u64::from(rng.below(JOIN_MS as u32)));
        }
        let stop = START_MS + u64::from(p.seconds) * 1000;
        let away = (p.away > 0).then(|| (START_MS + p.away_at, START_MS + p.away_at + p.away));
        let end = stop.max(away.map_or(0, |a| a.1)) + BUCKET_MS;
        let rec = record.then(|| {
            let n = end.div_ceil(BUCKET_MS) as usize;
            Recorder {
                buckets: (0..n)
                    .map(|b| Bucket {
                        to_ms: (b as u64 + 1) * BUCKET_MS,
                        per_instance: vec![(0, 0); p.instances as usize],
                        ..Bucket::default()
                    })
                    .collect(),
                log: Vec::new(),
                logged: vec![(0, 0); n],
            }
        });
        PubSubModel {
            mode: adapter,
            n: p.instances as usize,
            rooms: p.rooms as usize,
            user_room,
            user_inst,
            join_at,
            members: vec![0; p.instances as usize * p.rooms as usize],
            room_total: vec![0; p.rooms as usize],
            total_msgs: p.rate * p.seconds,
            rate: u64::from(p.rate),
            senders: Mulberry32::new(p.seed ^ 0x5EED_0013),
            msgs: Vec::new(),
            away,
            away_now: false,
            drop_client: None,
            in_flight: 0,
            sum: Summary::new(adapter, u64::from(p.seconds) * 1000),
            subs_at_start: vec![0; p.instances as usize],
            rec,
        }
    }

    /// The first timers and subscriptions.
    pub fn start(&mut self, io: &mut Io<Timer>) {
        for i in 0..self.n {
            let c = self.subscribe_all(i);
            self.send(io, 2 * i + 1, c);
        }
        for u in 0..self.user_room.len() {
            io.at(self.join_at[u], Timer::Join(u as u32));
        }
        if self.total_msgs > 0 {
            io.at(START_MS, Timer::Publish(0));
        }
        if let Some((from, to)) = self.away {
            io.at(from, Timer::Away);
            io.at(to, Timer::Back);
        }
    }

    fn member(&self, i: usize, r: u32) -> u32 {
        self.members[i * self.rooms + r as usize]
    }

    /// What instance `i` subscribes to when it connects (with its rooms so far).
    fn subscribe_all(&self, i: usize) -> Command {
        match self.mode {
            Adapter::Plain => cmd(&["PSUBSCRIBE", &format!("{PREFIX}*")]),
            Adapter::Static => cmd(&["SSUBSCRIBE", PREFIX]),
            Adapter::Dynamic => {
                let mut c = cmd(&["SSUBSCRIBE", PREFIX]);
                for r in 0..self.rooms as u32 {
                    if self.member(i, r) > 0 {
                        c.push(format!("{PREFIX}{}#", room_name(r)).into_bytes());
                    }
                }
                c
            }
        }
    }

    fn send(&mut self, io: &mut Io<Timer>, actor: ActorId, c: Command) {
        self.sum.commands += 1;
        if actor % 2 == 1 {
            self.sum.sub_commands += 1;
        }
        io.send(actor, c);
    }

    fn bucket(&self, t: u64) -> usize {
        let n = self.rec.as_ref().map_or(1, |r| r.buckets.len());
        ((t / BUCKET_MS) as usize).min(n - 1)
    }

    fn log(&mut self, t: u64, line: Line) {
        let b = self.bucket(t);
        let cmd = matches!(line, Line::Cmd(_));
        if let Some(rec) = self.rec.as_mut() {
            let (c, p) = &mut rec.logged[b];
            let slot = if cmd { c } else { p };
            if *slot < if cmd { LOG_CMDS } else { LOG_PUSHES } {
                *slot += 1;
                rec.log.push(line);
            }
        }
    }

    fn with_bucket(&mut self, t: u64, f: impl FnOnce(&mut Bucket)) {
        let b = self.bucket(t);
        if let Some(rec) = self.rec.as_mut() {
            f(&mut rec.buckets[b]);
        }
    }

    fn join(&mut self, u: usize, io: &mut Io<Timer>) {
        let (r, i) = (self.user_room[u], self.user_inst[u] as usize);
        let k = i * self.rooms + r as usize;
        self.members[k] += 1;
        self.room_total[r as usize] += 1;
        // "create-room": the sharded adapter's dynamic mode subscribes to the room's channel.
        if self.members[k] == 1 && self.mode == Adapter::Dynamic && !(self.away_now && i == 0) {
            let ch = format!("{PREFIX}{}#", room_name(r));
            self.send(io, 2 * i + 1, cmd(&["SSUBSCRIBE", &ch]));
        }
    }

    fn publish(&mut self, k: u32, io: &mut Io<Timer>) {
        let now = io.now();
        if k == 0 {
            for i in 0..self.n {
                let s = match self.mode {
                    Adapter::Dynamic => {
                        1 + (0..self.rooms as u32)
                            .filter(|&r| self.member(i, r) > 0)
                            .count()
                    }
                    _ => 1,
                };
                self.subs_at_start[i] = s as u32;
            }
            self.sum.subscriptions = self.subs_at_start.iter().map(|&s| u64::from(s)).sum();
        }
        let u = self.senders.below(self.user_room.len() as u32) as usize;
        let (r, i) = (self.user_room[u], self.user_inst[u] as usize);
        let expected = self.room_total[r as usize] - 1;
        let local = self.member(i, r) - 1;
        let id = self.msgs.len() as u32;
        self.msgs.push(Msg {
            room: r,
            from: i as u16,
            at_ms: now,
            expected,
            reached: local,
        });
        self.sum.publishes += 1;
        self.sum.expected += u64::from(expected);
        self.sum.reached += u64::from(local);
        self.with_bucket(now, |b| {
            b.publishes += 1;
            b.reached += local;
        });
        let payload = format!(
            "{{\"uid\":\"api-{}\",\"rooms\":[\"{}\"],\"msg\":{id}}}",
            i + 1,
            room_name(r)
        );
        let room_ch = format!("{PREFIX}{}#", room_name(r));
        let c = match self.mode {
            Adapter::Plain => cmd(&["PUBLISH", &room_ch, &payload]),
            Adapter::Static => cmd(&["SPUBLISH", PREFIX, &payload]),
            Adapter::Dynamic => cmd(&["SPUBLISH", &room_ch, &payload]),
        };
        self.in_flight += 1;
        self.send(io, 2 * i, c);
        if k + 1 < self.total_msgs {
            let next = START_MS + u64::from(k + 1) * 1000 / self.rate;
            io.at(next, Timer::Publish(k + 1));
        }
    }

    /// A push read from instance `inst`'s subscriber: it reaches the instance a hop later.
    pub fn pushed(&mut self, inst: usize, reply: &Reply, io: &mut Io<Timer>) {
        let Reply::Array(parts) = reply else { return };
        let kind = match parts.first().and_then(Reply::as_bulk) {
            Some(b"smessage") => "smessage",
            Some(b"pmessage") => "pmessage",
            _ => "message",
        };
        let Some(payload) = parts.last().and_then(Reply::as_bulk) else {
            return;
        };
        let Some(msg) = msg_id(payload) else { return };
        io.after(
            HOP_MS,
            Timer::Deliver {
                inst: inst as u16,
                msg,
                kind,
            },
        );
    }

    fn deliver(&mut self, inst: usize, msg: u32, kind: &'static str, now: u64) {
        let (room, from) = {
            let m = &self.msgs[msg as usize];
            (m.room, m.from)
        };
        let fate = if from as usize == inst {
            Fate::Echo
        } else {
            match self.member(inst, room) {
                0 => Fate::NoMember,
                n => Fate::Delivered(n),
            }
        };
        self.sum.deliveries += 1;
        match fate {
            Fate::Delivered(n) => {
                self.sum.useful += 1;
                self.sum.reached += u64::from(n);
                self.msgs[msg as usize].reached += n;
            }
            Fate::Echo => {
                self.sum.wasted += 1;
                self.sum.echo += 1;
            }
            Fate::NoMember => {
                self.sum.wasted += 1;
                self.sum.no_member += 1;
            }
        }
        let (wasted, reached) = match fate {
            Fate::Delivered(n) => (0, n),
            _ => (1, 0),
        };
        self.with_bucket(now, |b| {
            b.deliveries += 1;
            b.wasted += wasted;
            b.reached += reached;
            b.per_instance[inst].0 += 1;
            b.per_instance[inst].1 += wasted;
        });
        let channel = match self.mode {
            Adapter::Static => PREFIX.to_string(),
            _ => format!("{PREFIX}{}#", room_name(room)),
        };
        self.log(
            now,
            Line::Push(Push {
                at_ms: now,
                instance: inst as u16,
                kind: kind.into(),
                channel,
                fate,
            }),
        );
    }

    /// After the run: the sockets that never got their message, by the bucket it was
    /// published in; the instances.
    pub fn finish(&mut self) -> Vec<Instance> {
        let mut lost_total = 0;
        let lost: Vec<(u64, u32)> = self
            .msgs
            .iter()
            .map(|m| (m.at_ms, m.expected - m.reached.min(m.expected)))
            .collect();
        for (at, l) in lost {
            lost_total += u64::from(l);
            self.with_bucket(at, |b| b.lost += l);
        }
        self.sum.lost = lost_total;
        if let (Some((from, to)), Some(rec)) = (self.away, self.rec.as_mut()) {
            for b in &mut rec.buckets {
                b.away = b.to_ms > from && b.to_ms <= to;
            }
        }
        (0..self.n)
            .map(|i| Instance {
                name: format!("api-{}", i + 1),
                users: self.user_inst.iter().filter(|&&x| x as usize == i).count() as u32,
                rooms: (0..self.rooms as u32)
                    .filter(|&r| self.member(i, r) > 0)
                    .count() as u32,
                subscriptions: self.subs_at_start[i],
            })
            .collect()
    }

    /// Rooms: the biggest room's members, rooms with anyone in them, rooms on every instance.
    pub fn rooms(&self) -> (u32, u32, u32) {
        let biggest = self.room_total.iter().copied().max().unwrap_or(0);
        let used = self.room_total.iter().filter(|&&t| t > 0).count() as u32;
        let everywhere = (0..self.rooms as u32)
            .filter(|&r| (0..self.n).all(|i| self.member(i, r) > 0))
            .count() as u32;
        (biggest, used, everywhere)
    }

    /// When the messages stop, and api-1's time away.
    pub fn window(&self) -> (u64, Option<(u64, u64)>) {
        (
            START_MS + (u64::from(self.total_msgs) * 1000).div_ceil(self.rate.max(1)),
            self.away,
        )
    }
}

fn msg_id(payload: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(payload).ok()?;
    let at = s.find("\"msg\":")? + 6;
    let digits: String = s[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

impl Model for PubSubModel {
    type Timer = Timer;

    fn on_timer(&mut self, t: Timer, io: &mut Io<Timer>) {
        match t {
            Timer::Join(u) => self.join(u as usize, io),
            Timer::Publish(k) => self.publish(k, io),
            Timer::Deliver { inst, msg, kind } => {
                self.deliver(inst as usize, msg, kind, io.now());
            }
            Timer::Away => {
                self.away_now = true;
                self.drop_client = Some(sub_client(0));
            }
            Timer::Back => {
                self.away_now = false;
                let c = self.subscribe_all(0);
                self.send(io, 1, c);
            }
        }
    }

    fn on_reply(&mut self, op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Timer>) {
        if actor % 2 == 0 {
            self.in_flight = self.in_flight.saturating_sub(1);
            if let Outcome::Reply(r) = &outcome {
                self.sum.receivers += r.as_int().map_or(0, |n| n.max(0) as u64);
            }
        }
        if self.rec.is_none() {
            return;
        }
        let at = io.now().saturating_sub(HOP_MS);
        let reply = match outcome {
            Outcome::Reply(r) => Ok(r),
            Outcome::Refused => Err(NoReply::Refused),
            Outcome::TimedOut => Err(NoReply::TimedOut(0)),
        };
        let line = CmdLine::new(at, self.actor_name(actor), io.cmd(op), reply);
        self.log(at, Line::Cmd(line));
    }

    fn actor_name(&self, actor: ActorId) -> String {
        format!(
            "api-{} {}",
            actor / 2 + 1,
            if actor % 2 == 0 { "pub" } else { "sub" }
        )
    }
}

/// Events per unit of work.
const EVENTS: usize = 4096;

struct Sim {
    world: World<SimRedis, PubSubModel>,
}

impl Sim {
    fn new(p: &PubSubParams, adapter: Adapter, record: bool) -> Self {
        let model = PubSubModel::new(p, adapter, record);
        let mut world = World::sim_with(p.seed, model);
        world.set_trace(false);
        world.start(|m, io| {
            for a in 0..2 * p.instances as usize {
                io.set_hop(a, Hop::symmetric(HOP_MS));
            }
            m.start(io);
        });
        Sim { world }
    }

    /// Up to `n` events; true when the world is idle.
    fn steps(&mut self, n: usize, instances: usize) -> bool {
        for _ in 0..n {
            if !self.world.step() {
                return true;
            }
            if let Some(c) = self.world.model_mut().drop_client.take() {
                self.world.backend_mut().disconnect(c);
            }
            if self.world.model().in_flight > 0 {
                self.drain(instances);
            }
        }
        false
    }

    /// Hands the instances what their subscribers received.
    fn drain(&mut self, instances: usize) {
        for i in 0..instances {
            let pushed = self.world.backend_mut().take_messages(sub_client(i));
            if pushed.is_empty() {
                continue;
            }
            // The model schedules each push's arrival through the engine's timers.
            let w = &mut self.world;
            w.start(|m, io| {
                for r in &pushed {
                    m.pushed(i, r, io);
                }
            });
        }
    }
}

/// The lab's run (see the module doc): what the worker steps.
pub struct PubSubSim {
    p: PubSubParams,
    order: Vec<Adapter>,
    at: usize,
    sim: Option<Sim>,
    done: Vec<Summary>,
    result: Option<PubSubOutput>,
}

impl PubSubSim {
    /// The run of `p` (nothing happened yet).
    pub fn new(p: &PubSubParams) -> Self {
        let chosen = p.adapter;
        let mut order = vec![chosen];
        order.extend(Adapter::ALL.iter().copied().filter(|a| *a != chosen));
        PubSubSim {
            p: p.clone(),
            order,
            at: 0,
            sim: None,
            done: Vec::new(),
            result: None,
        }
    }

    fn end_ms(&self) -> u64 {
        START_MS + u64::from(self.p.seconds) * 1000 + self.p.away_at + self.p.away + BUCKET_MS
    }

    /// One slice; true when everything is done.
    fn slice(&mut self) -> bool {
        if self.at >= self.order.len() {
            return true;
        }
        let adapter = self.order[self.at];
        let first = self.at == 0;
        let sim = self
            .sim
            .get_or_insert_with(|| Sim::new(&self.p, adapter, first));
        if !sim.steps(EVENTS, self.p.instances as usize) {
            return false;
        }
        let mut sim = self.sim.take().expect("a world runs");
        let model = sim.world.model_mut();
        let instances = model.finish();
        self.done.push(model.sum.clone());
        if first {
            let (biggest_room, rooms_used, rooms_everywhere) = model.rooms();
            let (stop_ms, away) = model.window();
            let rec = model.rec.take().expect("the chosen adapter records");
            let mut log = rec.log;
            log.sort_by_key(|l| l.at_ms());
            self.result = Some(PubSubOutput {
                params: self.p.clone(),
                summary: model.sum.clone(),
                compare: Vec::new(),
                instances,
                biggest_room,
                rooms_used,
                rooms_everywhere,
                start_ms: START_MS,
                stop_ms,
                away,
                bucket_ms: BUCKET_MS,
                buckets: rec.buckets,
                log,
            });
        }
        self.at += 1;
        self.at >= self.order.len()
    }

    /// The result, once done.
    pub fn result(&self) -> Option<PubSubOutput> {
        let mut r = self.result.clone()?;
        if self.at < self.order.len() {
            return None;
        }
        r.compare = Adapter::ALL
            .iter()
            .filter_map(|a| self.done.iter().find(|s| s.adapter == *a).cloned())
            .collect();
        Some(r)
    }
}

impl Run for PubSubSim {
    type Part = ();
    type Output = PubSubOutput;

    fn step(&mut self) -> Option<()> {
        self.slice();
        None
    }

    fn is_done(&self) -> bool {
        self.at >= self.order.len()
    }

    fn progress(&self) -> f64 {
        let within = self
            .sim
            .as_ref()
            .map_or(0.0, |s| s.world.now_ms() as f64 / self.end_ms() as f64);
        ((self.at as f64 + within.min(0.99)) / self.order.len() as f64).min(0.99)
    }

    fn output(&mut self) -> PubSubOutput {
        self.result().expect("asked when done")
    }
}

/// Runs `p` to the end.
pub fn run(p: &PubSubParams) -> PubSubOutput {
    let mut r = PubSubSim::new(p);
    while !r.slice() {}
    r.result().expect("done")
}
