//! The presence lab's simulation. The room: an API server marking viewers with
//! `markactive`, a reader counting at the end of each bucket, on the one engine ([`World`])
//! against SimRedis. The spread: the estimate's error over many rooms, each a fresh SimRedis
//! holding one HyperLogLog of `sample` distinct viewers.

use super::output::{Bucket, PresenceOutput, SpreadOutput, BINS, BIN_PCT, STANDARD_ERROR_PCT};
use super::params::PresenceParams;
use super::{BUCKET_MS, CHUNK, HLL_PREFIX, ROOM};
use crate::labs::lab::Run;
use crate::labs::log::CmdLine;
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::{evict, scripts, SimRedis, EPOCH_MS};
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Backend, Command, Io, Model, OpId, Outcome, Ran, World};
use rustc_hash::FxHashMap;
use std::io::Write;

/// The API server's actor.
const API: ActorId = 0;
/// The reader's actor.
const READER: ActorId = 1;
/// `markactive` lines logged per bucket.
const LOGGED_MARKS: usize = 2;
/// No mark yet.
const NEVER: u32 = u32::MAX;

/// What a reader's op asks.
#[derive(Clone, Copy, Debug)]
enum Ask {
    Trim,
    Zcard,
    PfSingle,
    PfWindow,
    Strlen { current: bool },
}

/// The model's timers.
#[derive(Clone, Copy, Debug)]
pub enum Tick {
    /// A bucket starts: viewers leave and join.
    Bucket(u32),
    /// The API server sends the marks from index `.1` of the active list.
    Chunk(u32, usize),
    /// The reader counts.
    Read(u32),
}

/// The API server, the reader and what they know.
pub struct Room {
    p: PresenceParams,
    rng: Mulberry32,
    /// Viewers now in the room (ids).
    active: Vec<u32>,
    next_id: u32,
    /// Per viewer id, the last bucket they were marked in.
    last: Vec<u32>,
    /// Per bucket, viewers whose last mark is in it.
    last_in: Vec<u32>,
    asks: FxHashMap<OpId, (u32, Ask)>,
    logged: FxHashMap<OpId, u32>,
    buckets: Vec<Bucket>,
    /// Sent `markactive` commands whose replies are in, their buffers to reuse.
    pool: Vec<Command>,
    marks: u64,
    zadds: u64,
    skipped: u64,
    commands: u64,
    planned: u64,
    ttl: String,
    limit: String,
}

/// The key of bucket `k`.
pub fn bucket_key(k: u32) -> String {
    format!("{HLL_PREFIX}{k}")
}

/// A viewer's member name.
fn member(id: u32) -> String {
    format!("user:{id}")
}

/// The room's size at bucket `k` (it grows evenly to `size`).
fn target(p: &PresenceParams, k: u32) -> u32 {
    ((u64::from(p.size) * u64::from(k + 1)).div_ceil(u64::from(p.rounds))) as u32
}

impl Room {
    fn new(p: &PresenceParams) -> Self {
        Room {
            p: p.clone(),
            rng: Mulberry32::new(p.seed ^ 0x7072_6573),
            active: Vec::new(),
            next_id: 1,
            last: vec![NEVER],
            last_in: vec![0; p.rounds as usize],
            asks: FxHashMap::default(),
            logged: FxHashMap::default(),
            buckets: Vec::new(),
            pool: Vec::new(),
            marks: 0,
            zadds: 0,
            skipped: 0,
            commands: 0,
            planned: (0..p.rounds).map(|k| u64::from(target(p, k))).sum(),
            ttl: (u64::from(p.window) * BUCKET_MS / 1000 + 30).to_string(),
            limit: p.limit.to_string(),
        }
    }

    fn send(&mut self, io: &mut Io<Tick>, actor: ActorId, c: Command) -> OpId {
        self.commands += 1;
        io.send(actor, c)
    }

    fn ask(&mut self, io: &mut Io<Tick>, k: u32, ask: Ask, c: Command) {
        let op = self.send(io, READER, c);
        self.asks.insert(op, (k, ask));
    }

