//! The rate-limit lab (production slide 18): `instances` API processes behind a round-robin
//! balancer (PM2), a login limiter of `limit` requests a `window`, and who gets through.
//!
//! * `store=memory` — each instance counts in its own memory (express-rate-limit's default
//!   store): an attacker spread over six instances gets six limits. `store=redis` — one counter
//!   in Redis for every instance (`rate-limit-redis`).
//! * `algo=fixed` — a fixed window that starts with the key's first request: `INCR
//!   rl:login:<id>`, and on the first (reply 1) `PEXPIRE rl:login:<id> <window>` (what
//!   rate-limit-redis does inside one Lua script). `algo=sliding` — a log in a sorted set, in
//!   one pipelined round trip: `ZREMRANGEBYSCORE key -inf <now − window>`, `ZADD key <now>
//!   <request>`, `ZCARD key`, `PEXPIRE key <window>`; allowed while the count is within the
//!   limit. Both count every attempt, the rejected ones too.
//! * `layers` — the IP layer (`rl:ip:<ip>`, `ip_limit`), the identity layer (`rl:login:<phone
//!   or e-mail>`, `limit`), or both (the IP layer first, as the middleware order has it).
//! * Traffic: an attacker (`attempts` requests at `rps` a second, at one account or a new
//!   account each try; `pattern=edge` sends one request, then half of the rest in the last
//!   second of the window and half in the first second of the next), and an office of
//!   `office` students behind one IP, each logging in `tries` times at random in the window.
//!
//! What it counts: the attacker's requests let through (and the most let through in any
//! window-long stretch — the fixed window's edge lets through two limits within two
//! seconds), the students turned away, the Redis commands and round trips.
//!
//! The instances are a [`crate::world::Model`] (many requests in flight at once) on any
//! backend: SimRedis in the simulation, a real Redis through the proxy in live mode (the Redis
//! store only: the memory store speaks no Redis).

/// Its practice questions.
pub mod practice;

mod model;
mod result;
#[cfg(test)]
mod tests;

pub use model::{RateModel, RateScenario};
pub use result::*;

