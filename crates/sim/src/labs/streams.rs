//! The streams lab (production slide 17, the chat's Redis Streams): producers, a consumer
//! group and its workers, all speaking real SimRedis commands in virtual time, with Pub/Sub
//! beside it for comparison.
//!
//! * Producers `XADD orders MAXLEN ~ <maxlen> * n <i>` at a steady rate (each message is
//!   also `PUBLISH`ed on `orders.live`).
//! * `XGROUP CREATE orders savers $ MKSTREAM`; N workers loop on
//!   `XREADGROUP GROUP savers w<k> COUNT <count> BLOCK <block> STREAMS orders >`, which
//!   blocks in virtual time until a producer adds something (or times out with nil).
//! * A batch is saved to the database (an idempotent upsert by message number: a second
//!   save of the same message is counted as a duplicate, not stored twice), then `XACK`ed.
//! * A failed batch (a seeded failure rate, or a poison message inside it) is retried one
//!   message at a time; a poison message goes to the dead-letter stream with its reason
//!   (`XADD orders:dead * id <id> n <i> reason …`) and is then `XACK`ed.
//! * One worker may crash after saving a batch but before its `XACK`: the batch stays in its
//!   pending list. The others run `XAUTOCLAIM orders savers w<k> <idle> <cursor> COUNT <count>`
//!   every few seconds and take over what has been idle that long — saved a second time
//!   (the duplicates; the upsert keeps the data right).
//! * `MAXLEN ~` trims whole stream nodes from the head. When workers fall behind, entries are
//!   trimmed before anyone read them (lost), or while pending (XAUTOCLAIM then reports them
//!   deleted: lost too).
//! * Pub/Sub: a subscriber on `orders.live` that goes away for a while misses everything
//!   published meanwhile (`PUBLISH` answers 0 receivers): nothing keeps it.
//!
//! XLEN and the group's pending count are sampled over virtual time; the command log keeps
//! the first commands and every notable one (claims, dead letters, a crash, the first loss).
//! [`StreamsRun`] steps one event at a time; [`run`] runs to the end, and a run stepped in
//! any slice sizes equals it (tested below).

use super::lab::{erase, AnyRun, CliSpec, Job, Json, Lab, LabInfo, LiveDriver, Run};
use crate::cli::{Args, CliError};
use crate::world::Command;
use super::params::{choice, int, Field, Params};
use super::preset::Preset;
use crate::redis::{num, Exec, RawExec, RawReply, Reply, SimRedis, StreamId};
use crate::rng::Mulberry32;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The stream.
pub const STREAM: &str = "orders";
/// The dead-letter stream.
pub const DEAD: &str = "orders:dead";
/// The consumer group.
pub const GROUP: &str = "savers";
/// The Pub/Sub channel.
pub const CHANNEL: &str = "orders.live";
/// Guard against a run that never ends.
pub const MAX_EVENTS: u64 = 20_000_000;
/// Commands kept in the log (the first ones and the notable ones).
pub const LOG_MAX: usize = 400;

const ON_OFF: &[&str] = &["on", "off"];

/// The lab's fields with their ranges; the defaults are a healthy run.
pub const FIELDS: &[Field] = &[
    int("messages", "মোট মেসেজ", 1, 2_000_000, "5000"),
    int("rate", "প্রতি সেকেন্ডে মেসেজ", 1, 1_000_000, "500"),
    int("producers", "producer", 1, 16, "2"),
    int("workers", "worker (consumer)", 1, 16, "4"),
    int("count", "XREADGROUP COUNT", 1, 10_000, "200"),
    int("block", "BLOCK (ms)", 0, 60_000, "5000"),
    int("save_ms", "একটা ব্যাচ সেভ (ms)", 0, 60_000, "20"),
    int("retry_ms", "একটা মেসেজ আবার সেভ (ms)", 0, 10_000, "2"),
    int("fail_rate", "ব্যাচ সেভ ব্যর্থ (%)", 0, 100, "0"),
    int(
        "poison_every",
        "প্রতি কতটায় একটা poison (0 = নেই)",
        0,
        1_000_000,
        "0",
    ),
    int(
        "crash_worker",
        "কোন worker ক্র্যাশ করে (0 = কেউ না)",
        0,
        16,
        "0",
    ),
    int("crash_at", "ক্র্যাশের সময় (ms)", 0, 3_600_000, "3000"),
    choice("autoclaim", "XAUTOCLAIM", ON_OFF, "on"),
    int(
        "claim_idle",
        "XAUTOCLAIM min-idle (ms)",
        0,
        3_600_000,
        "30000",
    ),
    int(
        "claim_every",
        "XAUTOCLAIM কতক্ষণ পরপর (ms)",
        100,
        3_600_000,
        "5000",
    ),
    int("maxlen", "MAXLEN ~ (0 = ছাঁটাই নেই)", 0, 10_000_000, "100000"),
    int("away_at", "subscriber চলে যায় (ms)", 0, 3_600_000, "4000"),
    int("away_ms", "subscriber কতক্ষণ নেই (ms)", 0, 3_600_000, "0"),
    int("seed", "seed", 0, u32::MAX as i64, "17"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StreamsParams {
    /// Messages produced in all.
    pub messages: u64,
    /// Messages per second, all producers together.
    pub rate: u64,
    /// Producers (message `i` comes from producer `i % producers`).
    pub producers: u32,
    /// Workers in the group.
    pub workers: u32,
    /// XREADGROUP COUNT.
    pub count: u32,
    /// XREADGROUP BLOCK, ms (0: wait for ever).
    pub block: u64,
    /// Saving one batch, ms.
    pub save_ms: u64,
    /// Saving one message on its own (the retry), ms.
    pub retry_ms: u64,
    /// Chance that a batch save fails, percent.
    pub fail_rate: u32,
    /// Every this many messages one is poison (0: none).
    pub poison_every: u64,
    /// The worker (1-based) that crashes (0: none).
    pub crash_worker: u32,
    /// It crashes after the first batch it saves at or after this time, ms, before XACK.
    pub crash_at: u64,
    /// `on`: workers run XAUTOCLAIM.
    pub autoclaim: String,
    /// XAUTOCLAIM's min-idle-time, ms.
    pub claim_idle: u64,
    /// How often each worker runs XAUTOCLAIM, ms.
    pub claim_every: u64,
    /// `MAXLEN ~` on XADD (0: no trimming).
    pub maxlen: u64,
    /// The subscriber leaves at, ms.
    pub away_at: u64,
    /// And is away for, ms (0: never leaves).
    pub away_ms: u64,
    /// Seed of the failures.
    pub seed: u32,
}

impl Default for StreamsParams {
    fn default() -> Self {
        super::params::Params::defaults(&INFO).typed()
    }
}

/// The failure modes, one preset each.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "healthy",
        label: "সব ঠিকঠাক",
        about: "ব্যাচে পড়ে সেভ, তারপর XACK — কিছু হারায় না, কিছু দুবার নয়",
        pairs: &[
            ("fail_rate", "0"),
            ("poison_every", "0"),
            ("crash_worker", "0"),
            ("autoclaim", "on"),
            ("away_ms", "0"),
        ],
    },
    Preset {
        id: "retry",
        label: "ব্যাচ ব্যর্থ → একটা একটা করে",
        about: "প্রতি তিনটে ব্যাচে একটা সেভ ব্যর্থ — তখন মেসেজগুলো একটা একটা করে আবার সেভ, প্রতিটার পরে XACK",
        pairs: &[("fail_rate", "30"), ("poison_every", "0"), ("crash_worker", "0")],
    },
    Preset {
        id: "poison",
        label: "poison মেসেজ → dead-letter",
        about: "যে মেসেজ কখনো সেভ হবে না সেটা কারণসহ orders:dead-এ যায়, তারপর XACK — লাইন আটকায় না",
        pairs: &[("fail_rate", "0"), ("poison_every", "700"), ("crash_worker", "0")],
    },
    Preset {
        id: "crash",
        label: "worker ক্র্যাশ → XAUTOCLAIM",
        about: "w2 সেভ করে XACK-এর আগেই মরে; ৩০ সেকেন্ড পরে অন্যরা XAUTOCLAIM করে — দুবার সেভ, কিন্তু idempotent",
        pairs: &[
            ("messages", "20000"),
            ("rate", "5000"),
            ("save_ms", "50"),
            ("crash_worker", "2"),
            ("crash_at", "1000"),
            ("autoclaim", "on"),
            ("fail_rate", "0"),
            ("poison_every", "0"),
        ],
    },
    Preset {
        id: "crash-no-claim",
        label: "ক্র্যাশ, XAUTOCLAIM ছাড়া",
        about: "কেউ দাবি করে না — মরা worker-এর ব্যাচ চিরকাল pending-এ আটকে থাকে",
        pairs: &[
            ("messages", "20000"),
            ("rate", "5000"),
            ("save_ms", "50"),
            ("crash_worker", "2"),
            ("crash_at", "1000"),
            ("autoclaim", "off"),
            ("fail_rate", "0"),
            ("poison_every", "0"),
        ],
    },
    Preset {
        id: "trim",
        label: "পিছিয়ে পড়া + MAXLEN ~",
        about: "producer দ্রুত, সেভ ধীর — জমে থাকা লাইন MAXLEN ~ 100000 ছাঁটে, না-পড়া মেসেজ হারায়",
        pairs: &[
            ("messages", "300000"),
            ("rate", "50000"),
            ("save_ms", "400"),
            ("maxlen", "100000"),
            ("crash_worker", "0"),
            ("fail_rate", "0"),
            ("poison_every", "0"),
        ],
    },
    Preset {
        id: "pubsub-away",
        label: "Pub/Sub: কেউ না শুনলে",
        about: "subscriber ৩ সেকেন্ড নেই — সেই সময়ের PUBLISH কেউ পায় না, Stream-এ সব থেকে যায়",
        pairs: &[("away_at", "4000"), ("away_ms", "3000"), ("crash_worker", "0")],
    },
];


