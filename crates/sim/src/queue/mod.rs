//! A job queue kept in SimRedis the way BullMQ keeps it in Redis, driven by [`World`] actors
//! in virtual time, so every state change is a Redis command in the trace.
//!
//! Key layout (BullMQ's, `bull:<queue>:…`; see its `src/commands/*.lua`):
//!
//! * `bull:<q>:wait` — list of waiting job ids; producers `LPUSH`, workers take from the right
//!   (`BLMOVE wait active RIGHT LEFT`), so the oldest runs first;
//! * `bull:<q>:active` — list of ids being processed;
//! * `bull:<q>:delayed` — sorted set, score = when the job may run again (the backoff);
//! * `bull:<q>:completed`, `bull:<q>:failed` — sorted sets, score = when it finished;
//! * `bull:<q>:<id>` — the job's hash (`name`, `data`, `ats` attempts started, `atm` attempts
//!   made, `stc` stalled count, `failedReason`);
//! * `bull:<q>:<id>:lock` — the worker's random token, `PX` lock duration (30 s by default);
//! * `bull:<q>:limiter` — the rate limiter's counter (`INCR`, `PEXPIRE` on the first);
//! * `bull:<q>:stalled` — ids seen active at the last stalled check.
//!
//! BullMQ runs each transition as one Lua script (`moveToActive`, `moveToFinished`,
//! `moveToDelayed`, `moveStalledJobsToWait`); here each is the same commands sent one after
//! the other, so the command log shows them, and the model is built so that no interleaving of
//! two workers' commands breaks it: a job is moved by whoever `LREM`s it from `active` (reply
//! 1), a worker finishes a job only if the token-checked release of its lock answers 1, and
//! the stalled check takes a job back only when it was active at two checks in a row without
//! a lock (BullMQ's two-phase check). Differences: the delayed jobs are promoted by the workers
//! each time they look for work (`ZRANGEBYSCORE delayed -inf <now>`, then `ZREM` + `LPUSH`),
//! up to the blocking timeout late, where BullMQ wakes a blocked worker with a marker key.
//!
//! Retries: a failing job is retried while `atm < attempts`, after `backoff · 2^(atm-1)` ms
//! (BullMQ's exponential backoff: `attempts: 3` means three runs and two waits, 10 s and
//! 20 s; a third wait of 40 s needs `attempts: 4`). After the last attempt it goes to the
//! failed set with its reason. A crashed worker process drops what it was doing; its job stays
//! in `active` until its lock expires, and the stalled check moves it back to `wait`
//! (or to `failed` once it stalled more than `max_stalled` times).

use crate::redis::{scripts, Reply};
use crate::world::{cmd, Action, Actor, Command, Ctx, Input};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

mod stalled;
pub use stalled::StalledCheck;

/// The keys of one queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    /// The keys of queue `name` (`bull:<name>:…`).
    pub fn new(name: &str) -> Self {
        Keys {
            prefix: format!("bull:{name}:"),
        }
    }
    /// `bull:<q>:<what>`.
    pub fn key(&self, what: &str) -> String {
        format!("{}{what}", self.prefix)
    }
    /// Waiting ids (list).
    pub fn wait(&self) -> String {
        self.key("wait")
    }
    /// Active ids (list).
    pub fn active(&self) -> String {
        self.key("active")
    }
    /// Delayed ids (sorted set by due time).
    pub fn delayed(&self) -> String {
        self.key("delayed")
    }
    /// Completed ids (sorted set by finish time).
    pub fn completed(&self) -> String {
        self.key("completed")
    }
    /// Failed ids (sorted set by finish time).
    pub fn failed(&self) -> String {
        self.key("failed")
    }
    /// Ids seen active at the last stalled check (list).
    pub fn stalled(&self) -> String {
        self.key("stalled")
    }
    /// The rate limiter's counter.
    pub fn limiter(&self) -> String {
        self.key("limiter")
    }
    /// The job's hash.
    pub fn job(&self, id: &str) -> String {
        self.key(id)
    }
    /// The job's lock.
    pub fn lock(&self, id: &str) -> String {
        format!("{}{id}:lock", self.prefix)
    }
    /// The command that adds job `id` the way BullMQ's `addStandardJob` does, in one script:
    /// nothing when the job's hash already exists (a job id is added once), else its hash and
    /// its id on the wait list. Reply 1 when added.
    pub fn add(&self, id: &str, name: &str, data: &str) -> Command {
        cmd(&[
            "EVALSHA",
            scripts::ADD_JOB.sha1,
            "2",
            &self.job(id),
            &self.wait(),
            id,
            name,
            data,
        ])
    }
}

