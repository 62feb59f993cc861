//! The engine: a virtual clock, one event queue ordered by `(time, insertion sequence)`, the
//! commands in flight ("ops"), the link to Redis and the trace. A [`Model`] decides; the
//! engine delivers.
//!
//! An op's life: [`Io::send`] draws the actor's hop to Redis and schedules its arrival; at
//! the arrival the [`Backend`] answers (or blocks the client, or — live — takes the command
//! to a real Redis); the reply travels back over the actor's hop (plus the slow link's extra
//! delay) and the model hears [`Outcome::Reply`]. A link that is down answers
//! [`Outcome::Refused`] after the hop back; an op sent with a timeout that runs out first
//! is [`Outcome::TimedOut`] (its late reply is then dropped, as a client that gave up drops
//! it). Ops live in a slab whose slots are reused, so a run of millions of commands keeps a
//! few hundred; events carry the slot's generation so a late event never reaches a new op.
//!
//! **Instant mode** ([`World::set_instant`], off unless a lab turns it on): a command with no
//! network delay reaches Redis, and its reply comes back, within the millisecond it was sent
//! and before any other event of that millisecond — in the order they were made (a FIFO lane
//! in front of the queue). A process calling a Redis on its own machine sees it so: a chain
//! of commands, each sent when the previous reply came, runs to its end before the next timer
//! of the same millisecond, as if called synchronously. The streams lab runs in it (its
//! consumers read, save, acknowledge and read again in one millisecond). A model may also
//! hear the moment a command ran ([`Model::on_ran`]: its reply, or that the client blocked)
//! and take replies unrendered ([`Model::on_raw_reply`]); both default to nothing new, so a
//! model that does not ask sees exactly what it saw before.

use super::backend::{Backend, Delivery, Sent, To};
use super::{show_cmd, ActorId, Command, Hop, Trace, TraceEvent, What};
use crate::redis::{ClientId, RawReply, Reply, SimRedis};
use crate::rng::Mulberry32;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A command in flight: its slot in the engine (reused once its reply has come).
pub type OpId = usize;

/// How a command ended, as its sender sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Redis' reply.
    Reply(Reply),
    /// No Redis to connect to (the link is down).
    Refused,
    /// The sender's timeout ran out first.
    TimedOut,
}

/// The link between the actors and Redis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Health {
    /// Replies come after the hops.
    #[default]
    Healthy,
    /// Every reply is late by a seeded `min_ms..=max_ms` more.
    Slow {
        /// Least extra delay, ms.
        min_ms: u64,
        /// Most extra delay, ms.
        max_ms: u64,
    },
    /// Connections are refused: every command ends [`Outcome::Refused`] after the hop back.
    Down,
}

/// What Redis did with a command the moment it reached it ([`Model::on_ran`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ran<'a> {
    /// It answered at once (the reply is on its way back).
    Replied(&'a RawReply),
    /// The client blocks; the reply comes when Redis has one (or the block times out).
    Blocked,
    /// It went out to a real Redis; the reply comes when it arrives.
    Queued,
}

/// What a command log records of a command ([`Model::on_logged`]): Redis' reply, or why
/// there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logged<'a> {
    /// Redis ran it and replied (a blocked client: when it was served; live: when the real
    /// reply came).
    Reply(&'a RawReply),
    /// No Redis to connect to (the link is down).
    Refused,
    /// The sender gave up after this many ms.
    TimedOut(u64),
}