    /// Bucket `k` starts: a share leaves, newcomers fill the room to its size, and every
    /// viewer in it is marked (in Rust, for the true count; in Redis, by the chunks).
    fn start_bucket(&mut self, k: u32, io: &mut Io<Tick>) {
        let mut left = 0;
        if k > 0 {
            let n = self.active.len() as u64 * u64::from(self.p.leave) / 100;
            for _ in 0..n {
                let i = self.rng.below(self.active.len() as u32) as usize;
                self.active.swap_remove(i);
                left += 1;
            }
        }
        let want = target(&self.p, k) as usize;
        let mut joined = 0;
        while self.active.len() < want {
            self.active.push(self.next_id);
            self.last.push(NEVER);
            self.next_id += 1;
            joined += 1;
        }
        for &id in &self.active {
            let l = &mut self.last[id as usize];
            if *l != NEVER {
                self.last_in[*l as usize] -= 1;
            }
            *l = k;
            self.last_in[k as usize] += 1;
        }
        let from = (k + 1).saturating_sub(self.p.window) as usize;
        let truth = self.last_in[from..=k as usize].iter().sum();
        // Every viewer of the window, as the sorted set would hold them.
        let lens = self
            .last
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l != NEVER && l as usize >= from)
            .map(|(id, _)| 5 + digits(id as u32));
        let all_zset_bytes = evict::zset_estimate(ROOM.len(), lens, true);
        self.buckets.push(Bucket {
            bucket: k,
            at_ms: io.now(),
            joined,
            left,
            active: self.active.len() as u32,
            truth,
            all_zset_bytes,
            ..Bucket::default()
        });
        io.after(1, Tick::Chunk(k, 0));
    }

    /// Marks `CHUNK` viewers from `from`, in one pipeline.
    fn chunk(&mut self, k: u32, from: usize, io: &mut Io<Tick>) {
        let end = (from + CHUNK).min(self.active.len());
        let key = bucket_key(k);
        let score = (EPOCH_MS + io.now() as i64).to_string();
        for i in from..end {
            let id = self.active[i];
            // The buffers of a command whose reply is in, with the words that change rewritten.
            let c = match self.pool.pop() {
                Some(mut c) => {
                    set_word(&mut c[4], key.as_bytes());
                    c[5].truncate(5); // "user:"
                    let _ = write!(c[5], "{id}");
                    set_word(&mut c[6], score.as_bytes());
                    c
                }
                None => cmd(&[
                    "EVALSHA",
                    scripts::MARK_ACTIVE.sha1,
                    "2",
                    ROOM,
                    &key,
                    &member(id),
                    &score,
                    &self.limit,
                    &self.ttl,
                ]),
            };
            let op = self.send(io, API, c);
            if i < LOGGED_MARKS {
                self.logged.insert(op, k);
            }
        }
        if end < self.active.len() {
            io.after(1, Tick::Chunk(k, end));
        } else {
            // The bucket's key lives as long as the window needs it.
            let c = cmd(&["EXPIRE", &key, &self.ttl]);
            let op = self.send(io, API, c);
            self.logged.insert(op, k);
            io.after(1, Tick::Read(k));
        }
    }

    /// The reader: trim, then count.
    fn read(&mut self, k: u32, io: &mut Io<Tick>) {
        let from = (k + 1).saturating_sub(self.p.window);
        let cutoff = EPOCH_MS + i64::from(from) * BUCKET_MS as i64;
        self.ask(
            io,
            k,
            Ask::Trim,
            cmd(&["ZREMRANGEBYSCORE", ROOM, "-inf", &format!("({cutoff}")]),
        );
        self.ask(io, k, Ask::Zcard, cmd(&["ZCARD", ROOM]));
        let key = bucket_key(k);
        self.ask(io, k, Ask::PfSingle, cmd(&["PFCOUNT", &key]));
        let keys: Vec<String> = (from..=k).rev().map(bucket_key).collect();
        let mut words = vec!["PFCOUNT"];
        words.extend(keys.iter().map(String::as_str));
        self.ask(io, k, Ask::PfWindow, cmd(&words));
        for key in &keys {
            let current = *key == bucket_key(k);
            self.ask(io, k, Ask::Strlen { current }, cmd(&["STRLEN", key]));
        }
    }
}

/// `w` holds `v`, its buffer reused.
fn set_word(w: &mut Vec<u8>, v: &[u8]) {
    w.clear();
    w.extend_from_slice(v);
}

