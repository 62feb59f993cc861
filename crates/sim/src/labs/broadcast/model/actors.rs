//! The broadcast's actors: the API (the admin's click, the dedup key, the broadcast job) and
//! [`Bcast`], everything outside Redis — FCM, Postgres, the page cursor — and the record of
//! what each token got, the queue's processor.

use super::super::output::{Attempt, Counters, End, Moment, Page, Response, Why};
use super::super::params::{BroadcastConfig, BroadcastParams, Paging, Responses};
use super::super::{DEDUP_KEY, QUEUE};
use crate::labs::params::Switch;
use crate::queue::{Keys, Outcome, Processor, Running, Step};
use crate::redis::Reply;
use crate::world::{cmd, Action, Actor, Ctx, Input};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

// ---------------------------------------------------------------------------------------
// The world: Postgres, FCM and the tokens, outside Redis.

/// Whether token `id` (1-based) is dead, for a seed and a percentage.
pub fn is_dead(seed: u32, pct: u32, id: u32) -> bool {
    if pct == 0 {
        return false;
    }
    let mut x = id.wrapping_mul(0x9E37_79B9) ^ seed.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    x % 100 < pct
}

#[derive(Clone, Debug)]
pub(super) enum JobKind {
    Broadcast,
    Batch { n: u32, from: u32, to: u32 },
}

/// Everything outside Redis, and the record: the world's processor.
pub(super) struct Bcast {
    pub(super) p: BroadcastParams,
    /// The length of FCM's quota bucket, ms (a minute at the lab's pace).
    pub(super) bucket_ms: u64,
    pub(super) outages: Vec<(u64, u64)>,
    pub(super) keys: Keys,
    pub(super) jobs: BTreeMap<String, JobKind>,
    /// Jobs not yet completed or failed.
    pub(super) live: u64,
    pub(super) api_done: bool,
    pub(super) sends: Vec<u8>,
    pub(super) marked: Vec<bool>,
    /// FCM's quota bucket: which minute, and the messages it took in it.
    pub(super) bucket: (u64, u64),
    pub(super) db_free: Vec<u64>,
    /// Per slot: the error its current batch throws.
    pub(super) why: BTreeMap<usize, String>,
    /// Per batch job: the tokens its last call failed with a retryable code, to write into
    /// the job's data before it throws (`job.updateData`).
    pub(super) failing: BTreeMap<String, Vec<u32>>,
    /// Per batch job: the tokens its data holds after an `updateData` (a retry sends only
    /// these; absent: the whole range).
    pub(super) left: BTreeMap<String, Vec<u32>>,
    pub(super) attempts: Vec<Attempt>,
    pub(super) open: BTreeMap<String, usize>,
    pub(super) pages: Vec<Page>,
    pub(super) moments: Vec<Moment>,
    pub(super) responses: Vec<Response>,
    /// (ms, delivered so far, twice so far, calls so far, marked so far)
    pub(super) series: Vec<(u64, u64, u64, u64, u64)>,
    /// When retried jobs become due.
    pub(super) dues: BTreeSet<u64>,
    pub(super) c: Counters,
}

impl Bcast {
    pub(super) fn new(cfg: &BroadcastConfig) -> Self {
        let p = cfg.p.clone();
        let n = p.tokens as usize + 1;
        Bcast {
            bucket_ms: cfg.pace.window * 60,
            outages: cfg.outages.clone(),
            keys: Keys::new(QUEUE),
            jobs: BTreeMap::new(),
            live: 0,
            api_done: false,
            sends: vec![0; n],
            marked: vec![false; n],
            bucket: (0, 0),
            db_free: vec![0; p.db_pool as usize],
            why: BTreeMap::new(),
            failing: BTreeMap::new(),
            left: BTreeMap::new(),
            attempts: Vec::new(),
            open: BTreeMap::new(),
            pages: Vec::new(),
            moments: Vec::new(),
            responses: Vec::new(),
            series: Vec::new(),
            dues: BTreeSet::new(),
            c: Counters::default(),
            p,
        }
    }

    fn moment(&mut self, at_ms: u64, kind: &str, n: u64) {
        self.moments.push(Moment {
            at_ms,
            kind: kind.into(),
            n,
            job: None,
        });
    }

    fn job_moment(&mut self, at_ms: u64, kind: &str, job: &str) {
        let n = match self.jobs.get(job) {
            Some(JobKind::Batch { n, .. }) => u64::from(*n),
            _ => 0,
        };
        self.moments.push(Moment {
            at_ms,
            kind: kind.into(),
            n,
            job: Some(job.to_string()),
        });
    }