/// One command as Redis ran it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogRow {
    /// When, ms.
    pub at_ms: u64,
    /// Who sent it (`p1`, `w3`, `sub`).
    pub actor: String,
    /// The command, as `redis-cli` would echo it (long ones shortened).
    pub cmd: String,
    /// The reply, shortened.
    pub reply: String,
    /// Why it is in the log when it is not one of the first commands.
    pub note: String,
    /// A live run's round trip to the real Redis, µs (`None` in a simulation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

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
    /// Entries handed to a worker (XREADGROUP and XAUTOCLAIM), re-deliveries included.
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
    /// (their worker may still save them: Redis checks existence before idle time).
    pub claim_deleted: u64,
    /// Entries left in a dead worker's pending list (nobody claims them).
    pub stuck: u64,
    /// XACKed entries.
    pub acked: u64,
    /// PUBLISHes that reached the subscriber.
    pub pubsub_delivered: u64,
    /// PUBLISHes nobody received.
    pub pubsub_lost: u64,
    /// Commands sent.
    pub commands: u64,
}

/// A finished (or partial) run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsResult {
    /// The parameters it ran with.
    pub params: StreamsParams,
    /// The state over time.
    pub samples: Vec<Sample>,
    /// The command log.
    pub log: Vec<LogRow>,
    /// The counters at the end.
    pub counters: Counters,
    /// When the worker crashed, ms.
    pub crash_ms: Option<u64>,
    /// When the run ended, ms.
    pub end_ms: u64,
    /// Whether every message ended saved, dead-lettered, lost or stuck.
    pub settled: bool,
    /// A live run (against a real Redis): the samples are Redis' own XLEN and XPENDING.
    #[serde(default)]
    pub live: bool,
}

impl StreamsResult {
    /// The counters at time `t` (the last sample at or before it).
    pub fn so_far(&self, t: u64) -> Counters {
        let i = self.samples.partition_point(|s| s.t <= t);
        i.checked_sub(1)
            .map_or_else(Counters::default, |i| self.samples[i].counters)
    }

    /// The JSON `labsim streams --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "params": self.params,
            "counters": self.counters,
            "crashMs": self.crash_ms,
            "endMs": self.end_ms,
            "settled": self.settled,
            "samples": self.samples,
            "log": self.log,
        })
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Message `i` is produced.
    Produce(u64),
    /// Worker `k` continues.
    Worker(usize),
    /// The subscriber leaves or comes back.
    Subscriber,
    /// Take a sample.
    Sample,
}

#[derive(Clone, Debug)]
struct Msg {
    id: StreamId,
    n: u64,
}

#[derive(Clone, Debug)]
enum WState {
    /// Ready to read (or claim).
    Idle,
    /// In XREADGROUP BLOCK.
    Blocked,
    /// Saving a batch; done at the next wake-up.
    Saving(Vec<Msg>),
    /// Saving one message at a time: the batch and the next index.
    Retrying(Vec<Msg>, usize),
    /// Gone.
    Crashed,
}

/// What a live command's reply is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    /// Only logged.
    Nothing,
    /// XGROUP CREATE: the run starts.
    Start,
    /// XACK: the count acknowledged.
    Ack,
    /// Worker `k`'s XAUTOCLAIM.
    Claim(usize),
    /// Worker `k`'s XREADGROUP.
    Read(usize),
    /// A sample's XLEN.
    Xlen,
    /// A sample's XPENDING.
    Xpending,
}

/// A live command on its way.
struct Sent {
    actor: String,
    cmd: String,
    note: String,
    then: Then,
}

/// A live run's own state (the simulation never has one).
#[derive(Default)]
struct LiveIo {
    /// (tag, command) to send now.
    outbox: Vec<(usize, Vec<Vec<u8>>)>,
    /// By tag: commands sent whose reply has not come.
    sent: Vec<Option<Sent>>,
    /// Replies outstanding other than blocking reads and samples.
    busy: usize,
    /// Samples waiting for their other half: (the XLEN's tag, XLEN, XPENDING). The two
    /// replies may come in either order, and a sample's after a later one's.
    halves: Vec<(usize, Option<u64>, Option<u64>)>,
    /// The XLEN tag of the newest sample taken.
    newest: Option<usize>,
    /// Entries delivered to a worker and not acknowledged, as the workers count them.
    pending: u64,
    /// The final sample was asked for.
    closing: bool,
    /// The final sample's XLEN tag.
    last: Option<usize>,
    /// The final sample came: over.
    over: bool,
}

struct Worker {
    state: WState,
    next_claim: u64,
    cursor: StreamId,
}

