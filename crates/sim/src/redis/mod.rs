//! SimRedis: an in-memory model of the Redis 7.0 commands the labs use, answering in virtual
//! time on a clock the simulation owns.
//!
//! * strings (`strings`): GET, SET (EX/PX/EXAT/PXAT/NX/XX/GET/KEEPTTL), SETNX, SETEX,
//!   PSETEX, GETSET, GETDEL, GETEX, MGET, MSET, MSETNX, INCR, INCRBY, DECR, DECRBY,
//!   INCRBYFLOAT, APPEND, STRLEN, GETRANGE, SETRANGE;
//! * keys (`keys`, `scan`): DEL, UNLINK, EXISTS, TYPE, RENAME, RENAMENX, EXPIRE,
//!   PEXPIRE, EXPIREAT, PEXPIREAT (NX/XX/GT/LT), EXPIRETIME, PEXPIRETIME, TTL, PTTL, PERSIST,
//!   OBJECT ENCODING, SCAN / HSCAN / SSCAN / ZSCAN (MATCH, COUNT, TYPE), DBSIZE, FLUSHALL;
//! * lists (`lists`): LPUSH, RPUSH, LPOP, RPOP (with count), LRANGE, LLEN, LREM, LINDEX,
//!   LSET, LTRIM, LINSERT, LPOS, LMOVE, RPOPLPUSH and the blocking BLMOVE, BRPOP, BLPOP,
//!   BRPOPLPUSH, which block in virtual time and are served in the order the clients
//!   blocked, as `blocked.c` does;
//! * hashes (`hashes`), sets (`sets`), sorted sets (`zsets`), HyperLogLog ([`hll`],
//!   a port of `hyperloglog.c`: PFCOUNT and the raw string are Redis' own), streams
//!   ([`streams`]), pub/sub ([`pubsub`], shard channels' SPUBLISH / SSUBSCRIBE /
//!   SUNSUBSCRIBE included);
//! * transactions (`tx`): MULTI, EXEC, DISCARD, WATCH, UNWATCH;
//! * server (`info`, [`evict`]): INFO (keyspace, stats, memory, replication), CONFIG
//!   GET/SET of `maxmemory`, `maxmemory-policy`, `maxmemory-samples`, `hz` and
//!   `hll-sparse-max-bytes`, DEBUG SET-ACTIVE-EXPIRE and RELOAD, PING, ECHO;
//! * EVALSHA / EVAL / SCRIPT LOAD / EXISTS / FLUSH of the named scripts in [`scripts`] (Lua
//!   source shown to the student, semantics in Rust, real SHA1s; a fresh server has none
//!   loaded, as a fresh Redis has none cached);
//! * a replica ([`replica`]) following a primary in virtual time.
//!
//! Replies are RESP2-typed [`Reply`] values and every error is worded as Redis 7.0 words it
//! (checked against `redis-server` 7.0.15 by `tests/redis_differential.rs`). Keys expire
//! lazily on access (a key is alive while `now <= expire time`, as `keyIsExpired` says) and
//! by the active expire cycle of `expire.c` (`expire`): `hz` times per virtual second it
//! samples up to 20 keys with a TTL, deletes the expired ones and repeats while more than 10%
//! of a sample was expired, up to a loop limit standing for the cycle's 25%-of-a-tick time
//! budget. Redis 6+ visits the expires table's hash buckets with a cursor, which amounts to
//! an arbitrary order; here each sampled key is drawn with the owned, seeded RNG, so runs
//! are reproducible. The "fast" cycle Redis also runs before sleeping is not modelled (it
//! only speeds reclaiming up under load; the keys it reclaims are already logically gone).
//! Virtual time in which no key can expire and no client times out is crossed in one step,
//! with exactly the RNG draws and counters the cycles would have made one by one.
//!
//! Hand-written because it is the thing being taught: no crate models Redis in virtual time
//! deterministically (mini-redis and friends are real servers on tokio's clock). Keys live
//! in a `HashMap` with a fixed FxHash hasher that is never iterated for a reply without a
//! defined order; keys with a TTL are also kept in a vector (swap-remove, O(1)) so sampling
//! is seeded and deterministic, and in a lazily cleaned min-heap of expiry times so idle
//! time can be skipped.

pub mod args;
mod blocking;
pub mod cli;
mod commands;
mod db;
pub mod evict;
mod expire;
mod hashes;
pub mod hll;
mod info;
mod keys;
pub mod keyspec;
mod ld;
mod lists;
pub mod num;
pub mod pubsub;
pub mod rdb;
pub mod replica;
mod reply;
mod scan;
pub mod scripts;
mod sets;
pub mod streams;
mod strings;
mod table;
mod tx;
mod zsets;

