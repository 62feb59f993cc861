//! Clients A and B as a [`Model`]: each speaks to every node over its own connection
//! (engine actor `client·n + node`, see `world::Nodes`), one command at a time while it
//! acquires, all nodes at once when it releases.

use super::*;
use crate::redis::{scripts, Reply};
use crate::rng::Mulberry32;
use crate::world::{cmd, Action, ActorId, Input, Io, Model, OpId, Outcome, What};

/// A piece of a client's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SegKind {
    /// Working in the critical section (believing it holds the lock).
    Work,
    /// Frozen (stop-the-world).
    Pause,
    /// Waiting to try again.
    Wait,
}

/// A stretch of a client's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seg {
    /// Trace index it began at.
    pub step: usize,
    /// Client (0 = A).
    pub client: usize,
    /// Start, ms.
    pub from_ms: u64,
    /// End, ms.
    pub to_ms: u64,
    /// What it is.
    pub kind: SegKind,
}

/// One try for the lock: its nodes, its time, its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// Trace index of its last reply.
    pub step: usize,
    /// Client.
    pub client: usize,
    /// Its token.
    pub token: String,
    /// Started, ms.
    pub from_ms: u64,
    /// Decided, ms.
    pub to_ms: u64,
    /// Nodes that answered OK.
    pub granted: Vec<usize>,
    /// TTL − elapsed − drift, ms (may be ≤ 0).
    pub validity_ms: i64,
    /// It won the lock.
    pub won: bool,
}

/// A write the storage received (judged later).
#[derive(Clone, Copy, Debug)]
pub(super) struct RawWrite {
    pub(super) step: usize,
    pub(super) at_ms: u64,
    pub(super) client: usize,
    pub(super) fence: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Acquire,
    Unlock,
    Fence,
    Paused,
    Working,
    Release,
    Waiting,
    Done,
}

struct Client {
    phase: Phase,
    token: String,
    started: u64,
    node: usize,
    granted: Vec<usize>,
    fence: Option<i64>,
    pending: usize,
    rng: Mulberry32,
    paused: bool,
}

/// A client's timer: it wakes.
pub(super) type Timer = usize;

/// The two clients, and what they noted.
pub(super) struct Clients {
    p: RedlockParams,
    n: usize,
    cs: Vec<Client>,
    pub(super) segs: Vec<Seg>,
    pub(super) attempts: Vec<Attempt>,
    pub(super) writes: Vec<RawWrite>,
}

impl Clients {
    pub(super) fn new(p: &RedlockParams) -> Self {
        let cs = (0..2)
            .map(|i| Client {
                phase: Phase::Acquire,
                token: String::new(),
                started: 0,
                node: 0,
                granted: Vec::new(),
                fence: None,
                pending: 0,
                rng: Mulberry32::new(p.seed.wrapping_add(0x9E37_79B9u32.wrapping_mul(i + 1))),
                paused: false,
            })
            .collect();
        Clients {
            p: p.clone(),
            n: p.nodes(),
            cs,
            segs: Vec::new(),
            attempts: Vec::new(),
            writes: Vec::new(),
        }
    }

    fn conn(&self, c: usize, node: usize) -> ActorId {
        c * self.n + node
    }

    fn seg(&mut self, io: &Io<Timer>, c: usize, ms: u64, kind: SegKind) {
        let now = io.now();
        self.segs.push(Seg {
            step: io.trace_len(),
            client: c,
            from_ms: now,
            to_ms: now + ms,
            kind,
        });
    }

    /// Logs a decision of client `c` in the trace (on its connection to node 0).
    fn note(&self, io: &mut Io<Timer>, c: usize, input: Input, action: Action) {
        io.log(self.conn(c, 0), What::Act { input, action });
    }

    fn attempt(&mut self, c: usize, io: &mut Io<Timer>) {
        let cl = &mut self.cs[c];
        cl.phase = Phase::Acquire;
        cl.token = format!(
            "{}-{:08x}",
            NAMES[c].to_ascii_lowercase(),
            cl.rng.next_u32()
        );
        cl.started = io.now();
        cl.node = 0;
        cl.granted.clear();
        self.send_set(c, io);
    }

    fn send_set(&mut self, c: usize, io: &mut Io<Timer>) {
        let cl = &self.cs[c];
        let ttl = self.p.ttl.to_string();
        let cmd = cmd(&["SET", LOCK_KEY, &cl.token, "NX", "PX", &ttl]);
        let actor = self.conn(c, cl.node);
        io.send_timeout(actor, cmd, NODE_TIMEOUT_MS);
    }