/// A step-able run of the lab.
pub struct StreamsRun {
    p: StreamsParams,
    sim: SimRedis,
    rng: Mulberry32,
    queue: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    /// Events in the queue other than samples.
    live: u64,
    now: u64,
    events: u64,
    workers: Vec<Worker>,
    /// Per message: 0 new, 1 delivered, 2 saved, 3 dead.
    state: Vec<u8>,
    /// Messages below this index have been trimmed off the stream.
    trim_front: u64,
    away: bool,
    /// `maxlen` as text, made once.
    maxlen: String,
    c: Counters,
    samples: Vec<Sample>,
    sample_every: u64,
    log: Vec<LogRow>,
    crash_ms: Option<u64>,
    done: bool,
    settled: bool,
    /// Live: commands go to a real Redis ([`StreamsLive`]) instead of `sim`.
    io: Option<LiveIo>,
}

const NEW: u8 = 0;
const DELIVERED: u8 = 1;
const SAVED: u8 = 2;
const DEAD_LETTERED: u8 = 3;

/// The producers' names.
const PRODUCERS: [&str; 16] = [
    "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11", "p12", "p13", "p14", "p15",
    "p16",
];

/// Client ids: producers from 1, workers from 1000, the subscriber 9999.
const SUBSCRIBER: u64 = 9_999;

fn worker_client(k: usize) -> u64 {
    1000 + k as u64
}

