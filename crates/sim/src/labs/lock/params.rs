//! The lock race's parameters, declared once ([`crate::params!`]): the "plain DEL" preset's
//! race as the defaults, the four presets of issue 9, and the race slowed for live mode.

use crate::labs::params::Switch;
use crate::labs::preset::Preset;

crate::choices! {
    /// How a worker releases the lock.
    pub enum Release {
        /// Plain `DEL lock:…`: whoever's lock is there.
        Del = "del" / "সাধারণ DEL",
        /// The token-checked release script: only its own.
        Token = "token" / "টোকেন মিলিয়ে (Lua স্ক্রিপ্ট)",
    }
}

crate::choices! {
    /// One of the two workers.
    pub enum Who {
        /// Worker A.
        A = "a" / "A",
        /// Worker B.
        B = "b" / "B",
    }
}

crate::params! {
    /// The lock race's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub struct LockParams {
        /// Lock TTL, ms.
        pub ttl: u64 = int(1000, 300..=30000, "লকের TTL (ms)"),
        /// Work per job, ms.
        pub work: u64 = int(600, 10..=10000, "কাজের সময় (ms)"),
        /// Jobs per worker.
        pub jobs: u32 = int(2, 1..=5, "প্রতি worker-এ কাজ"),
        /// How the lock is released.
        pub release: Release = choice(Release::Del, "লক ছাড়া"),
        /// Extend the lock every ttl/3 while working.
        pub heartbeat: Switch = choice(Switch::Off, "heartbeat"),
        /// `INCR` a fencing token on acquire; the resource rejects older tokens.
        pub fencing: Switch = choice(Switch::Off, "fencing token"),
        /// `SET dedup:click-<k> 1 NX EX <dedup_ex>` before each job.
        pub dedup: Switch = choice(Switch::Off, "ডাবল-ক্লিক dedup"),
        /// The dedup key's EX, seconds.
        pub dedup_ex: u64 = int(900, 1..=86400, "dedup EX (s)"),
        /// Who pauses.
        pub pause_worker: Who = choice(Who::A, "কে থমকাবে"),
        /// When the pause may start, ms.
        pub pause_at: u64 = int(200, 0..=10000, "থমকানো শুরু (ms)"),
        /// How long it lasts, ms (0: no pause).
        pub pause: u64 = int(800, 0..=10000, "থমকানোর দৈর্ঘ্য (ms)"),
        /// B starts this long after A, ms.
        pub gap: u64 = int(20, 0..=10000, "B আসে পরে (ms)"),
        /// Seed of the tokens, the waits between tries and the network jitter.
        pub seed: u32 = seed(4),
    }
}

impl Default for LockParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl LockParams {
    /// Release by the token-checked script.
    pub fn token_release(&self) -> bool {
        self.release == Release::Token
    }
    /// Heartbeat on.
    pub fn heartbeat_on(&self) -> bool {
        self.heartbeat == Switch::On
    }
    /// Fencing on.
    pub fn fencing_on(&self) -> bool {
        self.fencing == Switch::On
    }
    /// Dedup on.
    pub fn dedup_on(&self) -> bool {
        self.dedup == Switch::On
    }
    /// Index of the worker that pauses.
    pub fn pauser(&self) -> usize {
        usize::from(self.pause_worker == Who::B)
    }

    /// The same race `k` times slower: the TTL, the work, the pause, when it starts and B's
    /// gap all multiplied by `k` (the live mode's time scale; the waits between tries stay
    /// 40–100 ms). The simulation of the slowed parameters is the live run's prediction.
    pub fn slowed(&self, k: u64) -> LockParams {
        let k = k.max(1);
        LockParams {
            ttl: self.ttl * k,
            work: self.work * k,
            pause_at: self.pause_at * k,
            pause: self.pause * k,
            gap: self.gap * k,
            ..self.clone()
        }
    }
}

/// The four presets of issue 9.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "plain-del",
        label: "সাধারণ DEL",
        about: "A থমকে যায়, মেয়াদ ফুরোয়, B লক নেয় — কাজ সেরে A-র DEL মুছে দেয় B-র লক",
        pairs: &[
            ("release", "del"),
            ("heartbeat", "off"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "800"),
        ],
    },
    Preset {
        id: "token",
        label: "টোকেন মিলিয়ে ছাড়া",
        about: "Lua স্ক্রিপ্ট কেবল নিজের টোকেন মুছে দেয়, heartbeat মেয়াদ বাড়ায় — কখনো দুই মালিক নয়",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "on"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "800"),
        ],
    },
    Preset {
        id: "pause",
        label: "TTL পেরোনো pause, fencing ছাড়া",
        about: "A এত লম্বা থমকায় যে B লক নিয়ে লিখে ফেলে — জেগে উঠে A-র পুরোনো লেখা চেপে বসে",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "off"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "1500"),
        ],
    },
    Preset {
        id: "fencing",
        label: "fencing token সহ",
        about: "একই pause, কিন্তু লেখায় fencing token — পুরোনো token দেখে resource লেখাটা ফিরিয়ে দেয়",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "off"),
            ("fencing", "on"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "1500"),
        ],
    },
];
