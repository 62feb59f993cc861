//! The lock-race lab (production slide 7, seed 004 steps 10–13): workers A and B, World
//! actors that send real SimRedis commands, race for one job's lock.
//!
//! Each worker, per job: (optionally) `SET dedup:click-<k> 1 NX EX <s>` so a double click
//! runs once; `SET lock:<resource> <token> NX PX <ttl>` until it gets `OK` (a seeded 40–100 ms
//! wait between tries); (optionally) `INCR fence:<resource>` for a fencing token; its work,
//! with (optionally) a heartbeat `EVALSHA <extend> 1 lock:<resource> <token> <ttl>` every
//! ttl/3 (a reply 0 means the lock is gone: the worker stops that job); a write to the
//! resource carrying the fencing token; then the release, by plain `DEL` or by `EVALSHA` of
//! the token-checked release script. One injectable pause (GC, a slow query) freezes the
//! chosen worker for a while at the first moment at or after the chosen time when it is inside
//! its critical section; nothing it would send (a heartbeat) goes out meanwhile.
//!
//! The resource (the database the job writes to) sits outside Redis: it keeps the newest
//! fencing token it accepted and, with fencing on, rejects a write with an older one. A
//! *stale write* is one whose lock generation (the order in which Redis granted the locks) is
//! older than a write the resource already accepted — it would overwrite newer data.
//!
//! What it reads from the run: every command with its reply; who owns the lock in Redis over
//! time (from the replies: a granted `SET`, an extend, a delete, the expiry); the moments a
//! `DEL` removed the other worker's lock; the *two-owner moments* — stretches in which both
//! workers were working in their critical section, each believing it held the lock (a paused
//! worker does nothing, so a pause is not work); and the stale writes accepted or rejected.
//!
//! [`LockRun`] steps the world one event at a time (the worker drives it in slices, the UI
//! scrubs its trace); [`run`] runs it to the end, and `LockRun::result().so_far(n)` equals
//! the result of the same run stopped after `n` trace entries (tested below).

use super::lab::{erase, AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::log::CmdLine;
use super::scenario::{LiveRun, Scenario, SimRun};
use super::params::Params;
use crate::cli::{Args, CliError};
use super::params::{Field, Kind};
use crate::redis::{scripts, Reply};
use crate::world::{
    cmd, Action, Actor, Actors, Backend, Command, Ctx, Hop, Input, TraceEvent, What,
    World,
};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// The resource the job works on (its lock is `lock:<RESOURCE>`).
pub const RESOURCE: &str = "campaign:42";
/// The lock's key.
pub const LOCK_KEY: &str = "lock:campaign:42";
/// The fencing counter's key.
pub const FENCE_KEY: &str = "fence:campaign:42";
/// The workers' names, in id order.
pub const NAMES: [&str; 2] = ["A", "B"];
/// Guard against a run that never ends (far above the largest parameters' event count).
pub const MAX_STEPS: usize = 400_000;

const ON_OFF: &[&str] = &["off", "on"];

/// The lab's fields: ranges, the "plain DEL" preset's values as defaults.
pub const FIELDS: &[Field] = &[
    Field {
        key: "ttl",
        label: "লকের TTL (ms)",
        kind: Kind::Int {
            min: 300,
            max: 30_000,
        },
        default: "1000",
    },
    Field {
        key: "work",
        label: "কাজের সময় (ms)",
        kind: Kind::Int {
            min: 10,
            max: 10_000,
        },
        default: "600",
    },
    Field {
        key: "jobs",
        label: "প্রতি worker-এ কাজ",
        kind: Kind::Int { min: 1, max: 5 },
        default: "2",
    },
    Field {
        key: "release",
        label: "লক ছাড়া",
        kind: Kind::Choice(&["del", "token"]),
        default: "del",
    },
    Field {
        key: "heartbeat",
        label: "heartbeat",
        kind: Kind::Choice(ON_OFF),
        default: "off",
    },
    Field {
        key: "fencing",
        label: "fencing token",
        kind: Kind::Choice(ON_OFF),
        default: "off",
    },
    Field {
        key: "dedup",
        label: "ডাবল-ক্লিক dedup",
        kind: Kind::Choice(ON_OFF),
        default: "off",
    },
    Field {
        key: "dedup_ex",
        label: "dedup EX (s)",
        kind: Kind::Int {
            min: 1,
            max: 86_400,
        },
        default: "900",
    },
    Field {
        key: "pause_worker",
        label: "কে থমকাবে",
        kind: Kind::Choice(&["a", "b"]),
        default: "a",
    },
    Field {
        key: "pause_at",
        label: "থমকানো শুরু (ms)",
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        default: "200",
    },
    Field {
        key: "pause",
        label: "থমকানোর দৈর্ঘ্য (ms)",
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        default: "800",
    },
    Field {
        key: "gap",
        label: "B আসে পরে (ms)",
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        default: "20",
    },
    Field {
        key: "seed",
        label: "seed",
        kind: Kind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        default: "4",
    },
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LockParams {
    /// Lock TTL, ms.
    pub ttl: u64,
    /// Work per job, ms.
    pub work: u64,
    /// Jobs per worker.
    pub jobs: u32,
    /// `del` or `token`.
    pub release: String,
    /// `on`: extend the lock every ttl/3 while working.
    pub heartbeat: String,
    /// `on`: INCR a fencing token on acquire; the resource rejects older tokens.
    pub fencing: String,
    /// `on`: `SET dedup:click-<k> 1 NX EX <dedup_ex>` before each job.
    pub dedup: String,
    /// The dedup key's EX, seconds.
    pub dedup_ex: u64,
    /// `a` or `b`: who pauses.
    pub pause_worker: String,
    /// When the pause may start, ms.
    pub pause_at: u64,
    /// How long it lasts, ms (0: no pause).
    pub pause: u64,
    /// B starts this long after A, ms.
    pub gap: u64,
    /// Seed of the tokens, the waits between tries and the network jitter.
    pub seed: u32,
}

impl Default for LockParams {
    fn default() -> Self {
        super::params::Params::defaults(&INFO).typed()
    }
}

impl LockParams {
    fn on(v: &str) -> bool {
        v == "on"
    }
    /// Release by the token-checked script.
    pub fn token_release(&self) -> bool {
        self.release == "token"
    }
    /// Heartbeat on.
    pub fn heartbeat_on(&self) -> bool {
        Self::on(&self.heartbeat)
    }
    /// Fencing on.
    pub fn fencing_on(&self) -> bool {
        Self::on(&self.fencing)
    }
    /// Dedup on.
    pub fn dedup_on(&self) -> bool {
        Self::on(&self.dedup)
    }
    /// Index of the worker that pauses.
    pub fn pauser(&self) -> usize {
        usize::from(self.pause_worker == "b")
    }

    /// The same race `k` times slower: the TTL, the work, the pause, when it starts and B's
    /// gap all multiplied by `k` (the live mode's time scale; the waits between tries stay
    /// 40–100 ms). The simulation of the slowed parameters is the live run's prediction.
    pub fn slowed(&self, k: u64) -> LockParams {
        let k = k.max(1);
        LockParams {
            ttl: self.ttl * k,
            work: self.work * k,
            pause_at: self.pause_at * k,
            pause: self.pause * k,
            gap: self.gap * k,
            ..self.clone()
        }
    }
}

pub use super::preset::Preset;

/// The four presets of issue 9.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "plain-del",
        label: "সাধারণ DEL",
        about: "A থমকে যায়, মেয়াদ ফুরোয়, B লক নেয় — কাজ সেরে A-র DEL মুছে দেয় B-র লক",
        pairs: &[
            ("release", "del"),
            ("heartbeat", "off"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "800"),
        ],
    },
    Preset {
        id: "token",
        label: "টোকেন মিলিয়ে ছাড়া",
        about: "Lua স্ক্রিপ্ট কেবল নিজের টোকেন মুছে দেয়, heartbeat মেয়াদ বাড়ায় — কখনো দুই মালিক নয়",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "on"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "800"),
        ],
    },
    Preset {
        id: "pause",
        label: "TTL পেরোনো pause, fencing ছাড়া",
        about: "A এত লম্বা থমকায় যে B লক নিয়ে লিখে ফেলে — জেগে উঠে A-র পুরোনো লেখা চেপে বসে",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "off"),
            ("fencing", "off"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "1500"),
        ],
    },
    Preset {
        id: "fencing",
        label: "fencing token সহ",
        about: "একই pause, কিন্তু লেখায় fencing token — পুরোনো token দেখে resource লেখাটা ফিরিয়ে দেয়",
        pairs: &[
            ("release", "token"),
            ("heartbeat", "off"),
            ("fencing", "on"),
            ("pause_worker", "a"),
            ("pause_at", "200"),
            ("pause", "1500"),
        ],
    },
];