fn short(s: String, max: usize) -> String {
    if s.chars().count() <= max {
        s
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

impl StreamsRun {
    /// The run of `p` (nothing happened yet beyond creating the group).
    pub fn new(p: &StreamsParams) -> Self {
        Self::build(p, false)
    }

    fn build(p: &StreamsParams, live: bool) -> Self {
        let span = p.messages.saturating_mul(1000) / p.rate.max(1);
        let mut r = StreamsRun {
            p: p.clone(),
            sim: SimRedis::new(p.seed),
            rng: Mulberry32::new(p.seed ^ 0x5eed_57e4),
            queue: BinaryHeap::new(),
            seq: 0,
            live: 0,
            now: 0,
            events: 0,
            workers: (0..p.workers)
                .map(|_| Worker {
                    state: WState::Idle,
                    next_claim: p.claim_every,
                    cursor: StreamId::MIN,
                })
                .collect(),
            state: vec![NEW; p.messages as usize],
            trim_front: 0,
            away: false,
            maxlen: p.maxlen.to_string(),
            c: Counters::default(),
            samples: Vec::new(),
            sample_every: (span / 300).max(100),
            log: Vec::new(),
            crash_ms: None,
            done: false,
            settled: false,
            io: live.then(LiveIo::default),
        };
        if live {
            // Two round trips a sample: no more than four a second.
            r.sample_every = r.sample_every.max(250);
        }
        r.setup();
        r
    }

    /// The group, the subscriber and the first events.
    fn setup(&mut self) {
        let args = ["XGROUP", "CREATE", STREAM, GROUP, "$", "MKSTREAM"];
        if self.io.is_some() {
            // Live: nothing else goes out before the group exists (`$`: an XADD that Redis
            // ran first would never reach the group).
            self.c.commands += 1;
            self.queue_live("setup", &args, "", Then::Start);
            return;
        }
        self.send("setup", &args, "");
        self.send("sub", &["SUBSCRIBE", CHANNEL], "");
        self.start(0);
    }

    /// The first events, at `t`.
    fn start(&mut self, t: u64) {
        let r = self;
        let p = r.p.clone();
        r.at(t, Ev::Sample);
        for k in 0..r.workers.len() {
            r.at(t, Ev::Worker(k));
        }
        if p.messages > 0 {
            r.at(t, Ev::Produce(0));
        }
        if p.away_ms > 0 && r.io.is_none() {
            r.at(p.away_at, Ev::Subscriber);
        }
    }

    fn at(&mut self, t: u64, ev: Ev) {
        if ev != Ev::Sample {
            self.live += 1;
        }
        self.queue.push(Reverse((t, self.seq, ev)));
        self.seq += 1;
    }

    fn client_of(actor: &str) -> u64 {
        match actor.as_bytes().first() {
            Some(b'w') => worker_client(actor[1..].parse::<usize>().unwrap_or(1) - 1),
            Some(b'p') => actor[1..].parse().unwrap_or(1),
            Some(b's') if actor == "sub" => SUBSCRIBER,
            _ => 0,
        }
    }

    /// Sends one command; logs it if it is among the first or `note` says why. The reply
    /// comes back unrendered ([`RawReply`]): it is rendered as text only for the log.
    fn send<A: AsRef<[u8]>>(&mut self, actor: &str, args: &[A], note: &str) -> RawExec {
        self.c.commands += 1;
        if self.io.is_some() {
            self.queue_live(actor, args, note, Then::Nothing);
            return RawExec::Blocked;
        }
        let out = self.sim.execute_raw(Self::client_of(actor), args);
        if self.log.len() < LOG_MAX && (self.c.commands <= 150 || !note.is_empty()) {
            let reply = match &out {
                RawExec::Reply(r) => short(r.to_reply().to_string(), 140),
                RawExec::Blocked => "(blocked)".into(),
            };
            self.log.push(LogRow {
                at_ms: self.now,
                actor: actor.into(),
                cmd: short(words(args), 140),
                reply,
                note: note.into(),
                rtt_us: None,
            });
        }
        out
    }

    /// Live: `args` goes out to the real Redis; its reply comes to [`Self::arrived`].
    fn queue_live<A: AsRef<[u8]>>(&mut self, actor: &str, args: &[A], note: &str, then: Then) {
        let Some(io) = self.io.as_mut() else { return };
        let tag = io.sent.len();
        io.sent.push(Some(Sent {
            actor: actor.into(),
            cmd: short(words(args), 140),
            note: note.into(),
            then,
        }));
        if !matches!(then, Then::Read(_) | Then::Xlen | Then::Xpending) {
            io.busy += 1;
        }
        io.outbox
            .push((tag, args.iter().map(|a| a.as_ref().to_vec()).collect()));
    }

    /// Live: the reply to the command with `tag` came at `now_ms`.
    fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        let Some(sent) = self
            .io
            .as_mut()
            .and_then(|io| io.sent.get_mut(tag))
            .and_then(Option::take)
        else {
            return;
        };
        self.now = self.now.max(now_ms);
        if let Some(io) = self.io.as_mut() {
            if !matches!(sent.then, Then::Read(_) | Then::Xlen | Then::Xpending) {
                io.busy = io.busy.saturating_sub(1);
            }
        }
        let mut note = sent.note;
        let mut quiet = matches!(sent.then, Then::Xlen | Then::Xpending);
        if let Then::Claim(_) = sent.then {
            let (_, taken, deleted) = parse_autoclaim(&reply);
            quiet = taken.is_empty() && deleted.is_empty();
            note = claim_note(taken.len(), deleted.len());
        }
        if !quiet {
            if self.log.len() >= LOG_MAX {
                self.log.remove(0);
            }
            self.log.push(LogRow {
                at_ms: self.now,
                actor: sent.actor.clone(),
                cmd: sent.cmd,
                reply: short(reply.to_string(), 140),
                note,
                rtt_us: Some(rtt_us),
            });
        }
        let int = |r: &Reply| match r {
            Reply::Integer(n) => u64::try_from(*n).unwrap_or(0),
            _ => 0,
        };
        match sent.then {
            Then::Nothing => {}
            Then::Start => self.start(self.now),
            Then::Ack => {
                let n = int(&reply);
                self.c.acked += n;
                if let Some(io) = self.io.as_mut() {
                    io.pending = io.pending.saturating_sub(n);
                }
            }
            Then::Claim(k) => {
                if !matches!(self.workers[k].state, WState::Crashed) {
                    let me = sent.actor;
                    if !self.claimed(k, &reply) {
                        self.xreadgroup(k, &me);
                    }
                }
            }
            Then::Read(k) => {
                if !matches!(self.workers[k].state, WState::Crashed) {
                    let batch = parse_entries(&reply);
                    if let Some(io) = self.io.as_mut() {
                        io.pending += batch.len() as u64;
                    }
                    self.got_batch(k, batch, false);
                }
            }
            Then::Xlen => self.half(tag, Some(int(&reply)), None),
            Then::Xpending => {
                let pending = match &reply {
                    Reply::Array(a) => a.first().map_or(0, int),
                    _ => 0,
                };
                self.half(tag.saturating_sub(1), None, Some(pending));
            }
        }
    }

    /// Live: one half of the sample whose XLEN has tag `id`; with both, the sample is taken
    /// (unless a newer one was).
    fn half(&mut self, id: usize, xlen: Option<u64>, pending: Option<u64>) {
        let stuck = self.stuck();
        let Some(io) = self.io.as_mut() else { return };
        let i = match io.halves.iter().position(|h| h.0 == id) {
            Some(i) => i,
            None => {
                io.halves.push((id, None, None));
                io.halves.len() - 1
            }
        };
        let h = &mut io.halves[i];
        h.1 = h.1.or(xlen);
        h.2 = h.2.or(pending);
        let (Some(xlen), Some(pending)) = (h.1, h.2) else {
            return;
        };
        io.halves.swap_remove(i);
        if io.last == Some(id) {
            io.over = true;
        }
        if io.newest.is_some_and(|n| n > id) {
            return;
        }
        io.newest = Some(id);
        let mut counters = self.c;
        counters.stuck = stuck;
        self.samples.push(Sample {
            t: self.now,
            xlen,
            pending,
            counters,
        });
    }

    fn note(&mut self, actor: &str, what: &str) {
        if self.log.len() < LOG_MAX {
            self.log.push(LogRow {
                at_ms: self.now,
                actor: actor.into(),
                cmd: String::new(),
                reply: String::new(),
                note: what.into(),
                rtt_us: None,
            });
        }
    }

    /// One event; false when the run is over.
    pub fn step(&mut self) -> bool {
        if self.done {
            return false;
        }
        let next_q = self.queue.peek().map(|Reverse((t, _, _))| *t);
        let next_t = self.sim.next_timeout_ms();
        if self.live == 0 && next_t.is_none() {
            // Only samples left: everyone waits for ever (BLOCK 0) or is gone.
            return self.finish();
        }
        let t = match (next_q, next_t) {
            (None, None) => return self.finish(),
            (a, b) => a.unwrap_or(u64::MAX).min(b.unwrap_or(u64::MAX)),
        };
        self.events += 1;
        if self.events > MAX_EVENTS || self.is_settled() {
            return self.finish();
        }
        self.now = t;
        if next_t == Some(t) && next_q.is_none_or(|q| q >= t) {
            // A BLOCK timed out: nil to that worker.
            self.sim.advance_to(t);
            self.wake_blocked();
            return true;
        }
        let Some(Reverse((_, _, ev))) = self.queue.pop() else {
            return self.finish();
        };
        if ev != Ev::Sample {
            self.live -= 1;
        }
        self.sim.advance_to(t);
        self.wake_blocked();
        match ev {
            Ev::Produce(i) => self.produce(i),
            Ev::Worker(k) => self.worker(k),
            Ev::Subscriber => self.subscriber(),
            Ev::Sample => self.sample(),
        }
        true
    }

    /// Up to `n` events; true when the run is over.
    pub fn steps(&mut self, n: usize) -> bool {
        for _ in 0..n {
            if !self.step() {
                break;
            }
        }
        self.done
    }

    /// Over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// How far along, 0..1 (an estimate until done).
    pub fn progress(&self) -> f64 {
        if self.done {
            return 1.0;
        }
        let total = self.p.messages.max(1) as f64;
        ((self.c.produced as f64 + self.c.saved as f64 + self.c.dead as f64) / (2.0 * total))
            .min(0.99)
    }

    /// What the run shows so far.
    pub fn result(&self) -> StreamsResult {
        let mut c = self.c;
        c.stuck = self.stuck();
        let mut samples = self.samples.clone();
        if self.io.is_none() && samples.last().is_none_or(|s| s.t < self.now) {
            samples.push(self.snapshot(c));
        }
        StreamsResult {
            params: self.p.clone(),
            samples,
            log: self.log.clone(),
            counters: c,
            crash_ms: self.crash_ms,
            end_ms: self.now,
            settled: self.settled,
            live: self.io.is_some(),
        }
    }

    /// Entries in the pending lists of crashed workers when nobody will claim them.
    fn stuck(&self) -> u64 {
        if self.p.autoclaim == "on"
            && self
                .workers
                .iter()
                .any(|w| !matches!(w.state, WState::Crashed))
        {
            0
        } else {
            self.pending()
        }
    }

    /// The group's pending entries (live: as the workers count them).
    fn pending(&self) -> u64 {
        match &self.io {
            Some(io) => io.pending,
            None => self.sim.stream_pending(STREAM.as_bytes(), GROUP.as_bytes()),
        }
    }

    fn is_settled(&self) -> bool {
        let c = &self.c;
        c.produced == self.p.messages
            && c.saved + c.dead + c.lost_trim >= self.p.messages
            && self.pending() == self.stuck()
            && self.io.as_ref().is_none_or(|io| io.busy == 0)
            && self
                .workers
                .iter()
                .all(|w| matches!(w.state, WState::Idle | WState::Blocked | WState::Crashed))
    }

    fn finish(&mut self) -> bool {
        self.settled = self.is_settled();
        let c = Counters {
            stuck: self.stuck(),
            ..self.c
        };
        self.c = c;
        self.samples.push(self.snapshot(c));
        self.done = true;
        false
    }

    fn snapshot(&self, counters: Counters) -> Sample {
        Sample {
            t: self.now,
            xlen: self.sim.stream_len(STREAM.as_bytes()),
            pending: self.sim.stream_pending(STREAM.as_bytes(), GROUP.as_bytes()),
            counters,
        }
    }

    fn sample(&mut self) {
        if self.io.is_some() {
            self.c.commands += 2;
            self.queue_live("", &["XLEN", STREAM], "", Then::Xlen);
            self.queue_live("", &["XPENDING", STREAM, GROUP], "", Then::Xpending);
            self.at(self.now + self.sample_every, Ev::Sample);
            return;
        }
        let s = self.snapshot(self.c);
        self.samples.push(s);
        self.at(self.now + self.sample_every, Ev::Sample);
    }

    fn produce(&mut self, i: u64) {
        let (producers, maxlen_n, messages, rate) = (
            self.p.producers,
            self.p.maxlen,
            self.p.messages,
            self.p.rate,
        );
        let actor = PRODUCERS[(i % u64::from(producers)) as usize];
        let mut digits = [0u8; 20];
        let n = num::decimal(i, &mut digits);
        let maxlen = std::mem::take(&mut self.maxlen);
        let stream = STREAM.as_bytes();
        if maxlen_n > 0 {
            let m = maxlen.as_bytes();
            let args: [&[u8]; 8] = [b"XADD", stream, b"MAXLEN", b"~", m, b"*", b"n", n];
            self.send(actor, &args, "");
        } else {
            self.send(actor, &[b"XADD", stream, b"*", b"n", n], "");
        }
        self.maxlen = maxlen;
        self.c.produced += 1;
        if self.io.is_some() {
            // Live: Redis trims on its own (XLEN shows it); nobody can SUBSCRIBE through the
            // proxy, so the Pub/Sub half stays in the simulation.
            if i + 1 < messages {
                let t = (i + 1) * 1000 / rate.max(1);
                self.at(t, Ev::Produce(i + 1));
            }
            return;
        }
        // The stream holds exactly the last XLEN messages: the rest were trimmed.
        let len = self.sim.stream_len(STREAM.as_bytes());
        let front = self.c.produced - len;
        while self.trim_front < front {
            if self.state[self.trim_front as usize] == NEW {
                self.c.lost_trim += 1;
                if self.c.lost_trim == 1 {
                    let m = format!(
                        "ছাঁটাই: #{} কেউ পড়ার আগেই মুছে গেল (MAXLEN ~ {maxlen_n})",
                        self.trim_front
                    );
                    self.note(actor, &m);
                }
            }
            self.trim_front += 1;
        }
        let note = if self.away && self.c.pubsub_lost == 0 {
            "কেউ শুনছে না"
        } else {
            ""
        };
        match integer(&self.send(actor, &[b"PUBLISH", CHANNEL.as_bytes(), n], note)) {
            Some(0) => self.c.pubsub_lost += 1,
            _ => {
                self.c.pubsub_delivered += 1;
                // The subscriber reads what it got; the lab only counts it.
                self.sim.clear_messages(SUBSCRIBER);
            }
        }
        self.wake_blocked();
        if i + 1 < messages {
            let t = (i + 1) * 1000 / rate.max(1);
            self.at(t, Ev::Produce(i + 1));
        }
    }

    fn subscriber(&mut self) {
        if self.away {
            self.away = false;
            self.send("sub", &["SUBSCRIBE", CHANNEL], "ফিরে এল");
        } else {
            self.away = true;
            self.sim.disconnect(SUBSCRIBER);
            self.note("sub", "subscriber চলে গেল (সংযোগ নেই)");
            self.at(self.now + self.p.away_ms, Ev::Subscriber);
        }
    }

    /// Blocked workers that got a reply (an XADD served them, or BLOCK timed out).
    fn wake_blocked(&mut self) {
        for w in self.sim.take_woken_raw() {
            let k = (w.client - 1000) as usize;
            let batch = read_entries(&w.reply);
            self.got_batch(k, batch, false);
        }
    }

    fn got_batch(&mut self, k: usize, batch: Vec<Msg>, claimed: bool) {
        if batch.is_empty() {
            self.workers[k].state = WState::Idle;
            self.at(self.now, Ev::Worker(k));
            return;
        }
        for m in &batch {
            self.c.delivered += 1;
            if claimed {
                self.c.reclaimed += 1;
            }
            let s = &mut self.state[m.n as usize];
            if *s == NEW {
                *s = DELIVERED;
            }
        }
        self.workers[k].state = WState::Saving(batch);
        self.at(self.now + self.p.save_ms, Ev::Worker(k));
    }

    fn save(&mut self, n: u64) {
        let s = &mut self.state[n as usize];
        match *s {
            SAVED => self.c.duplicates += 1,
            _ => {
                *s = SAVED;
                self.c.saved += 1;
            }
        }
    }

    fn poison(&self, n: u64) -> bool {
        self.p.poison_every > 0 && (n + 1) % self.p.poison_every == 0
    }

    fn worker(&mut self, k: usize) {
        let me = format!("w{}", k + 1);
        let state = std::mem::replace(&mut self.workers[k].state, WState::Idle);
        match state {
            WState::Crashed => self.workers[k].state = WState::Crashed,
            WState::Blocked => self.workers[k].state = WState::Blocked,
            WState::Idle => self.read(k, &me),
            WState::Saving(batch) => {
                let fails = batch.iter().any(|m| self.poison(m.n))
                    || (self.p.fail_rate > 0 && self.rng.below(100) < self.p.fail_rate);
                if fails {
                    self.c.failed_batches += 1;
                    if self.c.failed_batches == 1 {
                        self.note(&me, "ব্যাচ সেভ ব্যর্থ — এবার একটা একটা করে");
                    }
                    self.workers[k].state = WState::Retrying(batch, 0);
                    self.at(self.now + self.p.retry_ms, Ev::Worker(k));
                    return;
                }
                for m in &batch {
                    self.save(m.n);
                }
                let crash = self.p.crash_worker as usize == k + 1
                    && self.crash_ms.is_none()
                    && self.now >= self.p.crash_at;
                if crash {
                    self.crash_ms = Some(self.now);
                    self.workers[k].state = WState::Crashed;
                    self.sim.disconnect(worker_client(k));
                    let m = format!("{me} ক্র্যাশ: {}টা মেসেজ সেভ হয়েছে, XACK হয়নি", batch.len());
                    self.note(&me, &m);
                    return;
                }
                // The IDs written one after another into one buffer, the words slices of it.
                let mut text = Vec::with_capacity(batch.len() * 24);
                let mut ends = Vec::with_capacity(batch.len());
                for m in &batch {
                    m.id.write_to(&mut text);
                    ends.push(text.len());
                }
                let mut args: Vec<&[u8]> = Vec::with_capacity(3 + batch.len());
                args.extend([&b"XACK"[..], STREAM.as_bytes(), GROUP.as_bytes()]);
                let mut from = 0;
                for &end in &ends {
                    args.push(&text[from..end]);
                    from = end;
                }
                self.ack(&me, &args, "");
                self.read(k, &me);
            }
            WState::Retrying(batch, i) => {
                let m = batch[i].clone();
                let id = m.id.to_string();
                if self.poison(m.n) {
                    let reason = "poison: অর্ডারের টাকা ঋণাত্মক, সেভ হবে না";
                    let n = m.n.to_string();
                    let note = if self.c.dead < 3 { "dead-letter" } else { "" };
                    self.send(
                        &me,
                        &["XADD", DEAD, "*", "id", &id, "n", &n, "reason", reason],
                        note,
                    );
                    self.state[m.n as usize] = DEAD_LETTERED;
                    self.c.dead += 1;
                } else {
                    self.save(m.n);
                    self.c.retried += 1;
                }
                let note = if self.c.retried + self.c.dead <= 3 {
                    "একটা একটা করে"
                } else {
                    ""
                };
                self.ack(&me, &["XACK", STREAM, GROUP, &id], note);
                if i + 1 < batch.len() {
                    self.workers[k].state = WState::Retrying(batch, i + 1);
                    self.at(self.now + self.p.retry_ms, Ev::Worker(k));
                } else {
                    self.read(k, &me);
                }
            }
        }
    }

    /// XAUTOCLAIM when it is time, else XREADGROUP.
    fn read(&mut self, k: usize, me: &str) {
        let count = self.p.count.to_string();
        if self.p.autoclaim == "on" && self.now >= self.workers[k].next_claim {
            let idle = self.p.claim_idle.to_string();
            let every = self.p.claim_every;
            self.workers[k].next_claim = self.now + every;
            let cursor = self.workers[k].cursor.to_string();
            let args = [
                "XAUTOCLAIM",
                STREAM,
                GROUP,
                me,
                &idle,
                &cursor,
                "COUNT",
                &count,
            ];
            // Log the claims that take something over (decided after the reply).
            self.c.commands += 1;
            if self.io.is_some() {
                self.workers[k].state = WState::Blocked;
                self.queue_live(me, &args, "", Then::Claim(k));
                return;
            }
            let Exec::Reply(reply) = self.sim.execute(worker_client(k), &args) else {
                unreachable!("XAUTOCLAIM does not block")
            };
            let (_, batch, deleted) = parse_autoclaim(&reply);
            if (!batch.is_empty() || !deleted.is_empty()) && self.log.len() < LOG_MAX {
                self.log.push(LogRow {
                    at_ms: self.now,
                    actor: me.into(),
                    cmd: args.join(" "),
                    reply: short(reply.to_string(), 140),
                    note: claim_note(batch.len(), deleted.len()),
                    rtt_us: None,
                });
            }
            if self.claimed(k, &reply) {
                return;
            }
        }
        self.xreadgroup(k, me);
    }

    /// XAUTOCLAIM's reply: the cursor, the entries dropped by a trim; true when it took a
    /// batch over (the worker saves it).
    fn claimed(&mut self, k: usize, reply: &Reply) -> bool {
        let (next, batch, deleted) = parse_autoclaim(reply);
        self.workers[k].cursor = next;
        self.c.claim_deleted += deleted.len() as u64;
        if let Some(io) = self.io.as_mut() {
            io.pending = io.pending.saturating_sub(deleted.len() as u64);
        }
        if batch.is_empty() {
            return false;
        }
        self.got_batch(k, batch, true);
        true
    }

    /// XACK, counting what it acknowledged.
    fn ack<A: AsRef<[u8]>>(&mut self, me: &str, args: &[A], note: &str) {
        if self.io.is_some() {
            self.c.commands += 1;
            self.queue_live(me, args, note, Then::Ack);
        } else if let Some(n) = integer(&self.send(me, args, note)) {
            self.c.acked += n as u64;
        }
    }

    /// `XREADGROUP … BLOCK`: a batch, or blocked until one comes (or the block times out).
    fn xreadgroup(&mut self, k: usize, me: &str) {
        let count = self.p.count.to_string();
        let block = self.p.block.to_string();
        let args = [
            "XREADGROUP",
            "GROUP",
            GROUP,
            me,
            "COUNT",
            &count,
            "BLOCK",
            &block,
            "STREAMS",
            STREAM,
            ">",
        ];
        if self.io.is_some() {
            self.c.commands += 1;
            self.workers[k].state = WState::Blocked;
            self.queue_live(me, &args, "", Then::Read(k));
            return;
        }
        match self.send(me, &args, "") {
            RawExec::Blocked => self.workers[k].state = WState::Blocked,
            RawExec::Reply(r) => {
                let batch = read_entries(&r);
                self.got_batch(k, batch, false);
            }
        }
    }
}

fn claim_note(taken: usize, deleted: usize) -> String {
    format!(
        "দখল: {taken}টা (আগে অন্য worker পেয়েছিল){}",
        if deleted == 0 {
            String::new()
        } else {
            format!(", {deleted}টা ছাঁটাই হয়ে গেছে")
        }
    )
}

/// Entries of an XREADGROUP reply as the proxy sends it (`[[key, [[id, [f, v, …]], …]]]`)
/// or nil: a live run's.
fn parse_entries(r: &Reply) -> Vec<Msg> {
    let Reply::Array(streams) = r else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in streams {
        if let Reply::Array(kv) = s {
            if let Some(Reply::Array(entries)) = kv.get(1) {
                out.extend(entries.iter().filter_map(entry_msg));
            }
        }
    }
    out
}

/// Entries of an XREADGROUP reply (`[[key, [[id, [f, v, …]], …]]]`), read without
/// rendering it; nothing for nil (BLOCK timed out) or an error. An entry without an `n`
/// field that reads as a number is skipped.
fn read_entries(r: &RawReply) -> Vec<Msg> {
    let RawReply::Read(read) = r else {
        return Vec::new();
    };
    read.entries()
        .filter_map(|e| {
            let n = parse_u64(e.field(b"n")?)?;
            Some(Msg { id: e.id, n })
        })
        .collect()
}

/// `str::parse::<u64>` on bytes: an optional `+`, then at least one digit, no overflow.
fn parse_u64(b: &[u8]) -> Option<u64> {
    let d = b.strip_prefix(b"+").unwrap_or(b);
    if d.is_empty() {
        return None;
    }
    d.iter().try_fold(0u64, |n, &c| {
        if !c.is_ascii_digit() {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(c - b'0'))
    })
}

/// The words of a command joined by spaces, as `redis-cli` echoes it.
fn words<A: AsRef<[u8]>>(args: &[A]) -> String {
    let mut s = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&String::from_utf8_lossy(a.as_ref()));
    }
    s
}

