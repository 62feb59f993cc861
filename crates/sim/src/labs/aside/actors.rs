//! Readers and writers: the application's two sides of cache-aside, and the journal of what
//! the database saw and what each reader answered.

use super::*;
use crate::redis::Reply;
use crate::world::{Action, Actor, Ctx, Input};
use std::cell::RefCell;
use std::rc::Rc;

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
            pause_left: idx == 0 && s.pause == Pauser::Reader && s.pause_ms > 0,
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

/// The writers' names, in order.
pub const WRITERS: [&str; 3] = ["A", "B", "C"];

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
            pause_left: idx == 0 && s.pause == Pauser::Writer && s.pause_ms > 0,
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

pub(super) use crate::world::cmd;
