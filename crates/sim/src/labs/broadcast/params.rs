//! The broadcast lab's parameters, declared once ([`crate::params!`]): the seed's numbers as
//! defaults (the fixed configuration), the presets the deck's slides name, the rule that keeps
//! a run's jobs within [`MAX_JOBS`], and the run's setup ([`BroadcastConfig`]: the
//! parameters, a live run's pace, crash and outage schedules).

use crate::labs::lab::Broken;
use crate::labs::params::{broken, Switch};
use crate::labs::preset::Preset;
use crate::queue::Life;

/// Most jobs a run may make (batches × broadcast jobs): keeps a run within a second or two.
pub const MAX_JOBS: u64 = 5_000;

crate::choices! {
    /// How the notification is sent.
    pub enum Mode {
        /// The loop inside the HTTP request.
        Naive = "naive" / "রিকোয়েস্টের ভেতরে লুপ",
        /// A job in the queue, a worker process sends.
        Queue = "queue" / "কিউ আর ওয়ার্কার",
    }
}

crate::choices! {
    /// How the broadcast job reads the token ids out of Postgres.
    pub enum Paging {
        /// `findMany()`: every row at once.
        All = "all" / "সব একসাথে",
        /// `skip`/`take`: each page skips the rows before it.
        Offset = "offset" / "offset (skip)",
        /// `cursor`/`take`: each page starts after the last id.
        Cursor = "cursor" / "cursor",
    }
}

crate::choices! {
    /// What a batch job does with FCM's answer (`sendEachForMulticast` resolves with one
    /// response a token; it does not throw when tokens fail).
    pub enum Responses {
        /// Does not look at them: every batch completes, failed tokens are lost unseen.
        Ignore = "ignore" / "উত্তর দেখে না",
        /// Reads `responses[i]`: marks the dead tokens, keeps the retryable failures in the
        /// job's data and throws, so only they are retried.
        Retry = "retry" / "ব্যর্থ টোকেনই আবার",
    }
}

