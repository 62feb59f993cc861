//! The cache-aside lab's parameters, declared once ([`crate::params!`]): the seed's `EX 300`,
//! one writer that deletes on write, as the defaults; the presets (the seed's three rules,
//! each broken and kept, and its two dangers); the rule on the run's size; and what a run runs
//! ([`Setup`], shaped for live mode by [`AsideParams::for_live`]).

use super::{LIVE_DIV, MAX_READS};
use crate::labs::lab::Broken;
use crate::labs::params::broken;
use crate::labs::preset::Preset;
use serde::{Deserialize, Serialize};

/// The writers' names, in order.
pub const WRITERS: [&str; 3] = ["A", "B", "C"];

crate::choices! {
    /// What a writer does to the cache after its commit.
    pub enum Write {
        /// `DEL` the key: the next read loads the new row.
        Delete = "delete" / "মুছে ফেলে (DEL)",
        /// `SET` its own row in place.
        Update = "update" / "জায়গায় বদলায় (SET)",
    }
}

crate::choices! {
    /// Who the injected pause freezes.
    pub enum Pause {
        /// Nobody.
        None = "none" / "কেউ না",
        /// Writer A, between its first commit and its cache step.
        Writer = "writer" / "লেখক A (commit-এর পরে)",
        /// Reader r1, between its first `SELECT` of product 99 and its `SET`.
        Reader = "reader" / "পাঠক r1 (SELECT-এর পরে)",
    }
}

crate::choices! {
    /// Redis' state.
    pub enum Redis {
        /// Answers.
        Up = "up" / "চালু",
        /// Refuses every connection.
        Down = "down" / "বন্ধ",
    }
}

crate::params! {
    /// The cache-aside lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub struct AsideParams {
        /// What a writer does to the cache.
        pub write: Write = choice(Write::Delete, "লেখার পরে ক্যাশ"),
        /// The row's TTL in the cache, s (0: none).
        pub ttl: u64 = int(300, 0..=3600, "TTL (s, ০ = নেই)"),
        /// Readers.
        pub readers: u32 = int(3, 1..=6, "পাঠক"),
        /// Mean gap between a reader's reads, ms.
        pub read_every: u64 = int(5000, 500..=600000, "পাঠকের পড়ার ফাঁক (ms, গড়)"),
        /// Writers.
        pub writers: u32 = int(1, 0..=3, "লেখক"),
        /// Writer A's first write, ms.
        pub write_at: u64 = int(1000, 0..=600000, "প্রথম লেখা (ms)"),
        /// Each next writer starts this much later, ms.
        pub write_gap: u64 = int(100, 0..=60000, "পরের লেখক আসে পরে (ms)"),
        /// Writes per writer.
        pub writes: u32 = int(1, 1..=20, "প্রতি লেখকের লেখা"),
        /// Gap between a writer's writes, ms.
        pub write_every: u64 = int(60000, 100..=600000, "লেখার ফাঁক (ms)"),
        /// A database query, ms.
        pub db_ms: u64 = int(40, 1..=5000, "ডেটাবেসের সময় (ms)"),
        /// Who pauses.
        pub pause: Pause = choice(Pause::None, "কে থমকায়"),
        /// The pause's length, ms.
        pub pause_ms: u64 = int(300, 0..=600000, "থমকানোর দৈর্ঘ্য (ms)"),
        /// Percent of reads asking for the missing product.
        pub absent: u32 = int(0, 0..=100, "নেই-এমন id চাওয়া (%)"),
        /// TTL of the "none" marker, s (0: no negative caching).
        pub negative: u64 = int(0, 0..=3600, "“none” ক্যাশের TTL (s, ০ = বন্ধ)"),
        /// Redis up or down.
        pub redis: Redis = choice(Redis::Up, "Redis"),
        /// Readers stop asking after this, s.
        pub duration: u64 = int(400, 5..=900, "চলবে (s)"),
        /// Seed of the readers' choices and gaps and the network's jitter.
        pub seed: u32 = seed(3),
    }
    rules = rules;
}