/// Text of a critical-section piece of work in the trace.
pub const WORK: &str = "কাজ";
/// Text of the pause in the trace.
pub const PAUSE: &str = "থমকে আছে (GC / ধীর কোয়েরি)";

/// What the workers note as they go (the world owns the actors; the run reads this).
#[derive(Debug, Default)]
struct Journal {
    segs: Vec<Seg>,
    writes: Vec<RawWrite>,
    /// Jobs each worker dropped: (step, worker, job, why).
    dropped: Vec<(usize, usize, u32, Dropped)>,
    /// Set by the run before each event: the trace index an actor's decision gets.
    step: usize,
}

#[derive(Clone, Copy, Debug)]
struct RawWrite {
    step: usize,
    at_ms: u64,
    actor: usize,
    job: u32,
    fence: Option<i64>,
}

/// Why a job was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Dropped {
    /// The dedup key was already there: a double click.
    Duplicate,
    /// The heartbeat found the lock gone (reply 0).
    LostLock,
}

/// A stretch of a worker's time on the axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seg {
    /// Trace index of the decision that began it.
    pub step: usize,
    /// Worker (0 = A, 1 = B).
    pub actor: usize,
    /// Job number (1-based).
    pub job: u32,
    /// Start, ms.
    pub from_ms: u64,
    /// End, ms.
    pub to_ms: u64,
    /// What it is.
    pub kind: SegKind,
}

/// What a [`Seg`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SegKind {
    /// Working in the critical section.
    Work,
    /// Frozen.
    Pause,
    /// Waiting to try the lock again.
    Wait,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Dedup,
    Acquire,
    Fence,
    Working,
    Extending,
    Releasing,
    Waiting,
    Between,
}

/// One worker: a state machine that speaks Redis (see the module doc).
struct Worker {
    id: usize,
    p: LockParams,
    journal: Rc<RefCell<Journal>>,
    job: u32,
    token: String,
    fence: Option<i64>,
    phase: Phase,
    left: u64,
    next_hb: u64,
    /// Pause still to come: (from, length).
    pause: Option<(u64, u64)>,
}

