//! Who answers the actors' commands: [`SimRedis`] in virtual time, or [`LiveRedis`], which
//! hands them to a real Redis (through the proxy) and delivers the real replies later.

use super::engine::OpId;
use super::{ActorId, Command};
use crate::redis::{ClientId, Exec, Reply, SimRedis};

/// What the backend did with a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    /// Answered at once.
    Reply(Reply),
    /// The client blocks; the reply comes later as a [`Delivery`] to the client.
    Blocked,
    /// Taken elsewhere (a real Redis); the reply comes later as a [`Delivery`] to the op.
    Queued,
}

/// Whom a late reply is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// The client that blocked.
    Client(ClientId),
    /// The op that was queued.
    Op(OpId),
}

/// A reply that comes later than its command: a blocked client's, or a live command's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Whom it is for.
    pub to: To,
    /// The reply.
    pub reply: Reply,
    /// When it left Redis, virtual ms.
    pub at_ms: u64,
}

/// Who answers the actors' commands.
pub trait Backend {
    /// `client` sends `cmd` (op `op`) at virtual time `now_ms`.
    fn send(&mut self, now_ms: u64, op: OpId, client: ClientId, cmd: &[Vec<u8>]) -> Sent;
    /// Replies to blocked clients produced by the last `send` (a push served them).
    fn take_woken(&mut self) -> Vec<Delivery>;
    /// When a late reply is next due, if any is.
    fn next_timeout_ms(&self) -> Option<u64>;
    /// Moves the backend's clock to `now_ms` and returns the late replies due on the way.
    fn advance_to(&mut self, now_ms: u64) -> Vec<Delivery>;
}

fn woken(w: Vec<crate::redis::Woken>) -> Vec<Delivery> {
    w.into_iter()
        .map(|w| Delivery {
            to: To::Client(w.client),
            reply: w.reply,
            at_ms: w.at_ms,
        })
        .collect()
}

impl Backend for SimRedis {
    fn send(&mut self, now_ms: u64, _op: OpId, client: ClientId, cmd: &[Vec<u8>]) -> Sent {
        self.advance_to(now_ms);
        match self.execute(client, cmd) {
            Exec::Reply(r) => Sent::Reply(r),
            Exec::Blocked => Sent::Blocked,
        }
    }

    fn take_woken(&mut self) -> Vec<Delivery> {
        woken(SimRedis::take_woken(self))
    }

    fn next_timeout_ms(&self) -> Option<u64> {
        SimRedis::next_timeout_ms(self)
    }

    fn advance_to(&mut self, now_ms: u64) -> Vec<Delivery> {
        SimRedis::advance_to(self, now_ms);
        woken(SimRedis::take_woken(self))
    }
}

/// The backend of a live run: commands go out to a real Redis (through the proxy) and their
/// replies come back later, in real time. [`Backend::send`] only queues the command (the
/// world logs it as sent, reply pending) and the driver takes it with [`LiveRedis::take_out`];
/// when the real reply arrives the driver hands it over with [`LiveRedis::arrived`], and the
/// world delivers it at that time like a blocked client's reply.
#[derive(Debug, Default)]
pub struct LiveRedis {
    out: Vec<(OpId, ActorId, Command)>,
    arrived: std::collections::VecDeque<(OpId, Reply, u64)>,
}

impl LiveRedis {
    /// Commands sent since the last call, in order: (op, actor, command).
    pub fn take_out(&mut self) -> Vec<(OpId, ActorId, Command)> {
        std::mem::take(&mut self.out)
    }

    /// The reply to op `op` arrived at `at_ms`.
    pub fn arrived(&mut self, op: OpId, reply: Reply, at_ms: u64) {
        self.arrived.push_back((op, reply, at_ms));
    }
}

impl Backend for LiveRedis {
    fn send(&mut self, _now_ms: u64, op: OpId, client: ClientId, cmd: &[Vec<u8>]) -> Sent {
        self.out.push((op, (client - 1) as ActorId, cmd.to_vec()));
        Sent::Queued
    }

    fn take_woken(&mut self) -> Vec<Delivery> {
        Vec::new()
    }

    fn next_timeout_ms(&self) -> Option<u64> {
        self.arrived.front().map(|a| a.2)
    }

    fn advance_to(&mut self, now_ms: u64) -> Vec<Delivery> {
        let mut out = Vec::new();
        while self.arrived.front().is_some_and(|a| a.2 <= now_ms) {
            let (op, reply, at_ms) = self.arrived.pop_front().expect("peeked");
            out.push(Delivery {
                to: To::Op(op),
                reply,
                at_ms,
            });
        }
        out
    }
}
