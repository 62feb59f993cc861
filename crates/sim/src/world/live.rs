//! A [`World`] run live: the events due run, the commands they sent go out to a real Redis,
//! each reply comes back with its round trip.

use super::engine::{Model, OpId};
use super::{Command, LiveRedis, World};
use crate::redis::Reply;

/// A [`World`] on a [`LiveRedis`], as a live run drives it.
pub struct LiveWorld<M: Model = super::Actors> {
    /// The world.
    pub world: World<LiveRedis, M>,
    /// The replies' round trips, µs, in the order they arrived (the order the trace shows
    /// them).
    pub rtts: Vec<u32>,
    waiting: usize,
}

impl<M: Model> LiveWorld<M> {
    /// Drives `world` live.
    pub fn new(world: World<LiveRedis, M>) -> Self {
        LiveWorld {
            world,
            rtts: Vec::new(),
            waiting: 0,
        }
    }

    /// Runs the events due by `now_ms` while `go` (asked before each) allows; the commands
    /// to send now: (tag, command). The tag comes back with the reply ([`LiveWorld::arrived`]).
    pub fn advance(
        &mut self,
        now_ms: u64,
        mut go: impl FnMut(&World<LiveRedis, M>) -> bool,
    ) -> Vec<(usize, Command)> {
        while self.world.next_at().is_some_and(|t| t <= now_ms) && go(&self.world) {
            self.world.step();
        }
        let out: Vec<(usize, Command)> = self
            .world
            .backend_mut()
            .take_out()
            .into_iter()
            .map(|(op, _, cmd)| (op, cmd))
            .collect();
        self.waiting += out.len();
        out
    }

    /// The reply to the command tagged `tag` arrived at `now_ms`, `rtt_us` after it was sent.
    pub fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        let op: OpId = tag;
        self.world.backend_mut().arrived(op, reply, now_ms);
        self.rtts.push(rtt_us);
        self.waiting = self.waiting.saturating_sub(1);
    }

    /// Commands sent and not answered yet.
    pub fn waiting(&self) -> usize {
        self.waiting
    }
}
