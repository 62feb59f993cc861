//! The maxmemory lab (production deck, "উন্নতি ১/২", risks 1 and 2; eviction deck's
//! "noeviction-এর ফাঁদ"): a cache and a queue in one Redis with a memory limit, and what
//! each `maxmemory-policy` does to them when it fills.
//!
//! One SimRedis with `maxmemory` (KB, Redis' own ~877 KB of a fresh server counted in it,
//! `redis::evict::BASE_MEMORY`) and `maxmemory-policy`, driven second by second:
//!
//! * **the API** reads [`READS`] cache keys a second (`cache:item:<k>`, a Zipf draw over
//!   [`ITEMS`] items, seeded): `GET`; on `(nil)` it loads the item and writes it back with
//!   `SET cache:item:<k> <400 bytes> EX 60` (cache-aside). A hit is a `GET` that found it;
//! * **the producer** adds [`STEADY`] jobs a second, and during the burst (seconds
//!   [`BURST_AT`] to [`BURST_AT`] + [`BURST_S`]) `burst` more spread evenly over it: each
//!   job is its own key without a TTL, `SET job:<n> <1000 bytes>` (as BullMQ keeps a job's
//!   data in a key of its own); the order is kept by the application;
//! * **the worker** takes [`WORKER`] jobs a second, oldest first: `GETDEL job:<n>`; a
//!   `(nil)` is a job that was evicted while it waited.
//!
//! What Redis does is SimRedis' model of `evict.c` / `server.c` (7.0): before every command,
//! while `used_memory` is over the limit, `performEvictions` deletes a key the policy picks
//! (sampled LRU, 5 keys into the 16-entry pool); when it can pick none — `noeviction`, or
//! `volatile-lru` with no key that has a TTL left — a command flagged `denyoom` (`SET`) is
//! answered `OOM command not allowed when used memory > 'maxmemory'.` and not run; `GET`
//! and `GETDEL` still run. So `allkeys-lru` evicts a waiting job as readily as a cache key
//! (a job waits untouched, so it looks least recently used), `volatile-lru` evicts only cache
//! keys (they have a TTL) and refuses writes once only jobs are left, and `noeviction`
//! evicts nothing and refuses every `SET` while full — the cache's and the producer's alike.
//!
//! Each second the jobs still waiting are looked at (`peek`, not a command: no LRU touch),
//! so a lost job is counted in the second it was evicted. The run lasts [`SECONDS`] seconds
//! or until the queue is empty after them (at most [`MAX_SECONDS`]). No live mode: the
//! story needs a real server's `maxmemory` set per session, which the proxy's shared Redis
//! does not allow.

use super::def::{rules_of, Figure, Figures, RunDef, Steps};
use super::lab::{AnyRun, Broken, CliSpec, Job, Lab, LabInfo, Run};
use super::params::{broken, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use crate::redis::evict::BASE_MEMORY;
use crate::redis::{Reply, SimRedis};
use crate::rng::{Mulberry32, Zipf};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Cache reads a second.
pub const READS: u32 = 40;
/// Items the API reads (Zipf, exponent 0.9).
pub const ITEMS: u32 = 3000;
/// The cache entries' TTL, s.
pub const CACHE_TTL: u64 = 60;
/// A cache entry's value, bytes.
pub const CACHE_BYTES: usize = 400;
/// Jobs a second outside the burst.
pub const STEADY: u32 = 4;
/// Jobs the worker takes a second.
pub const WORKER: u32 = 8;
/// A job's data, bytes.
pub const JOB_BYTES: usize = 1000;
/// The burst's first second.
pub const BURST_AT: u64 = 30;
/// The burst's length, s.
pub const BURST_S: u64 = 10;
/// The run's length, s (longer while jobs wait).
pub const SECONDS: u64 = 120;
/// The longest run, s.
pub const MAX_SECONDS: u64 = 900;

crate::choices! {
    /// `maxmemory-policy`: the three the decks talk about.
    pub enum EvictPolicy {
        /// Redis' default: evicts nothing, refuses writes.
        NoEviction = "noeviction" / "noeviction — কিছু সরায় না, লেখা ফেরায়",
        /// Any key, least recently used first.
        AllkeysLru = "allkeys-lru" / "allkeys-lru — যেকোনো key, কম সম্প্রতি ব্যবহৃত আগে",
        /// Only keys with a TTL, least recently used first.
        VolatileLru = "volatile-lru" / "volatile-lru — শুধু TTL-ওয়ালা key",
    }
}

crate::params! {
    /// The maxmemory lab's parameters.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct MaxmemoryParams {
        /// `maxmemory-policy`.
        pub policy: EvictPolicy = choice(EvictPolicy::NoEviction, "maxmemory-policy"),
        /// `maxmemory`, KB.
        pub maxmemory: u64 = int(1280, 1024..=8192, "maxmemory (KB, Redis-এর নিজের ~৮৭৭ KB সহ)"),
        /// Extra jobs in the burst.
        pub burst: u32 = int(300, 0..=2000, "বার্স্টে বাড়তি জব (১০ s-এ)"),
        /// Seed of the cache reads.
        pub seed: u32 = seed(1),
    }
    rules = rules;
}

