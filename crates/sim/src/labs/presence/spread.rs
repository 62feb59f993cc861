//! The spread: the estimate's error over many rooms, each a fresh SimRedis holding one
//! HyperLogLog of `sample` distinct viewers.

use super::{PresenceParams, CHUNK};
use crate::labs::lab::Run;
use crate::redis::SimRedis;
use serde::{Deserialize, Serialize};

/// Redis' standard error with 16,384 registers: 1.04/√16384, percent.
pub const STANDARD_ERROR_PCT: f64 = 0.8125;
/// The histogram's bins, each 0.25% wide, from -4% to +4% (the outer two catch the rest).
pub const BINS: usize = 32;
/// A bin's width, percent.
pub const BIN_PCT: f64 = 0.25;

/// The spread run's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpreadOutput {
    /// Rooms counted.
    pub seeds: u32,
    /// Viewers per room.
    pub sample: u32,
    /// Each room's error, percent: `(PFCOUNT - sample) / sample`.
    pub errors: Vec<f64>,
    /// How many errors fall in each bin of [`BIN_PCT`] from -4% ([`BINS`] bins).
    pub histogram: Vec<u32>,
    /// Mean error, percent.
    pub mean_pct: f64,
    /// Standard deviation of the errors, percent.
    pub sd_pct: f64,
    /// Rooms off by more than the standard error.
    pub beyond: u32,
    /// Rooms off by more than twice the standard error.
    pub beyond2: u32,
    /// The largest error by size, percent (with its sign).
    pub worst_pct: f64,
}

/// The spread, a room per step.
pub struct SpreadRun {
    p: PresenceParams,
    errors: Vec<f64>,
    /// The room being filled (its SimRedis, viewers added).
    room: Option<(SimRedis, u32)>,
}

impl SpreadRun {
    /// The spread of `p`, nothing run yet.
    pub fn new(p: &PresenceParams) -> Self {
        SpreadRun {
            p: p.clone(),
            errors: Vec::with_capacity(p.seeds as usize),
            room: None,
        }
    }

    /// Adds up to `budget` viewers to the current room (a new room when none); counts it when
    /// full. Returns the viewers added.
    fn fill(&mut self, budget: u32) -> u32 {
        let (mut r, done) = match self.room.take() {
            Some(x) => x,
            None => {
                // Room i: a fresh server (its own seed), its own viewer names.
                let i = self.errors.len() as u32;
                (SimRedis::new(self.p.seed.wrapping_add(i)), 0)
            }
        };
        let base = self.base();
        let key: &[u8] = b"hll:room:42";
        let end = (done + budget).min(self.p.sample);
        let mut at = done;
        let mut names: Vec<String> = Vec::with_capacity(CHUNK);
        while at < end {
            let to = (at + CHUNK as u32).min(end);
            names.clear();
            names.extend((at..to).map(|j| format!("user:{}", base + u64::from(j))));
            let mut a: Vec<&[u8]> = Vec::with_capacity(2 + names.len());
            a.push(b"PFADD");
            a.push(key);
            a.extend(names.iter().map(String::as_bytes));
            r.call(&a);
            at = to;
        }
        if end == self.p.sample {
            let n = r.call(&[b"PFCOUNT", key]).as_int().unwrap_or(0);
            let s = f64::from(self.p.sample);
            self.errors.push(100.0 * (n as f64 - s) / s);
        } else {
            self.room = Some((r, end));
        }
        end - done
    }

    /// The current room's first viewer number: rooms far apart, so no two share a name.
    fn base(&self) -> u64 {
        (u64::from(self.p.seed) << 32) + (self.errors.len() as u64) * 1_000_000
    }

    fn summary(&self) -> SpreadOutput {
        let e = &self.errors;
        let n = e.len().max(1) as f64;
        let mean = e.iter().sum::<f64>() / n;
        let sd = libm::sqrt(e.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n);
        let mut histogram = vec![0u32; BINS];
        for x in e {
            let b = libm::floor((x + BIN_PCT * BINS as f64 / 2.0) / BIN_PCT);
            histogram[b.clamp(0.0, (BINS - 1) as f64) as usize] += 1;
        }
        let worst = e
            .iter()
            .copied()
            .fold(0.0f64, |w, x| if x.abs() > w.abs() { x } else { w });
        SpreadOutput {
            seeds: e.len() as u32,
            sample: self.p.sample,
            errors: e.clone(),
            histogram,
            mean_pct: mean,
            sd_pct: sd,
            beyond: e.iter().filter(|x| x.abs() > STANDARD_ERROR_PCT).count() as u32,
            beyond2: e
                .iter()
                .filter(|x| x.abs() > 2.0 * STANDARD_ERROR_PCT)
                .count() as u32,
            worst_pct: worst,
        }
    }
}

/// Viewers added per step (a few ms natively while sparse, less once dense).
const STEP_ADDS: u32 = 6_000;

impl Run for SpreadRun {
    type Part = ();
    type Output = SpreadOutput;
    fn step(&mut self) -> Option<()> {
        let mut budget = STEP_ADDS;
        while budget > 0 && !self.is_done() {
            budget -= self.fill(budget).min(budget);
        }
        None
    }
    fn is_done(&self) -> bool {
        self.errors.len() as u32 >= self.p.seeds
    }
    fn progress(&self) -> f64 {
        let done = self.errors.len() as f64
            + self
                .room
                .as_ref()
                .map_or(0.0, |(_, d)| f64::from(*d) / f64::from(self.p.sample));
        done / f64::from(self.p.seeds.max(1))
    }
    fn output(&mut self) -> SpreadOutput {
        self.summary()
    }
}

/// The spread of `p`, run to the end.
pub fn run_spread(p: &PresenceParams) -> SpreadOutput {
    let mut r = SpreadRun::new(p);
    while !r.is_done() {
        r.step();
    }
    r.summary()
}
