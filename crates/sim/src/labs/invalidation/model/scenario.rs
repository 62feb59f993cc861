//! One action as a [`Scenario`] (on any backend: the differential test runs it on a real
//! Redis): the keyspace written before the change, and what it holds at a moment.

use super::super::output::{ActionOutcome, Design, Sample};
use super::super::params::InvalidationParams;
use super::super::{CATALOG_VERSION, CV0, LIST_TTL_S, SAMPLE, SV0};
use super::actors::{Inval, Kind, Tick, APP, KNOWN, READER, STALLED, WRITER};
use super::run::action_outcome;
use super::{Way, STALL_MS, T_CHANGE, T_EDIT};
use crate::labs::scenario::Scenario;
use crate::redis::SimRedis;
use crate::world::{cmd, Backend, Command, Hop, World};

/// One action as a [`Scenario`] (on any backend: the differential test runs it on a real
/// Redis).
pub struct InvalidationScenario {
    way: Way,
    p: InvalidationParams,
}

/// Action `way` of `p` as a [`Scenario`].
pub fn scenario(p: &InvalidationParams, way: Way) -> InvalidationScenario {
    InvalidationScenario { way, p: p.clone() }
}

/// The keyspace before the change, written at time 0 (not logged): the catalog's version
/// and its lists (each with what is left of its 30 s), the four known keys, the other keys
/// and, for two versions, the sample's versions and my-courses lists.
pub(super) fn prefill<B: Backend>(backend: &mut B, m: &mut Inval) {
    let put = |backend: &mut B, c: Command| {
        backend.send(0, usize::MAX, 0, &c);
    };
    put(backend, cmd(&["SET", CATALOG_VERSION, &CV0.to_string()]));
    for f in 0..m.p.lists {
        let left = 1_000 + u64::from(m.rng.below(29_001));
        let k = m.list_key(f, CV0);
        put(backend, cmd(&["SET", &k, "rev1", "PX", &left.to_string()]));
        m.track(k, Kind::Catalog(CV0), left);
    }
    for (k, ttl) in KNOWN {
        put(backend, cmd(&["SET", k, "rev1", "EX", &ttl.to_string()]));
        m.track(k.to_string(), Kind::Known, ttl * 1_000);
    }
    for i in 0..m.p.others {
        let (k, ttl) = match i % 3 {
            0 => (format!("cache:auth:user:v1:student:u{i:05}"), 60),
            1 => (format!("cache:authz:v1:course-student:u{i:05}:c47b"), 120),
            _ => (format!("cache:live-class:v1:list:b{i:05}"), 120),
        };
        put(backend, cmd(&["SET", &k, "1", "EX", &ttl.to_string()]));
        m.others.push(ttl * 1_000);
    }
    if let Some(d) = m.design() {
        for s in 0..SAMPLE {
            if d != Design::Course {
                put(backend, cmd(&["SET", &Inval::sv_key(s), &SV0.to_string()]));
            }
            let k = m.mc_key(s, SV0, CV0);
            let ttl = LIST_TTL_S.to_string();
            put(backend, cmd(&["SET", &k, "e1:c1", "EX", &ttl]));
            m.track(
                k,
                Kind::MyCourses {
                    s,
                    sv: SV0,
                    cv: CV0,
                },
                LIST_TTL_S * 1_000,
            );
        }
    }
}

impl Scenario for InvalidationScenario {
    type Model = Inval;
    type Output = ActionOutcome;

    fn world<B: Backend>(&mut self, mut backend: B, _live: bool) -> World<B, Inval> {
        let mut model = Inval::new(self.way, &self.p);
        prefill(&mut backend, &mut model);
        let mut world = World::with_model(self.p.seed, backend, model);
        world.set_trace(false);
        let hop = Hop {
            to_redis_ms: self.p.rtt / 2,
            from_redis_ms: self.p.rtt - self.p.rtt / 2,
            jitter_ms: 0,
        };
        let two = matches!(self.way, Way::TwoVersions(_));
        world.start(|_, io| {
            for a in [APP, WRITER, READER] {
                io.set_hop(a, hop);
            }
            io.set_hop(STALLED, Hop::symmetric(STALL_MS));
            io.at(T_CHANGE, Tick::Change);
            if two {
                io.at(T_EDIT, Tick::Edit);
            }
        });
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, Inval>) -> f64 {
        (world.now_ms() as f64 / 40_000.0).min(0.99)
    }

    fn output<B: Backend>(&self, world: &World<B, Inval>, _live: Option<&[u32]>) -> ActionOutcome {
        action_outcome(self.way, world.model(), Vec::new())
    }
}

/// The keyspace as `sim` holds it at `at_ms` (its clock already there).
pub(super) fn look(m: &Inval, sim: &SimRedis, at_ms: u64) -> Sample {
    let int = |k: &str| {
        sim.peek_string(k.as_bytes())
            .and_then(|(v, _)| std::str::from_utf8(v).ok()?.parse::<i64>().ok())
    };
    let cv = int(CATALOG_VERSION).unwrap_or(CV0);
    let mut s = Sample {
        at_ms,
        others: m.others.iter().filter(|&&d| d > at_ms).count() as u32,
        ..Sample::default()
    };
    let design = m.design();
    for k in &m.keys {
        let alive = sim.peek_string(k.name.as_bytes()).is_some();
        match k.kind {
            Kind::Known => s.known += u32::from(alive),
            Kind::Catalog(v) => match (alive, v == cv) {
                (true, true) => s.reachable += 1,
                (true, false) => s.orphaned += 1,
                (false, _) if k.deadline <= at_ms => s.expired += 1,
                (false, _) => s.deleted += 1,
            },
            Kind::MyCourses { s: st, sv, cv: kcv } => {
                if !alive {
                    continue;
                }
                let sv_ok =
                    design == Some(Design::Course) || int(&Inval::sv_key(st)).unwrap_or(SV0) == sv;
                let cv_ok = design == Some(Design::Student) || kcv == cv;
                if sv_ok && cv_ok {
                    s.mc_reachable += 1;
                } else {
                    s.mc_orphaned += 1;
                }
            }
        }
    }
    s
}
