//! The one pair every lab whose actors speak Redis runs as: [`SimRun`] (the actors on a
//! [`SimRedis`] in virtual time, stepped by the worker) and [`LiveRun`] (the same actors on a
//! [`LiveRedis`], a real Redis through the proxy, in real time). A lab writes a [`Scenario`] —
//! how to build its world on any backend and what a world shows — and gets both.
//!
//! A lab whose one run is a scenario made from its typed parameters (aside, queues, lock,
//! streams) says so once ([`ScenarioLab`]: the scenario of its parameters, its seed, its text)
//! and its [`Lab`](super::lab::Lab) answers `start`, `live` and `cli` with [`start`], [`live`]
//! and [`cli`]: how the simulation, the live run and `labsim`'s text and JSON start is written
//! here once.

use super::def::{LabParams, RunDef};
use super::lab::{AnyRun, Job, Json, LiveDriver, Run};
use super::params::Params;
use crate::cli::{Args, CliError};
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

/// A lab whose one run is a [`Scenario`] made from its typed parameters (see the module doc).
pub trait ScenarioLab: Scenario + Sized + 'static {
    /// The lab's typed parameters.
    type Params: LabParams;
    /// The lab's run (its name in a job, its output: the scenario's).
    type Run: RunDef<Part = (), Output = Self::Output>;

    /// The scenario of `p`; `live_scale: Some(k)` shapes it for a live run slowed `k` times
    /// (the simulation of the same shape is that run's prediction), `None` runs `p` as it is.
    fn of(p: &Self::Params, live_scale: Option<u64>) -> Self;

    /// The seed its world runs with.
    fn seed(&self) -> u32;

    /// `labsim`'s text of a run: its output and its trace (empty when the world keeps none).
    const TEXT: fn(&Self::Output, &str) -> String;

    /// What `labsim --json` prints without `--page` (the page's part left out; by default the
    /// whole output).
    const PRINTED: fn(Self::Output) -> Self::Output = std::convert::identity;
}

impl<S: ScenarioLab> SimRun<S> {
    /// The simulated run of `p`, shaped as [`ScenarioLab::of`] says (nothing happened yet).
    pub fn of(p: &S::Params, live_scale: Option<u64>) -> Self {
        let scenario = S::of(p, live_scale);
        let seed = scenario.seed();
        SimRun::new(scenario, seed)
    }

    /// The run so far as `labsim` writes it: its output and its trace.
    pub fn text(&self) -> String {
        (S::TEXT)(&self.output(), &self.world.trace_text())
    }
}

impl<S: ScenarioLab> LiveRun<S> {
    /// The live run of `p`, shaped as [`ScenarioLab::of`] says (nothing sent yet).
    pub fn of(p: &S::Params, live_scale: Option<u64>) -> Self {
        LiveRun::new(S::of(p, live_scale))
    }
}

/// Runs `p` to the end.
pub fn run<S: ScenarioLab>(p: &S::Params) -> S::Output {
    SimRun::<S>::of(p, None).finish()
}

/// A scenario lab's [`Lab::start`](super::lab::Lab::start): the simulation of `job`, shaped for
/// its live run when it asks.
///
/// # Errors
/// None: every checked parameter set runs.
pub fn start<S: ScenarioLab>(job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
    Ok(S::Run::erase(SimRun::<S>::of(&p.read(), job.live_scale)))
}

/// A scenario lab's [`Lab::live`](super::lab::Lab::live): the same actors against a real Redis.
pub fn live<S: ScenarioLab>(job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
    Some(Box::new(LiveRun::<S>::of(&p.read(), job.live_scale)))
}

/// A scenario lab's [`Lab::cli`](super::lab::Lab::cli): the run to its end, as text or (with
/// `--json`) as the output's JSON — the printed one, or with `--page` the whole output.
///
/// # Errors
/// None: the parameters were checked before.
pub fn cli<S: ScenarioLab>(p: &Params, a: &Args) -> Result<String, CliError> {
    let mut run = SimRun::<S>::of(&p.read(), None);
    run.steps(usize::MAX);
    let out = run.output();
    let text = (S::TEXT)(&out, &run.world.trace_text());
    Ok(crate::cli::emit(a, text, || {
        let out = if a.flag("page") {
            out
        } else {
            (S::PRINTED)(out)
        };
        serde_json::to_value(&out).unwrap_or_default()
    }))
}
