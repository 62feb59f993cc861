//! The commands themselves: a sample of viewers for [`SAMPLE_S`] seconds on a SimRedis, in
//! each design. Direct: every viewer's heartbeat is a timer and its own
//! `ZADD presence:room:42 <ms> user:<i>`. Buffered: the heartbeat only joins the buffer; at
//! every second the buffer is cut into `ZADD`s of at most `chunk` members, all sent at once
//! (one pipeline, one round trip). An observer reads `ZCARD` at the end.

use super::model::viewers;
use super::{BufferParams, PRESENCE_MS, ROOM, SAMPLE_S};
use crate::labs::log::{CmdLine, NoReply};
use crate::labs::scenario::{Scenario, SimRun};
use crate::redis::EPOCH_MS;
use crate::world::{cmd, ActorId, Backend, Command, Hop, Io, Logged, Model, OpId, Outcome, World};
use serde::{Deserialize, Serialize};

/// Log lines kept per design.
pub const LOG: usize = 8;
/// Words of a command the log keeps (a 300-member `ZADD` has 602).
const WORDS: usize = 6;

/// One design's sample.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleDesign {
    /// Commands the viewers (or the buffer) sent.
    pub cmds: u64,
    /// Round trips.
    pub round_trips: u64,
    /// Sorted-set members in those commands.
    pub members: u64,
    /// `ZCARD` of the room at the end.
    pub zcard: i64,
    /// The first commands as Redis ran them (a long one cut, its size in the note), and the
    /// observer's `ZCARD`.
    pub log: Vec<CmdLine>,
}

/// Both designs' samples.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Viewers in the sample (the first of the audience: the same moments in the second).
    pub viewers: u32,
    /// Seconds it ran.
    pub seconds: u32,
    /// Direct writes.
    pub direct: SampleDesign,
    /// Buffered.
    pub buffered: SampleDesign,
}

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
            line.cmd.push(format!("… (আরও {} জন)", members - (WORDS - 2) / 2));
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
pub fn run(p: &BufferParams) -> Sample {
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
