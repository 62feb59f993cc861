//! What the sampled-LRU experiment gives the view and `labsim --json` alike: a point per `k`
//! (the victim's measured mean rank, and `k/(k+1)`), a JSON array. Its timeline walks the
//! points: position `k` shows the first `k` measured (the seed's k = 5 is position 5).

use crate::eviction::sampling::SamplingPoint;
use crate::labs::def::{Figure, Figures, Steps};
use serde::{Deserialize, Serialize};

/// The `k`s the page shows as figures (Redis' default, and ten).
pub const SHOWN: [u32; 2] = [5, 10];

/// The experiment's points, in `k` order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SamplingOutput {
    /// One per measured `k`.
    pub points: Vec<SamplingPoint>,
}

impl SamplingOutput {
    /// The point of `k`, if measured.
    pub fn at(&self, k: u32) -> Option<SamplingPoint> {
        self.points.iter().find(|p| p.k == k).copied()
    }

    /// The point shown at position `pos` (the last measured of the first `pos`; none at 0).
    pub fn shown_at(&self, pos: usize) -> Option<SamplingPoint> {
        pos.checked_sub(1).and_then(|i| self.points.get(i)).copied()
    }

    /// The position that shows `k` (the first position when it was not measured).
    pub fn position_of(&self, k: u32) -> usize {
        self.points
            .iter()
            .position(|p| p.k == k)
            .map_or(0, |i| i + 1)
    }

    /// The figure key of `k`'s measured rank (`k5`).
    pub fn key(k: u32) -> &'static str {
        match k {
            5 => "k5",
            _ => "k10",
        }
    }
}

impl Steps for SamplingOutput {
    /// The measured `k`s.
    fn steps(&self) -> usize {
        self.points.len()
    }
}

impl Figures for SamplingOutput {
    /// The measured rank of k = 5 and k = 10, in percent.
    fn figures(&self) -> Vec<Figure> {
        SHOWN
            .iter()
            .filter_map(|&k| self.at(k))
            .map(|p| Figure::new(Self::key(p.k), p.measured * 100.0))
            .collect()
    }
}
