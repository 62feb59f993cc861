//! The failover-and-Redlock lab's parameters, declared once ([`crate::params!`]): the
//! failover preset's race as the defaults, one preset per step of the slides' story.

use super::REDLOCK_NODES;
use crate::labs::params::Switch;
use crate::labs::preset::Preset;

crate::choices! {
    /// Which servers hold the lock.
    pub enum Setup {
        /// One primary with an asynchronous replica.
        Single = "single" / "একটা primary আর তার replica",
        /// Redlock over five independent primaries.
        Redlock = "redlock" / "Redlock, পাঁচটা primary",
    }
}

crate::params! {
    /// The lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub struct RedlockParams {
        /// A primary and its replica, or five primaries.
        pub setup: Setup = choice(Setup::Single, "ব্যবস্থা"),
        /// Lock TTL, ms.
        pub ttl: u64 = int(1000, 300..=30000, "lock-এর TTL (ms)"),
        /// Work in the critical section, ms.
        pub work: u64 = int(600, 10..=10000, "কাজের সময় (ms)"),
        /// B starts this long after A, ms.
        pub gap: u64 = int(200, 0..=10000, "B আসে পরে (ms)"),
        /// Replication lag (single), ms.
        pub lag: u64 = int(50, 0..=5000, "replication lag (ms)"),
        /// The primary (single) or r1 (redlock) crashes.
        pub crash: Switch = choice(Switch::On, "primary (Redlock-এ r1) মরবে"),
        /// When it crashes, ms.
        pub crash_at: u64 = int(20, 0..=10000, "মৃত্যুর সময় (ms)"),
        /// Single: the replica is promoted this long after the crash, ms.
        pub promote_after: u64 = int(100, 0..=10000, "promote হয় পরে (ms)"),
        /// A's stop-the-world pause right after it wins the lock, ms (0: none).
        pub pause: u64 = int(0, 0..=10000, "A-র pause (ms)"),
        /// How far r3's wall clock (single: the primary's) jumps forward, ms (0: none).
        pub jump: u64 = int(0, 0..=60000, "ঘড়ির লাফ, r3 বা primary (ms)"),
        /// When it jumps, ms.
        pub jump_at: u64 = int(100, 0..=10000, "লাফের সময় (ms)"),
        /// A cannot reach r4 and r5.
        pub partition: Switch = choice(Switch::Off, "A থেকে r4, r5 বিচ্ছিন্ন"),
        /// Winners take a fencing token, the storage checks it.
        pub fencing: Switch = choice(Switch::Off, "fencing token"),
        /// Seed of the tokens, the retry waits and the network jitter.
        pub seed: u32 = seed(19),
    }
}

impl Default for RedlockParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl RedlockParams {
    /// Five independent primaries.
    pub fn redlock(&self) -> bool {
        self.setup == Setup::Redlock
    }
    /// Nodes the clients talk to.
    pub fn nodes(&self) -> usize {
        if self.redlock() {
            REDLOCK_NODES
        } else {
            1
        }
    }
    /// Nodes a win needs.
    pub fn quorum(&self) -> usize {
        self.nodes() / 2 + 1
    }
    /// The drift allowance subtracted from the validity, ms (distlock: TTL/100 + 2; none
    /// for a single Redis, whose client does not compute a validity).
    pub fn drift(&self) -> u64 {
        if self.redlock() {
            self.ttl / 100 + 2
        } else {
            0
        }
    }
    /// A crash is planned.
    pub fn crash_on(&self) -> bool {
        self.crash == Switch::On
    }
    /// The partition is on (Redlock only).
    pub fn partition_on(&self) -> bool {
        self.partition == Switch::On && self.redlock()
    }
    /// Fencing on.
    pub fn fencing_on(&self) -> bool {
        self.fencing == Switch::On
    }
    /// The node whose clock jumps.
    pub fn jump_node(&self) -> usize {
        if self.redlock() {
            2
        } else {
            0
        }
    }
}

/// One preset per step of the slides' story.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "failover",
        label: "failover-এ lock হারায়",
        about: "A lock পায়, replica-তে পৌঁছানোর আগেই primary মরে, replica promote হয় — B-ও একই lock পায়",
        pairs: &[
            ("setup", "single"),
            ("crash", "on"),
            ("lag", "50"),
            ("crash_at", "20"),
            ("pause", "0"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "redlock",
        label: "Redlock, পাঁচ primary",
        about: "পাঁচটা স্বাধীন primary-র অন্তত তিনটায় lock — B অপেক্ষা করে, A ছাড়লে পায়",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "0"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "redlock-node-down",
        label: "Redlock, একটা node মৃত",
        about: "A lock পাওয়ার পরই r1 মরে — বাকি চারটায় A-র lock, B সংখ্যাগরিষ্ঠ পায় না",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "on"),
            ("crash_at", "20"),
            ("pause", "0"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "pause",
        label: "Kleppmann: pause",
        about: "A lock পেয়েই থমকে যায়, validity পেরিয়ে যায়, B lock নিয়ে লেখে — জেগে উঠে A-র বাসি লেখা চেপে বসে",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "1500"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "clock-jump",
        label: "Kleppmann: ঘড়ির লাফ",
        about: "A পায় r1–r3 (r4, r5 বিচ্ছিন্ন); r3-এর ঘড়ি লাফ দেয়, key আগেই মেয়াদোত্তীর্ণ — B পায় r3–r5",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "0"),
            ("jump", "1000"),
            ("jump_at", "100"),
            ("partition", "on"),
            ("fencing", "off"),
        ],
    },
    Preset {
        id: "fencing",
        label: "fencing token সহ",
        about: "একই pause, কিন্তু লেখায় fencing token — storage পুরোনো token দেখে বাসি লেখা ফিরিয়ে দেয়",
        pairs: &[
            ("setup", "redlock"),
            ("crash", "off"),
            ("pause", "1500"),
            ("jump", "0"),
            ("partition", "off"),
            ("fencing", "on"),
        ],
    },
];