use super::lab::{erase, AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::{choice, int, seed, Field, Params};
use super::preset::Preset;
use super::scenario::{LiveRun, SimRun};
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The lab's fields: the slide's numbers as defaults (six instances, a limit of 500 in five
/// minutes, 6,000 attempts at one account).
pub const FIELDS: &[Field] = &[
    choice("store", "কাউন্টার কোথায়", &["memory", "redis"], "redis"),
    choice("algo", "উইন্ডো", &["fixed", "sliding"], "fixed"),
    choice("layers", "কী দিয়ে গোনা", &["identity", "ip", "both"], "identity"),
    int("instances", "ইনস্ট্যান্স (PM2)", 1, 16, "6"),
    int("limit", "লিমিট: প্রতি আইডেন্টিটি", 1, 100_000, "500"),
    int("ip_limit", "লিমিট: প্রতি IP", 1, 100_000, "1000"),
    int("window", "উইন্ডো (সেকেন্ড)", 1, 3600, "300"),
    int("attempts", "অ্যাটাকারের রিকোয়েস্ট", 0, 20_000, "6000"),
    int("rps", "অ্যাটাকার / সেকেন্ড", 1, 5000, "100"),
    choice("pattern", "অ্যাটাকের ধরন", &["steady", "edge"], "steady"),
    choice("target", "অ্যাটাকারের টার্গেট", &["one", "many"], "one"),
    int("office", "এক IP-র পেছনে স্টুডেন্ট", 0, 5000, "0"),
    int("tries", "স্টুডেন্টপ্রতি লগইন", 1, 20, "3"),
    seed("18"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RateParams {
    /// `memory` or `redis`.
    pub store: String,
    /// `fixed` or `sliding`.
    pub algo: String,
    /// `identity`, `ip` or `both`.
    pub layers: String,
    /// API instances.
    pub instances: u32,
    /// The identity layer's limit per window.
    pub limit: u32,
    /// The IP layer's limit per window.
    pub ip_limit: u32,
    /// The window, s.
    pub window: u64,
    /// The attacker's requests.
    pub attempts: u32,
    /// The attacker's requests per second.
    pub rps: u32,
    /// `steady` or `edge`.
    pub pattern: String,
    /// `one` account or `many`.
    pub target: String,
    /// Students behind the office's one IP.
    pub office: u32,
    /// Logins per student in the window.
    pub tries: u32,
    /// Seed of the students' times.
    pub seed: u32,
    /// Not a field: the edge pattern's bursts, ms (1000; a live run may widen them).
    #[serde(default = "second", skip_serializing_if = "is_second")]
    pub burst_ms: u64,
}

fn second() -> u64 {
    1000
}
fn is_second(v: &u64) -> bool {
    *v == 1000
}

impl Default for RateParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl RateParams {
    /// The Redis store.
    pub fn redis(&self) -> bool {
        self.store == "redis"
    }
    /// The sliding window.
    pub fn sliding(&self) -> bool {
        self.algo == "sliding"
    }
    /// The IP layer is on.
    pub fn ip_layer(&self) -> bool {
        self.layers != "identity"
    }
    /// The identity layer is on.
    pub fn identity_layer(&self) -> bool {
        self.layers != "ip"
    }
    /// The window, ms.
    pub fn window_ms(&self) -> u64 {
        self.window * 1000
    }

    /// Redis commands a request may need at most (both layers, the sliding window's four).
    pub(super) fn commands_per_request(&self) -> u32 {
        let per = if self.sliding() { 4 } else { 2 };
        per * if self.layers == "both" { 2 } else { 1 }
    }

    /// What a live run at time scale `k` runs: the same story at what one proxy session
    /// carries in seconds — the window at most 10 s (times shrunk with it), the counts (the
    /// attempts, the students, both limits) divided so that the attacker's requests fit in
    /// 80% of that window at no more than ~100 commands a second; then every duration `k`
    /// times longer. The simulation of the same shaped parameters is the prediction.
    pub fn for_live(&self, k: u64) -> RateParams {
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
        RateParams {
            window: live_window * k,
            attempts,
            rps: (rps as u64 / k).max(1) as u32,
            office: div(self.office),
            limit: div(self.limit).max(1),
            ip_limit: div(self.ip_limit).max(1),
            burst_ms: burst.ceil() as u64 * k,
            ..self.clone()
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

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "ratelimit",
    title: "রেট লিমিট — কাউন্টারটা কোথায়",
    blurb: "ছয় ইনস্ট্যান্সে মেমোরির কাউন্টার বনাম Redis-এর একটা: লিমিট ৫০০-তে কে কত পায়; fixed বনাম sliding window, IP আর আইডেন্টিটির দুই স্তর",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["run"],
    live: true,
};

/// The parameters of `job`: shaped for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> RateParams {
    let p: RateParams = p.typed();
    match job.live_scale {
        Some(k) => p.for_live(k),
        None => p,
    }
}

/// The run of `p`, simulated.
pub fn sim(p: &RateParams) -> SimRun<RateScenario> {
    SimRun::new(RateScenario::new(p), p.seed)
}

/// The run of `p` against a real Redis (the Redis store only).
pub fn live(p: &RateParams) -> LiveRun<RateScenario> {
    LiveRun::new(RateScenario::new(p))
}

/// Runs `p` to the end.
pub fn run(p: &RateParams) -> RateResult {
    sim(p).finish()
}

/// The lab's runner.
pub struct RateLab;

/// The registry's entry.
pub static LAB: RateLab = RateLab;

impl Lab for RateLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(sim(&shaped(job, p))))
    }

    fn heaviest(&self) -> &'static str {
        "instances=16&layers=both&algo=sliding&attempts=20000&rps=5000&office=5000&tries=20"
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let p = shaped(job, p);
        p.redis()
            .then(|| Box::new(live(&p)) as Box<dyn LiveDriver>)
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "a login rate limit across PM2 instances: in-memory counters against one Redis \
                      counter (INCR + PEXPIRE), fixed against sliding window (ZADD, ZREMRANGEBYSCORE, \
                      ZCARD) at the window's edge, the IP and the identity layer, an office behind one IP",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.typed());
        Ok(crate::cli::emit(a, r.text(), || r.to_json()))
    }
}
