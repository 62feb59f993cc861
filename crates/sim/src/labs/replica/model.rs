//! The model: a primary loaded with keys at time 0, a reader, the second server made at the
//! sync moment, one frame of counts every `step_ms`, and the probe's commands.

use super::output::{AtSync, Counts, Frame, ReplicaOutput};
use super::params::{ReplicaParams, SnapshotKeys};
use crate::labs::lab::Run;
use crate::labs::log::CmdLine;
use crate::redis::{Exec, ExpireConfig, Node, Replicated, Reply, SimRedis, Snapshot};
use crate::rng::Mulberry32;
use crate::world::cmd;

/// `INFO keyspace`'s counts of `s`, and its stale keys.
fn counts(s: &SimRedis) -> Counts {
    Counts {
        keys: s.dbsize() as u32,
        expires: s.volatile_len() as u32,
        stale: s.stale_len() as u32,
    }
}

/// The servers as the run goes.
enum Servers {
    /// Before the sync.
    One(Box<SimRedis>),
    /// A primary and its replica.
    Pair(Box<Replicated>),
    /// A primary and a server started from its RDB as a primary.
    Two(Box<SimRedis>, Box<SimRedis>),
    /// Only while changing from one to another.
    Moving,
}

impl Servers {
    fn advance_to(&mut self, t: u64) {
        match self {
            Servers::One(s) => s.advance_to(t),
            Servers::Pair(p) => p.advance_to(t),
            Servers::Two(a, b) => {
                a.advance_to(t);
                b.advance_to(t);
            }
            Servers::Moving => {}
        }
    }

    fn primary(&self) -> &SimRedis {
        match self {
            Servers::One(s) | Servers::Two(s, _) => s,
            Servers::Pair(p) => p.node(Node::Primary),
            Servers::Moving => unreachable!("never seen while moving"),
        }
    }

    fn second(&self) -> Option<&SimRedis> {
        match self {
            Servers::One(_) | Servers::Moving => None,
            Servers::Pair(p) => Some(p.node(Node::Replica)),
            Servers::Two(_, b) => Some(b),
        }
    }

    fn exec(&mut self, second: bool, client: u64, words: &[&str]) -> Reply {
        let e = match (self, second) {
            (Servers::One(s), false) | (Servers::Two(s, _), false) => s.execute(client, words),
            (Servers::Two(_, b), true) => b.execute(client, words),
            (Servers::Pair(p), false) => p.execute(Node::Primary, client, words),
            (Servers::Pair(p), true) => p.execute(Node::Replica, client, words),
            _ => return Reply::err("ERR no such server"),
        };
        match e {
            Exec::Reply(r) => r,
            Exec::Blocked => Reply::Nil,
        }
    }
}

const READER: u64 = 1;
const PROBE: u64 = 2;

/// Virtual ms between frames: at most 300 frames.
pub fn step_ms(duration_s: u64) -> u64 {
    match duration_s {
        0..=150 => 500,
        151..=300 => 1000,
        _ => 2000,
    }
}

/// The key `i`'s name.
pub fn key(i: u32) -> String {
    format!("key:{i:05}")
}

/// The lab's run, a frame per step.
pub struct ReplicaModel {
    p: ReplicaParams,
    servers: Servers,
    reads: Mulberry32,
    next_read: u64,
    sync_pending: bool,
    probe_at: Option<u64>,
    del_note_at: Option<u64>,
    probe_start: u32,
    probed: Option<String>,
    out: ReplicaOutput,
    last_frame: u64,
}

impl ReplicaModel {
    /// The primary of `p` loaded at time 0, before the first frame.
    pub fn new(p: &ReplicaParams) -> Self {
        let cfg = ExpireConfig {
            hz: p.hz,
            ..ExpireConfig::default()
        };
        let mut s = SimRedis::with_config(p.seed, cfg);
        let mut rng = Mulberry32::new(p.seed);
        let (lo, hi) = (p.ttl_min * 1000, p.ttl_max.max(p.ttl_min) * 1000);
        for i in 0..p.keys {
            let k = key(i);
            if rng.below(100) < p.volatile {
                let ttl = lo + u64::from(rng.below((hi - lo + 1) as u32));
                s.cmd(&["SET", &k, "v", "PX", &ttl.to_string()]);
            } else {
                s.cmd(&["SET", &k, "v"]);
            }
        }
        let probe_start = rng.below(p.keys.max(1));
        let step = step_ms(p.duration);
        let sync_ms = p.sync * 1000;
        let replica = p.replica();
        let loaded_ms = sync_ms + if replica { p.lag } else { 0 };
        let end = p.duration * 1000;
        ReplicaModel {
            p: p.clone(),
            servers: Servers::One(Box::new(s)),
            reads: Mulberry32::new(p.seed ^ 0x9E37_79B9),
            next_read: 1,
            sync_pending: true,
            probe_at: (loaded_ms + 1000 <= end).then_some(loaded_ms + 1000),
            del_note_at: None,
            probe_start,
            probed: None,
            out: ReplicaOutput {
                step_ms: step,
                sync_ms,
                loaded_ms,
                lag_ms: p.lag,
                replica,
                at_sync: None,
                frames: Vec::new(),
                log: Vec::new(),
            },
            last_frame: end / step,
        }
    }

