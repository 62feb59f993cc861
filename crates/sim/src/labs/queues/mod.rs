//! The queues lab (patterns deck, slides 9–12; seed 003 "List দিয়ে সরল queue", "Reliable
//! queue"): a producer, workers that crash at a moment you choose, and what each kind of list
//! queue does with the job in flight.
//!
//! * The producer `LPUSH`es `jobs` jobs on `queue:emails`, one every `every` ms. Each carries
//!   its id (`{"id":3,"to":"u3@x.com","tpl":"welcome"}`): two equal payloads could not be
//!   told apart by `LREM`, which removes by value.
//! * `queue=simple`: a worker takes a job with `BRPOP queue:emails <block>` and works on it
//!   (`work` ms: the email goes out at its end). The job left Redis when `BRPOP` returned: if
//!   the worker dies before the end, nobody has it any more — lost.
//! * `queue=reliable`: `BLMOVE queue:emails queue:emails:processing RIGHT LEFT <block>` takes
//!   it and records it as in flight in one step; the worker notes its start beside the list
//!   (`ZADD queue:emails:started <now> <id>`: the list holds no times), works, and on success
//!   `LREM queue:emails:processing 1 <payload>` and `ZREM queue:emails:started <id>`. A dead
//!   worker's job stays in the processing list.
//! * `recovery=on`: every `recover_every` ms a recovery pass reads the processing list
//!   (`LRANGE`), stamps the jobs that have no start time yet (`ZADD … NX`: a worker that died
//!   between its `BLMOVE` and its `ZADD`), asks which started more than `visibility` ms ago
//!   (`ZRANGEBYSCORE queue:emails:started -inf <now − visibility>`), and puts each back: `LREM`
//!   from the processing list, then (if that removed it) `ZREM` of its start time and `LPUSH`
//!   on the queue (a start time whose job is gone is only `ZREM`ed). A job that had done its
//!   work before its worker died then runs twice: at-least-once.
//! * `idem=on`: the idempotency key. Before the work, `GET done:<id>`: if it is there, the job
//!   ran already and this run only acknowledges it. After the work, the effect and `SET
//!   done:<id> 1 NX EX 86400` go out in one step (the model's decisions take no time; in a
//!   real process a crash could still fall between the two — the reason the strongest
//!   idempotency lives where the effect lands: a unique constraint, a conditional write).
//! * The crash (`crash`: which worker; `crash_at`; `crash_in`): `work` — it dies in the
//!   middle of the first job it is working on at or after `crash_at` (at `crash_at` if it is
//!   working then); `ack` — right after the first effect it applies at or after `crash_at`,
//!   before acknowledging; `any` — at `crash_at` if it is working then, or else the first time
//!   it acts after it (a reply it was waiting for: the command ran in Redis, the worker never
//!   heard of it). A worker dies between two of its steps, never while its command is on the
//!   wire. It comes back `restart` ms later with nothing in hand (0: it stays dead).
//! * The run ends when nothing more can happen: every job done or gone or stuck, no worker
//!   holding one, the queue empty (or nobody alive to take from it).
//!
//! What it counts per run: jobs done (their effect applied at least once), lost (gone from
//! Redis, never done), stuck (in the processing list with nobody to finish them), taken more
//! than once, effects applied twice, second runs the key made harmless, jobs put back by the
//! recovery, crashes. The lists' contents are read from the commands and their replies as
//! Redis ran them (and checked against SimRedis' own keyspace in the tests).

/// Its practice questions.
pub mod practice;

mod actors;
mod result;
mod scenario;
#[cfg(test)]
mod tests;

pub use result::*;
pub use scenario::{live, run, run_text, sim, QueuesLive, QueuesRun, QueuesScenario};

