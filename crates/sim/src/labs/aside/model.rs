//! The cache-aside model: readers and writers of product 99 (World actors that speak real
//! Redis commands; the database is a timer), the journal of what they did, the run as a
//! [`Scenario`] on any backend (simulated, or live against a real Redis), and the analysis of
//! a world's trace into the lab's output.

use super::output::{
    count, db_price_at, Answer, AsideOutput, AsidePage, CmdKind, CmdRow, Counters, DbEvent, DbKind,
    PauseSeg, Source, Span, SpanEnd, StaleWindow,
};
use super::params::{AsideParams, Pause, Setup, WRITERS};
use super::AsideRun;
use super::{key, price_of, row, FIRST_PRICE, MAX_STEPS, MISSING, NONE, PRICE_STEP, PRODUCT};
use crate::labs::log::NoReply;
use crate::labs::scenario::{self, LiveRun, Scenario, ScenarioLab, SimRun};
use crate::redis::Reply;
use crate::rng::Mulberry32;
use crate::world::{
    cmd, Action, Actor, Actors, Backend, Command, Ctx, Health, Hop, Input, TraceEvent, What, World,
};
use std::cell::RefCell;
use std::rc::Rc;

// --- the readers and writers ---------------------------------------------------------------

/// What the actors note as they go (the world owns the actors; the run reads this).
#[derive(Debug)]
pub(super) struct Journal {
    /// The database's committed price of product 99.
    pub(super) price: u32,
    /// Writes begun so far (each takes the next price).
    pub(super) begun: u32,
    pub(super) db: Vec<DbEvent>,
    pub(super) answers: Vec<Answer>,
    pub(super) pauses: Vec<PauseSeg>,
    /// Set by the run before each event: the trace index an actor's decision gets.
    pub(super) step: usize,
}

impl Default for Journal {
    fn default() -> Self {
        Journal {
            price: FIRST_PRICE,
            begun: 0,
            db: Vec::new(),
            answers: Vec::new(),
            pauses: Vec::new(),
            step: 0,
        }
    }
}

impl Journal {
    fn db(&mut self, at_ms: u64, actor: usize, kind: DbKind, product: u32, price: Option<u32>) {
        let step = self.step;
        self.db.push(DbEvent {
            step,
            at_ms,
            actor,
            kind,
            product,
            price,
        });
    }

    fn pause(&mut self, actor: usize, from_ms: u64, ms: u64) {
        let step = self.step;
        self.pauses.push(PauseSeg {
            step,
            actor,
            from_ms,
            to_ms: from_ms + ms,
        });
    }
}

/// Text of the pause in the trace.
pub const PAUSE: &str = "থমকে আছে (GC / ধীর নেটওয়ার্ক)";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Think,
    Get,
    Db,
    DbOnly,
    Paused,
    Set,
}

/// A reader: cache-aside's read path (see the module doc).
pub(super) struct Reader {
    idx: usize,
    s: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    phase: Phase,
    product: u32,
    started: u64,
    /// What the database answered: the price, or `None` (no such row).
    found: Option<u32>,
    pause_left: bool,
}

impl Reader {
    pub(super) fn new(idx: usize, s: &Rc<Setup>, journal: Rc<RefCell<Journal>>) -> Self {
        Reader {
            idx,
            s: s.clone(),
            journal,
            phase: Phase::Think,
            product: PRODUCT,
            started: 0,
            found: None,
            pause_left: idx == 0 && s.pause == Pause::Reader && s.pause_ms > 0,
        }
    }

    fn ask(&mut self, ctx: &mut Ctx<'_>) -> Action {
        if ctx.now_ms >= self.s.duration_ms {
            return Action::Done;
        }
        self.product = if ctx.rng.below(100) < self.s.absent {
            MISSING
        } else {
            PRODUCT
        };
        self.started = ctx.now_ms;
        self.phase = Phase::Get;
        Action::Send {
            cmd: cmd(&["GET", &key(self.product)]),
        }
    }

    fn select(&mut self, now: u64, fill: bool) -> Action {
        let found = {
            let mut j = self.journal.borrow_mut();
            let found = (self.product == PRODUCT).then_some(j.price);
            j.db(now, self.idx, DbKind::Read, self.product, found);
            found
        };
        self.found = found;
        self.phase = if fill { Phase::Db } else { Phase::DbOnly };
        Action::Work {
            ms: self.s.db_ms,
            what: format!("SELECT * FROM products WHERE id = {}", self.product),
        }
    }

