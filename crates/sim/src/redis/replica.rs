//! A replica following a primary in virtual time (`replication.c` of Redis 7.0, as a
//! student meets it).
//!
//! [`Replicated`] holds two SimRedis nodes. Attaching the replica is a full sync: the
//! primary's snapshot holds every stored key, including keys already past their TTL but not
//! yet reclaimed (Redis ≥ 5 writes them into the RDB; a primary loading that file would drop
//! them, a replica keeps them and waits for the primary's DEL). Then every command that
//! changed data goes down the replication stream, and so does the `DEL` the primary
//! synthesizes when it reclaims an expired key — lazily, when a command touches it, or in
//! its active expire cycle — or evicts one. Each entry arrives `lag` virtual ms after the
//! primary produced it, in order.
//!
//! The replica never expires keys itself: a read of a key past its TTL answers nil (as
//! Redis ≥ 3.2 replicas do) while DBSIZE and `INFO keyspace` still count it, until the DEL
//! arrives. It refuses writes (`READONLY …`). `REPLICAOF NO ONE` on it (or
//! [`Replicated::promote`]) makes it a primary: whatever the old primary had produced and
//! not yet delivered is lost, and from then on the new primary expires keys itself.
//!
//! What goes down the stream is each changed key's new state (its value and TTL, or its
//! absence) rather than the command text: the replica ends exactly where the primary was
//! whatever the command (a script, EXEC, a blocking pop served later), without re-running
//! anything. The offsets (`master_repl_offset`, the replica's `slave_repl_offset`) still
//! count what Redis would send: the command's RESP bytes (MULTI/EXEC around a transaction),
//! `SELECT 0` before the first write, the DEL of an expired key, and a PING every 10
//! virtual seconds. The primary sees the replica's offset at once (Redis learns it from
//! REPLCONF ACK every second).

use super::commands::resp_len;
use super::rdb::Snapshot;
use super::{Reply, SimRedis, Value};
use std::collections::VecDeque;

/// A key's state as shipped to the replica: its value and expiry, or `None` (deleted).
type KeyState = (Vec<u8>, Option<(Value, i64)>);

#[derive(Clone, Debug)]
pub(crate) enum ReplOp {
    /// Keys a command changed.
    Write(Vec<KeyState>),
    /// A key the primary reclaimed or evicted.
    Del(Vec<u8>),
    /// FLUSHALL.
    Flush,
    /// Bytes that change no key (PING, SELECT).
    Noop,
}

/// A node's replication role and offsets.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReplState {
    replica: bool,
    /// A primary with a replica attached records what it must send.
    enabled: bool,
    /// `master_repl_offset`: bytes produced (primary) or applied (replica).
    offset: u64,
    /// Produced since the pair last collected: (virtual ms, bytes, op).
    out: Vec<(u64, u64, ReplOp)>,
    /// Bytes the current command propagates when it is not its own text (EXEC).
    extra: Option<u64>,
    /// The first write after a sync is preceded by `SELECT 0`.
    selected: bool,
    /// The replica's applied offset, as the primary knows it.
    replica_offset: Option<u64>,
    now: u64,
}

impl ReplState {
    pub(crate) fn is_replica(&self) -> bool {
        self.replica
    }

    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    pub(crate) fn set_extra_bytes(&mut self, n: u64) {
        self.extra = Some(n);
    }

    pub(crate) fn has_extra(&self) -> bool {
        self.extra.is_some()
    }

    pub(crate) fn take_extra_bytes(&mut self) -> Option<u64> {
        self.extra.take()
    }

    pub(crate) fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    fn push(&mut self, bytes: u64, op: ReplOp) {
        if !self.selected {
            self.selected = true;
            self.push(23, ReplOp::Noop); // *2 $6 SELECT $1 0
        }
        self.offset += bytes;
        self.out.push((self.now, bytes, op));
    }

    /// The DEL a primary sends for a key it reclaimed or evicted.
    pub(crate) fn propagate_del(&mut self, key: &[u8]) {
        if self.enabled {
            self.push(resp_len(&[b"DEL", key]), ReplOp::Del(key.to_vec()));
        }
    }

    pub(crate) fn propagate_write(&mut self, bytes: u64, states: Vec<KeyState>) {
        if self.enabled {
            self.push(bytes, ReplOp::Write(states));
        }
    }

    pub(crate) fn flush(&mut self) {
        if self.enabled {
            self.push(resp_len(&[b"FLUSHALL"]), ReplOp::Flush);
        }
    }

