//! What the Pub/Sub lab's run gives the view and `labsim --json` alike: one adapter's totals,
//! the three side by side, the instances, the timeline's buckets and a sampled log. The
//! timeline walks the buckets: position `k` is the run after its first `k`.

use super::params::{Adapter, PubSubParams};
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// One adapter's totals over the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The adapter.
    pub adapter: Adapter,
    /// Messages published (one `PUBLISH`/`SPUBLISH` each).
    pub publishes: u64,
    /// Messages Redis pushed to instances, as their subscribers read them.
    pub deliveries: u64,
    /// What the publish replies said, added up (Redis' own count of the same deliveries).
    pub receivers: u64,
    /// Deliveries an instance handed to at least one of its users.
    pub useful: u64,
    /// Deliveries an instance dropped: its own message back, or a room it has nobody in.
    pub wasted: u64,
    /// Of the wasted: its own message back ("same uid").
    pub echo: u64,
    /// Of the wasted: a room it has nobody in ("unknown room").
    pub no_member: u64,
    /// Sockets that got a message (the sender's own instance included).
    pub reached: u64,
    /// Sockets that should have got one (every member of the room but the sender).
    pub expected: u64,
    /// Sockets that never got theirs (expected − reached): published while their instance
    /// was not listening.
    pub lost: u64,
    /// Subscriptions in Redis when the messages start (patterns and channels, all instances).
    pub subscriptions: u64,
    /// Subscribe and unsubscribe commands sent.
    pub sub_commands: u64,
    /// Every command sent.
    pub commands: u64,
    /// How long messages were sent, ms (for the rates).
    pub span_ms: u64,
}

impl Summary {
    /// Nothing counted yet, for `adapter` sending messages for `span_ms`.
    pub fn new(adapter: Adapter, span_ms: u64) -> Self {
        Summary {
            adapter,
            publishes: 0,
            deliveries: 0,
            receivers: 0,
            useful: 0,
            wasted: 0,
            echo: 0,
            no_member: 0,
            reached: 0,
            expected: 0,
            lost: 0,
            subscriptions: 0,
            sub_commands: 0,
            commands: 0,
            span_ms,
        }
    }

    /// `n` a second over the messages' span.
    pub fn per_sec(&self, n: u64) -> f64 {
        n as f64 * 1000.0 / self.span_ms.max(1) as f64
    }

    /// `n` a second, rounded (as the page shows it).
    pub fn per_sec_whole(&self, n: u64) -> u64 {
        self.per_sec(n).round() as u64
    }
}

/// One instance at the end of the run (the chosen adapter).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    /// `api-1`, …
    pub name: String,
    /// Users connected to it.
    pub users: u32,
    /// Rooms it has at least one member of.
    pub rooms: u32,
    /// Its subscriptions when the messages start.
    pub subscriptions: u32,
}

/// One stretch of the timeline (the chosen adapter).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bucket {
    /// Its end, ms.
    pub to_ms: u64,
    /// Messages published in it.
    pub publishes: u32,
    /// Deliveries that reached an instance in it.
    pub deliveries: u32,
    /// Of them, dropped.
    pub wasted: u32,
    /// Sockets reached in it.
    pub reached: u32,
    /// Sockets that never got a message published in it.
    pub lost: u32,
    /// Per instance: (received, dropped) in it.
    pub per_instance: Vec<(u32, u32)>,
    /// Whether api-1's subscriber was gone at its end.
    pub away: bool,
}

/// What an instance did with a message Redis pushed to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "users")]
pub enum Fate {
    /// Handed to this many of its users.
    Delivered(u32),
    /// Its own message back: dropped ("same uid").
    Echo,
    /// A room it has nobody in: dropped ("unknown room").
    NoMember,
}

/// A message Redis pushed to an instance, as its subscriber read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Push {
    /// When it reached the instance, ms.
    pub at_ms: u64,
    /// The instance (0-based).
    pub instance: u16,
    /// `message`, `pmessage` or `smessage`.
    pub kind: String,
    /// The channel.
    pub channel: String,
    /// What the instance did with it.
    pub fate: Fate,
}

