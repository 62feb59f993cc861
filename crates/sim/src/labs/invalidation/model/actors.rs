//! The actors of one action as one [`Model`] on the world engine: the app's invalidation,
//! the requests filling lists while a walk runs, the reads after the change, and what each
//! counted; the keys they track.

use super::super::output::{Design, Effect, LOG_MAX};
use super::super::params::InvalidationParams;
use super::super::{CATALOG_PATTERN, CATALOG_VERSION, CV0, LIST_TTL_S, SAMPLE, SV0};
use super::{Way, MAX_WRITES, TIMEOUT_MS};
use crate::labs::log::{CmdLine, NoReply};
use crate::redis::{Reply, SimRedis};
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Command, Io, Logged, Model, OpId, Outcome, Ran};
use std::collections::BTreeMap;

/// The app's connection (the invalidation, the reads).
pub(super) const APP: ActorId = 0;
/// The bulk DEL's stalled connection.
pub(super) const STALLED: ActorId = 1;
/// Requests filling list keys while the walk runs.
pub(super) const WRITER: ActorId = 2;
/// The requests after the change.
pub(super) const READER: ActorId = 3;

/// Reads after a change are spread over this many ms.
pub(super) const READ_SPREAD: u64 = 10_000;

/// The four known keys of one student (`a91f…`) and one course (`c47b…`, context `e22d…`),
/// with their TTLs (s).
pub const KNOWN: [(&str, u64); 4] = [
    ("cache:auth:user:v1:student:a91f", 60),
    ("cache:authz:v1:course-student:a91f:c47b", 120),
    ("cache:authz:v1:course-context:e22d", 120),
    ("cache:socket:restriction:v1:a91f:CHAT", 60),
];

pub(super) const PROGS: [&str; 3] = ["frb", "acad", "skill"];
pub(super) const HOSTS: [&str; 2] = ["web", "app"];

/// A key the model wrote (or the keyspace started with) and watches.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    pub(super) name: String,
    pub(super) kind: Kind,
    /// When its TTL runs out, virtual ms.
    pub(super) deadline: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Known,
    /// A catalog list of this version.
    Catalog(i64),
    /// A my-courses list of student `s` with these versions (0: not in the name).
    MyCourses {
        s: u32,
        sv: i64,
        cv: i64,
    },
}

/// What a command in flight is for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Purpose {
    Del,
    Scan,
    ScanDel,
    Incr,
    /// The writer's fill of catalog filter `.0`.
    Write(u32),
    /// A catalog read of filter `.0`: the version, then the list.
    CatVersion(u32),
    CatList(u32),
    /// A read of the known keys.
    Known,
    /// A my-courses read of student `.0`: the version(s), then the list.
    McVersion(u32),
    McList(u32),
    /// A fill after a miss (nothing to do with its reply).
    Fill,
}

/// The model's timers.
#[derive(Clone, Copy, Debug)]
pub enum Tick {
    /// The change: the invalidation starts.
    Change,
    /// A request fills a new list while the walk runs.
    Write,
    /// A read of catalog filter `.0` after the change.
    CatRead(u32),
    /// A read of the known keys after the change.
    KnownRead,
    /// A my-courses read of student `.0`.
    McRead(u32),
    /// Two versions: the admin's course edit.
    Edit,
}

