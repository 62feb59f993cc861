//! What a run gives the view and `labsim streams --json` alike ([`StreamsOutput`]): the
//! counters, XLEN and the pending count over time (the samples), the command log. Its
//! timeline walks the samples: position `k` is the run after its first `k` samples (0: the
//! start, nothing yet).

use super::params::StreamsParams;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// The state over time, one sample per interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    /// When, ms.
    pub t: u64,
    /// XLEN orders.
    pub xlen: u64,
    /// The group's pending entries (XPENDING's count).
    pub pending: u64,
    /// The counters then.
    pub counters: Counters,
}

/// What happened, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Messages added to the stream.
    pub produced: u64,
    /// Entries handed to a consumer (XREADGROUP and XAUTOCLAIM), re-deliveries included.
    pub delivered: u64,
    /// Messages in the database (each once).
    pub saved: u64,
    /// Saves of a message already saved (the upsert kept one copy).
    pub duplicates: u64,
    /// Entries taken over by XAUTOCLAIM.
    pub reclaimed: u64,
    /// Batches whose save failed.
    pub failed_batches: u64,
    /// Messages saved one at a time after a failed batch.
    pub retried: u64,
    /// Messages sent to the dead-letter stream.
    pub dead: u64,
    /// Entries trimmed before anyone read them.
    pub lost_trim: u64,
    /// Pending entries XAUTOCLAIM dropped from the group because a trim had deleted them
    /// (their consumer may still save them: Redis checks existence before idle time).
    pub claim_deleted: u64,
    /// Entries left in a dead consumer's pending list (nobody claims them).
    pub stuck: u64,
    /// XACKed entries.
    pub acked: u64,
    /// PUBLISHes that reached the subscriber.
    pub pubsub_delivered: u64,
    /// PUBLISHes nobody received.
    pub pubsub_lost: u64,
    /// Commands the producers, the consumers and the subscriber sent (the sampler's XLEN and
    /// XPENDING are the lab looking, not counted).
    pub commands: u64,
}

/// A finished (or partial) run: what the view draws and `labsim streams --json` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsOutput {
    /// The parameters it ran with.
    pub params: StreamsParams,
    /// The state over time.
    pub samples: Vec<Sample>,
    /// The command log: the first commands and every notable one (a live run: the newest),
    /// typed — the command's words and Redis' reply; long ones keep their first words or
    /// items and end in `…`.
    pub log: Vec<CmdLine>,
    /// Positions in [`StreamsResult::log`] of the lines that report a loss or a crash (a
    /// trim, a crashed consumer, a PUBLISH nobody heard): the view marks them.
    #[serde(default)]
    pub alarms: Vec<usize>,
    /// The counters at the end.
    pub counters: Counters,
    /// When the consumer crashed, ms.
    pub crash_ms: Option<u64>,
    /// When the run ended, ms.
    pub end_ms: u64,
    /// Whether every message ended saved, dead-lettered, lost or stuck.
    pub settled: bool,
    /// A live run (against a real Redis; never in `labsim`'s JSON, which only simulates).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub live: bool,
}

impl StreamsOutput {
    /// The sample position `k` shows: the `k`-th (the start, all zeros, at 0).
    pub fn sample_at(&self, k: usize) -> Sample {
        k.checked_sub(1)
            .and_then(|i| {
                self.samples
                    .get(i.min(self.samples.len().saturating_sub(1)))
            })
            .copied()
            .unwrap_or_default()
    }

    /// The counters at time `t` (the last sample at or before it).
    pub fn so_far(&self, t: u64) -> Counters {
        let i = self.samples.partition_point(|s| s.t <= t);
        i.checked_sub(1)
            .map_or_else(Counters::default, |i| self.samples[i].counters)
    }

    /// The counters as text (`labsim streams`).
    pub fn text(&self) -> String {
        let p = &self.params;
        let c = &self.counters;
        let mut s = format!(
            "streams: {} messages at {}/s from {} producers, {} workers COUNT {} BLOCK {}, save {} ms, retry {} ms, fail {}%, poison every {}, crash w{} at {} ms, autoclaim {} ({} ms idle, every {} ms), MAXLEN ~ {}, subscriber away {} ms at {} ms, seed {}\n",
            p.messages, p.rate, p.producers, p.workers, p.count, p.block, p.save_ms, p.retry_ms,
            p.fail_rate, p.poison_every, p.crash_worker, p.crash_at, p.autoclaim, p.claim_idle,
            p.claim_every, p.maxlen, p.away_ms, p.away_at, p.seed
        );
        for (k, v) in [
            ("produced", c.produced),
            ("delivered", c.delivered),
            ("saved", c.saved),
            ("duplicates", c.duplicates),
            ("reclaimed", c.reclaimed),
            ("failed batches", c.failed_batches),
            ("retried one by one", c.retried),
            ("dead-lettered", c.dead),
            ("lost to trim", c.lost_trim),
            ("trimmed while pending", c.claim_deleted),
            ("stuck in a dead worker's PEL", c.stuck),
            ("acked", c.acked),
            ("pub/sub delivered", c.pubsub_delivered),
            ("pub/sub lost", c.pubsub_lost),
            ("commands", c.commands),
        ] {
            s.push_str(&format!("  {k:<30}{v:>10}\n"));
        }
        s.push_str(&format!(
            "  ended at {} ms ({})\n",
            self.end_ms,
            if self.settled { "settled" } else { "stopped" }
        ));
        s
    }
}

impl Steps for StreamsOutput {
    /// The samples.
    fn steps(&self) -> usize {
        self.samples.len()
    }
}

impl Figures for StreamsOutput {
    /// The last sample's counters (the run's), and Redis' XLEN and XPENDING then.
    fn figures(&self) -> Vec<Figure> {
        let s = self.sample_at(self.steps());
        let c = &s.counters;
        [
            ("xlen", s.xlen),
            ("pending", s.pending),
            ("delivered", c.delivered),
            ("saved", c.saved),
            ("duplicates", c.duplicates),
            ("dead", c.dead),
            ("lost", c.lost_trim),
            ("pubsub-lost", c.pubsub_lost),
            ("reclaimed", c.reclaimed),
            ("retried", c.retried),
            ("stuck", c.stuck),
            ("commands", c.commands),
        ]
        .into_iter()
        .map(|(k, v)| Figure::count(k, v))
        .collect()
    }
}
