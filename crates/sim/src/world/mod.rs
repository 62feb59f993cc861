//! The world: actors that speak Redis, in virtual time.
//!
//! * A virtual clock and an event queue ordered by `(time, insertion sequence)`, so two
//!   events at the same millisecond always run in the order they were scheduled (desque's
//!   rule); nothing depends on a hash order or the wall clock.
//! * Actors — API instances, workers, a loader standing for Postgres — are state machines
//!   ([`Actor`]): given what just happened ([`Input`]: start, a reply, a wake-up) they choose
//!   what to do next ([`Action`]): send one Redis command and wait for its reply, sleep, or
//!   work (busy for a while, e.g. a database query), or stop.
//! * "What to send next" (the actor) is kept apart from "who answers" (a [`Backend`]):
//!   [`SimRedis`] answers here in virtual time; a live driver can hand the same actors'
//!   commands to a real Redis in real time.
//! * Each actor has its own network hop (one-way latency to Redis and back, plus seeded
//!   jitter) and its own seeded RNG, so adding an actor does not change another's draws.
//! * Every event is written to a [`Trace`] (step, time, actor, command, reply, what the actor
//!   chose), which the UI renders. Rewinding to step `n` re-runs the same scenario from its
//!   seed up to that step ([`World::run_to_step`]): runs are pure functions of the seed, so
//!   this is exact and needs no snapshots of actors; the backend then shows the state at
//!   that step (e.g. `SimRedis::snapshot` for a keyspace view).
//!
//! The queue is `std`'s `BinaryHeap` over `(time, seq)`; the actor and backend traits are
//! ours because the simulation crates that exist (desque, nexosim, …) bring their own
//! runtimes and models where we need a few lines that mirror the labs' vocabulary.

pub mod lockrace;

use crate::redis::{ClientId, Exec, Reply, SimRedis};
use crate::rng::Mulberry32;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Index of an actor in its world (the order it was added).
pub type ActorId = usize;

/// One Redis command: its words.
pub type Command = Vec<Vec<u8>>;

/// A command from text words, e.g. `cmd(&["SET", "lock", "tok", "NX", "PX", "1000"])`.
pub fn cmd(words: &[&str]) -> Command {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// What an actor does next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "do")]
pub enum Action {
    /// Send a command to Redis and wait for its reply.
    Send {
        /// The command.
        #[serde(serialize_with = "ser_cmd")]
        cmd: Command,
    },
    /// Idle for `ms`, then get [`Input::Wake`].
    Sleep {
        /// How long.
        ms: u64,
    },
    /// Busy for `ms` doing `what` (a database query, the critical section), then
    /// [`Input::Wake`].
    Work {
        /// How long.
        ms: u64,
        /// What the work stands for (shown in the trace).
        what: String,
    },
    /// Stop for good.
    Done,
}

/// What just happened to an actor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "on")]
pub enum Input {
    /// The world started it.
    Start,
    /// The reply to the command it sent.
    Reply {
        /// The reply.
        reply: Reply,
    },
    /// A sleep or a piece of work ended.
    Wake,
}

/// What an actor sees when it decides: the time, who it is, and its own seeded RNG.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// Virtual time in ms.
    pub now_ms: u64,
    /// The actor's id.
    pub id: ActorId,
    /// The actor's own generator (seeded from the world seed and its id).
    pub rng: &'a mut Mulberry32,
}

/// A state machine that speaks Redis. It never sees who answers.
pub trait Actor {
    /// A short name for the trace ("worker A", "api-3", "loader").
    fn name(&self) -> String;
    /// Chooses the next action after `input`.
    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action;
}

/// Who answers the actors' commands.
pub trait Backend {
    /// `client` sends `cmd` at virtual time `now_ms`; `None` when the command blocks (its
    /// reply comes later from [`Backend::advance_to`] or [`Backend::take_woken`]).
    fn send(&mut self, now_ms: u64, client: ClientId, cmd: &[Vec<u8>]) -> Option<Reply>;
    /// Replies to blocked clients produced by the last `send` (a push served them).
    fn take_woken(&mut self) -> Vec<(ClientId, Reply)>;
    /// When a blocked client next times out, if any will.
    fn next_timeout_ms(&self) -> Option<u64>;
    /// Moves the backend's clock to `now_ms` and returns the clients whose blocking
    /// commands timed out on the way, with their replies and times.
    fn advance_to(&mut self, now_ms: u64) -> Vec<(ClientId, Reply, u64)>;
}

impl Backend for SimRedis {
    fn send(&mut self, now_ms: u64, client: ClientId, cmd: &[Vec<u8>]) -> Option<Reply> {
        self.advance_to(now_ms);
        match self.execute(client, cmd) {
            Exec::Reply(r) => Some(r),
            Exec::Blocked => None,
        }
    }