/// The value of an integer reply.
fn integer(r: &RawExec) -> Option<i64> {
    match r {
        RawExec::Reply(RawReply::Tree(Reply::Integer(n))) => Some(*n),
        _ => None,
    }
}

fn entry_msg(e: &Reply) -> Option<Msg> {
    let Reply::Array(pair) = e else { return None };
    let id = StreamId::parse(pair.first()?.as_bulk()?)?;
    let Reply::Array(fields) = pair.get(1)? else {
        return None;
    };
    let n = fields
        .chunks(2)
        .find(|f| f[0].as_bulk() == Some(b"n"))
        .and_then(|f| f.get(1)?.as_bulk())
        .and_then(parse_u64)?;
    Some(Msg { id, n })
}

/// XAUTOCLAIM's `[cursor, entries, deleted ids]`.
fn parse_autoclaim(r: &Reply) -> (StreamId, Vec<Msg>, Vec<StreamId>) {
    let Reply::Array(parts) = r else {
        return (StreamId::MIN, Vec::new(), Vec::new());
    };
    let cursor = parts
        .first()
        .and_then(Reply::as_bulk)
        .and_then(StreamId::parse)
        .unwrap_or(StreamId::MIN);
    let entries = match parts.get(1) {
        Some(Reply::Array(v)) => v.iter().filter_map(entry_msg).collect(),
        _ => Vec::new(),
    };
    let deleted = match parts.get(2) {
        Some(Reply::Array(v)) => v
            .iter()
            .filter_map(|x| StreamId::parse(x.as_bulk()?))
            .collect(),
        _ => Vec::new(),
    };
    (cursor, entries, deleted)
}