impl Worker {
    fn new(id: usize, p: &LockParams, journal: Rc<RefCell<Journal>>) -> Self {
        let pause = (p.pauser() == id && p.pause > 0).then_some((p.pause_at, p.pause));
        Worker {
            id,
            p: p.clone(),
            journal,
            job: 1,
            token: String::new(),
            fence: None,
            phase: Phase::Dedup,
            left: 0,
            next_hb: 0,
            pause,
        }
    }

    fn seg(&self, now: u64, ms: u64, kind: SegKind) {
        let mut j = self.journal.borrow_mut();
        let step = j.step;
        j.segs.push(Seg {
            step,
            actor: self.id,
            job: self.job,
            from_ms: now,
            to_ms: now + ms,
            kind,
        });
    }

    fn begin_job(&mut self, ctx: &mut Ctx<'_>) -> Action {
        if self.p.dedup_on() {
            self.phase = Phase::Dedup;
            let key = format!("dedup:click-{}", self.job);
            let ex = self.p.dedup_ex.to_string();
            Action::Send {
                cmd: cmd(&["SET", &key, "1", "NX", "EX", &ex]),
            }
        } else {
            self.acquire(ctx)
        }
    }

    fn acquire(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Acquire;
        self.token = format!(
            "{}-{:08x}",
            NAMES[self.id].to_ascii_lowercase(),
            ctx.rng.next_u32()
        );
        let ttl = self.p.ttl.to_string();
        Action::Send {
            cmd: cmd(&["SET", LOCK_KEY, &self.token, "NX", "PX", &ttl]),
        }
    }

    fn wait(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Waiting;
        let ms = 40 + u64::from(ctx.rng.below(61));
        self.seg(ctx.now_ms, ms, SegKind::Wait);
        Action::Sleep { ms }
    }

    fn start_work(&mut self, now: u64) -> Action {
        self.left = self.p.work;
        self.next_hb = now + self.p.ttl / 3;
        self.work_on(now)
    }

    /// The next piece of the critical section: pause, heartbeat, work, or the write and the
    /// release.
    fn work_on(&mut self, now: u64) -> Action {
        self.phase = Phase::Working;
        if let Some((at, ms)) = self.pause {
            if now >= at {
                self.pause = None;
                self.seg(now, ms, SegKind::Pause);
                return Action::Work {
                    ms,
                    what: PAUSE.into(),
                };
            }
        }
        if self.left == 0 {
            return self.write_and_release(now);
        }
        if self.p.heartbeat_on() && now >= self.next_hb {
            self.phase = Phase::Extending;
            self.next_hb = now + self.p.ttl / 3;
            let ttl = self.p.ttl.to_string();
            return Action::Send {
                cmd: cmd(&[
                    "EVALSHA",
                    scripts::EXTEND.sha1,
                    "1",
                    LOCK_KEY,
                    &self.token,
                    &ttl,
                ]),
            };
        }
        let mut ms = self.left;
        if self.p.heartbeat_on() {
            ms = ms.min(self.next_hb - now);
        }
        if let Some((at, _)) = self.pause {
            ms = ms.min(at - now);
        }
        self.left -= ms;
        self.seg(now, ms, SegKind::Work);
        Action::Work {
            ms,
            what: WORK.into(),
        }
    }

    fn write_and_release(&mut self, now: u64) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.writes.push(RawWrite {
                step,
                at_ms: now,
                actor: self.id,
                job: self.job,
                fence: self.fence,
            });
        }
        self.phase = Phase::Releasing;
        Action::Send {
            cmd: if self.p.token_release() {
                cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK_KEY, &self.token])
            } else {
                cmd(&["DEL", LOCK_KEY])
            },
        }
    }

    fn drop_job(&mut self, why: Dropped, ctx: &mut Ctx<'_>) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.dropped.push((step, self.id, self.job, why));
        }
        self.next_job(ctx)
    }

    fn next_job(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.fence = None;
        if self.job >= self.p.jobs {
            return Action::Done;
        }
        self.job += 1;
        self.phase = Phase::Between;
        Action::Sleep {
            ms: 40 + u64::from(ctx.rng.below(61)),
        }
    }
}

impl Actor for Worker {
    fn name(&self) -> String {
        NAMES[self.id].to_string()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        match (self.phase, input) {
            (_, Input::Start) | (Phase::Between, Input::Wake) => self.begin_job(ctx),
            (Phase::Dedup, Input::Reply { reply }) if *reply == Reply::ok() => self.acquire(ctx),
            (Phase::Dedup, Input::Reply { .. }) => self.drop_job(Dropped::Duplicate, ctx),
            (Phase::Acquire, Input::Reply { reply }) if *reply == Reply::ok() => {
                if self.p.fencing_on() {
                    self.phase = Phase::Fence;
                    Action::Send {
                        cmd: cmd(&["INCR", FENCE_KEY]),
                    }
                } else {
                    self.start_work(now)
                }
            }
            (Phase::Acquire, Input::Reply { .. }) => self.wait(ctx),
            (Phase::Waiting, Input::Wake) => self.acquire(ctx),
            (Phase::Fence, Input::Reply { reply }) => {
                self.fence = reply.as_int();
                self.start_work(now)
            }
            (Phase::Working, Input::Wake) => self.work_on(now),
            (Phase::Extending, Input::Reply { reply }) if reply.as_int() == Some(1) => {
                self.work_on(now)
            }
            (Phase::Extending, Input::Reply { .. }) => self.drop_job(Dropped::LostLock, ctx),
            (Phase::Releasing, Input::Reply { .. }) => self.next_job(ctx),
            _ => Action::Done,
        }
    }
}