    fn take_woken(&mut self) -> Vec<(ClientId, Reply)> {
        SimRedis::take_woken(self)
            .into_iter()
            .map(|w| (w.client, w.reply))
            .collect()
    }

    fn next_timeout_ms(&self) -> Option<u64> {
        SimRedis::next_timeout_ms(self)
    }

    fn advance_to(&mut self, now_ms: u64) -> Vec<(ClientId, Reply, u64)> {
        SimRedis::advance_to(self, now_ms);
        SimRedis::take_woken(self)
            .into_iter()
            .map(|w| (w.client, w.reply, w.at_ms))
            .collect()
    }
}

/// The backend of a live run: commands go out to a real Redis (through the proxy) and their
/// replies come back later, in real time. [`Backend::send`] only queues the command (the
/// world logs it as sent, reply pending) and the driver takes it with [`LiveRedis::take_out`];
/// when the real reply arrives the driver hands it over with [`LiveRedis::arrived`], and the
/// world delivers it at that time like a blocked client's reply.
#[derive(Debug, Default)]
pub struct LiveRedis {
    out: Vec<(ActorId, Command)>,
    arrived: std::collections::VecDeque<(ClientId, Reply, u64)>,
}

impl LiveRedis {
    /// Commands sent since the last call, in order: (actor, command).
    pub fn take_out(&mut self) -> Vec<(ActorId, Command)> {
        std::mem::take(&mut self.out)
    }

    /// The reply to `actor`'s command arrived at `at_ms`.
    pub fn arrived(&mut self, actor: ActorId, reply: Reply, at_ms: u64) {
        self.arrived
            .push_back((actor as ClientId + 1, reply, at_ms));
    }
}

impl Backend for LiveRedis {
    fn send(&mut self, _now_ms: u64, client: ClientId, cmd: &[Vec<u8>]) -> Option<Reply> {
        self.out.push(((client - 1) as ActorId, cmd.to_vec()));
        None
    }

    fn take_woken(&mut self) -> Vec<(ClientId, Reply)> {
        Vec::new()
    }

    fn next_timeout_ms(&self) -> Option<u64> {
        self.arrived.front().map(|a| a.2)
    }

    fn advance_to(&mut self, now_ms: u64) -> Vec<(ClientId, Reply, u64)> {
        let mut out = Vec::new();
        while self.arrived.front().is_some_and(|a| a.2 <= now_ms) {
            out.extend(self.arrived.pop_front());
        }
        out
    }
}

/// A [`World`] run live, as a lab's live type drives it (the lock race's, the queue's): the
/// events due run, the commands they sent go out, each reply comes back with its round trip.
pub struct LiveWorld {
    /// The world.
    pub world: World<LiveRedis>,
    /// The replies' round trips, µs, in the order they arrived (the order the trace shows
    /// them).
    pub rtts: Vec<u32>,
    waiting: usize,
}

impl LiveWorld {
    /// Drives `world` live.
    pub fn new(world: World<LiveRedis>) -> Self {
        LiveWorld {
            world,
            rtts: Vec::new(),
            waiting: 0,
        }
    }

    /// Runs the events due by `now_ms` while `go` (asked before each) allows; the commands
    /// to send now: (actor, command).
    pub fn advance(
        &mut self,
        now_ms: u64,
        mut go: impl FnMut(&World<LiveRedis>) -> bool,
    ) -> Vec<(ActorId, Command)> {
        while self.world.next_at().is_some_and(|t| t <= now_ms) && go(&self.world) {
            self.world.step();
        }
        let out = self.world.backend_mut().take_out();
        self.waiting += out.len();
        out
    }

    /// The reply to `actor`'s command arrived at `now_ms`, `rtt_us` after it was sent.
    pub fn arrived(&mut self, actor: ActorId, reply: Reply, now_ms: u64, rtt_us: u32) {
        self.world.backend_mut().arrived(actor, reply, now_ms);
        self.rtts.push(rtt_us);
        self.waiting = self.waiting.saturating_sub(1);
    }

    /// Commands sent and not answered yet.
    pub fn waiting(&self) -> usize {
        self.waiting
    }
}

/// The network between one actor and Redis: one-way latency each way, plus up to
/// `jitter_ms` more per hop, drawn from the world's seeded RNG.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hop {
    /// Actor → Redis, ms.
    pub to_redis_ms: u64,
    /// Redis → actor, ms.
    pub from_redis_ms: u64,
    /// Extra delay per hop, uniform in `0..=jitter_ms`.
    pub jitter_ms: u64,
}

impl Hop {
    /// The same latency both ways, no jitter.
    pub fn symmetric(ms: u64) -> Self {
        Self {
            to_redis_ms: ms,
            from_redis_ms: ms,
            jitter_ms: 0,
        }
    }
}