/// BullMQ's exponential backoff: the wait after the `made`-th failed attempt (1-based).
pub fn backoff_ms(base_ms: u64, made: u32) -> u64 {
    base_ms.saturating_mul(1u64 << made.saturating_sub(1).min(40))
}

/// Queue settings (BullMQ's names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    /// Runs per job (1 = no retry).
    pub attempts: u32,
    /// Backoff base, ms.
    pub backoff_ms: u64,
    /// `lockDuration`, ms.
    pub lock_ms: u64,
    /// `stalledInterval`, ms.
    pub stalled_ms: u64,
    /// `maxStalledCount`.
    pub max_stalled: u32,
    /// Limiter: jobs per window (0 = no limiter).
    pub limit_max: u32,
    /// Limiter window, ms.
    pub limit_ms: u64,
    /// How long at most an idle worker blocks on the wait list, ms (BullMQ's `drainDelay`).
    pub block_ms: u64,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            attempts: 3,
            backoff_ms: 10_000,
            lock_ms: 30_000,
            stalled_ms: 30_000,
            max_stalled: 1,
            limit_max: 0,
            limit_ms: 1000,
            block_ms: 5000,
        }
    }
}

/// A worker process's life: when it is down (crashed) and when it comes back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Life {
    /// Down from `.0` until `.1` (ms), sorted.
    pub down: Vec<(u64, u64)>,
}

impl Life {
    /// If the process is down at `now`: when it comes back.
    pub fn down_at(&self, now: u64) -> Option<u64> {
        self.down
            .iter()
            .find(|&&(a, b)| a <= now && now < b)
            .map(|&(_, b)| b)
    }
    /// The next crash after `now`, if any.
    pub fn next_crash(&self, now: u64) -> Option<u64> {
        self.down.iter().map(|&(a, _)| a).find(|&a| a > now)
    }
    /// Adds a crash at `at` lasting `ms` (an out-of-memory kill found while running).
    pub fn crash(&mut self, at: u64, ms: u64) {
        self.down.push((at, at + ms));
        self.down.sort_unstable();
    }
}

/// A job in a worker's hands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Running {
    /// Job id.
    pub id: String,
    /// Which run of it this is (`ats` after the increment: 1 = first).
    pub attempt: u32,
    /// The processor's progress through the job.
    pub stage: u32,
    /// The processor's own counter (e.g. the page it is on).
    pub pos: u64,
    /// Commands the processor queued to send one after the other.
    pub queue: VecDeque<Command>,
    /// The last command the processor sent (to read its reply against).
    pub sent: Option<Command>,
    /// The worker slot (actor) running it.
    pub slot: usize,
    /// When this run began, ms.
    pub started_ms: u64,
}

/// The next thing a processor does with a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Send a command to Redis (the reply comes to the next [`Processor::step`]).
    Send(Command),
    /// Be busy (a database query, an HTTP call).
    Work {
        /// How long, ms.
        ms: u64,
        /// What for (the trace shows it).
        what: String,
    },
    /// The process dies here (out of memory).
    Crash,
    /// The job is done: `Ok`, or failed with a reason.
    Finish(Result<(), String>),
}

/// How a run of a job ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Moved to `completed`.
    Completed,
    /// Failed; moved to `delayed`, due at this time.
    Retry {
        /// Why it failed.
        reason: String,
        /// When it may run again, ms.
        due_ms: u64,
    },
    /// Failed for the last time: moved to `failed`.
    Failed {
        /// Why.
        reason: String,
    },
    /// The process crashed while running it.
    Crashed,
    /// Its lock was gone when it finished (the stalled check had taken it back): the result
    /// is dropped, as BullMQ's "Missing lock" does.
    LockLost,
}

