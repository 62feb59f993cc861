//! The auth lab (production slide 11, "every request's auth check"; issue 20 item 2): the
//! three lookups every protected request makes, cached in Redis with cache-aside, and what
//! the TTLs mean for a ban.
//!
//! * `students` students each watch one lesson (a class, chapter or video id of their
//!   course, drawn from the seed) and make a protected request every `every` ms ± 50 %
//!   (seeded; the first at a seeded moment within one gap) until `duration`. The request
//!   times come from their own generator, so a run with the cache and one without it make
//!   the very same requests.
//! * **Without the cache** (`cache=off`, the seed's "before"): every request asks the
//!   database four things — the user, the user's active restrictions, the course of the id,
//!   the student's access — 4 queries per request (a refused request stops after the first
//!   two). No Redis command.
//! * **With the cache** (`cache=on`): the same three questions, each cache-aside against
//!   SimRedis with real commands — `GET`; on `(nil)` the database loader (its queries
//!   counted), then `SET key value EX ttl`:
//!   1. who the user is, `getCachedAuthUser`: `cache:auth:user:v1:student:<id>`, TTL
//!      `user_ttl` (60 s), the user with the active bans and restrictions (2 queries);
//!   2. which course the id belongs to, `getCachedCourseContext`:
//!      `cache:authz:v1:course-context:<id>`, TTL `context_ttl` (120 s; shared by every
//!      student of the lesson, 1 query);
//!   3. does the student have access, `hasCourseStudentAccess`:
//!      `cache:authz:v1:course-student:<student>:<course>`, TTL `access_ttl` (120 s, 1 query).
//!
//!   A request whose three `GET`s hit costs 0 queries; a key that expired costs its load
//!   again. The database's time is not modelled (the lab counts queries, not milliseconds);
//!   each request's commands run back to back within its millisecond (instant mode).
//! * **The ban** (`ban_at`, s; 0 = none): an admin bans the first student (`a91f`) in the
//!   database at `ban_at`; nothing deletes the cached user, so the student is let in until
//!   the entry cached before the ban expires — at most `user_ttl` later (the TTL *is* the
//!   delay). With `ban_for` > 0 the ban ends at `ban_at + ban_for`: the cached entry keeps
//!   the restriction with its end time, and with `filter=read` the application drops
//!   restrictions whose end has passed after reading them from the cache, so the student
//!   gets in again at the first request from the end on; with `filter=none` it trusts the
//!   cached list, and the ban lasts until that entry expires (up to `user_ttl` more).
//!
//! **"0 per request" made exact.** The *warm window* is from the moment every student has
//! made its first request (each student's keys are then all cached) to the first expiry of
//! any cached key; every request in it finds its three keys and the database sees 0 queries
//! — the view says so beside the count. Over the whole run the TTL reloads add a few queries
//! per student per minute, shown as the run's average.
//!
//! No live mode: the lab's story is minutes of TTLs (60 s, 120 s) and thousands of requests;
//! through the proxy (its per-session rate) a run would take minutes of real time, and
//! scaling the times down would change the very TTLs the slide quotes.

/// Its practice questions.
pub mod practice;

mod model;
#[cfg(test)]
mod tests;

pub use model::{run, AuthOutput, AuthScenario, BanOutcome, Entry, Sec, Visit, Warm};

use super::lab::{erase, AnyRun, Broken, CliSpec, Job, Lab, LabInfo};
use super::params::{broken, choice, int, seed, Field, Params, ON_OFF};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// Queries a protected request makes without the cache: the user, the restrictions, the
/// course context, the access.
pub const QUERIES_UNCACHED: u32 = 4;
/// Most requests a run may make (students × duration ÷ gap).
pub const MAX_REQUESTS: i64 = 200_000;

/// The user key of student `id`.
pub fn user_key(id: &str) -> String {
    format!("cache:auth:user:v1:student:{id}")
}

/// The course-context key of lesson `id`.
pub fn context_key(id: &str) -> String {
    format!("cache:authz:v1:course-context:{id}")
}

/// The access key of student `student` in course `course`.
pub fn access_key(student: &str, course: &str) -> String {
    format!("cache:authz:v1:course-student:{student}:{course}")
}

/// A 4-hex-digit id: `n`-th of a family starting at `base` (distinct for n < 65,536). The
/// first student is `a91f`, the first lesson `e22d`, the first course `c47b` (the seed's).
pub fn hex_id(base: u16, n: u32) -> String {
    format!(
        "{:04x}",
        (u32::from(base).wrapping_add(n.wrapping_mul(0x9E37))) & 0xffff
    )
}