/// One entry of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceEvent {
    /// Position in the trace (0-based).
    pub step: usize,
    /// Virtual time, ms.
    pub at_ms: u64,
    /// The actor concerned.
    pub actor: ActorId,
    /// What happened.
    pub what: What,
}

/// What a trace entry records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum What {
    /// The actor got `input` and chose `action`.
    Act {
        /// What happened to it.
        input: Input,
        /// What it chose.
        action: Action,
    },
    /// The actor's command reached Redis: the reply, or `None` when the client blocks.
    Exec {
        /// The command.
        #[serde(serialize_with = "ser_cmd")]
        cmd: Command,
        /// Redis' reply, `None` while blocked.
        reply: Option<Reply>,
    },
    /// A blocked command of the actor got its reply (a push, or the timeout).
    Unblocked {
        /// The reply.
        reply: Reply,
    },
}

/// The trace of a run.
pub type Trace = Vec<TraceEvent>;

fn ser_cmd<S: serde::Serializer>(cmd: &Command, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(cmd.iter().map(|w| String::from_utf8_lossy(w)))
}

#[derive(Debug)]
enum Event {
    Act(ActorId, Input),
    Arrive(ActorId, Command),
}

#[derive(Debug)]
struct Scheduled {
    at: u64,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

struct Slot {
    actor: Box<dyn Actor>,
    hop: Hop,
    rng: Mulberry32,
    /// The command sent and not answered yet.
    pending: Option<Command>,
    done: bool,
}

/// Actors, a backend, a virtual clock and the trace.
pub struct World<B: Backend> {
    now: u64,
    seq: u64,
    seed: u32,
    queue: BinaryHeap<Reverse<Scheduled>>,
    slots: Vec<Slot>,
    backend: B,
    net_rng: Mulberry32,
    trace: Trace,
}

impl World<SimRedis> {
    /// A world whose Redis is a fresh [`SimRedis`] seeded with `seed`, with the named scripts
    /// loaded (as the proxy loads them on a real Redis when it starts).
    pub fn with_sim(seed: u32) -> Self {
        World::new(seed, SimRedis::new(seed).with_named_scripts())
    }
}

impl<B: Backend> World<B> {
    /// An empty world at time 0.
    pub fn new(seed: u32, backend: B) -> Self {
        Self {
            now: 0,
            seq: 0,
            seed,
            queue: BinaryHeap::new(),
            slots: Vec::new(),
            backend,
            net_rng: Mulberry32::new(seed ^ 0x5EED_4E37),
            trace: Vec::new(),
        }
    }

    /// Adds an actor that starts at `start_ms` behind `hop`; returns its id (ids count from 0
    /// in the order actors are added, and Redis sees actor `i` as client `i + 1`).
    pub fn add(&mut self, actor: Box<dyn Actor>, hop: Hop, start_ms: u64) -> ActorId {
        let id = self.slots.len();
        let stream = self
            .seed
            .wrapping_add(0x9E37_79B9u32.wrapping_mul(id as u32 + 1));
        self.slots.push(Slot {
            actor,
            hop,
            rng: Mulberry32::new(stream),
            pending: None,
            done: false,
        });
        self.schedule(start_ms, Event::Act(id, Input::Start));
        id
    }

