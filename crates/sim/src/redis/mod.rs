//! SimRedis: an in-memory model of the Redis 7 commands the labs use, answering in virtual
//! time on a clock the simulation owns.
//!
//! * keys and strings: GET, SET (EX/PX/EXAT/PXAT/NX/XX/GET/KEEPTTL), DEL, EXISTS, INCR,
//!   INCRBY, MGET, EXPIRE, PEXPIRE (NX/XX/GT/LT), TTL, PTTL, PERSIST, TYPE, plus PING, ECHO,
//!   DBSIZE, FLUSHALL;
//! * lists: LPUSH, RPUSH, LPOP, RPOP (with count), LRANGE, LLEN, LREM, LMOVE and the blocking
//!   BLMOVE, BRPOP, BRPOPLPUSH, which block in virtual time and are served in the order the
//!   clients blocked, as `blocked.c` does;
//! * hashes: HSET, HGET, HGETALL, HDEL, HLEN, HINCRBY (fields kept in insertion order, as a
//!   small hash's listpack keeps them);
//! * sorted sets: ZADD (NX/XX/GT/LT/CH/INCR), ZCARD, ZRANGE (BYSCORE/REV/LIMIT/WITHSCORES),
//!   ZRANGEBYSCORE, ZREMRANGEBYSCORE, ZSCORE, ZREM, ZINCRBY;
//! * streams ([`streams`]): XADD (MAXLEN/MINID `~`/`=`, LIMIT, NOMKSTREAM), XLEN, XRANGE,
//!   XREVRANGE, XTRIM, XDEL, XGROUP, XREAD and XREADGROUP (blocking in virtual time), XACK,
//!   XPENDING, XCLAIM, XAUTOCLAIM;
//! * pub/sub ([`pubsub`]): PUBLISH, SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, and the
//!   shard channels' SPUBLISH, SSUBSCRIBE, SUNSUBSCRIBE;
//! * EVALSHA / EVAL / SCRIPT LOAD of the named scripts in [`scripts`] (Lua source shown to
//!   the student, semantics in Rust, real SHA1 so a real Redis agrees).
//!
//! Replies are RESP2-typed [`Reply`] values and every error is worded as Redis 7.0 words it
//! (checked against `redis-server` 7.0.15 by `tests/redis_differential.rs`). Keys expire
//! lazily on access (a key is alive while `now <= expire time`, as `keyIsExpired` says) and
//! by the active expire cycle of `expire.c`: `hz` times per virtual second it samples up to
//! 20 keys with a TTL, deletes the expired ones and repeats while more than 10% of a sample
//! was expired, up to a loop limit standing for the cycle's 25%-of-a-tick time budget.
//! Redis 6+ visits the expires table's hash buckets with a cursor, which amounts to an
//! arbitrary order; here each sampled key is drawn with the owned, seeded RNG, so runs are
//! reproducible. The "fast" cycle Redis also runs before sleeping is not modelled (it only
//! speeds reclaiming up under load; the keys it reclaims are already logically gone).
//!
//! Hand-written because it is the thing being taught: no crate models Redis in virtual time
//! deterministically (mini-redis and friends are real servers on tokio's clock). Keys live
//! in a `HashMap` with a fixed FxHash hasher that is never iterated for a reply; keys with a TTL
//! are also kept in a vector (swap-remove, O(1)) so sampling is seeded and deterministic.

pub mod cli;
mod hashes;
mod keys;
mod lists;
pub mod num;
pub mod pubsub;
mod reply;
pub mod scripts;
pub mod streams;
mod zsets;

pub use reply::Reply;
pub use scripts::{Script, SCRIPTS};
pub use streams::{ReadEntry, StreamId, StreamRead};

use crate::rng::Mulberry32;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use zsets::ZSet;

/// Who sent a command: blocked clients are remembered by this id.
pub type ClientId = u64;

/// The unix time (ms) virtual time 0 stands for, so overflow checks on huge TTLs behave
/// as on a real server today (2023-11-14).
pub const EPOCH_MS: i64 = 1_700_000_000_000;

/// The outcome of one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exec {
    /// Answered at once.
    Reply(Reply),
    /// A blocking command is waiting; its reply comes later from [`SimRedis::take_woken`].
    Blocked,
}

