//! The lab's run: every action and design one after the other, a few events at a time, the
//! keyspace and the counters looked at once a second; what each came to.

use super::super::output::{
    ActionOutcome, ActionSeconds, Counts, Design, DesignOutcome, InvalidationOutput, Sample,
};
use super::super::params::{Action, InvalidationParams};
use super::super::{CV0, LIST_TTL_S, SAMPLE, SV0};
use super::actors::Inval;
use super::scenario::{look, scenario};
use super::{Way, T_CHANGE};
use crate::labs::lab::Run;
use crate::labs::scenario::Scenario;
use crate::redis::SimRedis;
use crate::world::World;

/// The action `way` is (or is part of).
fn action_of(way: Way) -> Action {
    match way {
        Way::Del => Action::Del,
        Way::ScanDel => Action::ScanDel,
        Way::Version => Action::Version,
        Way::TwoVersions(_) => Action::TwoVersions,
    }
}

/// What the actors of `way` have counted so far.
fn counts(way: Way, m: &Inval) -> Counts {
    Counts {
        unreachable: match way {
            Way::TwoVersions(_) => m.effects[0].own_unreachable + m.effects[0].others_unreachable,
            _ => m.unreachable,
        },
        round_trips: m.round_trips,
        scan_calls: m.scan_calls,
        walked: m.walked,
        missed: m.missed,
        db_loads: m.db_loads,
        stale_reads: m.stale,
        commands: m.commands,
    }
}

/// What action `way` came to, with its keyspace `samples`.
pub(super) fn action_outcome(way: Way, m: &Inval, samples: Vec<Sample>) -> ActionOutcome {
    let c = counts(way, m);
    ActionOutcome {
        action: action_of(way),
        log: m.log.clone(),
        commands: c.commands,
        samples,
        start_ms: T_CHANGE,
        done_ms: m.done_ms.unwrap_or(T_CHANGE),
        unreachable: c.unreachable,
        round_trips: c.round_trips,
        scan_calls: c.scan_calls,
        walked: c.walked,
        written_during: m.written_during.len() as u32,
        missed: c.missed,
        fulfilled: m.fulfilled,
        rejected: m.rejected,
        reads: m.reads,
        db_loads: c.db_loads,
        stale_reads: c.stale_reads,
    }
}

/// Sample figures scaled to `viewers`: the changed student's own, and the other students'
/// share of the rest.
fn scale(own: u32, others: u32, viewers: u64) -> u64 {
    let rest = u64::from(others) * (viewers - 1);
    u64::from(own) + (rest + u64::from(SAMPLE - 1) / 2) / u64::from(SAMPLE - 1)
}

fn design_outcome(d: Design, m: &Inval, p: &InvalidationParams) -> DesignOutcome {
    let eff = |i: usize| {
        let mut e = m.effects[i];
        e.unreachable = scale(e.own_unreachable, e.others_unreachable, p.viewers);
        e.db_loads = scale(m.own_loads[i], e.sample_loads - m.own_loads[i], p.viewers);
        e.stale_reads = scale(m.own_stale[i], e.sample_stale - m.own_stale[i], p.viewers);
        e
    };
    DesignOutcome {
        design: d,
        key: m.mc_key(0, SV0, CV0),
        purchase: eff(0),
        edit: eff(1),
        read_trips: 2,
    }
}

/// Events per unit of work: a SCAN over the largest keyspace costs about half a millisecond
/// natively.
const EVENTS: usize = 8;

/// The ways a run steps through: the four actions, two versions in its three designs (the
/// `both` one is the action's).
pub const WAYS: [Way; 6] = [
    Way::Del,
    Way::ScanDel,
    Way::Version,
    Way::TwoVersions(Design::Both),
    Way::TwoVersions(Design::Course),
    Way::TwoVersions(Design::Student),
];

struct Stepper {
    way: Way,
    world: World<SimRedis, Inval>,
    next_sample: u64,
    samples: Vec<Sample>,
    /// The counters at each sample.
    seconds: Vec<Counts>,
}