/// What a command in the run is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CmdKind {
    /// `SET dedup:… NX EX`.
    Dedup,
    /// `SET lock:… NX PX`.
    Acquire,
    /// `INCR fence:…`.
    Fence,
    /// `EVALSHA <extend>`.
    Extend,
    /// `DEL lock:…`.
    Del,
    /// `EVALSHA <release>`.
    Release,
}

/// One command as Redis executed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// Trace index.
    pub step: usize,
    /// When Redis ran it, ms.
    pub at_ms: u64,
    /// When the worker sent it, ms.
    pub sent_ms: u64,
    /// Worker.
    pub actor: usize,
    /// The command's words.
    pub cmd: Vec<String>,
    /// Redis' reply (a live run's may be the proxy's error, as an error reply).
    pub reply: Reply,
    /// What it is for.
    pub kind: CmdKind,
    /// It deleted the other worker's lock (a `DEL`, or a release, that removed a lock the
    /// other worker had been granted).
    pub steals: bool,
    /// Live runs: the round trip to the real Redis through the proxy, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

impl CmdRow {
    /// The command as redis-cli echoes it.
    pub fn cmd_text(&self) -> String {
        self.line().cmd_text()
    }

    /// The row as a line of the command log.
    pub fn line(&self) -> CmdLine {
        CmdLine {
            at_ms: self.at_ms,
            actor: NAMES[self.actor].into(),
            cmd: self.cmd.clone(),
            reply: Ok(self.reply.clone()),
            note: String::new(),
            rtt_us: self.rtt_us,
        }
    }

    /// Redis granted (`OK`) or confirmed (`1`) what it asked.
    pub fn worked(&self) -> bool {
        self.reply == Reply::ok() || self.reply.as_int() == Some(1)
    }
}

/// Who held the lock in Redis, from when to when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    /// Trace index of the granting `SET`.
    pub step: usize,
    /// Worker.
    pub actor: usize,
    /// Its token (the lock's value).
    pub token: String,
    /// Granted at, ms.
    pub from_ms: u64,
    /// Gone at, ms (the run's end when still held).
    pub to_ms: u64,
    /// How it ended.
    pub end: OwnerEnd,
}

/// How an [`Owner`] stretch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OwnerEnd {
    /// Its owner released it.
    Released,
    /// The other worker's `DEL` removed it.
    Stolen,
    /// The TTL ran out.
    Expired,
    /// Still held when the run ended.
    Held,
}

/// A write the resource received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Write {
    /// Trace index.
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Worker.
    pub actor: usize,
    /// Job number.
    pub job: u32,
    /// The fencing token it carried (fencing on).
    pub fence: Option<i64>,
    /// Which lock grant it was made under (1 = the first lock Redis granted).
    pub generation: u32,
    /// Older than a write the resource already accepted.
    pub stale: bool,
    /// The resource took it.
    pub accepted: bool,
}

/// A stretch with two owners: both workers working, each believing it held the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overlap {
    /// Trace index when it became known (the later of the two pieces of work began).
    pub step: usize,
    /// Start, ms.
    pub from_ms: u64,
    /// End, ms.
    pub to_ms: u64,
}

/// The lab's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Moments with two owners.
    pub two_owner_moments: u32,
    /// Their total length, ms.
    pub two_owner_ms: u64,
    /// `DEL`s that removed the other worker's lock.
    pub steals: u32,
    /// Locks Redis granted.
    pub grants: u32,
    /// Writes the resource accepted.
    pub writes_accepted: u32,
    /// Writes it rejected (older fencing token).
    pub writes_rejected: u32,
    /// Stale writes it accepted (lost updates).
    pub stale_accepted: u32,
    /// Stale writes it rejected.
    pub stale_rejected: u32,
    /// Jobs dropped as a double click.
    pub duplicates: u32,
    /// Jobs dropped because the heartbeat found the lock gone.
    pub lost: u32,
    /// Commands sent.
    pub commands: u32,
}

/// A finished (or prefix) run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockResult {
    /// The parameters it ran with.
    pub params: LockParams,
    /// Trace entries (the timeline's positions).
    pub steps: usize,
    /// Time of each trace entry, ms.
    pub times: Vec<u64>,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// Work, pauses and waits.
    pub segs: Vec<Seg>,
    /// The lock's owners in Redis.
    pub owners: Vec<Owner>,
    /// The resource's writes.
    pub writes: Vec<Write>,
    /// Dropped jobs: (step, worker, job, why).
    pub dropped: Vec<(usize, usize, u32, Dropped)>,
    /// Two-owner moments.
    pub overlaps: Vec<Overlap>,
    /// Counters over the whole run.
    pub counters: Counters,
    /// When the run ended, ms.
    pub end_ms: u64,
}

/// How a race ended: what the live mode puts beside the simulation's prediction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Who Redis gave the lock to, in order (0 = A, 1 = B).
    pub grants: Vec<usize>,
    /// Who first deleted the other's lock.
    pub first_steal: Option<usize>,
    /// Releases that deleted the other's lock.
    pub steals: u32,
    /// Both workers were in their critical section at once.
    pub two_owners: bool,
    /// Stale writes the resource accepted (lost updates).
    pub stale_accepted: u32,
    /// Stale writes it rejected (fencing).
    pub stale_rejected: u32,
    /// How the last lock ended.
    pub last_end: Option<OwnerEnd>,
}

/// The race as a [`Scenario`]: workers A and B (B `gap` ms later), their shared journal of
/// what the resource saw, and the analysis of the trace.
pub struct LockScenario {
    params: LockParams,
    journal: Rc<RefCell<Journal>>,
}