    fn snap(&mut self, now: u64) {
        let s = (
            now,
            self.c.delivered,
            self.c.sent_twice,
            self.c.fcm_calls,
            self.c.dead_marked,
        );
        match self.series.last_mut() {
            Some(l) if l.0 == now => *l = s,
            _ => self.series.push(s),
        }
    }

    fn down(&self, now: u64) -> bool {
        self.outages.iter().any(|&(a, b)| a <= now && now < b)
    }

    fn page_ms(&self, n: u64) -> u64 {
        let skip = n * u64::from(self.p.page);
        self.p.page_ms
            + if self.p.paging == Paging::Offset {
                skip * self.p.skip_ns / 1_000_000
            } else {
                0
            }
    }

    /// Chunks of the page `[from, to]` (1-based ids).
    fn chunks(&self, from: u32, to: u32) -> Vec<(u32, u32)> {
        let size = self.p.chunk.min(self.p.page).max(1);
        let mut out = Vec::new();
        let mut a = from;
        while a <= to {
            let b = to.min(a.saturating_add(size - 1));
            out.push((a, b));
            a = b + 1;
        }
        out
    }

    /// Queues the adds of a page's batch jobs.
    fn enqueue_page(&self, run: &mut Running, from: u32, to: u32) {
        let parent = run.id.clone();
        for (a, b) in self.chunks(from, to) {
            let n = self.batch_no(a);
            let id = format!("{parent}-{n}");
            let data = format!(r#"{{"from":{a},"to":{b}}}"#);
            run.queue.push_back(self.keys.add(&id, "batch", &data));
        }
    }

    fn batch_no(&self, first_id: u32) -> u32 {
        // Batches are numbered page by page, chunk by chunk.
        let page = u64::from(self.p.page);
        let size = u64::from(self.p.chunk.min(self.p.page).max(1));
        let i = u64::from(first_id - 1);
        let per_page = page.div_ceil(size);
        ((i / page) * per_page + (i % page) / size) as u32
    }

    fn pages(&self) -> u64 {
        u64::from(self.p.tokens).div_ceil(u64::from(self.p.page))
    }

    fn broadcast_step(&mut self, run: &mut Running, reply: Option<&Reply>, now: u64) -> Step {
        // stage 0: start; 1: next page; 2: sending the adds; 3: waiting for EXISTS; 10: all loaded.
        loop {
            match run.stage {
                0 => {
                    if self.p.paging == Paging::All {
                        run.stage = 10;
                        let ms = self.pages() * self.p.page_ms;
                        return Step::Work {
                            ms,
                            what: "findMany() — সব টোকেন একসাথে".into(),
                        };
                    }
                    run.stage = 1;
                }
                1 => {
                    if run.pos >= self.pages() {
                        return Step::Finish(Ok(()));
                    }
                    let n = run.pos;
                    let from = (n * u64::from(self.p.page)) as u32 + 1;
                    let to =
                        ((n + 1) * u64::from(self.p.page)).min(u64::from(self.p.tokens)) as u32;
                    let ms = self.page_ms(n);
                    self.pages.push(Page {
                        n: n as u32,
                        at_ms: now,
                        skip: if self.p.paging == Paging::Offset {
                            n * u64::from(self.p.page)
                        } else {
                            0
                        },
                        ms,
                    });
                    self.enqueue_page(run, from, to);
                    run.pos += 1;
                    run.stage = 2;
                    let what = if self.p.paging == Paging::Offset {
                        format!(
                            "SELECT id … OFFSET {} LIMIT {}",
                            n * u64::from(self.p.page),
                            self.p.page
                        )
                    } else {
                        format!("SELECT id … WHERE id > {} LIMIT {}", from - 1, self.p.page)
                    };
                    return Step::Work { ms, what };
                }
                2 => match run.queue.pop_front() {
                    Some(c) => {
                        run.stage = 3;
                        run.sent = Some(c.clone());
                        return Step::Send(c);
                    }
                    None => run.stage = 1,
                },
                3 => {
                    // The add script's reply: 0 = added before (a rerun of this broadcast
                    // job), nothing twice; 1 = a new batch job.
                    run.stage = 2;
                    if reply.and_then(Reply::as_int) == Some(1) {
                        if let Some(sent) = run.sent.take() {
                            let id = String::from_utf8_lossy(&sent[5]).into_owned();
                            let data = String::from_utf8_lossy(&sent[7]).into_owned();
                            let (from, to) = parse_range(&data);
                            let n = self.batch_no(from);
                            self.jobs.insert(id, JobKind::Batch { n, from, to });
                            self.live += 1;
                            self.c.jobs += 1;
                        }
                    }
                }
                10 => {
                    let mb = u64::from(self.p.tokens) * self.p.row_bytes / 1_000_000;
                    if mb > self.p.heap_mb {
                        self.moment(now, "oom", mb);
                        run.stage = 0;
                        return Step::Crash;
                    }
                    self.enqueue_page(run, 1, self.p.tokens);
                    run.pos = self.pages();
                    run.stage = 2;
                }
                _ => return Step::Finish(Ok(())),
            }
        }
    }

    /// A batch's `sendEachForMulticast`: the tokens its job still holds (the whole range, or
    /// what the last run left in its data). More than `fcm_max` tokens: firebase-admin throws
    /// before sending. Otherwise the call resolves and every token gets its own answer: during
    /// an outage `messaging/server-unavailable`; past the minute's quota bucket (`quota`
    /// messages a minute per project) 429 `messaging/message-rate-exceeded` with a
    /// `retry-after` to the next minute; a dead token `registration-token-not-registered`;
    /// the rest delivered. A worker that ignores the answers completes the job whatever they
    /// say (the failed tokens are lost, and nobody marks the dead ones); the fixed worker
    /// marks the dead ones and throws for the retryable failures, after writing them into the
    /// job's data.
    fn call_fcm(&mut self, run: &mut Running, now: u64, from: u32, to: u32) -> Step {
        let slot = run.slot;
        let ids: Vec<u32> = match self.left.get(&run.id) {
            Some(ids) => ids.clone(),
            None => (from..=to).collect(),
        };
        self.failing.remove(&run.id);
        let n = ids.len();
        self.c.fcm_calls += 1;
        let what = format!("sendEachForMulticast({n})");
        if n > self.p.fcm_max as usize {
            self.c.calls_rejected += 1;
            self.why.insert(slot, Why::TooMany.reason(self.p.fcm_max));
            self.snap(now);
            run.stage = 9;
            return Step::Work {
                ms: (self.p.call_ms / 4).max(1),
                what,
            };
        }
        let (taken, failed) = if self.down(now) {
            self.c.calls_unavailable += 1;
            (
                0,
                format!("messaging/server-unavailable: {n} of {n} tokens"),
            )
        } else {
            let minute = now / self.bucket_ms.max(1);
            if self.bucket.0 != minute {
                self.bucket = (minute, 0);
            }
            let room = u64::from(self.p.quota).saturating_sub(self.bucket.1);
            let taken = (n as u64).min(room) as usize;
            self.bucket.1 += taken as u64;
            let after = ((minute + 1) * self.bucket_ms - now).div_ceil(1000);
            if taken < n {
                self.c.calls_429 += 1;
            }
            let k = n - taken;
            (
                taken,
                format!(
                    "429 messaging/message-rate-exceeded: {k} of {n} tokens, retry-after {after} s"
                ),
            )
        };
        if taken == n {
            self.c.calls_ok += 1;
        }
        // FCM has the call: it delivers what it took, whatever happens to the worker next.
        let (mut got, mut twice, mut dead) = (0, 0, 0);
        for &id in &ids[..taken] {
            if is_dead(self.p.seed, self.p.dead, id) {
                dead += 1;
                if self.sends[id as usize] == 0 {
                    self.c.dead += 1;
                }
                self.sends[id as usize] = self.sends[id as usize].saturating_add(1);
                continue;
            }
            let s = &mut self.sends[id as usize];
            *s = s.saturating_add(1);
            got += 1;
            match *s {
                1 => self.c.delivered += 1,
                2 => {
                    self.c.sent_twice += 1;
                    twice += 1;
                }
                _ => twice += 1,
            }
        }
        if let Some(&i) = self.open.get(&run.id) {
            let a = &mut self.attempts[i];
            a.delivered = got;
            a.twice = twice;
            a.dead = dead;
        }
        self.snap(now);
        run.pos = u64::from(dead);
        let reads = self.p.responses == Responses::Retry;
        if reads && taken < n {
            self.why.insert(slot, failed);
            self.failing.insert(run.id.clone(), ids[taken..].to_vec());
        }
        run.stage = if reads && dead > 0 && self.p.mark_dead == Switch::On {
            2
        } else {
            3
        };
        Step::Work {
            ms: self.p.call_ms,
            what,
        }
    }

    fn batch_step(&mut self, run: &mut Running, now: u64, from: u32, to: u32) -> Step {
        let slot = run.slot;
        match run.stage {
            0 => {
                // The batch's token query: the first free connection of the pool.
                let (i, free) = self
                    .db_free
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by_key(|&(i, f)| (f, i))
                    .unwrap_or((0, 0));
                let start = free.max(now);
                let wait = start - now;
                if wait >= self.p.db_timeout {
                    self.c.db_timeouts += 1;
                    self.c.db_wait_max_ms = self.c.db_wait_max_ms.max(self.p.db_timeout);
                    self.why.insert(slot, Why::DbTimeout.reason(self.p.fcm_max));
                    run.stage = 9;
                    return Step::Work {
                        ms: self.p.db_timeout,
                        what: "Postgres: কানেকশনের অপেক্ষা".into(),
                    };
                }
                self.c.db_wait_max_ms = self.c.db_wait_max_ms.max(wait);
                self.db_free[i] = start + self.p.db_ms;
                run.stage = 1;
                Step::Work {
                    ms: wait + self.p.db_ms,
                    what: format!("SELECT token … WHERE id BETWEEN {from} AND {to}"),
                }
            }
            1 => self.call_fcm(run, now, from, to),
            2 => {
                // One updateMany for the tokens FCM answered "not registered": never deleted,
                // never retried.
                for id in from..=to {
                    if is_dead(self.p.seed, self.p.dead, id)
                        && self.sends[id as usize] > 0
                        && !self.marked[id as usize]
                    {
                        self.marked[id as usize] = true;
                        self.c.dead_marked += 1;
                    }
                }
                self.snap(now);
                run.stage = 3;
                Step::Work {
                    ms: self.p.db_ms,
                    what: format!("updateMany({} টোকেন, isValid = false)", run.pos),
                }
            }
            3 => match self.failing.remove(&run.id) {
                // The fixed worker keeps the tokens that failed with a retryable code in the
                // job's data and throws: BullMQ retries the job, with backoff, for them only.
                Some(ids) => {
                    let data = format!(r#"{{"from":{from},"to":{to},"left":{}}}"#, ids.len());
                    self.left.insert(run.id.clone(), ids);
                    run.stage = 9;
                    Step::Send(cmd(&["HSET", &self.keys.job(&run.id), "data", &data]))
                }
                None => Step::Finish(Ok(())),
            },
            9 => {
                let why = self.why.remove(&slot);
                Step::Finish(Err(
                    why.unwrap_or_else(|| Why::Unavailable.reason(self.p.fcm_max))
                ))
            }
            _ => Step::Finish(Ok(())),
        }
    }
}

pub(super) fn parse_range(data: &str) -> (u32, u32) {
    let num = |k: &str| -> u32 {
        data.split(k)
            .nth(1)
            .map(|r| {
                r.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|s| s.parse().ok())
            .unwrap_or(1)
    };
    (num("\"from\":"), num("\"to\":"))
}

impl Processor for Bcast {
    fn step(&mut self, run: &mut Running, reply: Option<&Reply>, now: u64) -> Step {
        match self.jobs.get(&run.id).cloned() {
            Some(JobKind::Broadcast) => self.broadcast_step(run, reply, now),
            Some(JobKind::Batch { from, to, .. }) => self.batch_step(run, now, from, to),
            None => Step::Finish(Err("unknown job".into())),
        }
    }

    fn started(&mut self, run: &Running, now: u64) {
        let batch = match self.jobs.get(&run.id) {
            Some(JobKind::Batch { n, .. }) => Some(*n),
            _ => None,
        };
        self.open.insert(run.id.clone(), self.attempts.len());
        self.attempts.push(Attempt {
            job: run.id.clone(),
            batch,
            attempt: run.attempt,
            slot: run.slot,
            from_ms: now,
            to_ms: now,
            end: End::Running,
            why: None,
            due_ms: None,
            delivered: 0,
            twice: 0,
            dead: 0,
        });
    }

    fn ended(&mut self, run: &Running, o: &Outcome, now: u64) {
        let Some(i) = self.open.remove(&run.id) else {
            return;
        };
        let a = &mut self.attempts[i];
        a.to_ms = now;
        let why_of = |r: &str| -> Option<Why> {
            Some(if r.starts_with("Postgres") {
                Why::DbTimeout
            } else if r.starts_with("messaging/invalid") {
                Why::TooMany
            } else if r.starts_with("429") {
                Why::Quota
            } else {
                Why::Unavailable
            })
        };
        match o {
            Outcome::Completed => {
                a.end = End::Completed;
                self.live -= 1;
            }
            Outcome::Retry { reason, due_ms } => {
                a.end = End::Retry;
                a.why = why_of(reason);
                a.due_ms = Some(*due_ms);
                self.c.retries += 1;
                self.dues.insert(*due_ms);
            }
            Outcome::Failed { reason } => {
                a.end = End::Failed;
                a.why = why_of(reason);
                self.c.failed_jobs += 1;
                self.live -= 1;
                self.job_moment(now, "failed", &run.id);
            }
            Outcome::Crashed => {
                a.end = End::Crashed;
            }
            Outcome::LockLost => a.end = End::LockLost,
        }
        self.snap(now);
    }

    fn stalled(&mut self, id: &str, to_failed: bool, now: u64) {
        self.c.stalled += 1;
        self.job_moment(now, "stalled", id);
        if to_failed {
            self.c.failed_jobs += 1;
            self.live -= 1;
            self.job_moment(now, "failed", id);
        }
    }

    fn finished(&self) -> bool {
        self.api_done && self.live == 0
    }

    fn next_due(&self, now: u64) -> Option<u64> {
        self.dues.range(now + 1..).next().copied()
    }
}

/// The admin's clicks and the API behind them.
pub(super) struct Api {
    pub(super) p: BroadcastParams,
    pub(super) b: Rc<RefCell<Bcast>>,
    pub(super) click: u32,
    pub(super) clicked_at: u64,
    pub(super) stage: u8,
    pub(super) job: String,
}

impl Api {
    fn click(&mut self, now: u64) -> Action {
        self.click += 1;
        self.clicked_at = now;
        self.b
            .borrow_mut()
            .moment(now, "click", u64::from(self.click));
        if self.p.dedup == Switch::On {
            self.stage = 1;
            let ex = self.p.dedup_ex.to_string();
            Action::Send {
                cmd: cmd(&["SET", DEDUP_KEY, "1", "NX", "EX", &ex]),
            }
        } else {
            self.incr()
        }
    }
    fn incr(&mut self) -> Action {
        self.stage = 2;
        Action::Send {
            cmd: cmd(&["INCR", &Keys::new(QUEUE).key("id")]),
        }
    }
    fn answer(&mut self, now: u64, queued: bool) -> Action {
        {
            let mut b = self.b.borrow_mut();
            b.responses.push(Response {
                click: self.click,
                at_ms: self.clicked_at,
                ms: now - self.clicked_at,
                queued,
            });
            if !queued {
                b.c.dedup_refused += 1;
                b.moment(now, "dup", u64::from(self.click));
            }
        }
        if self.click >= self.p.clicks {
            self.b.borrow_mut().api_done = true;
            return Action::Done;
        }
        self.stage = 0;
        let next = self.clicked_at + self.p.click_gap;
        Action::Sleep {
            ms: next.saturating_sub(now).max(1),
        }
    }
}

impl Actor for Api {
    fn name(&self) -> String {
        "api".into()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        let reply = match input {
            Input::Reply { reply } => Some(reply),
            _ => None,
        };
        let keys = Keys::new(QUEUE);
        match (self.stage, reply) {
            (0, _) => self.click(now),
            (1, Some(r)) if *r == Reply::ok() => self.incr(),
            (1, _) => self.answer(now, false),
            (2, Some(r)) => {
                self.job = r.as_int().unwrap_or(1).to_string();
                {
                    let mut b = self.b.borrow_mut();
                    b.jobs.insert(self.job.clone(), JobKind::Broadcast);
                    b.live += 1;
                    b.c.jobs += 1;
                    b.c.broadcasts += 1;
                }
                self.stage = 3;
                Action::Send {
                    cmd: cmd(&[
                        "HSET",
                        &keys.job(&self.job),
                        "name",
                        "broadcast",
                        "data",
                        r#"{"campaign":42}"#,
                        "atm",
                        "0",
                    ]),
                }
            }
            (3, _) => {
                self.stage = 4;
                Action::Send {
                    cmd: cmd(&["LPUSH", &keys.wait(), &self.job]),
                }
            }
            (4, _) => {
                self.stage = 5;
                Action::Work {
                    ms: self.p.log_ms,
                    what: "INSERT INTO broadcast_log".into(),
                }
            }
            (5, _) => self.answer(now, true),
            _ => Action::Done,
        }
    }
}