/// A line of the log: a command with its reply, or a push an instance read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Line {
    /// A command and Redis' reply.
    Cmd(CmdLine),
    /// A message pushed to a subscriber.
    Push(Push),
}

impl Line {
    /// When it happened, ms.
    pub fn at_ms(&self) -> u64 {
        match self {
            Line::Cmd(c) => c.at_ms,
            Line::Push(p) => p.at_ms,
        }
    }
}

/// The lab's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PubSubOutput {
    /// The parameters.
    pub params: PubSubParams,
    /// The chosen adapter's totals.
    pub summary: Summary,
    /// All three adapters with the same users and messages, in [`Adapter::ALL`]'s order.
    pub compare: Vec<Summary>,
    /// The instances (chosen adapter).
    pub instances: Vec<Instance>,
    /// Members of the biggest room, and rooms with anyone in them.
    pub biggest_room: u32,
    /// Rooms with at least one member.
    pub rooms_used: u32,
    /// Rooms whose members are on every instance.
    pub rooms_everywhere: u32,
    /// When the messages start, ms.
    pub start_ms: u64,
    /// When the last message was published, ms.
    pub stop_ms: u64,
    /// api-1's subscriber is gone from, to (ms), if it goes.
    pub away: Option<(u64, u64)>,
    /// Each bucket's length, ms.
    pub bucket_ms: u64,
    /// The timeline.
    pub buckets: Vec<Bucket>,
    /// A sample of the log, a few lines per bucket, in time order.
    pub log: Vec<Line>,
}

impl PubSubOutput {
    /// The summary of `adapter` in the comparison.
    pub fn of(&self, adapter: Adapter) -> &Summary {
        self.compare
            .iter()
            .find(|s| s.adapter == adapter)
            .expect("every adapter runs")
    }

    /// The time at position `k` of the timeline (the end of its `k`-th bucket), ms.
    pub fn time_at(&self, k: usize) -> u64 {
        k.checked_sub(1)
            .and_then(|i| self.buckets.get(i))
            .map_or(0, |b| b.to_ms)
    }

    /// The first position at which some socket's message is lost (`None`: none is).
    pub fn position_of_first_loss(&self) -> Option<usize> {
        self.buckets.iter().position(|b| b.lost > 0).map(|i| i + 1)
    }

    /// Totals of the first `n` buckets: (publishes, deliveries, wasted, reached, lost).
    pub fn so_far(&self, n: usize) -> [u64; 5] {
        let mut t = [0u64; 5];
        for b in self.buckets.iter().take(n) {
            for (x, v) in t
                .iter_mut()
                .zip([b.publishes, b.deliveries, b.wasted, b.reached, b.lost])
            {
                *x += u64::from(v);
            }
        }
        t
    }

    /// Per instance: (received, dropped) in the first `n` buckets.
    pub fn instances_so_far(&self, n: usize) -> Vec<(u64, u64)> {
        let mut out = vec![(0u64, 0u64); self.instances.len()];
        for b in self.buckets.iter().take(n) {
            for (o, &(r, w)) in out.iter_mut().zip(&b.per_instance) {
                o.0 += u64::from(r);
                o.1 += u64::from(w);
            }
        }
        out
    }
}

impl Steps for PubSubOutput {
    /// The timeline's buckets.
    fn steps(&self) -> usize {
        self.buckets.len()
    }
}

impl Figures for PubSubOutput {
    fn figures(&self) -> Vec<Figure> {
        let s = &self.summary;
        vec![
            Figure::count("publishes", s.publishes),
            Figure::count("deliveries", s.deliveries),
            Figure::count("wasted", s.wasted),
            Figure::count("lost", s.lost),
            Figure::count("reached", s.reached),
            Figure::count("per-sec", s.per_sec_whole(s.deliveries)),
            Figure::count("wasted-per-sec", s.per_sec_whole(s.wasted)),
            Figure::count("subscriptions", s.subscriptions),
        ]
    }
}
