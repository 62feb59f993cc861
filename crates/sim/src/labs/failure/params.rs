//! The failure lab's parameters, declared once ([`crate::params!`]): the seed's cache
//! connection under 50 requests a second for 20 s; its presets (the level shown in detail,
//! and down with the offline queue off).

use crate::labs::params::Switch;
use crate::labs::preset::Preset;

crate::choices! {
    /// Redis' state in one run.
    pub enum Level {
        /// Answers in a millisecond.
        Healthy = "healthy" / "সুস্থ",
        /// Answers 2–3 s late.
        Slow = "slow" / "ধীর",
        /// Refuses connections.
        Down = "down" / "ডাউন",
    }
}

impl Level {
    /// Its position among the levels ([`Level::ALL`]: healthy, slow, down).
    pub fn index(self) -> usize {
        self as usize
    }
}

crate::params! {
    /// The failure lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct FailureParams {
        /// The level shown in detail.
        pub redis: Level = choice(Level::Healthy, "কোন অবস্থা বিস্তারে"),
        /// Requests per second.
        pub rate: u32 = int(50, 1..=500, "প্রতি সেকেন্ডে রিকোয়েস্ট"),
        /// How long, s (the run has `rate × seconds` requests).
        pub seconds: u32 = int(20, 1..=120, "কত সেকেন্ড"),
        /// One database query, ms.
        pub db: u64 = int(40, 1..=1_000, "ডেটাবেস কোয়েরি (ms)"),
        /// Distinct cached keys.
        pub keys: u32 = int(500, 1..=10_000, "ক্যাশের key"),
        /// The cache's TTL, s.
        pub ttl: u64 = int(300, 1..=3_600, "TTL (s)"),
        /// ioredis' `enableOfflineQueue`.
        pub offline_queue: Switch = choice(Switch::On, "enableOfflineQueue"),
        /// Seed of the arrivals, the keys and the starting TTLs.
        pub seed: u32 = seed(1),
    }
}

/// The presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "healthy",
        label: "Redis সুস্থ",
        about: "ক্যাশ থেকে ২ ms-এ উত্তর; ডেটাবেসে যায় শুধু মেয়াদ ফুরোনো key",
        pairs: &[("redis", "healthy")],
    },
    Preset {
        id: "slow",
        label: "Redis ধীর",
        about: "২–৩ s দেরি: ১,৫০০ ms-এ Command timed out, আবার পাঠানো নেই, তারপর loader() — প্রতিটা রিকোয়েস্ট ডেটাবেসে",
        pairs: &[("redis", "slow")],
    },
    Preset {
        id: "down",
        label: "Redis ডাউন",
        about: "সংযোগ refused: GET offline queue-তে ১,৫০০ ms পর্যন্ত বসে থাকে (বা MaxRetriesPerRequestError), তারপর loader()",
        pairs: &[("redis", "down")],
    },
    Preset {
        id: "down-no-queue",
        label: "ডাউন, offline queue বন্ধ",
        about: "enableOfflineQueue: false — ডাউন হলে GET সাথে সাথে বাতিল, দেরি শুধু কোয়েরির",
        pairs: &[("redis", "down"), ("offline_queue", "off")],
    },
];

impl Default for FailureParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl FailureParams {
    /// The level shown in detail.
    pub fn focus(&self) -> Level {
        self.redis
    }
    /// Requests in one level's run.
    pub fn requests(&self) -> usize {
        self.rate as usize * self.seconds as usize
    }
    /// `enableOfflineQueue`.
    pub fn offline_queue(&self) -> bool {
        self.offline_queue == Switch::On
    }
}