pub use keyspec::{command_info, key_positions, CommandInfo};
pub use rdb::{Loaded, Snapshot};
pub use replica::{Node, Replicated};
pub use reply::Reply;
pub use scripts::{Script, SCRIPTS};
pub use streams::{ReadEntry, StreamId, StreamRead};

use crate::rng::Mulberry32;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use zsets::ZSet;

/// Who sent a command: blocked clients are remembered by this id.
pub type ClientId = u64;

/// The unix time (ms) virtual time 0 stands for by default, so overflow checks on huge TTLs
/// behave as on a real server today (2023-11-14); [`SimRedis::set_epoch_ms`] moves it.
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
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Str(Vec<u8>),
    List(VecDeque<Vec<u8>>),
    Hash(Box<hashes::Hash>),
    Set(Box<sets::Set>),
    ZSet(Box<ZSet>),
    Stream(Box<streams::Stream>),
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Hash(_) => "hash",
            Value::Set(_) => "set",
            Value::ZSet(_) => "zset",
            Value::Stream(_) => "stream",
        }
    }
}

/// How a string value is encoded beyond what its bytes say (`object.c`): a string written
/// by SET is `int` when it reads as an integer, else `embstr` up to 44 bytes, else `raw`;
/// APPEND, SETRANGE and the HyperLogLog commands leave it `raw`; INCRBYFLOAT's result is
/// never `int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StrEnc {
    Auto,
    Raw,
    NotInt,
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) value: Value,
    /// Absolute unix ms, or -1 for no TTL.
    pub(crate) expire: i64,
    /// Index in `volatile` when `expire >= 0`.
    vpos: usize,
    /// Index in the eviction index of all keys, when it is kept ([`evict`]).
    apos: u32,
    /// Redis' `robj.lru`: the LRU clock (s) of the last access, or the LFU minute and
    /// counter (`minute << 8 | counter`) under an LFU policy.
    pub(crate) lru: u32,
    pub(crate) enc: StrEnc,
    /// Bytes this key was last accounted for ([`evict`]), while memory is tracked.
    mem: u32,
}

/// Which end of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Left,
    Right,
}

/// FxHash: fast, and fixed (no per-process random seed), so runs are reproducible.
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
    epoch_ms: i64,
    keys: HashMap<Vec<u8>, Entry, Fixed>,
    volatile: Vec<Vec<u8>>,
    /// The expiry time of `volatile[i]`, so the expire cycle checks a sample without a
    /// hash lookup.
    vexp: Vec<i64>,
    /// Active expiry: the cycle's clock, RNG, index of expiry times, counters.
    exp: expire::Expiry,
    /// SPOP, SRANDMEMBER, eviction sampling and LFU counters draw from this one, so they
    /// never move the expire cycle's draws.
    rand: Mulberry32,
    blocked: BTreeMap<ClientId, blocking::Blocked>,
    waiting: BTreeMap<Vec<u8>, VecDeque<ClientId>>,
    timeouts: BTreeSet<(i64, ClientId)>,
    ready: VecDeque<Vec<u8>>,
    woken: Vec<RawWoken>,
    pubsub: pubsub::PubSub,
    /// Which of [`SCRIPTS`] `SCRIPT LOAD` (or EVAL) has cached, by index.
    scripts_loaded: u32,
    /// Nesting of commands run by a script or EXEC (0: a client's own command).
    depth: u32,
    /// The client whose command is running (0 for [`SimRedis::call`]).
    cur_client: ClientId,
    /// Writes a script has made so far (`SCRIPT_WRITE_DIRTY`).
    depth_wrote: u32,
    tx: tx::Transactions,
    /// Whether writes must be recorded ([`SimRedis::dirty`]): a replica is attached or
    /// memory is tracked.
    track: bool,
    dirty_keys: Vec<Vec<u8>>,
    mem: evict::Memory,
    repl: replica::ReplState,
    hll_sparse_max: usize,
    stat_evicted: u64,
}

impl SimRedis {
    /// An empty server at virtual time 0, as a freshly started `redis-server` (no script
    /// cached); `seed` drives the active expire sampling and every other random choice.
    pub fn new(seed: u32) -> Self {
        Self::with_config(seed, ExpireConfig::default())
    }

    /// An empty server with explicit active-expiry settings.
    pub fn with_config(seed: u32, expire_cfg: ExpireConfig) -> Self {
        Self {
            now: 0,
            epoch_ms: EPOCH_MS,
            keys: HashMap::default(),
            volatile: Vec::new(),
            vexp: Vec::new(),
            exp: expire::Expiry::new(seed, expire_cfg),
            rand: Mulberry32::new(seed ^ 0x5EED_CAFE),
            blocked: BTreeMap::new(),
            waiting: BTreeMap::new(),
            timeouts: BTreeSet::new(),
            ready: VecDeque::new(),
            woken: Vec::new(),
            pubsub: pubsub::PubSub::default(),
            scripts_loaded: 0,
            depth: 0,
            cur_client: 0,
            depth_wrote: 0,
            tx: tx::Transactions::default(),
            track: false,
            dirty_keys: Vec::new(),
            mem: evict::Memory::default(),
            repl: replica::ReplState::default(),
            hll_sparse_max: 3000,
            stat_evicted: 0,
        }
    }

