//! The cache-engine lab (production deck, slides 4–6 and 19): API instances reading one hot
//! key through the envelope cache, with the four layers against a stampede, and Redis healthy,
//! slow or down — every command a real SimRedis command, in virtual time.
//!
//! * The envelope `{"version":2,"freshUntil":<ms>,"value":…}` is written with
//!   `SET key <json> PX <(fresh + stale) ± 10%>`. A read is FRESH (answered at once), STALE
//!   (the old value is answered and a background refresh starts), or a MISS (loaded). A
//!   version mismatch is purged with `DEL`; an entry that does not parse is deleted and counts
//!   as a miss.
//! * The layers, each switchable: singleflight inside an instance (later misses join the
//!   first one's flight); a Redis lock across instances (`SET lock:<key> <token> NX PX
//!   <lockTtl>`); the others polling the cache every 40–100 ms (seeded) until the wait runs
//!   out; then a rescue lock, then an error; a heartbeat every lockTtl/3 while the loader runs
//!   (the token-checked `extend` script, i.e. `PEXPIRE` if the lock is still ours); a second
//!   cache read after taking the lock; release with the token-checked `release` script.
//! * Redis slow (each reply 800–2400 ms late): the client gives up after 1500 ms, retries once,
//!   then goes to the database. Redis down (connection refused): straight to the database,
//!   through the instance's singleflight when it is on (one query per instance at a time).
//!
//! Clients: `concurrent` users, each sending a request to a seeded random instance, waiting
//! for the answer, thinking 100–300 ms and sending the next, until `requests` were sent. Each
//! hop to Redis takes 1–2 ms (seeded). The loader (Postgres) takes `loader` ms per query.
//!
//! Why not [`crate::world::World`]: a World actor has one command or sleep outstanding and no
//! timeout on a command, while an API instance serves many requests at once and gives up on a
//! slow Redis after 1500 ms. The engine here keeps the World's rules — an event queue ordered
//! by (time, insertion sequence), per-actor seeded generators, the commands kept apart from
//! who answers them (any [`Backend`]; [`SimRedis`] here) — and logs every command with its
//! reply. A run is a pure function of its config; [`CacheRun`] steps it one event at a time
//! and ends exactly where [`run`] ends.

use super::lab::{erase, no_rules, AnyRun, CliSpec, Job, Json, Lab, LabInfo, LiveDriver, Run};
use super::params::{choice, int, seed, Field, Params, ON_OFF};
use crate::cli::{Args, CliError};
use crate::redis::{scripts, Reply, SimRedis};
use crate::rng::Mulberry32;
use crate::world::{cmd, show_cmd, Backend, Command};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The cached key.
pub const KEY: &str = "cache:course-catalog";
/// Its lock.
pub const LOCK: &str = "lock:cache:course-catalog";
/// The envelope version the code writes.
pub const VERSION: u32 = 2;
/// The cache client's command timeout, ms.
pub const TIMEOUT_MS: u64 = 1500;
/// Redis' extra reply delay when slow: `SLOW_MS.0..=SLOW_MS.1` ms.
pub const SLOW_MS: (u64, u64) = (800, 2400);
/// A client's think time between requests, ms.
pub const THINK_MS: (u64, u64) = (100, 300);
/// The gap between two polls of a waiter, ms.
pub const POLL_MS: (u64, u64) = (40, 100);

/// Redis' health.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Health {
    /// Answers in a millisecond or two.
    Healthy,
    /// Answers 800–2400 ms late.
    Slow,
    /// Refuses connections.
    Down,
}

impl Health {
    /// Parameter word.
    pub fn name(self) -> &'static str {
        match self {
            Health::Healthy => "healthy",
            Health::Slow => "slow",
            Health::Down => "down",
        }
    }
    /// From its parameter word (anything else is `healthy`).
    pub fn parse(s: &str) -> Self {
        match s {
            "slow" => Health::Slow,
            "down" => Health::Down,
            _ => Health::Healthy,
        }
    }
}

/// What is in Redis under the key when the run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Start {
    /// Nothing (a cold cache, or the entry just expired).
    Empty,
    /// A fresh entry, fresh for `fresh` ms more.
    Fresh,
    /// An entry past its `freshUntil`, alive for `stale` ms more.
    Stale,
    /// An entry written by the previous version of the code (`version: 1`).
    OldVersion,
    /// A half-written entry that does not parse.
    Corrupt,
}

impl Start {
    /// Parameter word.
    pub fn name(self) -> &'static str {
        match self {
            Start::Empty => "empty",
            Start::Fresh => "fresh",
            Start::Stale => "stale",
            Start::OldVersion => "old-version",
            Start::Corrupt => "corrupt",
        }
    }
    /// From its parameter word (anything else is `empty`).
    pub fn parse(s: &str) -> Self {
        match s {
            "fresh" => Start::Fresh,
            "stale" => Start::Stale,
            "old-version" => Start::OldVersion,
            "corrupt" => Start::Corrupt,
            _ => Start::Empty,
        }
    }
}

/// The four layers (and their helpers), each on or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// Misses in one instance share one load.
    pub singleflight: bool,
    /// A Redis lock across instances.
    pub lock: bool,
    /// Those who lose the lock poll the cache (off: they load themselves).
    pub poll: bool,
    /// When the wait runs out: one more try for the lock, then an error (off: the error).
    pub rescue: bool,
    /// Extend the lock every lockTtl/3 while loading.
    pub heartbeat: bool,
    /// Read the cache again after taking the lock.
    pub recheck: bool,
}

impl Layers {
    /// Every layer on.
    pub const ALL: Layers = Layers {
        singleflight: true,
        lock: true,
        poll: true,
        rescue: true,
        heartbeat: true,
        recheck: true,
    };
    /// Every layer off.
    pub const NONE: Layers = Layers {
        singleflight: false,
        lock: false,
        poll: false,
        rescue: false,
        heartbeat: false,
        recheck: false,
    };
}

/// One run's setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheConfig {
    /// API instances.
    pub instances: u32,
    /// Users sending requests at once (each waits for its answer before the next).
    pub concurrent: u32,
    /// Requests in all.
    pub requests: u32,
    /// One database load, ms.
    pub loader_ms: u64,
    /// How long an entry is fresh, ms.
    pub fresh_ms: u64,
    /// How long it may be served stale after that, ms.
    pub stale_ms: u64,
    /// The lock's TTL, ms.
    pub lock_ttl_ms: u64,
    /// How long a waiter polls before the rescue lock, ms.
    pub wait_ms: u64,
    /// Which layers are on.
    pub layers: Layers,
    /// Redis' health.
    pub redis: Health,
    /// What is in Redis at the start.
    pub start: Start,
    /// Seed of every random draw.
    pub seed: u32,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            instances: 6,
            concurrent: 40,
            requests: 800,
            loader_ms: 600,
            fresh_ms: 1500,
            stale_ms: 1000,
            lock_ttl_ms: 3000,
            wait_ms: 2000,
            layers: Layers::ALL,
            redis: Health::Healthy,
            start: Start::Empty,
            seed: 6,
        }
    }
}