/// The limit must leave room above Redis' own memory.
fn rules(p: &MaxmemoryParams) -> Result<(), Broken> {
    if p.maxmemory * 1024 <= BASE_MEMORY + 64 * 1024 {
        return Err(broken(
            "maxmemory",
            "সীমা Redis-এর নিজের মেমোরির চেয়ে অন্তত ৬৪ KB বেশি হতে হবে",
        ));
    }
    Ok(())
}

/// The presets: one per policy, the same numbers.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "noeviction",
        label: "noeviction",
        about: "ডিফল্ট: মেমোরি ভরলে কিছু সরে না — ক্যাশের SET আর নতুন জব দুটোই OOM পায়",
        pairs: &[],
    },
    Preset {
        id: "allkeys-lru",
        label: "allkeys-lru",
        about: "অপেক্ষমাণ জবকে কেউ ছোঁয় না, তাই সে-ই সবচেয়ে পুরোনো — বার্স্টে জব হারায়",
        pairs: &[("policy", "allkeys-lru")],
    },
    Preset {
        id: "volatile-lru",
        label: "volatile-lru",
        about: "শুধু TTL-ওয়ালা ক্যাশের key সরে; জব হারায় না, তবে ক্যাশ ফুরোলে লেখা ফেরে",
        pairs: &[("policy", "volatile-lru")],
    },
];

impl Default for MaxmemoryParams {
    fn default() -> Self {
        Params::defaults(&INFO).read()
    }
}

/// One second of the run (what happened in it, and the memory at its end).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sec {
    /// `used_memory` at its end, bytes.
    pub used: u64,
    /// Of which the waiting jobs' keys, bytes.
    pub jobs_bytes: u64,
    /// Jobs waiting at its end.
    pub waiting: u32,
    /// Cache reads, and the hits among them.
    pub reads: u32,
    /// Hits.
    pub hits: u32,
    /// Jobs the producer tried to add.
    pub added: u32,
    /// Jobs the worker finished.
    pub done: u32,
    /// Jobs evicted while waiting.
    pub lost: u32,
    /// Cache keys evicted.
    pub evicted: u32,
    /// The cache's `SET`s answered OOM.
    pub oom_cache: u32,
    /// The producer's `SET`s answered OOM (jobs never queued).
    pub oom_queue: u32,
}

/// The run's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaxmemoryOutput {
    /// The parameters.
    pub params: MaxmemoryParams,
    /// The limit, bytes.
    pub limit: u64,
    /// Redis' own memory (a fresh server), bytes.
    pub base: u64,
    /// Every second.
    pub secs: Vec<Sec>,
    /// The first OOM reply, as Redis words it, and when (ms).
    pub oom: Option<(u64, String)>,
}