impl LockScenario {
    /// The race of `p`.
    pub fn new(p: &LockParams) -> Self {
        LockScenario {
            params: p.clone(),
            journal: Rc::new(RefCell::new(Journal::default())),
        }
    }

    /// The parameters it runs with.
    pub fn params(&self) -> &LockParams {
        &self.params
    }
}

impl Scenario for LockScenario {
    type Model = Actors;
    type Output = LockResult;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 100.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let mut world = World::new(self.params.seed, backend);
        // Live, the real network is in the round trips; the workers draw the same tokens
        // and waits as in the simulation (the same seed).
        let hop = if live {
            Hop::default()
        } else {
            Hop {
                to_redis_ms: 1,
                from_redis_ms: 1,
                jitter_ms: 2,
            }
        };
        for (id, start) in [(0, 0), (1, self.params.gap)] {
            let w = Worker::new(id, &self.params, self.journal.clone());
            world.add(Box::new(w), hop, start);
        }
        world
    }

    fn go<B: Backend>(&self, world: &World<B>) -> bool {
        self.journal.borrow_mut().step = world.trace().len();
        world.trace().len() < MAX_STEPS
    }

    fn progress<B: Backend>(&self, world: &World<B>) -> f64 {
        let p = &self.params;
        let span = (p.work + p.pause + p.ttl) * u64::from(p.jobs) * 2 + p.gap + 1;
        world.now_ms() as f64 / span as f64
    }

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> LockResult {
        analyse(
            &self.params,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

/// The race simulated, stepped one event at a time (the simulation worker drives it in
/// slices, the view scrubs its trace).
pub type LockRun = SimRun<LockScenario>;

/// The same two workers against a real Redis, in real time (live mode): see [`LiveRun`].
pub type LockLive = LiveRun<LockScenario>;

/// The simulated race of `p` (nothing happened yet).
pub fn sim(p: &LockParams) -> LockRun {
    SimRun::new(LockScenario::new(p), p.seed)
}

/// The live race of `p` (nothing sent yet).
pub fn live(p: &LockParams) -> LockLive {
    LiveRun::new(LockScenario::new(p))
}

/// The trace and the counters as text (`labsim lock`).
pub fn run_text(r: &LockRun) -> String {
    text(&r.output(), &r.world().trace_text())
}

/// Runs `p` to the end.
pub fn run(p: &LockParams) -> LockResult {
    sim(p).finish()
}

fn kind_of(c: &[Vec<u8>]) -> Option<CmdKind> {
    let w = |i: usize| {
        c.get(i)
            .map(|x| String::from_utf8_lossy(x).to_ascii_uppercase())
    };
    Some(match w(0)?.as_str() {
        "SET" if c.get(1).is_some_and(|k| k.starts_with(b"dedup:")) => CmdKind::Dedup,
        "SET" => CmdKind::Acquire,
        "INCR" => CmdKind::Fence,
        "DEL" => CmdKind::Del,
        "EVALSHA" if w(1)?.eq_ignore_ascii_case(scripts::EXTEND.sha1) => CmdKind::Extend,
        "EVALSHA" => CmdKind::Release,
        _ => return None,
    })
}

/// What the trace shows. A simulated command is one trace entry with its reply; a live one is
/// two (sent, then its reply when it arrived; `rtts` are the round trips in that order).
fn analyse(
    p: &LockParams,
    trace: &[TraceEvent],
    end_ms: u64,
    j: &Journal,
    rtts: &[u32],
) -> LockResult {
    let times: Vec<u64> = trace.iter().map(|e| e.at_ms).collect();
    let mut sent = [0u64; 2];
    let mut pending: [Option<&Command>; 2] = [None, None];
    let mut replies = rtts.iter();
    let mut commands = Vec::new();
    let mut owners: Vec<Owner> = Vec::new();
    // The open owner: index into `owners` and its expiry.
    let mut open: Option<(usize, u64)> = None;
    // Lock grants in order: (actor, token) → generation.
    let mut grants: Vec<(usize, usize)> = Vec::new();
    for e in trace {
        let (c, reply, rtt_us) = match &e.what {
            What::Act {
                action: Action::Send { .. },
                ..
            } => {
                sent[e.actor] = e.at_ms;
                continue;
            }
            What::Exec {
                cmd: c,
                reply: Some(reply),
            } => (c, reply, None),
            What::Exec {
                cmd: c,
                reply: None,
            } => {
                pending[e.actor] = Some(c);
                continue;
            }
            What::Unblocked { reply } => match pending[e.actor].take() {
                Some(c) => (c, reply, replies.next().copied()),
                None => continue,
            },
            _ => continue,
        };
        {
            {
                // Redis drops a key when now > its expiry.
                if let Some((i, exp)) = open {
                    if e.at_ms > exp {
                        owners[i].to_ms = exp;
                        owners[i].end = OwnerEnd::Expired;
                        open = None;
                    }
                }
                let Some(kind) = kind_of(c) else { continue };
                let mut steals = false;
                match kind {
                    CmdKind::Acquire if *reply == Reply::ok() => {
                        grants.push((e.actor, e.step));
                        owners.push(Owner {
                            step: e.step,
                            actor: e.actor,
                            token: String::from_utf8_lossy(&c[2]).into_owned(),
                            from_ms: e.at_ms,
                            to_ms: end_ms,
                            end: OwnerEnd::Held,
                        });
                        open = Some((owners.len() - 1, e.at_ms + p.ttl));
                    }
                    CmdKind::Extend if reply.as_int() == Some(1) => {
                        if let Some((_, exp)) = open.as_mut() {
                            *exp = e.at_ms + p.ttl;
                        }
                    }
                    CmdKind::Del | CmdKind::Release if reply.as_int() == Some(1) => {
                        if let Some((i, _)) = open.take() {
                            steals = owners[i].actor != e.actor;
                            owners[i].to_ms = e.at_ms;
                            owners[i].end = if steals {
                                OwnerEnd::Stolen
                            } else {
                                OwnerEnd::Released
                            };
                        }
                    }
                    _ => {}
                }
                commands.push(CmdRow {
                    step: e.step,
                    at_ms: e.at_ms,
                    sent_ms: sent[e.actor],
                    actor: e.actor,
                    cmd: c
                        .iter()
                        .map(|w| String::from_utf8_lossy(w).into_owned())
                        .collect(),
                    reply: reply.clone(),
                    kind,
                    steals,
                    rtt_us,
                });
            }
        }
    }
    if let Some((i, exp)) = open {
        if end_ms > exp {
            owners[i].to_ms = exp;
            owners[i].end = OwnerEnd::Expired;
        }
    }

    // The resource: the newest fencing token it accepted; stale = an older generation than
    // one it accepted.
    let mut writes = Vec::new();
    let mut newest_fence: Option<i64> = None;
    let mut newest_gen = 0;
    for w in &j.writes {
        let generation = generation_of(&grants, w);
        let accepted = !(p.fencing_on() && w.fence.zip(newest_fence).is_some_and(|(f, n)| f < n));
        let stale = generation < newest_gen;
        if accepted {
            newest_gen = newest_gen.max(generation);
            if let Some(f) = w.fence {
                newest_fence = Some(newest_fence.map_or(f, |n| n.max(f)));
            }
        }
        writes.push(Write {
            step: w.step,
            at_ms: w.at_ms,
            actor: w.actor,
            job: w.job,
            fence: w.fence,
            generation,
            stale,
            accepted,
        });
    }

    let overlaps = overlaps(&j.segs, usize::MAX);
    let counters = count(&commands, &writes, &j.segs, &j.dropped, &owners, usize::MAX);
    LockResult {
        params: p.clone(),
        steps: trace.len(),
        times,
        commands,
        segs: j.segs.clone(),
        owners,
        writes,
        dropped: j.dropped.clone(),
        overlaps,
        counters,
        end_ms,
    }
}

/// The grant a write was made under: the position (1-based) among all grants of the
/// writer's latest grant before the write (a job holds one grant at a time).
fn generation_of(grants: &[(usize, usize)], w: &RawWrite) -> u32 {
    grants
        .iter()
        .enumerate()
        .filter(|(_, (actor, step))| *actor == w.actor && *step < w.step)
        .map(|(i, _)| i as u32 + 1)
        .next_back()
        .unwrap_or(0)
}

/// Pieces of work of different workers (among those begun before trace entry `n`) that
/// overlap, merged into moments. Each worker's pieces are in time order and never overlap each
/// other, so one sweep finds every overlapping pair.
fn overlaps(segs: &[Seg], n: usize) -> Vec<Overlap> {
    let work = |a: usize| -> Vec<&Seg> {
        segs.iter()
            .filter(|s| {
                s.step < n && s.actor == a && s.kind == SegKind::Work && s.to_ms > s.from_ms
            })
            .collect()
    };
    let (a, b) = (work(0), work(1));
    let mut out: Vec<Overlap> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let (from, to) = (x.from_ms.max(y.from_ms), x.to_ms.min(y.to_ms));
        if from < to {
            let step = x.step.max(y.step);
            match out.last_mut() {
                Some(l) if from <= l.to_ms => {
                    l.to_ms = l.to_ms.max(to);
                    l.step = l.step.min(step);
                }
                _ => out.push(Overlap {
                    step,
                    from_ms: from,
                    to_ms: to,
                }),
            }
        }
        if x.to_ms <= y.to_ms {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The counters over what happened before trace entry `n`.
fn count(
    commands: &[CmdRow],
    writes: &[Write],
    segs: &[Seg],
    dropped: &[(usize, usize, u32, Dropped)],
    owners: &[Owner],
    n: usize,
) -> Counters {
    let overlaps = overlaps(segs, n);
    let c = |it: usize| it as u32;
    let commands = || commands.iter().filter(|x| x.step < n);
    let writes = || writes.iter().filter(|x| x.step < n);
    let dropped = || dropped.iter().filter(|x| x.0 < n);
    Counters {
        two_owner_moments: c(overlaps.len()),
        two_owner_ms: overlaps.iter().map(|o| o.to_ms - o.from_ms).sum(),
        steals: c(commands().filter(|x| x.steals).count()),
        grants: c(owners.iter().filter(|o| o.step < n).count()),
        writes_accepted: c(writes().filter(|w| w.accepted).count()),
        writes_rejected: c(writes().filter(|w| !w.accepted).count()),
        stale_accepted: c(writes().filter(|w| w.stale && w.accepted).count()),
        stale_rejected: c(writes().filter(|w| w.stale && !w.accepted).count()),
        duplicates: c(dropped().filter(|d| d.3 == Dropped::Duplicate).count()),
        lost: c(dropped().filter(|d| d.3 == Dropped::LostLock).count()),
        commands: c(commands().count()),
    }
}

impl LockResult {
    /// The counters after the first `n` trace entries (what the timeline shows at `n`):
    /// equal to the counters of the same run stopped there.
    pub fn so_far(&self, n: usize) -> Counters {
        count(
            &self.commands,
            &self.writes,
            &self.segs,
            &self.dropped,
            &self.owners,
            n,
        )
    }

    /// Time of trace entry `n` (the last entry's after the end).
    pub fn time_at(&self, n: usize) -> u64 {
        self.times
            .get(n)
            .or(self.times.last())
            .copied()
            .unwrap_or(0)
    }

    /// The first `DEL` that removed the other worker's lock.
    pub fn first_steal(&self) -> Option<&CmdRow> {
        self.commands.iter().find(|c| c.steals)
    }

    /// How the run ended, in the terms a live run is compared with its simulation.
    pub fn outcome(&self) -> Outcome {
        let c = &self.counters;
        Outcome {
            grants: self.owners.iter().map(|o| o.actor).collect(),
            first_steal: self.first_steal().map(|s| s.actor),
            steals: c.steals,
            two_owners: c.two_owner_moments > 0,
            stale_accepted: c.stale_accepted,
            stale_rejected: c.stale_rejected,
            last_end: self.owners.last().map(|o| o.end),
        }
    }

    /// The JSON `labsim lock --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "params": self.params,
            "counters": self.counters,
            "firstSteal": self.first_steal(),
            "commands": self.commands,
            "owners": self.owners,
            "writes": self.writes,
            "overlaps": self.overlaps,
            "endMs": self.end_ms,
        })
    }
}

fn text(r: &LockResult, trace: &str) -> String {
    let p = &r.params;
    let c = &r.counters;
    let mut s = format!(
        "lock race: ttl {} ms, work {} ms, jobs {}, release {}, heartbeat {}, fencing {}, dedup {}, pause {} at {} ms for {} ms, gap {} ms, seed {}\n",
        p.ttl,
        p.work,
        p.jobs,
        p.release,
        p.heartbeat,
        p.fencing,
        p.dedup,
        p.pause_worker.to_ascii_uppercase(),
        p.pause_at,
        p.pause,
        p.gap,
        p.seed
    );
    s.push_str(trace);
    s.push_str(&format!(
        "two-owner moments {} ({} ms), DEL removed the other's lock {}, writes accepted {} rejected {}, stale writes accepted {} rejected {}, duplicates {}, lost locks {}, grants {}, commands {}, end {} ms\n",
        c.two_owner_moments,
        c.two_owner_ms,
        c.steals,
        c.writes_accepted,
        c.writes_rejected,
        c.stale_accepted,
        c.stale_rejected,
        c.duplicates,
        c.lost,
        c.grants,
        c.commands,
        r.end_ms
    ));
    if let Some(st) = r.first_steal() {
        s.push_str(&format!(
            "first steal: {} at {} ms: {}\n",
            NAMES[st.actor],
            st.at_ms,
            st.cmd_text()
        ));
    }
    s
}

// --- the lab -------------------------------------------------------------------------------

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "lock",
    title: "লকের দৌড় — DEL, টোকেন, fencing",
    blurb: "দুই worker একই লক চায় — সাধারণ DEL অন্যের লক মোছে, টোকেন-স্ক্রিপ্ট আর fencing token তা ঠেকায়",
    fields: FIELDS,
    presets: PRESETS,
    rules: super::lab::no_rules,
    runs: &["race"],
    live: true,
};