/// At most this many users send requests at once in a live run: every command goes through
/// the proxy, which takes 200 a second from one connection (the simulation has no such bound).
pub const LIVE_CONCURRENT: u32 = 8;
/// At most this many requests in a live run (a few seconds of real time).
pub const LIVE_REQUESTS: u32 = 120;

impl CacheConfig {
    /// The same run `k` times slower: the loader, the fresh and stale times, the lock's TTL
    /// and the wait multiplied by `k` (the think times, the polls and the network stay as
    /// they are). The simulation of the slowed config is the live run's prediction.
    pub fn slowed(&self, k: u64) -> CacheConfig {
        let k = k.max(1);
        CacheConfig {
            loader_ms: self.loader_ms * k,
            fresh_ms: self.fresh_ms * k,
            stale_ms: self.stale_ms * k,
            lock_ttl_ms: self.lock_ttl_ms * k,
            wait_ms: self.wait_ms * k,
            ..*self
        }
    }

    /// What a live run at time scale `k` runs: at most [`LIVE_CONCURRENT`] users and
    /// [`LIVE_REQUESTS`] requests, slowed `k` times, against a healthy Redis (a slow or
    /// refusing Redis is the simulation's; the real one answers as it does).
    pub fn for_live(&self, k: u64) -> CacheConfig {
        CacheConfig {
            concurrent: self.concurrent.min(LIVE_CONCURRENT),
            requests: self.requests.min(LIVE_REQUESTS),
            redis: Health::Healthy,
            ..self.slowed(k)
        }
    }
}

/// How a request was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Path {
    /// From a fresh entry.
    Fresh,
    /// The stale value, at once (a refresh went on behind it).
    Stale,
    /// Loaded from the database itself, without a lock.
    Miss,
    /// Took the Redis lock (or the rescue lock) and loaded — or found the value on the second
    /// read.
    Lock,
    /// Waited for someone else's load (singleflight or polling).
    Wait,
    /// The wait ran out (and the rescue lock was taken by someone else).
    Error,
    /// Redis failed (timeout twice, or down): straight to the database.
    Fallback,
}

impl Path {
    /// Every path, in column order.
    pub const ALL: [Path; 7] = [
        Path::Fresh,
        Path::Stale,
        Path::Miss,
        Path::Lock,
        Path::Wait,
        Path::Error,
        Path::Fallback,
    ];
    /// Short name (as in the table and the CSS classes).
    pub fn name(self) -> &'static str {
        match self {
            Path::Fresh => "FRESH",
            Path::Stale => "STALE",
            Path::Miss => "MISS",
            Path::Lock => "LOCK",
            Path::Wait => "WAIT",
            Path::Error => "ERROR",
            Path::Fallback => "FALLBACK",
        }
    }
}

/// One request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The instance that served it (0-based).
    pub inst: u32,
    /// Sent, ms.
    pub start: u64,
    /// Answered, ms.
    pub end: u64,
    /// How.
    pub path: Path,
}

/// One database query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// The instance that ran it.
    pub inst: u32,
    /// Started, ms.
    pub start: u64,
    /// Ended, ms.
    pub end: u64,
    /// A background refresh (a STALE answer went before it).
    pub refresh: bool,
}

/// One line of the command log: what an instance sent and what came back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// When Redis executed it (or when the client gave up), ms.
    pub at: u64,
    /// The instance.
    pub inst: u32,
    /// The command, as `redis-cli` echoes it.
    pub cmd: String,
    /// Redis' reply as `redis-cli` prints it, `timeout 1500 ms` or `ECONNREFUSED`.
    pub reply: String,
    /// A live run's round trip to the real Redis, µs (`None` in a simulation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

/// The counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Requests per path, in [`Path::ALL`] order.
    pub paths: [u32; 7],
    /// Database queries.
    pub db: u32,
    /// Most queries running at once.
    pub peak_db: u32,
    /// Sum of response times, ms.
    pub latency_sum: u64,
    /// Longest response time, ms.
    pub latency_max: u64,
    /// Time requests spent not answered from the cache (paths other than FRESH/STALE), ms.
    pub waited: u64,
    /// Redis commands sent (retries included).
    pub commands: u32,
    /// Moments two loads ran at once (0 is the goal).
    pub overlaps: u32,
}

impl Counts {
    /// Requests answered by `p`.
    pub fn path(&self, p: Path) -> u32 {
        self.paths[p as usize]
    }
    /// Requests answered.
    pub fn requests(&self) -> u32 {
        self.paths.iter().sum()
    }
    /// Mean response time, ms.
    pub fn latency_mean(&self) -> f64 {
        let n = self.requests();
        if n == 0 {
            0.0
        } else {
            self.latency_sum as f64 / f64::from(n)
        }
    }
}

/// A finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheResult {
    /// What ran.
    pub config: CacheConfig,
    /// Every request, in the order they were answered.
    pub requests: Vec<Request>,
    /// Every database query, in the order they started.
    pub queries: Vec<Query>,
    /// Every command with its reply, in time order.
    pub log: Vec<LogLine>,
    /// The counters.
    pub counts: Counts,
    /// When the last event happened, ms.
    pub end_ms: u64,
}

impl CacheResult {
    /// The counters of what happened up to `t` ms (requests answered and queries started by
    /// then).
    pub fn counts_at(&self, t: u64) -> Counts {
        let mut c = Counts::default();
        for r in self.requests.iter().filter(|r| r.end <= t) {
            add_request(&mut c, r);
        }
        let qs: Vec<&Query> = self.queries.iter().filter(|q| q.start <= t).collect();
        c.db = qs.len() as u32;
        c.peak_db = peak(qs.iter().map(|q| (q.start, q.end.min(t.max(q.start)))));
        c.commands = self
            .log
            .iter()
            .filter(|l| l.at <= t && !l.reply.starts_with("timeout"))
            .count() as u32;
        c
    }

    /// Database queries running in each of `buckets` equal slices of `0..=end_ms`: the most
    /// at once within the slice.
    pub fn db_series(&self, buckets: usize) -> Vec<u32> {
        let n = buckets.max(1);
        let width = (self.end_ms.max(1) as f64) / n as f64;
        let mut out = vec![0u32; n];
        for (i, slot) in out.iter_mut().enumerate() {
            let a = (i as f64 * width) as u64;
            let b = ((i + 1) as f64 * width) as u64;
            *slot = peak(
                self.queries
                    .iter()
                    .filter(|q| q.start <= b && q.end >= a)
                    .map(|q| (q.start, q.end)),
            );
        }
        out
    }
}

fn add_request(c: &mut Counts, r: &Request) {
    c.paths[r.path as usize] += 1;
    let l = r.end - r.start;
    c.latency_sum += l;
    c.latency_max = c.latency_max.max(l);
    if !matches!(r.path, Path::Fresh | Path::Stale) {
        c.waited += l;
    }
}