    /// INFO's `# Replication` body.
    pub(crate) fn info(&self) -> String {
        let mut s = String::new();
        if self.replica {
            s.push_str("role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\n");
            s.push_str("master_link_status:up\r\nmaster_last_io_seconds_ago:0\r\n");
            s.push_str("master_sync_in_progress:0\r\n");
            s.push_str(&format!(
                "slave_read_repl_offset:{0}\r\nslave_repl_offset:{0}\r\n",
                self.offset
            ));
            s.push_str("slave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1\r\n");
            s.push_str("connected_slaves:0\r\n");
        } else {
            s.push_str("role:master\r\n");
            match self.replica_offset {
                Some(off) if self.enabled => {
                    s.push_str("connected_slaves:1\r\n");
                    s.push_str(&format!(
                        "slave0:ip=127.0.0.1,port=6380,state=online,offset={off},lag=0\r\n"
                    ));
                }
                _ => s.push_str("connected_slaves:0\r\n"),
            }
        }
        s.push_str(&format!("master_repl_offset:{}\r\n", self.offset));
        s
    }
}

impl SimRedis {
    /// Whether this node is a replica.
    pub fn is_replica(&self) -> bool {
        self.repl.is_replica()
    }

    /// `master_repl_offset` of this node.
    pub fn repl_offset(&self) -> u64 {
        self.repl.offset
    }

    /// `REPLICAOF NO ONE` makes a replica a primary; `REPLICAOF host port` is not modelled
    /// (replicas are made with [`Replicated`]).
    pub(crate) fn replicaof(&mut self, a: &[&[u8]]) -> Reply {
        if a[1].eq_ignore_ascii_case(b"no") && a[2].eq_ignore_ascii_case(b"one") {
            if self.repl.replica {
                self.repl.replica = false;
                self.repl.enabled = false;
                self.update_track();
            }
            return Reply::ok();
        }
        Reply::err("ERR SimRedis makes replicas only with its own Replicated pair (labsim: '#node replica'); REPLICAOF <host> <port> is not modelled")
    }

    fn apply(&mut self, bytes: u64, op: ReplOp) {
        self.repl.offset += bytes;
        match op {
            ReplOp::Write(states) => {
                for (k, st) in states {
                    self.delete(&k);
                    if let Some((v, expire)) = st {
                        let is_list = matches!(v, Value::List(_));
                        self.insert_new(&k, v);
                        if expire >= 0 {
                            self.set_expire(&k, expire);
                        }
                        if is_list {
                            self.signal_ready(&k);
                        }
                    }
                    self.modified(&k);
                }
            }
            ReplOp::Del(k) => {
                self.delete_signal(&k);
            }
            ReplOp::Flush => self.flush(),
            ReplOp::Noop => {}
        }
        if !self.ready.is_empty() {
            self.serve_ready();
        }
        self.finish_command(&[b"REPLICATION"]);
    }
}

/// Which node of a [`Replicated`] pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// The primary (the node writes go to).
    Primary,
    /// The replica (read-only until promoted).
    Replica,
}

/// A primary and a replica that follows it with a lag, on one virtual clock. See the module
/// documentation.
#[derive(Clone, Debug)]
pub struct Replicated {
    primary: SimRedis,
    replica: SimRedis,
    lag_ms: u64,
    /// (arrives at, bytes, op), in order.
    in_flight: VecDeque<(u64, u64, ReplOp)>,
    /// Whether the replica still follows the primary.
    linked: bool,
    next_ping: u64,
}

const PING_EVERY_MS: u64 = 10_000;

impl Replicated {
    /// Attaches a fresh replica (seeded with `seed`) to `primary` with a full sync now; the
    /// snapshot and everything after it arrive `lag_ms` later.
    pub fn attach(primary: SimRedis, seed: u32, lag_ms: u64) -> Self {
        Self::attach_with(primary, seed, lag_ms, Snapshot::All)
    }

    /// [`Replicated::attach`] with a snapshot that holds `what` ([`Snapshot::SkipExpired`]:
    /// Redis ≤ 4.0.9, whose snapshot left out the keys already past their TTL).
    pub fn attach_with(mut primary: SimRedis, seed: u32, lag_ms: u64, what: Snapshot) -> Self {
        let now = primary.now_ms();
        let mut replica = SimRedis::with_config(seed, primary.exp.cfg);
        replica.epoch_ms = primary.epoch_ms;
        replica.scripts_loaded = primary.scripts_loaded;
        replica.advance_to(now);
        replica.repl.replica = true;
        replica.update_track();
        let snapshot: Vec<KeyState> = primary
            .rdb(what)
            .into_iter()
            .map(|(k, v, expire)| (k, Some((v, expire))))
            .collect();
        let mut in_flight = VecDeque::new();
        // The snapshot brings the replica to the primary's offset.
        in_flight.push_back((now + lag_ms, primary.repl.offset, ReplOp::Write(snapshot)));
        primary.repl.enabled = true;
        primary.repl.selected = false;
        primary.repl.replica_offset = Some(0);
        primary.update_track();
        Replicated {
            primary,
            replica,
            lag_ms,
            in_flight,
            linked: true,
            next_ping: now + PING_EVERY_MS,
        }
    }