/// A reply before it is rendered as a [`Reply`] tree ([`SimRedis::execute_raw`]). Most
/// replies are trees already; a stream read and XADD's new ID are kept compact — IDs as
/// numbers, the entries' fields in one buffer — so a client reading a million entries
/// allocates per command, not per entry. [`RawReply::to_reply`] is exactly the tree
/// [`SimRedis::execute`] answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawReply {
    /// Any reply, as a tree.
    Tree(Reply),
    /// A stream entry ID (XADD's reply): a bulk string `ms-seq`.
    Id(StreamId),
    /// XREAD / XREADGROUP's entries.
    Read(StreamRead),
}

impl RawReply {
    /// The reply as Redis sends it.
    pub fn to_reply(&self) -> Reply {
        match self {
            RawReply::Tree(r) => r.clone(),
            RawReply::Id(id) => Reply::Bulk(id.to_bytes()),
            RawReply::Read(r) => r.to_reply(),
        }
    }

    /// [`RawReply::to_reply`], reusing the tree when there is one.
    pub fn into_reply(self) -> Reply {
        match self {
            RawReply::Tree(r) => r,
            other => other.to_reply(),
        }
    }

    /// The tree, if the reply is one (integers, errors, nil, …).
    pub fn as_tree(&self) -> Option<&Reply> {
        match self {
            RawReply::Tree(r) => Some(r),
            _ => None,
        }
    }
}

/// [`Exec`] with the reply not yet rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawExec {
    /// Answered at once.
    Reply(RawReply),
    /// A blocking command is waiting ([`SimRedis::take_woken_raw`]).
    Blocked,
}

impl RawExec {
    /// The rendered outcome.
    pub fn into_exec(self) -> Exec {
        match self {
            RawExec::Reply(r) => Exec::Reply(r.into_reply()),
            RawExec::Blocked => Exec::Blocked,
        }
    }
}

/// [`Woken`] with the reply not yet rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawWoken {
    /// The client that had blocked.
    pub client: ClientId,
    /// Its reply.
    pub reply: RawReply,
    /// Virtual time of the reply, in ms.
    pub at_ms: u64,
}

impl RawWoken {
    /// The rendered reply.
    pub fn into_woken(self) -> Woken {
        Woken {
            client: self.client,
            reply: self.reply.into_reply(),
            at_ms: self.at_ms,
        }
    }
}

/// A reply to a client that was blocked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Woken {
    /// The client that had blocked.
    pub client: ClientId,
    /// Its reply (the popped element, or nil at the timeout).
    pub reply: Reply,
    /// Virtual time of the reply, in ms.
    pub at_ms: u64,
}

/// Active expiry settings (Redis' defaults: `hz 10`, effort 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpireConfig {
    /// Active expire cycles per virtual second (`hz`); 0 turns active expiry off.
    pub hz: u32,
    /// Keys sampled per loop (`ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP`).
    pub keys_per_loop: u32,
    /// Repeat while more than this percentage of a sample was expired.
    pub acceptable_stale: u32,
    /// Loops per cycle at most: stands for the 25%-of-a-tick time limit.
    pub max_loops: u32,
}

impl Default for ExpireConfig {
    fn default() -> Self {
        Self {
            hz: 10,
            keys_per_loop: 20,
            acceptable_stale: 10,
            max_loops: 1000,
        }
    }
}

/// Counters of what expiry did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpireStats {
    /// Keys deleted because a command touched them after their TTL.
    pub lazy: u64,
    /// Keys deleted by the active expire cycle.
    pub active: u64,
    /// Active expire cycles run.
    pub cycles: u64,
    /// Keys sampled by the active cycle.
    pub sampled: u64,
}

/// A stored value.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    Str(Vec<u8>),
    List(VecDeque<Vec<u8>>),
    Hash(Vec<(Vec<u8>, Vec<u8>)>),
    ZSet(ZSet),
    Stream(Box<streams::Stream>),
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Hash(_) => "hash",
            Value::ZSet(_) => "zset",
            Value::Stream(_) => "stream",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    value: Value,
    /// Absolute unix ms, or -1 for no TTL.
    expire: i64,
    /// Index in `volatile` when `expire >= 0`.
    vpos: usize,
}

/// Which end of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Left,
    Right,
}

#[derive(Clone, Debug)]
enum BlockKind {
    Pop(End),
    Move { dst: Vec<u8>, from: End, to: End },
    Stream(streams::StreamWait),
}

#[derive(Clone, Debug)]
struct Blocked {
    keys: Vec<Vec<u8>>,
    kind: BlockKind,
    /// Absolute unix ms, or 0 for no timeout.
    deadline: i64,
}

