//! The experiment, a `k` per step: `sampling_quality` (`crate::eviction::sampling`) for
//! `k = 1..=kmax`, continuing one `mulberry32(seed)` from `k` to `k` exactly as the single
//! call (and `labsim`) does.

use super::output::SamplingOutput;
use super::params::SamplingParams;
use crate::eviction::sampling::{sampling_point, SamplingPoint};
use crate::labs::lab::Run;
use crate::rng::Mulberry32;

/// The experiment of some parameters, measured a `k` at a time.
pub struct Sweep {
    p: SamplingParams,
    rng: Mulberry32,
    next: u32,
    drawn: u64,
    points: Vec<SamplingPoint>,
}

impl Sweep {
    /// The experiment of `p`.
    pub fn new(p: SamplingParams) -> Self {
        Sweep {
            rng: Mulberry32::new(p.seed),
            p,
            next: 1,
            drawn: 0,
            points: Vec::new(),
        }
    }

    /// The points so far.
    pub fn points(&self) -> &[SamplingPoint] {
        &self.points
    }
}

impl Run for Sweep {
    type Part = SamplingPoint;
    type Output = SamplingOutput;

    /// Measures the next `k`.
    fn step(&mut self) -> Option<SamplingPoint> {
        if self.is_done() {
            return None;
        }
        let k = self.next;
        let pt = sampling_point(self.p.keys, k, self.p.trials, &mut self.rng);
        self.points.push(pt);
        self.drawn += u64::from(self.p.trials) * u64::from(k);
        self.next += 1;
        Some(pt)
    }

    fn is_done(&self) -> bool {
        self.next > self.p.kmax
    }

    /// By random draws.
    fn progress(&self) -> f64 {
        let k = u64::from(self.p.kmax);
        let all = (u64::from(self.p.trials) * k * (k + 1) / 2).max(1);
        self.drawn as f64 / all as f64
    }

    fn output(&mut self) -> SamplingOutput {
        SamplingOutput {
            points: self.points.clone(),
        }
    }
}

/// The whole experiment of `p`.
pub fn run(p: SamplingParams) -> SamplingOutput {
    let mut s = Sweep::new(p);
    while !s.is_done() {
        s.step();
    }
    s.output()
}
