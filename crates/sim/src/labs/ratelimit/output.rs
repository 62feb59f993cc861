//! What the rate-limit lab's run gives the view and `labsim --json` alike: the attacker's and
//! the students' requests and what became of them, the most let through within one window,
//! the counters, the timeline's buckets and a sampled log. The timeline walks the buckets:
//! position `k` is the run after its first `k`.

use super::params::{RateParams, BURST_MS};
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// Requests of one kind of client, and what became of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    /// Sent.
    pub sent: u64,
    /// Let through.
    pub allowed: u64,
    /// Turned away by the IP layer (429).
    pub by_ip: u64,
    /// Turned away by the identity layer (429).
    pub by_identity: u64,
}

impl Tally {
    /// Turned away, by either layer.
    pub fn blocked(&self) -> u64 {
        self.by_ip + self.by_identity
    }
}

/// One stretch of the timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bucket {
    /// Its end, ms.
    pub to_ms: u64,
    /// The attacker's requests let through in it.
    pub attacker_ok: u32,
    /// The attacker's requests turned away.
    pub attacker_no: u32,
    /// The students' requests let through.
    pub students_ok: u32,
    /// The students' requests turned away.
    pub students_no: u32,
    /// The attacker's requests let through in it, per instance.
    pub per_instance: Vec<u32>,
}

/// A counter at the end of the run: a Redis key, or one instance's memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counter {
    /// Where: `redis` or `api-3`.
    pub place: String,
    /// The key (`rl:login:…`).
    pub key: String,
    /// Its highest count (the INCR replies' or the ZCARDs' largest).
    pub count: u64,
}

/// The lab's output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateOutput {
    /// The parameters.
    pub params: RateParams,
    /// The edge pattern's bursts, ms (written only when a live run widened them).
    #[serde(default = "burst", skip_serializing_if = "is_burst")]
    pub burst_ms: u64,
    /// The attacker's requests.
    pub attacker: Tally,
    /// The office's students' requests.
    pub students: Tally,
    /// Students turned away at least once.
    pub students_hit: u64,
    /// The most attacker requests let through in any window-long stretch.
    pub max_in_window: u64,
    /// That stretch: from, to (ms).
    pub max_span: (u64, u64),
    /// The attacker's requests let through, per instance.
    pub per_instance: Vec<u64>,
    /// The counters (the busiest few).
    pub counters: Vec<Counter>,
    /// Redis commands sent.
    pub commands: u64,
    /// Round trips to Redis (a pipeline is one).
    pub round_trips: u64,
    /// Each bucket's length, ms.
    pub bucket_ms: u64,
    /// The timeline.
    pub buckets: Vec<Bucket>,
    /// A sample of the commands, a few per bucket, in time order.
    pub log: Vec<CmdLine>,
    /// When the last request was answered, ms.
    pub end_ms: u64,
}

fn burst() -> u64 {
    BURST_MS
}

fn is_burst(v: &u64) -> bool {
    *v == BURST_MS
}

impl RateOutput {
    /// Totals of the first `n` buckets: attacker let through / turned away, students let
    /// through / turned away.
    pub fn so_far(&self, n: usize) -> [u64; 4] {
        let mut t = [0u64; 4];
        for b in self.buckets.iter().take(n) {
            t[0] += u64::from(b.attacker_ok);
            t[1] += u64::from(b.attacker_no);
            t[2] += u64::from(b.students_ok);
            t[3] += u64::from(b.students_no);
        }
        t
    }

    /// The most attacker requests let through in any run of whole buckets no longer than the
    /// window, among the first `n` buckets: what the limit is about (a run spanning several
    /// windows may let through more than the limit in all, and rightly). Never more than
    /// [`RateOutput::max_in_window`] (every such run lies inside one window).
    pub fn window_max_so_far(&self, n: usize) -> u64 {
        let per = (self.params.window_ms() / self.bucket_ms.max(1)).max(1) as usize;
        let ok: Vec<u64> = self
            .buckets
            .iter()
            .take(n)
            .map(|b| u64::from(b.attacker_ok))
            .collect();
        let mut best = 0;
        let mut sum = 0;
        for i in 0..ok.len() {
            sum += ok[i];
            if i >= per {
                sum -= ok[i - per];
            }
            best = best.max(sum);
        }
        best
    }

    /// The attacker's requests let through per instance in the first `n` buckets.
    pub fn instances_so_far(&self, n: usize) -> Vec<u64> {
        let mut out = vec![0u64; self.per_instance.len()];
        for b in self.buckets.iter().take(n) {
            for (o, &v) in out.iter_mut().zip(&b.per_instance) {
                *o += u64::from(v);
            }
        }
        out
    }

    /// The time at position `k` (the end of its `k`-th bucket), ms.
    pub fn time_at(&self, k: usize) -> u64 {
        k.checked_sub(1)
            .and_then(|i| self.buckets.get(i))
            .map_or(0, |b| b.to_ms)
    }

    /// The position that shows the bucket holding time `ms` (the run up to that bucket's
    /// end).
    pub fn position_of(&self, ms: u64) -> usize {
        ((ms / self.bucket_ms.max(1)) as usize + 1).min(self.steps())
    }

    /// The most attacker requests let through within one window, up to position `k`: from the
    /// position of the densest stretch's last request on, the exact figure
    /// ([`RateOutput::max_in_window`]); before it, what whole buckets show
    /// ([`RateOutput::window_max_so_far`], never more).
    pub fn window_max_at(&self, k: usize) -> u64 {
        if k >= self.position_of(self.max_span.1) {
            self.max_in_window
        } else {
            self.window_max_so_far(k)
        }
    }
}

impl Steps for RateOutput {
    /// The timeline's buckets.
    fn steps(&self) -> usize {
        self.buckets.len()
    }
}

impl Figures for RateOutput {
    fn figures(&self) -> Vec<Figure> {
        let mut f = Vec::new();
        if self.attacker.sent > 0 {
            f.push(Figure::count("allowed", self.attacker.allowed));
            f.push(Figure::count("blocked", self.attacker.blocked()));
            f.push(Figure::count("max-window", self.max_in_window));
        }
        if self.students.sent > 0 {
            f.push(Figure::count("students-ok", self.students.allowed));
            f.push(Figure::count("students-no", self.students.blocked()));
            f.push(Figure::count("students-hit", self.students_hit));
        }
        f.push(Figure::count("commands", self.commands));
        f.push(Figure::count("round-trips", self.round_trips));
        f
    }
}
