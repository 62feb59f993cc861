//! The cache engine as a [`Model`] of the one engine: API instances serving many requests at
//! once, the clients sending them, the loader (the database) as a timer.
//!
//! A request becomes a task on a seeded random instance: read the envelope (`GET`), and on a
//! miss (through the instance's singleflight, when on) take the Redis lock, re-read, load,
//! write (`SET … PX`), release; a waiter polls. Each command is an op of the engine; the engine
//! tells the model every command's fate ([`Model::on_logged`]), which becomes the run's
//! command log. When Redis is not healthy the client behaves as ioredis (v5) does:
//!
//! * **slow**: a command carries the connection's `commandTimeout` (`timeout_ms`; none when
//!   0, ioredis' default, and then the task waits for the late reply). A timed-out command is
//!   not sent again — ioredis' `Command#setTimeout` only rejects its promise — so the task
//!   gives up on Redis at once and goes to the database.
//! * **down**: ioredis does not write to a closed connection; the command waits in the
//!   offline queue (`enableOfflineQueue`, on by default) until its `commandTimeout`, armed
//!   before the queue, rejects it ([`Timer::Offline`]); then the database. The queue is also
//!   flushed early at every second failed reconnection (`maxRetriesPerRequest: 1`): the
//!   failure lab models that; here every wait is the full timeout, its upper bound.

use super::cmd::{envelope, CacheCmd, CmdRow, Envelope};
use super::record::{add_request, CacheRecord, Path, Query, Request};
use crate::labs::cache::params::{CacheConfig, Health, Start, KEY, POLL_MS, THINK_MS, VERSION};
use crate::labs::log::NoReply;
use crate::redis::Reply;
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Command, Io, Logged, Model, OpId, Outcome};
use std::cell::RefCell;
use std::rc::Rc;

