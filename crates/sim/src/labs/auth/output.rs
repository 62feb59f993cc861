//! What the auth lab's run gives the view and `labsim --json` alike: the seconds, the watched
//! student's requests and cached entries, the warm window, the ban's outcome and the log.
//! Its timeline walks the seconds: position `k` is the run after its first `k` seconds.

use super::params::AuthParams;
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use serde::{Deserialize, Serialize};

/// One second of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sec {
    /// Requests begun in it.
    pub requests: u32,
    /// Database queries made in it.
    pub queries: u32,
    /// Requests refused (a ban).
    pub refused: u32,
}

/// One request of the watched student.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Visit {
    /// When, ms.
    pub at_ms: u64,
    /// Let in.
    pub allowed: bool,
    /// Database queries it made.
    pub queries: u32,
    /// Its user entry came from Redis.
    pub user_hit: bool,
}

/// One user entry of the watched student, as the application cached it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The `SET`'s time, ms.
    pub set_ms: u64,
    /// Its expiry (Redis keeps it while now ≤ this), ms.
    pub expires_ms: u64,
    /// It lists the ban.
    pub banned: bool,
}

/// The warm window: every student's keys cached, none expired yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warm {
    /// The last student's first request, ms (the window is after it).
    pub from_ms: u64,
    /// The first expiry of any cached key, ms (the window ends with it).
    pub to_ms: u64,
    /// Requests in the window.
    pub requests: u64,
    /// Database queries in the window.
    pub queries: u64,
}

/// What the ban did to the watched student.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BanOutcome {
    /// The admin's ban, ms.
    pub at_ms: u64,
    /// Its end, ms (`None`: for good).
    pub ends_ms: Option<u64>,
    /// Until when the entry cached before the ban lets the student in (its expiry; the ban's
    /// time when nothing was cached), ms.
    pub stale_until_ms: u64,
    /// Requests let in at or after the ban (and before its end).
    pub let_in: u32,
    /// The last of them, ms.
    pub last_let_in_ms: Option<u64>,
    /// The first refused request, ms.
    pub first_refused_ms: Option<u64>,
    /// Requests refused from the ban's end on.
    pub refused_after_end: u32,
    /// The first request let in from the end on, ms.
    pub back_in_ms: Option<u64>,
    /// The expiry of the entry listing the ban that was cached at its end (`None`: none),
    /// ms: without the filter the ban lasts until then.
    pub listed_until_ms: Option<u64>,
}

/// The run's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuthOutput {
    /// The parameters.
    pub params: AuthParams,
    /// The watched student's id.
    pub watched: String,
    /// Every second so far.
    pub secs: Vec<Sec>,
    /// Requests.
    pub requests: u64,
    /// Refused.
    pub refused: u64,
    /// Database queries.
    pub queries: u64,
    /// Requests that made no query.
    pub zero_query: u64,
    /// Loads of a user entry (2 queries each).
    pub user_loads: u64,
    /// Loads of a course context.
    pub context_loads: u64,
    /// Loads of an access entry.
    pub access_loads: u64,
    /// Redis commands.
    pub commands: u64,
    /// The warm window (`None`: without the cache, or it is empty).
    pub warm: Option<Warm>,
    /// The watched student's requests.
    pub visits: Vec<Visit>,
    /// The watched student's cached user entries.
    pub entries: Vec<Entry>,
    /// The ban's outcome (`None`: no ban).
    pub ban: Option<BanOutcome>,
    /// The watched student's commands, the database's loads and the admin's acts.
    pub log: Vec<CmdLine>,
    /// Virtual time reached, ms.
    pub end_ms: u64,
}

impl AuthOutput {
    /// Queries per request.
    pub fn per_request(&self) -> f64 {
        self.queries as f64 / self.requests.max(1) as f64
    }
}

impl Steps for AuthOutput {
    /// The run's seconds.
    fn steps(&self) -> usize {
        self.secs.len()
    }
}

impl AuthOutput {
    /// Requests and queries in the first `k` seconds (position `k` of the timeline).
    pub fn so_far(&self, k: usize) -> (u64, u64) {
        self.secs.iter().take(k).fold((0, 0), |(r, q), s| {
            (r + u64::from(s.requests), q + u64::from(s.queries))
        })
    }

    /// The position of the timeline that shows the second holding `ms`: the run up to that
    /// second's end.
    pub fn position_of(&self, ms: u64) -> usize {
        ((ms / 1000) as usize + 1).min(self.steps())
    }
}

impl Figures for AuthOutput {
    fn figures(&self) -> Vec<Figure> {
        let mut f = vec![
            Figure::count("requests", self.requests),
            Figure::count("queries", self.queries),
            Figure::new("per-request", self.per_request()),
            Figure::count("user-loads", self.user_loads),
            Figure::count("context-loads", self.context_loads),
            Figure::count("access-loads", self.access_loads),
            Figure::count("zero", self.zero_query),
            Figure::count("commands", self.commands),
        ];
        if self.params.cached() {
            f.push(Figure::count(
                "uncached",
                u64::from(super::QUERIES_UNCACHED) * self.requests,
            ));
            if let Some(w) = &self.warm {
                f.push(Figure::count("warm-queries", w.queries));
            }
        }
        if let Some(b) = &self.ban {
            f.push(Figure::count("let-in", u64::from(b.let_in)));
            f.push(Figure::new(
                "late",
                b.last_let_in_ms.map_or(0, |t| t.saturating_sub(b.at_ms)) as f64 / 1000.0,
            ));
            f.push(Figure::new(
                "stale",
                (b.stale_until_ms - b.at_ms) as f64 / 1000.0,
            ));
            if let Some(e) = b.ends_ms {
                f.push(Figure::count(
                    "refused-after-end",
                    u64::from(b.refused_after_end),
                ));
                f.push(Figure::new(
                    "back",
                    b.back_in_ms.map_or(0, |t| t.saturating_sub(e)) as f64 / 1000.0,
                ));
            }
        }
        f
    }
}