    fn fill(&mut self, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        if self.pause_left && self.product == PRODUCT {
            self.pause_left = false;
            self.journal
                .borrow_mut()
                .pause(self.idx, now, self.s.pause_ms);
            self.phase = Phase::Paused;
            return Action::Work {
                ms: self.s.pause_ms,
                what: PAUSE.into(),
            };
        }
        let k = key(self.product);
        let (value, ttl) = match self.found {
            Some(price) => (row(price), self.s.ttl_ms),
            None if self.s.negative_ms > 0 => (NONE.to_string(), self.s.negative_ms),
            None => return self.answer(ctx, Source::Db),
        };
        let mut words = vec!["SET".to_string(), k, value];
        words.extend(Setup::expiry(ttl));
        self.phase = Phase::Set;
        Action::Send {
            cmd: words.iter().map(|w| w.as_bytes().to_vec()).collect(),
        }
    }

    fn answer(&mut self, ctx: &mut Ctx<'_>, source: Source) -> Action {
        let now = ctx.now_ms;
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.answers.push(Answer {
                step,
                at_ms: now,
                started_ms: self.started,
                reader: self.idx,
                product: self.product,
                source,
                price: self.found,
            });
        }
        self.phase = Phase::Think;
        // Think `read_every` ± 50 %.
        let e = self.s.read_every_ms;
        let draw = ctx.rng.below(u32::try_from(e + 1).unwrap_or(u32::MAX));
        Action::Sleep {
            ms: e / 2 + u64::from(draw),
        }
    }
}

impl Actor for Reader {
    fn name(&self) -> String {
        format!("r{}", self.idx + 1)
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        match (self.phase, input) {
            (Phase::Think, Input::Start | Input::Wake) => self.ask(ctx),
            (Phase::Get, Input::Reply { reply }) => match reply {
                Reply::Bulk(v) if v.as_slice() == NONE.as_bytes() => {
                    self.found = None;
                    self.answer(ctx, Source::Negative)
                }
                Reply::Bulk(v) => {
                    self.found = price_of(v);
                    self.answer(ctx, Source::Cache)
                }
                Reply::Nil => self.select(now, true),
                // A refusal from the proxy, or anything unexpected: the database answers.
                _ => self.select(now, false),
            },
            (Phase::Get, Input::Failed { .. }) => self.select(now, false),
            (Phase::Db | Phase::Paused, Input::Wake) => self.fill(ctx),
            (Phase::DbOnly, Input::Wake) => self.answer(ctx, Source::Db),
            (Phase::Set, Input::Reply { .. } | Input::Failed { .. }) => {
                self.answer(ctx, Source::Db)
            }
            _ => Action::Done,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WPhase {
    Idle,
    Update,
    Paused,
    Cache,
}

/// A writer: changes the row in the database, then updates or deletes the cache.
pub(super) struct Writer {
    idx: usize,
    actor: usize,
    s: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
    phase: WPhase,
    done: u32,
    price: u32,
    pause_left: bool,
}

impl Writer {
    pub(super) fn new(
        idx: usize,
        actor: usize,
        s: &Rc<Setup>,
        journal: Rc<RefCell<Journal>>,
    ) -> Self {
        Writer {
            idx,
            actor,
            s: s.clone(),
            journal,
            phase: WPhase::Idle,
            done: 0,
            price: FIRST_PRICE,
            pause_left: idx == 0 && s.pause == Pause::Writer && s.pause_ms > 0,
        }
    }

    fn update(&mut self) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            j.begun += 1;
            self.price = FIRST_PRICE + PRICE_STEP * j.begun;
        }
        self.phase = WPhase::Update;
        Action::Work {
            ms: self.s.db_ms,
            what: format!(
                "UPDATE products SET price = {} WHERE id = {PRODUCT}",
                self.price
            ),
        }
    }

    fn commit(&mut self, now: u64) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            j.price = self.price;
            j.db(now, self.actor, DbKind::Commit, PRODUCT, Some(self.price));
        }
        if self.pause_left {
            self.pause_left = false;
            self.journal
                .borrow_mut()
                .pause(self.actor, now, self.s.pause_ms);
            self.phase = WPhase::Paused;
            return Action::Work {
                ms: self.s.pause_ms,
                what: PAUSE.into(),
            };
        }
        self.cache()
    }

    fn cache(&mut self) -> Action {
        self.phase = WPhase::Cache;
        let k = key(PRODUCT);
        let words: Vec<String> = if self.s.update {
            let mut w = vec!["SET".to_string(), k, row(self.price)];
            w.extend(Setup::expiry(self.s.ttl_ms));
            w
        } else {
            vec!["DEL".into(), k]
        };
        Action::Send {
            cmd: words.iter().map(|w| w.as_bytes().to_vec()).collect(),
        }
    }
}