/// A live run produces at most this many messages…
pub const LIVE_MESSAGES: u64 = 200;
/// …at most this many a second (every message is an XADD, a read and an XACK through the
/// proxy, which takes 200 commands a second from one connection)…
pub const LIVE_RATE: u64 = 30;
/// …to at most this many workers (the proxy runs one blocking read of a session at a time,
/// so the workers' `XREADGROUP … BLOCK` take turns)…
pub const LIVE_WORKERS: u32 = 3;
/// …each blocking at most this long (so a turn never waits past the proxy's 2 s deadline).
pub const LIVE_BLOCK_MS: u64 = 500;
/// XAUTOCLAIM's min-idle and period at most (30 s of waiting is a long time to watch).
pub const LIVE_CLAIM_IDLE_MS: u64 = 3000;
/// See [`LIVE_CLAIM_IDLE_MS`].
pub const LIVE_CLAIM_EVERY_MS: u64 = 1000;
/// A live run stops after this long, settled or not, ms.
pub const LIVE_DEADLINE_MS: u64 = 120_000;

impl StreamsParams {
    /// What a live run at time scale `k` runs: the counts scaled down to
    /// [`LIVE_MESSAGES`] messages at [`LIVE_RATE`]/s through [`LIVE_WORKERS`] workers with
    /// `BLOCK` ≤ [`LIVE_BLOCK_MS`], XAUTOCLAIM after [`LIVE_CLAIM_IDLE_MS`], the crash by
    /// 1 s; then the times `k` times longer (the rate `k` times lower). No Pub/Sub: nobody
    /// can SUBSCRIBE through the proxy.
    pub fn for_live(&self, k: u64) -> StreamsParams {
        let k = k.max(1);
        let block = if self.block == 0 {
            LIVE_BLOCK_MS
        } else {
            self.block.min(LIVE_BLOCK_MS)
        };
        StreamsParams {
            messages: self.messages.min(LIVE_MESSAGES),
            rate: (self.rate.min(LIVE_RATE) / k).max(1),
            workers: self.workers.min(LIVE_WORKERS),
            count: self.count,
            block,
            save_ms: self.save_ms * k,
            retry_ms: self.retry_ms * k,
            crash_worker: if self.crash_worker > self.workers.min(LIVE_WORKERS) {
                0
            } else {
                self.crash_worker
            },
            crash_at: self.crash_at.min(1000) * k,
            claim_idle: self.claim_idle.min(LIVE_CLAIM_IDLE_MS) * k,
            claim_every: self.claim_every.min(LIVE_CLAIM_EVERY_MS) * k,
            away_ms: 0,
            poison_every: if self.poison_every > 0 {
                self.poison_every
                    .min(self.messages.min(LIVE_MESSAGES) / 4)
                    .max(1)
            } else {
                0
            },
            ..self.clone()
        }
    }
}

