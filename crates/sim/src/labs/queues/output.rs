//! What the queues lab's run gives the view and `labsim queues --json` alike
//! ([`QueuesOutput`]): the commands, what the actors did, every job's fate, the lists and the
//! counters at the end; the page's part ([`QueuesPage`]: the workers' waits, work and deaths)
//! rides along for the lanes. Its timeline walks the commands: position `n` is the run after
//! its first `n` commands, and [`QueuesOutput::at`] gives the lists, the jobs and the counters
//! there — equal to the end of the same run stopped there (tested).

use super::id_of;
use super::params::{QueuesParams, Setup};
use crate::labs::def::{Figure, Figures};
use crate::labs::log::{CmdLine, CmdSteps, NoReply};
use crate::redis::Reply;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an actor did (beyond its commands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EventKind {
    /// The producer heard its push's reply.
    Pushed,
    /// A worker got a job from its blocking pop.
    Took,
    /// A worker's job had its effect (the email went out).
    Effect,
    /// A worker found the job's idempotency key: it ran already; no effect this time.
    Skipped,
    /// A worker died (holding the job, if any).
    Crashed,
    /// It came back, with nothing in hand.
    Restarted,
    /// The recovery put the job back on the queue.
    Requeued,
}

/// One thing an actor did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Trace index.
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Who (0: the producer, then the workers, then the recovery).
    pub actor: usize,
    /// The job.
    pub job: Option<u32>,
    /// What.
    pub kind: EventKind,
}

/// What a stretch of a worker's time is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SegKind {
    /// Blocked on the queue.
    Wait,
    /// Working on a job.
    Work,
    /// Dead (until it comes back).
    Dead,
}

/// A stretch of a worker's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seg {
    /// Trace index of the decision that began it (a wait: of its end).
    pub step: usize,
    /// The worker's actor index.
    pub actor: usize,
    /// The job.
    pub job: Option<u32>,
    /// From, ms.
    pub from_ms: u64,
    /// To, ms (`u64::MAX`: to the end).
    pub to_ms: u64,
    /// What.
    pub kind: SegKind,
}

/// What a command is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CmdKind {
    /// The producer's `LPUSH`.
    Push,
    /// A worker's `BRPOP` or `BLMOVE`.
    Pop,
    /// A worker's `ZADD` of its start time.
    Stamp,
    /// A worker's `GET done:<id>`.
    Check,
    /// A worker's `SET done:<id> 1 NX EX …`.
    Mark,
    /// A worker's `LREM` of its job.
    Ack,
    /// A worker's `ZREM` of its start time.
    Unstamp,
    /// The recovery's `LRANGE` of the processing list.
    Scan,
    /// The recovery's `ZADD … NX` of jobs with no start time.
    StampMissing,
    /// The recovery's `ZRANGEBYSCORE`.
    Old,
    /// The recovery's `LREM` of a stale job.
    Take,
    /// The recovery's `LPUSH` of it back.
    Requeue,
    /// The recovery's `ZREM`.
    Forget,
}

/// One command as Redis ran it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// Trace index.
    pub step: usize,
    /// When Redis answered it, ms (a blocking pop: when it was served or timed out; live:
    /// when the reply came).
    pub at_ms: u64,
    /// Who sent it.
    pub actor: usize,
    /// The command's words.
    pub cmd: Vec<String>,
    /// Redis' reply.
    pub reply: Result<Reply, NoReply>,
    /// What it is for.
    pub kind: CmdKind,
    /// The job it took, pushed, removed, stamped or checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u32>,
    /// Live runs: the round trip through the proxy, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

impl CmdRow {
    /// The command as redis-cli echoes it.
    pub fn cmd_text(&self) -> String {
        self.line(String::new()).cmd_text()
    }

    /// The row as a line of the command log, its sender named `who`.
    pub fn line(&self, who: String) -> CmdLine {
        CmdLine {
            at_ms: self.at_ms,
            actor: who,
            cmd: self.cmd.clone(),
            reply: self.reply.clone(),
            note: String::new(),
            rtt_us: self.rtt_us,
        }
    }

