//! The streams lab's parameters: the fields with their ranges and the seed's defaults, the
//! typed struct, the presets (one failure mode each) and the shape of a live run.

use crate::labs::params::{choice, int, Field};
use crate::labs::preset::Preset;
use serde::{Deserialize, Serialize};

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
        crate::labs::params::Params::defaults(&super::INFO).typed()
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

