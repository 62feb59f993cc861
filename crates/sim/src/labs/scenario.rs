//! The one pair every lab whose actors speak Redis runs as: [`SimRun`] (the actors on a
//! [`SimRedis`] in virtual time, stepped by the worker) and [`LiveRun`] (the same actors on a
//! [`LiveRedis`], a real Redis through the proxy, in real time). A lab writes a [`Scenario`] —
//! how to build its world on any backend and what a world shows — and gets both.

use super::lab::{Json, LiveDriver, Run};
use crate::redis::{Reply, SimRedis};
use crate::world::{Backend, Command, LiveRedis, LiveWorld, Model, World};
use serde::Serialize;

/// A lab's actors, on any backend.
pub trait Scenario {
    /// The actors (often [`crate::world::Actors`]).
    type Model: Model;
    /// What a run shows (the lab's output type).
    type Output: Serialize;
    /// World events per unit of work (a few milliseconds natively).
    const EVENTS: usize = 4_096;
    /// Least time between two snapshots of a live run, ms.
    const SNAPSHOT_MS: f64 = 250.0;

    /// The run's world against `backend`. `live`: the backend is a real Redis in real time,
    /// so the world has no simulated network (the real one is in the round trips).
    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B, Self::Model>;

    /// Asked before each event: false ends the run here (a guard against a run that never
    /// ends). A scenario that notes the step an event starts at does it here.
    fn go<B: Backend>(&self, _world: &World<B, Self::Model>) -> bool {
        true
    }

    /// The run was stopped by [`Scenario::go`] (a live run then sends nothing more and ends
    /// once its replies are in).
    fn stopped(&self) -> bool {
        false
    }

    /// How far along, 0..1 (an estimate until done).
    fn progress<B: Backend>(&self, world: &World<B, Self::Model>) -> f64;

    /// What the run shows so far; `live` is `Some(round trips)` for a live run (µs, in the
    /// order the replies arrived), `None` for a simulation.
    fn output<B: Backend>(
        &self,
        world: &World<B, Self::Model>,
        live: Option<&[u32]>,
    ) -> Self::Output;
}

/// A [`Scenario`] simulated: its world on a fresh [`SimRedis`], stepped a unit at a time.
pub struct SimRun<S: Scenario> {
    scenario: S,
    world: World<SimRedis, S::Model>,
    done: bool,
}

impl<S: Scenario> SimRun<S> {
    /// The run of `scenario` against a fresh SimRedis seeded with `seed` (nothing happened
    /// yet).
    pub fn new(mut scenario: S, seed: u32) -> Self {
        let world = scenario.world(SimRedis::new(seed).with_named_scripts(), false);
        SimRun {
            scenario,
            world,
            done: false,
        }
    }

    /// One event; false when the run is over.
    pub fn step_event(&mut self) -> bool {
        if self.done {
            return false;
        }
        if !self.scenario.go(&self.world) || !self.world.step() {
            self.done = true;
        }
        !self.done
    }

    /// Up to `n` events; true when the run is over.
    pub fn steps(&mut self, n: usize) -> bool {
        for _ in 0..n {
            if !self.step_event() {
                break;
            }
        }
        self.done
    }

    /// Runs to the end.
    pub fn finish(mut self) -> S::Output {
        while self.step_event() {}
        self.output()
    }

    /// Runs until the trace has `n` entries (or the run ends).
    pub fn run_to_step(&mut self, n: usize) {
        while self.world.trace().len() < n && self.step_event() {}
    }

    /// Over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The world (its trace, its SimRedis).
    pub fn world(&self) -> &World<SimRedis, S::Model> {
        &self.world
    }

    /// The scenario.
    pub fn scenario(&self) -> &S {
        &self.scenario
    }

    /// What the run shows so far.
    pub fn output(&self) -> S::Output {
        self.scenario.output(&self.world, None)
    }
}

impl<S: Scenario> Run for SimRun<S> {
    type Part = ();
    type Output = S::Output;
    fn step(&mut self) -> Option<()> {
        self.steps(S::EVENTS);
        None
    }
    fn is_done(&self) -> bool {
        self.done
    }
    fn progress(&self) -> f64 {
        if self.done {
            1.0
        } else {
            self.scenario.progress(&self.world).clamp(0.0, 0.99)
        }
    }
    fn output(&mut self) -> S::Output {
        SimRun::output(self)
    }
}

/// A [`Scenario`] live: the same actors against a real Redis through the proxy, in real
/// time. Nothing here knows about sockets or clocks (see [`LiveDriver`]).
pub struct LiveRun<S: Scenario> {
    scenario: S,
    live: LiveWorld<S::Model>,
}

impl<S: Scenario> LiveRun<S> {
    /// The live run of `scenario` (nothing sent yet).
    pub fn new(mut scenario: S) -> Self {
        let world = scenario.world(LiveRedis::default(), true);
        LiveRun {
            scenario,
            live: LiveWorld::new(world),
        }
    }

    /// The scenario.
    pub fn scenario(&self) -> &S {
        &self.scenario
    }

    /// The world (its trace).
    pub fn world(&self) -> &World<LiveRedis, S::Model> {
        &self.live.world
    }

    /// What the run shows so far (times are real milliseconds since the start).
    pub fn output(&self) -> S::Output {
        self.scenario
            .output(&self.live.world, Some(&self.live.rtts))
    }
}

impl<S: Scenario> LiveDriver for LiveRun<S> {
    fn advance(&mut self, now_ms: u64) -> Vec<(usize, Command)> {
        let s = &self.scenario;
        self.live.advance(now_ms, |w| s.go(w))
    }
    fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        self.live.arrived(tag, reply, now_ms, rtt_us);
    }
    fn next_at(&self) -> Option<u64> {
        if self.scenario.stopped() {
            None
        } else {
            self.live.world.next_at()
        }
    }
    fn is_done(&self) -> bool {
        self.live.waiting() == 0 && LiveDriver::next_at(self).is_none()
    }
    fn snapshot(&self) -> Json {
        Json::of(&self.output())
    }
    fn snapshot_ms(&self) -> f64 {
        S::SNAPSHOT_MS
    }
}