/// Most intervals `[start, end)` open at once.
fn peak(iv: impl Iterator<Item = (u64, u64)>) -> u32 {
    let mut ev: Vec<(u64, i32)> = Vec::new();
    for (a, b) in iv {
        ev.push((a, 1));
        ev.push((b.max(a + 1), -1));
    }
    ev.sort_unstable();
    let (mut now, mut best) = (0i32, 0i32);
    for (_, d) in ev {
        now += d;
        best = best.max(now);
    }
    best as u32
}

/// The envelope as the code writes it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    version: u32,
    fresh_until: u64,
    value: String,
}

/// What a read found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    Fresh,
    Stale,
    Nil,
    Mismatch,
    Corrupt,
}

/// The last entry read, parsed and printed once: most reads return the same bytes.
#[derive(Default)]
struct Memo {
    bytes: Vec<u8>,
    /// `None`: it does not parse; else (version, freshUntil).
    parsed: Option<(u32, u64)>,
    shown: String,
}

impl Memo {
    fn remember(&mut self, b: &[u8]) {
        if self.bytes != b || self.shown.is_empty() {
            self.bytes = b.to_vec();
            self.parsed = serde_json::from_slice::<Envelope>(b)
                .ok()
                .map(|e| (e.version, e.fresh_until));
            self.shown = Reply::Bulk(b.to_vec()).to_string();
        }
    }

    fn classify(&mut self, reply: &Reply, now: u64) -> Found {
        let Reply::Bulk(b) = reply else {
            return Found::Nil;
        };
        self.remember(b);
        match self.parsed {
            None => Found::Corrupt,
            Some((v, _)) if v != VERSION => Found::Mismatch,
            Some((_, until)) if now < until => Found::Fresh,
            Some(_) => Found::Stale,
        }
    }