/// Decimal digits of `n`.
fn digits(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

impl Model for Room {
    type Timer = Tick;

    fn on_timer(&mut self, t: Tick, io: &mut Io<Tick>) {
        match t {
            Tick::Bucket(k) => self.start_bucket(k, io),
            Tick::Chunk(k, from) => self.chunk(k, from, io),
            Tick::Read(k) => self.read(k, io),
        }
    }

    fn on_ran(
        &mut self,
        op: OpId,
        _actor: ActorId,
        _ran: Ran<'_>,
        sim: Option<&SimRedis>,
        _io: &mut Io<Tick>,
    ) {
        if let (Some(&(k, Ask::Zcard)), Some(sim)) = (self.asks.get(&op), sim) {
            let bytes = sim.key_memory_estimate(ROOM.as_bytes()).unwrap_or(0);
            self.buckets[k as usize].zset_bytes = bytes;
        }
    }

    fn on_reply(&mut self, op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Tick>) {
        let Outcome::Reply(reply) = outcome else {
            return;
        };
        if actor == API {
            if let Some(k) = self.logged.remove(&op) {
                let line = CmdLine::new(io.now(), "api", io.cmd(op), Ok(reply.clone()));
                self.buckets[k as usize].log.push(line);
            }
            if io.cmd(op)[0] == b"EVALSHA" {
                self.pool.push(io.take_cmd(op));
                self.marks += 1;
                let b = self.buckets.last_mut().expect("a bucket started");
                if reply.as_int() == Some(1) {
                    self.zadds += 1;
                    b.zadds += 1;
                } else {
                    self.skipped += 1;
                    b.skipped += 1;
                }
            }
            return;
        }
        let Some((k, ask)) = self.asks.remove(&op) else {
            return;
        };
        let limit = i64::from(self.p.limit);
        let b = &mut self.buckets[k as usize];
        b.log
            .push(CmdLine::new(io.now(), "পাঠক", io.cmd(op), Ok(reply.clone())));
        let n = reply.as_int().unwrap_or(0);
        match ask {
            Ask::Trim => b.trimmed = n,
            Ask::Zcard => b.zcard = n,
            Ask::PfSingle => b.pf_single = n,
            Ask::PfWindow => {
                b.pf_window = n;
                // A small room (the estimate under the limit): the exact count.
                b.exact = n < limit;
                b.shown = if b.exact { b.zcard } else { n.max(b.zcard) };
                b.err_pct = if b.truth == 0 {
                    0.0
                } else {
                    100.0 * (n as f64 - f64::from(b.truth)) / f64::from(b.truth)
                };
            }
            Ask::Strlen { current } => {
                let n = n.max(0) as u64;
                b.hll_bytes += n;
                if n == crate::redis::hll::DENSE_SIZE as u64 {
                    b.dense += 1;
                }
                if current {
                    b.hll_cur_bytes = n;
                }
            }
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        if actor == API { "api" } else { "পাঠক" }.into()
    }
}

/// The room of `p` as a [`Scenario`].
pub struct RoomScenario {
    p: PresenceParams,
}

impl Scenario for RoomScenario {
    type Model = Room;
    type Output = PresenceOutput;
    /// One event is one chunk of 300 marks (the instant lane runs them all in the step).
    const EVENTS: usize = 16;

    fn world<B: Backend>(&mut self, backend: B, _live: bool) -> World<B, Room> {
        let mut w = World::with_model(self.p.seed, backend, Room::new(&self.p));
        w.set_instant(true);
        w.set_trace(false);
        let rounds = self.p.rounds;
        w.start(|_, io| {
            for k in 0..rounds {
                io.at(u64::from(k) * BUCKET_MS, Tick::Bucket(k));
            }
        });
        w
    }

    fn progress<B: Backend>(&self, world: &World<B, Room>) -> f64 {
        let m = world.model();
        m.marks as f64 / m.planned.max(1) as f64
    }

    fn output<B: Backend>(&self, world: &World<B, Room>, _live: Option<&[u32]>) -> PresenceOutput {
        let m = world.model();
        PresenceOutput {
            params: self.p.clone(),
            buckets: m.buckets.clone(),
            marks: m.marks,
            zadds: m.zadds,
            skipped: m.skipped,
            commands: m.commands,
        }
    }
}

/// The room of `p`, simulated: the worker steps it, [`run_room`] finishes it.
pub fn sim(p: &PresenceParams) -> SimRun<RoomScenario> {
    SimRun::new(RoomScenario { p: p.clone() }, p.seed)
}

/// The room of `p`, run to the end.
pub fn run_room(p: &PresenceParams) -> PresenceOutput {
    sim(p).finish()
}

/// The spread, a room per step (what the worker steps).
pub struct SpreadSim {
    p: PresenceParams,
    errors: Vec<f64>,
    /// The room being filled (its SimRedis, viewers added).
    room: Option<(SimRedis, u32)>,
}

impl SpreadSim {
    /// The spread of `p`, nothing run yet.
    pub fn new(p: &PresenceParams) -> Self {
        SpreadSim {
            p: p.clone(),
            errors: Vec::with_capacity(p.seeds as usize),
            room: None,
        }
    }

    /// Adds up to `budget` viewers to the current room (a new room when none); counts it when
    /// full. Returns the viewers added.
    fn fill(&mut self, budget: u32) -> u32 {
        let (mut r, done) = match self.room.take() {
            Some(x) => x,
            None => {
                // Room i: a fresh server (its own seed), its own viewer names.
                let i = self.errors.len() as u32;
                (SimRedis::new(self.p.seed.wrapping_add(i)), 0)
            }
        };
        let base = self.base();
        let key: &[u8] = b"hll:room:42";
        let end = (done + budget).min(self.p.sample);
        let mut at = done;
        let mut names: Vec<String> = Vec::with_capacity(CHUNK);
        while at < end {
            let to = (at + CHUNK as u32).min(end);
            names.clear();
            names.extend((at..to).map(|j| format!("user:{}", base + u64::from(j))));
            let mut a: Vec<&[u8]> = Vec::with_capacity(2 + names.len());
            a.push(b"PFADD");
            a.push(key);
            a.extend(names.iter().map(String::as_bytes));
            r.call(&a);
            at = to;
        }
        if end == self.p.sample {
            let n = r.call(&[b"PFCOUNT", key]).as_int().unwrap_or(0);
            let s = f64::from(self.p.sample);
            self.errors.push(100.0 * (n as f64 - s) / s);
        } else {
            self.room = Some((r, end));
        }
        end - done
    }

    /// The current room's first viewer number: rooms far apart, so no two share a name.
    fn base(&self) -> u64 {
        (u64::from(self.p.seed) << 32) + (self.errors.len() as u64) * 1_000_000
    }

    fn summary(&self) -> SpreadOutput {
        let e = &self.errors;
        let n = e.len().max(1) as f64;
        let mean = e.iter().sum::<f64>() / n;
        let sd = libm::sqrt(e.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n);
        let mut histogram = vec![0u32; BINS];
        for x in e {
            let b = libm::floor((x + BIN_PCT * BINS as f64 / 2.0) / BIN_PCT);
            histogram[b.clamp(0.0, (BINS - 1) as f64) as usize] += 1;
        }
        let worst = e
            .iter()
            .copied()
            .fold(0.0f64, |w, x| if x.abs() > w.abs() { x } else { w });
        SpreadOutput {
            seeds: e.len() as u32,
            sample: self.p.sample,
            errors: e.clone(),
            histogram,
            mean_pct: mean,
            sd_pct: sd,
            beyond: e.iter().filter(|x| x.abs() > STANDARD_ERROR_PCT).count() as u32,
            beyond2: e
                .iter()
                .filter(|x| x.abs() > 2.0 * STANDARD_ERROR_PCT)
                .count() as u32,
            worst_pct: worst,
        }
    }
}

/// Viewers added per step (a few ms natively while sparse, less once dense).
const STEP_ADDS: u32 = 6_000;

impl Run for SpreadSim {
    type Part = ();
    type Output = SpreadOutput;
    fn step(&mut self) -> Option<()> {
        let mut budget = STEP_ADDS;
        while budget > 0 && !self.is_done() {
            budget -= self.fill(budget).min(budget);
        }
        None
    }
    fn is_done(&self) -> bool {
        self.errors.len() as u32 >= self.p.seeds
    }
    fn progress(&self) -> f64 {
        let done = self.errors.len() as f64
            + self
                .room
                .as_ref()
                .map_or(0.0, |(_, d)| f64::from(*d) / f64::from(self.p.sample));
        done / f64::from(self.p.seeds.max(1))
    }
    fn output(&mut self) -> SpreadOutput {
        self.summary()
    }
}

/// The spread of `p`, run to the end.
pub fn run_spread(p: &PresenceParams) -> SpreadOutput {
    let mut r = SpreadSim::new(p);
    while !r.is_done() {
        r.step();
    }
    r.summary()
}