/// FxHash: fast, and fixed (no per-process random seed) — harmless since no reply ever
/// depends on a map's iteration order.
type Fixed = rustc_hash::FxBuildHasher;

pub(crate) const WRONGTYPE: &str =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
pub(crate) const SYNTAX: &str = "ERR syntax error";
pub(crate) const NOT_INT: &str = "ERR value is not an integer or out of range";
pub(crate) const OVERFLOW: &str = "ERR increment or decrement would overflow";

pub(crate) fn wrongtype() -> Reply {
    Reply::err(WRONGTYPE)
}

/// The in-memory Redis. See the module documentation.
#[derive(Clone, Debug)]
pub struct SimRedis {
    now: u64,
    next_cron: u64,
    keys: HashMap<Vec<u8>, Entry, Fixed>,
    volatile: Vec<Vec<u8>>,
    rng: Mulberry32,
    expire_cfg: ExpireConfig,
    stats: ExpireStats,
    blocked: BTreeMap<ClientId, Blocked>,
    waiting: BTreeMap<Vec<u8>, VecDeque<ClientId>>,
    timeouts: BTreeSet<(i64, ClientId)>,
    ready: VecDeque<Vec<u8>>,
    woken: Vec<RawWoken>,
    pubsub: pubsub::PubSub,
}

type Handler = fn(&mut SimRedis, &[&[u8]]) -> Reply;
type BlockHandler = fn(&mut SimRedis, &[&[u8]], Option<ClientId>) -> Exec;
type RawHandler = fn(&mut SimRedis, &[&[u8]]) -> RawReply;
type RawBlockHandler = fn(&mut SimRedis, &[&[u8]], Option<ClientId>) -> RawExec;
type ClientHandler = fn(&mut SimRedis, &[&[u8]], ClientId) -> Reply;

enum Cmd {
    Plain(Handler),
    Block(BlockHandler),
    /// Answers a compact reply (XADD).
    Raw(RawHandler),
    /// Blocks or answers a compact reply (XREAD, XREADGROUP).
    RawBlock(RawBlockHandler),
    /// Needs to know the client (pub/sub); [`SimRedis::call`] runs it as client 0.
    Client(ClientHandler),
}

impl SimRedis {
    /// An empty server at virtual time 0; `seed` drives the active expire sampling.
    pub fn new(seed: u32) -> Self {
        Self::with_config(seed, ExpireConfig::default())
    }

    /// An empty server with explicit active-expiry settings.
    pub fn with_config(seed: u32, expire_cfg: ExpireConfig) -> Self {
        Self {
            now: 0,
            next_cron: Self::period(&expire_cfg),
            keys: HashMap::default(),
            volatile: Vec::new(),
            rng: Mulberry32::new(seed),
            expire_cfg,
            stats: ExpireStats::default(),
            blocked: BTreeMap::new(),
            waiting: BTreeMap::new(),
            timeouts: BTreeSet::new(),
            ready: VecDeque::new(),
            woken: Vec::new(),
            pubsub: pubsub::PubSub::default(),
        }
    }

    fn period(cfg: &ExpireConfig) -> u64 {
        if cfg.hz == 0 {
            u64::MAX
        } else {
            (1000 / u64::from(cfg.hz)).max(1)
        }
    }

    /// Virtual time in ms since the start.
    pub fn now_ms(&self) -> u64 {
        self.now
    }

    /// Redis' `mstime()`: unix ms.
    pub(crate) fn mstime(&self) -> i64 {
        EPOCH_MS + self.now as i64
    }

    /// What expiry has done so far.
    pub fn expire_stats(&self) -> ExpireStats {
        self.stats
    }

    /// Keys stored, counting expired keys not yet reclaimed (what DBSIZE says).
    pub fn dbsize(&self) -> usize {
        self.keys.len()
    }

    /// Keys with a TTL stored (expired or not).
    pub fn volatile_len(&self) -> usize {
        self.volatile.len()
    }

    /// Moves the clock forward by `ms`, running the active expire cycles and blocked-client
    /// timeouts that fall due on the way, in time order.
    pub fn advance(&mut self, ms: u64) {
        self.advance_to(self.now.saturating_add(ms));
    }