/// Every actor of one action and what they counted.
pub struct Inval {
    pub(super) way: Way,
    pub(super) p: InvalidationParams,
    pub(super) rng: Mulberry32,
    pub(super) mask: u32,
    pub(super) keys: Vec<Tracked>,
    /// Index of each tracked key by name.
    pub(super) by_name: BTreeMap<String, usize>,
    pub(super) ops: BTreeMap<OpId, Purpose>,
    pub(super) log: Vec<CmdLine>,
    pub(super) commands: u32,
    // The invalidation.
    pub(super) pending: u32,
    pub(super) done_ms: Option<u64>,
    pub(super) unreachable: u32,
    pub(super) round_trips: u32,
    pub(super) scan_calls: u32,
    pub(super) walked: u32,
    pub(super) walk_on: bool,
    pub(super) walk_cursor: String,
    pub(super) writes: u32,
    pub(super) written_during: Vec<u32>,
    pub(super) missed: u32,
    pub(super) fulfilled: u32,
    pub(super) rejected: u32,
    // The data behind the cache: its revision (the change makes it 2).
    pub(super) course_rev: u32,
    pub(super) enrol_rev: Vec<u32>,
    pub(super) cv: i64,
    pub(super) sv: Vec<i64>,
    // The reads after.
    pub(super) reads: u32,
    pub(super) db_loads: u32,
    pub(super) stale: u32,
    /// Two versions: the phase (0: purchase, 1: edit) and what each did.
    pub(super) phase: usize,
    pub(super) effects: [Effect; 2],
    pub(super) own_loads: [u32; 2],
    pub(super) own_stale: [u32; 2],
    pub(super) pending_mc: BTreeMap<u32, (i64, i64)>,
    /// Deadlines of the other keys (nobody deletes them).
    pub(super) others: Vec<u64>,
}

pub(super) fn parse_int(r: &Reply) -> Option<i64> {
    match r {
        Reply::Integer(n) => Some(*n),
        Reply::Bulk(b) => std::str::from_utf8(b).ok()?.parse().ok(),
        _ => None,
    }
}

