//! The cache engine's simulation: the instances ([`instances::CacheModel`], a model of the
//! one engine), the commands they send ([`cmd`]), what a run leaves ([`record`]), and the
//! engine on the platform — a [`Scenario`] ([`CacheScenario`]) whose world is the model, so
//! the lab gets [`SimRun`] (simulated, stepped by the worker) and [`LiveRun`] (the same
//! instances against a real Redis) — and the lab's pair, every layer off beside the chosen
//! layers on the same seed ([`PairSim`]).

pub mod cmd;
pub mod instances;
pub mod record;

use super::super::lab::Run;
use super::super::scenario::{LiveRun, Scenario, SimRun};
use super::output::CacheOutput;
use super::params::{CacheConfig, Layers};
use crate::world::{Backend, Hop, World};
use instances::{starting_entry, CacheModel};
use record::{CacheRecord, PairRecord};
use std::cell::{Ref, RefCell};
use std::rc::Rc;

/// One cache-engine run of a config, on any backend, and what it is shown beside: the
/// layers-off run of the lab's pair, or a live run's prediction (the simulation of the same
/// config). Its output is the lab's [`CacheOutput`]: the other run on the left (`off`), this
/// one on the right (`on`); alone, the run is on both sides.
pub struct CacheScenario {
    cfg: CacheConfig,
    beside: Option<CacheRecord>,
    /// What the model writes: requests, queries, the command log, the counters.
    record: Rc<RefCell<CacheRecord>>,
}

impl CacheScenario {
    /// The run of `cfg`, alone.
    pub fn new(cfg: &CacheConfig) -> Self {
        CacheScenario {
            cfg: *cfg,
            beside: None,
            record: Rc::new(RefCell::new(CacheRecord::empty(*cfg))),
        }
    }

    /// The same, shown beside `other`.
    pub fn beside(mut self, other: CacheRecord) -> Self {
        self.beside = Some(other);
        self
    }

    /// A live run of `cfg` beside its prediction: the simulation of the same config.
    pub fn live(cfg: &CacheConfig) -> Self {
        CacheScenario::new(cfg).beside(run(cfg))
    }

    /// The config.
    pub fn config(&self) -> &CacheConfig {
        &self.cfg
    }

    /// The run shown beside this one, if any (a live run's prediction).
    pub fn other(&self) -> Option<&CacheRecord> {
        self.beside.as_ref()
    }

    /// What happened so far, as the model wrote it (the counters that need the whole log
    /// are settled by [`CacheScenario::result`]).
    pub fn so_far(&self) -> Ref<'_, CacheRecord> {
        self.record.borrow()
    }

    /// What happened in `world` so far, settled: the end time and the counters of the whole
    /// log; `rtts` (a live run's round trips, in the order the replies came) on the lines.
    fn settle<B: Backend>(&self, world: &World<B, CacheModel>, rtts: &[u32]) {
        let mut r = self.record.borrow_mut();
        r.end_ms = world.now_ms();
        r.settle_counts();
        // The starting entry's reply came first and is not in the log.
        let seeded = usize::from(!rtts.is_empty() && starting_entry(&self.cfg).is_some());
        for (l, &us) in r.log.iter_mut().zip(rtts.iter().skip(seeded)) {
            l.rtt_us = Some(us);
        }
    }

    /// What happened in `world` so far, settled (a copy; a live run's lines carry the round
    /// trips its last output put on them).
    pub fn result<B: Backend>(&self, world: &World<B, CacheModel>) -> CacheRecord {
        self.settle(world, &[]);
        self.record.borrow().clone()
    }

    /// The whole result of a run that is over (taken: the scenario keeps an empty record).
    fn take<B: Backend>(&self, world: &World<B, CacheModel>) -> CacheRecord {
        self.settle(world, &[]);
        self.record.replace(CacheRecord::empty(self.cfg))
    }
}

impl Scenario for CacheScenario {
    type Model = CacheModel;
    type Output = CacheOutput;
    const EVENTS: usize = 16_384;
    const SNAPSHOT_MS: f64 = 250.0;

