//! The students' requests and the application's auth check, on the one engine ([`World`])
//! against SimRedis; the database is the model's own state (its queries counted).

use super::output::{AuthOutput, BanOutcome, Entry, Sec, Visit, Warm};
use super::params::AuthParams;
use super::{access_key, context_key, hex_id, user_key, QUERIES_UNCACHED};
use crate::labs::log::CmdLine;
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::{Reply, EPOCH_MS};
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Backend, Io, Model, OpId, Outcome, World};
use rustc_hash::FxHashMap;
use serde::Deserialize;

/// The watched student (the one the admin bans): the first.
const WATCHED: u32 = 0;
/// Most lines of the watched student's log.
const LOG_MAX: usize = 2_000;

/// The model's timers.
#[derive(Clone, Copy, Debug)]
pub enum Tick {
    /// Student `.0` makes a request.
    Request(u32),
    /// The admin bans the watched student.
    Ban,
    /// The ban ends (nothing is sent: the database's row says so).
    BanEnds,
}

/// Where a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    GetUser,
    SetUser,
    GetContext,
    SetContext,
    GetAccess,
    SetAccess { access: bool },
}

struct Student {
    id: String,
    user_key: String,
    context_key: String,
    course: String,
    /// This request's queries so far, and whether its user entry came from Redis.
    queries: u32,
    user_hit: bool,
    started: u64,
    first_ms: Option<u64>,
}

/// The students, the application between them and Redis, and the database.
pub struct Auth {
    p: AuthParams,
    sched: Mulberry32,
    students: Vec<Student>,
    ops: FxHashMap<OpId, (u32, Stage)>,
    out: AuthOutput,
    /// The earliest expiry of a key `SET` so far, ms.
    first_expiry: Option<u64>,
    ban_ms: Option<u64>,
    ban_end_ms: Option<u64>,
    banned_now: bool,
    /// Every finished request: its start and its queries.
    done: Vec<(u64, u32)>,
}

/// The user entry's value: the user and the restrictions the database had active.
fn user_value(id: &str, ban_end: Option<Option<u64>>) -> String {
    let r = match ban_end {
        None => String::new(),
        Some(None) => "{\"type\":\"BAN\",\"endsAt\":null}".into(),
        Some(Some(e)) => format!("{{\"type\":\"BAN\",\"endsAt\":{}}}", EPOCH_MS as u64 + e),
    };
    format!("{{\"id\":\"{id}\",\"role\":\"STUDENT\",\"restrictions\":[{r}]}}")
}

#[derive(Deserialize)]
struct Restriction {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "endsAt")]
    ends_at: Option<u64>,
}

#[derive(Deserialize)]
struct UserEntry {
    restrictions: Vec<Restriction>,
}

impl Auth {
    fn new(p: &AuthParams) -> Self {
        let mut pick = Mulberry32::new(p.seed ^ 0xA07B_0001);
        let students = (0..p.students)
            .map(|s| {
                let id = hex_id(0xa91f, s);
                let c = pick.below(p.courses);
                let l = pick.below(p.lessons);
                let lesson = hex_id(0xe22d, c * p.lessons + l);
                Student {
                    user_key: user_key(&id),
                    context_key: context_key(&lesson),
                    course: hex_id(0xc47b, c),
                    id,
                    queries: 0,
                    user_hit: false,
                    started: 0,
                    first_ms: None,
                }
            })
            .collect();
        let out = AuthOutput {
            params: p.clone(),
            watched: hex_id(0xa91f, WATCHED),
            secs: Vec::new(),
            requests: 0,
            refused: 0,
            queries: 0,
            zero_query: 0,
            user_loads: 0,
            context_loads: 0,
            access_loads: 0,
            commands: 0,
            warm: None,
            visits: Vec::new(),
            entries: Vec::new(),
            ban: None,
            log: Vec::new(),
            end_ms: 0,
        };
        Auth {
            p: p.clone(),
            sched: Mulberry32::new(p.seed ^ 0x5C4E_D01E),
            students,
            ops: FxHashMap::default(),
            out,
            first_expiry: None,
            ban_ms: p.ban_ms(),
            ban_end_ms: p.ban_end_ms(),
            banned_now: false,
            done: Vec::new(),
        }
    }