pub(super) fn words(c: &Command) -> Vec<String> {
    c.iter()
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

impl Inval {
    pub(super) fn new(way: Way, p: &InvalidationParams) -> Self {
        let mut rng = Mulberry32::new(p.seed ^ 0x1A7A_11D0);
        let mask = rng.below(1 << 16);
        Inval {
            way,
            p: p.clone(),
            rng,
            mask,
            keys: Vec::new(),
            by_name: BTreeMap::new(),
            ops: BTreeMap::new(),
            log: Vec::new(),
            commands: 0,
            pending: 0,
            done_ms: None,
            unreachable: 0,
            round_trips: 0,
            scan_calls: 0,
            walked: 0,
            walk_on: false,
            walk_cursor: "0".into(),
            writes: 0,
            written_during: Vec::new(),
            missed: 0,
            fulfilled: 0,
            rejected: 0,
            course_rev: 1,
            enrol_rev: vec![1; SAMPLE as usize],
            cv: CV0,
            sv: vec![SV0; SAMPLE as usize],
            reads: 0,
            db_loads: 0,
            stale: 0,
            phase: 0,
            effects: [Effect::default(); 2],
            own_loads: [0; 2],
            own_stale: [0; 2],
            pending_mc: BTreeMap::new(),
            others: Vec::new(),
        }
    }

    /// Catalog filter `f`'s list key without its version.
    pub(super) fn filter(&self, f: u32) -> String {
        let h = (f ^ self.mask) & 0xffff;
        format!(
            "cache:course-catalog:v1:list:{}:{}:{h:04x}",
            PROGS[(f % 3) as usize],
            HOSTS[((f / 3) % 2) as usize]
        )
    }

    pub(super) fn list_key(&self, f: u32, v: i64) -> String {
        format!("{}:v{v}", self.filter(f))
    }

    pub(super) fn student(s: u32) -> String {
        if s == 0 {
            "a91f".into()
        } else {
            format!("s{s:03}")
        }
    }

    pub(super) fn sv_key(s: u32) -> String {
        format!("cache:student-my-courses:v1:version:{}", Self::student(s))
    }

    pub(super) fn design(&self) -> Option<Design> {
        match self.way {
            Way::TwoVersions(d) => Some(d),
            _ => None,
        }
    }

    pub(super) fn mc_key(&self, s: u32, sv: i64, cv: i64) -> String {
        let base = format!(
            "cache:student-my-courses:v1:list:{}:enrolled:7c2f",
            Self::student(s)
        );
        match self.design() {
            Some(Design::Course) => format!("{base}:cv{cv}"),
            Some(Design::Student) => format!("{base}:sv{sv}"),
            _ => format!("{base}:sv{sv}:cv{cv}"),
        }
    }

    pub(super) fn track(&mut self, name: String, kind: Kind, deadline: u64) {
        match self.by_name.get(&name) {
            Some(&i) => {
                self.keys[i].deadline = deadline;
            }
            None => {
                self.by_name.insert(name.clone(), self.keys.len());
                self.keys.push(Tracked {
                    name,
                    kind,
                    deadline,
                });
            }
        }
    }

    fn send(&mut self, io: &mut Io<Tick>, actor: ActorId, c: Command, why: Purpose) {
        let op = io.send(actor, c);
        self.ops.insert(op, why);
    }

    fn arrival(&self, io: &Io<Tick>) -> u64 {
        io.now() + self.p.rtt / 2
    }

    /// The change: the invalidation's first commands.
    fn change(&mut self, io: &mut Io<Tick>) {
        match self.way {
            Way::Del => {
                self.course_rev = 2;
                for (i, (k, _)) in KNOWN.iter().enumerate() {
                    let c = cmd(&["DEL", k]);
                    if i == KNOWN.len() - 1 {
                        let op = io.send_timeout(STALLED, c, TIMEOUT_MS);
                        self.ops.insert(op, Purpose::Del);
                    } else {
                        self.send(io, APP, c, Purpose::Del);
                    }
                }
                self.pending = KNOWN.len() as u32;
                self.round_trips = KNOWN.len() as u32;
            }
            Way::ScanDel => {
                self.course_rev = 2;
                self.walk_on = true;
                self.scan(io, "0");
                if self.p.write_ms > 0 {
                    io.after(self.p.write_ms, Tick::Write);
                }
            }
            Way::Version => {
                self.course_rev = 2;
                self.round_trips = 1;
                self.send(io, APP, cmd(&["INCR", CATALOG_VERSION]), Purpose::Incr);
            }
            Way::TwoVersions(d) => {
                // A purchase: student 0 enrols in one more course.
                self.enrol_rev[0] += 1;
                self.round_trips = 1;
                let c = match d {
                    Design::Course => cmd(&["INCR", CATALOG_VERSION]),
                    _ => cmd(&["INCR", &Self::sv_key(0)]),
                };
                self.send(io, APP, c, Purpose::Incr);
            }
        }
    }

    fn scan(&mut self, io: &mut Io<Tick>, cursor: &str) {
        self.scan_calls += 1;
        self.round_trips += 1;
        let count = self.p.count.to_string();
        self.send(
            io,
            APP,
            cmd(&["SCAN", cursor, "MATCH", CATALOG_PATTERN, "COUNT", &count]),
            Purpose::Scan,
        );
    }

    /// The invalidation is over: the next requests come.
    fn invalidated(&mut self, io: &mut Io<Tick>) {
        let now = io.now();
        self.done_ms = Some(now);
        self.walk_on = false;
        match self.way {
            Way::Del => io.at(now + 1_000, Tick::KnownRead),
            Way::ScanDel | Way::Version => {
                let n = self.p.lists + self.writes;
                for f in 0..n {
                    let at = now + 1 + u64::from(self.rng.below(READ_SPREAD as u32));
                    io.at(at, Tick::CatRead(f));
                }
            }
            Way::TwoVersions(_) => self.mc_reads(io),
        }
    }

    fn mc_reads(&mut self, io: &mut Io<Tick>) {
        let now = io.now();
        io.at(now + 1, Tick::McRead(0));
        for s in 1..SAMPLE {
            let at = now + 1 + u64::from(self.rng.below(READ_SPREAD as u32));
            io.at(at, Tick::McRead(s));
        }
    }

    fn edit(&mut self, io: &mut Io<Tick>) {
        self.phase = 1;
        self.course_rev += 1;
        match self.design() {
            Some(Design::Student) => {
                // Nothing in the key's name follows the course: nothing to bump.
                self.mc_reads(io);
            }
            _ => {
                self.round_trips += 1;
                self.send(io, APP, cmd(&["INCR", CATALOG_VERSION]), Purpose::Incr);
            }
        }
    }

    fn value(&self) -> String {
        format!("rev{}", self.course_rev)
    }

    fn mc_value(&self, s: u32) -> String {
        format!("e{}:c{}", self.enrol_rev[s as usize], self.course_rev)
    }

    fn on_result(&mut self, why: Purpose, reply: Option<Reply>, io: &mut Io<Tick>) {
        let ttl_ms = LIST_TTL_S * 1_000;
        match why {
            Purpose::Del => {
                if reply.is_some() {
                    self.fulfilled += 1;
                } else {
                    self.rejected += 1;
                }
                self.pending -= 1;
                if self.pending == 0 {
                    self.invalidated(io);
                }
            }
            Purpose::Scan => {
                let Some(Reply::Array(a)) = reply else {
                    self.invalidated(io);
                    return;
                };
                let cursor = a
                    .first()
                    .and_then(Reply::as_bulk)
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_else(|| "0".into());
                let found: Vec<Vec<u8>> = match a.get(1) {
                    Some(Reply::Array(k)) => k
                        .iter()
                        .filter_map(|x| x.as_bulk().map(<[u8]>::to_vec))
                        .collect(),
                    _ => Vec::new(),
                };
                self.walk_cursor = cursor.clone();
                if !found.is_empty() {
                    let mut c = cmd(&["DEL"]);
                    c.extend(found);
                    self.round_trips += 1;
                    self.send(io, APP, c, Purpose::ScanDel);
                } else if cursor == "0" {
                    self.invalidated(io);
                } else {
                    self.scan(io, &cursor);
                }
            }
            Purpose::ScanDel => {
                if self.walk_cursor == "0" {
                    self.invalidated(io);
                } else {
                    let c = self.walk_cursor.clone();
                    self.scan(io, &c);
                }
            }
            Purpose::Incr => {
                let v = reply.as_ref().and_then(parse_int).unwrap_or(0);
                match self.way {
                    Way::TwoVersions(Design::Both | Design::Student) if self.phase == 0 => {
                        self.sv[0] = v;
                    }
                    _ => self.cv = v,
                }
                if self.phase == 0 {
                    self.invalidated(io);
                } else {
                    self.mc_reads(io);
                }
            }
            Purpose::Write(_) | Purpose::Fill => {}
            Purpose::CatVersion(f) => {
                let v = reply.as_ref().and_then(parse_int).unwrap_or(CV0);
                let k = self.list_key(f, v);
                self.send(io, READER, cmd(&["GET", &k]), Purpose::CatList(f));
                self.cv = v;
            }
            Purpose::CatList(f) => {
                self.reads += 1;
                match reply {
                    Some(Reply::Bulk(b)) => {
                        if b != self.value().as_bytes() {
                            self.stale += 1;
                        }
                    }
                    _ => {
                        self.db_loads += 1;
                        let k = self.list_key(f, self.cv);
                        let ttl = LIST_TTL_S.to_string();
                        let v = self.value();
                        let dl = self.arrival(io) + ttl_ms;
                        self.track(k.clone(), Kind::Catalog(self.cv), dl);
                        self.send(io, READER, cmd(&["SET", &k, &v, "EX", &ttl]), Purpose::Fill);
                    }
                }
            }
            Purpose::Known => {
                self.reads += 1;
                let Some(Reply::Array(a)) = reply else { return };
                for (i, r) in a.iter().enumerate() {
                    if *r == Reply::Nil {
                        self.db_loads += 1;
                        let (k, ttl) = KNOWN[i];
                        let dl = self.arrival(io) + ttl * 1_000;
                        self.track(k.to_string(), Kind::Known, dl);
                        let v = self.value();
                        let c = cmd(&["SET", k, &v, "EX", &ttl.to_string()]);
                        self.send(io, READER, c, Purpose::Fill);
                    } else if r.as_bulk() != Some(self.value().as_bytes()) {
                        self.stale += 1;
                    }
                }
            }
            Purpose::McVersion(s) => {
                let (sv, cv) = match (self.design(), reply) {
                    (Some(Design::Both), Some(Reply::Array(a))) => (
                        a.first().and_then(parse_int).unwrap_or(SV0),
                        a.get(1).and_then(parse_int).unwrap_or(CV0),
                    ),
                    (Some(Design::Course), Some(r)) => (0, parse_int(&r).unwrap_or(CV0)),
                    (_, Some(r)) => (parse_int(&r).unwrap_or(SV0), 0),
                    _ => (SV0, CV0),
                };
                let k = self.mc_key(s, sv, cv);
                self.pending_mc.insert(s, (sv, cv));
                self.send(io, READER, cmd(&["GET", &k]), Purpose::McList(s));
            }
            Purpose::McList(s) => {
                self.reads += 1;
                match reply {
                    Some(Reply::Bulk(b)) => {
                        if b != self.mc_value(s).as_bytes() {
                            self.stale += 1;
                            self.effects[self.phase].sample_stale += 1;
                            if s == 0 {
                                self.own_stale[self.phase] += 1;
                            }
                        }
                    }
                    _ => {
                        self.effects[self.phase].sample_loads += 1;
                        if s == 0 {
                            self.own_loads[self.phase] += 1;
                        }
                        self.db_loads += 1;
                        let (sv, cv) = self.pending_mc.get(&s).copied().unwrap_or((SV0, CV0));
                        let k = self.mc_key(s, sv, cv);
                        let dl = self.arrival(io) + ttl_ms;
                        self.track(k.clone(), Kind::MyCourses { s, sv, cv }, dl);
                        let v = self.mc_value(s);
                        let ttl = LIST_TTL_S.to_string();
                        self.send(io, READER, cmd(&["SET", &k, &v, "EX", &ttl]), Purpose::Fill);
                    }
                }
            }
        }
    }

    /// Whether tracked key `k` is named with the versions `sv` (of its student) and `cv`.
    fn named_with(&self, k: &Tracked, sv: &[i64], cv: i64) -> bool {
        match k.kind {
            Kind::Catalog(v) => v == cv,
            Kind::MyCourses {
                s,
                sv: ksv,
                cv: kcv,
            } => {
                let d = self.design();
                (d == Some(Design::Course) || ksv == sv[s as usize])
                    && (d == Some(Design::Student) || kcv == cv)
            }
            Kind::Known => true,
        }
    }

    /// The keys a change of versions (from `sv0`, `cv0` to the model's) just made
    /// unreachable: alive in `sim`, named with the old versions and not with the new — the
    /// changed student's own, and the others.
    fn orphaned_now(&self, sim: &SimRedis, sv0: &[i64], cv0: i64) -> (u32, u32) {
        let two = matches!(self.way, Way::TwoVersions(_));
        let (mut own, mut others) = (0, 0);
        for k in &self.keys {
            let counts = match k.kind {
                Kind::Catalog(_) => !two,
                Kind::MyCourses { .. } => two,
                Kind::Known => false,
            };
            if counts
                && self.named_with(k, sv0, cv0)
                && !self.named_with(k, &self.sv, self.cv)
                && sim.peek_string(k.name.as_bytes()).is_some()
            {
                match k.kind {
                    Kind::MyCourses { s: 0, .. } => own += 1,
                    _ => others += 1,
                }
            }
        }
        (own, others)
    }
}

impl Model for Inval {
    type Timer = Tick;

    fn on_timer(&mut self, t: Tick, io: &mut Io<Tick>) {
        match t {
            Tick::Change => self.change(io),
            Tick::Edit => self.edit(io),
            Tick::Write => {
                if !self.walk_on || self.writes >= MAX_WRITES {
                    return;
                }
                let f = self.p.lists + self.writes;
                self.writes += 1;
                let k = self.list_key(f, CV0);
                let dl = self.arrival(io) + LIST_TTL_S * 1_000;
                self.track(k.clone(), Kind::Catalog(CV0), dl);
                // A request that read the database before the edit fills its list now.
                let ttl = LIST_TTL_S.to_string();
                self.send(
                    io,
                    WRITER,
                    cmd(&["SET", &k, "rev1", "EX", &ttl]),
                    Purpose::Write(f),
                );
                io.after(self.p.write_ms, Tick::Write);
            }
            Tick::CatRead(f) => {
                self.send(
                    io,
                    READER,
                    cmd(&["GET", CATALOG_VERSION]),
                    Purpose::CatVersion(f),
                );
            }
            Tick::KnownRead => {
                let mut c = cmd(&["MGET"]);
                c.extend(KNOWN.iter().map(|(k, _)| k.as_bytes().to_vec()));
                self.send(io, READER, c, Purpose::Known);
            }
            Tick::McRead(s) => {
                let c = match self.design() {
                    Some(Design::Course) => cmd(&["GET", CATALOG_VERSION]),
                    Some(Design::Student) => cmd(&["GET", &Self::sv_key(s)]),
                    _ => cmd(&["MGET", &Self::sv_key(s), CATALOG_VERSION]),
                };
                self.send(io, READER, c, Purpose::McVersion(s));
            }
        }
    }

    fn on_reply(&mut self, op: OpId, _actor: ActorId, outcome: Outcome, io: &mut Io<Tick>) {
        // A command its client gave up on may still run: keep what it was for.
        let why = if outcome == Outcome::TimedOut {
            self.ops.get(&op).copied()
        } else {
            self.ops.remove(&op)
        };
        let Some(why) = why else {
            return;
        };
        let reply = match outcome {
            Outcome::Reply(r) => Some(r),
            Outcome::Refused | Outcome::TimedOut => None,
        };
        self.on_result(why, reply, io);
    }

    fn on_ran(
        &mut self,
        op: OpId,
        _actor: ActorId,
        ran: Ran<'_>,
        sim: Option<&SimRedis>,
        _io: &mut Io<Tick>,
    ) {
        let (Some(sim), Ran::Replied(r), Some(&why)) = (sim, ran, self.ops.get(&op)) else {
            return;
        };
        let n = match r.as_tree() {
            Some(t) => parse_int(t),
            None => None,
        };
        match why {
            Purpose::Del | Purpose::ScanDel => self.unreachable += n.unwrap_or(0) as u32,
            Purpose::Scan if self.scan_calls == 1 => {
                self.walked = sim.dbsize() as u32;
            }
            Purpose::Write(f) if self.walk_on => {
                self.written_during.push(f);
                self.walked += 1;
            }
            Purpose::Incr => {
                let v = n.unwrap_or(0);
                let (sv0, cv0) = (self.sv.clone(), self.cv);
                match self.way {
                    Way::TwoVersions(Design::Both | Design::Student) if self.phase == 0 => {
                        self.sv[0] = v;
                    }
                    _ => self.cv = v,
                }
                let (own, others) = self.orphaned_now(sim, &sv0, cv0);
                match self.way {
                    Way::TwoVersions(_) => {
                        let e = &mut self.effects[self.phase];
                        e.own_unreachable = own;
                        e.others_unreachable = others;
                    }
                    _ => self.unreachable = own + others,
                }
            }
            _ => {}
        }
        // The walk's last command ran: which of the keys written meanwhile are still there.
        if matches!(why, Purpose::Scan | Purpose::ScanDel) && self.walk_on {
            let last = match why {
                Purpose::Scan => {
                    let empty = matches!(r.as_tree(), Some(Reply::Array(a))
                        if matches!(a.get(1), Some(Reply::Array(k)) if k.is_empty()));
                    let zero = matches!(r.as_tree(), Some(Reply::Array(a))
                        if a.first().and_then(Reply::as_bulk) == Some(b"0"));
                    empty && zero
                }
                _ => self.walk_cursor == "0",
            };
            if last {
                self.missed = self
                    .written_during
                    .iter()
                    .filter(|&&f| sim.peek_string(self.list_key(f, CV0).as_bytes()).is_some())
                    .count() as u32;
            }
        }
    }

    fn on_logged(&mut self, _op: OpId, actor: ActorId, c: &Command, what: Logged<'_>, at_ms: u64) {
        self.commands += 1;
        if self.log.len() >= LOG_MAX {
            return;
        }
        let reply = match what {
            Logged::Reply(r) => Ok(r.to_reply()),
            Logged::Refused => Err(NoReply::Refused),
            Logged::TimedOut(ms) => Err(NoReply::TimedOut(ms)),
        };
        let mut line = CmdLine::new(at_ms, self.actor_name(actor), c, reply);
        line.cmd = words(c);
        self.log.push(line);
    }

    fn actor_name(&self, actor: ActorId) -> String {
        match actor {
            APP => "app",
            STALLED => "app·2",
            WRITER => "fill",
            _ => "read",
        }
        .into()
    }
}
