//! Who answers the actors' commands: [`SimRedis`] in virtual time, or [`LiveRedis`], which
//! hands them to a real Redis (through the proxy) and delivers the real replies later.
//!
//! The engine asks for replies not yet rendered as trees ([`Backend::send_raw`],
//! [`RawReply`]): SimRedis keeps a stream read compact, so a model that reads millions of
//! entries allocates per read, not per entry. A backend that only answers trees gets the raw
//! methods for free.

use super::engine::OpId;
use super::{ActorId, Command};
use crate::redis::{ClientId, Exec, RawExec, RawReply, Reply, SimRedis};

/// What the backend did with a command (`R`: the reply's form, a tree unless raw).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent<R = Reply> {
    /// Answered at once.
    Reply(R),
    /// The client blocks; the reply comes later as a [`Delivery`] to the client.
    Blocked,
    /// Taken elsewhere (a real Redis); the reply comes later as a [`Delivery`] to the op.
    Queued,
    /// No server to connect to (a crashed node, a partition): the sender hears
    /// [`super::Outcome::Refused`] after the hop back, as when the link is down.
    Refused,
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
pub struct Delivery<R = Reply> {
    /// Whom it is for.
    pub to: To,
    /// The reply.
    pub reply: R,
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

    /// [`Backend::send`] with the reply not yet rendered (what the engine calls).
    fn send_raw(
        &mut self,
        now_ms: u64,
        op: OpId,
        client: ClientId,
        cmd: &[Vec<u8>],
    ) -> Sent<RawReply> {
        match self.send(now_ms, op, client, cmd) {
            Sent::Reply(r) => Sent::Reply(RawReply::Tree(r)),
            Sent::Blocked => Sent::Blocked,
            Sent::Queued => Sent::Queued,
            Sent::Refused => Sent::Refused,
        }
    }

    /// [`Backend::take_woken`] with the replies not yet rendered.
    fn take_woken_raw(&mut self) -> Vec<Delivery<RawReply>> {
        tree_to_raw(self.take_woken())
    }

    /// [`Backend::advance_to`] with the replies not yet rendered.
    fn advance_to_raw(&mut self, now_ms: u64) -> Vec<Delivery<RawReply>> {
        tree_to_raw(self.advance_to(now_ms))
    }

    /// The simulated Redis behind this backend, for what a lab's own accounting reads and no
    /// client could (a look, never a command); `None` for a real Redis.
    fn sim(&self) -> Option<&SimRedis> {
        None
    }

    /// `client`'s connection closed: Redis forgets its blocked command and subscriptions.
    fn disconnect(&mut self, _client: ClientId) {}

    /// `client` read what Redis pushed to it (Pub/Sub messages) and kept nothing.
    fn discard_pushes(&mut self, _client: ClientId) {}
}

fn tree_to_raw(d: Vec<Delivery>) -> Vec<Delivery<RawReply>> {
    d.into_iter()
        .map(|d| Delivery {
            to: d.to,
            reply: RawReply::Tree(d.reply),
            at_ms: d.at_ms,
        })
        .collect()
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

    fn send_raw(
        &mut self,
        now_ms: u64,
        _op: OpId,
        client: ClientId,
        cmd: &[Vec<u8>],
    ) -> Sent<RawReply> {
        self.advance_to(now_ms);
        match self.execute_raw(client, cmd) {
            RawExec::Reply(r) => Sent::Reply(r),
            RawExec::Blocked => Sent::Blocked,
        }
    }

    fn take_woken_raw(&mut self) -> Vec<Delivery<RawReply>> {
        woken_raw(SimRedis::take_woken_raw(self))
    }

    fn advance_to_raw(&mut self, now_ms: u64) -> Vec<Delivery<RawReply>> {
        SimRedis::advance_to(self, now_ms);
        woken_raw(SimRedis::take_woken_raw(self))
    }

    fn sim(&self) -> Option<&SimRedis> {
        Some(self)
    }

    fn disconnect(&mut self, client: ClientId) {
        SimRedis::disconnect(self, client);
    }

    fn discard_pushes(&mut self, client: ClientId) {
        self.clear_messages(client);
    }
}

fn woken_raw(w: Vec<crate::redis::RawWoken>) -> Vec<Delivery<RawReply>> {
    if w.is_empty() {
        return Vec::new();
    }
    w.into_iter()
        .map(|w| Delivery {
            to: To::Client(w.client),
            reply: w.reply,
            at_ms: w.at_ms,
        })
        .collect()
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