/// The lab's fields: the seed's TTLs, a class of 200 students.
pub const FIELDS: &[Field] = &[
    choice("cache", "Redis ক্যাশ", ON_OFF, "on"),
    int("students", "স্টুডেন্ট", 1, 2_000, "200"),
    int("every", "একজনের রিকোয়েস্টের ফাঁক (ms, গড়)", 200, 60_000, "3000"),
    int("courses", "কোর্স", 1, 100, "4"),
    int("lessons", "কোর্সপিছু আইডি (ক্লাস/চ্যাপ্টার/ভিডিও)", 1, 500, "25"),
    int("user_ttl", "ইউজারের TTL (s)", 1, 3_600, "60"),
    int("context_ttl", "কোর্স-কনটেক্সটের TTL (s)", 1, 3_600, "120"),
    int("access_ttl", "অ্যাক্সেসের TTL (s)", 1, 3_600, "120"),
    int("ban_at", "ব্যান কখন (s, ০ = নেই)", 0, 900, "0"),
    int("ban_for", "ব্যান কতক্ষণ (s, ০ = স্থায়ী)", 0, 900, "0"),
    choice("filter", "মেয়াদ-পেরোনো রেস্ট্রিকশন", &["read", "none"], "read"),
    int("duration", "চলবে (s)", 10, 900, "240"),
    seed("1"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthParams {
    /// `on` or `off`.
    pub cache: String,
    /// Students.
    pub students: u32,
    /// Mean gap between one student's requests, ms.
    pub every: u64,
    /// Courses.
    pub courses: u32,
    /// Lesson ids per course.
    pub lessons: u32,
    /// The user entry's TTL, s.
    pub user_ttl: u64,
    /// The course context's TTL, s.
    pub context_ttl: u64,
    /// The access entry's TTL, s.
    pub access_ttl: u64,
    /// When the admin bans student `a91f`, s (0: never).
    pub ban_at: u64,
    /// How long the ban lasts, s (0: for good).
    pub ban_for: u64,
    /// `read`: expired restrictions are dropped after reading the cache; `none`: trusted.
    pub filter: String,
    /// Students stop asking after this, s.
    pub duration: u64,
    /// Seed of the lessons and the request times.
    pub seed: u32,
}

impl Default for AuthParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

impl AuthParams {
    /// The cache is on.
    pub fn cached(&self) -> bool {
        self.cache == "on"
    }
    /// Expired restrictions are filtered on read.
    pub fn filters(&self) -> bool {
        self.filter == "read"
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

/// The run's size, and the ban inside it.
fn rules(p: &Params) -> Result<(), Broken> {
    let n = |k: &str| p.int(k).max(1);
    if n("students") * n("duration") * 1000 / n("every") > MAX_REQUESTS {
        return Err(broken(
            "every",
            "স্টুডেন্ট × সময় ÷ ফাঁক ২,০০,০০০-এর বেশি রিকোয়েস্ট — ফাঁক বাড়ান বা সময় কমান",
        ));
    }
    if p.int("ban_at") >= p.int("duration") {
        return Err(broken("ban_at", "ব্যান হতে হবে চলার সময়ের ভেতরে"));
    }
    Ok(())
}

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "auth",
    title: "প্রতিটা রিকোয়েস্টের অথ চেক — ৪ কোয়েরি থেকে ০",
    blurb: "ইউজার, কোর্স-কনটেক্সট, অ্যাক্সেস — তিনটাই Redis-এ cache-aside: ডেটাবেস কোয়েরি ৪ থেকে ০, ব্যান কার্যকর TTL-এর মধ্যে, আর ব্যান শেষ হলে অপেক্ষা নেই",
    fields: FIELDS,
    presets: PRESETS,
    rules,
    runs: &["run"],
    live: false,
};

/// The lab's runner.
pub struct AuthLab;

/// The registry's entry.
pub static LAB: AuthLab = AuthLab;

impl Lab for AuthLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let p: AuthParams = p.typed();
        Ok(erase(model::sim(&p)))
    }

    /// As many requests as the rule lets through, over the longest run.
    fn heaviest(&self) -> &'static str {
        "students=2000&every=9000&duration=900&courses=100&lessons=500&user_ttl=1&context_ttl=1&access_ttl=1&ban_at=30&ban_for=60"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "every protected request's auth check: the user, the course context and \
                      the access, each GET / database / SET … EX in Redis (or 4 queries without \
                      the cache); queries per second, the warm window's 0, a ban within the TTL \
                      and a ban's end with and without the filter on read",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: AuthParams = p.typed();
        let out = run(&p);
        Ok(crate::cli::emit(a, text(&out), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}

/// The command line's summary.
pub fn text(o: &AuthOutput) -> String {
    use std::fmt::Write;
    let p = &o.params;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "auth: {} students, a request every {} ms ± 50%, {} s, cache {}, TTLs user {} s / \
         context {} s / access {} s, seed {}",
        p.students,
        p.every,
        p.duration,
        p.cache,
        p.user_ttl,
        p.context_ttl,
        p.access_ttl,
        p.seed
    );
    let _ = writeln!(
        s,
        "requests {} (refused {}), database queries {} ({:.3} per request; without the cache \
         {}), requests with 0 queries {}",
        o.requests,
        o.refused,
        o.queries,
        o.per_request(),
        u64::from(QUERIES_UNCACHED) * o.requests,
        o.zero_query
    );
    let _ = writeln!(
        s,
        "loads: user {}, course context {}, access {}; Redis commands {}",
        o.user_loads, o.context_loads, o.access_loads, o.commands
    );
    if let Some(w) = &o.warm {
        let _ = writeln!(
            s,
            "warm window {:.1}–{:.1} s: {} requests, {} queries",
            w.from_ms as f64 / 1000.0,
            w.to_ms as f64 / 1000.0,
            w.requests,
            w.queries
        );
    }
    if let Some(b) = &o.ban {
        let _ = writeln!(
            s,
            "ban of {} at {:.1} s{}: let in after it {} times, the last at {}, refused from {}",
            o.watched,
            b.at_ms as f64 / 1000.0,
            b.ends_ms
                .map(|e| format!(" until {:.1} s", e as f64 / 1000.0))
                .unwrap_or_default(),
            b.let_in,
            secs(b.last_let_in_ms),
            secs(b.first_refused_ms)
        );
        if b.ends_ms.is_some() {
            let _ = writeln!(
                s,
                "after its end: refused {} times, back in at {}",
                b.refused_after_end,
                secs(b.back_in_ms)
            );
        }
    }
    s
}

fn secs(ms: Option<u64>) -> String {
    ms.map_or("-".into(), |ms| format!("{:.3} s", ms as f64 / 1000.0))
}
