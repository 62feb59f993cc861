//! The lab as a [`Scenario`]: its actors ([`Streams`]) in a world in instant mode with the
//! trace off, on SimRedis ([`sim`]) or on a real Redis ([`StreamsLive`]).
//!
//! A simulation ends between two events (no chain of commands under way) as soon as the run
//! has settled, when only the sampler is left (everyone waits for ever, or is gone), or after
//! [`MAX_EVENTS`] events; its last sample is then taken from SimRedis itself. A live run ends
//! itself (the model's last sample) and stops once its last replies are in.

use super::super::output::{Sample, StreamsOutput};
use super::super::params::StreamsParams;
use super::super::{StreamsRun, GROUP, STREAM};
use super::Streams;
use crate::labs::scenario::{self, LiveRun, Scenario, ScenarioLab, SimRun};
use crate::world::{Backend, World};
use std::cell::Cell;

/// Guard against a run that never ends: events (between two of which the run may end).
pub const MAX_EVENTS: u64 = 20_000_000;

/// The lab's actors with the parameters they run with.
pub struct StreamsScenario {
    p: StreamsParams,
    /// Events so far (chains of commands count once).
    events: Cell<u64>,
    /// The simulation ended.
    over: Cell<bool>,
}

impl StreamsScenario {
    /// The run of `p`.
    pub fn new(p: &StreamsParams) -> Self {
        StreamsScenario {
            p: p.clone(),
            events: Cell::new(0),
            over: Cell::new(false),
        }
    }

    /// The parameters it runs with.
    pub fn params(&self) -> &StreamsParams {
        &self.p
    }
}

impl ScenarioLab for StreamsScenario {
    type Params = StreamsParams;
    type Run = StreamsRun;

    /// A live run is scaled down ([`StreamsParams::for_live`]).
    fn of(p: &StreamsParams, live_scale: Option<u64>) -> Self {
        StreamsScenario::new(&live_scale.map_or_else(|| p.clone(), |k| p.for_live(k)))
    }

    fn seed(&self) -> u32 {
        self.p.seed
    }

    /// The world keeps no trace: the lab's own log is in the output.
    const TEXT: fn(&StreamsOutput, &str) -> String = |out, _| out.text();
}

/// The simulated run, stepped an event at a time.
pub type StreamsSim = SimRun<StreamsScenario>;
/// The same actors against a real Redis, in real time (live mode): see [`LiveRun`].
pub type StreamsLive = LiveRun<StreamsScenario>;

/// Runs `p` to the end.
pub fn run(p: &StreamsParams) -> StreamsOutput {
    scenario::run::<StreamsScenario>(p)
}

impl Scenario for StreamsScenario {
    type Model = Streams;
    type Output = StreamsOutput;
    const EVENTS: usize = 32_768;
    const SNAPSHOT_MS: f64 = 250.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B, Streams> {
        let mut world = World::with_model(self.p.seed, backend, Streams::new(&self.p, live));
        // Millions of commands: the lab keeps its own bounded log.
        world.set_trace(false);
        world.set_instant(true);
        world.start(|m, io| m.start(io));
        world
    }

    fn go<B: Backend>(&self, world: &World<B, Streams>) -> bool {
        let m = world.model();
        if m.live || world.in_instant() {
            return true;
        }
        // Between two events: where the run may end.
        if let Some(redis) = world.backend().sim() {
            debug_assert_eq!(
                m.pending,
                redis.stream_pending(STREAM.as_bytes(), GROUP.as_bytes()),
                "the consumers' count of pending entries is Redis' own"
            );
        }
        // Only the sampler left (everyone waits for ever, or is gone), or nothing at all.
        let idle = m.timers == 0 && world.backend().next_timeout_ms().is_none()
            || world.next_at().is_none();
        let events = self.events.get() + 1;
        self.events.set(events);
        let end = idle || events > MAX_EVENTS || m.settled();
        if end {
            self.over.set(true);
        }
        !end
    }

    fn progress<B: Backend>(&self, world: &World<B, Streams>) -> f64 {
        world.model().progress()
    }

    fn output<B: Backend>(&self, world: &World<B, Streams>, live: Option<&[u32]>) -> StreamsOutput {
        let rtts = live.unwrap_or(&[]);
        let m = world.model();
        let now = world.now_ms();
        let mut counters = m.c;
        counters.stuck = m.stuck();
        let mut samples = m.samples.clone();
        let over = self.over.get() || world.next_at().is_none();
        if let Some(redis) = world.backend().sim() {
            // The state now, as SimRedis holds it (at the end, always the last sample).
            if over || samples.last().is_none_or(|s| s.t < now) {
                samples.push(Sample {
                    t: now,
                    xlen: redis.stream_len(STREAM.as_bytes()),
                    pending: redis.stream_pending(STREAM.as_bytes(), GROUP.as_bytes()),
                    counters,
                });
            }
        }
        let (log, alarms) = m.log.lines(rtts);
        StreamsOutput {
            params: self.p.clone(),
            samples,
            log,
            alarms,
            counters,
            crash_ms: m.crash_ms,
            end_ms: m.over_ms.unwrap_or(now),
            settled: if m.live {
                m.settled_at_close
            } else {
                over && m.settled()
            },
            live: m.live,
        }
    }
}
