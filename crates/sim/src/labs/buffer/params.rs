//! The buffering lab's parameters, declared once ([`crate::params!`]): the 50,000
//! viewers and the seed's 1 s / 300 / 30 s / 1,000; its presets (a failed flush under each
//! requeue, a pipeline without chunks) and the rules between fields.

use crate::labs::lab::Broken;
use crate::labs::params::broken;
use crate::labs::preset::Preset;

crate::choices! {
    /// What a failed progress flush does with its rows.
    pub enum Requeue {
        /// Puts a row back only where the user has no newer event in the Map.
        NewerWins = "newer-wins" / "ফেরত, নতুনটা থাকলে সেটাই জেতে",
        /// Puts every row back, over whatever is there.
        Blind = "blind" / "অন্ধভাবে ফেরত (নতুনের ওপর)",
        /// Throws them away.
        Drop = "drop" / "ফেলে দেওয়া",
    }
}

crate::params! {
    /// The buffering lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct BufferParams {
        /// Viewers, each a heartbeat and a progress event a second.
        pub viewers: u32 = int(50000, 1..=100_000, "দর্শক"),
        /// The run's length, s.
        pub seconds: u32 = int(120, 10..=300, "কত সেকেন্ড চলবে"),
        /// Most members in one `ZADD` of the presence flush.
        pub chunk: u32 = int(300, 1..=1_000, "এক ZADD-এ সর্বোচ্চ সদস্য"),
        /// Seconds between two progress flushes.
        pub progress_s: u32 = int(30, 5..=120, "প্রোগ্রেস ফ্লাশের ফাঁক (s)"),
        /// Rows in one database query.
        pub batch: u32 = int(1000, 1..=10_000, "এক কোয়েরিতে রো"),
        /// Percent of viewers that leave at a seeded moment of the run.
        pub leave: u32 = int(0, 0..=100, "চালানোর মাঝে চলে যায় (%)"),
        /// The progress flush (1-based) whose first query fails; 0: none.
        pub fail: u32 = int(0, 0..=60, "কত নম্বর ফ্লাশ ফেল করে (০ = কোনোটা না)"),
        /// How long the failing query takes to fail, ms.
        pub db_ms: u32 = int(2000, 1..=10_000, "ফেল টের পেতে লাগে (ms)"),
        /// What a failed flush does with its rows.
        pub requeue: Requeue = choice(Requeue::NewerWins, "ফেল হলে রো-গুলো"),
        /// Viewers the SimRedis sample runs.
        pub sample: u32 = int(600, 1..=2_000, "SimRedis-এ যত দর্শক চলে"),
        /// Seed of the moments in the second and of who leaves when.
        pub seed: u32 = seed(0),
    }
    rules = rules;
}

/// The failed flush within the run, found out before the next flush.
fn rules(p: &BufferParams) -> Result<(), Broken> {
    if p.fail > p.flushes() {
        return Err(broken(
            "fail",
            "এই সময়ে এতগুলো ফ্লাশ হয় না — সেকেন্ড ÷ ফ্লাশের ফাঁকের বেশি নয়",
        ));
    }
    if u64::from(p.db_ms) >= u64::from(p.progress_s) * 1_000 {
        return Err(broken(
            "db_ms",
            "ফেল টের পাওয়ার আগেই পরের ফ্লাশ এসে যায় — ফ্লাশের ফাঁকের চেয়ে কম দিন",
        ));
    }
    Ok(())
}

/// The presets: a failed flush and what each requeue does with it; a pipeline without
/// chunks.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "db-fails",
        label: "ফ্লাশ ফেল",
        about: "দ্বিতীয় ফ্লাশ ফেল করে, রো-গুলো Map-এ ফেরে — তবে নতুনটা থাকলে সেটাই জেতে; কারও প্রোগ্রেস হারায় না",
        pairs: &[("fail", "2"), ("leave", "30")],
    },
    Preset {
        id: "blind-requeue",
        label: "অন্ধ requeue",
        about: "ফেরত রো নতুনটার ওপর বসে যায়: ফেলের ফাঁকে নতুন ইভেন্ট পাঠিয়ে চলে গেছে যারা, তাদের পুরোনো প্রোগ্রেস লেখা হয়",
        pairs: &[("fail", "2"), ("leave", "30"), ("requeue", "blind")],
    },
    Preset {
        id: "no-requeue",
        label: "requeue নেই",
        about: "ফেল করা রো ফেলে দিলে, যারা এর মধ্যে চলে গেছে তাদের শেষ প্রোগ্রেস আর কখনো লেখা হয় না",
        pairs: &[("fail", "2"), ("leave", "30"), ("requeue", "drop")],
    },
    Preset {
        id: "no-chunks",
        label: "চাঙ্ক ছাড়া pipeline",
        about: "chunk=1: প্রতি হার্টবিট আলাদা ZADD, তবু এক pipeline-এ — রাউন্ড-ট্রিপ এক, কমান্ড ৫০,০০০-ই",
        pairs: &[("chunk", "1")],
    },
];

impl Default for BufferParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl BufferParams {
    /// Progress flushes in the run.
    pub fn flushes(&self) -> u32 {
        self.seconds / self.progress_s.max(1)
    }
}
