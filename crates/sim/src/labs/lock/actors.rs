//! Workers A and B: the lock race's actors, and the journal of what the resource saw.

use super::*;

/// What the workers note as they go (the world owns the actors; the run reads this).
#[derive(Debug, Default)]
pub(super) struct Journal {
    pub(super) segs: Vec<Seg>,
    pub(super) writes: Vec<RawWrite>,
    /// Jobs each worker dropped: (step, worker, job, why).
    pub(super) dropped: Vec<(usize, usize, u32, Dropped)>,
    /// Set by the run before each event: the trace index an actor's decision gets.
    pub(super) step: usize,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawWrite {
    pub(super) step: usize,
    pub(super) at_ms: u64,
    pub(super) actor: usize,
    pub(super) job: u32,
    pub(super) fence: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Dedup,
    Acquire,
    Fence,
    Working,
    Extending,
    Releasing,
    Waiting,
    Between,
}

/// One worker: a state machine that speaks Redis (see the module doc).
pub(super) struct Worker {
    pub(super) id: usize,
    pub(super) p: LockParams,
    pub(super) journal: Rc<RefCell<Journal>>,
    pub(super) job: u32,
    pub(super) token: String,
    pub(super) fence: Option<i64>,
    pub(super) phase: Phase,
    pub(super) left: u64,
    pub(super) next_hb: u64,
    /// Pause still to come: (from, length).
    pub(super) pause: Option<(u64, u64)>,
}

impl Worker {
    pub(super) fn new(id: usize, p: &LockParams, journal: Rc<RefCell<Journal>>) -> Self {
        let pause = (p.pauser() == id && p.pause > 0).then_some((p.pause_at, p.pause));
        Worker {
            id,
            p: p.clone(),
            journal,
            job: 1,
            token: String::new(),
            fence: None,
            phase: Phase::Dedup,
            left: 0,
            next_hb: 0,
            pause,
        }
    }

    fn seg(&self, now: u64, ms: u64, kind: SegKind) {
        let mut j = self.journal.borrow_mut();
        let step = j.step;
        j.segs.push(Seg {
            step,
            actor: self.id,
            job: self.job,
            from_ms: now,
            to_ms: now + ms,
            kind,
        });
    }

    fn begin_job(&mut self, ctx: &mut Ctx<'_>) -> Action {
        if self.p.dedup_on() {
            self.phase = Phase::Dedup;
            let key = format!("dedup:click-{}", self.job);
            let ex = self.p.dedup_ex.to_string();
            Action::Send {
                cmd: cmd(&["SET", &key, "1", "NX", "EX", &ex]),
            }
        } else {
            self.acquire(ctx)
        }
    }

    fn acquire(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Acquire;
        self.token = format!(
            "{}-{:08x}",
            NAMES[self.id].to_ascii_lowercase(),
            ctx.rng.next_u32()
        );
        let ttl = self.p.ttl.to_string();
        Action::Send {
            cmd: cmd(&["SET", LOCK_KEY, &self.token, "NX", "PX", &ttl]),
        }
    }

    fn wait(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.phase = Phase::Waiting;
        let ms = 40 + u64::from(ctx.rng.below(61));
        self.seg(ctx.now_ms, ms, SegKind::Wait);
        Action::Sleep { ms }
    }

    fn start_work(&mut self, now: u64) -> Action {
        self.left = self.p.work;
        self.next_hb = now + self.p.ttl / 3;
        self.work_on(now)
    }

    /// The next piece of the critical section: pause, heartbeat, work, or the write and the
    /// release.
    fn work_on(&mut self, now: u64) -> Action {
        self.phase = Phase::Working;
        if let Some((at, ms)) = self.pause {
            if now >= at {
                self.pause = None;
                self.seg(now, ms, SegKind::Pause);
                return Action::Work {
                    ms,
                    what: PAUSE.into(),
                };
            }
        }
        if self.left == 0 {
            return self.write_and_release(now);
        }
        if self.p.heartbeat_on() && now >= self.next_hb {
            self.phase = Phase::Extending;
            self.next_hb = now + self.p.ttl / 3;
            let ttl = self.p.ttl.to_string();
            return Action::Send {
                cmd: cmd(&[
                    "EVALSHA",
                    scripts::EXTEND.sha1,
                    "1",
                    LOCK_KEY,
                    &self.token,
                    &ttl,
                ]),
            };
        }
        let mut ms = self.left;
        if self.p.heartbeat_on() {
            ms = ms.min(self.next_hb - now);
        }
        if let Some((at, _)) = self.pause {
            ms = ms.min(at - now);
        }
        self.left -= ms;
        self.seg(now, ms, SegKind::Work);
        Action::Work {
            ms,
            what: WORK.into(),
        }
    }

    fn write_and_release(&mut self, now: u64) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.writes.push(RawWrite {
                step,
                at_ms: now,
                actor: self.id,
                job: self.job,
                fence: self.fence,
            });
        }
        self.phase = Phase::Releasing;
        Action::Send {
            cmd: if self.p.token_release() {
                cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK_KEY, &self.token])
            } else {
                cmd(&["DEL", LOCK_KEY])
            },
        }
    }

    fn drop_job(&mut self, why: Dropped, ctx: &mut Ctx<'_>) -> Action {
        {
            let mut j = self.journal.borrow_mut();
            let step = j.step;
            j.dropped.push((step, self.id, self.job, why));
        }
        self.next_job(ctx)
    }

    fn next_job(&mut self, ctx: &mut Ctx<'_>) -> Action {
        self.fence = None;
        if self.job >= self.p.jobs {
            return Action::Done;
        }
        self.job += 1;
        self.phase = Phase::Between;
        Action::Sleep {
            ms: 40 + u64::from(ctx.rng.below(61)),
        }
    }
}

impl Actor for Worker {
    fn name(&self) -> String {
        NAMES[self.id].to_string()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        match (self.phase, input) {
            (_, Input::Start) | (Phase::Between, Input::Wake) => self.begin_job(ctx),
            (Phase::Dedup, Input::Reply { reply }) if *reply == Reply::ok() => self.acquire(ctx),
            (Phase::Dedup, Input::Reply { .. }) => self.drop_job(Dropped::Duplicate, ctx),
            (Phase::Acquire, Input::Reply { reply }) if *reply == Reply::ok() => {
                if self.p.fencing_on() {
                    self.phase = Phase::Fence;
                    Action::Send {
                        cmd: cmd(&["INCR", FENCE_KEY]),
                    }
                } else {
                    self.start_work(now)
                }
            }
            (Phase::Acquire, Input::Reply { .. }) => self.wait(ctx),
            (Phase::Waiting, Input::Wake) => self.acquire(ctx),
            (Phase::Fence, Input::Reply { reply }) => {
                self.fence = reply.as_int();
                self.start_work(now)
            }
            (Phase::Working, Input::Wake) => self.work_on(now),
            (Phase::Extending, Input::Reply { reply }) if reply.as_int() == Some(1) => {
                self.work_on(now)
            }
            (Phase::Extending, Input::Reply { .. }) => self.drop_job(Dropped::LostLock, ctx),
            (Phase::Releasing, Input::Reply { .. }) => self.next_job(ctx),
            _ => Action::Done,
        }
    }
}