impl Actor for Writer {
    fn name(&self) -> String {
        WRITERS[self.idx].to_string()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        match (self.phase, input) {
            (WPhase::Idle, Input::Start | Input::Wake) => self.update(),
            (WPhase::Update, Input::Wake) => self.commit(now),
            (WPhase::Paused, Input::Wake) => self.cache(),
            (WPhase::Cache, Input::Reply { .. } | Input::Failed { .. }) => {
                self.done += 1;
                self.phase = WPhase::Idle;
                if self.done >= self.s.writes {
                    Action::Done
                } else {
                    Action::Sleep {
                        ms: self.s.write_every_ms,
                    }
                }
            }
            _ => Action::Done,
        }
    }
}

// --- the run -------------------------------------------------------------------------------

/// Readers and writers of product 99 (see the module doc), their journal, and the analysis.
pub struct AsideScenario {
    params: AsideParams,
    setup: Rc<Setup>,
    journal: Rc<RefCell<Journal>>,
}

impl AsideScenario {
    /// The run of `p` as `s` says (its times in ms).
    pub fn new(p: &AsideParams, s: &Setup) -> Self {
        AsideScenario {
            params: p.clone(),
            setup: Rc::new(s.clone()),
            journal: Rc::new(RefCell::new(Journal::default())),
        }
    }
}

impl Scenario for AsideScenario {
    type Model = Actors;
    type Output = AsideOutput;
    const EVENTS: usize = 4_096;
    const SNAPSHOT_MS: f64 = 250.0;

    fn world<B: Backend>(&mut self, backend: B, live: bool) -> World<B> {
        let s = &self.setup;
        let mut world = World::new(s.seed, backend);
        if s.down {
            world.set_health(Health::Down);
        }
        let hop = Hop::lan(live);
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

    fn output<B: Backend>(&self, world: &World<B>, live: Option<&[u32]>) -> AsideOutput {
        analyse(
            self,
            world.trace(),
            world.now_ms(),
            &self.journal.borrow(),
            live.unwrap_or_default(),
        )
    }
}

impl ScenarioLab for AsideScenario {
    type Params = AsideParams;
    type Run = AsideRun;

    fn of(p: &AsideParams, live_scale: Option<u64>) -> Self {
        AsideScenario::new(p, &live_scale.map_or_else(|| p.setup(), |k| p.for_live(k)))
    }

    fn seed(&self) -> u32 {
        self.setup.seed
    }

    const TEXT: fn(&AsideOutput, &str) -> String = super::text;
    const PRINTED: fn(AsideOutput) -> AsideOutput = AsideOutput::printed;
}

/// The simulated readers and writers, stepped one event at a time.
pub type AsideSim = SimRun<AsideScenario>;
/// The same readers and writers against a real Redis, in real time (live mode).
pub type AsideLive = LiveRun<AsideScenario>;

/// Runs `p` to the end.
pub fn run(p: &AsideParams) -> AsideOutput {
    scenario::run::<AsideScenario>(p)
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
) -> AsideOutput {
    let readers = sc.setup.readers as usize;
    let mut pending: Vec<Option<&Command>> = vec![None; sc.setup.actors()];
    let mut replies = rtts.iter();
    let mut commands = Vec::new();
    for e in trace {
        let (c, reply, rtt_us) = match &e.what {
            What::Exec {
                cmd: c,
                reply: Some(reply),
            } => (c, Ok(reply.clone()), None),
            What::Exec {
                cmd: c,
                reply: None,
            } => {
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
    let mut r = AsideOutput {
        params: sc.params.clone(),
        setup: (*sc.setup).clone(),
        counters: Counters::default(),
        mean_ms: 0.0,
        windows,
        spans,
        commands,
        db: j.db.clone(),
        end_ms,
        page: Some(AsidePage {
            answers: j.answers.clone(),
            pauses: j.pauses.clone(),
        }),
    };
    r.counters = count(&r, usize::MAX, end_ms, r.commands.len());
    r.mean_ms = r.counters.mean_ms();
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