    fn show(&mut self, reply: &Reply) -> String {
        match reply {
            Reply::Bulk(b) => {
                self.remember(b);
                self.shown.clone()
            }
            r => r.to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Read,
    Lock,
    Recheck,
    Loading,
    Write,
    Release,
    Poll,
    PollRead,
    Rescue,
    Fallback,
    Done,
}

#[derive(Debug)]
struct Task {
    inst: usize,
    /// The request it answers (`None`: a background refresh).
    req: Option<usize>,
    phase: Phase,
    token: String,
    locked: bool,
    wait_start: u64,
    /// Heartbeat generation: a beat of an older one is ignored.
    gen: u32,
    /// Leads its instance's flight.
    leads: bool,
    query: usize,
}

#[derive(Debug, Default)]
struct Inst {
    /// The leader task of the instance's flight and the requests waiting on it.
    flight: Option<(usize, Vec<usize>)>,
    refreshing: bool,
}

#[derive(Debug)]
struct Op {
    task: Option<usize>,
    inst: usize,
    cmd: Command,
    retried: bool,
    settled: bool,
    /// Not logged (the starting entry a live run puts in place).
    quiet: bool,
}

#[derive(Debug)]
enum Ev {
    Client(usize),
    Arrive(usize),
    Reply(usize, Option<Reply>),
    Timeout(usize),
    Wake(usize),
    DbDone(usize),
    Beat(usize, u32),
}

#[derive(Debug)]
struct Sched {
    at: u64,
    seq: u64,
    ev: Ev,
}
impl PartialEq for Sched {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Sched {}
impl PartialOrd for Sched {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Sched {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

struct Pending {
    client: usize,
    inst: usize,
    start: u64,
}

/// A run in progress: [`CacheRun::step`] runs one event.
pub struct CacheRun<B: Backend = SimRedis> {
    cfg: CacheConfig,
    redis: B,
    now: u64,
    seq: u64,
    queue: BinaryHeap<Reverse<Sched>>,
    clients: Vec<Mulberry32>,
    inst_rng: Vec<Mulberry32>,
    net: Mulberry32,
    insts: Vec<Inst>,
    tasks: Vec<Task>,
    ops: Vec<Op>,
    pending: Vec<Option<Pending>>,
    sent: u32,
    loading: u32,
    memo: Memo,
    get_shown: String,
    out: CacheResult,
    /// Live: commands go out to a real Redis ([`CacheLive`]) instead of `redis`.
    live: bool,
    /// Live: (op, command) to send now.
    outbox: Vec<(usize, Command)>,
    /// Live: commands sent whose reply has not come.
    waiting: usize,
}

impl CacheRun<SimRedis> {
    /// A run of `cfg` against a fresh SimRedis.
    pub fn new(cfg: CacheConfig) -> Self {
        CacheRun::with_backend(cfg, SimRedis::new(cfg.seed))
    }
}

impl<B: Backend> CacheRun<B> {
    /// A run of `cfg` whose commands `redis` answers (it should start empty).
    pub fn with_backend(cfg: CacheConfig, redis: B) -> Self {
        let s = cfg.seed;
        let stream =
            |i: u32, salt: u32| Mulberry32::new(s ^ salt.wrapping_add(i.wrapping_mul(0x9E37_79B9)));
        let mut r = CacheRun {
            cfg,
            redis,
            now: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            clients: (0..cfg.concurrent)
                .map(|i| stream(i, 0xC11E_0000))
                .collect(),
            inst_rng: (0..cfg.instances).map(|i| stream(i, 0x1A57_0000)).collect(),
            net: Mulberry32::new(s ^ 0x5EED_4E37),
            insts: (0..cfg.instances).map(|_| Inst::default()).collect(),
            tasks: Vec::new(),
            ops: Vec::new(),
            pending: Vec::new(),
            sent: 0,
            loading: 0,
            memo: Memo::default(),
            get_shown: show_cmd(&cmd(&["GET", KEY])),
            out: CacheResult {
                config: cfg,
                requests: Vec::new(),
                queries: Vec::new(),
                log: Vec::new(),
                counts: Counts::default(),
                end_ms: 0,
            },
            live: false,
            outbox: Vec::new(),
            waiting: 0,
        };
        r.seed_entry();
        for c in 0..cfg.concurrent as usize {
            let at = u64::from(r.clients[c].below(21));
            r.schedule(at, Ev::Client(c));
        }
        r
    }

    /// Puts the starting entry in place (at time 0, before any client).
    fn seed_entry(&mut self) {
        let c = self.cfg;
        let (json, px) = match c.start {
            Start::Empty => return,
            Start::Fresh => (envelope(VERSION, c.fresh_ms, 0), c.fresh_ms + c.stale_ms),
            Start::Stale => (envelope(VERSION, 0, 0), c.stale_ms.max(1)),
            Start::OldVersion => (envelope(1, c.fresh_ms, 0), c.fresh_ms + c.stale_ms),
            Start::Corrupt => (
                format!("{{\"version\":{VERSION},\"freshUn"),
                c.fresh_ms + c.stale_ms,
            ),
        };
        let px = px.to_string();
        let cmd = cmd(&["SET", KEY, &json, "PX", &px]);
        if self.live {
            self.ops.push(Op {
                task: None,
                inst: 0,
                cmd,
                retried: false,
                settled: false,
                quiet: true,
            });
            self.transmit(self.ops.len() - 1);
        } else {
            let _ = self.redis.send(0, 0, 0, &cmd);
        }
    }

    fn schedule(&mut self, at: u64, ev: Ev) {
        self.queue.push(Reverse(Sched {
            at,
            seq: self.seq,
            ev,
        }));
        self.seq += 1;
    }

    /// Virtual time, ms.
    pub fn now_ms(&self) -> u64 {
        self.now
    }

    /// Whether nothing is left to run.
    pub fn is_done(&self) -> bool {
        self.queue.is_empty()
    }

    /// How far along: requests answered over requests in all.
    pub fn progress(&self) -> f64 {
        if self.cfg.requests == 0 || self.is_done() {
            1.0
        } else {
            (self.out.requests.len() as f64 / f64::from(self.cfg.requests)).min(0.999)
        }
    }

    /// What happened so far.
    pub fn so_far(&self) -> &CacheResult {
        &self.out
    }

    /// Runs one event; false when nothing was left.
    pub fn step(&mut self) -> bool {
        let Some(Reverse(s)) = self.queue.pop() else {
            return false;
        };
        self.now = self.now.max(s.at);
        self.out.end_ms = self.now;
        match s.ev {
            Ev::Client(c) => self.client(c),
            Ev::Arrive(op) => self.arrive(op),
            Ev::Reply(op, reply) => self.reply(op, reply),
            Ev::Timeout(op) => self.timeout(op),
            Ev::Wake(t) => self.wake(t),
            Ev::DbDone(t) => self.db_done(t),
            Ev::Beat(t, gen) => self.beat(t, gen),
        }
        true
    }

    /// Runs `n` events at most; true when the run is over.
    pub fn steps(&mut self, n: usize) -> bool {
        for _ in 0..n {
            if !self.step() {
                break;
            }
        }
        self.is_done()
    }

    /// Runs to the end and gives the result.
    pub fn finish(mut self) -> CacheResult {
        while self.step() {}
        self.settle_counts();
        self.out
    }

    /// The counters only the whole log and every query give.
    fn settle_counts(&mut self) {
        self.out.counts.commands = self
            .out
            .log
            .iter()
            .filter(|l| !l.reply.starts_with("timeout"))
            .count() as u32;
        self.out.counts.peak_db = peak(self.out.queries.iter().map(|q| (q.start, q.end)));
    }

    // --- clients and requests -------------------------------------------------------------

    fn client(&mut self, c: usize) {
        if self.sent >= self.cfg.requests {
            return;
        }
        self.sent += 1;
        let inst = self.clients[c].below(self.cfg.instances) as usize;
        let req = self.pending.len();
        self.pending.push(Some(Pending {
            client: c,
            inst,
            start: self.now,
        }));
        let t = self.new_task(inst, Some(req));
        self.read(t);
    }

    fn answer(&mut self, req: usize, path: Path) {
        let Some(p) = self.pending[req].take() else {
            return;
        };
        let r = Request {
            inst: p.inst as u32,
            start: p.start,
            end: self.now,
            path,
        };
        add_request(&mut self.out.counts, &r);
        self.out.requests.push(r);
        let (lo, hi) = THINK_MS;
        let think = lo + u64::from(self.clients[p.client].below((hi - lo + 1) as u32));
        self.schedule(self.now + think, Ev::Client(p.client));
    }

    fn new_task(&mut self, inst: usize, req: Option<usize>) -> usize {
        self.tasks.push(Task {
            inst,
            req,
            phase: Phase::Read,
            token: String::new(),
            locked: false,
            wait_start: 0,
            gen: 0,
            leads: false,
            query: usize::MAX,
        });
        self.tasks.len() - 1
    }

    // --- the network and Redis ------------------------------------------------------------

    fn hop(&mut self) -> u64 {
        1 + u64::from(self.net.below(2))
    }

    /// Sends `cmd` for `task` (`None`: fire and forget, the reply is only logged).
    fn send(&mut self, inst: usize, task: Option<usize>, cmd: Command) {
        let op = self.ops.len();
        self.ops.push(Op {
            task,
            inst,
            cmd,
            retried: false,
            settled: false,
            quiet: false,
        });
        self.transmit(op);
    }

    fn transmit(&mut self, op: usize) {
        if self.live {
            // The real network and Redis answer: [`CacheLive::arrived`].
            self.outbox.push((op, self.ops[op].cmd.clone()));
            self.waiting += 1;
            return;
        }
        let d = self.hop();
        self.schedule(self.now + d, Ev::Arrive(op));
        if self.ops[op].task.is_some() && self.cfg.redis != Health::Healthy {
            self.schedule(self.now + TIMEOUT_MS, Ev::Timeout(op));
        }
    }

    fn log(&mut self, inst: usize, cmd: &Command, reply: String) {
        self.log_rtt(inst, cmd, reply, None);
    }

    fn log_rtt(&mut self, inst: usize, cmd: &Command, reply: String, rtt_us: Option<u32>) {
        let shown = if cmd.len() == 2 && cmd[0] == b"GET" && cmd[1] == KEY.as_bytes() {
            self.get_shown.clone()
        } else {
            show_cmd(cmd)
        };
        self.out.log.push(LogLine {
            at: self.now,
            inst: inst as u32,
            cmd: shown,
            reply,
            rtt_us,
        });
    }

    fn arrive(&mut self, op: usize) {
        let inst = self.ops[op].inst;
        let cmd = std::mem::take(&mut self.ops[op].cmd);
        if self.cfg.redis == Health::Down {
            self.log(inst, &cmd, "ECONNREFUSED".into());
            self.ops[op].cmd = cmd;
            let d = self.hop();
            self.schedule(self.now + d, Ev::Reply(op, None));
            return;
        }
        let reply = self.redis.send(self.now, 0, inst as u64 + 1, &cmd);
        let reply = match reply {
            crate::world::Sent::Reply(r) => r,
            _ => Reply::Nil,
        };
        let shown = self.memo.show(&reply);
        self.log(inst, &cmd, shown);
        self.ops[op].cmd = cmd;
        let mut d = self.hop();
        if self.cfg.redis == Health::Slow {
            let (lo, hi) = SLOW_MS;
            d += lo + u64::from(self.net.below((hi - lo + 1) as u32));
        }
        self.schedule(self.now + d, Ev::Reply(op, Some(reply)));
    }

    fn reply(&mut self, op: usize, reply: Option<Reply>) {
        let o = &mut self.ops[op];
        if o.settled {
            return;
        }
        let Some(task) = o.task else {
            o.settled = true;
            return;
        };
        match reply {
            Some(r) => {
                o.settled = true;
                self.on_reply(task, r);
            }
            None => self.failed(op),
        }
    }

    fn timeout(&mut self, op: usize) {
        if self.ops[op].settled {
            return;
        }
        let inst = self.ops[op].inst;
        let cmd = self.ops[op].cmd.clone();
        self.log(inst, &cmd, format!("timeout {TIMEOUT_MS} ms"));
        self.failed(op);
    }

    /// The op got no usable answer: retry once, then the task gives up on Redis.
    fn failed(&mut self, op: usize) {
        let o = &mut self.ops[op];
        o.settled = true;
        let Some(task) = o.task else { return };
        if !o.retried {
            let again = Op {
                task: Some(task),
                inst: o.inst,
                cmd: o.cmd.clone(),
                retried: true,
                settled: false,
                quiet: false,
            };
            self.ops.push(again);
            self.transmit(self.ops.len() - 1);
        } else {
            self.redis_failed(task);
        }
    }

    // --- the engine -----------------------------------------------------------------------

    fn read(&mut self, t: usize) {
        self.tasks[t].phase = Phase::Read;
        let inst = self.tasks[t].inst;
        self.send(inst, Some(t), cmd(&["GET", KEY]));
    }

    fn purge(&mut self, inst: usize) {
        self.send(inst, None, cmd(&["DEL", KEY]));
    }

    fn on_reply(&mut self, t: usize, reply: Reply) {
        let now = self.now;
        let inst = self.tasks[t].inst;
        let layers = self.cfg.layers;
        match self.tasks[t].phase {
            Phase::Read => match self.memo.classify(&reply, now) {
                Found::Fresh => self.end(t, Path::Fresh),
                Found::Stale => {
                    self.end(t, Path::Stale);
                    self.refresh(inst);
                }
                found => {
                    if matches!(found, Found::Mismatch | Found::Corrupt) {
                        self.purge(inst);
                    }
                    self.miss(t);
                }
            },
            Phase::Lock | Phase::Rescue => {
                let rescue = self.tasks[t].phase == Phase::Rescue;
                if reply == Reply::ok() {
                    self.tasks[t].locked = true;
                    if layers.recheck {
                        self.tasks[t].phase = Phase::Recheck;
                        self.send(inst, Some(t), cmd(&["GET", KEY]));
                    } else {
                        self.load(t);
                    }
                } else if self.tasks[t].req.is_none() {
                    // Someone else refreshes: nothing to do.
                    self.end(t, Path::Wait);
                } else if rescue {
                    self.end(t, Path::Error);
                } else if layers.poll {
                    self.tasks[t].wait_start = now;
                    self.poll(t);
                } else {
                    self.load(t);
                }
            }
            Phase::Recheck => match self.memo.classify(&reply, now) {
                Found::Fresh => self.release(t),
                _ => self.load(t),
            },
            Phase::PollRead => match self.memo.classify(&reply, now) {
                Found::Fresh | Found::Stale => self.end(t, Path::Wait),
                _ if now - self.tasks[t].wait_start >= self.cfg.wait_ms => {
                    if layers.rescue {
                        self.take_lock(t, Phase::Rescue);
                    } else {
                        self.end(t, Path::Error);
                    }
                }
                _ => self.poll(t),
            },
            Phase::Write => {
                if self.tasks[t].locked {
                    self.release(t);
                } else {
                    self.end(t, Path::Miss);
                }
            }
            Phase::Release => {
                let p = if self.tasks[t].req.is_some() {
                    Path::Lock
                } else {
                    Path::Miss
                };
                self.end(t, p);
            }
            Phase::Poll | Phase::Loading | Phase::Fallback | Phase::Done => {}
        }
    }

    fn miss(&mut self, t: usize) {
        let inst = self.tasks[t].inst;
        if self.cfg.layers.singleflight {
            if let Some((_, joiners)) = &mut self.insts[inst].flight {
                let req = self.tasks[t].req.expect("a request's task");
                joiners.push(req);
                self.tasks[t].phase = Phase::Done;
                return;
            }
            self.insts[inst].flight = Some((t, Vec::new()));
            self.tasks[t].leads = true;
        }
        if self.cfg.layers.lock {
            self.take_lock(t, Phase::Lock);
        } else {
            self.load(t);
        }
    }

    fn take_lock(&mut self, t: usize, phase: Phase) {
        let inst = self.tasks[t].inst;
        let token = format!("{:08x}", self.inst_rng[inst].next_u32());
        self.tasks[t].token.clone_from(&token);
        self.tasks[t].phase = phase;
        let ttl = self.cfg.lock_ttl_ms.to_string();
        self.send(inst, Some(t), cmd(&["SET", LOCK, &token, "NX", "PX", &ttl]));
    }

    fn poll(&mut self, t: usize) {
        let inst = self.tasks[t].inst;
        self.tasks[t].phase = Phase::Poll;
        let (lo, hi) = POLL_MS;
        let gap = lo + u64::from(self.inst_rng[inst].below((hi - lo + 1) as u32));
        self.schedule(self.now + gap, Ev::Wake(t));
    }

    fn wake(&mut self, t: usize) {
        if self.tasks[t].phase == Phase::Poll {
            self.tasks[t].phase = Phase::PollRead;
            let inst = self.tasks[t].inst;
            self.send(inst, Some(t), cmd(&["GET", KEY]));
        }
    }

    fn refresh(&mut self, inst: usize) {
        if self.cfg.layers.singleflight {
            if self.insts[inst].refreshing {
                return;
            }
            self.insts[inst].refreshing = true;
        }
        let t = self.new_task(inst, None);
        if self.cfg.layers.lock {
            self.take_lock(t, Phase::Lock);
        } else {
            self.load(t);
        }
    }

    fn start_query(&mut self, t: usize) {
        let inst = self.tasks[t].inst;
        if self.loading > 0 {
            self.out.counts.overlaps += 1;
        }
        self.loading += 1;
        self.tasks[t].query = self.out.queries.len();
        self.out.queries.push(Query {
            inst: inst as u32,
            start: self.now,
            end: self.now,
            refresh: self.tasks[t].req.is_none(),
        });
        self.out.counts.db += 1;
        self.schedule(self.now + self.cfg.loader_ms, Ev::DbDone(t));
    }

    fn load(&mut self, t: usize) {
        self.tasks[t].phase = Phase::Loading;
        self.start_query(t);
        if self.tasks[t].locked && self.cfg.layers.heartbeat {
            let gen = self.tasks[t].gen;
            let every = (self.cfg.lock_ttl_ms / 3).max(1);
            self.schedule(self.now + every, Ev::Beat(t, gen));
        }
    }

    fn beat(&mut self, t: usize, gen: u32) {
        let task = &self.tasks[t];
        if task.phase != Phase::Loading || task.gen != gen {
            return;
        }
        let inst = task.inst;
        let ttl = self.cfg.lock_ttl_ms.to_string();
        let c = cmd(&[
            "EVALSHA",
            scripts::EXTEND.sha1,
            "1",
            LOCK,
            &task.token.clone(),
            &ttl,
        ]);
        self.send(inst, None, c);
        let every = (self.cfg.lock_ttl_ms / 3).max(1);
        self.schedule(self.now + every, Ev::Beat(t, gen));
    }

    fn db_done(&mut self, t: usize) {
        self.loading -= 1;
        let q = self.tasks[t].query;
        self.out.queries[q].end = self.now;
        self.tasks[t].gen += 1;
        if self.tasks[t].phase == Phase::Fallback {
            self.end(t, Path::Fallback);
            return;
        }
        let inst = self.tasks[t].inst;
        let c = self.cfg;
        let json = envelope(VERSION, self.now + c.fresh_ms, self.now);
        let base = (c.fresh_ms + c.stale_ms) as f64;
        let u = self.inst_rng[inst].next_f64();
        let px = ((base * (0.9 + 0.2 * u)).round() as u64).max(1).to_string();
        self.tasks[t].phase = Phase::Write;
        self.send(inst, Some(t), cmd(&["SET", KEY, &json, "PX", &px]));
    }

    fn release(&mut self, t: usize) {
        let inst = self.tasks[t].inst;
        self.tasks[t].phase = Phase::Release;
        let token = self.tasks[t].token.clone();
        self.send(
            inst,
            Some(t),
            cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK, &token]),
        );
    }

    /// Redis did not answer (twice): a refresh gives up; a request goes to the database,
    /// through the instance's flight when singleflight is on.
    fn redis_failed(&mut self, t: usize) {
        let (phase, locked, req, inst, leads) = {
            let k = &self.tasks[t];
            (k.phase, k.locked, k.req, k.inst, k.leads)
        };
        match phase {
            Phase::Write | Phase::Release => {
                // Loaded already: answer with what we have.
                let p = if locked { Path::Lock } else { Path::Miss };
                self.end(t, p);
            }
            _ if req.is_none() => self.end(t, Path::Miss),
            _ => {
                if self.cfg.layers.singleflight && !leads {
                    if let Some((_, joiners)) = &mut self.insts[inst].flight {
                        joiners.push(req.expect("a request"));
                        self.tasks[t].phase = Phase::Done;
                        return;
                    }
                    self.insts[inst].flight = Some((t, Vec::new()));
                    self.tasks[t].leads = true;
                }
                self.tasks[t].phase = Phase::Fallback;
                self.start_query(t);
            }
        }
    }

    /// The task is over: answer its request (and its flight's).
    fn end(&mut self, t: usize, path: Path) {
        self.tasks[t].phase = Phase::Done;
        self.tasks[t].gen += 1;
        let inst = self.tasks[t].inst;
        match self.tasks[t].req {
            Some(req) => {
                self.answer(req, path);
                if self.tasks[t].leads {
                    self.tasks[t].leads = false;
                    if let Some((_, joiners)) = self.insts[inst].flight.take() {
                        let jp = if path == Path::Error {
                            Path::Error
                        } else {
                            Path::Wait
                        };
                        for j in joiners {
                            self.answer(j, jp);
                        }
                    }
                }
            }
            None => self.insts[inst].refreshing = false,
        }
    }
}

fn envelope(version: u32, fresh_until: u64, loaded_at: u64) -> String {
    serde_json::to_string(&Envelope {
        version,
        fresh_until,
        value: format!("catalog@{loaded_at}"),
    })
    .expect("plain struct")
}

/// Runs `cfg` to the end.
pub fn run(cfg: &CacheConfig) -> CacheResult {
    CacheRun::new(*cfg).finish()
}

/// The lab's pair: every layer off, and the chosen layers, on the same seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheLab {
    /// Every layer off.
    pub off: CacheResult,
    /// The chosen layers.
    pub on: CacheResult,
}

/// Runs the pair for `cfg` (its layers are the "on" side).
pub fn pair(cfg: &CacheConfig) -> CacheLab {
    CacheLab {
        off: run(&CacheConfig {
            layers: Layers::NONE,
            ..*cfg
        }),
        on: run(cfg),
    }
}

/// The pair run a slice at a time (for the worker).
pub struct PairRun {
    off: Option<CacheRun>,
    on: Option<CacheRun>,
    done_off: Option<CacheResult>,
}

impl PairRun {
    /// Starts both runs of `cfg`.
    pub fn new(cfg: &CacheConfig) -> Self {
        PairRun {
            off: Some(CacheRun::new(CacheConfig {
                layers: Layers::NONE,
                ..*cfg
            })),
            on: Some(CacheRun::new(*cfg)),
            done_off: None,
        }
    }

    /// Runs `n` events; the pair once both are over.
    pub fn step(&mut self, n: usize) -> Option<CacheLab> {
        if let Some(r) = &mut self.off {
            if r.steps(n) {
                self.done_off = self.off.take().map(CacheRun::finish);
            }
            return None;
        }
        let r = self.on.as_mut()?;
        if r.steps(n) {
            let on = self.on.take().map(CacheRun::finish)?;
            return Some(CacheLab {
                off: self.done_off.take()?,
                on,
            });
        }
        None
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        match (&self.off, &self.on) {
            (Some(r), _) => r.progress() / 2.0,
            (None, Some(r)) => 0.5 + r.progress() / 2.0,
            (None, None) => 1.0,
        }
    }
}

/// The same instances against a real Redis, in real time (live mode). Nothing here knows
/// about sockets or clocks: the driver (the simulation worker, a test natively) calls
/// [`CacheLive::advance`] with the milliseconds since the start, sends the commands it
/// returns (each with its op number), and hands each reply back with [`CacheLive::arrived`].
/// The instances, clients and loader are [`CacheRun`]'s own, with their seeded draws; the
/// simulated network hop is replaced by the real round trip, and the loader (the database)
/// stays a timer.
pub struct CacheLive {
    run: CacheRun,
    predicted: CacheResult,
    /// The starting entry's SET has not been answered: nobody reads before it is in place
    /// (the proxy runs a session's requests concurrently, so order on the wire is not
    /// order in Redis).
    seeding: bool,
}

impl CacheLive {
    /// The live run of `cfg` (as [`CacheConfig::for_live`] shapes it), and its prediction:
    /// the simulation of the same config.
    pub fn new(cfg: &CacheConfig) -> Self {
        let mut r = CacheRun {
            live: true,
            ..CacheRun::with_backend(
                CacheConfig {
                    start: Start::Empty,
                    ..*cfg
                },
                SimRedis::new(cfg.seed),
            )
        };
        r.cfg = *cfg;
        r.out.config = *cfg;
        r.seed_entry();
        CacheLive {
            seeding: !r.outbox.is_empty(),
            run: r,
            predicted: run(cfg),
        }
    }

    /// Runs everything due by `now_ms`; the commands to send now: (op, command).
    pub fn advance(&mut self, now_ms: u64) -> Vec<(usize, Command)> {
        while !self.seeding
            && self
                .run
                .queue
                .peek()
                .is_some_and(|Reverse(s)| s.at <= now_ms)
        {
            self.run.step();
        }
        std::mem::take(&mut self.run.outbox)
    }

    /// The reply to op `op` arrived at `now_ms`, `rtt_us` after it was sent (an error of the
    /// proxy comes as an error reply: the instance treats it like Redis' own).
    pub fn arrived(&mut self, op: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        let r = &mut self.run;
        if op >= r.ops.len() {
            return;
        }
        r.waiting = r.waiting.saturating_sub(1);
        if r.ops[op].quiet {
            self.seeding = false;
        }
        r.now = r.now.max(now_ms);
        r.out.end_ms = r.now;
        if !r.ops[op].quiet {
            let shown = r.memo.show(&reply);
            let (inst, cmd) = (r.ops[op].inst, std::mem::take(&mut r.ops[op].cmd));
            r.log_rtt(inst, &cmd, shown, Some(rtt_us));
            r.ops[op].cmd = cmd;
        }
        r.schedule(r.now, Ev::Reply(op, Some(reply)));
    }

    /// When something is next due (`None`: waiting for replies only, or done).
    pub fn next_at(&self) -> Option<u64> {
        if self.seeding {
            return None;
        }
        self.run.queue.peek().map(|Reverse(s)| s.at)
    }

    /// Every request answered and no reply outstanding.
    pub fn is_done(&self) -> bool {
        self.run.waiting == 0 && self.run.queue.is_empty()
    }

    /// The real run so far.
    pub fn result(&self) -> CacheResult {
        let mut out = self.run.out.clone();
        out.counts.commands = out
            .log
            .iter()
            .filter(|l| !l.reply.starts_with("timeout"))
            .count() as u32;
        out.counts.peak_db = peak(out.queries.iter().map(|q| (q.start, q.end)));
        out
    }

    /// The prediction.
    pub fn predicted(&self) -> &CacheResult {
        &self.predicted
    }

    /// The prediction beside the real run so far, as the lab draws a pair: `off` is the
    /// simulation, `on` the real Redis.
    pub fn view(&self) -> CacheView {
        let lab = CacheLab {
            off: self.predicted.clone(),
            on: self.result(),
        };
        let mut v = CacheView::new(&lab);
        v.table = table_named(&lab, ["simulated", "real redis"]);
        v
    }
}

/// Time positions of the lab's timeline.
pub const VIEW_FRAMES: usize = 200;
/// Requests and log lines a view carries per side at most (the counters are always whole).
pub const VIEW_MAX: usize = 1500;

/// One side of the lab as the page draws it: small whatever the run's size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSide {
    /// The final counters.
    pub counts: Counts,
    /// The counters at each timeline position (`VIEW_FRAMES + 1` of them).
    pub frames: Vec<Counts>,
    /// Database queries at once, the most in each of `VIEW_FRAMES` slices.
    pub db: Vec<u32>,
    /// The first requests answered (at most `VIEW_MAX`).
    pub requests: Vec<Request>,
    /// The first lines of the command log (at most `VIEW_MAX`).
    pub log: Vec<LogLine>,
    /// Requests left out.
    pub more_requests: usize,
    /// Log lines left out.
    pub more_log: usize,
}

/// The lab's pair on one time axis, as the worker sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheView {
    /// What ran (the "on" side's layers).
    pub config: CacheConfig,
    /// Both sides end by then, ms.
    pub end_ms: u64,
    /// Every layer off.
    pub off: CacheSide,
    /// The chosen layers.
    pub on: CacheSide,
    /// `labsim cache`'s table for the same run.
    pub table: String,
}

