//! The streams lab's parameters, declared once ([`crate::params!`]): the seed's chat as the
//! defaults, the presets (one failure mode each) and the shape of a live run.

use crate::labs::params::Switch;
use crate::labs::preset::Preset;
use serde::{Deserialize, Serialize};

crate::params! {
    /// The streams lab's parameters (the seed's chat: 5,000 messages at 500/s, a group of
    /// four reading `COUNT 200 BLOCK 5000`).
    #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub struct StreamsParams {
        /// Messages in all.
        pub messages: u64 = int(5000, 1..=2000000, "মোট মেসেজ"),
        /// Messages a second, all producers together.
        pub rate: u64 = int(500, 1..=1000000, "প্রতি সেকেন্ডে মেসেজ"),
        /// Producers.
        pub producers: u32 = int(2, 1..=16, "producer"),
        /// Consumers in the group.
        pub workers: u32 = int(4, 1..=16, "worker (consumer)"),
        /// `XREADGROUP … COUNT`.
        pub count: u32 = int(200, 1..=10000, "XREADGROUP COUNT"),
        /// `XREADGROUP … BLOCK`, ms.
        pub block: u64 = int(5000, 0..=60000, "BLOCK (ms)"),
        /// Saving one batch, ms.
        pub save_ms: u64 = int(20, 0..=60000, "একটা ব্যাচ সেভ (ms)"),
        /// Saving one message again after a failed batch, ms.
        pub retry_ms: u64 = int(2, 0..=10000, "একটা মেসেজ আবার সেভ (ms)"),
        /// Percent of batch saves that fail (seeded).
        pub fail_rate: u32 = int(0, 0..=100, "ব্যাচ সেভ ব্যর্থ (%)"),
        /// Every this many messages one never saves (0: none).
        pub poison_every: u64 = int(0, 0..=1000000, "প্রতি কতটায় একটা poison (০ = নেই)"),
        /// The consumer that crashes after a save, before its XACK (1-based; 0: nobody).
        pub crash_worker: u32 = int(0, 0..=16, "কোন worker ক্র্যাশ করে (০ = কেউ না)"),
        /// When it crashes, ms.
        pub crash_at: u64 = int(3000, 0..=3600000, "ক্র্যাশের সময় (ms)"),
        /// The others take over what was idle too long.
        pub autoclaim: Switch = choice(Switch::On, "XAUTOCLAIM"),
        /// XAUTOCLAIM's min-idle, ms.
        pub claim_idle: u64 = int(30000, 0..=3600000, "XAUTOCLAIM min-idle (ms)"),
        /// How often each consumer runs XAUTOCLAIM, ms.
        pub claim_every: u64 = int(5000, 100..=3600000, "XAUTOCLAIM কতক্ষণ পরপর (ms)"),
        /// `MAXLEN ~` (0: no trimming).
        pub maxlen: u64 = int(100000, 0..=10000000, "MAXLEN ~ (০ = ছাঁটাই নেই)"),
        /// When the Pub/Sub subscriber goes away, ms.
        pub away_at: u64 = int(4000, 0..=3600000, "subscriber চলে যায় (ms)"),
        /// For how long (0: never), ms.
        pub away_ms: u64 = int(0, 0..=3600000, "subscriber কতক্ষণ নেই (ms)"),
        /// Seed of the failures and the producers' timing.
        pub seed: u32 = seed(17),
    }
}

impl Default for StreamsParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

/// The presets: one failure mode each.
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