crate::params! {
    /// The broadcast lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub struct BroadcastParams {
        /// How the notification is sent.
        pub mode: Mode = choice(Mode::Queue, "পাঠানোর ধরন"),
        /// Devices (FCM tokens).
        pub tokens: u32 = int(500000, 1_000..=2_000_000, "টোকেন (ডিভাইস)"),
        /// One FCM call, ms.
        pub call_ms: u64 = int(200, 1..=10_000, "একটা FCM কল (ms)"),
        /// The proxy's timeout, s.
        pub proxy_timeout: u64 = int(30, 1..=3_600, "প্রক্সির টাইমআউট (s)"),
        /// When the naive loop's process dies, ms.
        pub dies_at: u64 = int(642800, 1_000..=100_000_000, "লুপের প্রসেস মরে (ms)"),
        /// The admin runs the naive loop again after it died.
        pub rerun: Switch = choice(Switch::Off, "আবার চালানো"),
        /// The API's log row, ms.
        pub log_ms: u64 = int(32, 0..=10_000, "লগ রো লেখা (ms)"),
        /// How the token ids are read.
        pub paging: Paging = choice(Paging::Cursor, "টোকেন আনা"),
        /// Tokens per page.
        pub page: u32 = int(5000, 100..=100_000, "পেজে টোকেন (take)"),
        /// One cursor page query, ms.
        pub page_ms: u64 = int(40, 1..=10_000, "এক পেজের কোয়েরি (ms)"),
        /// Offset paging: extra time per skipped row, ns.
        pub skip_ns: u64 = int(1000, 0..=100_000, "skip-এ প্রতি রো (ns)"),
        /// Memory per loaded row, bytes.
        pub row_bytes: u64 = int(1200, 1..=100_000, "মেমোরিতে এক রো (বাইট)"),
        /// The worker process's memory, MB.
        pub heap_mb: u64 = int(512, 16..=65_536, "প্রসেসের মেমোরি (MB)"),
        /// Tokens per FCM call.
        pub chunk: u32 = int(500, 1..=100_000, "এক কলে টোকেন (chunk)"),
        /// FCM's limit per call.
        pub fcm_max: u32 = int(500, 1..=100_000, "FCM-এর সীমা / কল"),
        /// Batches per second (0: no limiter).
        pub throttle: u32 = int(10, 0..=1_000, "সেকেন্ডে ব্যাচ (০ = সব একসাথে)"),
        /// Worker slots.
        pub concurrency: u32 = int(10, 1..=1_000, "ওয়ার্কারের concurrency"),
        /// FCM's quota, messages a minute per project (one bucket a minute).
        pub quota: u32 = int(600000, 1..=100_000_000, "FCM কোটা (মেসেজ/মিনিট)"),
        /// Postgres connections.
        pub db_pool: u32 = int(10, 1..=1_000, "Postgres কানেকশন"),
        /// A batch's token query, ms.
        pub db_ms: u64 = int(50, 1..=10_000, "ব্যাচের কোয়েরি (ms)"),
        /// Longest wait for a connection, ms.
        pub db_timeout: u64 = int(2000, 10..=600_000, "কোয়েরির টাইমআউট (ms)"),
        /// What a batch does with FCM's per-token answers.
        pub responses: Responses = choice(Responses::Retry, "FCM-এর উত্তর"),
        /// Runs per job.
        pub attempts: u32 = int(3, 1..=10, "attempts"),
        /// Backoff base, ms.
        pub backoff: u64 = int(10000, 0..=600_000, "backoff (ms)"),
        /// FCM outage start, s.
        pub outage_at: u64 = int(30, 0..=100_000, "FCM আউটেজ শুরু (s)"),
        /// Its length, s (0: none).
        pub outage: u64 = int(0, 0..=100_000, "আউটেজের দৈর্ঘ্য (s, ০ = নেই)"),
        /// Dead tokens, percent.
        pub dead: u32 = int(0, 0..=100, "মরা টোকেন (%)"),
        /// Mark the dead tokens `isValid = false`.
        pub mark_dead: Switch = choice(Switch::On, "মরা টোকেন নেভানো"),
        /// Clicks on "send".
        pub clicks: u32 = int(1, 1..=10, "ক্লিক"),
        /// Between clicks, ms.
        pub click_gap: u64 = int(300, 0..=600_000, "ক্লিকের ফাঁক (ms)"),
        /// `SET … NX EX` before enqueueing.
        pub dedup: Switch = choice(Switch::On, "dedup (SET NX)"),
        /// The dedup key's EX, s.
        pub dedup_ex: u64 = int(900, 1..=86_400, "dedup EX (s)"),
        /// Worker crash, ms (0: none).
        pub crash_at: u64 = int(0, 0..=100_000_000, "ওয়ার্কার ক্র্যাশ (ms, ০ = নেই)"),
        /// Down for, ms.
        pub restart: u64 = int(5000, 0..=600_000, "ফিরে আসে (ms)"),
        /// Job lock, ms.
        pub lock: u64 = int(30000, 100..=600_000, "জবের লক (ms)"),
        /// Stalled check interval, ms.
        pub stalled: u64 = int(30000, 100..=600_000, "stalled চেক (ms)"),
        /// Seed.
        pub seed: u32 = seed(4),
    }
    rules = rules;
}

/// Batch jobs (× broadcast jobs without dedup) within [`MAX_JOBS`].
fn rules(p: &BroadcastParams) -> Result<(), Broken> {
    let per = u64::from(p.chunk.min(p.page).max(1));
    let copies = if p.dedup == Switch::Off {
        u64::from(p.clicks.max(1))
    } else {
        1
    };
    if u64::from(p.tokens).div_ceil(per) * copies > MAX_JOBS {
        return Err(broken(
            "chunk",
            format!(
                "ব্যাচ (টোকেন ÷ chunk, ক্লিক ধরে) {MAX_JOBS}-এর বেশি হলে হিসাব অনেক লম্বা — chunk বাড়ান বা টোকেন কমান"
            ),
        ));
    }
    Ok(())
}

impl Default for BroadcastParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl BroadcastParams {
    /// The queue (not the naive loop).
    pub fn queued(&self) -> bool {
        self.mode == Mode::Queue
    }