impl Default for AsideParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

/// A run's size: readers × duration ÷ the read gap stays within [`MAX_READS`].
fn rules(p: &AsideParams) -> Result<(), Broken> {
    if u64::from(p.readers.max(1)) * p.duration.max(1) * 1000 / p.read_every.max(1) > MAX_READS {
        return Err(broken(
            "read_every",
            format!(
                "পাঠক × সময় ÷ পড়ার ফাঁক {}-এর বেশি পড়া হয় — ফাঁক বাড়ান বা সময় কমান",
                crate::bn::int(MAX_READS as i64)
            ),
        ));
    }
    Ok(())
}

/// What a run runs: the parameters in milliseconds (a live run's long times divided by
/// [`LIVE_DIV`], everything × its time scale).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    /// Update the cache in place on write (else delete it).
    pub update: bool,
    /// The row's TTL, ms (0: none).
    pub ttl_ms: u64,
    /// Readers.
    pub readers: u32,
    /// Mean gap between a reader's reads, ms.
    pub read_every_ms: u64,
    /// Writers.
    pub writers: u32,
    /// Writer A's first write, ms.
    pub write_at_ms: u64,
    /// Each next writer's delay, ms.
    pub write_gap_ms: u64,
    /// Writes per writer.
    pub writes: u32,
    /// Gap between a writer's writes, ms.
    pub write_every_ms: u64,
    /// A database query, ms.
    pub db_ms: u64,
    /// Who pauses.
    pub pause: Pause,
    /// For how long, ms.
    pub pause_ms: u64,
    /// Percent of reads for the missing product.
    pub absent: u32,
    /// The "none" marker's TTL, ms (0: off).
    pub negative_ms: u64,
    /// Redis refuses every connection.
    pub down: bool,
    /// Readers stop asking after this, ms.
    pub duration_ms: u64,
    /// The seed.
    pub seed: u32,
}

impl AsideParams {
    /// The run of these parameters, in milliseconds.
    pub fn setup(&self) -> Setup {
        Setup {
            update: self.write == Write::Update,
            ttl_ms: self.ttl * 1000,
            readers: self.readers,
            read_every_ms: self.read_every,
            writers: self.writers,
            write_at_ms: self.write_at,
            write_gap_ms: self.write_gap,
            writes: self.writes,
            write_every_ms: self.write_every,
            db_ms: self.db_ms,
            pause: self.pause,
            pause_ms: self.pause_ms,
            absent: self.absent,
            negative_ms: self.negative * 1000,
            down: self.redis == Redis::Down,
            duration_ms: self.duration * 1000,
            seed: self.seed,
        }
    }

    /// What a live run at time scale `k` runs: the TTLs, the gaps between reads and writes and
    /// the run's length divided by [`LIVE_DIV`] (a 300 s TTL lasts 3 s; a reader reads every
    /// 50 ms — at least 25 ms × readers apart, within the proxy's rate), the database, the
    /// pause and the writers' start as they are; then everything `k` times slower. The
    /// simulation of the same setup is the prediction.
    pub fn for_live(&self, k: u64) -> Setup {
        let k = k.max(1);
        let s = self.setup();
        let div = |ms: u64| ms / LIVE_DIV;
        Setup {
            ttl_ms: div(s.ttl_ms) * k,
            negative_ms: div(s.negative_ms) * k,
            read_every_ms: div(s.read_every_ms).max(25 * u64::from(s.readers)) * k,
            write_every_ms: div(s.write_every_ms).max(1) * k,
            duration_ms: div(s.duration_ms) * k,
            write_at_ms: s.write_at_ms * k,
            write_gap_ms: s.write_gap_ms * k,
            db_ms: s.db_ms * k,
            pause_ms: s.pause_ms * k,
            ..s
        }
    }
}

impl Setup {
    /// The actors' names, by index: the readers (`r1`…), then the writers (`A`…).
    pub fn name(&self, actor: usize) -> String {
        let readers = self.readers as usize;
        match actor.checked_sub(readers) {
            None => format!("r{}", actor + 1),
            Some(w) => WRITERS.get(w).map_or("?", |n| n).to_string(),
        }
    }