/// A lab's side of a world: what its actors do when a timer fires and when a command ends.
pub trait Model {
    /// The model's own events (a client's next request, a database query done, a wake-up).
    type Timer;
    /// `timer` fired.
    fn on_timer(&mut self, timer: Self::Timer, io: &mut Io<Self::Timer>);
    /// Op `op`, which `actor` sent, ended with `outcome`.
    fn on_reply(&mut self, op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Self::Timer>);
    /// Op `op` ended with Redis' reply, not yet rendered as a tree (a stream read stays
    /// compact). By default rendered and handed to [`Model::on_reply`].
    fn on_raw_reply(
        &mut self,
        op: OpId,
        actor: ActorId,
        reply: RawReply,
        io: &mut Io<Self::Timer>,
    ) {
        self.on_reply(op, actor, Outcome::Reply(reply.into_reply()), io);
    }
    /// Op `op` of `actor` reached Redis and ran (`ran`): the place to note what Redis did in
    /// the order it did it. `sim` is the simulated Redis right after the command (`None` for
    /// a real one), for a lab's own accounting of what no client sees. Nothing by default.
    fn on_ran(
        &mut self,
        _op: OpId,
        _actor: ActorId,
        _ran: Ran<'_>,
        _sim: Option<&SimRedis>,
        _io: &mut Io<Self::Timer>,
    ) {
    }
    /// Op `op`'s command, which `actor` sent, met Redis at `at_ms` (ran or was refused), or
    /// its sender gave up then: what a command log records, in the order it happened and
    /// whether or not the trace is kept. (Its outcome reaches [`Model::on_reply`] after the
    /// hop back.) By default nothing is recorded.
    fn on_logged(
        &mut self,
        _op: OpId,
        _actor: ActorId,
        _cmd: &Command,
        _what: Logged<'_>,
        _at_ms: u64,
    ) {
    }
    /// A short name for the trace ("worker A", "api-3").
    fn actor_name(&self, actor: ActorId) -> String {
        format!("actor {actor}")
    }
}

/// What comes back to an op's sender.
enum Back {
    Reply(RawReply),
    Refused,
}

/// What a model asked for an actor's connection (applied once its callback returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClientOp {
    Disconnect,
    DiscardPushes,
}

enum Event<T> {
    Timer(T),
    Arrive(OpId, u32),
    Reply(OpId, u32),
    Timeout(OpId, u32),
}

struct Scheduled<T> {
    at: u64,
    seq: u64,
    event: Event<T>,
}

impl<T> PartialEq for Scheduled<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl<T> Eq for Scheduled<T> {}
impl<T> PartialOrd for Scheduled<T> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Scheduled<T> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

struct Op {
    actor: ActorId,
    gen: u32,
    cmd: Command,
    sent_at: u64,
    /// The outcome on its way back.
    outcome: Option<Back>,
    /// The sender heard its end already (a timeout): the reply is dropped.
    settled: bool,
    free: bool,
}

/// The engine's side of a world, handed to the [`Model`]: the clock, sending, timers, the
/// trace.
pub struct Io<T> {
    now: u64,
    seq: u64,
    queue: BinaryHeap<Reverse<Scheduled<T>>>,
    ops: Vec<Op>,
    free: Vec<OpId>,
    hops: Vec<Hop>,
    net_rng: Mulberry32,
    health: Health,
    blocked: Vec<(ClientId, OpId)>,
    trace: Trace,
    keep_trace: bool,
    /// Instant mode: zero-delay arrivals and replies go to `lane`, ahead of `queue`.
    instant: bool,
    lane: VecDeque<Event<T>>,
    clients: Vec<(ClientId, ClientOp)>,
}

impl<T> Io<T> {
    fn new(seed: u32) -> Self {
        Io {
            now: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            ops: Vec::new(),
            free: Vec::new(),
            hops: Vec::new(),
            net_rng: Mulberry32::new(seed ^ 0x5EED_4E37),
            health: Health::Healthy,
            blocked: Vec::new(),
            trace: Vec::new(),
            keep_trace: true,
            instant: false,
            lane: VecDeque::new(),
            clients: Vec::new(),
        }
    }

    /// Virtual time, ms.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// `timer` fires at `at` (not before now).
    pub fn at(&mut self, at: u64, timer: T) {
        self.schedule(at.max(self.now), Event::Timer(timer));
    }

    /// `timer` fires `ms` from now.
    pub fn after(&mut self, ms: u64, timer: T) {
        self.schedule(self.now + ms, Event::Timer(timer));
    }

    /// The network between `actor` and Redis (zero latency until set).
    pub fn set_hop(&mut self, actor: ActorId, hop: Hop) {
        if self.hops.len() <= actor {
            self.hops.resize(actor + 1, Hop::default());
        }
        self.hops[actor] = hop;
    }

    fn hop(&self, actor: ActorId) -> Hop {
        self.hops.get(actor).copied().unwrap_or_default()
    }

    /// `actor` sends `cmd`; its end comes to [`Model::on_reply`]. The command's buffers
    /// travel with it: a model that sends the same kind of command again and again takes
    /// them back with [`Io::take_cmd`] and changes only the words that change.
    pub fn send(&mut self, actor: ActorId, cmd: Command) -> OpId {
        self.send_with(actor, cmd, None)
    }