impl CacheView {
    /// The view of a pair.
    pub fn new(lab: &CacheLab) -> Self {
        let end = lab.off.end_ms.max(lab.on.end_ms).max(1);
        let side = |r: &CacheResult| {
            let mut grid = r.clone();
            grid.end_ms = end;
            CacheSide {
                counts: r.counts,
                frames: (0..=VIEW_FRAMES)
                    .map(|i| r.counts_at(end * i as u64 / VIEW_FRAMES as u64))
                    .collect(),
                db: grid.db_series(VIEW_FRAMES),
                requests: r.requests.iter().take(VIEW_MAX).copied().collect(),
                log: r.log.iter().take(VIEW_MAX).cloned().collect(),
                more_requests: r.requests.len().saturating_sub(VIEW_MAX),
                more_log: r.log.len().saturating_sub(VIEW_MAX),
            }
        };
        CacheView {
            config: lab.on.config,
            end_ms: end,
            off: side(&lab.off),
            on: side(&lab.on),
            table: table(lab),
        }
    }

    /// The time of timeline position `i`, ms.
    pub fn time_at(&self, i: usize) -> u64 {
        self.end_ms * i.min(VIEW_FRAMES) as u64 / VIEW_FRAMES as u64
    }
}

/// The table `labsim cache` prints.
pub fn table(lab: &CacheLab) -> String {
    table_named(lab, ["layers off", "layers on"])
}