    /// Moves the clock to `t` (never backwards); see [`SimRedis::advance`].
    pub fn advance_to(&mut self, t: u64) {
        loop {
            let timeout = self
                .timeouts
                .first()
                .map(|&(d, _)| (d - EPOCH_MS).max(0) as u64);
            let next = timeout.unwrap_or(u64::MAX).min(self.next_cron);
            if next > t {
                break;
            }
            self.now = self.now.max(next);
            if timeout.is_some_and(|d| d <= self.next_cron) {
                let (_, client) = self.timeouts.pop_first().expect("peeked");
                self.unblock(client);
                self.wake(client, RawReply::Tree(Reply::Nil));
            } else {
                self.active_expire_cycle();
                self.next_cron = self
                    .next_cron
                    .saturating_add(Self::period(&self.expire_cfg));
            }
        }
        self.now = self.now.max(t);
    }

    /// When the next blocked client times out (virtual ms), if any does.
    pub fn next_timeout_ms(&self) -> Option<u64> {
        self.timeouts
            .first()
            .map(|&(d, _)| (d - EPOCH_MS).max(0) as u64)
    }

    /// Whether `client` is blocked.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.blocked.contains_key(&client)
    }

    /// Replies to blocked clients produced since the last call, in the order they happened.
    pub fn take_woken(&mut self) -> Vec<Woken> {
        std::mem::take(&mut self.woken)
            .into_iter()
            .map(RawWoken::into_woken)
            .collect()
    }

    /// [`SimRedis::take_woken`] with the replies not yet rendered.
    pub fn take_woken_raw(&mut self) -> Vec<RawWoken> {
        std::mem::take(&mut self.woken)
    }

    fn wake(&mut self, client: ClientId, reply: RawReply) {
        self.woken.push(RawWoken {
            client,
            reply,
            at_ms: self.now,
        });
    }

    /// Runs one command for a client that may not block (like a Lua script or MULTI): a
    /// blocking command with nothing to pop answers nil at once.
    pub fn call(&mut self, args: &[&[u8]]) -> Reply {
        match self.dispatch(args, None) {
            RawExec::Reply(r) => r.into_reply(),
            RawExec::Blocked => Reply::Nil,
        }
    }

    /// [`SimRedis::call`] for a command given as text words, e.g. `&["SET", "k", "v"]`.
    pub fn cmd(&mut self, args: &[&str]) -> Reply {
        with_words(args, |a| self.call(a))
    }

    /// Runs one command for `client`; a blocking command may block it.
    pub fn execute<A: AsRef<[u8]>>(&mut self, client: ClientId, args: &[A]) -> Exec {
        self.execute_raw(client, args).into_exec()
    }

    /// [`SimRedis::execute`] with the reply not yet rendered as a tree (see [`RawReply`]).
    pub fn execute_raw<A: AsRef<[u8]>>(&mut self, client: ClientId, args: &[A]) -> RawExec {
        with_words(args, |a| self.dispatch(a, Some(client)))
    }

    /// Forgets a client (it disconnected): it stops waiting and loses its subscriptions
    /// and any message it had not read.
    pub fn disconnect(&mut self, client: ClientId) {
        self.unblock(client);
        self.pubsub.forget(client);
    }

    fn dispatch(&mut self, a: &[&[u8]], client: Option<ClientId>) -> RawExec {
        let tree = |r: Reply| RawExec::Reply(RawReply::Tree(r));
        let Some(name) = a.first() else {
            return tree(Reply::err("ERR empty command"));
        };
        let mut buf = [0u8; 20];
        let lower: &[u8] = if name.len() <= buf.len() {
            for (d, s) in buf.iter_mut().zip(name.iter()) {
                *d = s.to_ascii_lowercase();
            }
            &buf[..name.len()]
        } else {
            b""
        };
        let (arity, cmd): (i32, Cmd) = match lower {
            b"get" => (2, Cmd::Plain(Self::get)),
            b"set" => (-3, Cmd::Plain(Self::set)),
            b"del" => (-2, Cmd::Plain(Self::del)),
            b"exists" => (-2, Cmd::Plain(Self::exists)),
            b"incr" => (2, Cmd::Plain(Self::incr)),
            b"incrby" => (3, Cmd::Plain(Self::incrby)),
            b"mget" => (-2, Cmd::Plain(Self::mget)),
            b"expire" => (-3, Cmd::Plain(Self::expire)),
            b"pexpire" => (-3, Cmd::Plain(Self::pexpire)),
            b"ttl" => (2, Cmd::Plain(Self::ttl)),
            b"pttl" => (2, Cmd::Plain(Self::pttl)),
            b"persist" => (2, Cmd::Plain(Self::persist)),
            b"type" => (2, Cmd::Plain(Self::type_cmd)),
            b"ping" => (-1, Cmd::Plain(Self::ping)),
            b"echo" => (2, Cmd::Plain(Self::echo)),
            b"dbsize" => (1, Cmd::Plain(Self::dbsize_cmd)),
            b"flushall" => (-1, Cmd::Plain(Self::flushall)),
            b"lpush" => (-3, Cmd::Plain(Self::lpush)),
            b"rpush" => (-3, Cmd::Plain(Self::rpush)),
            b"lpop" => (-2, Cmd::Plain(Self::lpop)),
            b"rpop" => (-2, Cmd::Plain(Self::rpop)),
            b"lrange" => (4, Cmd::Plain(Self::lrange)),
            b"llen" => (2, Cmd::Plain(Self::llen)),
            b"lrem" => (4, Cmd::Plain(Self::lrem)),
            b"lmove" => (5, Cmd::Plain(Self::lmove)),
            b"blmove" => (6, Cmd::Block(Self::blmove)),
            b"brpop" => (-3, Cmd::Block(Self::brpop)),
            b"brpoplpush" => (4, Cmd::Block(Self::brpoplpush)),
            b"hset" => (-4, Cmd::Plain(Self::hset)),
            b"hget" => (3, Cmd::Plain(Self::hget)),
            b"hgetall" => (2, Cmd::Plain(Self::hgetall)),
            b"hdel" => (-3, Cmd::Plain(Self::hdel)),
            b"hlen" => (2, Cmd::Plain(Self::hlen)),
            b"hincrby" => (4, Cmd::Plain(Self::hincrby)),
            b"zadd" => (-4, Cmd::Plain(Self::zadd)),
            b"zcard" => (2, Cmd::Plain(Self::zcard)),
            b"zrange" => (-4, Cmd::Plain(Self::zrange)),
            b"zrangebyscore" => (-4, Cmd::Plain(Self::zrangebyscore)),
            b"zremrangebyscore" => (4, Cmd::Plain(Self::zremrangebyscore)),
            b"zscore" => (3, Cmd::Plain(Self::zscore)),
            b"zrem" => (-3, Cmd::Plain(Self::zrem)),
            b"zincrby" => (4, Cmd::Plain(Self::zincrby)),
            b"evalsha" => (-3, Cmd::Plain(Self::evalsha)),
            b"eval" => (-3, Cmd::Plain(Self::eval)),
            b"script" => (-2, Cmd::Plain(Self::script)),
            b"xadd" => (-5, Cmd::Raw(Self::xadd)),
            b"xlen" => (2, Cmd::Plain(Self::xlen)),
            b"xrange" => (-4, Cmd::Plain(Self::xrange)),
            b"xrevrange" => (-4, Cmd::Plain(Self::xrevrange)),
            b"xtrim" => (-4, Cmd::Plain(Self::xtrim)),
            b"xdel" => (-3, Cmd::Plain(Self::xdel)),
            b"xgroup" => (-2, Cmd::Plain(Self::xgroup)),
            b"xack" => (-4, Cmd::Plain(Self::xack)),
            b"xpending" => (-3, Cmd::Plain(Self::xpending)),
            b"xclaim" => (-6, Cmd::Plain(Self::xclaim)),
            b"xautoclaim" => (-6, Cmd::Plain(Self::xautoclaim)),
            b"xread" => (-4, Cmd::RawBlock(Self::xread)),
            b"xreadgroup" => (-7, Cmd::RawBlock(Self::xreadgroup)),
            b"publish" => (3, Cmd::Plain(Self::publish)),
            b"subscribe" => (-2, Cmd::Client(Self::subscribe)),
            b"unsubscribe" => (-1, Cmd::Client(Self::unsubscribe)),
            b"psubscribe" => (-2, Cmd::Client(Self::psubscribe)),
            b"punsubscribe" => (-1, Cmd::Client(Self::punsubscribe)),
            b"spublish" => (3, Cmd::Plain(Self::spublish)),
            b"ssubscribe" => (-2, Cmd::Client(Self::ssubscribe)),
            b"sunsubscribe" => (-1, Cmd::Client(Self::sunsubscribe)),
            _ => return tree(unknown_command(a)),
        };
        let n = a.len() as i32;
        if (arity > 0 && n != arity) || n < -arity {
            return tree(arity_error(lower));
        }
        if let Some(c) = client {
            if self.pubsub.subscribed(c) {
                match lower {
                    b"subscribe" | b"unsubscribe" | b"psubscribe" | b"punsubscribe"
                    | b"ssubscribe" | b"sunsubscribe" => {}
                    b"ping" => {
                        let msg = a.get(1).map_or(Vec::new(), |m| m.to_vec());
                        return tree(Reply::Array(vec![Reply::bulk("pong"), Reply::Bulk(msg)]));
                    }
                    _ => {
                        return tree(Reply::Error(format!(
                            "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
                            String::from_utf8_lossy(lower)
                        )))
                    }
                }
            }
        }
        let out = match cmd {
            Cmd::Plain(f) => tree(f(self, a)),
            Cmd::Block(f) => match f(self, a, client) {
                Exec::Reply(r) => tree(r),
                Exec::Blocked => RawExec::Blocked,
            },
            Cmd::Raw(f) => RawExec::Reply(f(self, a)),
            Cmd::RawBlock(f) => f(self, a, client),
            Cmd::Client(f) => tree(f(self, a, client.unwrap_or(0))),
        };
        if !self.ready.is_empty() {
            self.serve_ready();
        }
        out
    }

    // ----- keyspace -----

    /// The live entry of `key`, deleting it first if its TTL has passed (lazy expiry).
    pub(crate) fn lookup(&mut self, key: &[u8]) -> Option<&mut Entry> {
        if self.volatile.is_empty() {
            return self.keys.get_mut(key); // no key has a TTL: one hash lookup
        }
        let expired = match self.keys.get(key) {
            None => return None,
            Some(e) => e.expire >= 0 && self.mstime() > e.expire,
        };
        if expired {
            self.delete(key);
            self.stats.lazy += 1;
            return None;
        }
        self.keys.get_mut(key)
    }

    /// Deletes a key (and its TTL); whether it was there.
    pub(crate) fn delete(&mut self, key: &[u8]) -> bool {
        match self.keys.remove(key) {
            None => false,
            Some(e) => {
                if e.expire >= 0 {
                    self.unvolatile(e.vpos);
                }
                true
            }
        }
    }

    fn unvolatile(&mut self, pos: usize) {
        self.volatile.swap_remove(pos);
        if let Some(moved) = self.volatile.get(pos) {
            if let Some(e) = self.keys.get_mut(moved.as_slice()) {
                e.vpos = pos;
            }
        }
    }

    /// Stores `value` at `key`. `keep_ttl`: keep the key's TTL if it had one (otherwise a
    /// write of a new value clears it, as SET does).
    pub(crate) fn store(&mut self, key: &[u8], value: Value, keep_ttl: bool) {
        if let Some(e) = self.keys.get_mut(key) {
            e.value = value;
            if !keep_ttl && e.expire >= 0 {
                e.expire = -1;
                let pos = e.vpos;
                self.unvolatile(pos);
            }
        } else {
            self.keys.insert(
                key.to_vec(),
                Entry {
                    value,
                    expire: -1,
                    vpos: 0,
                },
            );
        }
    }

    /// Stores a string value, reusing the old string's buffer when there is one (the SET
    /// fast path). A key found logically expired counts as lazily expired, as the lookup
    /// Redis does first would have deleted it.
    pub(crate) fn store_bytes(&mut self, key: &[u8], v: &[u8], keep_ttl: bool) {
        let now = self.mstime();
        if let Some(e) = self.keys.get_mut(key) {
            match &mut e.value {
                Value::Str(s) => {
                    s.clear();
                    s.extend_from_slice(v);
                }
                other => *other = Value::Str(v.to_vec()),
            }
            if e.expire >= 0 && (!keep_ttl || now > e.expire) {
                if now > e.expire {
                    self.stats.lazy += 1;
                }
                e.expire = -1;
                let pos = e.vpos;
                self.unvolatile(pos);
            }
        } else {
            self.keys.insert(
                key.to_vec(),
                Entry {
                    value: Value::Str(v.to_vec()),
                    expire: -1,
                    vpos: 0,
                },
            );
        }
    }

    /// Sets the absolute expiry (unix ms) of an existing key.
    pub(crate) fn set_expire(&mut self, key: &[u8], when: i64) {
        let len = self.volatile.len();
        if let Some(e) = self.keys.get_mut(key) {
            if e.expire < 0 {
                e.vpos = len;
                self.volatile.push(key.to_vec());
            }
            e.expire = when;
        }
    }

    /// Removes the TTL of an existing key; whether it had one.
    pub(crate) fn remove_expire(&mut self, key: &[u8]) -> bool {
        if let Some(e) = self.keys.get_mut(key) {
            if e.expire >= 0 {
                e.expire = -1;
                let pos = e.vpos;
                self.unvolatile(pos);
                return true;
            }
        }
        false
    }

    fn active_expire_cycle(&mut self) {
        self.stats.cycles += 1;
        let cfg = self.expire_cfg;
        let now = self.mstime();
        for _ in 0..cfg.max_loops {
            if self.volatile.is_empty() {
                break;
            }
            let n = (self.volatile.len() as u32).min(cfg.keys_per_loop);
            let (mut sampled, mut expired) = (0u32, 0u32);
            for _ in 0..n {
                if self.volatile.is_empty() {
                    break;
                }
                let i = self.rng.below(self.volatile.len() as u32) as usize;
                sampled += 1;
                let key = &self.volatile[i];
                let when = self.keys.get(key.as_slice()).map_or(-1, |e| e.expire);
                if when >= 0 && now > when {
                    let key = key.clone();
                    self.delete(&key);
                    expired += 1;
                }
            }
            self.stats.sampled += u64::from(sampled);
            self.stats.active += u64::from(expired);
            if sampled == 0 || expired * 100 / sampled <= cfg.acceptable_stale {
                break;
            }
        }
    }

    /// Every live key in byte order with its type and remaining TTL in ms (-1: none), for
    /// keyspace views. Does not expire anything.
    pub fn snapshot(&self) -> Vec<(Vec<u8>, &'static str, i64)> {
        let now = self.mstime();
        let mut v: Vec<_> = self
            .keys
            .iter()
            .filter(|(_, e)| e.expire < 0 || now <= e.expire)
            .map(|(k, e)| {
                let ttl = if e.expire < 0 { -1 } else { e.expire - now };
                (k.clone(), e.value.type_name(), ttl)
            })
            .collect();
        v.sort();
        v
    }

    // ----- blocking -----

    fn block(&mut self, client: ClientId, keys: Vec<Vec<u8>>, kind: BlockKind, deadline: i64) {
        self.unblock(client);
        for k in &keys {
            let q = self.waiting.entry(k.clone()).or_default();
            if !q.contains(&client) {
                q.push_back(client);
            }
        }
        if deadline > 0 {
            self.timeouts.insert((deadline, client));
        }
        self.blocked.insert(
            client,
            Blocked {
                keys,
                kind,
                deadline,
            },
        );
    }

    fn unblock(&mut self, client: ClientId) -> Option<Blocked> {
        let b = self.blocked.remove(&client)?;
        for k in &b.keys {
            if let Some(q) = self.waiting.get_mut(k) {
                q.retain(|&c| c != client);
                if q.is_empty() {
                    self.waiting.remove(k);
                }
            }
        }
        if b.deadline > 0 {
            self.timeouts.remove(&(b.deadline, client));
        }
        Some(b)
    }

    /// Marks a key that received elements, so blocked clients are served after the command.
    pub(crate) fn signal_ready(&mut self, key: &[u8]) {
        if !self.waiting.is_empty() && self.waiting.contains_key(key) {
            self.ready.push_back(key.to_vec());
        }
    }

    /// The clients blocked on `key`, in the order they blocked.
    pub(crate) fn waiters(&self, key: &[u8]) -> Vec<ClientId> {
        self.waiting
            .get(key)
            .map(|q| q.iter().copied().collect())
            .unwrap_or_default()
    }

    /// `handleClientsBlockedOnKeys`: serve clients blocked on keys that got elements, each
    /// key's clients in the order they blocked, until the list runs out.
    fn serve_ready(&mut self) {
        while let Some(key) = self.ready.pop_front() {
            if matches!(
                self.lookup(&key),
                Some(Entry {
                    value: Value::Stream(_),
                    ..
                })
            ) {
                self.serve_stream_waiters(&key);
                continue;
            }
            // Clients blocked on a list, in the order they blocked (stream readers skipped).
            for client in self.waiters(&key) {
                let has = matches!(self.lookup(&key), Some(Entry { value: Value::List(l), .. }) if !l.is_empty());
                if !has {
                    break;
                }
                if matches!(
                    self.blocked.get(&client),
                    Some(Blocked {
                        kind: BlockKind::Stream(_),
                        ..
                    }) | None
                ) {
                    continue;
                }
                let b = self.unblock(client).expect("a waiting client is blocked");
                let reply = match b.kind {
                    BlockKind::Pop(from) => {
                        let v = self.pop_one(&key, from).expect("non-empty list");
                        Reply::Array(vec![Reply::Bulk(key.clone()), Reply::Bulk(v)])
                    }
                    BlockKind::Move { dst, from, to } => self.lmove_generic(&key, &dst, from, to),
                    BlockKind::Stream(_) => unreachable!("skipped above"),
                };
                self.wake(client, RawReply::Tree(reply));
            }
        }
    }

    /// `getTimeoutFromObjectOrReply` for seconds: the absolute deadline, 0 for none.
    pub(crate) fn parse_timeout(&self, s: &[u8]) -> Result<i64, Reply> {
        let f = num::parse_f64(s, false)
            .filter(|f| f.is_finite())
            .ok_or_else(|| Reply::err("ERR timeout is not a float or out of range"))?;
        let t = (f * 1000.0) as i64;
        if t < 0 {
            return Err(Reply::err("ERR timeout is negative"));
        }
        if t == 0 {
            return Ok(0);
        }
        t.checked_add(self.mstime())
            .ok_or_else(|| Reply::err("ERR timeout is out of range"))
    }

    // ----- small server commands -----

    fn ping(&mut self, a: &[&[u8]]) -> Reply {
        match a.len() {
            1 => Reply::Status("PONG".into()),
            2 => Reply::Bulk(a[1].to_vec()),
            _ => arity_error(b"ping"),
        }
    }

    fn echo(&mut self, a: &[&[u8]]) -> Reply {
        Reply::Bulk(a[1].to_vec())
    }

    fn dbsize_cmd(&mut self, _a: &[&[u8]]) -> Reply {
        Reply::Integer(self.keys.len() as i64)
    }

    fn flushall(&mut self, a: &[&[u8]]) -> Reply {
        match a.get(1) {
            None => {}
            Some(m) if m.eq_ignore_ascii_case(b"sync") || m.eq_ignore_ascii_case(b"async") => {}
            Some(_) => return Reply::err(SYNTAX),
        }
        if a.len() > 2 {
            return Reply::err(SYNTAX);
        }
        self.keys.clear();
        self.volatile.clear();
        Reply::ok()
    }
}