crate::run_def! {
    /// The lab's one run, second by second.
    pub struct MaxmemoryRun = "run", () => MaxmemoryOutput;
}

impl MaxmemoryOutput {
    /// The totals of the first `k` seconds (position `k` of the timeline).
    pub fn so_far(&self, k: usize) -> Sec {
        self.secs.iter().take(k).fold(Sec::default(), |a, s| Sec {
            used: s.used,
            jobs_bytes: s.jobs_bytes,
            waiting: s.waiting,
            reads: a.reads + s.reads,
            hits: a.hits + s.hits,
            added: a.added + s.added,
            done: a.done + s.done,
            lost: a.lost + s.lost,
            evicted: a.evicted + s.evicted,
            oom_cache: a.oom_cache + s.oom_cache,
            oom_queue: a.oom_queue + s.oom_queue,
        })
    }

    /// The whole run's totals.
    pub fn total(&self) -> Sec {
        self.so_far(self.secs.len())
    }

    /// Cache hits per read, percent.
    pub fn hit_ratio(t: &Sec) -> f64 {
        if t.reads == 0 {
            0.0
        } else {
            f64::from(t.hits) * 100.0 / f64::from(t.reads)
        }
    }

    /// The position that shows the second holding `ms` (the run up to that second's end).
    pub fn position_of(&self, ms: u64) -> usize {
        ((ms / 1000) as usize + 1).min(self.steps())
    }
}

impl Steps for MaxmemoryOutput {
    /// The run's seconds.
    fn steps(&self) -> usize {
        self.secs.len()
    }
}

impl Figures for MaxmemoryOutput {
    fn figures(&self) -> Vec<Figure> {
        let t = self.total();
        vec![
            Figure::count("added", u64::from(t.added)),
            Figure::count("done", u64::from(t.done)),
            Figure::count("lost", u64::from(t.lost)),
            Figure::count("oom-queue", u64::from(t.oom_queue)),
            Figure::count("oom-cache", u64::from(t.oom_cache)),
            Figure::count("evicted", u64::from(t.evicted)),
            Figure::new("hit-ratio", Self::hit_ratio(&t)),
        ]
    }
}

/// What happens at one moment of a second (in this order when two share a millisecond).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Act {
    Work,
    Produce,
    Read,
}

/// The run, stepped a second at a time.
pub struct Sim {
    p: MaxmemoryParams,
    redis: SimRedis,
    zipf: Zipf,
    rng: Mulberry32,
    /// Jobs waiting, oldest first: id, evicted.
    queue: VecDeque<(u64, bool)>,
    next_job: u64,
    evicted_before: u64,
    out: MaxmemoryOutput,
    done: bool,
}

fn cache_key(k: u32) -> String {
    format!("cache:item:{k}")
}

fn job_key(n: u64) -> String {
    format!("job:{n}")
}

fn is_oom(r: &Reply) -> bool {
    matches!(r, Reply::Error(e) if e.starts_with("OOM"))
}

impl Sim {
    /// A fresh Redis with the limit and the policy, nothing run yet.
    pub fn new(p: &MaxmemoryParams) -> Self {
        let mut redis = SimRedis::new(p.seed);
        let limit = p.maxmemory * 1024;
        redis.cmd(&["CONFIG", "SET", "maxmemory-policy", p.policy.word()]);
        redis.cmd(&["CONFIG", "SET", "maxmemory", &limit.to_string()]);
        Sim {
            p: p.clone(),
            redis,
            zipf: Zipf::new(ITEMS, 0.9),
            rng: Mulberry32::new(p.seed ^ 0x6d61_786d),
            queue: VecDeque::new(),
            next_job: 0,
            evicted_before: 0,
            out: MaxmemoryOutput {
                params: p.clone(),
                limit,
                base: BASE_MEMORY,
                secs: Vec::new(),
                oom: None,
            },
            done: false,
        }
    }

