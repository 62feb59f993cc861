//! The actors of one action as one [`Model`] on the world engine, the keyspace they share,
//! and the run that steps every action and looks at the keyspace once a second.

use super::result::{ActionRun, DesignRun, Effect, InvalResult, Sample, LOG_MAX};
use super::{InvalParams, CATALOG_PATTERN, CATALOG_VERSION, CV0, LIST_TTL_S, SAMPLE, SV0};
use crate::labs::lab::Run;
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::scenario::Scenario;
use crate::redis::{Reply, SimRedis};
use crate::rng::Mulberry32;
use crate::world::{
    cmd, ActorId, Backend, Command, Hop, Io, Logged, Model, OpId, Outcome, Ran, World,
};
use std::collections::BTreeMap;

/// One action (and, for two versions, the design of the my-courses key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// `DEL` of the known keys, all at once.
    Del,
    /// `SCAN … MATCH` + `DEL` of each page.
    ScanDel,
    /// `INCR` of the catalog's version.
    Version,
    /// A purchase, then a course edit, with my-courses keys of this design.
    TwoVersions(Design),
}

/// Which versions the my-courses key's name carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// The catalog's (`cv`) only.
    Course,
    /// The student's (`sv`) only.
    Student,
    /// Both.
    Both,
}

impl Design {
    /// The id the output uses.
    pub fn id(self) -> &'static str {
        match self {
            Design::Course => "course",
            Design::Student => "student",
            Design::Both => "both",
        }
    }
}

/// The app's connection (the invalidation, the reads).
const APP: ActorId = 0;
/// The bulk DEL's stalled connection.
const STALLED: ActorId = 1;
/// Requests filling list keys while the walk runs.
const WRITER: ActorId = 2;
/// The requests after the change.
const READER: ActorId = 3;

/// The change is made at this virtual time, ms.
pub const T_CHANGE: u64 = 1_000;
/// Two versions: the admin's course edit, ms.
pub const T_EDIT: u64 = 12_000;
/// The stalled connection's hop each way, ms, and its client's timeout.
pub const STALL_MS: u64 = 250;
/// See [`STALL_MS`].
pub const TIMEOUT_MS: u64 = 100;
/// The most list keys the requests write while the walk runs.
pub const MAX_WRITES: u32 = 500;
/// Reads after a change are spread over this many ms.
const READ_SPREAD: u64 = 10_000;

/// The four known keys of one student (`a91f…`) and one course (`c47b…`, context `e22d…`),
/// with their TTLs (s).
pub const KNOWN: [(&str, u64); 4] = [
    ("cache:auth:user:v1:student:a91f", 60),
    ("cache:authz:v1:course-student:a91f:c47b", 120),
    ("cache:authz:v1:course-context:e22d", 120),
    ("cache:socket:restriction:v1:a91f:CHAT", 60),
];

const PROGS: [&str; 3] = ["frb", "acad", "skill"];
const HOSTS: [&str; 2] = ["web", "app"];

/// A key the model wrote (or the keyspace started with) and watches.
#[derive(Clone, Debug)]
struct Tracked {
    name: String,
    kind: Kind,
    /// When its TTL runs out, virtual ms.
    deadline: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Known,
    /// A catalog list of this version.
    Catalog(i64),
    /// A my-courses list of student `s` with these versions (0: not in the name).
    MyCourses { s: u32, sv: i64, cv: i64 },
}