    fn sec(&mut self, now: u64) -> &mut Sec {
        let i = (now / 1000) as usize;
        if self.out.secs.len() <= i {
            self.out.secs.resize(i + 1, Sec::default());
        }
        &mut self.out.secs[i]
    }

    /// The database answers `n` queries for student `s`.
    fn query(&mut self, s: u32, n: u32, now: u64, what: &str) {
        self.students[s as usize].queries += n;
        self.out.queries += u64::from(n);
        self.sec(now).queries += n;
        if s == WATCHED {
            self.note(now, format!("ডেটাবেস: {what} ({n}টা কোয়েরি)"));
        }
    }

    fn note(&mut self, now: u64, note: String) {
        if self.out.log.len() < LOG_MAX {
            let mut l = CmdLine::new(now, "", &Vec::new(), Ok(Reply::Nil));
            l.note = note;
            self.out.log.push(l);
        }
    }

    /// The ban's end as the database has it now: `Some(end)` while it is active.
    fn db_ban(&self, s: u32, now: u64) -> Option<Option<u64>> {
        (s == WATCHED && self.banned_now && self.ban_end_ms.is_none_or(|e| now < e))
            .then_some(self.ban_end_ms)
    }

    fn send(&mut self, io: &mut Io<Tick>, s: u32, stage: Stage, c: Vec<Vec<u8>>) {
        self.out.commands += 1;
        let op = io.send(s as ActorId, c);
        self.ops.insert(op, (s, stage));
    }

    fn set(&mut self, io: &mut Io<Tick>, s: u32, stage: Stage, key: &str, v: &str, ttl: u64) {
        let exp = io.now() + ttl * 1000;
        self.first_expiry = Some(self.first_expiry.map_or(exp, |e| e.min(exp)));
        self.send(io, s, stage, cmd(&["SET", key, v, "EX", &ttl.to_string()]));
    }

    fn request(&mut self, s: u32, io: &mut Io<Tick>) {
        let now = io.now();
        // The next request, drawn whatever this one does (the same times with or without
        // the cache).
        let e = self.p.every;
        let next = now + e / 2 + u64::from(self.sched.below(e as u32 + 1));
        if next < self.p.duration * 1000 {
            io.at(next, Tick::Request(s));
        }
        self.out.requests += 1;
        self.sec(now).requests += 1;
        let st = &mut self.students[s as usize];
        st.queries = 0;
        st.user_hit = false;
        st.started = now;
        st.first_ms.get_or_insert(now);
        if self.p.cached() {
            let c = cmd(&["GET", &st.user_key]);
            self.send(io, s, Stage::GetUser, c);
            return;
        }
        // Without the cache: the four questions to the database (a ban stops after two).
        self.query(s, 2, now, "ইউজার আর তার চলতি রেস্ট্রিকশন");
        if self.db_ban(s, now).is_some() {
            return self.finish(s, false, now);
        }
        self.query(s, 1, now, "আইডিটা কোন কোর্সের");
        self.query(s, QUERIES_UNCACHED - 3, now, "কোর্সে অ্যাক্সেস আছে কি");
        self.finish(s, true, now);
    }

    /// The user entry, read or loaded: banned or on to the course.
    fn user(&mut self, s: u32, value: &[u8], io: &mut Io<Tick>) {
        let now = io.now();
        let now_epoch = EPOCH_MS as u64 + now;
        let entry: UserEntry = serde_json::from_slice(value).unwrap_or(UserEntry {
            restrictions: Vec::new(),
        });
        let banned = entry.restrictions.iter().any(|r| {
            r.kind == "BAN" && (!self.p.filters() || r.ends_at.is_none_or(|e| now_epoch < e))
        });
        if banned {
            return self.finish(s, false, now);
        }
        let c = cmd(&["GET", &self.students[s as usize].context_key]);
        self.send(io, s, Stage::GetContext, c);
    }

    fn access(&mut self, s: u32, course: &str, io: &mut Io<Tick>) {
        let c = cmd(&["GET", &access_key(&self.students[s as usize].id, course)]);
        self.send(io, s, Stage::GetAccess, c);
    }