    /// Batches per broadcast job.
    pub fn batches(&self) -> u64 {
        let per_page = u64::from(self.chunk.min(self.page).max(1));
        let pages = u64::from(self.tokens).div_ceil(u64::from(self.page));
        let full = u64::from(self.page).div_ceil(per_page);
        let last = u64::from(self.tokens) - (pages - 1) * u64::from(self.page);
        (pages - 1) * full + last.div_ceil(per_page)
    }

    /// The token ids (1-based, inclusive) of batch `n`.
    pub fn batch_range(&self, n: u32) -> (u32, u32) {
        let page = u64::from(self.page);
        let size = u64::from(self.chunk.min(self.page).max(1));
        let per_page = page.div_ceil(size);
        let (pg, k) = (u64::from(n) / per_page, u64::from(n) % per_page);
        let from = pg * page + k * size + 1;
        let to = (from + size - 1)
            .min((pg + 1) * page)
            .min(u64::from(self.tokens));
        (from as u32, to as u32)
    }

    /// The run these parameters describe, at the lab's own pace.
    pub fn config(&self) -> BroadcastConfig {
        BroadcastConfig::paced(self, Pace::default())
    }
}

/// What the fields do not say, for a live run (`model::live`): the windows and waits a run
/// slowed `k` times stretches. The lab's own runs take [`Pace::default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pace {
    /// The window of the queue's limiter, ms (1000; a live run slowed ×k stretches it to k
    /// seconds, so `throttle` keeps its count); FCM's quota bucket is 60 of them (a minute).
    pub window: u64,
    /// The longest an idle worker slot blocks on the wait list, ms (5000; a live run blocks
    /// briefly, since the proxy runs a session's blocking reads one at a time).
    pub block: u64,
    /// The outage starts and ends this many ms before its whole seconds (0; a live run: half
    /// a second, so that it falls between two batches' FCM calls, which the limiter starts a
    /// few ms after whole seconds, and a real network cannot move a batch in or out of it).
    pub outage_lead: u64,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            window: 1000,
            block: 5000,
            outage_lead: 0,
        }
    }
}

/// A run's setup: the parameters, the pace, and crash and outage schedules (the property tests
/// give several of each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BroadcastConfig {
    /// The parameters.
    pub p: BroadcastParams,
    /// The pace.
    pub pace: Pace,
    /// When the worker process is down.
    pub life: Life,
    /// FCM outages: (from, to) ms.
    pub outages: Vec<(u64, u64)>,
}

impl BroadcastConfig {
    /// The run of `p` at `pace`: its crash and its outage from the fields.
    pub fn paced(p: &BroadcastParams, pace: Pace) -> Self {
        let mut life = Life::default();
        if p.crash_at > 0 {
            life.crash(p.crash_at, p.restart);
        }
        let outages = if p.outage > 0 {
            let lead = |s: u64| (s * 1000).saturating_sub(pace.outage_lead);
            vec![(lead(p.outage_at), lead(p.outage_at + p.outage))]
        } else {
            Vec::new()
        };
        BroadcastConfig {
            p: p.clone(),
            pace,
            life,
            outages,
        }
    }
}