use super::lab::{erase, AnyRun, Broken, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::{broken, choice, int, seed, Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::{Deserialize, Serialize};

/// The queue.
pub const QUEUE: &str = "queue:emails";
/// The processing list.
pub const PROCESSING: &str = "queue:emails:processing";
/// The start times, beside it.
pub const STARTED: &str = "queue:emails:started";
/// The idempotency key's TTL, s.
pub const DONE_EX: u64 = 86_400;
/// A live run's block time on the queue, ms (the proxy runs one blocking read of a session
/// at a time, so the workers' blocking reads take turns).
pub const LIVE_BLOCK_MS: u64 = 200;
/// A live run stops after this long (× the time scale), finished or not, ms.
pub const LIVE_DEADLINE_MS: u64 = 60_000;
/// A live run runs at most this many jobs…
pub const LIVE_JOBS: u32 = 12;
/// …through at most this many workers.
pub const LIVE_WORKERS: u32 = 3;
/// A simulated run stops here whatever happens, ms.
pub const MAX_MS: u64 = 3_600_000;
/// Guard against a run that never ends.
pub const MAX_STEPS: usize = 400_000;

/// The idempotency key of job `id`.
pub fn done_key(id: u32) -> String {
    format!("done:{id}")
}

/// Job `id`'s payload.
pub fn payload(id: u32) -> String {
    format!("{{\"id\":{id},\"to\":\"u{id}@x.com\",\"tpl\":\"welcome\"}}")
}

/// The id in a payload.
pub fn id_of(v: &[u8]) -> Option<u32> {
    let j: serde_json::Value = serde_json::from_slice(v).ok()?;
    u32::try_from(j.get("id")?.as_u64()?).ok()
}

const ON_OFF: &[&str] = &["off", "on"];

/// The lab's fields: the seed's list queue, `BRPOP queue:emails 5`, worker w1 dying mid-job.
pub const FIELDS: &[Field] = &[
    choice("queue", "কিউ", &["simple", "reliable"], "simple"),
    choice("recovery", "recovery", ON_OFF, "off"),
    choice("idem", "idempotency key", ON_OFF, "off"),
    int("jobs", "job", 1, 40, "6"),
    int("workers", "worker", 1, 4, "2"),
    int("work", "এক job-এর কাজ (ms)", 10, 10_000, "800"),
    int("every", "producer-এর ফাঁক (ms)", 0, 10_000, "300"),
    int("block", "BRPOP/BLMOVE-এর timeout (s)", 1, 30, "5"),
    choice("crash", "কে মরে", &["none", "w1", "w2", "w3", "w4"], "w1"),
    choice("crash_in", "কখন মরে", &["work", "ack", "any"], "work"),
    int("crash_at", "মরার সময় (ms)", 0, 600_000, "1000"),
    int("restart", "ফিরে আসে (ms পরে, ০ = না)", 0, 60_000, "2000"),
    int("visibility", "কতক্ষণ পরে ফেরত (ms)", 100, 600_000, "3000"),
    int("recover_every", "recovery-র ফাঁক (ms)", 100, 60_000, "1000"),
    seed("5"),
];

/// The lab's parameters, typed (field by field as [`FIELDS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct QueuesParams {
    /// `simple` (`BRPOP`) or `reliable` (`BLMOVE` to a processing list).
    pub queue: String,
    /// `on`: a recovery pass puts stale jobs back.
    pub recovery: String,
    /// `on`: the idempotency key.
    pub idem: String,
    /// Jobs the producer pushes.
    pub jobs: u32,
    /// Workers.
    pub workers: u32,
    /// One job's work, ms.
    pub work: u64,
    /// The producer's gap, ms.
    pub every: u64,
    /// The blocking pop's timeout, s.
    pub block: u64,
    /// `none` or `w1`…`w4`.
    pub crash: String,
    /// `work`, `ack` or `any`.
    pub crash_in: String,
    /// When, ms.
    pub crash_at: u64,
    /// Back after, ms (0: never).
    pub restart: u64,
    /// A job in flight longer than this is put back, ms.
    pub visibility: u64,
    /// The recovery's gap, ms.
    pub recover_every: u64,
    /// Seed of the network's jitter.
    pub seed: u32,
}

impl Default for QueuesParams {
    fn default() -> Self {
        Params::defaults(&INFO).typed()
    }
}

/// Where in its job a worker dies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CrashIn {
    /// In the middle of its work, before the effect.
    Work,
    /// Right after the effect, before acknowledging.
    Ack,
    /// At the moment: working, or the first time it acts after it.
    Any,
}