    fn world<B: Backend>(&mut self, mut backend: B, live: bool) -> World<B, CacheModel> {
        let cfg = self.cfg;
        let entry = starting_entry(&cfg);
        if !live {
            // In place before anyone reads (client 0 is nobody's).
            if let Some(c) = &entry {
                let _ = backend.send(0, 0, 0, c);
            }
        }
        let model = CacheModel::new(cfg, live, self.record.clone());
        let mut world = World::with_model(cfg.seed, backend, model);
        // The command log is the model's; the trace would keep every command twice.
        world.set_trace(false);
        if !live {
            // Each hop to Redis 1–2 ms; live, the real network is in the round trips.
            world.set_health(cfg.redis.link());
            let hop = Hop {
                to_redis_ms: 1,
                from_redis_ms: 1,
                jitter_ms: 1,
            };
            for i in 0..cfg.instances as usize {
                world.io_mut().set_hop(i, hop);
            }
        }
        world.start(|m, io| m.start(io, entry.filter(|_| live)));
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, CacheModel>) -> f64 {
        if self.cfg.requests == 0 {
            1.0
        } else {
            world.model().answered() as f64 / f64::from(self.cfg.requests)
        }
    }

    fn output<B: Backend>(
        &self,
        world: &World<B, CacheModel>,
        live: Option<&[u32]>,
    ) -> CacheOutput {
        self.settle(world, live.unwrap_or(&[]));
        let this = self.record.borrow();
        CacheOutput::timeline(self.beside.as_ref().unwrap_or(&this), &this)
    }
}

/// A cache-engine run simulated, stepped one event at a time.
pub type CacheSim = SimRun<CacheScenario>;

/// The same instances against a real Redis, in real time (live mode), beside their
/// prediction: see [`LiveRun`]. The simulated network hop is replaced by the real round trip;
/// the loader (the database) stays a timer.
pub type CacheLive = LiveRun<CacheScenario>;

/// The simulated run of `cfg` (nothing happened yet).
pub fn sim(cfg: &CacheConfig) -> CacheSim {
    SimRun::new(CacheScenario::new(cfg), cfg.seed)
}

/// The live run of `cfg` (as [`CacheConfig::for_live`] shapes it) beside its prediction
/// (nothing sent yet).
pub fn live(cfg: &CacheConfig) -> CacheLive {
    LiveRun::new(CacheScenario::live(cfg))
}

/// Runs `r` to the end and gives its result.
pub fn finish(mut r: CacheSim) -> CacheRecord {
    while r.step_event() {}
    r.scenario().take(r.world())
}

/// Runs `cfg` to the end.
pub fn run(cfg: &CacheConfig) -> CacheRecord {
    finish(sim(cfg))
}

/// The same config with every layer off.
fn layers_off(cfg: &CacheConfig) -> CacheConfig {
    CacheConfig {
        layers: Layers::NONE,
        ..*cfg
    }
}

/// Runs the pair for `cfg` (its layers are the "on" side).
pub fn pair(cfg: &CacheConfig) -> PairRecord {
    PairRecord {
        off: run(&layers_off(cfg)),
        on: run(cfg),
    }
}

/// The lab's pair run a slice at a time (the worker's run): every layer off, then the chosen
/// layers beside it.
pub struct PairSim {
    cfg: CacheConfig,
    off: Option<CacheSim>,
    on: Option<CacheSim>,
}

impl PairSim {
    /// Starts the pair of `cfg`.
    pub fn new(cfg: &CacheConfig) -> Self {
        PairSim {
            cfg: *cfg,
            off: Some(sim(&layers_off(cfg))),
            on: None,
        }
    }
}

impl Run for PairSim {
    type Part = ();
    type Output = CacheOutput;

    fn step(&mut self) -> Option<()> {
        if let Some(off) = &mut self.off {
            if off.steps(CacheScenario::EVENTS) {
                let done = self.off.take().map(finish)?;
                let on = CacheScenario::new(&self.cfg).beside(done);
                self.on = Some(SimRun::new(on, self.cfg.seed));
            }
        } else if let Some(on) = &mut self.on {
            on.steps(CacheScenario::EVENTS);
        }
        None
    }

    fn is_done(&self) -> bool {
        self.on.as_ref().is_some_and(SimRun::is_done)
    }

    fn progress(&self) -> f64 {
        match (&self.off, &self.on) {
            (Some(r), _) => Run::progress(r) / 2.0,
            (None, Some(r)) => 0.5 + Run::progress(r) / 2.0,
            (None, None) => 1.0,
        }
    }

    fn output(&mut self) -> CacheOutput {
        self.on.as_ref().map(SimRun::output).expect("done")
    }
}
