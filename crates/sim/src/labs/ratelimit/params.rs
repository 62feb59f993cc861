//! The rate-limit lab's parameters, declared once ([`crate::params!`]): the slide's numbers
//! as defaults (six instances, a limit of 500 in five minutes, 6,000 attempts at one
//! account), the presets (the slide's steps) and what a live run shapes them to.

use crate::labs::params::Params;
use crate::labs::preset::Preset;

crate::choices! {
    /// Where the limiter counts.
    pub enum Store {
        /// Each instance in its own memory (express-rate-limit's default store).
        Memory = "memory" / "প্রতিটা ইনস্ট্যান্সের মেমোরিতে",
        /// One counter in Redis for every instance (`rate-limit-redis`).
        Redis = "redis" / "Redis-এ, সবার একটা",
    }
}

crate::choices! {
    /// The window.
    pub enum Algo {
        /// A fixed window from the key's first request (`INCR` + `PEXPIRE`).
        Fixed = "fixed" / "fixed window (INCR)",
        /// A log in a sorted set (`ZREMRANGEBYSCORE`, `ZADD`, `ZCARD`, `PEXPIRE`).
        Sliding = "sliding" / "sliding window (sorted set)",
    }
}

crate::choices! {
    /// What the limiter counts by.
    pub enum Layers {
        /// The identity (phone or e-mail) only.
        Identity = "identity" / "আইডেন্টিটি (ফোন/ই-মেইল)",
        /// The IP only.
        Ip = "ip" / "IP",
        /// The IP first, then the identity.
        Both = "both" / "দুটোই: আগে IP, তারপর আইডেন্টিটি",
    }
}

crate::choices! {
    /// How the attacker sends.
    pub enum Pattern {
        /// At `rps` a second from the start.
        Steady = "steady" / "সমান তালে",
        /// One request, then half of the rest in the window's last second and half in the
        /// next window's first.
        Edge = "edge" / "উইন্ডোর কিনারায়",
    }
}

crate::choices! {
    /// Which accounts the attacker tries.
    pub enum Target {
        /// One account every time.
        One = "one" / "একটা অ্যাকাউন্ট",
        /// A new account each try.
        Many = "many" / "প্রতিবার নতুন অ্যাকাউন্ট",
    }
}

crate::params! {
    /// The rate-limit lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub struct RateParams {
        /// Where the counter lives.
        pub store: Store = choice(Store::Redis, "কাউন্টার কোথায়"),
        /// The window.
        pub algo: Algo = choice(Algo::Fixed, "উইন্ডো"),
        /// What it counts by.
        pub layers: Layers = choice(Layers::Identity, "কী দিয়ে গোনা"),
        /// API instances.
        pub instances: u32 = int(6, 1..=16, "ইনস্ট্যান্স (PM2)"),
        /// The identity layer's limit per window.
        pub limit: u32 = int(500, 1..=100000, "লিমিট: প্রতি আইডেন্টিটি"),
        /// The IP layer's limit per window.
        pub ip_limit: u32 = int(1000, 1..=100000, "লিমিট: প্রতি IP"),
        /// The window, s.
        pub window: u64 = int(300, 1..=3600, "উইন্ডো (সেকেন্ড)"),
        /// The attacker's requests.
        pub attempts: u32 = int(6000, 0..=20000, "অ্যাটাকারের রিকোয়েস্ট"),
        /// The attacker's requests per second.
        pub rps: u32 = int(100, 1..=5000, "অ্যাটাকার / সেকেন্ড"),
        /// How the attacker sends.
        pub pattern: Pattern = choice(Pattern::Steady, "অ্যাটাকের ধরন"),
        /// One account or a new one each try.
        pub target: Target = choice(Target::One, "অ্যাটাকারের টার্গেট"),
        /// Students behind the office's one IP.
        pub office: u32 = int(0, 0..=5000, "এক IP-র পেছনে স্টুডেন্ট"),
        /// Logins per student in the window.
        pub tries: u32 = int(3, 1..=20, "স্টুডেন্টপ্রতি লগইন"),
        /// Seed of the students' times.
        pub seed: u32 = seed(18),
    }
}

/// What one run runs: the lab's parameters and the edge pattern's bursts (a second; a live
/// run widens them with its shrunk window).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateSetup {
    /// The parameters.
    pub p: RateParams,
    /// The edge pattern's bursts, ms.
    pub burst_ms: u64,
}

/// The bursts of a simulated run, ms.
pub const BURST_MS: u64 = 1000;

impl Default for RateParams {
    fn default() -> Self {
        Params::defaults(&super::INFO).read()
    }
}

impl RateParams {
    /// The Redis store.
    pub fn redis(&self) -> bool {
        self.store == Store::Redis
    }
    /// The sliding window.
    pub fn sliding(&self) -> bool {
        self.algo == Algo::Sliding
    }
    /// The IP layer is on.
    pub fn ip_layer(&self) -> bool {
        self.layers != Layers::Identity
    }
    /// The identity layer is on.
    pub fn identity_layer(&self) -> bool {
        self.layers != Layers::Ip
    }
    /// The window, ms.
    pub fn window_ms(&self) -> u64 {
        self.window * 1000
    }