    /// Caches every named script of [`SCRIPTS`], as the proxy does on a real Redis when it
    /// starts (`SCRIPT LOAD` of each): EVALSHA of their SHA1s then runs them.
    pub fn load_named_scripts(&mut self) {
        self.scripts_loaded = (1u32 << SCRIPTS.len()) - 1;
    }

    /// [`SimRedis::load_named_scripts`], for building a server in one expression.
    #[must_use]
    pub fn with_named_scripts(mut self) -> Self {
        self.load_named_scripts();
        self
    }

    /// Sets the unix time (ms) that virtual time 0 stands for (default [`EPOCH_MS`]), so
    /// `EXAT`/`PXAT` and `EXPIREAT` of real dates behave as they would today. Call it before
    /// the first command.
    pub fn set_epoch_ms(&mut self, unix_ms: i64) {
        self.epoch_ms = unix_ms - self.now as i64;
        self.mem.clock = expire::lru_clock(self.mstime());
    }

    /// Virtual time in ms since the start.
    pub fn now_ms(&self) -> u64 {
        self.now
    }

    /// Redis' `mstime()`: unix ms.
    pub(crate) fn mstime(&self) -> i64 {
        self.epoch_ms + self.now as i64
    }

    /// The node's wall clock jumps by `ms` (forward when positive), as an NTP step or an
    /// operator's `date` would move it: expiry compares keys' absolute unix deadlines with
    /// this clock, so after a forward jump a key whose deadline the clock passed is expired
    /// (read as nil at once, reclaimed lazily or by the active cycle). Virtual time — the
    /// order of events — does not move.
    pub fn jump_clock(&mut self, ms: i64) {
        let t = self.mstime() + ms;
        self.set_epoch_ms(t);
    }

    /// A string key's value and its deadline in virtual ms (`None`: no TTL), if it is alive
    /// now — a look at the keyspace, not a command (nothing is reclaimed, no stats move).
    pub fn peek_string(&self, key: &[u8]) -> Option<(&[u8], Option<u64>)> {
        let e = self.keys.get(key)?;
        let Value::Str(v) = &e.value else {
            return None;
        };
        if e.expire >= 0 && self.mstime() > e.expire {
            return None;
        }
        let until = (e.expire >= 0).then(|| (e.expire - self.epoch_ms).max(0) as u64);
        Some((v, until))
    }

    /// What expiry has done so far.
    pub fn expire_stats(&self) -> ExpireStats {
        self.exp.stats
    }

    /// Keys stored, counting expired keys not yet reclaimed (what DBSIZE says).
    pub fn dbsize(&self) -> usize {
        self.keys.len()
    }

    /// Keys with a TTL stored (expired or not).
    pub fn volatile_len(&self) -> usize {
        self.volatile.len()
    }

    /// Keys stored past their TTL, not yet reclaimed (counted by DBSIZE and `INFO
    /// keyspace`, answered nil by every read). Does not expire anything.
    pub fn stale_len(&self) -> usize {
        let now = self.mstime();
        self.vexp.iter().filter(|&&when| now > when).count()
    }

    /// Whether `key` is stored and past its TTL (it reads as missing but still counts).
    /// Does not expire anything.
    pub fn is_stale(&self, key: &[u8]) -> bool {
        self.is_expired(key)
    }

    /// How long until `key`'s TTL runs out, ms; negative when it has (the key is stale, still
    /// stored). `None`: no such key, or no TTL.
    pub fn expires_in(&self, key: &[u8]) -> Option<i64> {
        self.keys
            .get(key)
            .filter(|e| e.expire >= 0)
            .map(|e| e.expire - self.mstime())
    }

    /// Runs one command for a client that may not block (like a Lua script or MULTI): a
    /// blocking command with nothing to pop answers nil at once. Commands that keep state
    /// per client (MULTI, WATCH, SUBSCRIBE) run as client 0.
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

    /// Forgets a client (it disconnected): it stops waiting, loses its subscriptions and
    /// any message it had not read, and its transaction and watched keys.
    pub fn disconnect(&mut self, client: ClientId) {
        self.unblock(client);
        self.pubsub.forget(client);
        self.discard_client(client);
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

/// Case-insensitive option word.
pub(crate) fn is(a: &[u8], word: &[u8]) -> bool {
    a.eq_ignore_ascii_case(word)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_streams;

#[cfg(test)]
mod tests_more;

#[cfg(test)]
mod tests_replica;
