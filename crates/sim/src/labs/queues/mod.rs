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

//!
//! The files: [`params`] (the fields, the presets, what a run runs), [`model`] (the actors,
//! the run as a scenario, the analysis of its trace), [`output`] (what the view draws and
//! `labsim` prints, the lists at any position), [`practice`] (the question kinds).
/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, QueuesLive, QueuesScenario, QueuesSim};
pub use output::*;
pub use params::{Crash, CrashIn, Queue, QueuesParams, Setup, PRESETS};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo, LiveDriver};
use super::params::Params;
use super::scenario;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: the producer, the workers and the recovery, command by command.
    pub struct QueuesRun = "run", () => QueuesOutput;
}

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

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = QueuesRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "queues",
    title: "List-এর কিউ — হারানো job, recovery, দুবার চলা",
    blurb: "producer, worker আর একটা crash — BRPOP-এ job হারায়, BLMOVE-এ থাকে, recovery ফেরত দেয়, idempotency key দ্বিতীয়বারটা নিরীহ করে",
    fields: QueuesParams::FIELDS,
    presets: PRESETS,
    rules: rules_of::<QueuesParams>,
    runs: &[QueuesRun::NAME],
    live: true,
};

/// The lab's runner.
pub struct QueuesLab;

/// The registry's entry.
pub static LAB: QueuesLab = QueuesLab;

impl Lab for QueuesLab {
    crate::lab_basics!();

    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        scenario::start::<QueuesScenario>(job, p)
    }

    fn live(&self, job: &Job, p: &Params) -> Option<Box<dyn LiveDriver>> {
        scenario::live::<QueuesScenario>(job, p)
    }

    /// Forty jobs through four workers, the recovery every 100 ms over a long run.
    fn heaviest(&self) -> &'static str {
        "queue=reliable&recovery=on&idem=on&jobs=40&workers=4&work=10000&every=0&visibility=20000&recover_every=100&crash_in=ack&crash_at=5000&restart=2000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec {
            switches: &["page"],
            usage: &["[--page]"],
            ..CliSpec::new(
                "list queues: LPUSH + BRPOP loses the job in flight, BLMOVE to a \
                      processing list keeps it, a recovery pass puts it back (start times in \
                      a sorted set), the idempotency key (the commands, then the counts; \
                      --page adds what only the lab's page draws to the JSON)",
            )
        }
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        scenario::cli::<QueuesScenario>(p, a)
    }
}

/// The command line's text: the setup, the trace, the counts.
pub fn text(r: &QueuesOutput, trace: &str) -> String {
    let s = &r.setup;
    let c = &r.end.counters;
    let mut out = format!(
        "queues: {}{}{}, {} jobs every {} ms, {} workers, work {} ms, block {} ms, crash {} {:?} at {} ms (back after {} ms), visibility {} ms, recovery every {} ms, seed {}\n",
        if s.reliable { "reliable (BLMOVE)" } else { "simple (BRPOP)" },
        if s.recovery { " + recovery" } else { "" },
        if s.idem { " + idempotency key" } else { "" },
        s.jobs,
        s.every_ms,
        s.workers,
        s.work_ms,
        s.block_ms,
        s.crash.map_or("none".to_string(), |w| format!("w{}", w + 1)),
        s.crash_in,
        s.crash_at_ms,
        s.restart_ms,
        s.visibility_ms,
        s.recover_every_ms,
        s.seed
    );
    out.push_str(trace);
    out.push_str(&format!(
        "produced {}, done {}, lost {}, stuck {}, taken twice {}, effects twice {}, made harmless {}, requeued {}, crashes {}, commands {}, end {} ms{}\n",
        c.produced,
        c.done,
        c.lost,
        c.stuck,
        c.taken_twice,
        c.effects_twice,
        c.skipped,
        c.requeued,
        c.crashes,
        c.commands,
        r.end_ms,
        if r.cut_short { " (deadline)" } else { "" }
    ));
    out
}