    /// The most of the attacker's requests a window should let through: the identity's limit
    /// (at one account), the IP's (with the IP layer), whichever stops it first (`None`: no
    /// layer stops it — a new account each try and no IP layer).
    pub fn attacker_limit(&self) -> Option<u64> {
        let identity =
            (self.identity_layer() && self.target == Target::One).then_some(u64::from(self.limit));
        let ip = self.ip_layer().then_some(u64::from(self.ip_limit));
        match (identity, ip) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Redis commands a request may need at most (both layers, the sliding window's four).
    pub(super) fn commands_per_request(&self) -> u32 {
        let per = if self.sliding() { 4 } else { 2 };
        per * if self.layers == Layers::Both { 2 } else { 1 }
    }

    /// A simulated run of these parameters.
    pub fn setup(&self) -> RateSetup {
        RateSetup {
            p: self.clone(),
            burst_ms: BURST_MS,
        }
    }

    /// What a live run at time scale `k` runs: the same story at what one proxy session
    /// carries in seconds — the window at most 10 s (times shrunk with it), the counts (the
    /// attempts, the students, both limits) divided so that the attacker's requests fit in
    /// 80% of that window at no more than ~100 commands a second; then every duration `k`
    /// times longer. The simulation of the same shaped setup is the prediction.
    pub fn for_live(&self, k: u64) -> RateSetup {
        let k = k.max(1);
        let live_window = self.window.min(10);
        let c = self.window as f64 / live_window as f64;
        let cap = (100 / self.commands_per_request()).max(1);
        let total = u64::from(self.attempts) + u64::from(self.office) * u64::from(self.tries);
        let fit = (f64::from(self.attempts) / (0.8 * live_window as f64 * f64::from(cap))).ceil();
        let d = (total as f64 / 600.0).ceil().max(fit).max(1.0);
        let div = |n: u32| ((f64::from(n) / d).round() as u32).max(u32::from(n > 0));
        let attempts = div(self.attempts);
        let rps = ((f64::from(self.rps) * c / d).round() as u32).clamp(1, cap);
        let burst = (1000.0 / c).max(f64::from(attempts) / 2.0 / f64::from(rps) * 1000.0);
        RateSetup {
            p: RateParams {
                window: live_window * k,
                attempts,
                rps: (rps as u64 / k).max(1) as u32,
                office: div(self.office),
                limit: div(self.limit).max(1),
                ip_limit: div(self.ip_limit).max(1),
                ..self.clone()
            },
            burst_ms: burst.ceil() as u64 * k,
        }
    }
}

/// The slide's steps.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "memory",
        label: "কাউন্টার মেমোরিতে",
        about: "ছয় ইনস্ট্যান্সের ছয়টা আলাদা হিসাব — লিমিট ৫০০, অ্যাটাকার পায় ৩,০০০",
        pairs: &[("store", "memory")],
    },
    Preset {
        id: "redis",
        label: "কাউন্টার Redis-এ",
        about: "সব ইনস্ট্যান্স একটাই কাউন্টারে INCR করে — অ্যাটাকার পায় ঠিক ৫০০",
        pairs: &[("store", "redis")],
    },
    Preset {
        id: "edge",
        label: "fixed window-এর কিনারা",
        about: "উইন্ডোর শেষ সেকেন্ডে ৫০০, পরের উইন্ডোর প্রথম সেকেন্ডে আরও ৫০০ — দুই সেকেন্ডে দ্বিগুণ ঢুকে যায়",
        pairs: &[("pattern", "edge"), ("attempts", "1000"), ("algo", "fixed")],
    },
    Preset {
        id: "sliding",
        label: "sliding window (sorted set)",
        about: "একই কিনারা, কিন্তু ZSET-এ প্রতিটা রিকোয়েস্টের সময় — যেকোনো পাঁচ মিনিটে ৫০০-র বেশি নয়",
        pairs: &[("pattern", "edge"), ("attempts", "1000"), ("algo", "sliding")],
    },
    Preset {
        id: "office-ip",
        label: "অফিস, শুধু IP লিমিট",
        about: "এক IP-র পেছনে ২০০ স্টুডেন্ট, প্রত্যেকে ৩ বার লগইন — IP-র লিমিট ৫০০ হলে নিরীহ স্টুডেন্টরাও আটকায়",
        pairs: &[
            ("layers", "ip"),
            ("ip_limit", "500"),
            ("office", "200"),
            ("attempts", "0"),
        ],
    },
    Preset {
        id: "office-both",
        label: "IP আর আইডেন্টিটি, দুই স্তর",
        about: "IP-র লিমিট উঁচু, আইডেন্টিটির আলাদা — স্টুডেন্টরা সবাই ঢোকে, আর প্রতিবার নতুন অ্যাকাউন্ট ধরা অ্যাটাকারকে থামায় IP স্তর",
        pairs: &[
            ("layers", "both"),
            ("office", "200"),
            ("target", "many"),
        ],
    },
    Preset {
        id: "rotate",
        label: "নম্বর বদলে বদলে, শুধু আইডেন্টিটি",
        about: "প্রতিবার নতুন অ্যাকাউন্ট — আইডেন্টিটির লিমিট কাউকে থামায় না, ৬,০০০-ই ঢুকে যায়",
        pairs: &[("layers", "identity"), ("target", "many")],
    },
];
