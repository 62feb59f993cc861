//! The buffering lab (production slide 16, "Redis-কেও রক্ষা করতে হয়"): `viewers` students
//! watch a video; each sends a presence heartbeat and a progress event every second, at a
//! seeded moment of the second. Two designs, side by side:
//!
//! * **direct**: every heartbeat is its own `ZADD presence:room:42 <ms> user:<i>` — one
//!   command and one round trip each — and every progress event is its own database write;
//! * **buffered**: heartbeats wait in memory for 1 s, then go in one pipeline of
//!   `⌈n / chunk⌉` commands, each a `ZADD` of at most `chunk` (300) members; progress waits in
//!   a `Map` keyed by user (a newer event overwrites the older one) and every `progress_s`
//!   (30) seconds is written to the database `batch` (1,000) rows per query.
//!
//! What each saves, exactly: the pipeline saves **round trips** (one a second instead of one
//! per heartbeat, and with them the syscalls), not commands; the chunking saves
//! **commands** (300 heartbeats in one `ZADD`); Redis still adds the same members either way.
//! The Map saves **database rows** (one per user per flush instead of one per event) and the
//! batches save **queries**.
//!
//! A flush can fail (`fail`: the k-th progress flush's first query errors after `db_ms`):
//! its rows go back to the Map (`requeue`) for the next flush. `newer-wins` puts a row back
//! only when the user has no newer event in the Map meanwhile; `blind` puts every row back
//! over whatever is there (a user's newer progress is replaced by the older one); `drop`
//! loses them. The check at the end compares, per user, what the database (or the Map, not
//! yet flushed) holds with the user's latest event.
//!
//! The numbers for the whole audience are arithmetic on the seeded schedule (per user, per
//! flush: no per-event loop), so 50,000 viewers run in milliseconds. The commands themselves
//! are spoken to a SimRedis by a sample of viewers for three seconds ([`model::sample`]), both
//! designs, and counted the same way: the sample's counts equal the arithmetic's for the
//! sample's size (a test holds them to it).
//!
//! No live mode: a 300-member `ZADD` has 602 words and the proxy's allowlist takes at most
//! 256 arguments a command (`crates/proxy/src/commands.rs`), and the lab's point — counts of
//! commands, round trips and rows for 50,000 viewers — is the same arithmetic on a real
//! Redis.

/// Its practice questions.
pub mod practice;

pub mod model;
pub mod output;
pub mod params;
#[cfg(test)]
mod tests;

pub use model::{run, sample};
pub use output::{BufferOutput, Check, Flush, Sample, SampleDesign, Totals};
pub use params::{BufferParams, Requeue};

use super::def::{rules_of, RunDef};
use super::lab::{AnyRun, CliSpec, Job, Lab, LabInfo};
use super::params::Params;
use crate::cli::{Args, CliError};

crate::run_def! {
    /// The lab's one run: both designs over the whole audience, and the SimRedis sample.
    pub struct BufferRun = "run", () => BufferOutput;
}

/// The room's sorted set (as in the presence lab).
pub const ROOM: &str = "presence:room:42";
/// The presence buffer's window, ms (the seed's 1 s).
pub const PRESENCE_MS: u64 = 1_000;
/// Seconds the SimRedis sample runs.
pub const SAMPLE_S: u32 = 3;

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = BufferRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "buffer",
    title: "বাফার: Redis-কেও রক্ষা করা",
    blurb: "৫০ হাজার দর্শকের হার্টবিট আর প্রোগ্রেস — সরাসরি লিখলে আর বাফারে জমিয়ে লিখলে সেকেন্ডে কত কমান্ড, রাউন্ড-ট্রিপ, DB-তে রো; ফ্লাশ ফেল হলে requeue",
    fields: BufferParams::FIELDS,
    presets: params::PRESETS,
    rules: rules_of::<BufferParams>,
    runs: &[BufferRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct BufferLab;

/// The registry's entry.
pub static LAB: BufferLab = BufferLab;

impl Lab for BufferLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(BufferRun::ready(run(&p.read())))
    }

    fn heaviest(&self) -> &'static str {
        "viewers=100000&seconds=300&chunk=1&progress_s=5&batch=1&leave=50&fail=60&db_ms=4999&sample=2000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new(
            "presence heartbeats and progress events written directly or buffered \
                      (1 s pipeline of chunked ZADDs; a per-user Map flushed in batches): \
                      Redis commands, round trips and database rows per second; a failed \
                      flush requeued",
        )
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let r = run(&p.read());
        Ok(crate::cli::emit(a, text(&r), || {
            serde_json::to_value(&r).expect("serialises")
        }))
    }
}