/// The table with these names for the `off` and `on` rows.
fn table_named(lab: &CacheLab, names: [&str; 2]) -> String {
    let c = &lab.on.config;
    let l = c.layers;
    let onoff = |b: bool| if b { "on" } else { "off" };
    let mut s = format!(
        "cache engine: {} instances, {} concurrent, {} requests, loader {} ms, fresh {} ms, stale {} ms, lock TTL {} ms, wait {} ms, redis {}, start {}, seed {}\n",
        c.instances, c.concurrent, c.requests, c.loader_ms, c.fresh_ms, c.stale_ms, c.lock_ttl_ms, c.wait_ms, c.redis.name(), c.start.name(), c.seed
    );
    s += &format!(
        "layers: singleflight {}, lock {}, poll {}, rescue {}, heartbeat {}, recheck {}\n",
        onoff(l.singleflight),
        onoff(l.lock),
        onoff(l.poll),
        onoff(l.rescue),
        onoff(l.heartbeat),
        onoff(l.recheck)
    );
    s += "run       ";
    for p in Path::ALL {
        s += &format!(" {:>8}", p.name());
    }
    s += "  queries  peak  mean ms  max ms  commands\n";
    for (name, r) in [(names[0], &lab.off), (names[1], &lab.on)] {
        let k = &r.counts;
        s += &format!("{name:<10}");
        for p in Path::ALL {
            s += &format!(" {:>8}", k.path(p));
        }
        s += &format!(
            " {:>8} {:>5} {:>8.1} {:>7} {:>9}\n",
            k.db,
            k.peak_db,
            k.latency_mean(),
            k.latency_max,
            k.commands
        );
    }
    s
}

