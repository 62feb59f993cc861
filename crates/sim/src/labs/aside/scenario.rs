//! The readers and writers as a [`Scenario`], and the analysis of a world's trace into what
//! the lab shows.

use super::actors::{Journal, Reader, Writer, WRITERS};
use super::*;
use crate::labs::log::NoReply;
use crate::labs::scenario::{LiveRun, Scenario, SimRun};
use crate::redis::Reply;
use crate::rng::Mulberry32;
use crate::world::{Actors, Backend, Command, Health, Hop, TraceEvent, What, World};
use std::cell::RefCell;
use std::rc::Rc;

/// Readers and writers of product 99 (see the module doc), their journal, and the analysis.
pub struct AsideScenario {
    params: AsideParams,
    setup: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    names: Vec<String>,
}

impl AsideScenario {
    /// The run of `p` as `s` says (its times in ms).
    pub fn new(p: &AsideParams, s: &Setup) -> Self {
        let names = (0..s.readers)
            .map(|i| format!("r{}", i + 1))
            .chain((0..s.writers as usize).map(|i| WRITERS[i].to_string()))
            .collect();
        AsideScenario {
            params: p.clone(),
            setup: Rc::new(s.clone()),
            journal: Rc::new(RefCell::new(Journal::default())),
            names,
        }
    }
}