    /// [`Io::send`], giving up after `timeout_ms` ([`Outcome::TimedOut`]).
    pub fn send_timeout(&mut self, actor: ActorId, cmd: Command, timeout_ms: u64) -> OpId {
        self.send_with(actor, cmd, Some(timeout_ms))
    }

    /// [`Io::send`] of a command given as words (copied).
    pub fn send_words<A: AsRef<[u8]>>(&mut self, actor: ActorId, words: &[A]) -> OpId {
        let cmd = words.iter().map(|w| w.as_ref().to_vec()).collect();
        self.send_with(actor, cmd, None)
    }

    fn send_with(&mut self, actor: ActorId, cmd: Command, timeout_ms: Option<u64>) -> OpId {
        let hop = self.hop(actor);
        let d = self.hop_delay(hop.to_redis_ms, hop.jitter_ms);
        let id = match self.free.pop() {
            Some(id) => {
                let o = &mut self.ops[id];
                o.actor = actor;
                o.gen = o.gen.wrapping_add(1);
                o.cmd = cmd;
                o.sent_at = self.now;
                o.outcome = None;
                o.settled = false;
                o.free = false;
                id
            }
            None => {
                self.ops.push(Op {
                    actor,
                    gen: 0,
                    cmd,
                    sent_at: self.now,
                    outcome: None,
                    settled: false,
                    free: false,
                });
                self.ops.len() - 1
            }
        };
        let gen = self.ops[id].gen;
        if self.instant && d == 0 {
            self.lane.push_back(Event::Arrive(id, gen));
        } else {
            self.schedule(self.now + d, Event::Arrive(id, gen));
        }
        if let Some(t) = timeout_ms {
            self.schedule(self.now + t, Event::Timeout(id, gen));
        }
        id
    }

    /// The command of op `op` (while it is in flight, and during its [`Model::on_reply`]).
    pub fn cmd(&self, op: OpId) -> &Command {
        &self.ops[op].cmd
    }

    /// Takes op `op`'s command back (during its [`Model::on_reply`]), to send its buffers
    /// again; the op keeps an empty command.
    pub fn take_cmd(&mut self, op: OpId) -> Command {
        std::mem::take(&mut self.ops[op].cmd)
    }

    /// `actor`'s connection closes (a process that crashed or left): Redis forgets its
    /// blocked command and its subscriptions. Applied when the current callback returns.
    pub fn disconnect(&mut self, actor: ActorId) {
        self.clients
            .push((actor as ClientId + 1, ClientOp::Disconnect));
    }

    /// `actor` has read what Redis pushed to it (Pub/Sub messages) and kept nothing.
    /// Applied when the current callback returns.
    pub fn discard_pushes(&mut self, actor: ActorId) {
        self.clients
            .push((actor as ClientId + 1, ClientOp::DiscardPushes));
    }

    /// Writes `what` about `actor` to the trace (now).
    pub fn log(&mut self, actor: ActorId, what: What) {
        self.log_at(self.now, actor, what);
    }

    fn log_at(&mut self, at_ms: u64, actor: ActorId, what: What) {
        if self.keep_trace {
            let step = self.trace.len();
            self.trace.push(TraceEvent {
                step,
                at_ms,
                actor,
                what,
            });
        }
    }

    /// Entries in the trace so far.
    pub fn trace_len(&self) -> usize {
        self.trace.len()
    }

    /// Whether the trace is kept (a model logs only then).
    pub fn tracing(&self) -> bool {
        self.keep_trace
    }

    fn schedule(&mut self, at: u64, event: Event<T>) {
        if self.instant && at <= self.now && matches!(event, Event::Arrive(..) | Event::Reply(..)) {
            self.lane.push_back(event);
            return;
        }
        self.queue.push(Reverse(Scheduled {
            at,
            seq: self.seq,
            event,
        }));
        self.seq += 1;
    }

    fn hop_delay(&mut self, base: u64, jitter: u64) -> u64 {
        if jitter == 0 {
            base
        } else {
            base + u64::from(self.net_rng.below(jitter as u32 + 1))
        }
    }

    /// Whether a reply to `actor` leaving Redis now comes back within the instant (instant
    /// mode, no hop back, no slow link).
    fn instant_back(&self, actor: ActorId) -> bool {
        let hop = self.hop(actor);
        self.instant
            && hop.from_redis_ms == 0
            && hop.jitter_ms == 0
            && !matches!(self.health, Health::Slow { .. })
    }