    /// The reply, if Redis gave one.
    pub fn ok(&self) -> Option<&Reply> {
        self.reply.as_ref().ok()
    }

    /// The job a pop got, a push or an `LREM` names (what [`CmdRow::job`] holds).
    pub fn job_of(&self) -> Option<u32> {
        match (self.kind, self.ok()?) {
            (CmdKind::Pop, Reply::Array(a)) => id_of(a.get(1)?.as_bulk()?),
            (CmdKind::Pop, Reply::Bulk(p)) => id_of(p),
            (CmdKind::Push | CmdKind::Requeue, _) => id_of(self.cmd.get(2)?.as_bytes()),
            (CmdKind::Ack | CmdKind::Take, _) => id_of(self.cmd.get(3)?.as_bytes()),
            (CmdKind::Check | CmdKind::Mark, _) => {
                self.cmd.get(1)?.strip_prefix("done:")?.parse().ok()
            }
            (CmdKind::Stamp | CmdKind::Unstamp | CmdKind::Forget, _) => {
                self.cmd.last()?.parse().ok()
            }
            _ => None,
        }
    }
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Place {
    /// Not pushed yet.
    NotYet,
    /// Waiting in `queue:emails`.
    Queue,
    /// In a live worker's hands (and, reliable, in the processing list).
    Held(usize),
    /// In the processing list with nobody working on it.
    Stuck,
    /// In the recovery's hands, on its way back.
    Moving,
    /// Done: its effect happened, nothing left of it but the record.
    Done,
    /// Gone from Redis, never done.
    Lost,
}

/// One job at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobState {
    /// Id.
    pub id: u32,
    /// Where it is.
    pub place: Place,
    /// Taken from the queue, times.
    pub takes: u32,
    /// Its effect happened, times.
    pub effects: u32,
}

/// Redis' lists at a position, as the commands left them (left to right as `LRANGE` shows).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lists {
    /// `queue:emails`, job ids.
    pub queue: Vec<u32>,
    /// `queue:emails:processing`, job ids.
    pub processing: Vec<u32>,
    /// `queue:emails:started`: (job id, score), by score.
    pub started: Vec<(u32, u64)>,
    /// `done:<id>` keys set.
    pub done_keys: Vec<u32>,
}

/// The lab's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Jobs pushed.
    pub produced: u32,
    /// Jobs whose effect happened at least once.
    pub done: u32,
    /// Jobs gone from Redis and never done.
    pub lost: u32,
    /// Jobs in the processing list with nobody working on them.
    pub stuck: u32,
    /// Jobs taken from the queue more than once.
    pub taken_twice: u32,
    /// Jobs whose effect happened more than once.
    pub effects_twice: u32,
    /// Second runs the idempotency key made harmless.
    pub skipped: u32,
    /// Jobs the recovery put back.
    pub requeued: u32,
    /// Crashes.
    pub crashes: u32,
    /// Commands.
    pub commands: u32,
}

/// What a position shows: the counters, the lists, every job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct At {
    /// The counters.
    pub counters: Counters,
    /// The lists.
    pub lists: Lists,
    /// Every job, by id.
    pub jobs: Vec<JobState>,
}

/// How a run ended, in the terms a live run is compared with its simulation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Jobs done.
    pub done: u32,
    /// Lost.
    pub lost: u32,
    /// Stuck.
    pub stuck: u32,
    /// Taken twice.
    pub taken_twice: u32,
    /// Effects twice.
    pub effects_twice: u32,
    /// Made harmless.
    pub skipped: u32,
}

/// A finished (or prefix) run: what the view draws and `labsim queues --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuesOutput {
    /// The parameters.
    pub params: QueuesParams,
    /// What ran (live: shaped).
    pub setup: Setup,
    /// The end: counters, lists, jobs.
    #[serde(flatten)]
    pub end: At,
    /// The run stopped at its deadline, not because nothing more could happen.
    pub cut_short: bool,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// What the actors did.
    pub events: Vec<Event>,
    /// When the run ended, ms.
    pub end_ms: u64,
    /// What only the page draws (`labsim queues --json` prints it with `--page`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<QueuesPage>,
}