    fn schedule(&mut self, at: u64, event: Event) {
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

    fn log(&mut self, at_ms: u64, actor: ActorId, what: What) {
        let step = self.trace.len();
        self.trace.push(TraceEvent {
            step,
            at_ms,
            actor,
            what,
        });
    }

    /// Virtual time, ms.
    pub fn now_ms(&self) -> u64 {
        self.now
    }

    /// The trace so far.
    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    /// The backend (e.g. to inspect SimRedis' keyspace).
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, to hand it what arrived from outside (a live driver's replies).
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// The name of an actor.
    pub fn actor_name(&self, id: ActorId) -> String {
        self.slots[id].actor.name()
    }

    /// Whether every actor is done and nothing is scheduled.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.backend.next_timeout_ms().is_none()
    }

    /// When the next event happens, if any.
    pub fn next_at(&self) -> Option<u64> {
        let q = self.queue.peek().map(|Reverse(s)| s.at);
        match (q, self.backend.next_timeout_ms()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs one event (one queue entry, or the blocked-client timeouts due before the next
    /// one); false when nothing is left.
    pub fn step(&mut self) -> bool {
        let q = self.queue.peek().map(|Reverse(s)| s.at);
        let t = self.backend.next_timeout_ms();
        // A timeout due no later than the next event goes first: SimRedis answers a blocked
        // client at its deadline, before a command arriving in the same millisecond.
        if let Some(t) = t.filter(|&t| q.is_none_or(|q| t <= q)) {
            self.now = self.now.max(t);
            for (client, reply, at) in self.backend.advance_to(t) {
                self.deliver_unblocked(client, reply, at);
            }
            return true;
        }
        let Some(Reverse(s)) = self.queue.pop() else {
            return false;
        };
        self.now = self.now.max(s.at);
        match s.event {
            Event::Act(id, input) => self.act(id, input),
            Event::Arrive(id, cmd) => {
                let client = id as ClientId + 1;
                let reply = self.backend.send(self.now, client, &cmd);
                self.log(
                    self.now,
                    id,
                    What::Exec {
                        cmd: cmd.clone(),
                        reply: reply.clone(),
                    },
                );
                if let Some(r) = reply {
                    self.reply_to(id, r, self.now);
                }
                for (client, reply) in self.backend.take_woken() {
                    self.deliver_unblocked(client, reply, self.now);
                }
            }
        }
        true
    }

    fn deliver_unblocked(&mut self, client: ClientId, reply: Reply, at: u64) {
        let id = (client - 1) as ActorId;
        self.log(
            at,
            id,
            What::Unblocked {
                reply: reply.clone(),
            },
        );
        self.reply_to(id, reply, at);
    }

    fn reply_to(&mut self, id: ActorId, reply: Reply, at: u64) {
        let hop = self.slots[id].hop;
        let d = self.hop_delay(hop.from_redis_ms, hop.jitter_ms);
        self.schedule(at + d, Event::Act(id, Input::Reply { reply }));
    }

    fn act(&mut self, id: ActorId, input: Input) {
        let now = self.now;
        let slot = &mut self.slots[id];
        if slot.done {
            return;
        }
        if matches!(input, Input::Reply { .. }) {
            slot.pending = None;
        }
        let mut ctx = Ctx {
            now_ms: now,
            id,
            rng: &mut slot.rng,
        };
        let action = slot.actor.act(&input, &mut ctx);
        let hop = slot.hop;
        match &action {
            Action::Send { cmd } => {
                slot.pending = Some(cmd.clone());
                let d = self.hop_delay(hop.to_redis_ms, hop.jitter_ms);
                self.schedule(now + d, Event::Arrive(id, cmd.clone()));
            }
            Action::Sleep { ms } | Action::Work { ms, .. } => {
                self.schedule(now + ms, Event::Act(id, Input::Wake));
            }
            Action::Done => slot.done = true,
        }
        self.log(now, id, What::Act { input, action });
    }

    /// Runs until nothing is left or the next event is after `until_ms`.
    pub fn run_until(&mut self, until_ms: u64) {
        while self.next_at().is_some_and(|t| t <= until_ms) {
            self.step();
        }
        self.now = self.now.max(until_ms);
    }

    /// Runs until the trace has at least `n` entries (or nothing is left). With a world
    /// rebuilt from the same seed this is "rewind to step `n`": `trace()[..n]` is exactly the
    /// first `n` entries of the full run. The trace may hold a few entries more, because one
    /// event can write several (a push and the blocked clients it served); they are kept so
    /// that stepping on from here stays consistent.
    pub fn run_to_step(&mut self, n: usize) {
        while self.trace.len() < n && self.step() {}
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
        for e in &self.trace {
            let who = self.slots[e.actor].actor.name();
            let line = match &e.what {
                What::Act { input, action } => {
                    let on = match input {
                        Input::Start => "start".to_string(),
                        Input::Reply { reply } => format!("got {reply}"),
                        Input::Wake => "wake".to_string(),
                    };
                    let does = match action {
                        Action::Send { cmd } => format!("send {}", show_cmd(cmd)),
                        Action::Sleep { ms } => format!("sleep {ms} ms"),
                        Action::Work { ms, what } => format!("work {ms} ms ({what})"),
                        Action::Done => "done".to_string(),
                    };
                    format!("{on} → {does}")
                }
                What::Exec { cmd, reply } => match reply {
                    Some(r) => format!("redis: {} → {r}", show_cmd(cmd)),
                    None => format!("redis: {} → blocked", show_cmd(cmd)),
                },
                What::Unblocked { reply } => format!("redis: unblocked → {reply}"),
            };
            out.push_str(&format!(
                "{:>4} {:>7} ms  {who:<10} {line}\n",
                e.step, e.at_ms
            ));
        }
        out
    }
}

/// A command as `redis-cli` would echo it.
pub fn show_cmd(cmd: &Command) -> String {
    cmd.iter()
        .map(|w| {
            let s = String::from_utf8_lossy(w);
            if s.is_empty() || s.contains([' ', '"', '\'']) {
                format!("{s:?}")
            } else {
                s.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