    fn finish(&mut self, s: u32, allowed: bool, now: u64) {
        let q = self.students[s as usize].queries;
        let started = self.students[s as usize].started;
        self.done.push((started, q));
        if q == 0 {
            self.out.zero_query += 1;
        }
        if !allowed {
            self.out.refused += 1;
            self.sec(now).refused += 1;
        }
        if s == WATCHED {
            let user_hit = self.students[s as usize].user_hit;
            self.out.visits.push(Visit {
                at_ms: now,
                allowed,
                queries: q,
                user_hit,
            });
            let say = if allowed {
                "ঢুকতে দিল (200)"
            } else {
                "ফেরাল: ব্যান (403)"
            };
            self.note(now, format!("রিকোয়েস্ট: {say}"));
        }
    }

    fn log(&mut self, s: u32, op: OpId, reply: &Reply, io: &Io<Tick>) {
        if s == WATCHED && self.out.log.len() < LOG_MAX {
            let who = self.students[s as usize].id.clone();
            self.out
                .log
                .push(CmdLine::new(io.now(), who, io.cmd(op), Ok(reply.clone())));
        }
    }

    fn warm(&self) -> Option<Warm> {
        let from = self.students.iter().map(|s| s.first_ms).max()??;
        let to = self.first_expiry?;
        if !self.p.cached() || to <= from {
            return None;
        }
        let inside = || self.done.iter().filter(|&&(t, _)| t > from && t <= to);
        Some(Warm {
            from_ms: from,
            to_ms: to,
            requests: inside().count() as u64,
            queries: inside().map(|&(_, q)| u64::from(q)).sum(),
        })
    }

    fn ban_outcome(&self) -> Option<BanOutcome> {
        let at = self.ban_ms?;
        let end = self.ban_end_ms;
        let held = |t: u64| {
            self.out
                .entries
                .iter()
                .find(|e| e.set_ms <= t && t <= e.expires_ms)
        };
        let stale_until = match held(at) {
            Some(e) if !e.banned && self.p.cached() => e.expires_ms,
            _ => at,
        };
        let during = |v: &&Visit| v.at_ms >= at && end.is_none_or(|e| v.at_ms < e);
        let let_in: Vec<&Visit> = self
            .out
            .visits
            .iter()
            .filter(during)
            .filter(|v| v.allowed)
            .collect();
        let after_end = |v: &&Visit| end.is_some_and(|e| v.at_ms >= e);
        Some(BanOutcome {
            at_ms: at,
            ends_ms: end,
            stale_until_ms: stale_until,
            let_in: let_in.len() as u32,
            last_let_in_ms: let_in.last().map(|v| v.at_ms),
            first_refused_ms: self.out.visits.iter().find(|v| !v.allowed).map(|v| v.at_ms),
            refused_after_end: self
                .out
                .visits
                .iter()
                .filter(after_end)
                .filter(|v| !v.allowed)
                .count() as u32,
            back_in_ms: self
                .out
                .visits
                .iter()
                .filter(after_end)
                .find(|v| v.allowed)
                .map(|v| v.at_ms),
            listed_until_ms: end
                .and_then(held)
                .filter(|e| e.banned && self.p.cached())
                .map(|e| e.expires_ms),
        })
    }
}

impl Model for Auth {
    type Timer = Tick;

    fn on_timer(&mut self, t: Tick, io: &mut Io<Tick>) {
        let now = io.now();
        match t {
            Tick::Request(s) => self.request(s, io),
            Tick::Ban => {
                self.banned_now = true;
                let end = self
                    .ban_end_ms
                    .map(|e| format!(", শেষ {:.0} s-এ", e as f64 / 1000.0))
                    .unwrap_or_default();
                let id = self.out.watched.clone();
                self.note(
                    now,
                    format!("অ্যাডমিন: {id}-কে ব্যান (ডেটাবেসে{end}; ক্যাশে কিছু মোছা হয় না)"),
                );
            }
            Tick::BanEnds => {
                let id = self.out.watched.clone();
                self.note(now, format!("{id}-এর ব্যানের মেয়াদ শেষ"));
            }
        }
    }