/// What only the lab's page draws: the workers' lanes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuesPage {
    /// The workers' time: waits, work, deaths.
    pub segs: Vec<Seg>,
}

impl QueuesOutput {
    /// The workers' time (empty when printed without the page's part).
    pub fn segs(&self) -> &[Seg] {
        self.page.as_ref().map_or(&[], |p| &p.segs)
    }

    /// The output without its page's part: what `labsim queues --json` prints.
    pub fn printed(self) -> Self {
        QueuesOutput { page: None, ..self }
    }

    /// What position `n` shows: equal to the end of the same run stopped there.
    pub fn at(&self, n: usize) -> At {
        walk(self, self.cut(n), n.min(self.commands.len()))
    }

    /// The actor's name (`producer`, `w1`…, `recovery`).
    pub fn name(&self, actor: usize) -> String {
        self.setup.name(actor)
    }

    /// How the run ended.
    pub fn outcome(&self) -> Outcome {
        let c = &self.end.counters;
        Outcome {
            done: c.done,
            lost: c.lost,
            stuck: c.stuck,
            taken_twice: c.taken_twice,
            effects_twice: c.effects_twice,
            skipped: c.skipped,
        }
    }

    /// The first crash.
    pub fn crash(&self) -> Option<&Event> {
        self.events.iter().find(|e| e.kind == EventKind::Crashed)
    }
}

crate::cmd_steps!(QueuesOutput, CmdRow);

impl Figures for QueuesOutput {
    fn figures(&self) -> Vec<Figure> {
        let c = &self.end.counters;
        [
            ("done", c.done),
            ("lost", c.lost),
            ("stuck", c.stuck),
            ("twice", c.effects_twice),
            ("skipped", c.skipped),
            ("taken-twice", c.taken_twice),
            ("requeued", c.requeued),
            ("crashes", c.crashes),
        ]
        .into_iter()
        .map(|(k, v)| Figure::count(k, u64::from(v)))
        .collect()
    }
}