/// What a run runs, in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    /// `BLMOVE` to a processing list (else `BRPOP`).
    pub reliable: bool,
    /// The recovery pass runs (reliable only).
    pub recovery: bool,
    /// The idempotency key.
    pub idem: bool,
    /// Jobs.
    pub jobs: u32,
    /// Workers.
    pub workers: u32,
    /// One job's work, ms.
    pub work_ms: u64,
    /// The producer's gap, ms.
    pub every_ms: u64,
    /// The blocking pop's timeout, ms.
    pub block_ms: u64,
    /// Which worker dies (0-based).
    pub crash: Option<usize>,
    /// Where.
    pub crash_in: CrashIn,
    /// When, ms.
    pub crash_at_ms: u64,
    /// Back after, ms (0: never).
    pub restart_ms: u64,
    /// A job in flight longer than this is put back, ms.
    pub visibility_ms: u64,
    /// The recovery's gap, ms.
    pub recover_every_ms: u64,
    /// The run stops here, ms.
    pub deadline_ms: u64,
    /// The seed.
    pub seed: u32,
}

impl QueuesParams {
    /// The run of these parameters.
    pub fn setup(&self) -> Setup {
        let reliable = self.queue == "reliable";
        Setup {
            reliable,
            recovery: reliable && self.recovery == "on",
            idem: self.idem == "on",
            jobs: self.jobs,
            workers: self.workers,
            work_ms: self.work,
            every_ms: self.every,
            block_ms: self.block * 1000,
            crash: self
                .crash
                .strip_prefix('w')
                .and_then(|n| n.parse::<usize>().ok())
                .map(|n| n - 1),
            crash_in: match self.crash_in.as_str() {
                "ack" => CrashIn::Ack,
                "any" => CrashIn::Any,
                _ => CrashIn::Work,
            },
            crash_at_ms: self.crash_at,
            restart_ms: self.restart,
            visibility_ms: self.visibility,
            recover_every_ms: self.recover_every,
            deadline_ms: MAX_MS,
            seed: self.seed,
        }
    }

    /// What a live run at time scale `k` runs: at most [`LIVE_JOBS`] jobs and
    /// [`LIVE_WORKERS`] workers, each blocking on the queue for [`LIVE_BLOCK_MS`] at a time
    /// (not 5 s: the proxy runs a session's blocking reads one at a time, and one waits at
    /// most its request timeout, 2 s, for its turn); every other time `k` times slower. It
    /// stops after [`LIVE_DEADLINE_MS`] × `k`. The simulation of the same setup is the
    /// prediction.
    pub fn for_live(&self, k: u64) -> Setup {
        let k = k.max(1);
        let s = self.setup();
        let workers = s.workers.min(LIVE_WORKERS);
        Setup {
            jobs: s.jobs.min(LIVE_JOBS),
            workers,
            crash: s.crash.filter(|&w| w < workers as usize),
            block_ms: LIVE_BLOCK_MS,
            work_ms: s.work_ms * k,
            every_ms: s.every_ms * k,
            crash_at_ms: s.crash_at_ms * k,
            restart_ms: s.restart_ms * k,
            visibility_ms: s.visibility_ms * k,
            recover_every_ms: s.recover_every_ms * k,
            deadline_ms: LIVE_DEADLINE_MS * k,
            ..s
        }
    }
}

impl Setup {
    /// The blocking pop's timeout as the command writes it, in seconds (`5`, `0.2`).
    pub fn block_arg(&self) -> String {
        if self.block_ms % 1000 == 0 {
            (self.block_ms / 1000).to_string()
        } else {
            format!("{}", self.block_ms as f64 / 1000.0)
        }
    }
}

fn rules(p: &Params) -> Result<(), Broken> {
    if let Some(n) = p.get("crash").strip_prefix('w') {
        if n.parse::<i64>().unwrap_or(0) > p.int("workers") {
            return Err(broken(
                "crash",
                "এতজন worker নেই — worker-এর সংখ্যার মধ্যে একজনকে বাছুন",
            ));
        }
    }
    if p.int("visibility") <= p.int("work") + 100 {
        // The field the student changed: the visibility, unless it is still the default.
        let d = FIELDS.iter().find(|f| f.key == "visibility").map(|f| f.default);
        let key = if Some(p.get("visibility")) == d {
            "work"
        } else {
            "visibility"
        };
        return Err(broken(
            key,
            "এক job-এর কাজের চেয়ে অন্তত ১০০ ms বেশি দিন — নইলে কাজ চলা অবস্থাতেই job ফেরত যায়",
        ));
    }
    Ok(())
}

