//! The buffering lab's simulation: the whole audience in aggregate — each viewer's seeded
//! moment in the second and leaving time, the presence counts per second (arithmetic on who
//! is still there) and the progress Map per user, moment by moment (each flush, the failed
//! flush's requeue, the end) — and the commands themselves, spoken to a SimRedis by a sample
//! of viewers for [`SAMPLE_S`] seconds in each design ([`sample`]). Direct: every viewer's
//! heartbeat is a timer and its own `ZADD presence:room:42 <ms> user:<i>`. Buffered: the
//! heartbeat only joins the buffer; at every second the buffer is cut into `ZADD`s of at
//! most `chunk` members, all sent at once (one pipeline, one round trip). An observer reads
//! `ZCARD` at the end.

use super::output::{BufferOutput, Check, Flush, Sample, SampleDesign, Totals};
use super::params::{BufferParams, Requeue};
use super::{PRESENCE_MS, ROOM, SAMPLE_S};
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::EPOCH_MS;
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Backend, Command, Hop, Io, Logged, Model, OpId, Outcome, World};

/// Log lines kept per design.
pub const LOG: usize = 8;
/// Words of a command the log keeps (a 300-member `ZADD` has 602).
const WORDS: usize = 6;

/// Viewer `i`'s schedule: its moment in the second (ms) and its events (one a second from
/// that moment, while it stays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewer {
    /// Its events come at `offset + 1000·k`.
    pub offset: u32,
    /// How many it sends.
    pub events: u32,
}

impl Viewer {
    /// Its events sent strictly before `ms` (its progress then: seconds watched).
    pub fn before(&self, ms: u64) -> u32 {
        let o = u64::from(self.offset);
        if ms <= o {
            0
        } else {
            ((ms - o).div_ceil(PRESENCE_MS)).min(u64::from(self.events)) as u32
        }
    }
}