/// Everything before trace index `cut` (the first `n` commands and the events before it),
/// walked in order: Redis' lists as the commands left them, who holds which job, the
/// counters.
pub(super) fn walk(r: &QueuesOutput, cut: usize, n: usize) -> At {
    let s = &r.setup;
    let workers = s.workers as usize;
    let mut l = Lists::default();
    // Job id → the worker actor holding it.
    let mut holder: BTreeMap<u32, usize> = BTreeMap::new();
    let mut moving: Vec<u32> = Vec::new();
    let mut pushed: Vec<u32> = Vec::new();
    let mut takes: BTreeMap<u32, u32> = BTreeMap::new();
    let mut effects: BTreeMap<u32, u32> = BTreeMap::new();
    let mut c = Counters {
        commands: n as u32,
        ..Counters::default()
    };
    let is_worker = |a: usize| (1..=workers).contains(&a);
    let mut events = r.events.iter().filter(|e| e.step < cut).peekable();
    let mut cmds = r.commands[..n].iter().peekable();
    loop {
        let next_cmd = cmds.peek().map(|x| x.step);
        let next_ev = events.peek().map(|e| e.step);
        let take_cmd = match (next_cmd, next_ev) {
            (None, None) => break,
            (Some(a), Some(b)) => a < b,
            (a, _) => a.is_some(),
        };
        if !take_cmd {
            let e = events.next().expect("peeked");
            match e.kind {
                EventKind::Effect => {
                    if let Some(j) = e.job {
                        *effects.entry(j).or_default() += 1;
                        if !s.reliable {
                            holder.remove(&j);
                        }
                    }
                }
                EventKind::Skipped if !s.reliable => {
                    if let Some(j) = e.job {
                        holder.remove(&j);
                    }
                    c.skipped += 1;
                }
                EventKind::Skipped => c.skipped += 1,
                EventKind::Crashed => {
                    holder.retain(|_, a| *a != e.actor);
                    c.crashes += 1;
                }
                _ => {}
            }
            continue;
        }
        let x = cmds.next().expect("peeked");
        let Some(reply) = x.ok() else { continue };
        let job = x.job;
        match x.kind {
            CmdKind::Push => {
                if let Some(j) = job {
                    l.queue.insert(0, j);
                    pushed.push(j);
                }
            }
            CmdKind::Requeue => {
                if let Some(j) = job {
                    l.queue.insert(0, j);
                    moving.retain(|&m| m != j);
                    c.requeued += 1;
                }
            }
            CmdKind::Pop => {
                if let Some(j) = job {
                    if let Some(i) = l.queue.iter().rposition(|&q| q == j) {
                        l.queue.remove(i);
                    }
                    if s.reliable {
                        l.processing.insert(0, j);
                    }
                    if is_worker(x.actor) {
                        holder.insert(j, x.actor);
                    }
                    *takes.entry(j).or_default() += 1;
                }
            }
            CmdKind::Ack | CmdKind::Take if reply.as_int() == Some(1) => {
                if let Some(j) = job {
                    if let Some(i) = l.processing.iter().position(|&q| q == j) {
                        l.processing.remove(i);
                    }
                    if x.kind == CmdKind::Take {
                        moving.push(j);
                    } else {
                        holder.remove(&j);
                    }
                }
            }
            CmdKind::Stamp | CmdKind::StampMissing => {
                let nx = x.cmd.iter().any(|w| w.eq_ignore_ascii_case("NX"));
                let first = if nx { 3 } else { 2 };
                for pair in x.cmd[first..].chunks(2) {
                    if let (Some(score), Some(id)) = (
                        pair.first().and_then(|v| v.parse::<u64>().ok()),
                        pair.get(1).and_then(|v| v.parse::<u32>().ok()),
                    ) {
                        match l.started.iter_mut().find(|(i, _)| *i == id) {
                            Some(e) if !nx => e.1 = score,
                            Some(_) => {}
                            None => l.started.push((id, score)),
                        }
                    }
                }
                l.started.sort_by_key(|&(id, sc)| (sc, id));
            }
            CmdKind::Unstamp | CmdKind::Forget => {
                if let Some(j) = job {
                    l.started.retain(|&(i, _)| i != j);
                }
            }
            CmdKind::Mark if *reply == Reply::ok() => {
                if let Some(j) = job {
                    l.done_keys.push(j);
                }
            }
            _ => {}
        }
    }
    let jobs: Vec<JobState> = (1..=s.jobs)
        .map(|id| {
            let effects = effects.get(&id).copied().unwrap_or(0);
            let place = if !pushed.contains(&id) {
                Place::NotYet
            } else if let Some(&w) = holder.get(&id) {
                Place::Held(w)
            } else if l.queue.contains(&id) {
                Place::Queue
            } else if l.processing.contains(&id) {
                Place::Stuck
            } else if moving.contains(&id) {
                Place::Moving
            } else if effects > 0 {
                Place::Done
            } else {
                Place::Lost
            };
            JobState {
                id,
                place,
                takes: takes.get(&id).copied().unwrap_or(0),
                effects,
            }
        })
        .collect();
    let count = |f: &dyn Fn(&JobState) -> bool| jobs.iter().filter(|j| f(j)).count() as u32;
    c.produced = pushed.len() as u32;
    c.done = count(&|j| j.effects > 0);
    c.lost = count(&|j| j.place == Place::Lost);
    c.stuck = count(&|j| j.place == Place::Stuck);
    c.taken_twice = count(&|j| j.takes > 1);
    c.effects_twice = count(&|j| j.effects > 1);
    At {
        counters: c,
        lists: l,
        jobs,
    }
}