    fn on_reply(&mut self, op: OpId, _actor: ActorId, outcome: Outcome, io: &mut Io<Tick>) {
        let Some((s, stage)) = self.ops.remove(&op) else {
            return;
        };
        let Outcome::Reply(reply) = outcome else {
            return;
        };
        self.log(s, op, &reply, io);
        let now = io.now();
        match stage {
            Stage::GetUser => match &reply {
                Reply::Bulk(v) => {
                    self.students[s as usize].user_hit = true;
                    self.user(s, v, io);
                }
                _ => {
                    self.out.user_loads += 1;
                    self.query(s, 2, now, "ইউজার আর তার চলতি রেস্ট্রিকশন");
                    let ban = self.db_ban(s, now);
                    let st = &self.students[s as usize];
                    let (key, v) = (st.user_key.clone(), user_value(&st.id, ban));
                    let ttl = self.p.user_ttl;
                    if s == WATCHED {
                        self.out.entries.push(Entry {
                            set_ms: now,
                            expires_ms: now + ttl * 1000,
                            banned: ban.is_some(),
                        });
                    }
                    self.set(io, s, Stage::SetUser, &key, &v, ttl);
                }
            },
            Stage::SetUser => {
                let v = io.cmd(op)[2].clone();
                self.user(s, &v, io);
            }
            Stage::GetContext => match &reply {
                Reply::Bulk(v) => {
                    let course = String::from_utf8_lossy(v).into_owned();
                    self.access(s, &course, io);
                }
                _ => {
                    self.out.context_loads += 1;
                    self.query(s, 1, now, "আইডিটা কোন কোর্সের");
                    let st = &self.students[s as usize];
                    let (key, course) = (st.context_key.clone(), st.course.clone());
                    let ttl = self.p.context_ttl;
                    self.set(io, s, Stage::SetContext, &key, &course, ttl);
                }
            },
            Stage::SetContext => {
                let course = String::from_utf8_lossy(&io.cmd(op)[2]).into_owned();
                self.access(s, &course, io);
            }
            Stage::GetAccess => match &reply {
                Reply::Bulk(v) => self.finish(s, v.as_slice() == b"1", now),
                _ => {
                    self.out.access_loads += 1;
                    self.query(s, 1, now, "কোর্সে অ্যাক্সেস আছে কি");
                    // Every student is enrolled in the course of the lesson they watch.
                    let key = io.cmd(op)[1].clone();
                    let key = String::from_utf8_lossy(&key).into_owned();
                    let ttl = self.p.access_ttl;
                    self.set(io, s, Stage::SetAccess { access: true }, &key, "1", ttl);
                }
            },
            Stage::SetAccess { access } => self.finish(s, access, now),
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        self.students
            .get(actor)
            .map_or_else(|| format!("actor {actor}"), |s| s.id.clone())
    }
}

/// The run of `p` as a [`Scenario`].
pub struct AuthScenario {
    p: AuthParams,
}

impl Scenario for AuthScenario {
    type Model = Auth;
    type Output = AuthOutput;
    /// One event is one request (its commands run in the same step).
    const EVENTS: usize = 512;

    fn world<B: Backend>(&mut self, backend: B, _live: bool) -> World<B, Auth> {
        let mut w = World::with_model(self.p.seed, backend, Auth::new(&self.p));
        w.set_instant(true);
        w.set_trace(false);
        w.start(|m, io| {
            // The admin's acts first: at the same millisecond they come before a request.
            if let Some(b) = m.ban_ms {
                io.at(b, Tick::Ban);
            }
            if let Some(e) = m.ban_end_ms {
                io.at(e, Tick::BanEnds);
            }
            for s in 0..m.p.students {
                let first = u64::from(m.sched.below(m.p.every as u32));
                io.at(first, Tick::Request(s));
            }
        });
        w
    }

    fn progress<B: Backend>(&self, world: &World<B, Auth>) -> f64 {
        world.now_ms() as f64 / (self.p.duration * 1000) as f64
    }

    fn output<B: Backend>(&self, world: &World<B, Auth>, _live: Option<&[u32]>) -> AuthOutput {
        let m = world.model();
        let mut o = m.out.clone();
        o.end_ms = world.now_ms();
        o.warm = m.warm();
        o.ban = m.ban_outcome();
        o
    }
}

/// The run of `p`, simulated: the worker steps it (`SimRun` is the run), `run` finishes it.
pub fn sim(p: &AuthParams) -> SimRun<AuthScenario> {
    SimRun::new(AuthScenario { p: p.clone() }, p.seed)
}

/// The run of `p`, to the end.
pub fn run(p: &AuthParams) -> AuthOutput {
    sim(p).finish()
}