    /// Sends `outcome` back to op `op`'s actor, leaving Redis at `at`.
    fn reply_after(&mut self, op: OpId, outcome: Back, at: u64) {
        let hop = self.hop(self.ops[op].actor);
        let mut d = self.hop_delay(hop.from_redis_ms, hop.jitter_ms);
        if let (Health::Slow { min_ms, max_ms }, Back::Reply(_)) = (self.health, &outcome) {
            d += min_ms + u64::from(self.net_rng.below((max_ms - min_ms + 1) as u32));
        }
        let gen = self.ops[op].gen;
        self.ops[op].outcome = Some(outcome);
        self.schedule(at + d, Event::Reply(op, gen));
    }

    fn release(&mut self, op: OpId) {
        let o = &mut self.ops[op];
        o.free = true;
        o.cmd = Vec::new();
        self.free.push(op);
    }
}

/// A model, a backend, a virtual clock and the trace.
pub struct World<B: Backend, M: Model = super::Actors> {
    io: Io<M::Timer>,
    model: M,
    backend: B,
    seed: u32,
}

impl<M: Model> World<SimRedis, M> {
    /// A world whose Redis is a fresh [`SimRedis`] seeded with `seed` (named scripts
    /// loaded, as the proxy loads them), running `model`.
    pub fn sim_with(seed: u32, model: M) -> Self {
        World::with_model(seed, SimRedis::new(seed).with_named_scripts(), model)
    }
}

impl<B: Backend, M: Model> World<B, M> {
    /// An empty world at time 0 running `model` against `backend`.
    pub fn with_model(seed: u32, backend: B, model: M) -> Self {
        World {
            io: Io::new(seed),
            model,
            backend,
            seed,
        }
    }

    /// The seed it was made with.
    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// Calls `f` with the model and the engine (to schedule the first timers, send the first
    /// commands).
    pub fn start(&mut self, f: impl FnOnce(&mut M, &mut Io<M::Timer>)) {
        f(&mut self.model, &mut self.io);
    }

    /// Keeps (the default) or drops the trace. A long run that keeps its own record of what
    /// matters turns it off.
    pub fn set_trace(&mut self, keep: bool) {
        self.io.keep_trace = keep;
    }

    /// Instant mode on or off (off by default; see the module doc): a command with no
    /// network delay, and its reply, run before any other event of the same millisecond.
    pub fn set_instant(&mut self, on: bool) {
        self.io.instant = on;
    }

    /// Whether zero-delay events are waiting to run (instant mode): only before the first
    /// step, when [`World::start`] sent commands; a step runs them all.
    pub fn in_instant(&self) -> bool {
        !self.io.lane.is_empty()
    }

    /// The link's health from now on.
    pub fn set_health(&mut self, health: Health) {
        self.io.health = health;
    }

    /// Virtual time, ms.
    pub fn now_ms(&self) -> u64 {
        self.io.now
    }

    /// The trace so far.
    pub fn trace(&self) -> &[TraceEvent] {
        &self.io.trace
    }

