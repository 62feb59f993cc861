//! The stalled-job check of a worker process (BullMQ's `moveStalledJobsToWait`), an actor
//! beside the process' [`Slot`](super::Slot)s.

use super::{Keys, Life, Processor, QueueConfig};
use crate::redis::Reply;
use crate::world::{cmd, Action, Actor, Ctx, Input};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CheckPhase {
    Sleeping,
    Suspects,
    Exists,
    Remove,
    Count,
    Move,
    Clear,
    Active,
    Mark,
    Down,
}

/// A worker process's stalled-job check (BullMQ's `moveStalledJobsToWait`), every
/// `stalled_ms`: an id that was active at the last check (`bull:<q>:stalled`) and has no lock
/// now is taken out of `active` and pushed back to `wait` (`RPUSH`: it runs next), or to
/// `failed` once it stalled more than `max_stalled` times; then the ids active now are noted
/// for the next check.
pub struct StalledCheck<P: Processor> {
    name: String,
    keys: Keys,
    cfg: QueueConfig,
    life: Rc<RefCell<Life>>,
    proc_: Rc<RefCell<P>>,
    phase: CheckPhase,
    suspects: VecDeque<String>,
    current: String,
}

impl<P: Processor> StalledCheck<P> {
    /// The check of a process whose life is `life`.
    pub fn new(
        name: String,
        keys: Keys,
        cfg: QueueConfig,
        life: Rc<RefCell<Life>>,
        proc_: Rc<RefCell<P>>,
    ) -> Self {
        StalledCheck {
            name,
            keys,
            cfg,
            life,
            proc_,
            phase: CheckPhase::Sleeping,
            suspects: VecDeque::new(),
            current: String::new(),
        }
    }

    fn next_suspect(&mut self) -> Action {
        match self.suspects.pop_front() {
            Some(id) => {
                let lock = self.keys.lock(&id);
                self.current = id;
                self.phase = CheckPhase::Exists;
                Action::Send {
                    cmd: cmd(&["EXISTS", &lock]),
                }
            }
            None => {
                self.phase = CheckPhase::Clear;
                Action::Send {
                    cmd: cmd(&["DEL", &self.keys.stalled()]),
                }
            }
        }
    }

    fn sleep(&mut self, now: u64) -> Action {
        if self.proc_.borrow().finished() {
            return Action::Done;
        }
        self.phase = CheckPhase::Sleeping;
        let ms = match self.life.borrow().next_crash(now) {
            Some(c) if c < now + self.cfg.stalled_ms => c - now,
            _ => self.cfg.stalled_ms,
        };
        Action::Sleep { ms: ms.max(1) }
    }
}

impl<P: Processor> Actor for StalledCheck<P> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, input: &Input, ctx: &mut Ctx<'_>) -> Action {
        let now = ctx.now_ms;
        if let Some(back) = self.life.borrow().down_at(now) {
            if self.phase != CheckPhase::Down {
                self.suspects.clear();
                self.phase = CheckPhase::Down;
                return Action::Sleep { ms: back - now };
            }
        }
        let reply = match input {
            Input::Reply { reply } => Some(reply),
            _ => None,
        };
        let ids = |r: Option<&Reply>| -> VecDeque<String> {
            match r {
                Some(Reply::Array(a)) => a
                    .iter()
                    .filter_map(|x| x.as_bulk())
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .collect(),
                _ => VecDeque::new(),
            }
        };
        match self.phase {
            CheckPhase::Sleeping | CheckPhase::Down => {
                // A worker checks once when it starts (or restarts), then every interval.
                if self.proc_.borrow().finished() {
                    return Action::Done;
                }
                self.phase = CheckPhase::Suspects;
                Action::Send {
                    cmd: cmd(&["LRANGE", &self.keys.stalled(), "0", "-1"]),
                }
            }
            CheckPhase::Suspects => {
                self.suspects = ids(reply);
                self.next_suspect()
            }
            CheckPhase::Exists => {
                if reply.and_then(Reply::as_int) == Some(0) {
                    self.phase = CheckPhase::Remove;
                    let id = self.current.clone();
                    Action::Send {
                        cmd: cmd(&["LREM", &self.keys.active(), "1", &id]),
                    }
                } else {
                    self.next_suspect()
                }
            }
            CheckPhase::Remove => {
                if reply.and_then(Reply::as_int) == Some(1) {
                    self.phase = CheckPhase::Count;
                    let job = self.keys.job(&self.current);
                    Action::Send {
                        cmd: cmd(&["HINCRBY", &job, "stc", "1"]),
                    }
                } else {
                    self.next_suspect()
                }
            }
            CheckPhase::Count => {
                let n = reply.and_then(Reply::as_int).unwrap_or(1);
                let id = self.current.clone();
                let to_failed = n > i64::from(self.cfg.max_stalled);
                self.proc_.borrow_mut().stalled(&id, to_failed, now);
                self.phase = CheckPhase::Move;
                Action::Send {
                    cmd: if to_failed {
                        cmd(&["ZADD", &self.keys.failed(), &now.to_string(), &id])
                    } else {
                        cmd(&["RPUSH", &self.keys.wait(), &id])
                    },
                }
            }
            CheckPhase::Move => self.next_suspect(),
            CheckPhase::Clear => {
                self.phase = CheckPhase::Active;
                Action::Send {
                    cmd: cmd(&["LRANGE", &self.keys.active(), "0", "-1"]),
                }
            }
            CheckPhase::Active => {
                let active = ids(reply);
                if active.is_empty() {
                    return self.sleep(now);
                }
                let mut c = vec![b"RPUSH".to_vec(), self.keys.stalled().into_bytes()];
                c.extend(active.into_iter().map(String::into_bytes));
                self.phase = CheckPhase::Mark;
                Action::Send { cmd: c }
            }
            CheckPhase::Mark => self.sleep(now),
        }
    }
}