/// What a command in flight is for.
#[derive(Clone, Copy, Debug)]
enum Purpose {
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

#[derive(Clone, Copy, Debug)]
pub enum Tick {
    Change,
    Write,
    CatRead(u32),
    KnownRead,
    McRead(u32),
    Edit,
}

/// Every actor of one action and what they counted.
pub struct Inval {
    way: Way,
    p: InvalParams,
    rng: Mulberry32,
    mask: u32,
    keys: Vec<Tracked>,
    /// Index of each tracked key by name.
    by_name: BTreeMap<String, usize>,
    ops: BTreeMap<OpId, Purpose>,
    log: Vec<CmdLine>,
    commands: u32,
    // The invalidation.
    pending: u32,
    done_ms: Option<u64>,
    unreachable: u32,
    round_trips: u32,
    scan_calls: u32,
    walked: u32,
    walk_on: bool,
    walk_cursor: String,
    writes: u32,
    written_during: Vec<u32>,
    missed: u32,
    fulfilled: u32,
    rejected: u32,
    // The data behind the cache: its revision (the change makes it 2).
    course_rev: u32,
    enrol_rev: Vec<u32>,
    cv: i64,
    sv: Vec<i64>,
    // The reads after.
    reads: u32,
    db_loads: u32,
    stale: u32,
    /// Two versions: the phase (0: purchase, 1: edit) and what each did.
    phase: usize,
    effects: [Effect; 2],
    own_loads: [u32; 2],
    own_stale: [u32; 2],
    pending_mc: BTreeMap<u32, (i64, i64)>,
    /// Deadlines of the other keys (nobody deletes them).
    others: Vec<u64>,
}

fn parse_int(r: &Reply) -> Option<i64> {
    match r {
        Reply::Integer(n) => Some(*n),
        Reply::Bulk(b) => std::str::from_utf8(b).ok()?.parse().ok(),
        _ => None,
    }
}

fn words(c: &Command) -> Vec<String> {
    c.iter()
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

impl Inval {
    fn new(way: Way, p: &InvalParams) -> Self {
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
    fn filter(&self, f: u32) -> String {
        let h = (f ^ self.mask) & 0xffff;
        format!(
            "cache:course-catalog:v1:list:{}:{}:{h:04x}",
            PROGS[(f % 3) as usize],
            HOSTS[((f / 3) % 2) as usize]
        )
    }

    fn list_key(&self, f: u32, v: i64) -> String {
        format!("{}:v{v}", self.filter(f))
    }

    fn student(s: u32) -> String {
        if s == 0 {
            "a91f".into()
        } else {
            format!("s{s:03}")
        }
    }

    fn sv_key(s: u32) -> String {
        format!("cache:student-my-courses:v1:version:{}", Self::student(s))
    }

    fn design(&self) -> Option<Design> {
        match self.way {
            Way::TwoVersions(d) => Some(d),
            _ => None,
        }
    }

    fn mc_key(&self, s: u32, sv: i64, cv: i64) -> String {
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

    fn track(&mut self, name: String, kind: Kind, deadline: u64) {
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
                    Some(Reply::Array(k)) => {
                        k.iter().filter_map(|x| x.as_bulk().map(<[u8]>::to_vec)).collect()
                    }
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
            Kind::MyCourses { s, sv: ksv, cv: kcv } => {
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
                self.send(io, WRITER, cmd(&["SET", &k, "rev1", "EX", &ttl]), Purpose::Write(f));
                io.after(self.p.write_ms, Tick::Write);
            }
            Tick::CatRead(f) => {
                self.send(io, READER, cmd(&["GET", CATALOG_VERSION]), Purpose::CatVersion(f));
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

    fn on_logged(
        &mut self,
        _op: OpId,
        actor: ActorId,
        c: &Command,
        what: Logged<'_>,
        at_ms: u64,
    ) {
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

/// One action as a [`Scenario`] (on any backend: the differential test runs it on a real
/// Redis).
pub struct InvalScenario {
    way: Way,
    p: InvalParams,
}

/// Action `way` of `p` as a [`Scenario`].
pub fn scenario(p: &InvalParams, way: Way) -> InvalScenario {
    InvalScenario { way, p: p.clone() }
}

/// The keyspace before the change, written at time 0 (not logged): the catalog's version
/// and its lists (each with what is left of its 30 s), the four known keys, the other keys
/// and, for two versions, the sample's versions and my-courses lists.
fn prefill<B: Backend>(backend: &mut B, m: &mut Inval) {
    let put = |backend: &mut B, c: Command| {
        backend.send(0, usize::MAX, 0, &c);
    };
    put(backend, cmd(&["SET", CATALOG_VERSION, &CV0.to_string()]));
    for f in 0..m.p.lists {
        let left = 1_000 + u64::from(m.rng.below(29_001));
        let k = m.list_key(f, CV0);
        put(backend, cmd(&["SET", &k, "rev1", "PX", &left.to_string()]));
        m.track(k, Kind::Catalog(CV0), left);
    }
    for (k, ttl) in KNOWN {
        put(backend, cmd(&["SET", k, "rev1", "EX", &ttl.to_string()]));
        m.track(k.to_string(), Kind::Known, ttl * 1_000);
    }
    for i in 0..m.p.others {
        let (k, ttl) = match i % 3 {
            0 => (format!("cache:auth:user:v1:student:u{i:05}"), 60),
            1 => (format!("cache:authz:v1:course-student:u{i:05}:c47b"), 120),
            _ => (format!("cache:live-class:v1:list:b{i:05}"), 120),
        };
        put(backend, cmd(&["SET", &k, "1", "EX", &ttl.to_string()]));
        m.others.push(ttl * 1_000);
    }
    if let Some(d) = m.design() {
        for s in 0..SAMPLE {
            if d != Design::Course {
                put(backend, cmd(&["SET", &Inval::sv_key(s), &SV0.to_string()]));
            }
            let k = m.mc_key(s, SV0, CV0);
            let ttl = LIST_TTL_S.to_string();
            put(backend, cmd(&["SET", &k, "e1:c1", "EX", &ttl]));
            m.track(
                k,
                Kind::MyCourses {
                    s,
                    sv: SV0,
                    cv: CV0,
                },
                LIST_TTL_S * 1_000,
            );
        }
    }
}

impl Scenario for InvalScenario {
    type Model = Inval;
    type Output = ActionRun;

    fn world<B: Backend>(&mut self, mut backend: B, _live: bool) -> World<B, Inval> {
        let mut model = Inval::new(self.way, &self.p);
        prefill(&mut backend, &mut model);
        let mut world = World::with_model(self.p.seed, backend, model);
        world.set_trace(false);
        let hop = Hop {
            to_redis_ms: self.p.rtt / 2,
            from_redis_ms: self.p.rtt - self.p.rtt / 2,
            jitter_ms: 0,
        };
        let two = matches!(self.way, Way::TwoVersions(_));
        world.start(|_, io| {
            for a in [APP, WRITER, READER] {
                io.set_hop(a, hop);
            }
            io.set_hop(STALLED, Hop::symmetric(STALL_MS));
            io.at(T_CHANGE, Tick::Change);
            if two {
                io.at(T_EDIT, Tick::Edit);
            }
        });
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, Inval>) -> f64 {
        (world.now_ms() as f64 / 40_000.0).min(0.99)
    }

    fn output<B: Backend>(&self, world: &World<B, Inval>, _live: Option<&[u32]>) -> ActionRun {
        action_run(self.way, world.model(), Vec::new())
    }
}

/// The keyspace as `sim` holds it at `at_ms` (its clock already there).
fn look(m: &Inval, sim: &SimRedis, at_ms: u64) -> Sample {
    let int = |k: &str| {
        sim.peek_string(k.as_bytes())
            .and_then(|(v, _)| std::str::from_utf8(v).ok()?.parse::<i64>().ok())
    };
    let cv = int(CATALOG_VERSION).unwrap_or(CV0);
    let mut s = Sample {
        at_ms,
        others: m.others.iter().filter(|&&d| d > at_ms).count() as u32,
        ..Sample::default()
    };
    let design = m.design();
    for k in &m.keys {
        let alive = sim.peek_string(k.name.as_bytes()).is_some();
        match k.kind {
            Kind::Known => s.known += u32::from(alive),
            Kind::Catalog(v) => match (alive, v == cv) {
                (true, true) => s.reachable += 1,
                (true, false) => s.orphaned += 1,
                (false, _) if k.deadline <= at_ms => s.expired += 1,
                (false, _) => s.deleted += 1,
            },
            Kind::MyCourses { s: st, sv, cv: kcv } => {
                if !alive {
                    continue;
                }
                let sv_ok = design == Some(Design::Course)
                    || int(&Inval::sv_key(st)).unwrap_or(SV0) == sv;
                let cv_ok = design == Some(Design::Student) || kcv == cv;
                if sv_ok && cv_ok {
                    s.mc_reachable += 1;
                } else {
                    s.mc_orphaned += 1;
                }
            }
        }
    }
    s
}

fn action_id(way: Way) -> &'static str {
    match way {
        Way::Del => "del",
        Way::ScanDel => "scan-del",
        Way::Version => "version",
        Way::TwoVersions(_) => "two-versions",
    }
}

fn action_run(way: Way, m: &Inval, samples: Vec<Sample>) -> ActionRun {
    ActionRun {
        action: action_id(way).into(),
        log: m.log.clone(),
        commands: m.commands,
        samples,
        start_ms: T_CHANGE,
        done_ms: m.done_ms.unwrap_or(T_CHANGE),
        unreachable: match way {
            Way::TwoVersions(_) => m.effects[0].own_unreachable + m.effects[0].others_unreachable,
            _ => m.unreachable,
        },
        round_trips: m.round_trips,
        scan_calls: m.scan_calls,
        walked: m.walked,
        written_during: m.written_during.len() as u32,
        missed: m.missed,
        fulfilled: m.fulfilled,
        rejected: m.rejected,
        reads: m.reads,
        db_loads: m.db_loads,
        stale_reads: m.stale,
    }
}

/// Sample figures scaled to `viewers`: the changed student's own, and the other students'
/// share of the rest.
fn scale(own: u32, others: u32, viewers: u64) -> u64 {
    let rest = u64::from(others) * (viewers - 1);
    u64::from(own) + (rest + u64::from(SAMPLE - 1) / 2) / u64::from(SAMPLE - 1)
}

fn design_run(d: Design, m: &Inval, p: &InvalParams) -> DesignRun {
    let eff = |i: usize| {
        let mut e = m.effects[i];
        e.unreachable = scale(e.own_unreachable, e.others_unreachable, p.viewers);
        e.db_loads = scale(
            m.own_loads[i],
            e.sample_loads - m.own_loads[i],
            p.viewers,
        );
        e.stale_reads = scale(m.own_stale[i], e.sample_stale - m.own_stale[i], p.viewers);
        e
    };
    DesignRun {
        design: d.id().into(),
        key: m.mc_key(0, SV0, CV0),
        purchase: eff(0),
        edit: eff(1),
        read_trips: 2,
    }
}

/// Events per unit of work: a SCAN over the largest keyspace costs about half a millisecond
/// natively.
const EVENTS: usize = 8;

/// The ways a run steps through: the four actions, two versions in its three designs (the
/// `both` one is the action's).
const WAYS: [Way; 6] = [
    Way::Del,
    Way::ScanDel,
    Way::Version,
    Way::TwoVersions(Design::Both),
    Way::TwoVersions(Design::Course),
    Way::TwoVersions(Design::Student),
];

struct Stepper {
    way: Way,
    world: World<SimRedis, Inval>,
    next_sample: u64,
    samples: Vec<Sample>,
}

impl Stepper {
    fn new(p: &InvalParams, way: Way) -> Self {
        let mut sc = scenario(p, way);
        let world = sc.world(SimRedis::new(p.seed).with_named_scripts(), false);
        Stepper {
            way,
            world,
            next_sample: 0,
            samples: Vec::new(),
        }
    }

    fn sample(&mut self) {
        let t = self.next_sample;
        SimRedis::advance_to(self.world.backend_mut(), t);
        let s = look(self.world.model(), self.world.backend(), t);
        self.samples.push(s);
        self.next_sample += 1_000;
    }

    /// Up to [`EVENTS`] events (and the samples due); true when over.
    fn steps(&mut self) -> bool {
        for _ in 0..EVENTS {
            match self.world.next_at() {
                Some(t) if t <= self.next_sample => {
                    self.world.step();
                }
                Some(_) => self.sample(),
                None => {
                    let m = self.world.model();
                    let end = m.done_ms.unwrap_or(T_CHANGE) + LIST_TTL_S * 1_000 + 1_000;
                    let end = end.max(self.world.now_ms() + 1_000);
                    if self.next_sample > end {
                        return true;
                    }
                    self.sample();
                }
            }
        }
        false
    }
}

/// The lab's run: every way, a few events at a time.
pub struct InvalRun {
    p: InvalParams,
    i: usize,
    cur: Option<Stepper>,
    actions: Vec<ActionRun>,
    designs: Vec<DesignRun>,
}

impl InvalRun {
    /// The run of `p` (nothing done yet).
    pub fn new(p: &InvalParams) -> Self {
        InvalRun {
            p: p.clone(),
            i: 0,
            cur: None,
            actions: Vec::new(),
            designs: Vec::new(),
        }
    }

    fn finish_way(&mut self, st: Stepper) {
        let m = st.world.model();
        if let Way::TwoVersions(d) = st.way {
            self.designs.push(design_run(d, m, &self.p));
            if d != Design::Both {
                return;
            }
        }
        self.actions.push(action_run(st.way, m, st.samples));
    }
}

impl Run for InvalRun {
    type Part = ();
    type Output = InvalResult;

    fn step(&mut self) -> Option<()> {
        if self.i >= WAYS.len() {
            return None;
        }
        let st = self
            .cur
            .get_or_insert_with(|| Stepper::new(&self.p, WAYS[self.i]));
        if st.steps() {
            let st = self.cur.take().expect("running");
            self.finish_way(st);
            self.i += 1;
        }
        None
    }

    fn is_done(&self) -> bool {
        self.i >= WAYS.len()
    }

    fn progress(&self) -> f64 {
        let within = self
            .cur
            .as_ref()
            .map_or(0.0, |s| (s.world.now_ms() as f64 / 45_000.0).min(0.95));
        (self.i as f64 + within) / WAYS.len() as f64
    }

    fn output(&mut self) -> InvalResult {
        // The designs in the table's order: course only, student only, both.
        let mut designs = std::mem::take(&mut self.designs);
        designs.sort_by_key(|d| ["course", "student", "both"].iter().position(|x| *x == d.design));
        InvalResult {
            params: self.p.clone(),
            actions: std::mem::take(&mut self.actions),
            designs,
        }
    }
}

/// Every action of `p`, run to the end.
pub fn run(p: &InvalParams) -> InvalResult {
    let mut r = InvalRun::new(p);
    while !r.is_done() {
        r.step();
    }
    r.output()
}

/// The table `labsim invalidation` prints.
pub fn text(r: &InvalResult) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} catalog lists (v{CV0}) among {} other keys; SCAN COUNT {}, round trip {} ms, \
         {} viewers\n\n",
        p.lists, p.others, p.count, p.rtt, p.viewers
    );
    out.push_str(&format!(
        "{:<13} {:>11} {:>6} {:>6} {:>7} {:>8} {:>7} {:>6} {:>8} {:>6}\n",
        "action", "unreachable", "trips", "scans", "walked", "written", "missed", "took", "loads",
        "stale"
    ));
    for a in &r.actions {
        out.push_str(&format!(
            "{:<13} {:>11} {:>6} {:>6} {:>7} {:>8} {:>7} {:>3} ms {:>8} {:>6}\n",
            a.action,
            a.unreachable,
            a.round_trips,
            a.scan_calls,
            a.walked,
            a.written_during,
            a.missed,
            a.done_ms - a.start_ms,
            a.db_loads,
            a.stale_reads
        ));
    }
    if let Some(d) = r.action("del") {
        out.push_str(&format!(
            "\ndel: allSettled {} fulfilled, {} rejected (timed out after {TIMEOUT_MS} ms)\n",
            d.fulfilled, d.rejected
        ));
    }
    out.push_str(&format!(
        "\ntwo versions, scaled to {} viewers (sample of {SAMPLE}):\n{:<8} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
        p.viewers, "design", "purchase:unr.", "purchase:loads", "edit:unr.", "edit:loads", "edit:stale"
    ));
    for d in &r.designs {
        out.push_str(&format!(
            "{:<8} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
            d.design,
            d.purchase.unreachable,
            d.purchase.db_loads,
            d.edit.unreachable,
            d.edit.db_loads,
            d.edit.stale_reads
        ));
    }
    out
}