/// What runs jobs, and hears what happens to them.
pub trait Processor {
    /// The next step of `run` (after `reply`, the answer to its last [`Step::Send`], if any).
    fn step(&mut self, run: &mut Running, reply: Option<&Reply>, now_ms: u64) -> Step;
    /// A slot took job `id` for its `attempt`-th run.
    fn started(&mut self, run: &Running, now_ms: u64);
    /// How a run ended.
    fn ended(&mut self, run: &Running, outcome: &Outcome, now_ms: u64);
    /// The stalled check moved job `id` back to wait (`to_failed`: to the failed set).
    fn stalled(&mut self, id: &str, to_failed: bool, now_ms: u64);
    /// Nothing is left to do: the actors stop.
    fn finished(&self) -> bool;
    /// The next time after `now` a delayed job becomes due, if known (BullMQ's delay marker
    /// tells a blocked worker the same): an idle worker blocks no longer than that.
    fn next_due(&self, _now_ms: u64) -> Option<u64> {
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Promote,
    Promoting,
    Limit,
    LimitTtl,
    Fetch,
    Lock,
    Attempt,
    Processing,
    Renew,
    Claim,
    Attempts,
    Moving,
    Down,
}

/// One concurrency slot of a worker process: looks for a job, locks it, runs it through the
/// [`Processor`], and moves it to completed, delayed or failed.
pub struct Slot<P: Processor> {
    name: String,
    slot: usize,
    keys: Keys,
    cfg: QueueConfig,
    life: Rc<RefCell<Life>>,
    proc_: Rc<RefCell<P>>,
    phase: Phase,
    run: Option<Running>,
    token: String,
    /// Commands still to send in this phase.
    out: VecDeque<Command>,
    result: Option<Result<(), String>>,
    decided: Option<Outcome>,
    restart_ms: u64,
    renew_at: u64,
    last_zrem: Option<String>,
}

impl<P: Processor> Slot<P> {
    /// Slot `slot` (its actor is named `name`) of a process whose life is `life`; an
    /// out-of-memory crash keeps the process down for `restart_ms`.
    pub fn new(
        name: String,
        slot: usize,
        keys: Keys,
        cfg: QueueConfig,
        life: Rc<RefCell<Life>>,
        proc_: Rc<RefCell<P>>,
        restart_ms: u64,
    ) -> Self {
        Slot {
            name,
            slot,
            keys,
            cfg,
            life,
            proc_,
            phase: Phase::Idle,
            run: None,
            token: String::new(),
            out: VecDeque::new(),
            result: None,
            decided: None,
            restart_ms,
            renew_at: 0,
            last_zrem: None,
        }
    }

    fn send(&mut self, phase: Phase, c: Command) -> Action {
        self.phase = phase;
        Action::Send { cmd: c }
    }

    /// A sleep or a piece of work, cut short at the next crash.
    fn busy(&self, now: u64, ms: u64, what: Option<String>) -> Action {
        let ms = match self.life.borrow().next_crash(now) {
            Some(c) if c < now + ms => c - now,
            _ => ms,
        }
        .max(1);
        match what {
            Some(what) => Action::Work { ms, what },
            None => Action::Sleep { ms },
        }
    }

    fn look(&mut self, now: u64) -> Action {
        self.run = None;
        if self.proc_.borrow().finished() {
            return Action::Done;
        }
        let d = self.keys.delayed();
        self.send(
            Phase::Promote,
            cmd(&[
                "ZRANGEBYSCORE",
                &d,
                "-inf",
                &now.to_string(),
                "LIMIT",
                "0",
                "1000",
            ]),
        )
    }

    fn limit_or_fetch(&mut self, now: u64) -> Action {
        if self.cfg.limit_max > 0 {
            let l = self.keys.limiter();
            self.send(Phase::Limit, cmd(&["INCR", &l]))
        } else {
            self.fetch(now)
        }
    }

    fn fetch(&mut self, now: u64) -> Action {
        let mut ms = self.cfg.block_ms;
        // The first slot wakes for the next delayed job and promotes it; the others block the
        // full time (a push wakes one of them), so a thousand idle slots do not all wake at
        // every due time.
        if self.slot == 0 {
            if let Some(d) = self.proc_.borrow().next_due(now) {
                ms = ms.min(d.saturating_sub(now).max(1));
            }
        }
        if let Some(c) = self.life.borrow().next_crash(now) {
            ms = ms.min(c.saturating_sub(now + 2));
        }
        let (w, a) = (self.keys.wait(), self.keys.active());
        if ms == 0 {
            return self.send(Phase::Fetch, cmd(&["LMOVE", &w, &a, "RIGHT", "LEFT"]));
        }
        let t = format!("{}.{:03}", ms / 1000, ms % 1000);
        self.send(Phase::Fetch, cmd(&["BLMOVE", &w, &a, "RIGHT", "LEFT", &t]))
    }