    /// How many actors run: the readers and the writers.
    pub fn actors(&self) -> usize {
        (self.readers + self.writers) as usize
    }

    /// `EX <s>` (whole seconds) or `PX <ms>` for a TTL of `ms` (nothing for 0).
    pub fn expiry(ms: u64) -> Vec<String> {
        match ms {
            0 => Vec::new(),
            ms if ms % 1000 == 0 => vec!["EX".into(), (ms / 1000).to_string()],
            ms => vec!["PX".into(), ms.to_string()],
        }
    }

    /// Reads the run will make, about.
    pub fn reads(&self) -> u64 {
        u64::from(self.readers) * self.duration_ms / self.read_every_ms.max(1)
    }
}

/// The presets: the seed's three rules, each broken and kept, and its two dangers.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "basic",
        label: "সাধারণ",
        about: "প্রথম পড়া miss → ডেটাবেস → `SET … EX 300`; তারপর সব hit। লেখার পরে DEL, পরের পড়া নতুন দাম আনে",
        pairs: &[],
    },
    Preset {
        id: "update-race",
        label: "জায়গায় বদল: দুই লেখক",
        about: "A আগে লেখে কিন্তু থমকে দেরিতে ক্যাশ বসায় — ক্যাশে A-র পুরোনো দাম, ডেটাবেসে B-র নতুন; TTL পর্যন্ত বাসি",
        pairs: &[
            ("write", "update"),
            ("writers", "2"),
            ("pause", "writer"),
        ],
    },
    Preset {
        id: "delete",
        label: "লেখার পরে মোছো",
        about: "একই দুই লেখক, একই থমকানো — কিন্তু দুজনেই DEL করে; পরের পড়া ডেটাবেস থেকে নতুন দাম আনে",
        pairs: &[
            ("write", "delete"),
            ("writers", "2"),
            ("pause", "writer"),
        ],
    },
    Preset {
        id: "delete-race",
        label: "মোছাতেও race",
        about: "r1 পুরোনো সারি পড়ে থমকায়; এর মধ্যে লেখক বদলে DEL করে; r1 পুরোনোটাই বসায় — বাসি থাকে TTL পর্যন্ত",
        pairs: &[("pause", "reader"), ("write_at", "100")],
    },
    Preset {
        id: "short-ttl",
        label: "ছোট TTL",
        about: "একই race, TTL ৩০ সেকেন্ড: বাসি মানের আয়ু TTL-এর বেশি নয়",
        pairs: &[("pause", "reader"), ("write_at", "100"), ("ttl", "30")],
    },
    Preset {
        id: "no-ttl",
        label: "TTL ছাড়া",
        about: "দুই লেখকের race, কিন্তু SET-এ মেয়াদ নেই — বাসি দাম থেকে যায় চিরকাল (পরের লেখা পর্যন্ত)",
        pairs: &[
            ("write", "update"),
            ("writers", "2"),
            ("pause", "writer"),
            ("ttl", "0"),
        ],
    },
    Preset {
        id: "penetration",
        label: "নেই-এমন id",
        about: "৩০% পড়া চায় product 7777, যা ডেটাবেসেও নেই — প্রতিবার miss, প্রতিবার ডেটাবেস",
        pairs: &[("absent", "30")],
    },
    Preset {
        id: "negative",
        label: "“none” ক্যাশ",
        about: "একই পড়া, কিন্তু “নেই”-ও ৩০ সেকেন্ড ক্যাশে: SET cache:product:7777 none EX 30",
        pairs: &[("absent", "30"), ("negative", "30")],
    },
    Preset {
        id: "redis-down",
        label: "Redis বন্ধ",
        about: "প্রতিটা কমান্ড ECONNREFUSED — পাঠক সোজা ডেটাবেসে যায়: ধীর, কিন্তু ঠিক উত্তর",
        pairs: &[("redis", "down")],
    },
];