/// Every viewer's schedule, seeded: three draws per viewer, so the first `n` viewers are the
/// same whatever the audience's size.
pub fn viewers(p: &BufferParams, n: u32) -> Vec<Viewer> {
    let mut rng = Mulberry32::new(p.seed ^ 0x00B0_FFE4);
    let run_ms = u64::from(p.seconds) * PRESENCE_MS;
    (0..n)
        .map(|_| {
            let offset = rng.below(PRESENCE_MS as u32);
            let leaves = rng.below(100) < p.leave;
            let at = u64::from(rng.below(run_ms as u32));
            let events = if leaves {
                (at.saturating_sub(u64::from(offset))).div_ceil(PRESENCE_MS) as u32
            } else {
                p.seconds
            };
            Viewer {
                offset,
                events: events.min(p.seconds),
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    /// Progress flush number `.0` (1-based).
    Flush(u32),
    /// The failed flush's rows go back.
    Requeue,
    /// The run ends: the Map takes the last events, nothing is flushed.
    End,
}

/// The run of `p`.
pub fn run(p: &BufferParams) -> BufferOutput {
    let vs = viewers(p, p.viewers);
    let secs = p.seconds as usize;
    let chunk = u64::from(p.chunk.max(1));
    // Presence: who is there each second.
    let mut ends = vec![0u32; secs + 1];
    for v in &vs {
        ends[v.events as usize] += 1;
    }
    let mut active = vec![0u32; secs];
    let mut left = p.viewers;
    for (s, a) in active.iter_mut().enumerate() {
        left -= ends[s];
        *a = left;
    }
    let events: u64 = active.iter().map(|&a| u64::from(a)).sum();
    let direct = Totals {
        redis_cmds: events,
        round_trips: events,
        members: events,
        db_rows: events,
        db_queries: events,
    };
    let mut buffered = Totals {
        redis_cmds: active.iter().map(|&a| u64::from(a).div_ceil(chunk)).sum(),
        round_trips: active.iter().filter(|&&a| a > 0).count() as u64,
        members: events,
        ..Totals::default()
    };
    // Progress: the Map per user, moment by moment.
    let period = u64::from(p.progress_s.max(1)) * PRESENCE_MS;
    let mut moments: Vec<(u64, Moment)> = (1..=p.flushes())
        .map(|k| (u64::from(k) * period, Moment::Flush(k)))
        .collect();
    let requeue_at_ms = (p.fail > 0).then(|| u64::from(p.fail) * period + u64::from(p.db_ms));
    if let Some(r) = requeue_at_ms {
        moments.push((r, Moment::Requeue));
    }
    moments.push((u64::from(p.seconds) * PRESENCE_MS, Moment::End));
    moments.sort_by_key(|&(t, m)| (t, matches!(m, Moment::End)));
    let n = vs.len();
    let (mut last, mut map, mut db, mut pending) =
        (vec![0u32; n], vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let mut flushes = Vec::new();
    let mut failed = Flush::default();
    let batch = u64::from(p.batch.max(1));
    for &(t, m) in &moments {
        // Events since the last moment: the newest overwrites the user's row.
        for i in 0..n {
            let c = vs[i].before(t);
            if c > last[i] {
                last[i] = c;
                map[i] = c;
            }
        }
        match m {
            Moment::Flush(k) => {
                let rows = map.iter().filter(|&&v| v > 0).count() as u64;
                let ok = k != p.fail;
                let f = Flush {
                    at_s: (t / PRESENCE_MS) as u32,
                    rows,
                    queries: if ok {
                        rows.div_ceil(batch)
                    } else {
                        u64::from(rows > 0)
                    },
                    ok,
                    ..Flush::default()
                };
                let into = if ok { &mut db } else { &mut pending };
                for i in 0..n {
                    if map[i] > 0 {
                        into[i] = map[i];
                        map[i] = 0;
                    }
                }
                if ok {
                    buffered.db_rows += rows;
                }
                buffered.db_queries += f.queries;
                if ok {
                    flushes.push(f);
                } else {
                    failed = f;
                    flushes.push(f);
                }
            }
            Moment::Requeue => {
                for i in 0..n {
                    let v = std::mem::take(&mut pending[i]);
                    if v == 0 {
                        continue;
                    }
                    match p.requeue {
                        Requeue::Drop => failed.dropped += 1,
                        Requeue::Blind => {
                            if map[i] > 0 {
                                failed.overwrote_newer += 1;
                            }
                            map[i] = v;
                            failed.requeued += 1;
                        }
                        Requeue::NewerWins => {
                            if map[i] > 0 {
                                failed.kept_newer += 1;
                            } else {
                                map[i] = v;
                                failed.requeued += 1;
                            }
                        }
                    }
                }
                if let Some(f) = flushes.iter_mut().find(|f| !f.ok) {
                    *f = failed;
                }
            }
            Moment::End => {}
        }
    }
    let mut check = Check::default();
    for i in 0..n {
        let latest = vs[i].events;
        if latest == 0 {
            continue;
        }
        check.users += 1;
        if map[i] == latest {
            check.pending += 1;
        } else if map[i] == 0 && db[i] == latest {
            check.written += 1;
        } else {
            check.behind += 1;
        }
    }
    BufferOutput {
        params: p.clone(),
        active,
        direct,
        buffered,
        flushes,
        requeue_at_ms,
        check,
        sample: sample(p),
    }
}

// --- the SimRedis sample --------------------------------------------------------------

/// The model's timers.
#[derive(Clone, Copy, Debug)]
pub enum Tick {
    /// Viewer `.0`'s heartbeat.
    Beat(usize),
    /// The buffer's flush.
    Flush,
    /// The observer reads the room.
    Read,
}

/// The sample's viewers, buffer and observer, in one design.
pub struct Viewers {
    buffered: bool,
    chunk: usize,
    n: usize,
    /// Heartbeats waiting: (viewer, ms).
    buffer: Vec<(usize, u64)>,
    out: SampleDesign,
}

impl Viewers {
    fn member(i: usize) -> String {
        format!("user:{}", i + 1)
    }
}

impl Model for Viewers {
    type Timer = Tick;

    fn on_timer(&mut self, t: Tick, io: &mut Io<Tick>) {
        let now = io.now();
        match t {
            Tick::Beat(i) => {
                if now < u64::from(SAMPLE_S) * PRESENCE_MS {
                    io.after(PRESENCE_MS, Tick::Beat(i));
                } else {
                    return;
                }
                if self.buffered {
                    self.buffer.push((i, now));
                } else {
                    let score = (EPOCH_MS + now as i64).to_string();
                    io.send(i, cmd(&["ZADD", ROOM, &score, &Self::member(i)]));
                    self.out.cmds += 1;
                    self.out.round_trips += 1;
                    self.out.members += 1;
                }
            }
            Tick::Flush => {
                if now < u64::from(SAMPLE_S) * PRESENCE_MS {
                    io.after(PRESENCE_MS, Tick::Flush);
                }
                let beats = std::mem::take(&mut self.buffer);
                for part in beats.chunks(self.chunk) {
                    let mut k: Command = cmd(&["ZADD", ROOM]);
                    for &(i, at) in part {
                        k.push((EPOCH_MS + at as i64).to_string().into_bytes());
                        k.push(Self::member(i).into_bytes());
                    }
                    io.send(self.n, k);
                    self.out.cmds += 1;
                    self.out.members += part.len() as u64;
                }
                if !beats.is_empty() {
                    self.out.round_trips += 1;
                }
            }
            Tick::Read => {
                io.send(self.n + 1, cmd(&["ZCARD", ROOM]));
            }
        }
    }

    fn on_reply(&mut self, _op: OpId, actor: ActorId, outcome: Outcome, _io: &mut Io<Tick>) {
        if actor == self.n + 1 {
            if let Outcome::Reply(r) = outcome {
                self.out.zcard = r.as_int().unwrap_or(-1);
            }
        }
    }

    fn on_logged(
        &mut self,
        _op: OpId,
        actor: ActorId,
        cmd: &Command,
        what: Logged<'_>,
        at_ms: u64,
    ) {
        let observer = actor == self.n + 1;
        if self.out.log.len() >= LOG && !observer {
            return;
        }
        let reply = match what {
            Logged::Reply(r) => Ok(r.to_reply()),
            Logged::Refused => Err(NoReply::Refused),
            Logged::TimedOut(ms) => Err(NoReply::TimedOut(ms)),
        };
        let mut line = CmdLine::new(at_ms, self.actor_name(actor), cmd, reply);
        if line.cmd.len() > WORDS + 1 {
            let members = (line.cmd.len() - 2) / 2;
            line.note = format!("{members} জন, {} শব্দ", line.cmd.len());
            line.cmd.truncate(WORDS);
            line.cmd
                .push(format!("… (আরও {} জন)", members - (WORDS - 2) / 2));
        }
        self.out.log.push(line);
    }

    fn actor_name(&self, actor: ActorId) -> String {
        if actor == self.n {
            "বাফার".into()
        } else if actor == self.n + 1 {
            "পাঠক".into()
        } else {
            Self::member(actor)
        }
    }
}

/// One design of the sample as a [`Scenario`].
pub struct SampleScenario {
    buffered: bool,
    p: BufferParams,
}

impl Scenario for SampleScenario {
    type Model = Viewers;
    type Output = SampleDesign;

    fn world<B: Backend>(&mut self, backend: B, _live: bool) -> World<B, Viewers> {
        let n = self.p.sample.min(self.p.viewers) as usize;
        let model = Viewers {
            buffered: self.buffered,
            chunk: self.p.chunk.max(1) as usize,
            n,
            buffer: Vec::new(),
            out: SampleDesign::default(),
        };
        let offsets: Vec<u64> = viewers(&self.p, n as u32)
            .iter()
            .map(|v| u64::from(v.offset))
            .collect();
        let buffered = self.buffered;
        let mut world = World::with_model(self.p.seed, backend, model);
        world.start(|_, io| {
            for (i, &o) in offsets.iter().enumerate() {
                io.set_hop(i, Hop::symmetric(1));
                io.at(o, Tick::Beat(i));
            }
            io.set_hop(n, Hop::symmetric(1));
            io.set_hop(n + 1, Hop::symmetric(1));
            if buffered {
                io.at(PRESENCE_MS, Tick::Flush);
            }
            io.at(u64::from(SAMPLE_S) * PRESENCE_MS + 10, Tick::Read);
        });
        world
    }

    fn progress<B: Backend>(&self, world: &World<B, Viewers>) -> f64 {
        (world.now_ms() as f64 / (f64::from(SAMPLE_S) * PRESENCE_MS as f64)).min(1.0)
    }

    fn output<B: Backend>(&self, world: &World<B, Viewers>, _live: Option<&[u32]>) -> SampleDesign {
        world.model().out.clone()
    }
}

/// The sample of `p`: both designs.
pub fn sample(p: &BufferParams) -> Sample {
    let design = |buffered| {
        SimRun::new(
            SampleScenario {
                buffered,
                p: p.clone(),
            },
            p.seed,
        )
        .finish()
    };
    Sample {
        viewers: p.sample.min(p.viewers),
        seconds: SAMPLE_S,
        direct: design(false),
        buffered: design(true),
    }
}