    fn process(&mut self, reply: Option<&Reply>, now: u64) -> Action {
        let Some(mut run) = self.run.take() else {
            return self.look(now);
        };
        // The lock is renewed every half lock duration while the job runs (BullMQ's
        // extendLock), between steps that await no reply.
        if reply.is_none() && now >= self.renew_at {
            self.renew_at = now + self.cfg.lock_ms / 2;
            let lock = self.keys.lock(&run.id);
            self.run = Some(run);
            let ms = self.cfg.lock_ms.to_string();
            return self.send(
                Phase::Renew,
                cmd(&[
                    "EVALSHA",
                    scripts::EXTEND.sha1,
                    "1",
                    &lock,
                    &self.token,
                    &ms,
                ]),
            );
        }
        let step = self.proc_.borrow_mut().step(&mut run, reply, now);
        let id = run.id.clone();
        self.run = Some(run);
        self.phase = Phase::Processing;
        match step {
            Step::Send(c) => Action::Send { cmd: c },
            Step::Work { ms, what } => self.busy(now, ms, Some(what)),
            Step::Crash => {
                self.life.borrow_mut().crash(now, self.restart_ms);
                self.go_down(now)
            }
            Step::Finish(r) => {
                // moveToFinished / moveToDelayed: whoever takes the id out of `active` owns
                // the move (the stalled check may have taken it back already).
                self.result = Some(r);
                self.send(Phase::Claim, cmd(&["LREM", &self.keys.active(), "1", &id]))
            }
        }
    }

    fn end(&mut self, outcome: Outcome, now: u64) {
        if let Some(run) = self.run.take() {
            self.proc_.borrow_mut().ended(&run, &outcome, now);
        }
    }

    fn go_down(&mut self, now: u64) -> Action {
        self.end(Outcome::Crashed, now);
        self.out.clear();
        self.phase = Phase::Down;
        let back = self.life.borrow().down_at(now).unwrap_or(now + 1);
        Action::Sleep { ms: back - now }
    }

    /// The token-checked release of job `id`'s lock.
    fn release(&self, id: &str) -> Command {
        let lock = self.keys.lock(id);
        cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", &lock, &self.token])
    }

