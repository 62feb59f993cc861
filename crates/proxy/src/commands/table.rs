//! The allowlist: every command a session may send, its arity, where its keys are, what it
//! does to them and how it may block. Anything not here is refused.

/// Where a command's keys are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keys {
    /// No keys (PING).
    None,
    /// Argument 1 only.
    First,
    /// Arguments 1 and 2 (LMOVE, BLMOVE, BRPOPLPUSH).
    FirstTwo,
    /// Every argument (DEL, EXISTS, MGET).
    All,
    /// Every argument but the last, a timeout (BRPOP).
    AllButLast,
    /// Argument 2 (XGROUP CREATE key …).
    Second,
    /// The first half of what follows STREAMS (XREADGROUP).
    Streams,
    /// PUBLISH's channel: namespaced like a key, but no key (never tracked).
    Channel,
}

/// How a command may block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    No,
    /// The last argument is a timeout in seconds (BRPOP, BLMOVE, BRPOPLPUSH).
    LastArgSeconds,
    /// `BLOCK <ms>` among the options (XREADGROUP); without it the command does not block.
    OptionMs,
}

/// What a command does to its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Does {
    /// Reads; O(1) or O(log N), a small reply.
    Read,
    /// Reads and its reply or its work grows with the key's content (LRANGE, HGETALL, …).
    ReadAll,
    /// Writes without creating a key (DEL, LPOP, XACK, …); `true`: it walks or returns the
    /// key's content.
    Change(bool),
    /// Writes and may create its key(s): tracked, and a TTL from the moment it is written.
    Create,
}

/// One allowed command.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    /// Redis' arity: `n` exactly n words (name included), `-n` at least n.
    pub arity: i32,
    /// At most this many words (PING takes at most one argument); 0 = no extra bound.
    pub max_words: usize,
    pub keys: Keys,
    pub does: Does,
    pub block: Block,
}

pub(crate) const fn spec(name: &'static str, arity: i32, keys: Keys, does: Does) -> Spec {
    Spec {
        name,
        arity,
        max_words: 0,
        keys,
        does,
        block: Block::No,
    }
}

pub(crate) const fn blocking(
    name: &'static str,
    arity: i32,
    keys: Keys,
    does: Does,
    block: Block,
) -> Spec {
    Spec {
        name,
        arity,
        max_words: 0,
        keys,
        does,
        block,
    }
}

use Does::{Change, Create, Read, ReadAll};
use Keys::{All, AllButLast, Channel, First, FirstTwo, Second, Streams};

/// Exactly the commands the labs need. Anything else — EVAL/EVALSHA/SCRIPT/FUNCTION (Lua comes
/// only from the server's named scripts), KEYS, SCAN, RANDOMKEY, FLUSH*, INFO, CONFIG, CLIENT,
/// MONITOR, SELECT, DEBUG, MULTI/EXEC, (P)SUBSCRIBE, … — is refused by not being here.
pub const ALLOWED: &[Spec] = &[
    spec("GET", 2, First, ReadAll),
    spec("SET", -3, First, Create),
    spec("DEL", -2, All, Change(true)),
    spec("EXISTS", -2, All, Read),
    spec("INCR", 2, First, Create),
    spec("INCRBY", 3, First, Create),
    spec("MGET", -2, All, ReadAll),
    spec("EXPIRE", -3, First, Change(true)),
    spec("PEXPIRE", -3, First, Change(true)),
    spec("TTL", 2, First, Read),
    spec("PTTL", 2, First, Read),
    spec("PERSIST", 2, First, Change(false)),
    spec("TYPE", 2, First, Read),
    spec("LPUSH", -3, First, Create),
    spec("RPUSH", -3, First, Create),
    spec("LPOP", -2, First, Change(true)),
    spec("RPOP", -2, First, Change(true)),
    spec("LRANGE", 4, First, ReadAll),
    spec("LLEN", 2, First, Read),
    spec("LREM", 4, First, Change(true)),
    spec("LMOVE", 5, FirstTwo, Create),
    blocking("BLMOVE", 6, FirstTwo, Create, Block::LastArgSeconds),
    blocking("BRPOP", -3, AllButLast, Change(true), Block::LastArgSeconds),
    blocking("BRPOPLPUSH", 4, FirstTwo, Create, Block::LastArgSeconds),
    spec("HSET", -4, First, Create),
    spec("HGET", 3, First, ReadAll),
    spec("HGETALL", 2, First, ReadAll),
    spec("HDEL", -3, First, Change(false)),
    spec("HLEN", 2, First, Read),
    spec("HINCRBY", 4, First, Create),
    spec("ZADD", -4, First, Create),
    spec("ZCARD", 2, First, Read),
    spec("ZRANGE", -4, First, ReadAll),
    spec("ZRANGEBYSCORE", -4, First, ReadAll),
    spec("ZREMRANGEBYSCORE", 4, First, Change(true)),
    spec("ZSCORE", 3, First, Read),
    spec("ZREM", -3, First, Change(false)),
    spec("ZINCRBY", 4, First, Create),
    spec("XADD", -5, First, Create),
    spec("XLEN", 2, First, Read),
    spec("XRANGE", -4, First, ReadAll),
    spec("XTRIM", -4, First, Change(true)),
    // XGROUP CREATE key group id [MKSTREAM] [ENTRIESREAD n]; other subcommands are refused.
    spec("XGROUP", -5, Second, Create),
    // Moves entries into the pending list: a write.
    blocking("XREADGROUP", -7, Streams, Change(true), Block::OptionMs),
    spec("XACK", -4, First, Change(false)),
    spec("XPENDING", -3, First, ReadAll),
    spec("XCLAIM", -6, First, Change(true)),
    spec("XAUTOCLAIM", -6, First, Change(true)),
    spec("XDEL", -3, First, Change(false)),
    // The channel is namespaced like a key; nobody can subscribe through the proxy (yet).
    spec("PUBLISH", 3, Channel, Change(false)),
    Spec {
        max_words: 2,
        ..spec("PING", -1, Keys::None, Read)
    },
];

/// The allowlist: each command's name, arity and where its keys are (the tests hold it to
/// SimRedis' table, `tests/command_tables.rs`).
pub fn table() -> impl Iterator<Item = (&'static str, i32, Keys)> {
    ALLOWED.iter().map(|s| (s.name, s.arity, s.keys))
}

/// The allowlist's names, for the hello message and the README.
pub fn allowed_names() -> impl Iterator<Item = &'static str> {
    ALLOWED.iter().map(|s| s.name)
}