impl Scenario for AsideScenario {
    type Model = Actors;
    type Output = AsideResult;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 250.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let s = &self.setup;
        let mut world = World::new(s.seed, backend);
        if s.down {
            world.set_health(Health::Down);
        }
        let hop = if live {
            Hop::default()
        } else {
            Hop {
                to_redis_ms: 1,
                from_redis_ms: 1,
                jitter_ms: 2,
            }
        };
        // r1 asks at once; the others at seeded moments within one gap.
        let mut starts = Mulberry32::new(s.seed ^ 0xA51D_E5EE);
        for i in 0..s.readers as usize {
            let at = if i == 0 {
                0
            } else {
                u64::from(starts.below(u32::try_from(s.read_every_ms).unwrap_or(u32::MAX)))
            };
            world.add(Box::new(Reader::new(i, s, self.journal.clone())), hop, at);
        }
        for i in 0..s.writers as usize {
            let actor = s.readers as usize + i;
            let w = Writer::new(i, actor, s, self.journal.clone());
            world.add(Box::new(w), hop, s.write_at_ms + s.write_gap_ms * i as u64);
        }
        world
    }

    fn go<B: Backend>(&self, world: &World<B>) -> bool {
        self.journal.borrow_mut().step = world.trace().len();
        world.trace().len() < MAX_STEPS
    }

    fn progress<B: Backend>(&self, world: &World<B>) -> f64 {
        world.now_ms() as f64 / (self.setup.duration_ms + self.setup.read_every_ms) as f64
    }

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> AsideResult {
        analyse(
            self,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

/// The run simulated, stepped one event at a time.
pub type AsideRun = SimRun<AsideScenario>;

/// The same readers and writers against a real Redis, in real time (live mode).
pub type AsideLive = LiveRun<AsideScenario>;

/// The simulated run of `p` as `s` says (nothing happened yet).
pub fn sim(p: &AsideParams, s: &Setup) -> AsideRun {
    SimRun::new(AsideScenario::new(p, s), s.seed)
}

/// The live run of `p` as `s` says (nothing sent yet).
pub fn live(p: &AsideParams, s: &Setup) -> AsideLive {
    LiveRun::new(AsideScenario::new(p, s))
}

/// Runs `p` to the end.
pub fn run(p: &AsideParams) -> AsideResult {
    sim(p, &p.setup()).finish()
}

/// The trace and the counters as text (`labsim aside`).
pub fn run_text(r: &AsideRun) -> String {
    text(&r.output(), &r.world().trace_text())
}

fn kind_of(c: &[Vec<u8>], readers: usize, actor: usize) -> Option<CmdKind> {
    let w0 = String::from_utf8_lossy(c.first()?).to_ascii_uppercase();
    Some(match w0.as_str() {
        "GET" => CmdKind::Get,
        "DEL" => CmdKind::Del,
        "SET" if actor >= readers => CmdKind::Update,
        "SET" if c.get(2).is_some_and(|v| v.as_slice() == NONE.as_bytes()) => CmdKind::Negative,
        "SET" => CmdKind::Fill,
        _ => return None,
    })
}

/// The TTL a `SET`'s words ask for, ms.
fn ttl_of(c: &[String]) -> Option<u64> {
    let i = c.iter().position(|w| w == "EX" || w == "PX")?;
    let n: u64 = c.get(i + 1)?.parse().ok()?;
    Some(if c[i] == "EX" { n * 1000 } else { n })
}

fn words(c: &Command) -> Vec<String> {
    c.iter()
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect()
}

/// What the trace shows. A simulated command is one trace entry with its reply; a live one is
/// two (sent, then its reply when it came; `rtts` are the round trips in that order).
fn analyse(
    sc: &AsideScenario,
    trace: &[TraceEvent],
    end_ms: u64,
    j: &Journal,
    rtts: &[u32],
) -> AsideResult {
    let readers = sc.setup.readers as usize;
    let mut pending: Vec<Option<&Command>> = vec![None; sc.names.len()];
    let mut replies = rtts.iter();
    let mut commands = Vec::new();
    for e in trace {
        let (c, reply, rtt_us) = match &e.what {
            What::Exec {
                cmd: c,
                reply: Some(reply),
            } => (c, Ok(reply.clone()), None),
            What::Exec { cmd: c, reply: None } => {
                pending[e.actor] = Some(c);
                continue;
            }
            What::Unblocked { reply } => match pending[e.actor].take() {
                Some(c) => (c, Ok(reply.clone()), replies.next().copied()),
                None => continue,
            },
            What::Refused { cmd: c } => (c, Err(NoReply::Refused), None),
            _ => continue,
        };
        let Some(kind) = kind_of(c, readers, e.actor) else {
            continue;
        };
        commands.push(CmdRow {
            step: e.step,
            at_ms: e.at_ms,
            actor: e.actor,
            cmd: words(c),
            reply,
            kind,
            stale: false,
            rtt_us,
        });
    }
    let spans = spans(&commands, end_ms);
    let windows = windows(&spans, &j.db);
    for c in &mut commands {
        if let (CmdKind::Get, Ok(Reply::Bulk(v))) = (c.kind, &c.reply) {
            if c.key() == key(PRODUCT) {
                c.stale = price_of(v).is_some_and(|p| p != db_price_at(&j.db, c.at_ms));
            }
        }
    }
    let mut r = AsideResult {
        params: sc.params.clone(),
        setup: (*sc.setup).clone(),
        names: sc.names.clone(),
        commands,
        db: j.db.clone(),
        answers: j.answers.clone(),
        pauses: j.pauses.clone(),
        spans,
        windows,
        counters: Counters::default(),
        end_ms,
    };
    r.counters = count(&r, usize::MAX, end_ms, r.commands.len());
    r
}

/// The cache keys' values over time, from the commands (a `SET` that Redis took, a `DEL`
/// that deleted, the TTL running out: Redis drops a key once now > its expiry).
fn spans(commands: &[CmdRow], end_ms: u64) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    // Per key (0: product 99, 1: the missing one): the open span and its expiry.
    let mut open: [Option<(usize, Option<u64>)>; 2] = [None, None];
    let slot = |k: &str| usize::from(k != key(PRODUCT));
    let close = |out: &mut Vec<Span>, o: &mut Option<(usize, Option<u64>)>, t, end| {
        if let Some((i, _)) = o.take() {
            out[i].to_ms = t;
            out[i].end = end;
        }
    };
    for c in commands {
        let t = c.at_ms;
        for o in &mut open {
            if let Some((_, Some(exp))) = *o {
                if t > exp {
                    close(&mut out, o, exp, SpanEnd::Expired);
                }
            }
        }
        let o = &mut open[slot(c.key())];
        match (c.kind, &c.reply) {
            (CmdKind::Fill | CmdKind::Update | CmdKind::Negative, Ok(r)) if *r == Reply::ok() => {
                close(&mut out, o, t, SpanEnd::Replaced);
                let price = price_of(c.cmd[2].as_bytes());
                let product = if slot(c.key()) == 0 { PRODUCT } else { MISSING };
                out.push(Span {
                    step: c.step,
                    product,
                    price,
                    from_ms: t,
                    to_ms: end_ms,
                    end: SpanEnd::Held,
                });
                *o = Some((out.len() - 1, ttl_of(&c.cmd).map(|ms| t + ms)));
            }
            (CmdKind::Del, Ok(Reply::Integer(1))) => close(&mut out, o, t, SpanEnd::Deleted),
            // Live, Redis' clock may be a millisecond ahead of ours: it expired already.
            (CmdKind::Get, Ok(Reply::Nil)) => close(&mut out, o, t, SpanEnd::Expired),
            _ => {}
        }
    }
    for o in &mut open {
        if let Some((_, Some(exp))) = *o {
            if end_ms > exp {
                close(&mut out, o, exp, SpanEnd::Expired);
            }
        }
    }
    out
}

/// The stretches in which product 99's key held a price the database no longer had.
fn windows(spans: &[Span], db: &[DbEvent]) -> Vec<StaleWindow> {
    let commits: Vec<&DbEvent> = db.iter().filter(|e| e.kind == DbKind::Commit).collect();
    let mut out: Vec<StaleWindow> = Vec::new();
    for s in spans.iter().filter(|s| s.product == PRODUCT) {
        let Some(p) = s.price else { continue };
        // The span cut at every commit inside it: (from, step that made it known).
        let mut cuts = vec![(s.from_ms, s.step)];
        cuts.extend(
            commits
                .iter()
                .filter(|e| e.at_ms > s.from_ms && e.at_ms < s.to_ms)
                .map(|e| (e.at_ms, e.step.max(s.step))),
        );
        let mut open: Option<StaleWindow> = None;
        for (i, &(from, step)) in cuts.iter().enumerate() {
            let to = cuts.get(i + 1).map_or(s.to_ms, |c| c.0);
            let db_price = db_price_at(db, from);
            if db_price != p && to > from {
                match open.as_mut() {
                    Some(w) => {
                        w.to_ms = to;
                        w.db = db_price;
                    }
                    None => {
                        open = Some(StaleWindow {
                            step,
                            from_ms: from,
                            to_ms: to,
                            cached: p,
                            db: db_price,
                            end: s.end,
                        });
                    }
                }
            } else if let Some(w) = open.take() {
                out.push(w);
            }
        }
        out.extend(open);
    }
    out
}
