//! The smallest world worth watching: workers racing for one Redis lock.
//!
//! Each [`LockWorker`] takes the lock with `SET key <token> NX PX ttl`, works in its critical
//! section, and releases it either by plain `DEL` or by the token-checked release script
//! (`EVALSHA`, [`crate::redis::scripts::RELEASE`]); when the lock is taken
//! it sleeps a seeded random 40–100 ms and tries again. [`race`] builds two of them; the
//! helpers read the trace for what the lock-race lab shows: critical sections, moments with
//! two owners, and releases that deleted someone else's lock.

use super::{cmd, Action, Actor, ActorId, Command, Ctx, Hop, Input, What, World};
use crate::redis::{scripts, Reply, SimRedis};
use serde::Serialize;

/// How a worker releases the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Release {
    /// `DEL key`: deletes whoever's lock is there.
    Del,
    /// `EVALSHA <release> 1 key token`: deletes it only if it still holds our token.
    Token,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Acquire,
    Working,
    Releasing,
    Waiting,
}

/// A worker that takes the lock, works, releases, `jobs` times.
#[derive(Clone, Debug)]
pub struct LockWorker {
    name: String,
    key: String,
    ttl_ms: u64,
    work_ms: u64,
    release: Release,
    jobs: u32,
    done_jobs: u32,
    token: String,
    phase: Phase,
}

/// Text of a critical section in the trace.
pub const CRITICAL: &str = "critical section";

impl LockWorker {
    /// A worker named `name` on lock `key`.
    pub fn new(
        name: &str,
        key: &str,
        ttl_ms: u64,
        work_ms: u64,
        release: Release,
        jobs: u32,
    ) -> Self {
        Self {
            name: name.into(),
            key: key.into(),
            ttl_ms,
            work_ms,
            release,
            jobs,
            done_jobs: 0,
            token: String::new(),
            phase: Phase::Acquire,
        }
    }

    fn acquire(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Acquire;
        self.token = format!("{}-{:08x}", self.name, ctx.rng.next_u32());
        let ttl = self.ttl_ms.to_string();
        Action::Send {
            cmd: cmd(&["SET", &self.key, &self.token, "NX", "PX", &ttl]),
        }
    }

    fn wait(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Waiting;
        Action::Sleep {
            ms: 40 + u64::from(ctx.rng.below(61)),
        }
    }

    fn release_cmd(&self) -> Command {
        match self.release {
            Release::Del => cmd(&["DEL", &self.key]),
            Release::Token => cmd(&[
                "EVALSHA",
                scripts::RELEASE.sha1,
                "1",
                &self.key,
                &self.token,
            ]),
        }
    }
}

impl Actor for LockWorker {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        match (self.phase, input) {
            (_, Input::Start) => self.acquire(ctx),
            (Phase::Acquire, Input::Reply { reply }) if *reply == Reply::ok() => {
                self.phase = Phase::Working;
                Action::Work {
                    ms: self.work_ms,
                    what: CRITICAL.into(),
                }
            }
            (Phase::Acquire, Input::Reply { .. }) => self.wait(ctx),
            (Phase::Waiting, Input::Wake) => self.acquire(ctx),
            (Phase::Working, Input::Wake) => {
                self.phase = Phase::Releasing;
                Action::Send {
                    cmd: self.release_cmd(),
                }
            }
            (Phase::Releasing, Input::Reply { .. }) => {
                self.done_jobs += 1;
                if self.done_jobs >= self.jobs {
                    Action::Done
                } else {
                    self.wait(ctx)
                }
            }
            _ => Action::Done,
        }
    }
}

/// Two workers, A and B, on lock `lock`, both starting at 0 ms behind `hop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceConfig {
    /// Lock TTL, ms.
    pub ttl_ms: u64,
    /// A's work per job (make it longer than the TTL to model a pause), ms.
    pub a_work_ms: u64,
    /// B's work per job, ms.
    pub b_work_ms: u64,
    /// How both release.
    pub release: Release,
    /// Jobs per worker.
    pub jobs: u32,
    /// Network between each worker and Redis.
    pub hop: Hop,
}

impl Default for RaceConfig {
    fn default() -> Self {
        Self {
            ttl_ms: 1000,
            a_work_ms: 300,
            b_work_ms: 300,
            release: Release::Token,
            jobs: 2,
            hop: Hop::symmetric(1),
        }
    }
}

/// The race's two workers, A then B, on lock `lock` (a live driver runs these same actors
/// against a real Redis).
pub fn workers(c: &RaceConfig) -> [LockWorker; 2] {
    [("A", c.a_work_ms), ("B", c.b_work_ms)]
        .map(|(name, work)| LockWorker::new(name, "lock", c.ttl_ms, work, c.release, c.jobs))
}

/// The race world for `seed` (not run yet).
pub fn race(seed: u32, c: &RaceConfig) -> World<SimRedis> {
    let mut w = World::with_sim(seed);
    for worker in workers(c) {
        w.add(Box::new(worker), c.hop, 0);
    }
    w
}

/// Critical sections in the trace: (actor, start ms, end ms).
pub fn critical_sections(trace: &[super::TraceEvent]) -> Vec<(ActorId, u64, u64)> {
    trace
        .iter()
        .filter_map(|e| match &e.what {
            What::Act {
                action: Action::Work { ms, what },
                ..
            } if what == CRITICAL => Some((e.actor, e.at_ms, e.at_ms + ms)),
            _ => None,
        })
        .collect()
}

/// Pairs of critical sections of different actors that overlap in time (two owners).
pub fn two_owner_moments(trace: &[super::TraceEvent]) -> usize {
    let cs = critical_sections(trace);
    let mut n = 0;
    for (i, a) in cs.iter().enumerate() {
        for b in &cs[i + 1..] {
            if a.0 != b.0 && a.1 < b.2 && b.1 < a.2 {
                n += 1;
            }
        }
    }
    n
}

/// Releases that Redis executed with reply 1 while another actor was in its critical
/// section: the moment a DEL removed someone else's lock.
pub fn stolen_releases(trace: &[super::TraceEvent]) -> Vec<(ActorId, u64)> {
    let cs = critical_sections(trace);
    trace
        .iter()
        .filter_map(|e| match &e.what {
            What::Exec {
                cmd,
                reply: Some(Reply::Integer(1)),
            } if cmd[0].eq_ignore_ascii_case(b"del") || cmd[0].eq_ignore_ascii_case(b"evalsha") => {
                cs.iter()
                    .any(|&(who, s, end)| who != e.actor && s <= e.at_ms && e.at_ms < end)
                    .then_some((e.actor, e.at_ms))
            }
            _ => None,
        })
        .collect()
}
