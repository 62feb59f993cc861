//! The room: an API server marking viewers with `markactive`, a reader counting at the end
//! of each bucket, on the one engine ([`World`]) against SimRedis.

use super::{PresenceParams, BUCKET_MS, CHUNK, HLL_PREFIX, ROOM};
use crate::labs::log::CmdLine;
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::{evict, scripts, SimRedis, EPOCH_MS};
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Backend, Command, Io, Model, OpId, Outcome, Ran, World};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::io::Write;

/// The API server's actor.
const API: ActorId = 0;
/// The reader's actor.
const READER: ActorId = 1;
/// `markactive` lines logged per bucket.
const LOGGED_MARKS: usize = 2;
/// No mark yet.
const NEVER: u32 = u32::MAX;

/// One bucket, as the reader saw it at its end.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    /// 0-based.
    pub bucket: u32,
    /// When it started, virtual ms.
    pub at_ms: u64,
    /// Viewers who joined at its start.
    pub joined: u32,
    /// Viewers who left at its start.
    pub left: u32,
    /// Viewers marked in it.
    pub active: u32,
    /// Distinct viewers marked in the window (this bucket and the `window - 1` before):
    /// the true count.
    pub truth: u32,
    /// `markactive` answers 1 (added to the sorted set) in this bucket.
    pub zadds: u32,
    /// `markactive` answers 0 (the room was at its limit: only `PFADD`).
    pub skipped: u32,
    /// Members `ZREMRANGEBYSCORE` trimmed.
    pub trimmed: i64,
    /// `ZCARD` after the trim.
    pub zcard: i64,
    /// `PFCOUNT` of this bucket's key alone.
    pub pf_single: i64,
    /// `PFCOUNT` of the window's keys together.
    pub pf_window: i64,
    /// The count shown: `zcard` while the estimate is under the limit, else
    /// `max(pf_window, zcard)` (never less than the exact count).
    pub shown: i64,
    /// `true`: the shown count is the sorted set's (exact).
    pub exact: bool,
    /// `(pf_window - truth) / truth`, percent.
    pub err_pct: f64,
    /// The sorted set's bytes (SimRedis' estimate; 0 when it does not exist).
    pub zset_bytes: u64,
    /// The window's HyperLogLog keys, `STRLEN` summed.
    pub hll_bytes: u64,
    /// This bucket's HyperLogLog, `STRLEN`.
    pub hll_cur_bytes: u64,
    /// Keys of the window that are dense (`STRLEN` 12,304).
    pub dense: u32,
    /// What a sorted set of every viewer in the window would take (the same estimate).
    pub all_zset_bytes: u64,
    /// A few of its commands: the first marks and the reader's.
    pub log: Vec<CmdLine>,
}

/// The room run's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomOutput {
    /// The parameters.
    pub params: PresenceParams,
    /// Every bucket done so far.
    pub buckets: Vec<Bucket>,
    /// `markactive` calls.
    pub marks: u64,
    /// Of them, answered 1.
    pub zadds: u64,
    /// Of them, answered 0.
    pub skipped: u64,
    /// Commands sent in all.
    pub commands: u64,
}

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
    type Output = RoomOutput;
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

    fn output<B: Backend>(&self, world: &World<B, Room>, _live: Option<&[u32]>) -> RoomOutput {
        let m = world.model();
        RoomOutput {
            params: self.p.clone(),
            buckets: m.buckets.clone(),
            marks: m.marks,
            zadds: m.zadds,
            skipped: m.skipped,
            commands: m.commands,
        }
    }
}

/// The room of `p`, simulated: the worker steps it (`SimRun` is the run), `run` finishes it.
pub fn sim(p: &PresenceParams) -> SimRun<RoomScenario> {
    SimRun::new(RoomScenario { p: p.clone() }, p.seed)
}

/// The room of `p`, run to the end.
pub fn run_room(p: &PresenceParams) -> RoomOutput {
    sim(p).finish()
}
