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

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{RateModel, RateScenario};
pub use output::{Bucket, Counter, RateOutput, Tally};
pub use params::{Algo, Layers, Pattern, RateParams, RateSetup, Store, Target};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::Params;
use super::scenario::{LiveRun, SimRun};
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the instances, the attacker and the office (live: the same against
    /// a real Redis).
    pub struct RateRun = "run", () => RateOutput;
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = RateRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "ratelimit",
    title: "রেট লিমিট — কাউন্টারটা কোথায়",
    blurb: "ছয় ইনস্ট্যান্সে মেমোরির কাউন্টার বনাম Redis-এর একটা: লিমিট ৫০০-তে কে কত পায়; fixed বনাম sliding window, IP আর আইডেন্টিটির দুই স্তর",
    fields: RateParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<RateParams>,
    runs: &[RateRun::NAME],
    live: true,
};

/// The setup of `job`: shaped for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> RateSetup {
    let p: RateParams = p.read();
    match job.live_scale {
        Some(k) => p.for_live(k),
        None => p.setup(),
    }
}

/// The run of `s`, simulated.
pub fn sim(s: &RateSetup) -> SimRun<RateScenario> {
    SimRun::new(RateScenario::new(s), s.p.seed)
}

/// The run of `s` against a real Redis (the Redis store only).
pub fn live(s: &RateSetup) -> LiveRun<RateScenario> {
    LiveRun::new(RateScenario::new(s))
}

/// Runs `p` to the end.
pub fn run(p: &RateParams) -> RateOutput {
    sim(&p.setup()).finish()
}

/// The lab's runner.
pub struct RateLab;

/// The registry's entry.
pub static LAB: RateLab = RateLab;

impl Lab for RateLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(RateRun::erase(sim(&shaped(job, p))))
    }

    fn heaviest(&self) -> &'static str {
        "instances=16&layers=both&algo=sliding&attempts=20000&rps=5000&office=5000&tries=20"
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let s = shaped(job, p);
        s.p.redis()
            .then(|| Box::new(live(&s)) as Box<dyn LiveDriver>)
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new("a login rate limit across PM2 instances: in-memory counters against one Redis \
                      counter (INCR + PEXPIRE), fixed against sliding window (ZADD, ZREMRANGEBYSCORE, \
                      ZCARD) at the window's edge, the IP and the identity layer, an office behind one IP")
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.read());
        Ok(crate::cli::emit(a, text(&r), || {
            serde_json::to_value(&r).unwrap_or_default()
        }))
    }
}

/// The numbers as text (`labsim ratelimit`).
pub fn text(r: &RateOutput) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} instances, store {}, {} window of {} s, layers {} (identity limit {}, IP limit {})\n",
        p.instances, p.store, p.algo, p.window, p.layers, p.limit, p.ip_limit
    );
    let row = |who: &str, t: &Tally| {
        format!(
            "{who:<9} sent {:>6}  let through {:>6}  turned away {:>6} (IP {}, identity {})\n",
            t.sent,
            t.allowed,
            t.blocked(),
            t.by_ip,
            t.by_identity
        )
    };
    out.push_str(&row("attacker", &r.attacker));
    if r.students.sent > 0 {
        out.push_str(&row("students", &r.students));
        out.push_str(&format!(
            "          students turned away at least once: {}\n",
            r.students_hit
        ));
    }
    out.push_str(&format!(
        "most let through in any {} s: {} ({}–{} ms)\n",
        p.window, r.max_in_window, r.max_span.0, r.max_span.1
    ));
    let per: Vec<String> = r.per_instance.iter().map(u64::to_string).collect();
    out.push_str(&format!("let through per instance: {}\n", per.join(" ")));
    for c in &r.counters {
        out.push_str(&format!("  {:<6} {} = {}\n", c.place, c.key, c.count));
    }
    out.push_str(&format!(
        "Redis: {} commands in {} round trips\n",
        r.commands, r.round_trips
    ));
    out
}