    /// Jobs the producer adds in second `s`.
    fn jobs_in(&self, s: u64) -> u32 {
        let burst = if (BURST_AT..BURST_AT + BURST_S).contains(&s) {
            let b = u64::from(self.p.burst);
            // The burst spread evenly: the first seconds take the remainder.
            let i = s - BURST_AT;
            (b / BURST_S + u64::from(i < b % BURST_S)) as u32
        } else {
            0
        };
        STEADY + burst
    }

    fn evicted_keys(&mut self) -> u64 {
        let Reply::Bulk(b) = self.redis.cmd(&["INFO", "stats"]) else {
            return 0;
        };
        let text = String::from_utf8_lossy(&b);
        text.lines()
            .find_map(|l| l.strip_prefix("evicted_keys:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    fn note_oom(&mut self, t: u64, r: &Reply) {
        if self.out.oom.is_none() {
            if let Reply::Error(e) = r {
                self.out.oom = Some((t, e.clone()));
            }
        }
    }

    /// Second `s`: its acts in time order, then a look at the waiting jobs and the memory.
    fn second(&mut self, s: u64) {
        let mut sec = Sec::default();
        let jobs = self.jobs_in(s);
        let mut acts: Vec<(u64, Act)> = Vec::with_capacity((READS + jobs + WORKER) as usize);
        acts.extend((0..WORKER).map(|i| (u64::from(i) * 1000 / u64::from(WORKER) + 7, Act::Work)));
        acts.extend((0..jobs).map(|i| (u64::from(i) * 1000 / u64::from(jobs) + 3, Act::Produce)));
        acts.extend((0..READS).map(|i| (u64::from(i) * 1000 / u64::from(READS), Act::Read)));
        acts.sort_unstable();
        let value = "v".repeat(CACHE_BYTES);
        let payload = "j".repeat(JOB_BYTES);
        for (ms, act) in acts {
            let t = s * 1000 + ms;
            let now = self.redis.now_ms();
            self.redis.advance(t.saturating_sub(now));
            match act {
                Act::Work => {
                    let Some((id, gone)) = self.queue.pop_front() else {
                        continue;
                    };
                    match self.redis.cmd(&["GETDEL", &job_key(id)]) {
                        Reply::Bulk(_) => sec.done += 1,
                        _ if !gone => sec.lost += 1,
                        _ => {}
                    }
                }
                Act::Produce => {
                    sec.added += 1;
                    let id = self.next_job;
                    self.next_job += 1;
                    let r = self.redis.cmd(&["SET", &job_key(id), &payload]);
                    if is_oom(&r) {
                        sec.oom_queue += 1;
                        self.note_oom(t, &r);
                    } else {
                        self.queue.push_back((id, false));
                    }
                }
                Act::Read => {
                    sec.reads += 1;
                    let key = cache_key(self.zipf.sample(&mut self.rng));
                    if let Reply::Bulk(_) = self.redis.cmd(&["GET", &key]) {
                        sec.hits += 1;
                    } else {
                        let ttl = CACHE_TTL.to_string();
                        let r = self.redis.cmd(&["SET", &key, &value, "EX", &ttl]);
                        if is_oom(&r) {
                            sec.oom_cache += 1;
                            self.note_oom(t, &r);
                        }
                    }
                }
            }
        }
        let end = (s + 1) * 1000;
        let now = self.redis.now_ms();
        self.redis.advance(end.saturating_sub(now + 1));
        // Jobs evicted this second (a look, not a command: nothing is touched).
        for (id, gone) in &mut self.queue {
            if !*gone && self.redis.peek_string(job_key(*id).as_bytes()).is_none() {
                *gone = true;
                sec.lost += 1;
            }
        }
        let evicted = self.evicted_keys();
        let delta = evicted - self.evicted_before;
        self.evicted_before = evicted;
        sec.evicted = (delta as u32).saturating_sub(sec.lost);
        sec.waiting = self.queue.iter().filter(|(_, g)| !g).count() as u32;
        sec.jobs_bytes = self
            .queue
            .iter()
            .filter_map(|(id, _)| self.redis.key_memory_estimate(job_key(*id).as_bytes()))
            .sum();
        sec.used = self.redis.used_memory();
        self.out.secs.push(sec);
    }
}

impl Run for Sim {
    type Part = ();
    type Output = MaxmemoryOutput;

    fn step(&mut self) -> Option<()> {
        let s = self.out.secs.len() as u64;
        self.second(s);
        let waiting = self.queue.iter().any(|(_, g)| !g);
        if s + 1 >= MAX_SECONDS || (s + 1 >= SECONDS && !waiting) {
            self.done = true;
        }
        None
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn progress(&self) -> f64 {
        (self.out.secs.len() as f64 / SECONDS as f64).min(0.99)
    }

    fn output(&mut self) -> MaxmemoryOutput {
        self.out.clone()
    }
}

/// The run of `p`, to the end.
pub fn run(p: &MaxmemoryParams) -> MaxmemoryOutput {
    let mut s = Sim::new(p);
    while !s.is_done() {
        s.step();
    }
    s.output()
}

/// The run whose output names the figures the lab's page shows (read natively, by the browser
/// tests, through [`super::registry::figures`]).
pub type MainRun = MaxmemoryRun;

/// The lab.
pub const INFO: LabInfo = LabInfo {
    id: "maxmemory",
    title: "ক্যাশ আর কিউ এক Redis-এ — মেমোরি ভরলে কী হয়",
    blurb: "maxmemory ভরলে noeviction লেখা ফেরায় (OOM), allkeys-lru অপেক্ষমাণ জব ফেলে দেয়, volatile-lru সরায় শুধু TTL-ওয়ালা ক্যাশ",
    fields: MaxmemoryParams::FIELDS,
    presets: PRESETS,
    rules: rules_of::<MaxmemoryParams>,
    runs: &[MaxmemoryRun::NAME],
    live: false,
};

/// The lab's runner.
pub struct MaxmemoryLab;

/// The registry's entry.
pub static LAB: MaxmemoryLab = MaxmemoryLab;

impl Lab for MaxmemoryLab {
    crate::lab_basics!();

    fn start(&self, _job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String> {
        Ok(MaxmemoryRun::erase(Sim::new(&p.read())))
    }

    /// The biggest burst at the smallest limit: the longest run, the most evictions.
    fn heaviest(&self) -> &'static str {
        "policy=allkeys-lru&maxmemory=1024&burst=2000"
    }

    fn cli_spec(&self) -> CliSpec {
        CliSpec::new(
            "a cache (GET / SET … EX 60) and a queue (SET job:<n>, GETDEL) in one Redis \
                      with maxmemory: jobs lost to eviction, writes refused with OOM, cache keys \
                      evicted and the hit ratio under noeviction, allkeys-lru or volatile-lru",
        )
    }

    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError> {
        let out = run(&p.read());
        Ok(crate::cli::emit(a, text(&out), || {
            serde_json::to_value(&out).unwrap_or_default()
        }))
    }
}

/// The command line's summary.
pub fn text(o: &MaxmemoryOutput) -> String {
    let p = &o.params;
    let t = o.total();
    let mut s = format!(
        "maxmemory: {} KB, {}, burst {} jobs, seed {}; {} s\n",
        p.maxmemory,
        p.policy,
        p.burst,
        p.seed,
        o.secs.len()
    );
    s += &format!(
        "jobs: added {}, done {}, lost to eviction {}, refused with OOM {}\n",
        t.added, t.done, t.lost, t.oom_queue
    );
    s += &format!(
        "cache: reads {}, hit ratio {:.1}%, keys evicted {}, SETs refused with OOM {}\n",
        t.reads,
        MaxmemoryOutput::hit_ratio(&t),
        t.evicted,
        t.oom_cache
    );
    if let Some((at, e)) = &o.oom {
        s += &format!("first OOM at {:.3} s: {e}\n", *at as f64 / 1000.0);
    }
    s
}

/// Its practice questions.
pub mod practice {
    use super::{run, EvictPolicy, MaxmemoryOutput, MaxmemoryParams, INFO};
    use crate::practice::pick::{int, only_wrong, Draw};
    use crate::practice::{params, show_end, Answer, Draft, QuestionKind};

    /// The maxmemory lab's question kinds.
    pub const KINDS: &[QuestionKind] = &[QuestionKind {
        id: "lost",
        title: "allkeys-lru-তে কয়টা জব হারায়",
        make: lost,
    }];

    fn lost(seed: u32) -> Draft {
        let mut d = Draw::new(seed, 140);
        let maxmemory = d.int(68, 80) * 16;
        let burst = d.int(100, 600);
        let p = params(
            &INFO,
            &[
                ("policy", "allkeys-lru".into()),
                ("maxmemory", maxmemory.to_string()),
                ("burst", burst.to_string()),
                ("seed", d.int(0, 99_999).to_string()),
            ],
        );
        let o: MaxmemoryOutput = run(&p.read::<MaxmemoryParams>());
        debug_assert_eq!(o.params.policy, EvictPolicy::AllkeysLru);
        let t = o.total();
        let right = i64::from(t.lost);
        let hints = only_wrong(
            vec![
                (
                    0,
                    "allkeys-lru জব আর ক্যাশ আলাদা চেনে না — অপেক্ষমাণ জবকে কেউ ছোঁয় না, তাই LRU-র চোখে সে-ই সবচেয়ে পুরোনো।".into(),
                ),
                (
                    i64::from(burst),
                    "পুরো বার্স্ট হারায় না: ওয়ার্কার সেকেন্ডে ৮টা নেয়, আর জায়গা খালি করতে Redis অনেক সময় ক্যাশের key-ই সরায়।".into(),
                ),
                (
                    i64::from(t.evicted),
                    "এটা সরানো ক্যাশের key-এর সংখ্যা — প্রশ্ন শুধু জব নিয়ে।".into(),
                ),
            ],
            right,
        );
        Draft {
            text: format!(
                "একই Redis-এ ক্যাশ আর কিউ: maxmemory {} KB (Redis-এর নিজের প্রায় ৮৭৭ KB সহ), policy allkeys-lru। API সেকেন্ডে ৪০টা ক্যাশ key পড়ে, না পেলে ৬০ সেকেন্ডের TTL দিয়ে লেখে; প্রতিটা জব TTL ছাড়া নিজের key, সেকেন্ডে ৪টা আসে, ওয়ার্কার সেকেন্ডে ৮টা নেয়। ৩০ থেকে ৪০ সেকেন্ডে বাড়তি {}টা জব আসে। ওয়ার্কারের কাছে পৌঁছানোর আগে কয়টা জব eviction-এ হারায়?",
                int(maxmemory.into()),
                int(burst.into())
            ),
            code: vec![
                format!("CONFIG SET maxmemory {}", u64::from(maxmemory) * 1024),
                "CONFIG SET maxmemory-policy allkeys-lru".into(),
                "SET job:<n> <1000 bytes>          # producer, no TTL".into(),
                "GETDEL job:<n>                    # worker: (nil) = lost".into(),
            ],
            answer: Answer::Count { n: right, hints },
            why: format!(
                "মেমোরি ভরা থাকলে প্রতিটা লেখার আগে Redis নমুনা নিয়ে সবচেয়ে বেশি সময় না-ছোঁয়া key ফেলে; বার্স্টের জব সারিতে বসে থাকে, কেউ পড়ে না, তাই {}টা জব সরে যায় — সাথে {}টা ক্যাশ key।",
                int(right),
                int(i64::from(t.evicted))
            ),
            show: show_end(&p),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::practice::tests::{every_seed, lab_output, Truth};
        use crate::practice::Question;

        /// The lost jobs, read off an independent run of "show me"'s parameters.
        fn rerun(q: &Question) -> Truth {
            let show = q.draft.show.as_ref().expect("every question shows the lab");
            let out: MaxmemoryOutput = lab_output(show);
            match q.kind.as_str() {
                "lost" => Truth::Count(out.secs.iter().map(|s| i64::from(s.lost)).sum()),
                k => panic!("no rerun for {k}"),
            }
        }

        #[test]
        fn maxmemory_questions_over_1000_seeds() {
            every_seed("maxmemory", rerun);
        }

        #[test]
        fn answers_vary() {
            crate::practice::tests::answers_vary("maxmemory");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(q: &str) -> MaxmemoryParams {
        let (p, errors) = Params::from_query(&INFO, q);
        assert!(errors.is_empty(), "{errors:?}");
        p.read()
    }

    /// The seed's three policies, to the last digit: noeviction refuses, allkeys-lru loses
    /// jobs, volatile-lru evicts only cache keys.
    #[test]
    fn golden_three_policies() {
        let t = run(&with("")).total();
        assert_eq!(
            (t.lost, t.oom_queue, t.oom_cache, t.evicted),
            (0, 327, 477, 0)
        );
        let t = run(&with("preset=allkeys-lru")).total();
        assert_eq!(
            (t.lost, t.oom_queue, t.oom_cache, t.evicted),
            (245, 0, 0, 1246)
        );
        let t = run(&with("preset=volatile-lru")).total();
        assert_eq!((t.lost, t.oom_queue, t.oom_cache), (0, 0, 0));
        assert_eq!(t.added, t.done);
    }

    /// Over seeds, limits and bursts: noeviction never evicts, volatile-lru never evicts a
    /// job, allkeys-lru loses jobs in a big burst; every job is done, lost or refused.
    #[test]
    fn properties() {
        for seed in 0..6 {
            for m in [1088, 1280] {
                let q = |pol: &str| format!("policy={pol}&maxmemory={m}&burst=400&seed={seed}");
                let n = run(&with(&q("noeviction")));
                let t = n.total();
                assert_eq!((t.lost, t.evicted), (0, 0), "{seed} {m}");
                assert!(
                    t.oom_queue > 0
                        && n.oom
                            .as_ref()
                            .is_some_and(|(_, e)| e
                                == "OOM command not allowed when used memory > 'maxmemory'.")
                );
                let v = run(&with(&q("volatile-lru"))).total();
                assert_eq!(v.lost, 0, "{seed} {m}");
                let a = run(&with(&q("allkeys-lru")));
                let at = a.total();
                assert!(at.lost > 0 && at.oom_queue == 0, "{seed} {m}");
                // The losses fall in the burst and the backlog after it, not before.
                assert!(a.secs[..BURST_AT as usize].iter().all(|s| s.lost == 0));
                for o in [&n, &a] {
                    let t = o.total();
                    let waiting = o.secs.last().map_or(0, |s| s.waiting);
                    assert_eq!(t.added, t.done + t.lost + t.oom_queue + waiting);
                    assert!(o.secs.iter().all(|s| s.used <= o.limit + 4096));
                }
            }
        }
    }

    #[test]
    fn rules_heaviest_and_steps() {
        let (_, errors) = Params::from_query(&INFO, "maxmemory=900");
        assert_eq!(errors[0].key, "maxmemory");
        let (h, errors) = Params::from_query(&INFO, LAB.heaviest());
        assert!(errors.is_empty(), "{errors:?}");
        let o = run(&h.read());
        assert!(o.steps() > SECONDS as usize && o.steps() <= MAX_SECONDS as usize);
        let d = run(&MaxmemoryParams::default());
        assert_eq!(d.steps(), 120);
        assert_eq!(d.so_far(d.steps()), d.total());
        assert_eq!(text(&d).lines().count(), 4);
    }
}