/// The JSON `labsim cache --json` prints: the config and both runs' counters (`--series`
/// adds requests, queries and the command log).
pub fn table_json(lab: &CacheLab, series: bool) -> serde_json::Value {
    let side = |r: &CacheResult| {
        let mut v = serde_json::json!({
            "counts": r.counts,
            "paths": Path::ALL.iter().map(|p| (p.name().to_string(), serde_json::Value::from(r.counts.path(*p)))).collect::<serde_json::Map<_, _>>(),
            "endMs": r.end_ms,
        });
        if series {
            v["requests"] = serde_json::to_value(&r.requests).unwrap_or_default();
            v["queries"] = serde_json::to_value(&r.queries).unwrap_or_default();
            v["log"] = serde_json::to_value(&r.log).unwrap_or_default();
        }
        v
    };
    serde_json::json!({
        "config": lab.on.config,
        "off": side(&lab.off),
        "on": side(&lab.on),
    })
}

// --- the lab -------------------------------------------------------------------------------

/// Redis' health in the cache-engine lab.
pub const HEALTH_NAMES: &[&str] = &["healthy", "slow", "down"];
/// What the cache-engine lab finds in Redis at the start.
pub const START_NAMES: &[&str] = &["empty", "fresh", "stale", "old-version", "corrupt"];
/// The cache engine (production deck, slides 4–6 and 19): see [`super::cache`].
const FIELDS: &[Field] = &[
    int("instances", "API ইনস্ট্যান্স", 1, 12, "6"),
    int("concurrent", "একসাথে অনুরোধ", 1, 500, "40"),
    int("requests", "মোট অনুরোধ", 1, 20_000, "800"),
    int("loader", "DB লোড (ms)", 1, 20_000, "600"),
    int("fresh", "fresh TTL (ms)", 100, 600_000, "1500"),
    int("stale", "stale জানালা (ms)", 0, 600_000, "1000"),
    int("lock_ttl", "লকের TTL (ms)", 100, 60_000, "3000"),
    int("wait", "অপেক্ষার সীমা (ms)", 100, 60_000, "2000"),
    choice("singleflight", "singleFlight", ON_OFF, "on"),
    choice("lock", "Redis lock", ON_OFF, "on"),
    choice("poll", "poll & wait", ON_OFF, "on"),
    choice("rescue", "rescue lock", ON_OFF, "on"),
    choice("heartbeat", "heartbeat", ON_OFF, "on"),
    choice("recheck", "লকের পরে আবার পড়া", ON_OFF, "on"),
    choice("redis", "Redis-এর অবস্থা", HEALTH_NAMES, "healthy"),
    choice("start", "শুরুতে key", START_NAMES, "empty"),
    seed("6"),
];