fn num(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The table `labsim buffer` prints.
pub fn text(r: &BufferOutput) -> String {
    let p = &r.params;
    let mut out = format!(
        "{} viewers for {} s (a heartbeat and a progress event each a second); presence \
         buffered 1 s in ZADDs of at most {}; progress flushed every {} s in queries of {} rows\n\n",
        num(u64::from(p.viewers)),
        p.seconds,
        p.chunk,
        p.progress_s,
        p.batch
    );
    out.push_str(&format!(
        "{:<22} {:>14} {:>14}\n",
        "per second (average)", "direct", "buffered"
    ));
    let row = |name: &str, d: u64, b: u64| {
        format!(
            "{:<22} {:>14} {:>14}\n",
            name,
            format!("{:.2}", r.per_s(d)),
            format!("{:.2}", r.per_s(b))
        )
    };
    out.push_str(&row(
        "Redis commands",
        r.direct.redis_cmds,
        r.buffered.redis_cmds,
    ));
    out.push_str(&row(
        "round trips",
        r.direct.round_trips,
        r.buffered.round_trips,
    ));
    out.push_str(&row(
        "ZSET members written",
        r.direct.members,
        r.buffered.members,
    ));
    out.push_str(&row("DB rows", r.direct.db_rows, r.buffered.db_rows));
    out.push_str(&row(
        "DB queries",
        r.direct.db_queries,
        r.buffered.db_queries,
    ));
    out.push_str(&format!(
        "\nwhole run: Redis commands {} vs {}, round trips {} vs {}, DB rows {} vs {}, DB queries {} vs {}\n",
        num(r.direct.redis_cmds),
        num(r.buffered.redis_cmds),
        num(r.direct.round_trips),
        num(r.buffered.round_trips),
        num(r.direct.db_rows),
        num(r.buffered.db_rows),
        num(r.direct.db_queries),
        num(r.buffered.db_queries)
    ));
    out.push_str("\nprogress flushes:\n");
    for f in &r.flushes {
        if f.ok {
            out.push_str(&format!(
                "  {:>4} s  {} rows in {} queries\n",
                f.at_s,
                num(f.rows),
                num(f.queries)
            ));
        } else {
            out.push_str(&format!(
                "  {:>4} s  FAILED ({} rows, requeue {}): put back {}, newer kept {}, newer overwritten {}, dropped {}\n",
                f.at_s,
                num(f.rows),
                p.requeue,
                num(f.requeued),
                num(f.kept_newer),
                num(f.overwrote_newer),
                num(f.dropped)
            ));
        }
    }
    let c = &r.check;
    out.push_str(&format!(
        "\nat the end: {} users; latest progress written {}, waiting in the Map {}, behind {}\n",
        num(c.users),
        num(c.written),
        num(c.pending),
        num(c.behind)
    ));
    let s = &r.sample;
    out.push_str(&format!(
        "\nSimRedis sample: {} viewers for {} s — direct {} commands in {} round trips, \
         buffered {} commands in {} round trips; ZCARD {} / {}\n",
        s.viewers,
        s.seconds,
        num(s.direct.cmds),
        num(s.direct.round_trips),
        num(s.buffered.cmds),
        num(s.buffered.round_trips),
        s.direct.zcard,
        s.buffered.zcard
    ));
    out
}