/// The presets: the list queue and its gap, the reliable queue, recovery, at-least-once and
/// the idempotency key.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "simple-crash",
        label: "BRPOP, worker মরে",
        about: "w1 একটা job তুলে কাজের মাঝপথে মরে — BRPOP ফেরার মুহূর্তেই job Redis থেকে গেছে: হারাল",
        pairs: &[],
    },
    Preset {
        id: "simple",
        label: "BRPOP, সব ঠিক",
        about: "কেউ মরে না: LPUSH বাঁয়ে ঢোকায়, BRPOP ডান থেকে তোলে — আগে এলে আগে যায়",
        pairs: &[("crash", "none")],
    },
    Preset {
        id: "reliable",
        label: "BLMOVE",
        about: "একই crash, কিন্তু job processing list-এ টুকে রাখা — হারায় না, তবে কেউ শেষও করে না: আটকে থাকে",
        pairs: &[("queue", "reliable")],
    },
    Preset {
        id: "recovery",
        label: "recovery",
        about: "recovery দেখে job ৩ সেকেন্ডের বেশি আটকে — কিউতে ফেরত পাঠায়, অন্য worker শেষ করে: কিছুই হারায় না",
        pairs: &[("queue", "reliable"), ("recovery", "on")],
    },
    Preset {
        id: "twice",
        label: "দুবার চলে",
        about: "w1 ইমেইল পাঠিয়ে LREM-এর আগেই মরে — recovery job ফেরত দেয়, ইমেইল যায় দুবার: at-least-once",
        pairs: &[
            ("queue", "reliable"),
            ("recovery", "on"),
            ("crash_in", "ack"),
        ],
    },
    Preset {
        id: "idempotent",
        label: "idempotency key",
        about: "একই crash, কিন্তু SET done:<id> 1 NX EX — দ্বিতীয়বার GET চাবিটা পায়, ইমেইল আর যায় না",
        pairs: &[
            ("queue", "reliable"),
            ("recovery", "on"),
            ("crash_in", "ack"),
            ("idem", "on"),
        ],
    },
];

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "queues",
    title: "List-এর কিউ — হারানো job, recovery, দুবার চলা",
    blurb: "producer, worker আর একটা crash — BRPOP-এ job হারায়, BLMOVE-এ থাকে, recovery ফেরত দেয়, idempotency key দ্বিতীয়বারটা নিরীহ করে",
    fields: FIELDS,
    presets: PRESETS,
    rules,
    runs: &["run"],
    live: true,
};

/// The setup of `job`: shaped for a live run when it asks.
fn shaped(job: &Job, p: &Params) -> (QueuesParams, Setup) {
    let p: QueuesParams = p.typed();
    let s = match job.live_scale {
        Some(k) => p.for_live(k),
        None => p.setup(),
    };
    (p, s)
}

/// The lab's runner.
pub struct QueuesLab;

/// The registry's entry.
pub static LAB: QueuesLab = QueuesLab;

impl Lab for QueuesLab {
    fn info(&self) -> &'static LabInfo {
        &INFO
    }

    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        practice::KINDS
    }

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        let (p, s) = shaped(job, p);
        Ok(erase(sim(&p, &s)))
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        let (p, s) = shaped(job, p);
        Some(Box::new(live(&p, &s)))
    }

    /// Forty jobs through four workers, the recovery every 100 ms over a long run.
    fn heaviest(&self) -> &'static str {
        "queue=reliable&recovery=on&idem=on&jobs=40&workers=4&work=10000&every=0&visibility=20000&recover_every=100&crash_in=ack&crash_at=5000&restart=2000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            alias: None,
            summary: "list queues: LPUSH + BRPOP loses the job in flight, BLMOVE to a \
                      processing list keeps it, a recovery pass puts it back (start times in \
                      a sorted set), the idempotency key (the commands, then the counts)",
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let p: QueuesParams = p.typed();
        let mut run = sim(&p, &p.setup());
        run.steps(usize::MAX);
        Ok(crate::cli::emit(a, run_text(&run), || {
            run.output().to_json()
        }))
    }
}
