//! [`Actors`]: the [`Model`] of labs whose processes each do one thing at a time — send one
//! command and wait for its reply, sleep, or work (busy for a while, e.g. a database query).
//! Each [`Actor`] is a state machine: given what just happened ([`Input`]) it chooses what to
//! do next ([`Action`]), with its own seeded generator, so adding an actor does not change
//! another's draws.

use super::engine::{Io, Model, OpId, Outcome};
use super::{show_cmd, ActorId, Backend, Command, Hop, What, World};
use crate::redis::{Reply, SimRedis};
use crate::rng::Mulberry32;
use serde::Serialize;

/// What an actor does next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "do")]
pub enum Action {
    /// Send a command to Redis and wait for its reply.
    Send {
        /// The command.
        #[serde(serialize_with = "super::ser_cmd")]
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

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Send { cmd } => write!(f, "send {}", show_cmd(cmd)),
            Action::Sleep { ms } => write!(f, "sleep {ms} ms"),
            Action::Work { ms, what } => write!(f, "work {ms} ms ({what})"),
            Action::Done => f.write_str("done"),
        }
    }
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
    /// Its command got no reply: the connection was refused, or (with a timeout) it gave
    /// up waiting.
    Failed {
        /// `true`: refused; `false`: timed out.
        refused: bool,
    },
}

impl std::fmt::Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Start => f.write_str("start"),
            Input::Reply { reply } => write!(f, "got {reply}"),
            Input::Wake => f.write_str("wake"),
            Input::Failed { refused: true } => f.write_str("refused"),
            Input::Failed { refused: false } => f.write_str("timed out"),
        }
    }
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

struct Slot {
    actor: Box<dyn Actor>,
    rng: Mulberry32,
    done: bool,
}

/// An actor's timer: it gets `Input` ([`Input::Start`] or [`Input::Wake`]).
pub type ActorTimer = (ActorId, Input);

/// Actors that each do one thing at a time (see the module doc).
#[derive(Default)]
pub struct Actors {
    slots: Vec<Slot>,
}

impl Actors {
    fn act(&mut self, id: ActorId, input: Input, io: &mut Io<ActorTimer>) {
        let slot = &mut self.slots[id];
        if slot.done {
            return;
        }
        let mut ctx = Ctx {
            now_ms: io.now(),
            id,
            rng: &mut slot.rng,
        };
        let action = slot.actor.act(&input, &mut ctx);
        match &action {
            Action::Send { cmd } => {
                io.send(id, cmd.clone());
            }
            Action::Sleep { ms } | Action::Work { ms, .. } => io.after(*ms, (id, Input::Wake)),
            Action::Done => slot.done = true,
        }
        io.log(id, What::Act { input, action });
    }
}

impl Model for Actors {
    type Timer = ActorTimer;

    fn on_timer(&mut self, (id, input): ActorTimer, io: &mut Io<ActorTimer>) {
        self.act(id, input, io);
    }

    fn on_reply(&mut self, _op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<ActorTimer>) {
        let input = match outcome {
            Outcome::Reply(reply) => Input::Reply { reply },
            Outcome::Refused => Input::Failed { refused: true },
            Outcome::TimedOut => Input::Failed { refused: false },
        };
        self.act(actor, input, io);
    }

    fn actor_name(&self, actor: ActorId) -> String {
        self.slots[actor].actor.name()
    }
}

impl World<SimRedis> {
    /// A world of [`Actors`] whose Redis is a fresh [`SimRedis`] seeded with `seed`, with the
    /// named scripts loaded (as the proxy loads them on a real Redis when it starts).
    pub fn with_sim(seed: u32) -> Self {
        World::new(seed, SimRedis::new(seed).with_named_scripts())
    }
}

impl<B: Backend> World<B> {
    /// An empty world of [`Actors`] at time 0.
    pub fn new(seed: u32, backend: B) -> Self {
        World::with_model(seed, backend, Actors::default())
    }

    /// Adds an actor that starts at `start_ms` behind `hop`; returns its id (ids count from 0
    /// in the order actors are added, and Redis sees actor `i` as client `i + 1`).
    pub fn add(&mut self, actor: Box<dyn Actor>, hop: Hop, start_ms: u64) -> ActorId {
        let seed = self.seed();
        self.start(|m, io| {
            let id = m.slots.len();
            let stream = seed.wrapping_add(0x9E37_79B9u32.wrapping_mul(id as u32 + 1));
            m.slots.push(Slot {
                actor,
                rng: Mulberry32::new(stream),
                done: false,
            });
            io.set_hop(id, hop);
            io.at(start_ms, (id, Input::Start));
        });
        self.model().slots.len() - 1
    }
}