    /// All nodes asked: won or not.
    fn decide(&mut self, c: usize, io: &mut Io<Timer>) {
        let now = io.now();
        let cl = &self.cs[c];
        let elapsed = now - cl.started;
        let validity = self.p.ttl as i64 - elapsed as i64 - self.p.drift() as i64;
        let won = cl.granted.len() >= self.p.quorum() && validity > 0;
        self.attempts.push(Attempt {
            step: io.trace_len(),
            client: c,
            token: cl.token.clone(),
            from_ms: cl.started,
            to_ms: now,
            granted: cl.granted.clone(),
            validity_ms: validity,
            won,
        });
        if won {
            if self.p.fencing_on() {
                self.cs[c].phase = Phase::Fence;
                io.send_timeout(self.conn(c, 0), cmd(&["INCR", FENCE_KEY]), NODE_TIMEOUT_MS);
            } else {
                self.after_win(c, io);
            }
        } else if self.n > 1 {
            // Release on every node, also those it believes it did not get.
            self.cs[c].phase = Phase::Unlock;
            self.release_all(c, io);
        } else {
            self.wait(c, io);
        }
    }

    fn release_all(&mut self, c: usize, io: &mut Io<Timer>) {
        let token = self.cs[c].token.clone();
        self.cs[c].pending = self.n;
        for node in 0..self.n {
            let cmd = cmd(&["EVALSHA", scripts::RELEASE.sha1, "1", LOCK_KEY, &token]);
            io.send_timeout(self.conn(c, node), cmd, NODE_TIMEOUT_MS);
        }
    }

    fn wait(&mut self, c: usize, io: &mut Io<Timer>) {
        let ms = 40 + u64::from(self.cs[c].rng.below(61));
        self.cs[c].phase = Phase::Waiting;
        self.seg(io, c, ms, SegKind::Wait);
        self.note(io, c, Input::Wake, Action::Sleep { ms });
        io.after(ms, c);
    }

    fn after_win(&mut self, c: usize, io: &mut Io<Timer>) {
        let cl = &mut self.cs[c];
        if c == 0 && self.p.pause > 0 && !cl.paused {
            cl.paused = true;
            cl.phase = Phase::Paused;
            let ms = self.p.pause;
            self.seg(io, c, ms, SegKind::Pause);
            let what = "stop-the-world pause".to_string();
            self.note(io, c, Input::Start, Action::Work { ms, what });
            io.after(ms, c);
        } else {
            self.work(c, io);
        }
    }

    fn work(&mut self, c: usize, io: &mut Io<Timer>) {
        self.cs[c].phase = Phase::Working;
        let ms = self.p.work;
        self.seg(io, c, ms, SegKind::Work);
        let what = "critical section".to_string();
        self.note(io, c, Input::Wake, Action::Work { ms, what });
        io.after(ms, c);
    }

    fn write_and_release(&mut self, c: usize, io: &mut Io<Timer>) {
        let fence = self.cs[c].fence;
        self.writes.push(RawWrite {
            step: io.trace_len(),
            at_ms: io.now(),
            client: c,
            fence,
        });
        let what = match fence {
            Some(f) => format!("write to the storage, fencing token {f}"),
            None => "write to the storage".to_string(),
        };
        self.note(io, c, Input::Wake, Action::Work { ms: 0, what });
        self.cs[c].phase = Phase::Release;
        self.release_all(c, io);
    }
}

impl Model for Clients {
    type Timer = Timer;

    fn on_timer(&mut self, c: Timer, io: &mut Io<Timer>) {
        match self.cs[c].phase {
            Phase::Acquire => self.attempt(c, io),
            Phase::Waiting => self.attempt(c, io),
            Phase::Paused => self.work(c, io),
            Phase::Working => self.write_and_release(c, io),
            _ => {}
        }
    }

    fn on_reply(&mut self, _op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Timer>) {
        let c = actor / self.n;
        let node = actor % self.n;
        let reply = match outcome {
            Outcome::Reply(r) => Some(r),
            _ => None,
        };
        match self.cs[c].phase {
            Phase::Acquire => {
                if reply == Some(Reply::ok()) {
                    self.cs[c].granted.push(node);
                }
                if node + 1 < self.n {
                    self.cs[c].node = node + 1;
                    self.send_set(c, io);
                } else {
                    self.decide(c, io);
                }
            }
            Phase::Fence => {
                self.cs[c].fence = reply.and_then(|r| r.as_int());
                self.after_win(c, io);
            }
            Phase::Unlock | Phase::Release => {
                self.cs[c].pending -= 1;
                if self.cs[c].pending == 0 {
                    if self.cs[c].phase == Phase::Unlock {
                        self.wait(c, io);
                    } else {
                        self.cs[c].phase = Phase::Done;
                    }
                }
            }
            _ => {}
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        let (c, node) = (actor / self.n, actor % self.n);
        if self.n == 1 {
            NAMES[c].to_string()
        } else {
            format!("{}→r{}", NAMES[c], node + 1)
        }
    }
}