/// The same producers and workers against a real Redis, in real time (live mode): the
/// [`StreamsRun`] itself with its commands going out through the driver (the simulation
/// worker, a test natively) — [`StreamsLive::advance`] with the milliseconds since the start
/// gives the commands to send, [`StreamsLive::arrived`] takes each reply. A blocking read is
/// one command whose reply comes when Redis has entries or the block times out. Every
/// [`StreamsParams`] interval the run asks Redis for `XLEN` and `XPENDING`: the samples are
/// Redis' own numbers. It ends once every message is saved or dead-lettered and acknowledged
/// (or stuck in a dead worker's list), with a last sample.
pub struct StreamsLive {
    run: StreamsRun,
}

impl StreamsLive {
    /// The live run of `p` (as [`StreamsParams::for_live`] shapes it).
    pub fn new(p: &StreamsParams) -> Self {
        StreamsLive {
            run: StreamsRun::build(p, true),
        }
    }

    /// Runs everything due by `now_ms`; the commands to send now: (tag, command).
    pub fn advance(&mut self, now_ms: u64) -> Vec<(usize, Vec<Vec<u8>>)> {
        let r = &mut self.run;
        while !r.done {
            let Some(Reverse((t, _, _))) = r.queue.peek() else {
                break;
            };
            if *t > now_ms {
                break;
            }
            let Some(Reverse((t, _, ev))) = r.queue.pop() else {
                break;
            };
            if ev != Ev::Sample {
                r.live -= 1;
            }
            r.now = r.now.max(t);
            match ev {
                Ev::Produce(i) => r.produce(i),
                Ev::Worker(k) => r.worker(k),
                Ev::Subscriber => {}
                Ev::Sample => {
                    if !r.io.as_ref().is_some_and(|io| io.closing) {
                        r.sample();
                    }
                }
            }
        }
        r.now = r.now.max(now_ms);
        let closing = r.io.as_ref().is_some_and(|io| io.closing);
        if !closing && !r.done && (r.is_settled() || r.now >= LIVE_DEADLINE_MS) {
            r.settled = r.is_settled();
            if let Some(io) = r.io.as_mut() {
                io.closing = true;
            }
            r.queue_live("", &["XLEN", STREAM], "", Then::Xlen);
            r.queue_live("", &["XPENDING", STREAM, GROUP], "", Then::Xpending);
            if let Some(io) = r.io.as_mut() {
                io.last = Some(io.sent.len() - 2);
            }
        }
        if r.io.as_ref().is_some_and(|io| io.over) && !r.done {
            r.c.stuck = r.stuck();
            r.done = true;
        }
        r.io.as_mut()
            .map(|io| std::mem::take(&mut io.outbox))
            .unwrap_or_default()
    }

    /// The reply to the command with `tag` arrived at `now_ms`, `rtt_us` after it was sent
    /// (an error of the proxy comes as an error reply).
    pub fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        self.run.arrived(tag, reply, now_ms, rtt_us);
    }

    /// When something is next due (`None`: waiting for replies only, or done).
    pub fn next_at(&self) -> Option<u64> {
        if self.run.done {
            return None;
        }
        self.run.queue.peek().map(|Reverse((t, _, _))| *t)
    }

    /// The last sample came after every message settled (or the deadline).
    pub fn is_done(&self) -> bool {
        self.run.done
    }

    /// What the run shows so far.
    pub fn result(&self) -> StreamsResult {
        self.run.result()
    }
}

/// The budget's run: 1,000,000 entries, `MAXLEN ~ 100000`, a group of 4 that keeps up.
pub const BENCH_QUERY: &str =
    "messages=1000000&rate=500000&workers=4&count=200&save_ms=1&retry_ms=0";

/// Runs `p` to the end.
pub fn run(p: &StreamsParams) -> StreamsResult {
    let mut r = StreamsRun::new(p);
    while r.step() {}
    r.result()
}

// --- the lab -------------------------------------------------------------------------------

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "streams",
    title: "Redis Streams — consumer group, XACK, XAUTOCLAIM",
    blurb: "ব্যাচে পড়া, সেভ করে XACK, poison-এর dead-letter, মরা worker-এর ব্যাচ XAUTOCLAIM-এ — আর পাশে Pub/Sub, যা কেউ না শুনলে হারায়",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["run"],
    live: true,
};

/// The parameters of `job`: scaled down for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> StreamsParams {
    let p: StreamsParams = p.typed();
    match job.live_scale {
        Some(k) => p.for_live(k),
        None => p,
    }
}

/// World events per unit of work.
const EVENTS: usize = 8_192;

impl Run for StreamsRun {
    type Part = ();
    type Output = StreamsResult;
    fn step(&mut self) -> Option<()> {
        self.steps(EVENTS);
        None
    }
    fn is_done(&self) -> bool {
        StreamsRun::is_done(self)
    }
    fn progress(&self) -> f64 {
        StreamsRun::progress(self)
    }
    fn output(&mut self) -> StreamsResult {
        self.result()
    }
}

/// The lab's runner.
pub struct StreamsLab;

/// The registry's entry.
pub static LAB: StreamsLab = StreamsLab;

impl Lab for StreamsLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(StreamsRun::new(&shaped(job, p))))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        Some(Box::new(StreamsLive::new(&shaped(job, p))))
    }

    fn heaviest(&self) -> &'static str {
        "messages=2000000&rate=1000000&producers=16&workers=16&count=10000&maxlen=10000000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "Redis Streams: producers XADD MAXLEN ~, a consumer group of workers \
                      (XREADGROUP COUNT BLOCK, save, XACK), retry one by one, dead-letter, \
                      a crash taken over by XAUTOCLAIM, trimming losses; Pub/Sub beside it",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.typed());
        Ok(crate::cli::emit(a, r.text(), || r.to_json()))
    }
}