impl Stepper {
    fn new(p: &InvalidationParams, way: Way) -> Self {
        let mut sc = scenario(p, way);
        let world = sc.world(SimRedis::new(p.seed).with_named_scripts(), false);
        Stepper {
            way,
            world,
            next_sample: 0,
            samples: Vec::new(),
            seconds: Vec::new(),
        }
    }

    fn sample(&mut self) {
        let t = self.next_sample;
        SimRedis::advance_to(self.world.backend_mut(), t);
        let s = look(self.world.model(), self.world.backend(), t);
        self.samples.push(s);
        self.seconds.push(counts(self.way, self.world.model()));
        self.next_sample += 1_000;
    }

    /// Up to [`EVENTS`] events (and the samples due); true when over.
    fn steps(&mut self) -> bool {
        for _ in 0..EVENTS {
            match self.world.next_at() {
                Some(t) if t <= self.next_sample => {
                    self.world.step();
                }
                Some(_) => self.sample(),
                None => {
                    let m = self.world.model();
                    let end = m.done_ms.unwrap_or(T_CHANGE) + LIST_TTL_S * 1_000 + 1_000;
                    let end = end.max(self.world.now_ms() + 1_000);
                    if self.next_sample > end {
                        return true;
                    }
                    self.sample();
                }
            }
        }
        false
    }
}

/// The lab's run: every way, a few events at a time (what the worker steps).
pub struct InvalidationSim {
    p: InvalidationParams,
    i: usize,
    cur: Option<Stepper>,
    actions: Vec<ActionOutcome>,
    designs: Vec<DesignOutcome>,
}

impl InvalidationSim {
    /// The run of `p` (nothing done yet).
    pub fn new(p: &InvalidationParams) -> Self {
        InvalidationSim {
            p: p.clone(),
            i: 0,
            cur: None,
            actions: Vec::new(),
            designs: Vec::new(),
        }
    }

    /// Way `st` is over: its outcome, and its counters second by second when it is one of
    /// the actions.
    fn finish_way(&mut self, st: Stepper) -> Option<ActionSeconds> {
        let m = st.world.model();
        if let Way::TwoVersions(d) = st.way {
            self.designs.push(design_outcome(d, m, &self.p));
            if d != Design::Both {
                return None;
            }
        }
        let action = action_of(st.way);
        self.actions.push(action_outcome(st.way, m, st.samples));
        Some(ActionSeconds {
            action,
            counts: st.seconds,
        })
    }
}

impl Run for InvalidationSim {
    type Part = ActionSeconds;
    type Output = InvalidationOutput;

    fn step(&mut self) -> Option<ActionSeconds> {
        if self.i >= WAYS.len() {
            return None;
        }
        let st = self
            .cur
            .get_or_insert_with(|| Stepper::new(&self.p, WAYS[self.i]));
        if st.steps() {
            let st = self.cur.take().expect("running");
            self.i += 1;
            return self.finish_way(st);
        }
        None
    }

    fn is_done(&self) -> bool {
        self.i >= WAYS.len()
    }

    fn progress(&self) -> f64 {
        let within = self
            .cur
            .as_ref()
            .map_or(0.0, |s| (s.world.now_ms() as f64 / 45_000.0).min(0.95));
        (self.i as f64 + within) / WAYS.len() as f64
    }

    fn output(&mut self) -> InvalidationOutput {
        // The designs in the table's order: course only, student only, both.
        let mut designs = std::mem::take(&mut self.designs);
        designs.sort_by_key(|d| Design::ALL.iter().position(|x| *x == d.design));
        InvalidationOutput {
            params: self.p.clone(),
            actions: std::mem::take(&mut self.actions),
            designs,
        }
    }
}

/// Every action of `p`, run to the end.
pub fn run(p: &InvalidationParams) -> InvalidationOutput {
    let mut r = InvalidationSim::new(p);
    while !r.is_done() {
        r.step();
    }
    r.output()
}
