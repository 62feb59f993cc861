//! The replica lab's parameters, declared once ([`crate::params!`]): the seed's 10,000 keys,
//! 60 % with a TTL of 5–120 s, a replica synced at 30 s with a second of lag; the slides' four
//! steps as presets, and the rules between fields.

use crate::labs::lab::Broken;
use crate::labs::params::broken;
use crate::labs::preset::Preset;

crate::choices! {
    /// What the snapshot holds of the keys past their TTL.
    pub enum SnapshotKeys {
        /// Every stored key (Redis ≥ 4.0.10 and 5.0).
        All = "all" / "সব key, মরা key-ও (আজকের Redis)",
        /// The expired ones left out while saving (Redis ≤ 4.0.9).
        SkipExpired = "skip-expired" / "মরা key বাদ (Redis ৪.০.৯ পর্যন্ত)",
    }
}

crate::choices! {
    /// What loads the snapshot.
    pub enum LoadAs {
        /// A replica: keeps every key, waits for the primary's DELs.
        Replica = "replica" / "replica",
        /// A server started from the RDB as a primary (a restart, a restore).
        Primary = "primary" / "RDB থেকে চালু primary",
    }
}

crate::params! {
    /// The replica lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ReplicaParams {
        /// What the snapshot holds of the keys past their TTL.
        pub snapshot: SnapshotKeys = choice(SnapshotKeys::All, "snapshot-এ মরা key"),
        /// What loads the snapshot.
        pub load: LoadAs = choice(LoadAs::Replica, "snapshot লোড করে"),
        /// Keys on the primary at time 0.
        pub keys: u32 = int(10000, 100..=50000, "key"),
        /// Percentage of them with a TTL.
        pub volatile: u32 = int(60, 0..=100, "TTL-ওয়ালা key (%)"),
        /// Shortest TTL, s.
        pub ttl_min: u64 = int(5, 1..=3600, "সবচেয়ে ছোট TTL (সেকেন্ড)"),
        /// Longest TTL, s.
        pub ttl_max: u64 = int(120, 1..=3600, "সবচেয়ে বড় TTL (সেকেন্ড)"),
        /// When the snapshot is taken, s.
        pub sync: u64 = int(30, 0..=600, "replica জোড়ে (সেকেন্ড)"),
        /// Replication lag, ms.
        pub lag: u64 = int(1000, 0..=10000, "replication lag (ms)"),
        /// The reader's GETs a second (on the primary).
        pub reads: u32 = int(50, 0..=2000, "client-এর GET / সেকেন্ড"),
        /// Active expire cycles a second.
        pub hz: u32 = int(10, 1..=500, "hz (সক্রিয় চক্র / সেকেন্ড)"),
        /// Length of the run, s.
        pub duration: u64 = int(90, 10..=600, "চলবে (সেকেন্ড)"),
        /// Seed of the keys, the TTLs, the reads and both servers' cycles.
        pub seed: u32 = seed(2),
    }
    rules = rules;
}

impl Default for ReplicaParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl ReplicaParams {
    /// A replica loads the snapshot (not a primary started from it).
    pub fn replica(&self) -> bool {
        self.load == LoadAs::Replica
    }
}

/// The slides' steps.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "today",
        label: "আজকের Redis",
        about: "snapshot-এ সব key — sync-এর মুহূর্তে গুনতি মেলে, তারপর primary-র DEL এলে একসাথে নামে",
        pairs: &[],
    },
    Preset {
        id: "old-rdb",
        label: "Redis ৪.০.৯ পর্যন্ত",
        about:
            "snapshot লেখার সময় মরা key বাদ — replica শুরুই করে কম key নিয়ে, অথচ বেঁচে থাকা key দুদিকে সমান",
        pairs: &[("snapshot", "skip-expired")],
    },
    Preset {
        id: "restart",
        label: "RDB থেকে primary",
        about:
            "একই RDB থেকে একটা সার্ভার primary হিসেবে চালু হলো — লোডের সময়ই মরা key বাদ, গুনতি সাথে সাথে কম",
        pairs: &[("load", "primary")],
    },
    Preset {
        id: "no-reads",
        label: "কেউ পড়ে না",
        about:
            "কোনো client পড়ছে না — মরা key মোছে কেবল primary-র সক্রিয় চক্র, replica তার DEL-এর অপেক্ষায়",
        pairs: &[("reads", "0")],
    },
];

/// The TTLs in order; the sync inside the run.
fn rules(p: &ReplicaParams) -> Result<(), Broken> {
    if p.ttl_min > p.ttl_max {
        return Err(broken(
            "ttl_min",
            "সবচেয়ে ছোট TTL সবচেয়ে বড়টার চেয়ে বেশি হতে পারে না",
        ));
    }
    if p.sync >= p.duration {
        return Err(broken(
            "sync",
            "replica জোড়ার সময় চলার সময়ের মধ্যে হতে হবে (duration-এর চেয়ে কম)",
        ));
    }
    Ok(())
}
