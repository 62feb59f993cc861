//! What the rate-limit lab shows.

use super::RateParams;
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
pub struct RateResult {
    /// The parameters.
    pub params: RateParams,
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

impl RateResult {
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
    /// [`RateResult::max_in_window`] (every such run lies inside one window).
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

    /// The result as JSON (`labsim ratelimit --json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a result serialises")
    }

    /// The numbers as text (`labsim ratelimit`).
    pub fn text(&self) -> String {
        let p = &self.params;
        let mut out = format!(
            "{} instances, store {}, {} window of {} s, layers {} (identity limit {}, IP limit {})\n",
            p.instances, p.store, p.algo, p.window, p.layers, p.limit, p.ip_limit
        );
        let row = |who: &str, t: &Tally| {
            format!(
                "{who:<9} sent {:>6}  let through {:>6}  turned away {:>6} (IP {}, identity {})\n",
                t.sent,
                t.allowed,
                t.blocked(),
                t.by_ip,
                t.by_identity
            )
        };
        out.push_str(&row("attacker", &self.attacker));
        if self.students.sent > 0 {
            out.push_str(&row("students", &self.students));
            out.push_str(&format!(
                "          students turned away at least once: {}\n",
                self.students_hit
            ));
        }
        out.push_str(&format!(
            "most let through in any {} s: {} ({}–{} ms)\n",
            p.window, self.max_in_window, self.max_span.0, self.max_span.1
        ));
        let per: Vec<String> = self.per_instance.iter().map(u64::to_string).collect();
        out.push_str(&format!("let through per instance: {}\n", per.join(" ")));
        for c in &self.counters {
            out.push_str(&format!("  {:<6} {} = {}\n", c.place, c.key, c.count));
        }
        out.push_str(&format!(
            "Redis: {} commands in {} round trips\n",
            self.commands, self.round_trips
        ));
        out
    }
}