    fn moving(&mut self, now: u64) -> Action {
        match self.out.pop_front() {
            Some(c) => self.send(Phase::Moving, c),
            None => {
                let o = self.decided.take().unwrap_or(Outcome::Completed);
                self.end(o, now);
                self.look(now)
            }
        }
    }
}

impl<P: Processor> Actor for Slot<P> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        if self.phase != Phase::Down && self.life.borrow().down_at(now).is_some() {
            return self.go_down(now);
        }
        let reply = match input {
            Input::Reply { reply } => Some(reply),
            _ => None,
        };
        match (self.phase, reply) {
            (Phase::Idle | Phase::Down, _) => self.look(now),
            (Phase::Promote, Some(Reply::Array(ids))) if !ids.is_empty() => {
                // Each due id: ZREM it, and push it to wait only if this ZREM removed it (two
                // workers may see the same due id; BullMQ does both in one script).
                let d = self.keys.delayed();
                for id in ids {
                    let id = String::from_utf8_lossy(id.as_bulk().unwrap_or_default()).into_owned();
                    self.out.push_back(cmd(&["ZREM", &d, &id]));
                }
                let c = self.out.pop_front().expect("promote");
                self.last_zrem = Some(String::from_utf8_lossy(&c[2]).into_owned());
                self.send(Phase::Promoting, c)
            }
            (Phase::Promote, _) => self.limit_or_fetch(now),
            (Phase::Promoting, r) => {
                if let (Some(1), Some(zrem)) = (r.and_then(Reply::as_int), self.last_zrem.take()) {
                    self.out
                        .push_front(cmd(&["LPUSH", &self.keys.wait(), &zrem]));
                }
                match self.out.pop_front() {
                    Some(c) => {
                        if c[0] == b"ZREM" {
                            self.last_zrem = Some(String::from_utf8_lossy(&c[2]).into_owned());
                        }
                        self.send(Phase::Promoting, c)
                    }
                    None => self.limit_or_fetch(now),
                }
            }
            (Phase::Limit, Some(r)) => {
                let n = r.as_int().unwrap_or(0);
                let l = self.keys.limiter();
                if n == 1 {
                    self.out
                        .push_back(cmd(&["PEXPIRE", &l, &self.cfg.limit_ms.to_string()]));
                    let c = self.out.pop_front().expect("pexpire");
                    // PEXPIRE's reply comes back to Limit with n = 1 ≤ max: then fetch.
                    self.send(Phase::LimitTtl, c)
                } else if n > i64::from(self.cfg.limit_max) {
                    self.send(Phase::LimitTtl, cmd(&["PTTL", &l]))
                } else {
                    self.fetch(now)
                }
            }
            (Phase::LimitTtl, Some(Reply::Integer(-1))) => {
                // A counter without a TTL (its PEXPIRE was lost with a crashed worker; BullMQ
                // sets both in one script): give it one, and look again.
                let l = self.keys.limiter();
                self.phase = Phase::Idle;
                Action::Send {
                    cmd: cmd(&["PEXPIRE", &l, &self.cfg.limit_ms.to_string()]),
                }
            }
            (Phase::LimitTtl, Some(r)) => match r.as_int() {
                // PTTL: wait for the window to end (-1/-2: it just ended).
                Some(ms) if !(0..=1).contains(&ms) => {
                    if ms > 1 {
                        self.phase = Phase::Idle;
                        self.busy(now, ms as u64, None)
                    } else {
                        self.look(now)
                    }
                }
                // PEXPIRE answered 1: this slot opened the window.
                _ => self.fetch(now),
            },
            (Phase::Fetch, Some(Reply::Bulk(id))) => {
                let id = String::from_utf8_lossy(id).into_owned();
                self.token = format!("{:08x}", ctx.rng.next_u32());
                let lock = self.keys.lock(&id);
                self.run = Some(Running {
                    id,
                    attempt: 0,
                    stage: 0,
                    pos: 0,
                    queue: VecDeque::new(),
                    sent: None,
                    slot: self.slot,
                    started_ms: now,
                });
                let ms = self.cfg.lock_ms.to_string();
                self.renew_at = now + self.cfg.lock_ms / 2;
                self.send(Phase::Lock, cmd(&["SET", &lock, &self.token, "PX", &ms]))
            }
            (Phase::Fetch, _) => self.look(now),
            (Phase::Lock, _) => {
                let id = self.run.as_ref().map(|r| r.id.clone()).unwrap_or_default();
                let job = self.keys.job(&id);
                self.send(Phase::Attempt, cmd(&["HINCRBY", &job, "ats", "1"]))
            }
            (Phase::Attempt, Some(r)) => {
                if let Some(run) = self.run.as_mut() {
                    run.attempt = r.as_int().unwrap_or(1).max(1) as u32;
                }
                if let Some(run) = &self.run {
                    self.proc_.borrow_mut().started(run, now);
                }
                self.process(None, now)
            }
            (Phase::Processing, r) => self.process(r, now),
            (Phase::Renew, _) => self.process(None, now),
            (Phase::Claim, Some(r)) => {
                if r.as_int() != Some(1) {
                    self.result = None;
                    self.end(Outcome::LockLost, now);
                    return self.look(now);
                }
                let id = self.run.as_ref().map(|r| r.id.clone()).unwrap_or_default();
                match self.result.take() {
                    Some(Ok(())) | None => {
                        self.out.push_back(cmd(&[
                            "ZADD",
                            &self.keys.completed(),
                            &now.to_string(),
                            &id,
                        ]));
                        self.out.push_back(self.release(&id));
                        self.decided = Some(Outcome::Completed);
                        self.moving(now)
                    }
                    Some(Err(reason)) => {
                        self.decided = Some(Outcome::Failed { reason });
                        let job = self.keys.job(&id);
                        self.send(Phase::Attempts, cmd(&["HINCRBY", &job, "atm", "1"]))
                    }
                }
            }
            (Phase::Attempts, Some(r)) => {
                let made = r.as_int().unwrap_or(1).max(1) as u32;
                let id = self.run.as_ref().map(|r| r.id.clone()).unwrap_or_default();
                let reason = match self.decided.take() {
                    Some(Outcome::Failed { reason }) => reason,
                    _ => String::new(),
                };
                let job = self.keys.job(&id);
                self.out
                    .push_back(cmd(&["HSET", &job, "failedReason", &reason]));
                if made < self.cfg.attempts {
                    let due = now + backoff_ms(self.cfg.backoff_ms, made);
                    self.out
                        .push_back(cmd(&["ZADD", &self.keys.delayed(), &due.to_string(), &id]));
                    self.decided = Some(Outcome::Retry {
                        reason,
                        due_ms: due,
                    });
                } else {
                    self.out
                        .push_back(cmd(&["ZADD", &self.keys.failed(), &now.to_string(), &id]));
                    self.decided = Some(Outcome::Failed { reason });
                }
                self.out.push_back(self.release(&id));
                self.moving(now)
            }
            (Phase::Moving, _) => self.moving(now),
            _ => self.look(now),
        }
    }
}

#[cfg(test)]
mod tests;