    /// The backend (e.g. to inspect SimRedis' keyspace).
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, to hand it what arrived from outside (a live driver's replies).
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, mutably.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// The engine's side (sending, timers) outside an event, e.g. before the run starts.
    pub fn io_mut(&mut self) -> &mut Io<M::Timer> {
        &mut self.io
    }

    /// The name of an actor.
    pub fn actor_name(&self, id: ActorId) -> String {
        self.model.actor_name(id)
    }

    /// Whether nothing is scheduled and no blocked client waits for a timeout.
    pub fn is_idle(&self) -> bool {
        self.io.lane.is_empty()
            && self.io.queue.is_empty()
            && self.backend.next_timeout_ms().is_none()
    }

    /// When the next event happens, if any.
    pub fn next_at(&self) -> Option<u64> {
        if !self.io.lane.is_empty() {
            return Some(self.io.now);
        }
        let q = self.io.queue.peek().map(|Reverse(s)| s.at);
        match (q, self.backend.next_timeout_ms()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs one event (one queue entry, or the blocked-client timeouts due before the next
    /// one) — in instant mode with every zero-delay event it set off, so a step ends between
    /// two chains of commands; false when nothing is left.
    pub fn step(&mut self) -> bool {
        let ran = self.step_one();
        // Instant mode: the millisecond's zero-delay events, in the order made.
        while let Some(event) = self.io.lane.pop_front() {
            self.run_event(event);
        }
        ran
    }

    fn step_one(&mut self) -> bool {
        if !self.io.lane.is_empty() {
            // What was sent before the first step (`World::start`).
            return true;
        }
        let q = self.io.queue.peek().map(|Reverse(s)| s.at);
        let t = self.backend.next_timeout_ms();
        // A timeout due no later than the next event goes first: SimRedis answers a blocked
        // client at its deadline, before a command arriving in the same millisecond.
        if let Some(t) = t.filter(|&t| q.is_none_or(|q| t <= q)) {
            self.io.now = self.io.now.max(t);
            for d in self.backend.advance_to_raw(t) {
                self.deliver(d);
            }
            return true;
        }
        let Some(Reverse(s)) = self.io.queue.pop() else {
            return false;
        };
        self.io.now = self.io.now.max(s.at);
        self.run_event(s.event);
        true
    }

    fn run_event(&mut self, event: Event<M::Timer>) {
        match event {
            Event::Timer(timer) => self.model.on_timer(timer, &mut self.io),
            Event::Arrive(op, gen) if self.io.ops[op].gen == gen => self.arrive(op),
            Event::Reply(op, gen) if self.io.ops[op].gen == gen => self.reply(op),
            Event::Timeout(op, gen) if self.io.ops[op].gen == gen => self.timeout(op),
            _ => {}
        }
        if !self.io.clients.is_empty() {
            self.apply_clients();
        }
    }

    /// What the model asked for its actors' connections.
    fn apply_clients(&mut self) {
        for (client, op) in self.io.clients.drain(..) {
            match op {
                ClientOp::Disconnect => self.backend.disconnect(client),
                ClientOp::DiscardPushes => self.backend.discard_pushes(client),
            }
        }
    }

    fn arrive(&mut self, op: OpId) {
        let now = self.io.now;
        let actor = self.io.ops[op].actor;
        if self.io.health == Health::Down {
            self.refuse(op);
            return;
        }
        let client = actor as ClientId + 1;
        let sent = self.backend.send_raw(now, op, client, &self.io.ops[op].cmd);
        if sent == Sent::Refused {
            self.refuse(op);
            return;
        }
        let logged = |r: Option<Reply>, io: &Io<M::Timer>| What::Exec {
            cmd: io.ops[op].cmd.clone(),
            reply: r,
        };
        let sim = self.backend.sim();
        match sent {
            Sent::Reply(r) => {
                self.model
                    .on_logged(op, actor, &self.io.ops[op].cmd, Logged::Reply(&r), now);
                if self.io.keep_trace {
                    let w = logged(Some(r.to_reply()), &self.io);
                    self.io.log(actor, w);
                }
                self.model
                    .on_ran(op, actor, Ran::Replied(&r), sim, &mut self.io);
                let woken = self.backend.take_woken_raw();
                if woken.is_empty() && self.io.lane.is_empty() && self.io.instant_back(actor) {
                    // Its reply would be the very next event: the sender has it now.
                    self.end(op, Back::Reply(r));
                    return;
                }
                self.io.reply_after(op, Back::Reply(r), now);
                for d in woken {
                    self.deliver(d);
                }
                return;
            }
            Sent::Blocked | Sent::Queued | Sent::Refused => {
                if self.io.keep_trace {
                    let w = logged(None, &self.io);
                    self.io.log(actor, w);
                }
                let ran = if sent == Sent::Blocked {
                    self.io.blocked.push((client, op));
                    Ran::Blocked
                } else {
                    Ran::Queued
                };
                self.model.on_ran(op, actor, ran, sim, &mut self.io);
            }
        }
        for d in self.backend.take_woken_raw() {
            self.deliver(d);
        }
    }

    /// Op `op` found no Redis to connect to: logged, and refused after the hop back.
    fn refuse(&mut self, op: OpId) {
        let (now, actor) = (self.io.now, self.io.ops[op].actor);
        self.model
            .on_logged(op, actor, &self.io.ops[op].cmd, Logged::Refused, now);
        if self.io.keep_trace {
            let cmd = self.io.ops[op].cmd.clone();
            self.io.log(actor, What::Refused { cmd });
        }
        self.io.reply_after(op, Back::Refused, now);
    }

    /// A reply that was waiting (a blocked client's, or a live command's) came.
    fn deliver(&mut self, d: Delivery<RawReply>) {
        let op = match d.to {
            To::Op(op) => op,
            To::Client(c) => {
                let Some(i) = self.io.blocked.iter().position(|&(b, _)| b == c) else {
                    return;
                };
                self.io.blocked.swap_remove(i).1
            }
        };
        let actor = self.io.ops[op].actor;
        self.model.on_logged(
            op,
            actor,
            &self.io.ops[op].cmd,
            Logged::Reply(&d.reply),
            d.at_ms,
        );
        if self.io.keep_trace {
            let reply = d.reply.to_reply();
            self.io.log_at(d.at_ms, actor, What::Unblocked { reply });
        }
        self.io.reply_after(op, Back::Reply(d.reply), d.at_ms);
    }

    fn reply(&mut self, op: OpId) {
        let outcome = self.io.ops[op].outcome.take().unwrap_or(Back::Refused);
        self.end(op, outcome);
    }

    /// Op `op` ended with `outcome`: the sender hears it (unless it gave up), the slot is
    /// free.
    fn end(&mut self, op: OpId, outcome: Back) {
        let o = &mut self.io.ops[op];
        if !o.settled {
            o.settled = true;
            let actor = o.actor;
            match outcome {
                Back::Reply(r) => self.model.on_raw_reply(op, actor, r, &mut self.io),
                Back::Refused => self
                    .model
                    .on_reply(op, actor, Outcome::Refused, &mut self.io),
            }
        }
        self.io.release(op);
    }

    fn timeout(&mut self, op: OpId) {
        let o = &mut self.io.ops[op];
        if o.settled || o.free {
            return;
        }
        o.settled = true;
        let (actor, after_ms) = (o.actor, self.io.now - o.sent_at);
        let now = self.io.now;
        self.model
            .on_logged(op, actor, &o.cmd, Logged::TimedOut(after_ms), now);
        if self.io.keep_trace {
            let cmd = self.io.ops[op].cmd.clone();
            self.io.log(actor, What::TimedOut { cmd, after_ms });
        }
        self.model
            .on_reply(op, actor, Outcome::TimedOut, &mut self.io);
    }

    /// Runs until nothing is left or the next event is after `until_ms`.
    pub fn run_until(&mut self, until_ms: u64) {
        while self.next_at().is_some_and(|t| t <= until_ms) {
            self.step();
        }
        self.io.now = self.io.now.max(until_ms);
    }

    /// Runs until the trace has at least `n` entries (or nothing is left). With a world
    /// rebuilt from the same seed this is "rewind to step `n`": `trace()[..n]` is exactly the
    /// first `n` entries of the full run. The trace may hold a few entries more, because one
    /// event can write several (a push and the blocked clients it served); they are kept so
    /// that stepping on from here stays consistent.
    pub fn run_to_step(&mut self, n: usize) {
        while self.io.trace.len() < n && self.step() {}
    }

    /// Runs to the end, at most `max_steps` events (a guard against actors that never stop).
    pub fn run(&mut self, max_steps: usize) {
        for _ in 0..max_steps {
            if !self.step() {
                break;
            }
        }
    }

    /// The trace as text, one line per entry (for tests and `labsim`).
    pub fn trace_text(&self) -> String {
        let mut out = String::new();
        for e in &self.io.trace {
            let who = self.model.actor_name(e.actor);
            let line = match &e.what {
                What::Act { input, action } => format!("{input} → {action}"),
                What::Exec { cmd, reply } => match reply {
                    Some(r) => format!("redis: {} → {r}", show_cmd(cmd)),
                    None => format!("redis: {} → blocked", show_cmd(cmd)),
                },
                What::Unblocked { reply } => format!("redis: unblocked → {reply}"),
                What::Refused { cmd } => format!("redis: {} → ECONNREFUSED", show_cmd(cmd)),
                What::TimedOut { cmd, after_ms } => {
                    format!("{} → timeout after {after_ms} ms", show_cmd(cmd))
                }
            };
            out.push_str(&format!(
                "{:>4} {:>7} ms  {who:<10} {line}\n",
                e.step, e.at_ms
            ));
        }
        out
    }
}