    /// The replication lag for what the primary produces from now on.
    pub fn set_lag_ms(&mut self, ms: u64) {
        self.lag_ms = ms;
    }

    /// The lag.
    pub fn lag_ms(&self) -> u64 {
        self.lag_ms
    }

    /// A node, to read from.
    pub fn node(&self, n: Node) -> &SimRedis {
        match n {
            Node::Primary => &self.primary,
            Node::Replica => &self.replica,
        }
    }

    /// Node `n`'s wall clock jumps by `ms` (see [`SimRedis::jump_clock`]).
    pub fn jump_clock(&mut self, n: Node, ms: i64) {
        match n {
            Node::Primary => self.primary.jump_clock(ms),
            Node::Replica => self.replica.jump_clock(ms),
        }
    }

    /// Whether the replica still follows the primary (not promoted).
    pub fn linked(&self) -> bool {
        self.linked
    }

    /// Entries produced by the primary and not yet applied by the replica.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Keys the primary reclaimed (or evicted) whose DEL has not reached the replica yet.
    pub fn dels_in_flight(&self) -> usize {
        self.in_flight
            .iter()
            .filter(|(_, _, op)| matches!(op, ReplOp::Del(_)))
            .count()
    }

    /// Runs a command on one node for `client` (see [`SimRedis::execute`]).
    pub fn execute<A: AsRef<[u8]>>(&mut self, n: Node, client: u64, args: &[A]) -> super::Exec {
        let r = match n {
            Node::Primary => self.primary.execute(client, args),
            Node::Replica => self.replica.execute(client, args),
        };
        self.collect();
        r
    }

    /// Replies to `n`'s blocked clients since the last call (see [`SimRedis::take_woken`]).
    pub fn take_woken(&mut self, n: Node) -> Vec<super::Woken> {
        match n {
            Node::Primary => self.primary.take_woken(),
            Node::Replica => self.replica.take_woken(),
        }
    }

    /// Forgets a client of `n` (see [`SimRedis::disconnect`]).
    pub fn disconnect(&mut self, n: Node, client: u64) {
        match n {
            Node::Primary => self.primary.disconnect(client),
            Node::Replica => self.replica.disconnect(client),
        }
    }

    /// The promoted replica as a server of its own (after [`Replicated::promote`]); the old
    /// primary is dropped.
    pub fn into_replica(self) -> SimRedis {
        self.replica
    }

    /// Moves both nodes to virtual time `t`, delivering what has arrived by then.
    pub fn advance_to(&mut self, t: u64) {
        while self.linked && self.next_ping <= t {
            self.primary.advance_to(self.next_ping);
            self.collect();
            self.primary.repl.now = self.next_ping;
            self.primary.repl.push(14, ReplOp::Noop);
            self.next_ping += PING_EVERY_MS;
        }
        self.primary.advance_to(t);
        self.collect();
        while let Some(&(at, _, _)) = self.in_flight.front() {
            if at > t {
                break;
            }
            let (at, bytes, op) = self.in_flight.pop_front().expect("peeked");
            self.replica.advance_to(at);
            // The snapshot's size is the primary's offset when it was taken.
            self.replica.apply(bytes, op);
            self.primary.repl.replica_offset = Some(self.replica.repl.offset);
        }
        self.replica.advance_to(t);
    }

    /// Moves the clock forward by `ms`.
    pub fn advance(&mut self, ms: u64) {
        self.advance_to(self.primary.now_ms().max(self.replica.now_ms()) + ms);
    }

    /// The primary fails over to the replica (`REPLICAOF NO ONE` on it): what had not
    /// arrived is lost, the replica becomes a primary that expires keys itself.
    pub fn promote(&mut self) {
        self.replica.call(&[b"REPLICAOF", b"NO", b"ONE"]);
        self.collect();
    }

    /// Takes what the primary produced into the stream; notices a promoted replica.
    fn collect(&mut self) {
        self.primary.repl.now = self.primary.now_ms();
        let out = std::mem::take(&mut self.primary.repl.out);
        if !self.linked {
            return;
        }
        if !self.replica.repl.replica {
            self.linked = false;
            self.in_flight.clear();
            self.primary.repl.enabled = false;
            self.primary.repl.replica_offset = None;
            self.primary.update_track();
            return;
        }
        let last = self.in_flight.back().map_or(0, |x| x.0);
        for (at, bytes, op) in out {
            self.in_flight
                .push_back(((at + self.lag_ms).max(last), bytes, op));
        }
    }
}
