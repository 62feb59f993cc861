//! The auth lab's parameters, declared once ([`crate::params!`]): the seed's TTLs and a class
//! of 200 students; its presets (the seed's before and after, two ban stories) and the rules
//! between fields.

use crate::labs::lab::Broken;
use crate::labs::params::{broken, Switch};
use crate::labs::preset::Preset;

/// Most requests a run may make (students × duration ÷ gap).
pub const MAX_REQUESTS: u64 = 200_000;

crate::choices! {
    /// What the application does with a cached restriction whose end has passed.
    pub enum Filter {
        /// Drops it after reading the cache (a ban ends on time).
        Read = "read" / "পড়ার পরে ছেঁকে ফেলে",
        /// Trusts the cached list (the ban lasts until the entry expires).
        None = "none" / "যেমন আছে বিশ্বাস করে",
    }
}

crate::params! {
    /// The auth lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct AuthParams {
        /// The Redis cache.
        pub cache: Switch = choice(Switch::On, "Redis ক্যাশ"),
        /// Students.
        pub students: u32 = int(200, 1..=2000, "স্টুডেন্ট"),
        /// Mean gap between one student's requests, ms.
        pub every: u64 = int(3000, 200..=60000, "একজনের রিকোয়েস্টের ফাঁক (ms, গড়)"),
        /// Courses.
        pub courses: u32 = int(4, 1..=100, "কোর্স"),
        /// Lesson ids per course.
        pub lessons: u32 = int(25, 1..=500, "কোর্সপিছু আইডি (ক্লাস/চ্যাপ্টার/ভিডিও)"),
        /// The user entry's TTL, s.
        pub user_ttl: u64 = int(60, 1..=3600, "ইউজারের TTL (s)"),
        /// The course context's TTL, s.
        pub context_ttl: u64 = int(120, 1..=3600, "কোর্স-কনটেক্সটের TTL (s)"),
        /// The access entry's TTL, s.
        pub access_ttl: u64 = int(120, 1..=3600, "অ্যাক্সেসের TTL (s)"),
        /// When the admin bans student `a91f`, s (0: never).
        pub ban_at: u64 = int(0, 0..=900, "ব্যান কখন (s, ০ = নেই)"),
        /// How long the ban lasts, s (0: for good).
        pub ban_for: u64 = int(0, 0..=900, "ব্যান কতক্ষণ (s, ০ = স্থায়ী)"),
        /// What happens to a cached restriction whose end has passed.
        pub filter: Filter = choice(Filter::Read, "মেয়াদ-পেরোনো রেস্ট্রিকশন"),
        /// Students stop asking after this, s.
        pub duration: u64 = int(240, 10..=900, "চলবে (s)"),
        /// Seed of the lessons and the request times.
        pub seed: u32 = seed(1),
    }
    rules = rules;
}

/// The run's size, and the ban inside it.
fn rules(p: &AuthParams) -> Result<(), Broken> {
    if u64::from(p.students) * p.duration * 1000 / p.every > MAX_REQUESTS {
        return Err(broken(
            "every",
            "স্টুডেন্ট × সময় ÷ ফাঁক ২,০০,০০০-এর বেশি রিকোয়েস্ট — ফাঁক বাড়ান বা সময় কমান",
        ));
    }
    if p.ban_at >= p.duration {
        return Err(broken("ban_at", "ব্যান হতে হবে চলার সময়ের ভেতরে"));
    }
    Ok(())
}

/// The presets: the seed's before and after, and the two ban stories.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "after",
        label: "ক্যাশের পরে",
        about: "তিনটা প্রশ্নই Redis-এ: শুরুতে একবার ডেটাবেস, তারপর রিকোয়েস্টপিছু ০ কোয়েরি — শুধু TTL ফুরোলে আবার লোড",
        pairs: &[],
    },
    Preset {
        id: "before",
        label: "ক্যাশের আগে",
        about: "প্রতিটা রিকোয়েস্টে ৪টা ডেটাবেস কোয়েরি: ইউজার, রেস্ট্রিকশন, কোর্স-কনটেক্সট, অ্যাক্সেস",
        pairs: &[("cache", "off")],
    },
    Preset {
        id: "ban",
        label: "ব্যান",
        about: "৯০ s-এ অ্যাডমিন a91f-কে ব্যান করে; ক্যাশের পুরোনো এন্ট্রি যতক্ষণ আছে সে ঢোকে — বড়জোর ৬০ s",
        pairs: &[("ban_at", "90")],
    },
    Preset {
        id: "ban-ends",
        label: "ব্যান শেষ হয়",
        about: "৩০ s থেকে ১৫০ s পর্যন্ত ব্যান; পড়ার পরে মেয়াদ-পেরোনো রেস্ট্রিকশন ছেঁকে ফেলায় ১৫০ s-এই আবার ঢোকে",
        pairs: &[("ban_at", "30"), ("ban_for", "120")],
    },
    Preset {
        id: "no-filter",
        label: "ছাঁকা ছাড়া",
        about: "একই ব্যান, কিন্তু ক্যাশের লিস্ট যেমন আছে তেমন বিশ্বাস: ব্যান চলে এন্ট্রির মেয়াদ শেষ পর্যন্ত — ৬০ s পর্যন্ত বেশি",
        pairs: &[("ban_at", "30"), ("ban_for", "120"), ("filter", "none")],
    },
];

impl Default for AuthParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl AuthParams {
    /// The cache is on.
    pub fn cached(&self) -> bool {
        self.cache == Switch::On
    }
    /// Expired restrictions are filtered on read.
    pub fn filters(&self) -> bool {
        self.filter == Filter::Read
    }
    /// The ban's start, ms (`None`: no ban).
    pub fn ban_ms(&self) -> Option<u64> {
        (self.ban_at > 0).then_some(self.ban_at * 1000)
    }
    /// The ban's end, ms (`None`: no ban, or for good).
    pub fn ban_end_ms(&self) -> Option<u64> {
        self.ban_ms()
            .filter(|_| self.ban_for > 0)
            .map(|b| b + self.ban_for * 1000)
    }
}