/// The parameters of `job`: slowed for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> LockParams {
    let p: LockParams = p.typed();
    match job.live_scale {
        Some(k) => p.slowed(k),
        None => p,
    }
}

/// The lab's runner.
pub struct LockLab;

/// The registry's entry.
pub static LAB: LockLab = LockLab;

impl Lab for LockLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(erase(sim(&shaped(job, p))))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        Some(Box::new(live(&shaped(job, p))))
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "the lock race: workers A and B, SET NX PX, DEL or the token script, \
                      heartbeat, a pause, fencing, dedup (the trace, then the counters)",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let mut run = sim(&p.typed());
        run.steps(usize::MAX);
        Ok(crate::cli::emit(a, run_text(&run), || run.output().to_json()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::SimRedis;
    use crate::labs::params::Params;

    fn preset_params(id: &str) -> LockParams {
        let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
        assert!(errs.is_empty(), "{errs:?}");
        p.typed()
    }

    #[test]
    fn defaults_are_the_plain_del_preset() {
        assert_eq!(LockParams::default(), preset_params("plain-del"));
        let p = Params::defaults(&INFO);
        assert_eq!(p.preset().map(|p| p.id), Some("plain-del"));
        // Later pairs override the preset's.
        let (p, errs) = Params::from_query(&INFO, "seed=9&preset=fencing&pause=100");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(
            (p.get("fencing"), p.get("pause"), p.get("seed")),
            ("on", "100", "9")
        );
        // An unknown preset is reported by the parameter check.
        let (_, errs) = Params::from_query(&INFO, "preset=nope");
        assert_eq!(errs[0].key, "preset");
    }

    /// Golden runs of the four presets (seed 4, TTL 1000 ms, work 600 ms, two jobs each).
    #[test]
    fn golden_presets() {
        let c = |id: &str| run(&preset_params(id)).counters;
        // Plain DEL: A is frozen 200–1000 ms, its lock expires at 1001 ms, B takes it at
        // 1071 ms; A works on to 1403 ms and its DEL (1404 ms) removes B's lock.
        let d = c("plain-del");
        assert_eq!(
            (
                d.two_owner_moments,
                d.two_owner_ms,
                d.steals,
                d.grants,
                d.commands
            ),
            (3, 843, 3, 4, 20)
        );
        assert_eq!((d.stale_accepted, d.stale_rejected), (0, 0));
        let r = run(&preset_params("plain-del"));
        let st = r.first_steal().unwrap();
        assert_eq!(
            (st.actor, st.at_ms, st.cmd_text().as_str()),
            (0, 1404, "DEL lock:campaign:42")
        );
        assert_eq!(r.owners[1].actor, 1);
        assert_eq!(r.owners[1].end, OwnerEnd::Stolen);
        // Token release + heartbeat: never two owners, nobody's lock removed.
        let t = c("token");
        assert_eq!(
            (t.two_owner_moments, t.steals, t.lost, t.grants, t.commands),
            (0, 0, 0, 4, 49)
        );
        // A pause past the TTL, no fencing: A's old write lands after B's newer one.
        let p = c("pause");
        assert_eq!(
            (
                p.stale_accepted,
                p.stale_rejected,
                p.writes_accepted,
                p.writes_rejected
            ),
            (1, 0, 4, 0)
        );
        assert_eq!((p.two_owner_moments, p.two_owner_ms, p.steals), (1, 341, 0));
        // The same with fencing: the resource rejects it.
        let f = c("fencing");
        assert_eq!(
            (
                f.stale_accepted,
                f.stale_rejected,
                f.writes_accepted,
                f.writes_rejected
            ),
            (0, 1, 3, 1)
        );
        let r = run(&preset_params("fencing"));
        let w = r.writes.iter().find(|w| !w.accepted).unwrap();
        assert_eq!((w.actor, w.fence, w.generation), (0, Some(1), 1));
    }

    #[test]
    fn a_double_click_runs_once_with_dedup() {
        let mut p = preset_params("token");
        p.jobs = 1;
        p.dedup = "on".into();
        let r = run(&p);
        assert_eq!(r.counters.duplicates, 1);
        assert_eq!(r.counters.grants, 1);
        assert!(r.commands[0]
            .cmd_text()
            .starts_with("SET dedup:click-1 1 NX EX 900"));
        let second = r.commands.iter().find(|c| c.actor == 1).unwrap();
        assert_eq!(
            (second.cmd_text().as_str(), &second.reply),
            ("SET dedup:click-1 1 NX EX 900", &Reply::Nil)
        );
        p.dedup = "off".into();
        assert_eq!(run(&p).counters.grants, 2);
    }

    #[test]
    fn stepping_equals_the_run_to_the_end() {
        for id in ["plain-del", "token", "pause", "fencing"] {
            let p = preset_params(id);
            let full = run(&p);
            let mut chunked = sim(&p);
            while !chunked.steps(7) {}
            assert_eq!(chunked.output(), full, "{id}");
            for n in [
                0,
                1,
                5,
                13,
                full.steps / 3,
                full.steps / 2,
                full.steps - 1,
                full.steps,
            ] {
                let mut part = sim(&p);
                part.run_to_step(n);
                let r = part.output();
                assert_eq!(r.times[..], full.times[..n], "{id} {n}");
                assert_eq!(r.counters, full.so_far(n), "{id} at step {n}");
            }
        }
    }

    #[test]
    fn the_heartbeat_finds_a_lost_lock_and_stops() {
        // A pause just under the TTL right before a heartbeat is due: the lock expires, B
        // takes it, A's extend gets 0 and A drops the job without working on.
        let mut p = preset_params("token");
        p.pause_at = 330;
        p.pause = 990;
        p.jobs = 1;
        let r = run(&p);
        assert_eq!(r.counters.lost, 1, "{r:?}");
        assert_eq!(r.counters.two_owner_moments, 0);
        assert!(r
            .commands
            .iter()
            .any(|c| c.kind == CmdKind::Extend && c.reply == Reply::Integer(0)));
    }

    /// The live driver with SimRedis answering every command the moment it is sent (no
    /// network at all): the same workers, so the same ending as the simulation.
    #[test]
    fn the_live_driver_fed_by_simredis_ends_as_simulated() {
        use crate::redis::Exec;
        for id in ["plain-del", "pause", "fencing", "token"] {
            let p = preset_params(id);
            let mut live = live(&p);
            let mut redis = SimRedis::new(p.seed);
            let mut now = 0;
            let mut sent = 0;
            while !live.is_done() {
                for (actor, c) in live.advance(now) {
                    redis.advance_to(now);
                    let Exec::Reply(r) = redis.execute(actor as u64 + 1, &c) else {
                        panic!("a lock command never blocks")
                    };
                    live.arrived(actor, r, now, 250);
                    sent += 1;
                }
                now = live.next_at().unwrap_or(now).max(now);
            }
            let (l, s) = (live.output(), run(&p));
            assert_eq!(l.outcome(), s.outcome(), "{id}");
            assert_eq!(l.commands.len(), sent, "{id}");
            assert!(l.commands.iter().all(|c| c.rtt_us == Some(250)), "{id}");
            assert_eq!(
                l.counters.two_owner_moments, s.counters.two_owner_moments,
                "{id}"
            );
        }
    }

    #[test]
    fn the_worker_protocol_gives_the_same_result() {
        use crate::labs::work::{Body, Job, Work};
        let p = preset_params("fencing");
        let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=fencing").0);
        let msgs = Work::new(job).unwrap().run_to_end();
        let Some(Body::Done(r)) = msgs.last() else {
            panic!("no result: {msgs:?}")
        };
        assert_eq!(r.read::<LockResult>().unwrap(), run(&p));
        // It survives the JSON trip the worker's messages take.
        let s = serde_json::to_string(&msgs).unwrap();
        assert_eq!(serde_json::from_str::<Vec<Body>>(&s).unwrap(), msgs);
    }
}