/// The lab's presets: the deck's embeds name them.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "fixed",
        label: "সব মেরামত",
        about: "কিউ, cursor, ৫০০-র ব্যাচ, সেকেন্ডে ১০ ব্যাচ, dedup, রিট্রাই — ১,০০০ কল, ~১০০ সেকেন্ড, কেউ বাদ নেই, কেউ দুবার নয়",
        pairs: &[("mode", "queue")],
    },
    Preset {
        id: "naive",
        label: "API-র ভেতরে লুপ",
        about: "প্রতি টোকেনে একটা কল, রিকোয়েস্টের ভেতরেই — ৩০ সেকেন্ডে কানেকশন কাটে, লুপ চলতে থাকে, প্রসেস মরলে হিসাব নেই; আবার চালালে আগের সবাই দুবার",
        pairs: &[("mode", "naive"), ("rerun", "on")],
    },
    Preset {
        id: "queue",
        label: "কিউতে রেখে উত্তর",
        about: "API শুধু জব রাখে আর ~৪০ms-এ উত্তর দেয়; পাঠায় আলাদা ওয়ার্কার",
        pairs: &[("mode", "queue"), ("clicks", "1")],
    },
    Preset {
        id: "load-all",
        label: "সব রো একসাথে",
        about: "findMany() — ৫ লাখ রো একসাথে মেমোরিতে: OUT OF MEMORY, প্রসেস মরে, জব stalled",
        pairs: &[("mode", "queue"), ("paging", "all")],
    },
    Preset {
        id: "paging",
        label: "offset পেজিং",
        about: "skip যত বাড়ে, পেজ তত ধীর; cursor-এ প্রতিটা পেজ সমান দ্রুত — দুটোই পাশাপাশি",
        pairs: &[("mode", "queue"), ("paging", "offset")],
    },
    Preset {
        id: "no-chunks",
        label: "৫০০০-এর এক কল",
        about: "পুরো পেজ এক কলে — FCM ৫০০-র বেশি নেয় না, গোটা কলটাই বাতিল",
        pairs: &[("mode", "queue"), ("chunk", "5000")],
    },
    Preset {
        id: "chunks",
        label: "৫০০ করে ভাগ",
        about: "chunk(tokens, 500) — পুরো ৫ লাখে ঠিক ১,০০০ কল",
        pairs: &[("mode", "queue"), ("chunk", "500")],
    },
    Preset {
        id: "all-at-once",
        label: "সব একসাথে",
        about: "থ্রটল নেই — ১,০০০ ব্যাচ পেজ আসামাত্র: ৫ লাখের ঢেউ মিনিটে ৬ লাখ মেসেজের কোটায় এঁটে যায়, 429 আসে না",
        pairs: &[("mode", "queue"), ("throttle", "0"), ("concurrency", "1000")],
    },
    Preset {
        id: "throttle",
        label: "থ্রটল ১০/s",
        about: "সেকেন্ডে ১০ ব্যাচ = ৫,০০০ টোকেন — মিনিটে ৩ লাখ, কোটার অর্ধেক; ৫ লাখ ~১০০ সেকেন্ডে",
        pairs: &[("mode", "queue"), ("throttle", "10"), ("concurrency", "10")],
    },
    Preset {
        id: "double-click",
        label: "দুবার ক্লিক",
        about: "dedup ছাড়া দুই ক্লিক — দুটো জব, সবাই দুবার পায়",
        pairs: &[("mode", "queue"), ("clicks", "2"), ("dedup", "off")],
    },
    Preset {
        id: "dedup",
        label: "SET NX dedup",
        about: "তিনটা ক্লিক, একটাই OK — একটাই জব",
        pairs: &[("mode", "queue"), ("clicks", "3"), ("dedup", "on")],
    },
    Preset {
        id: "no-retry",
        label: "উত্তর না দেখা",
        about: "FCM ২৫ সেকেন্ড ডাউন, কিন্তু sendEachForMulticast ছোড়ে না — ওয়ার্কার উত্তর দেখে না, প্রতিটা ব্যাচ completed, রিট্রাই হয়ই না, ওই সময়ের টোকেন চুপচাপ হারায়",
        pairs: &[("mode", "queue"), ("outage", "25"), ("responses", "ignore")],
    },
    Preset {
        id: "outage",
        label: "আউটেজ, ৩ attempts",
        about: "একই আউটেজ, উত্তর পড়ে শুধু ব্যর্থ টোকেন job-এর ডেটায় রেখে ছোড়ে, attempts 3, backoff ১০s → ২০s — কেউ বাদ নেই, কেউ দুবার নয়",
        pairs: &[("mode", "queue"), ("outage", "25"), ("attempts", "3")],
    },
    Preset {
        id: "crash",
        label: "ওয়ার্কার ক্র্যাশ",
        about: "৪১.৫ সেকেন্ডে ওয়ার্কার মরে — হাতের জবগুলো লকের মেয়াদ শেষে stalled চেকে ফেরে, আবার চলে; FCM যেগুলো আগেই নিয়েছিল, সেই টোকেনগুলো দুবার পায়",
        pairs: &[("mode", "queue"), ("crash_at", "41500")],
    },
    Preset {
        id: "dead-tokens",
        label: "মরা টোকেন",
        about: "২০% টোকেন মরা — FCM জানায়, প্রতি ব্যাচে এক updateMany-তে isValid = false",
        pairs: &[("mode", "queue"), ("dead", "20"), ("mark_dead", "on")],
    },
];