/// Runs `f` on the words of `args` as byte slices, kept on the stack when there are at most
/// 16 (every command the labs send but a long XACK), so a command costs no allocation for
/// its argument vector.
fn with_words<A: AsRef<[u8]>, R>(args: &[A], f: impl FnOnce(&[&[u8]]) -> R) -> R {
    const N: usize = 16;
    if args.len() <= N {
        let mut words: [&[u8]; N] = [&[]; N];
        for (w, a) in words.iter_mut().zip(args) {
            *w = a.as_ref();
        }
        f(&words[..args.len()])
    } else {
        let words: Vec<&[u8]> = args.iter().map(AsRef::as_ref).collect();
        f(&words)
    }
}

/// `ERR wrong number of arguments for '<cmd>' command`.
pub(crate) fn arity_error(lower_name: &[u8]) -> Reply {
    Reply::Error(format!(
        "ERR wrong number of arguments for '{}' command",
        String::from_utf8_lossy(lower_name)
    ))
}

/// Redis 7.0's unknown-command error, quoting up to 128 characters of arguments.
fn unknown_command(a: &[&[u8]]) -> Reply {
    let mut args = String::new();
    for x in &a[1..] {
        if args.len() >= 128 {
            break;
        }
        let room = 128 - args.len();
        let s = String::from_utf8_lossy(x);
        let s: String = s.chars().take(room).collect();
        args.push_str(&format!("'{s}' "));
    }
    let name: String = String::from_utf8_lossy(a[0]).chars().take(128).collect();
    let msg = format!("ERR unknown command '{name}', with args beginning with: {args}");
    Reply::Error(msg.replace(['\r', '\n'], " "))
}

/// Parses `LEFT` / `RIGHT`.
pub(crate) fn parse_end(s: &[u8]) -> Option<End> {
    if s.eq_ignore_ascii_case(b"left") {
        Some(End::Left)
    } else if s.eq_ignore_ascii_case(b"right") {
        Some(End::Right)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_streams;