/// The `SET` that puts the run's starting entry in place (`None`: Redis starts empty).
pub(super) fn starting_entry(c: &CacheConfig) -> Option<Command> {
    let (json, px) = match c.start {
        Start::Empty => return None,
        Start::Fresh => (envelope(VERSION, c.fresh_ms, 0), c.fresh_ms + c.stale_ms),
        Start::Stale => (envelope(VERSION, 0, 0), c.stale_ms.max(1)),
        Start::OldVersion => (envelope(1, c.fresh_ms, 0), c.fresh_ms + c.stale_ms),
        Start::Corrupt => (
            format!("{{\"version\":{VERSION},\"freshUn"),
            c.fresh_ms + c.stale_ms,
        ),
    };
    Some(cmd(&["SET", KEY, &json, "PX", &px.to_string()]))
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

/// The last entry read, parsed once: most reads return the same bytes.
#[derive(Default)]
struct Memo {
    bytes: Vec<u8>,
    /// `None`: it does not parse; else (version, freshUntil).
    parsed: Option<(u32, u64)>,
}

impl Memo {
    fn classify(&mut self, reply: &Reply, now: u64) -> Found {
        let Reply::Bulk(b) = reply else {
            return Found::Nil;
        };
        if self.bytes != *b || self.bytes.is_empty() {
            self.bytes.clone_from(b);
            self.parsed = serde_json::from_slice::<Envelope>(b)
                .ok()
                .map(|e| (e.version, e.fresh_until));
        }
        match self.parsed {
            None => Found::Corrupt,
            Some((v, _)) if v != VERSION => Found::Mismatch,
            Some((_, until)) if now < until => Found::Fresh,
            Some(_) => Found::Stale,
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
    /// Its lock token.
    token: u32,
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

/// What the model knows of an op the engine carries.
#[derive(Clone, Copy, Debug, Default)]
struct OpInfo {
    /// The command (`None`: the starting entry a live run puts in place — not logged, and
    /// the clients start when it is answered).
    cmd: Option<CacheCmd>,
    /// The task waiting for it (`None`: fire and forget, the reply is only logged).
    task: Option<usize>,
}

struct Pending {
    client: usize,
    inst: usize,
    start: u64,
}

/// The model's own events.
#[derive(Debug)]
pub enum Timer {
    /// A client sends its next request.
    Client(usize),
    /// A waiter polls again.
    Wake(usize),
    /// A task's database query is done.
    DbDone(usize),
    /// A task's heartbeat (of that generation).
    Beat(usize, u32),
    /// Redis is down: a command that waited in instance `inst`'s offline queue is rejected
    /// by its `commandTimeout`; its task (if one waits) goes on without Redis.
    Offline {
        /// The instance.
        inst: usize,
        /// The task waiting for it.
        task: Option<usize>,
        /// The command.
        cmd: CacheCmd,
    },
}

/// The API instances, their clients and the loader (see the module doc). What happens is
/// written to a record the scenario shares ([`CacheRecord`]).
pub struct CacheModel {
    cfg: CacheConfig,
    /// The `commandTimeout` commands carry (Redis is slow, in a simulation, with a timeout).
    timeout: Option<u64>,
    /// Redis is down (in a simulation): commands wait in the offline queue.
    offline: bool,
    clients: Vec<Mulberry32>,
    inst_rng: Vec<Mulberry32>,
    names: Vec<String>,
    insts: Vec<Inst>,
    tasks: Vec<Task>,
    ops: Vec<OpInfo>,
    pending: Vec<Option<Pending>>,
    sent: u32,
    loading: u32,
    memo: Memo,
    out: Rc<RefCell<CacheRecord>>,
}

impl CacheModel {
    /// The model of `cfg`, writing to `out`. `live`: against a real Redis (its health is
    /// what it is, so no command carries a timeout).
    pub(super) fn new(cfg: CacheConfig, live: bool, out: Rc<RefCell<CacheRecord>>) -> Self {
        let s = cfg.seed;
        let stream =
            |i: u32, salt: u32| Mulberry32::new(s ^ salt.wrapping_add(i.wrapping_mul(0x9E37_79B9)));
        CacheModel {
            cfg,
            timeout: (!live && cfg.redis != Health::Healthy && cfg.timeout_ms > 0)
                .then_some(cfg.timeout_ms),
            offline: !live && cfg.redis == Health::Down,
            clients: (0..cfg.concurrent)
                .map(|i| stream(i, 0xC11E_0000))
                .collect(),
            inst_rng: (0..cfg.instances).map(|i| stream(i, 0x1A57_0000)).collect(),
            names: (1..=cfg.instances).map(|i| format!("api-{i}")).collect(),
            insts: (0..cfg.instances).map(|_| Inst::default()).collect(),
            tasks: Vec::new(),
            ops: Vec::new(),
            pending: Vec::new(),
            sent: 0,
            loading: 0,
            memo: Memo::default(),
            out,
        }
    }

    /// Starts the run at time 0: a live run first puts `entry` in place (the proxy runs a
    /// session's requests concurrently, so nobody reads before it is answered); the clients
    /// send their first requests in their first 20 ms.
    pub(super) fn start(&mut self, io: &mut Io<Timer>, entry: Option<Command>) {
        match entry {
            Some(c) => {
                let op = io.send(0, c);
                self.note_op(op, OpInfo::default());
            }
            None => self.clients_start(io),
        }
    }

    /// Each client's first request, 0–20 ms from the start (seeded); one due before now
    /// goes now, in the order they were due.
    fn clients_start(&mut self, io: &mut Io<Timer>) {
        let mut first: Vec<(u64, usize)> = self
            .clients
            .iter_mut()
            .enumerate()
            .map(|(c, g)| (u64::from(g.below(21)), c))
            .collect();
        first.sort_unstable();
        for (at, c) in first {
            io.at(at, Timer::Client(c));
        }
    }

    /// Requests answered so far.
    pub(super) fn answered(&self) -> usize {
        self.out.borrow().requests.len()
    }

    fn note_op(&mut self, op: OpId, info: OpInfo) {
        if self.ops.len() <= op {
            self.ops.resize(op + 1, OpInfo::default());
        }
        self.ops[op] = info;
    }

    // --- clients and requests -------------------------------------------------------------

    fn client(&mut self, c: usize, io: &mut Io<Timer>) {
        if self.sent >= self.cfg.requests {
            return;
        }
        self.sent += 1;
        let inst = self.clients[c].below(self.cfg.instances) as usize;
        let req = self.pending.len();
        self.pending.push(Some(Pending {
            client: c,
            inst,
            start: io.now(),
        }));
        let t = self.new_task(inst, Some(req));
        self.read(t, io);
    }

    fn answer(&mut self, req: usize, path: Path, io: &mut Io<Timer>) {
        let Some(p) = self.pending[req].take() else {
            return;
        };
        let r = Request {
            inst: p.inst as u32,
            start: p.start,
            end: io.now(),
            path,
        };
        {
            let mut out = self.out.borrow_mut();
            add_request(&mut out.counts, &r);
            out.requests.push(r);
        }
        let (lo, hi) = THINK_MS;
        let think = lo + u64::from(self.clients[p.client].below((hi - lo + 1) as u32));
        io.after(think, Timer::Client(p.client));
    }

    fn new_task(&mut self, inst: usize, req: Option<usize>) -> usize {
        self.tasks.push(Task {
            inst,
            req,
            phase: Phase::Read,
            token: 0,
            locked: false,
            wait_start: 0,
            gen: 0,
            leads: false,
            query: usize::MAX,
        });
        self.tasks.len() - 1
    }

    // --- Redis ----------------------------------------------------------------------------

    /// `inst` sends `c` for `task` (`None`: fire and forget, the reply is only logged).
    fn send(&mut self, inst: usize, task: Option<usize>, c: CacheCmd, io: &mut Io<Timer>) {
        if self.offline {
            io.after(self.cfg.timeout_ms, Timer::Offline { inst, task, cmd: c });
            return;
        }
        let words = c.words();
        let op = match self.timeout {
            Some(ms) if task.is_some() => io.send_timeout(inst, words, ms),
            _ => io.send(inst, words),
        };
        self.note_op(op, OpInfo { cmd: Some(c), task });
    }

    /// Op `op` got no usable answer (it timed out): not sent again, the task gives up on
    /// Redis.
    fn failed(&mut self, op: OpId, io: &mut Io<Timer>) {
        if let (Some(task), Some(_)) = (self.ops[op].task, self.ops[op].cmd) {
            self.redis_failed(task, io);
        }
    }

    /// A command rejected in the offline queue: logged as timed out, as ioredis rejects it.
    fn offline_rejected(
        &mut self,
        inst: usize,
        task: Option<usize>,
        cmd: CacheCmd,
        io: &mut Io<Timer>,
    ) {
        self.out.borrow_mut().log.push(CmdRow {
            at_ms: io.now(),
            inst: inst as u32,
            cmd,
            reply: Err(NoReply::TimedOut(self.cfg.timeout_ms)),
            rtt_us: None,
        });
        if let Some(t) = task {
            self.redis_failed(t, io);
        }
    }

    // --- the engine -----------------------------------------------------------------------

    fn read(&mut self, t: usize, io: &mut Io<Timer>) {
        self.tasks[t].phase = Phase::Read;
        let inst = self.tasks[t].inst;
        self.send(inst, Some(t), CacheCmd::Get, io);
    }

    fn purge(&mut self, inst: usize, io: &mut Io<Timer>) {
        self.send(inst, None, CacheCmd::Del, io);
    }

    fn task_reply(&mut self, t: usize, reply: &Reply, io: &mut Io<Timer>) {
        let now = io.now();
        let inst = self.tasks[t].inst;
        let layers = self.cfg.layers;
        match self.tasks[t].phase {
            Phase::Read => match self.memo.classify(reply, now) {
                Found::Fresh => self.end(t, Path::Fresh, io),
                Found::Stale => {
                    self.end(t, Path::Stale, io);
                    self.refresh(inst, io);
                }
                found => {
                    if matches!(found, Found::Mismatch | Found::Corrupt) {
                        self.purge(inst, io);
                    }
                    self.miss(t, io);
                }
            },
            Phase::Lock | Phase::Rescue => {
                let rescue = self.tasks[t].phase == Phase::Rescue;
                if *reply == Reply::ok() {
                    self.tasks[t].locked = true;
                    if layers.recheck {
                        self.tasks[t].phase = Phase::Recheck;
                        self.send(inst, Some(t), CacheCmd::Get, io);
                    } else {
                        self.load(t, io);
                    }
                } else if self.tasks[t].req.is_none() {
                    // Someone else refreshes: nothing to do.
                    self.end(t, Path::Wait, io);
                } else if rescue {
                    self.end(t, Path::Error, io);
                } else if layers.poll {
                    self.tasks[t].wait_start = now;
                    self.poll(t, io);
                } else {
                    self.load(t, io);
                }
            }
            Phase::Recheck => match self.memo.classify(reply, now) {
                Found::Fresh => self.release(t, io),
                _ => self.load(t, io),
            },
            Phase::PollRead => match self.memo.classify(reply, now) {
                Found::Fresh | Found::Stale => self.end(t, Path::Wait, io),
                _ if now - self.tasks[t].wait_start >= self.cfg.wait_ms => {
                    if layers.rescue {
                        self.take_lock(t, Phase::Rescue, io);
                    } else {
                        self.end(t, Path::Error, io);
                    }
                }
                _ => self.poll(t, io),
            },
            Phase::Write => {
                if self.tasks[t].locked {
                    self.release(t, io);
                } else {
                    self.end(t, Path::Miss, io);
                }
            }
            Phase::Release => {
                let p = if self.tasks[t].req.is_some() {
                    Path::Lock
                } else {
                    Path::Miss
                };
                self.end(t, p, io);
            }
            Phase::Poll | Phase::Loading | Phase::Fallback | Phase::Done => {}
        }
    }

    fn miss(&mut self, t: usize, io: &mut Io<Timer>) {
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
            self.take_lock(t, Phase::Lock, io);
        } else {
            self.load(t, io);
        }
    }

    fn take_lock(&mut self, t: usize, phase: Phase, io: &mut Io<Timer>) {
        let inst = self.tasks[t].inst;
        let token = self.inst_rng[inst].next_u32();
        self.tasks[t].token = token;
        self.tasks[t].phase = phase;
        let ttl_ms = self.cfg.lock_ttl_ms;
        self.send(inst, Some(t), CacheCmd::Lock { token, ttl_ms }, io);
    }

    fn poll(&mut self, t: usize, io: &mut Io<Timer>) {
        let inst = self.tasks[t].inst;
        self.tasks[t].phase = Phase::Poll;
        let (lo, hi) = POLL_MS;
        let gap = lo + u64::from(self.inst_rng[inst].below((hi - lo + 1) as u32));
        io.after(gap, Timer::Wake(t));
    }

    fn wake(&mut self, t: usize, io: &mut Io<Timer>) {
        if self.tasks[t].phase == Phase::Poll {
            self.tasks[t].phase = Phase::PollRead;
            let inst = self.tasks[t].inst;
            self.send(inst, Some(t), CacheCmd::Get, io);
        }
    }

    fn refresh(&mut self, inst: usize, io: &mut Io<Timer>) {
        if self.cfg.layers.singleflight {
            if self.insts[inst].refreshing {
                return;
            }
            self.insts[inst].refreshing = true;
        }
        let t = self.new_task(inst, None);
        if self.cfg.layers.lock {
            self.take_lock(t, Phase::Lock, io);
        } else {
            self.load(t, io);
        }
    }

    fn start_query(&mut self, t: usize, io: &mut Io<Timer>) {
        let inst = self.tasks[t].inst;
        {
            let mut out = self.out.borrow_mut();
            if self.loading > 0 {
                out.counts.overlaps += 1;
            }
            self.tasks[t].query = out.queries.len();
            out.queries.push(Query {
                inst: inst as u32,
                start: io.now(),
                end: io.now(),
                refresh: self.tasks[t].req.is_none(),
            });
            out.counts.db += 1;
        }
        self.loading += 1;
        io.after(self.cfg.loader_ms, Timer::DbDone(t));
    }

    fn load(&mut self, t: usize, io: &mut Io<Timer>) {
        self.tasks[t].phase = Phase::Loading;
        self.start_query(t, io);
        if self.tasks[t].locked && self.cfg.layers.heartbeat {
            let gen = self.tasks[t].gen;
            let every = (self.cfg.lock_ttl_ms / 3).max(1);
            io.after(every, Timer::Beat(t, gen));
        }
    }

    fn beat(&mut self, t: usize, gen: u32, io: &mut Io<Timer>) {
        let task = &self.tasks[t];
        if task.phase != Phase::Loading || task.gen != gen {
            return;
        }
        let (inst, token) = (task.inst, task.token);
        let ttl_ms = self.cfg.lock_ttl_ms;
        self.send(inst, None, CacheCmd::Extend { token, ttl_ms }, io);
        let every = (self.cfg.lock_ttl_ms / 3).max(1);
        io.after(every, Timer::Beat(t, gen));
    }

    fn db_done(&mut self, t: usize, io: &mut Io<Timer>) {
        let now = io.now();
        self.loading -= 1;
        let q = self.tasks[t].query;
        self.out.borrow_mut().queries[q].end = now;
        self.tasks[t].gen += 1;
        if self.tasks[t].phase == Phase::Fallback {
            self.end(t, Path::Fallback, io);
            return;
        }
        let inst = self.tasks[t].inst;
        let c = self.cfg;
        let base = (c.fresh_ms + c.stale_ms) as f64;
        let u = self.inst_rng[inst].next_f64();
        let px_ms = ((base * (0.9 + 0.2 * u)).round() as u64).max(1);
        self.tasks[t].phase = Phase::Write;
        let write = CacheCmd::Write {
            loaded_at: now,
            fresh_until: now + c.fresh_ms,
            px_ms,
        };
        self.send(inst, Some(t), write, io);
    }

    fn release(&mut self, t: usize, io: &mut Io<Timer>) {
        let inst = self.tasks[t].inst;
        self.tasks[t].phase = Phase::Release;
        let token = self.tasks[t].token;
        self.send(inst, Some(t), CacheCmd::Release { token }, io);
    }

    /// Redis did not answer: a refresh gives up; a request goes to the database,
    /// through the instance's flight when singleflight is on.
    fn redis_failed(&mut self, t: usize, io: &mut Io<Timer>) {
        let (phase, locked, req, inst, leads) = {
            let k = &self.tasks[t];
            (k.phase, k.locked, k.req, k.inst, k.leads)
        };
        match phase {
            Phase::Write | Phase::Release => {
                // Loaded already: answer with what we have.
                let p = if locked { Path::Lock } else { Path::Miss };
                self.end(t, p, io);
            }
            _ if req.is_none() => self.end(t, Path::Miss, io),
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
                self.start_query(t, io);
            }
        }
    }

    /// The task is over: answer its request (and its flight's).
    fn end(&mut self, t: usize, path: Path, io: &mut Io<Timer>) {
        self.tasks[t].phase = Phase::Done;
        self.tasks[t].gen += 1;
        let inst = self.tasks[t].inst;
        match self.tasks[t].req {
            Some(req) => {
                self.answer(req, path, io);
                if self.tasks[t].leads {
                    self.tasks[t].leads = false;
                    if let Some((_, joiners)) = self.insts[inst].flight.take() {
                        let jp = if path == Path::Error {
                            Path::Error
                        } else {
                            Path::Wait
                        };
                        for j in joiners {
                            self.answer(j, jp, io);
                        }
                    }
                }
            }
            None => self.insts[inst].refreshing = false,
        }
    }
}

impl Model for CacheModel {
    type Timer = Timer;

    fn on_timer(&mut self, timer: Timer, io: &mut Io<Timer>) {
        match timer {
            Timer::Client(c) => self.client(c, io),
            Timer::Wake(t) => self.wake(t, io),
            Timer::Offline { inst, task, cmd } => self.offline_rejected(inst, task, cmd, io),
            Timer::DbDone(t) => self.db_done(t, io),
            Timer::Beat(t, gen) => self.beat(t, gen, io),
        }
    }

    fn on_reply(&mut self, op: OpId, _actor: ActorId, outcome: Outcome, io: &mut Io<Timer>) {
        let info = self.ops[op];
        if info.cmd.is_none() {
            // The starting entry is in place: the clients start.
            self.clients_start(io);
            return;
        }
        let Some(task) = info.task else {
            return;
        };
        match outcome {
            Outcome::Reply(r) => self.task_reply(task, &r, io),
            Outcome::Refused | Outcome::TimedOut => self.failed(op, io),
        }
    }

    fn on_logged(&mut self, op: OpId, actor: ActorId, _: &Command, what: Logged<'_>, at_ms: u64) {
        // The starting entry a live run puts in place is not the instances'.
        let Some(cmd) = self.ops[op].cmd else {
            return;
        };
        let reply = match what {
            Logged::Reply(r) => Ok(r.to_reply()),
            Logged::Refused => Err(NoReply::Refused),
            Logged::TimedOut(ms) => Err(NoReply::TimedOut(ms)),
        };
        self.out.borrow_mut().log.push(CmdRow {
            at_ms,
            inst: actor as u32,
            cmd,
            reply,
            rtt_us: None,
        });
    }

    fn actor_name(&self, actor: ActorId) -> String {
        self.names
            .get(actor)
            .cloned()
            .unwrap_or_else(|| format!("api-{}", actor + 1))
    }
}