    fn read_at(&self, i: u64) -> Option<u64> {
        (self.p.reads > 0).then(|| i * 1000 / u64::from(self.p.reads))
    }

    /// The snapshot is taken now: the replica attaches (or a primary starts from it).
    fn sync(&mut self) {
        let Servers::One(s) = std::mem::replace(&mut self.servers, Servers::Moving) else {
            unreachable!("the sync comes once, first");
        };
        let what = if self.p.snapshot == SnapshotKeys::SkipExpired {
            Snapshot::SkipExpired
        } else {
            Snapshot::All
        };
        let (keys, stale) = (s.dbsize() as u32, s.stale_len() as u32);
        let snapshot = if what == Snapshot::All {
            keys
        } else {
            keys - stale
        };
        let seed = self.p.seed ^ 0x5EC0_4D00;
        let dropped;
        self.servers = if self.out.replica {
            dropped = 0;
            Servers::Pair(Box::new(Replicated::attach_with(
                *s, seed, self.p.lag, what,
            )))
        } else {
            let (b, loaded) = s.restarted(seed, what);
            dropped = loaded.expired as u32;
            Servers::Two(s, Box::new(b))
        };
        self.out.at_sync = Some(AtSync {
            keys,
            stale,
            snapshot,
            dropped,
        });
    }

    fn line(&mut self, at: u64, who: &str, words: &[&str], second: bool, note: &str) {
        let reply = self.servers.exec(second, PROBE, words);
        let mut l = CmdLine::new(at, who, &cmd(words), Ok(reply));
        l.note = note.to_string();
        self.out.log.push(l);
    }

    /// A stale key read on the second server and on the primary.
    fn probe(&mut self, at: u64) {
        let n = self.p.keys.max(1);
        let (p, second) = (self.servers.primary(), self.servers.second());
        let held = |k: &str| second.is_some_and(|s| s.is_stale(k.as_bytes()));
        // Past its TTL before the snapshot was taken (the keys a restored primary drops while
        // loading), not after.
        let sync = self.out.sync_ms as i64;
        let before_sync = |k: &str| {
            p.expires_in(k.as_bytes())
                .is_some_and(|d| at as i64 + d <= sync)
        };
        let pick = |fits: &dyn Fn(&str) -> bool| {
            (0..n)
                .map(|j| key((self.probe_start + j) % n))
                .find(|k| p.is_stale(k.as_bytes()) && fits(k))
        };
        // A replica shows a key it still holds; a restored primary one it dropped.
        let first = if self.out.replica {
            pick(&|k| held(k))
        } else {
            pick(&|k| !held(k) && before_sync(k))
        };
        let Some(k) = first.or_else(|| pick(&|_| true)) else {
            let mut l = CmdLine::new(at, "primary", &cmd(&[]), Ok(Reply::Nil));
            l.note = "এই মুহূর্তে মেয়াদ পেরোনো কোনো key মেমোরিতে নেই".into();
            self.out.log.push(l);
            return;
        };
        let who = if self.out.replica {
            "replica"
        } else {
            "restored"
        };
        let held = held(&k);
        let note = match (self.out.replica, held, before_sync(&k)) {
            (true, true, _) => "মেয়াদ পেরোনো: (nil) — তবু key মেমোরিতে, keys=-এ গোনা",
            (true, false, _) => "এই key snapshot-এ আসেনি: (nil)",
            (false, false, true) => "লোডের সময়ই বাদ পড়েছে: (nil)",
            (false, true, _) => "মেয়াদ ফুরিয়েছে লোডের পরে: (nil) — এ সার্ভার primary, পড়তেই মুছে দিল",
            (false, false, false) => "মেয়াদ ফুরিয়েছে লোডের পরে, এ সার্ভারের নিজের চক্র মুছেছে: (nil)",
        };
        self.line(at, who, &["GET", &k], true, note);
        self.line(at, who, &["DBSIZE"], true, "");
        self.line(
            at,
            "primary",
            &["GET", &k],
            false,
            if self.out.replica {
                "lazy: এখানে মুছল, replica-কে DEL পাঠাল"
            } else {
                "lazy: এখানে মুছল"
            },
        );
        self.line(at, "primary", &["DBSIZE"], false, "");
        if self.out.replica && held {
            self.del_note_at = Some(at + self.p.lag);
        }
        self.probed = Some(k);
    }

