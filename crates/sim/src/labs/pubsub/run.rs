//! The run: the three adapters one after the other on fresh SimRedis worlds (the chosen one
//! first, recorded), stepped a slice of events at a time.

use super::model::{sub_client, PubSubModel, BUCKET_MS, HOP_MS, START_MS};
use super::result::{PubSubResult, Summary};
use super::{PubSubParams, ADAPTERS};
use crate::labs::lab::Run;
use crate::redis::SimRedis;
use crate::world::{Hop, World};

/// Events per unit of work.
const EVENTS: usize = 4096;

struct Sim {
    world: World<SimRedis, PubSubModel>,
}

impl Sim {
    fn new(p: &PubSubParams, adapter: &str, record: bool) -> Self {
        let model = PubSubModel::new(p, adapter, record);
        let mut world = World::sim_with(p.seed, model);
        world.set_trace(false);
        world.start(|m, io| {
            for a in 0..2 * p.instances as usize {
                io.set_hop(a, Hop::symmetric(HOP_MS));
            }
            m.start(io);
        });
        Sim { world }
    }

    /// Up to `n` events; true when the world is idle.
    fn steps(&mut self, n: usize, instances: usize) -> bool {
        for _ in 0..n {
            if !self.world.step() {
                return true;
            }
            if let Some(c) = self.world.model_mut().drop_client.take() {
                self.world.backend_mut().disconnect(c);
            }
            if self.world.model().in_flight > 0 {
                self.drain(instances);
            }
        }
        false
    }

    /// Hands the instances what their subscribers received.
    fn drain(&mut self, instances: usize) {
        for i in 0..instances {
            let pushed = self.world.backend_mut().take_messages(sub_client(i));
            if pushed.is_empty() {
                continue;
            }
            // The model schedules each push's arrival through the engine's timers.
            let w = &mut self.world;
            w.start(|m, io| {
                for r in &pushed {
                    m.pushed(i, r, io);
                }
            });
        }
    }
}

/// The lab's run (see the module doc).
pub struct PubSubRun {
    p: PubSubParams,
    order: Vec<&'static str>,
    at: usize,
    sim: Option<Sim>,
    done: Vec<Summary>,
    result: Option<PubSubResult>,
}

impl PubSubRun {
    /// The run of `p` (nothing happened yet).
    pub fn new(p: &PubSubParams) -> Self {
        let chosen = ADAPTERS
            .iter()
            .copied()
            .find(|a| *a == p.adapter)
            .unwrap_or("dynamic");
        let mut order = vec![chosen];
        order.extend(ADAPTERS.iter().copied().filter(|a| *a != chosen));
        PubSubRun {
            p: p.clone(),
            order,
            at: 0,
            sim: None,
            done: Vec::new(),
            result: None,
        }
    }

    fn end_ms(&self) -> u64 {
        START_MS + u64::from(self.p.seconds) * 1000 + self.p.away_at + self.p.away + BUCKET_MS
    }

    /// One slice; true when everything is done.
    fn slice(&mut self) -> bool {
        if self.at >= self.order.len() {
            return true;
        }
        let adapter = self.order[self.at];
        let first = self.at == 0;
        let sim = self
            .sim
            .get_or_insert_with(|| Sim::new(&self.p, adapter, first));
        if !sim.steps(EVENTS, self.p.instances as usize) {
            return false;
        }
        let mut sim = self.sim.take().expect("a world runs");
        let model = sim.world.model_mut();
        let instances = model.finish();
        self.done.push(model.sum.clone());
        if first {
            let (biggest_room, rooms_used, rooms_everywhere) = model.rooms();
            let (stop_ms, away) = model.window();
            let rec = model.rec.take().expect("the chosen adapter records");
            let mut log = rec.log;
            log.sort_by_key(|l| l.at_ms());
            self.result = Some(PubSubResult {
                params: self.p.clone(),
                summary: model.sum.clone(),
                compare: Vec::new(),
                instances,
                biggest_room,
                rooms_used,
                rooms_everywhere,
                start_ms: START_MS,
                stop_ms,
                away,
                bucket_ms: BUCKET_MS,
                buckets: rec.buckets,
                log,
            });
        }
        self.at += 1;
        self.at >= self.order.len()
    }

    /// The result, once done.
    pub fn result(&self) -> Option<PubSubResult> {
        let mut r = self.result.clone()?;
        if self.at < self.order.len() {
            return None;
        }
        r.compare = ADAPTERS
            .iter()
            .filter_map(|a| self.done.iter().find(|s| s.adapter == *a).cloned())
            .collect();
        Some(r)
    }
}

impl Run for PubSubRun {
    type Part = ();
    type Output = PubSubResult;

    fn step(&mut self) -> Option<()> {
        self.slice();
        None
    }

    fn is_done(&self) -> bool {
        self.at >= self.order.len()
    }

    fn progress(&self) -> f64 {
        let within = self
            .sim
            .as_ref()
            .map_or(0.0, |s| s.world.now_ms() as f64 / self.end_ms() as f64);
        ((self.at as f64 + within.min(0.99)) / self.order.len() as f64).min(0.99)
    }

    fn output(&mut self) -> PubSubResult {
        self.result().expect("asked when done")
    }
}

/// Runs `p` to the end.
pub fn run(p: &PubSubParams) -> PubSubResult {
    let mut r = PubSubRun::new(p);
    while !r.slice() {}
    r.result().expect("done")
}