/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "cache",
    title: "ক্যাশ ইঞ্জিন — চার স্তর বনাম stampede",
    blurb: "ছয়টা API ইনস্ট্যান্স, খাম, FRESH/STALE/MISS, লক আর heartbeat — সব স্তর বন্ধ বনাম চালু, Redis ধীর বা ডাউন হলে কী হয়",
    fields: FIELDS,
    presets: &[],
    rules: no_rules,
    runs: &["pair"],
    live: true,
};

/// The cache-engine lab's parameters, typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheParams {
    /// API instances.
    pub instances: u32,
    /// Users sending requests at once.
    pub concurrent: u32,
    /// Requests in all.
    pub requests: u32,
    /// One database load, ms.
    pub loader: u64,
    /// Fresh TTL, ms.
    pub fresh: u64,
    /// Stale window, ms.
    pub stale: u64,
    /// Lock TTL, ms.
    pub lock_ttl: u64,
    /// How long a waiter polls, ms.
    pub wait: u64,
    /// `on` / `off`.
    pub singleflight: String,
    /// `on` / `off`.
    pub lock: String,
    /// `on` / `off`.
    pub poll: String,
    /// `on` / `off`.
    pub rescue: String,
    /// `on` / `off`.
    pub heartbeat: String,
    /// `on` / `off`.
    pub recheck: String,
    /// `healthy` / `slow` / `down`.
    pub redis: String,
    /// What is in Redis at the start.
    pub start: String,
    /// Seed.
    pub seed: u32,
}

impl CacheParams {
    /// The run these parameters describe.
    pub fn config(&self) -> CacheConfig {
        use {CacheConfig, Health, Layers, Start};
        let on = |s: &str| s == "on";
        CacheConfig {
            instances: self.instances,
            concurrent: self.concurrent,
            requests: self.requests,
            loader_ms: self.loader,
            fresh_ms: self.fresh,
            stale_ms: self.stale,
            lock_ttl_ms: self.lock_ttl,
            wait_ms: self.wait,
            layers: Layers {
                singleflight: on(&self.singleflight),
                lock: on(&self.lock),
                poll: on(&self.poll),
                rescue: on(&self.rescue),
                heartbeat: on(&self.heartbeat),
                recheck: on(&self.recheck),
            },
            redis: Health::parse(&self.redis),
            start: Start::parse(&self.start),
            seed: self.seed,
        }
    }
}


/// Cache-engine events per unit of work.
const EVENTS: usize = 16_384;

/// Every layer off beside the chosen layers, on the same seed, as the view draws them.
pub struct CacheWork {
    run: PairRun,
    view: Option<CacheView>,
}

impl Run for CacheWork {
    type Part = ();
    type Output = CacheView;
    fn step(&mut self) -> Option<()> {
        if let Some(lab) = self.run.step(EVENTS) {
            self.view = Some(CacheView::new(&lab));
        }
        None
    }
    fn is_done(&self) -> bool {
        self.view.is_some()
    }
    fn progress(&self) -> f64 {
        self.run.progress()
    }
    fn output(&mut self) -> CacheView {
        self.view.take().expect("done")
    }
}

/// The lab's runner.
pub struct CacheEngineLab;

/// The registry's entry.
pub static LAB: CacheEngineLab = CacheEngineLab;

impl Lab for CacheEngineLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(CacheWork {
            run: PairRun::new(&p.typed::<CacheParams>().config()),
            view: None,
        }))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let cfg = p.typed::<CacheParams>().config();
        Some(Box::new(CacheLive::new(&cfg.for_live(job.live_scale.unwrap_or(1)))))
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "the cache engine (production deck): API instances, the envelope, the four \
                      layers against a stampede; every layer off beside the chosen layers, same seed",
            skip: &[],
            more: &[],
            switches: &["series"],
            usage: &["[--series]"],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let lab = pair(&p.typed::<CacheParams>().config());
        Ok(crate::cli::emit(a, table(&lab), || {
            table_json(&lab, a.flag("series"))
        }))
    }
}

impl LiveDriver for CacheLive {
    fn advance(&mut self, now_ms: u64) -> Vec<(usize, Command)> {
        CacheLive::advance(self, now_ms)
    }
    fn arrived(&mut self, tag: usize, reply: Reply, now_ms: u64, rtt_us: u32) {
        CacheLive::arrived(self, tag, reply, now_ms, rtt_us);
    }
    fn next_at(&self) -> Option<u64> {
        CacheLive::next_at(self)
    }
    fn is_done(&self) -> bool {
        CacheLive::is_done(self)
    }
    fn snapshot(&self) -> Json {
        Json::of(&self.view())
    }
    fn snapshot_ms(&self) -> f64 {
        250.0
    }
}

#[cfg(test)]
mod tests;