    /// The probed key's DEL has arrived (or not) at the replica.
    fn del_note(&mut self, at: u64) {
        let Some(k) = self.probed.clone() else { return };
        let gone = self
            .servers
            .second()
            .is_some_and(|s| !s.is_stale(k.as_bytes()));
        let mut l = CmdLine::new(at, "replica", &cmd(&[]), Ok(Reply::Nil));
        l.note = if gone {
            format!("primary-র DEL {k} পৌঁছল — এবার replica-র গুনতি থেকেও বাদ")
        } else {
            format!("DEL {k} এখনো পৌঁছায়নি")
        };
        self.out.log.push(l);
    }

    fn frame(&self, t: u64) -> Frame {
        let p = self.servers.primary();
        let st = p.expire_stats();
        let (second, second_active, in_flight) = match &self.servers {
            Servers::Pair(pair) => (
                (t >= self.out.loaded_ms).then(|| counts(pair.node(Node::Replica))),
                0,
                pair.dels_in_flight() as u32,
            ),
            Servers::Two(_, b) => (Some(counts(b)), b.expire_stats().active, 0),
            _ => (None, 0, 0),
        };
        Frame {
            t_ms: t,
            primary: counts(p),
            second,
            lazy: st.lazy,
            active: st.active,
            second_active,
            reads: self.next_read - 1,
            in_flight,
        }
    }

    /// Everything due by `t`, in order (at the same moment: the sync, the probe, the DEL's
    /// note, a read).
    fn run_to(&mut self, t: u64) {
        loop {
            let sync = self.sync_pending.then_some(self.out.sync_ms);
            let read = self.read_at(self.next_read);
            let next = [sync, self.probe_at, self.del_note_at, read]
                .into_iter()
                .flatten()
                .min();
            let Some(at) = next.filter(|&at| at <= t) else {
                break;
            };
            self.servers.advance_to(at);
            if sync == Some(at) {
                self.sync_pending = false;
                self.sync();
            } else if self.probe_at == Some(at) {
                self.probe_at = None;
                self.probe(at);
            } else if self.del_note_at == Some(at) {
                self.del_note_at = None;
                self.del_note(at);
            } else {
                self.next_read += 1;
                let k = key(self.reads.below(self.p.keys.max(1)));
                self.servers.exec(false, READER, &["GET", &k]);
            }
        }
        self.servers.advance_to(t);
    }

    /// Runs to the end.
    pub fn finish(mut self) -> ReplicaOutput {
        while !Run::is_done(&self) {
            Run::step(&mut self);
        }
        self.out
    }

    /// `INFO keyspace` of the primary and of the second server now, as Redis answers it.
    pub fn info_keyspace(&mut self) -> (Reply, Option<Reply>) {
        let p = self.servers.exec(false, PROBE, &["INFO", "keyspace"]);
        let s = self
            .servers
            .second()
            .is_some()
            .then(|| self.servers.exec(true, PROBE, &["INFO", "keyspace"]));
        (p, s)
    }

    /// The run so far.
    pub fn output_so_far(&self) -> &ReplicaOutput {
        &self.out
    }
}

impl Run for ReplicaModel {
    type Part = ();
    type Output = ReplicaOutput;

    fn step(&mut self) -> Option<()> {
        let k = self.out.frames.len() as u64;
        if k > self.last_frame {
            return None;
        }
        let t = k * self.out.step_ms;
        self.run_to(t);
        let f = self.frame(t);
        self.out.frames.push(f);
        None
    }

    fn is_done(&self) -> bool {
        self.out.frames.len() as u64 > self.last_frame
    }

    fn progress(&self) -> f64 {
        self.out.frames.len() as f64 / (self.last_frame + 1) as f64
    }

    fn output(&mut self) -> ReplicaOutput {
        self.out.clone()
    }
}