impl LiveDriver for StreamsLive {
    fn advance(&mut self, now_ms: u64) -> Vec<(usize, Command)> {
        StreamsLive::advance(self, now_ms)
    }
    fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        StreamsLive::arrived(self, tag, reply, now_ms, rtt_us);
    }
    fn next_at(&self) -> Option<u64> {
        StreamsLive::next_at(self)
    }
    fn is_done(&self) -> bool {
        StreamsLive::is_done(self)
    }
    fn snapshot(&self) -> Json {
        Json::of(&self.result())
    }
    fn snapshot_ms(&self) -> f64 {
        250.0
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::params::Params;

    fn with(q: &str) -> StreamsParams {
        let (p, e) = Params::from_query(&INFO, q);
        assert!(e.is_empty(), "{e:?}");
        p.typed()
    }

    fn preset_params(id: &str, extra: &str) -> StreamsParams {
        let pr = PRESETS.iter().find(|p| p.id == id).expect("preset");
        let mut q: Vec<String> = pr.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if !extra.is_empty() {
            q.push(extra.into());
        }
        with(&q.join("&"))
    }

    /// The byte parser of `n` reads exactly what `str::parse::<u64>` reads.
    #[test]
    fn parse_u64_is_strs() {
        let mut g = Mulberry32::new(3);
        let mut cases: Vec<Vec<u8>> = [
            "",
            "+",
            "-",
            "-0",
            "+0",
            "0",
            "007",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            " 1",
            "1 ",
            "1a",
            "+-1",
            "١",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        for _ in 0..2000 {
            let len = g.below(22) as usize;
            cases.push(
                (0..len)
                    .map(|_| b"0123456789+- x"[g.below(14) as usize])
                    .collect(),
            );
        }
        for c in cases {
            let want = std::str::from_utf8(&c)
                .ok()
                .and_then(|s| s.parse::<u64>().ok());
            assert_eq!(parse_u64(&c), want, "{:?}", String::from_utf8_lossy(&c));
        }
    }

    #[test]
    fn a_healthy_run_saves_everything_once() {
        let r = run(&StreamsParams::default());
        let c = r.counters;
        assert!(r.settled, "{}", r.text());
        assert_eq!(
            (
                c.produced,
                c.saved,
                c.duplicates,
                c.dead,
                c.lost_trim,
                c.stuck
            ),
            (5000, 5000, 0, 0, 0, 0)
        );
        assert_eq!(c.acked, 5000);
        assert_eq!(c.delivered, 5000);
        assert_eq!(c.pubsub_delivered, 5000);
        assert_eq!(r.samples.last().unwrap().pending, 0);
        // The log starts with the group and the first commands as sent.
        assert_eq!(r.log[0].cmd, "XGROUP CREATE orders savers $ MKSTREAM");
        assert!(r.log.iter().any(|l| l
            .cmd
            .starts_with("XREADGROUP GROUP savers w1 COUNT 200 BLOCK 5000")));
    }

    #[test]
    fn every_preset_shows_its_failure() {
        let r = run(&preset_params("retry", ""));
        assert!(r.counters.failed_batches > 0 && r.counters.retried > 0);
        assert_eq!(r.counters.saved, 5000);
        let r = run(&preset_params("poison", ""));
        assert_eq!(r.counters.dead, 7, "{}", r.text());
        assert_eq!(r.counters.saved + r.counters.dead, 5000);
        assert!(r
            .log
            .iter()
            .any(|l| l.cmd.starts_with("XADD orders:dead * id ")));
        let r = run(&preset_params("crash", ""));
        let c = r.counters;
        assert!(r.crash_ms.is_some());
        assert!(
            c.reclaimed > 0 && c.duplicates == c.reclaimed,
            "{}",
            r.text()
        );
        assert_eq!((c.saved, c.stuck, c.lost_trim), (20_000, 0, 0));
        assert!(r.end_ms >= r.crash_ms.unwrap() + 30_000);
        let r = run(&preset_params("crash-no-claim", ""));
        assert!(r.counters.stuck > 0 && r.counters.saved == 20_000 && r.counters.duplicates == 0);
        assert_eq!(r.samples.last().unwrap().pending, r.counters.stuck);
        let r = run(&preset_params("pubsub-away", ""));
        // 3 s away at 500/s: 1500 publishes nobody heard; the stream kept all of them.
        assert_eq!(r.counters.pubsub_lost, 1500);
        assert_eq!(r.counters.saved, 5000);
    }

    #[test]
    fn falling_behind_with_maxlen_loses_unread_entries() {
        let r = run(&preset_params("trim", "messages=150000&rate=30000"));
        let c = r.counters;
        assert!(c.lost_trim > 0, "{}", r.text());
        assert_eq!(c.saved + c.lost_trim, c.produced, "{}", r.text());
        let peak = r.samples.iter().map(|s| s.xlen).max().unwrap();
        // MAXLEN ~ keeps at least 100000 and less than one node (100 entries) more.
        assert!((100_000..100_100).contains(&peak), "{peak}");
        // Without trimming nothing is lost.
        let r = run(&preset_params(
            "trim",
            "messages=150000&rate=30000&maxlen=0",
        ));
        assert_eq!((r.counters.lost_trim, r.counters.saved), (0, 150_000));
    }

    #[test]
    fn stepped_in_any_slices_equals_the_run_to_the_end() {
        for q in [
            "",
            "crash_worker=1&fail_rate=20&poison_every=333&away_ms=1500",
        ] {
            let p = with(q);
            let want = run(&p);
            for slice in [1, 7, 1000] {
                let mut r = StreamsRun::new(&p);
                while !r.steps(slice) {}
                assert_eq!(r.result(), want, "slice {slice}");
            }
            // so_far at the end is the end counters; at 0 nothing has been saved.
            assert_eq!(want.so_far(u64::MAX), want.counters);
            assert_eq!(want.so_far(0).saved, 0);
        }
    }

    /// With XAUTOCLAIM and no trimming no entry is lost, and the duplicates are exactly the
    /// re-claimed entries (the crash comes after the save, before the XACK): over seeded
    /// random crash schedules, worker counts and failure rates.
    #[test]
    fn autoclaim_loses_nothing_and_duplicates_are_the_reclaimed() {
        let mut g = Mulberry32::new(2026);
        let mut with_claims = 0;
        for case in 0..40 {
            let workers = 2 + g.below(5);
            let messages = 500 + g.below(3000);
            let rate = 100 + g.below(4000);
            let span = u64::from(messages) * 1000 / u64::from(rate);
            let q = format!(
                "messages={messages}&rate={rate}&workers={workers}&count={}&save_ms={}&crash_worker={}&crash_at={}&fail_rate={}&poison_every={}&maxlen=0&claim_idle={}&claim_every={}&seed={}",
                1 + g.below(300),
                g.below(120),
                1 + g.below(workers),
                g.below(span as u32 + 1),
                g.below(40),
                [0, 97, 500][g.below(3) as usize],
                1000 + g.below(40_000),
                500 + g.below(6000),
                g.next_u32(),
            );
            let r = run(&with(&q));
            let c = r.counters;
            assert!(r.settled, "case {case} {q}\n{}", r.text());
            assert_eq!(c.lost_trim + c.stuck, 0, "case {case} {q}\n{}", r.text());
            assert_eq!(
                c.saved + c.dead,
                c.produced,
                "case {case} {q}\n{}",
                r.text()
            );
            assert_eq!(c.duplicates, c.reclaimed, "case {case} {q}\n{}", r.text());
            if c.reclaimed > 0 {
                with_claims += 1;
            }
        }
        assert!(
            with_claims >= 10,
            "only {with_claims} of 40 schedules had a take-over"
        );
    }
}
