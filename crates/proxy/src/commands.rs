//! The command policy: which commands a session may send (a default-deny allowlist matched on
//! the whole name, ASCII case-insensitively), their arity, where their keys are, which ones
//! write, create keys, block, or walk a key's content — and the rewrite that puts every key
//! into the session's namespace, bounds every block time, every `COUNT` and `LIMIT`, and puts
//! a `MAXLEN` on every `XADD`.
//!
//! Everything here is pure: a request is checked and rewritten before anything reaches Redis,
//! so a refused request costs Redis nothing. What depends on the session's data (elements
//! per key, its memory, pending entries) is checked by [`crate::budget`] from the facts a
//! [`Prepared`] carries ([`Shape`]).

use crate::protocol::{Code, ErrBody, Limit};

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
enum Block {
    No,
    /// The last argument is a timeout in seconds (BRPOP, BLMOVE, BRPOPLPUSH).
    LastArgSeconds,
    /// `BLOCK <ms>` among the options (XREADGROUP); without it the command does not block.
    OptionMs,
}

/// What a command does to its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Does {
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
struct Spec {
    name: &'static str,
    /// Redis' arity: `n` exactly n words (name included), `-n` at least n.
    arity: i32,
    /// At most this many words (PING takes at most one argument); 0 = no extra bound.
    max_words: usize,
    keys: Keys,
    does: Does,
    block: Block,
}

const fn spec(name: &'static str, arity: i32, keys: Keys, does: Does) -> Spec {
    Spec {
        name,
        arity,
        max_words: 0,
        keys,
        does,
        block: Block::No,
    }
}

const fn blocking(name: &'static str, arity: i32, keys: Keys, does: Does, block: Block) -> Spec {
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
const ALLOWED: &[Spec] = &[
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

/// The limits a request is checked against (the numbers, and why, in the crate's README).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Limits {
    /// Words in one command (name included), or keys + args of a script.
    pub max_args: usize,
    /// Bytes in one argument.
    pub max_arg_bytes: usize,
    /// Bytes in one key (before the prefix).
    pub max_key_bytes: usize,
    /// Longest block time a blocking read may ask for; 0 ("for ever") becomes this.
    pub max_block_ms: u64,
    /// Elements in one list, hash, sorted set or stream (a stream's `MAXLEN`).
    pub max_elements: u64,
    /// A `COUNT` (XRANGE, XREADGROUP, XAUTOCLAIM, XPENDING), `LIMIT … count`, LPOP/RPOP's count.
    pub max_count: u64,
    /// A `LIMIT` offset (ZRANGE, ZRANGEBYSCORE).
    pub max_offset: u64,
    /// Pending entries of one session's consumer groups together (all its streams).
    pub max_pending: u64,
    /// Consumer groups on one stream.
    pub max_groups: u64,
    /// Consumers of one stream's groups together.
    pub max_consumers: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_args: 256,
            max_arg_bytes: 16 * 1024,
            max_key_bytes: 512,
            max_block_ms: 5_000,
            max_elements: 10_000,
            max_count: 10_000,
            max_offset: 10_000,
            max_pending: 1_000,
            max_groups: 8,
            max_consumers: 64,
        }
    }
}

/// How a SET asks for an expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// None: the key gets the session's backstop (`PXAT`), added by the session.
    None,
    /// KEEPTTL.
    Keep,
    /// EX/PX (relative) or EXAT/PXAT (absolute): the value at word `at`, in `ms` ms a unit.
    Given { at: usize, ms: u64, absolute: bool },
}

/// What the accounting needs to know about a command (see [`crate::budget`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Nothing to account for (reads, and writes whose effect the sizes after them show).
    Plain,
    /// SET: the value's bytes; `conditional` with NX/XX (it may not happen).
    Set {
        value_bytes: u64,
        expiry: Expiry,
        conditional: bool,
    },
    /// Adds at most `elems` elements, `bytes` bytes in all (the largest `max_elem`), to key
    /// `key` (LPUSH, RPUSH, HSET, HINCRBY, ZADD, ZINCRBY).
    Grow {
        key: usize,
        elems: u64,
        bytes: u64,
        max_elem: u64,
    },
    /// INCR/INCRBY: a small string.
    Counter,
    /// Moves one element from key 0 to key 1 (LMOVE, BLMOVE, BRPOPLPUSH).
    Move,
    /// XADD: one entry of `bytes`, the stream kept to `maxlen` entries (+ a node's slack).
    XAdd { bytes: u64, maxlen: u64 },
    /// XGROUP CREATE: one more group on key 0.
    XGroupCreate,
    /// XREADGROUP: its consumer, the word holding COUNT's value, the count asked, and which
    /// streams (by key index) read new entries (`>`: they grow the pending list).
    XReadGroup {
        consumer: Vec<u8>,
        count_at: usize,
        count: u64,
        new: Vec<usize>,
    },
    /// XCLAIM (with FORCE, up to `force` new pending entries) and XAUTOCLAIM.
    XClaim { consumer: Vec<u8>, force: u64 },
    /// A named script: `bytes` of arguments, all of which may land in key 0.
    Script { bytes: u64 },
    /// EXPIRE/PEXPIRE: the session's TTL rules (see `session`).
    Expire { ms: bool },
    /// TTL/PTTL: a key with only the session's backstop reads -1.
    Ttl { ms: bool },
    /// PERSIST: back to the backstop.
    Persist,
}

/// A command checked and rewritten for Redis.
#[derive(Debug, PartialEq, Eq)]
pub struct Prepared {
    /// Upper-case name, as sent.
    pub name: &'static str,
    /// The words to send, keys prefixed, block times, counts and MAXLEN bounded.
    pub words: Vec<Vec<u8>>,
    /// The prefixed keys, in order (PUBLISH's channel is none).
    pub keys: Vec<Vec<u8>>,
    /// Whether the command may change data (so a lost reply means an unknown outcome).
    pub write: bool,
    /// Whether it may create its keys (they are tracked, and get a TTL as they are written).
    pub creates: bool,
    /// Whether its reply or its work grows with its keys' content (weighs on the rate and
    /// the reply budget).
    pub heavy: bool,
    /// At most this many elements of each key are returned or walked (a COUNT, a span of
    /// non-negative indexes, a LIMIT), when the command says so.
    pub span: Option<u64>,
    /// Block time in ms when it blocks (then it goes to a connection of its own).
    pub block_ms: Option<u64>,
    /// Which reply shape carries key names to strip.
    pub echo: Echo,
    /// What the accounting needs.
    pub shape: Shape,
}

/// Replies that carry key names back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Echo {
    None,
    /// `[key, element]` (BRPOP).
    KeyFirst,
    /// `[[stream, entries], …]` (XREADGROUP).
    Streams,
}

fn err(code: Code, message: impl Into<String>) -> ErrBody {
    ErrBody::new(code, message)
}

fn over(limit: Limit, message: impl Into<String>) -> ErrBody {
    ErrBody::limited(Code::TooLarge, limit, message)
}

/// Checks one key and puts it in the namespace.
///
/// # Errors
/// NAMESPACE for a key that tries to name a namespace (`{`, `}` or a `lab:` start),
/// TOO_LARGE for one over the size limit.
pub fn prefix_key(prefix: &str, key: &str, limits: &Limits) -> Result<Vec<u8>, ErrBody> {
    if key.len() > limits.max_key_bytes {
        return Err(over(
            Limit::KeySize,
            format!("a key is at most {} bytes", limits.max_key_bytes),
        ));
    }
    if key.contains(['{', '}']) || key.get(..4).is_some_and(|s| s.eq_ignore_ascii_case("lab:")) {
        return Err(err(
            Code::Namespace,
            "keys travel without the session prefix; `{`, `}` and a leading `lab:` are refused",
        ));
    }
    let mut k = Vec::with_capacity(prefix.len() + key.len());
    k.extend_from_slice(prefix.as_bytes());
    k.extend_from_slice(key.as_bytes());
    Ok(k)
}

fn check_sizes(words: &[String], limits: &Limits) -> Result<(), ErrBody> {
    if words.len() > limits.max_args {
        return Err(over(
            Limit::Args,
            format!("at most {} arguments", limits.max_args),
        ));
    }
    if words.iter().any(|w| w.len() > limits.max_arg_bytes) {
        return Err(over(
            Limit::ArgSize,
            format!("an argument is at most {} bytes", limits.max_arg_bytes),
        ));
    }
    Ok(())
}

/// A bounded timeout in seconds (BRPOP's last argument): 0 and anything past the bound become
/// the bound.
fn bound_seconds(arg: &str, max_ms: u64) -> Result<(String, u64), ErrBody> {
    let secs: f64 = arg
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| {
            err(
                Code::BadRequest,
                "the timeout must be a number of seconds ≥ 0",
            )
        })?;
    let ms = (secs * 1000.0).ceil();
    if secs == 0.0 || ms > max_ms as f64 {
        Ok((format!("{}", max_ms as f64 / 1000.0), max_ms))
    } else {
        Ok((arg.to_string(), ms as u64))
    }
}

fn is(w: &str, name: &str) -> bool {
    w.eq_ignore_ascii_case(name)
}

/// A COUNT-like number within the cap. A malformed number is left for Redis to refuse.
fn check_count(w: &str, limits: &Limits, what: &str) -> Result<(), ErrBody> {
    match w.parse::<i64>() {
        Ok(n) if n > limits.max_count as i64 => Err(over(
            Limit::Count,
            format!("{what} is at most {}", limits.max_count),
        )),
        _ => Ok(()),
    }
}

/// `LIMIT offset count` (every occurrence: Redis obeys the last one).
fn check_limit_options(words: &[String], from: usize, limits: &Limits) -> Result<(), ErrBody> {
    let mut i = from;
    while i < words.len() {
        if is(&words[i], "LIMIT") && i + 2 < words.len() {
            if let Ok(off) = words[i + 1].parse::<i64>() {
                if off > limits.max_offset as i64 {
                    return Err(over(
                        Limit::Offset,
                        format!("a LIMIT offset is at most {}", limits.max_offset),
                    ));
                }
            }
            // LIMIT's count: negative means "all" — the elements-per-key cap bounds that.
            check_count(&words[i + 2], limits, "LIMIT's count")?;
            i += 3;
        } else {
            i += 1;
        }
    }
    Ok(())
}

/// Every `COUNT n` among the options from `from` on (Redis obeys the last one).
fn check_count_options(words: &[String], from: usize, limits: &Limits) -> Result<(), ErrBody> {
    let mut i = from;
    while i + 1 < words.len() {
        if is(&words[i], "COUNT") {
            check_count(&words[i + 1], limits, "COUNT")?;
            i += 2;
        } else {
            i += 1;
        }
    }
    Ok(())
}

fn bytes(ws: &[String]) -> u64 {
    ws.iter().map(|w| w.len() as u64).sum()
}

/// Checks a command against the allowlist and the limits and rewrites it for Redis.
///
/// # Errors
/// FORBIDDEN for a command not on the list (or an XGROUP subcommand other than CREATE),
/// BAD_REQUEST for a wrong arity or malformed options, TOO_LARGE and NAMESPACE from the
/// argument, key, count and offset checks.
pub fn prepare(words: &[String], prefix: &str, limits: &Limits) -> Result<Prepared, ErrBody> {
    let Some(name) = words.first() else {
        return Err(err(Code::BadRequest, "`cmd` is empty"));
    };
    // ASCII only: Unicode case folding would turn `ſet` into SET.
    let spec = ALLOWED
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name) && name.is_ascii())
        .ok_or_else(|| {
            err(
                Code::Forbidden,
                format!(
                    "`{}` is not allowed here",
                    name.chars().take(40).collect::<String>()
                ),
            )
        })?;
    check_sizes(words, limits)?;
    let n = words.len();
    let arity_ok = if spec.arity >= 0 {
        n == spec.arity as usize
    } else {
        n >= spec.arity.unsigned_abs() as usize
    } && (spec.max_words == 0 || n <= spec.max_words);
    if !arity_ok {
        return Err(err(
            Code::BadRequest,
            format!(
                "wrong number of arguments for '{}'",
                spec.name.to_ascii_lowercase()
            ),
        ));
    }
    if spec.name == "XGROUP" && !is(&words[1], "CREATE") {
        return Err(err(Code::Forbidden, "only XGROUP CREATE is allowed"));
    }

    // XADD gets its MAXLEN first: the key positions do not move (it goes after the key).
    let mut words: Vec<String> = words.to_vec();
    let mut shape = Shape::Plain;
    if spec.name == "XADD" {
        shape = xadd(&mut words, limits)?;
    }
    // XREADGROUP without COUNT would deliver every new entry: it gets the cap's COUNT.
    if spec.name == "XREADGROUP" && !words[4..].iter().any(|w| is(w, "COUNT")) {
        words.insert(4, "COUNT".into());
        words.insert(5, limits.max_count.to_string());
    }
    let n = words.len();

    let key_idx: Vec<usize> = match spec.keys {
        Keys::None => vec![],
        Keys::First | Keys::Channel => vec![1],
        Keys::FirstTwo => vec![1, 2],
        Keys::All => (1..n).collect(),
        Keys::AllButLast => (1..n - 1).collect(),
        Keys::Second => vec![2],
        Keys::Streams => xreadgroup_keys(&words)?,
    };
    let mut out: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    out[0] = spec.name.as_bytes().to_vec();
    let mut keys = Vec::with_capacity(key_idx.len());
    for &i in &key_idx {
        let k = prefix_key(prefix, &words[i], limits)?;
        out[i] = k.clone();
        if spec.keys != Keys::Channel {
            keys.push(k);
        }
    }

    let block_ms = match spec.block {
        Block::No => None,
        Block::LastArgSeconds => {
            let (arg, ms) = bound_seconds(&words[n - 1], limits.max_block_ms)?;
            out[n - 1] = arg.into_bytes();
            Some(ms)
        }
        Block::OptionMs => xreadgroup_block(&words, &mut out, limits.max_block_ms)?,
    };
    if spec.name != "XADD" {
        shape = options(spec.name, &words, &key_idx, limits)?;
    }
    let echo = match spec.name {
        "BRPOP" => Echo::KeyFirst,
        "XREADGROUP" => Echo::Streams,
        _ => Echo::None,
    };
    Ok(Prepared {
        name: spec.name,
        words: out,
        keys,
        write: !matches!(spec.does, Read | ReadAll),
        creates: spec.does == Create && (spec.name != "XGROUP" || has_mkstream(&words)),
        heavy: matches!(spec.does, ReadAll | Change(true)),
        span: span(spec.name, &words, &shape),
        block_ms,
        echo,
        shape,
    })
}

/// The elements of each key a command can return or walk, when its arguments bound them.
fn span(name: &str, words: &[String], shape: &Shape) -> Option<u64> {
    let num = |w: &String| w.parse::<i64>().ok();
    let last_count = |from: usize, opt: &str| {
        let mut c = None;
        let mut i = from;
        while i + 1 < words.len() {
            if is(&words[i], opt) {
                c = num(&words[i + 1]);
                i += 2;
            } else {
                i += 1;
            }
        }
        c
    };
    let limit = |from: usize| {
        let mut c = None;
        let mut i = from;
        while i + 2 < words.len() {
            if is(&words[i], "LIMIT") {
                c = match (num(&words[i + 1]), num(&words[i + 2])) {
                    (Some(o), Some(n)) if o >= 0 && n >= 0 => Some(o + n),
                    _ => None,
                };
                i += 3;
            } else {
                i += 1;
            }
        }
        c
    };
    let range = || match (num(&words[2]), num(&words[3])) {
        (Some(a), Some(b)) if a >= 0 && b >= a => Some(b - a + 1),
        (Some(a), Some(b)) if a >= 0 && b >= 0 => Some(0),
        _ => None,
    };
    let n = match name {
        "LRANGE" => range(),
        "ZRANGE" => {
            let by = words[4..]
                .iter()
                .any(|w| is(w, "BYSCORE") || is(w, "BYLEX"));
            let rev = words[4..].iter().any(|w| is(w, "REV"));
            if by {
                limit(4)
            } else if rev {
                None
            } else {
                range()
            }
        }
        "ZRANGEBYSCORE" => limit(4),
        "XRANGE" => last_count(4, "COUNT"),
        "XAUTOCLAIM" => last_count(6, "COUNT").or(Some(100)).map(|c| c * 10),
        "XPENDING" => {
            let mut i = 3;
            if words.get(i).is_some_and(|w| is(w, "IDLE")) {
                i += 2;
            }
            words.get(i + 2).and_then(num)
        }
        "LPOP" | "RPOP" => Some(words.get(2).and_then(num).unwrap_or(1)),
        "XREADGROUP" => match shape {
            Shape::XReadGroup { count, .. } => Some(*count as i64),
            _ => None,
        },
        _ => None,
    };
    n.map(|n| n.max(0) as u64)
}

fn has_mkstream(words: &[String]) -> bool {
    words[5..].iter().any(|w| is(w, "MKSTREAM"))
}

/// The per-command options: caps on COUNT and LIMIT, and the facts the accounting needs.
fn options(
    name: &str,
    words: &[String],
    key_idx: &[usize],
    limits: &Limits,
) -> Result<Shape, ErrBody> {
    let n = words.len();
    let bad = |m: &str| Err(err(Code::BadRequest, m));
    Ok(match name {
        "SET" => set(words)?,
        "INCR" | "INCRBY" => Shape::Counter,
        "LPUSH" | "RPUSH" => grow(&words[2..], 1),
        "HSET" => {
            if !(n - 2).is_multiple_of(2) {
                return bad("HSET key field value [field value …]");
            }
            grow(&words[2..], 2)
        }
        "HINCRBY" | "ZINCRBY" => Shape::Grow {
            key: 0,
            elems: 1,
            bytes: bytes(&words[2..]),
            max_elem: bytes(&words[2..]),
        },
        "ZADD" => {
            // ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member …
            let mut i = 2;
            while i < n
                && ["NX", "XX", "GT", "LT", "CH", "INCR"]
                    .iter()
                    .any(|o| is(&words[i], o))
            {
                i += 1;
            }
            if i >= n || !(n - i).is_multiple_of(2) {
                return bad("ZADD key [options] score member [score member …]");
            }
            grow(&words[i..], 2)
        }
        "LMOVE" | "BLMOVE" | "BRPOPLPUSH" => Shape::Move,
        "LPOP" | "RPOP" => {
            if n == 3 {
                check_count(&words[2], limits, "the count")?;
            }
            Shape::Plain
        }
        "ZRANGE" => {
            check_limit_options(words, 4, limits)?;
            Shape::Plain
        }
        "ZRANGEBYSCORE" => {
            check_limit_options(words, 4, limits)?;
            Shape::Plain
        }
        "XRANGE" => {
            check_count_options(words, 4, limits)?;
            Shape::Plain
        }
        "XTRIM" => {
            // XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]: it only removes.
            Shape::Plain
        }
        "XGROUP" => Shape::XGroupCreate,
        "XREADGROUP" => xreadgroup(words, key_idx, limits)?,
        "XPENDING" => {
            // XPENDING key group [[IDLE ms] start end count [consumer]]
            let mut i = 3;
            if i < n && is(&words[i], "IDLE") {
                i += 2;
            }
            if i + 2 < n {
                check_count(&words[i + 2], limits, "XPENDING's count")?;
            }
            Shape::Plain
        }
        "XCLAIM" => {
            // XCLAIM key group consumer min-idle id … [IDLE ms] [TIME ms] [RETRYCOUNT n]
            // [FORCE] [JUSTID] [LASTID id]: the ids run up to the first option.
            let opts = ["IDLE", "TIME", "RETRYCOUNT", "FORCE", "JUSTID", "LASTID"];
            let ids = words[5..]
                .iter()
                .take_while(|w| !opts.iter().any(|o| is(w, o)))
                .count() as u64;
            let force = words[5..].iter().any(|w| is(w, "FORCE"));
            Shape::XClaim {
                consumer: words[3].as_bytes().to_vec(),
                force: if force { ids } else { 0 },
            }
        }
        "XAUTOCLAIM" => {
            // XAUTOCLAIM key group consumer min-idle start [COUNT n] [JUSTID]
            check_count_options(words, 6, limits)?;
            Shape::XClaim {
                consumer: words[3].as_bytes().to_vec(),
                force: 0,
            }
        }
        "EXPIRE" | "PEXPIRE" => {
            let opt_ok = match words.get(3) {
                None => true,
                Some(o) => n == 4 && ["NX", "XX", "GT", "LT"].iter().any(|x| is(o, x)),
            };
            if !opt_ok {
                return bad("EXPIRE key seconds [NX|XX|GT|LT] (one option at most)");
            }
            Shape::Expire {
                ms: name == "PEXPIRE",
            }
        }
        "TTL" | "PTTL" => Shape::Ttl { ms: name == "PTTL" },
        "PERSIST" => Shape::Persist,
        _ => Shape::Plain,
    })
}

/// Elements in groups of `per` words (a list's elements, a hash's field-value pairs, a
/// sorted set's score-member pairs), added to key 0.
fn grow(ws: &[String], per: usize) -> Shape {
    let max_elem = ws.chunks(per).map(bytes).max().unwrap_or_default();
    Shape::Grow {
        key: 0,
        elems: (ws.len() / per) as u64,
        bytes: bytes(ws),
        max_elem,
    }
}

/// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL].
fn set(words: &[String]) -> Result<Shape, ErrBody> {
    let mut expiry = Expiry::None;
    let mut conditional = false;
    let mut i = 3;
    while i < words.len() {
        let w = &words[i];
        let unit = [
            ("EX", 1000, false),
            ("PX", 1, false),
            ("EXAT", 1000, true),
            ("PXAT", 1, true),
        ]
        .into_iter()
        .find(|(o, _, _)| is(w, o));
        if let Some((_, ms, absolute)) = unit {
            if expiry != Expiry::None || i + 1 >= words.len() {
                // Redis' own syntax error: left for it to report.
                return Ok(Shape::Set {
                    value_bytes: words[2].len() as u64,
                    expiry: Expiry::Keep,
                    conditional: true,
                });
            }
            expiry = Expiry::Given {
                at: i + 1,
                ms,
                absolute,
            };
            i += 2;
            continue;
        }
        if is(w, "KEEPTTL") {
            expiry = Expiry::Keep;
        } else if is(w, "NX") || is(w, "XX") {
            conditional = true;
        }
        i += 1;
    }
    Ok(Shape::Set {
        value_bytes: words[2].len() as u64,
        expiry,
        conditional,
    })
}

/// XADD key [NOMKSTREAM] [MAXLEN [=|~] n] id|* field value …: a MAXLEN on every XADD — the
/// cap's when none is given (approximate, so Redis trims whole nodes, cheaply), the cap when
/// a bigger one is. MINID and LIMIT are refused: either could let a stream grow past the cap.
fn xadd(words: &mut Vec<String>, limits: &Limits) -> Result<Shape, ErrBody> {
    let mut i = 2;
    if i < words.len() && is(&words[i], "NOMKSTREAM") {
        i += 1;
    }
    let cap = limits.max_elements;
    let maxlen;
    if i < words.len() && is(&words[i], "MINID") {
        return Err(ErrBody::limited(
            Code::BadRequest,
            Limit::StreamTrim,
            format!("XADD's MINID is not offered: every stream is kept to MAXLEN {cap}"),
        ));
    }
    if i < words.len() && is(&words[i], "MAXLEN") {
        let mut j = i + 1;
        if j < words.len() && (words[j] == "=" || words[j] == "~") {
            j += 1;
        }
        let Some(th) = words.get(j) else {
            return Err(err(
                Code::BadRequest,
                "XADD key MAXLEN [=|~] n id field value …",
            ));
        };
        match th.parse::<u64>() {
            Ok(t) if t > cap => {
                words[j] = cap.to_string();
                maxlen = cap;
            }
            Ok(t) => maxlen = t,
            // Not a number: Redis refuses it; nothing is added.
            Err(_) => maxlen = cap,
        }
        if words.get(j + 1).is_some_and(|w| is(w, "LIMIT")) {
            return Err(ErrBody::limited(
                Code::BadRequest,
                Limit::StreamTrim,
                "XADD's LIMIT is not offered: it would let a stream outgrow its MAXLEN",
            ));
        }
    } else {
        words.insert(i, "MAXLEN".into());
        words.insert(i + 1, "~".into());
        words.insert(i + 2, cap.to_string());
        maxlen = cap;
    }
    // The entry: everything after the ID.
    let id_at = words
        .iter()
        .enumerate()
        .skip(i)
        .find(|(_, w)| is(w, "MAXLEN"))
        .map(|(j, _)| {
            let mut k = j + 1;
            if words[k] == "=" || words[k] == "~" {
                k += 1;
            }
            k + 1
        })
        .unwrap_or(i);
    let entry = words.get(id_at + 1..).map(bytes).unwrap_or_default();
    Ok(Shape::XAdd {
        bytes: entry,
        maxlen,
    })
}

/// `XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK] STREAMS k… id…`: the key positions.
fn xreadgroup_keys(words: &[String]) -> Result<Vec<usize>, ErrBody> {
    let bad = || {
        err(
            Code::BadRequest,
            "XREADGROUP GROUP <group> <consumer> [COUNT n] [BLOCK ms] [NOACK] STREAMS <key…> <id…>",
        )
    };
    if !is(&words[1], "GROUP") {
        return Err(bad());
    }
    let mut i = 4;
    while i < words.len() {
        let w = &words[i];
        if is(w, "STREAMS") {
            let rest = words.len() - i - 1;
            if rest == 0 || !rest.is_multiple_of(2) {
                return Err(bad());
            }
            return Ok((i + 1..i + 1 + rest / 2).collect());
        } else if is(w, "COUNT") || is(w, "BLOCK") {
            i += 2;
        } else if is(w, "NOACK") {
            i += 1;
        } else {
            return Err(bad());
        }
    }
    Err(bad())
}

/// XREADGROUP's COUNT (every one within the cap; Redis obeys the last) and which streams read
/// new entries.
fn xreadgroup(words: &[String], key_idx: &[usize], limits: &Limits) -> Result<Shape, ErrBody> {
    let streams_at = key_idx[0] - 1;
    let mut count_at = 0;
    let mut noack = false;
    let mut i = 4;
    while i < streams_at {
        if is(&words[i], "COUNT") {
            check_count(&words[i + 1], limits, "COUNT")?;
            count_at = i + 1;
            i += 2;
        } else if is(&words[i], "BLOCK") {
            i += 2;
        } else {
            noack |= is(&words[i], "NOACK");
            i += 1;
        }
    }
    let count = words[count_at]
        .parse::<u64>()
        .map_err(|_| err(Code::BadRequest, "COUNT takes a number ≥ 0"))?;
    let ids = &words[key_idx[key_idx.len() - 1] + 1..];
    let new = if noack {
        vec![]
    } else {
        ids.iter()
            .enumerate()
            .filter(|(_, id)| *id == ">")
            .map(|(k, _)| k)
            .collect()
    };
    Ok(Shape::XReadGroup {
        consumer: words[3].as_bytes().to_vec(),
        count_at,
        count,
        new,
    })
}

/// Bounds XREADGROUP's BLOCK — every one, since Redis obeys the last (0 = for ever → the
/// bound); `None` when it does not block.
fn xreadgroup_block(
    words: &[String],
    out: &mut [Vec<u8>],
    max_ms: u64,
) -> Result<Option<u64>, ErrBody> {
    let mut i = 4;
    let mut last = None;
    while i + 1 < words.len() && !is(&words[i], "STREAMS") {
        if is(&words[i], "BLOCK") {
            let ms: u64 = words[i + 1]
                .parse()
                .map_err(|_| err(Code::BadRequest, "BLOCK takes milliseconds ≥ 0"))?;
            let ms = if ms == 0 || ms > max_ms { max_ms } else { ms };
            out[i + 1] = ms.to_string().into_bytes();
            last = Some(ms);
            i += 2;
            continue;
        }
        i += if is(&words[i], "NOACK") { 1 } else { 2 };
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }
    const P: &str = "lab:{abc}:";

    fn words(p: &Prepared) -> Vec<String> {
        p.words
            .iter()
            .map(|b| String::from_utf8(b.clone()).unwrap())
            .collect()
    }

    #[test]
    fn keys_are_prefixed_at_their_positions() {
        let l = Limits::default();
        let p = prepare(&w(&["set", "lock:x", "t", "NX", "PX", "5000"]), P, &l).unwrap();
        assert_eq!(
            words(&p),
            ["SET", "lab:{abc}:lock:x", "t", "NX", "PX", "5000"]
        );
        assert!(p.write && p.creates);
        assert_eq!(
            p.shape,
            Shape::Set {
                value_bytes: 1,
                expiry: Expiry::Given {
                    at: 5,
                    ms: 1,
                    absolute: false
                },
                conditional: true
            }
        );
        let p = prepare(&w(&["MGET", "a", "b", "c"]), P, &l).unwrap();
        assert_eq!(p.keys.len(), 3);
        assert!(p.heavy && !p.write);
        let p = prepare(&w(&["BRPOP", "q1", "q2", "0"]), P, &l).unwrap();
        assert_eq!(words(&p), ["BRPOP", "lab:{abc}:q1", "lab:{abc}:q2", "5"]);
        assert_eq!(p.block_ms, Some(5000));
        let p = prepare(&w(&["BLMOVE", "a", "b", "LEFT", "RIGHT", "0.25"]), P, &l).unwrap();
        assert_eq!(p.block_ms, Some(250));
        assert_eq!(words(&p)[5], "0.25");
        let p = prepare(&w(&["XGROUP", "create", "s", "g", "$", "MKSTREAM"]), P, &l).unwrap();
        assert_eq!(words(&p)[2], "lab:{abc}:s");
        assert!(p.creates);
        let p = prepare(&w(&["XGROUP", "CREATE", "s", "g", "$"]), P, &l).unwrap();
        assert!(!p.creates, "without MKSTREAM it creates no key");
        let p = prepare(
            &w(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "c",
                "COUNT",
                "5",
                "BLOCK",
                "0",
                "STREAMS",
                "s1",
                "s2",
                ">",
                ">",
            ]),
            P,
            &l,
        )
        .unwrap();
        assert_eq!(
            words(&p)[6..],
            [
                "BLOCK",
                "5000",
                "STREAMS",
                "lab:{abc}:s1",
                "lab:{abc}:s2",
                ">",
                ">"
            ]
        );
        assert_eq!(p.block_ms, Some(5000));
        let p = prepare(
            &w(&["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"]),
            P,
            &l,
        )
        .unwrap();
        assert_eq!(p.block_ms, None);
        let p = prepare(&w(&["PING"]), P, &l).unwrap();
        assert!(p.keys.is_empty());
        let p = prepare(&w(&["PUBLISH", "ch", "hi"]), P, &l).unwrap();
        assert_eq!(words(&p)[1], "lab:{abc}:ch");
        assert!(p.keys.is_empty(), "a channel is no key");
    }

    #[test]
    fn refusals_are_typed() {
        let l = Limits::default();
        let code = |s: &[&str]| prepare(&w(s), P, &l).unwrap_err().code;
        assert_eq!(code(&["EVAL", "return 1", "0"]), Code::Forbidden);
        assert_eq!(code(&["ſet", "a", "b"]), Code::Forbidden);
        assert_eq!(code(&["GET "]), Code::Forbidden);
        assert_eq!(code(&["XGROUP", "DESTROY", "s", "g", "x"]), Code::Forbidden);
        assert_eq!(code(&["GET"]), Code::BadRequest);
        assert_eq!(code(&["PING", "a", "b"]), Code::BadRequest);
        assert_eq!(code(&["GET", "lab:{x}:k"]), Code::Namespace);
        assert_eq!(code(&["GET", "a{b"]), Code::Namespace);
        assert_eq!(code(&["BRPOP", "q", "-1"]), Code::BadRequest);
        assert_eq!(
            code(&["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "t", ">"]),
            Code::BadRequest
        );
        assert_eq!(code(&[]), Code::BadRequest);
        assert_eq!(code(&["HSET", "h", "f", "v", "g"]), Code::BadRequest);
    }

    fn limit(s: &[&str]) -> Option<Limit> {
        prepare(&w(s), P, &Limits::default()).unwrap_err().limit
    }

    #[test]
    fn counts_offsets_and_stream_trims_are_capped() {
        let l = Limits::default();
        // Every COUNT, and LIMIT's offset and count, within 10,000: Redis obeys the last one.
        let c = Some(Limit::Count);
        assert_eq!(limit(&["XRANGE", "s", "-", "+", "COUNT", "10001"]), c);
        assert_eq!(
            limit(&["XRANGE", "s", "-", "+", "COUNT", "1", "COUNT", "99999999"]),
            c
        );
        assert_eq!(
            limit(&[
                "XAUTOCLAIM",
                "s",
                "g",
                "c",
                "0",
                "0",
                "COUNT",
                "9223372036854775807"
            ]),
            c,
            "CVE-2022-35951's trigger"
        );
        assert_eq!(
            limit(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "c",
                "COUNT",
                "20000",
                "STREAMS",
                "s",
                ">"
            ]),
            c
        );
        assert_eq!(
            limit(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "c",
                "COUNT",
                "1",
                "COUNT",
                "20000",
                "STREAMS",
                "s",
                ">"
            ]),
            c
        );
        assert_eq!(
            limit(&["XPENDING", "s", "g", "IDLE", "1", "-", "+", "100000"]),
            c
        );
        assert_eq!(limit(&["XPENDING", "s", "g", "-", "+", "100000"]), c);
        assert_eq!(limit(&["LPOP", "l", "1000000"]), c);
        assert_eq!(
            limit(&["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "20000"]),
            c
        );
        assert_eq!(
            limit(&[
                "ZRANGEBYSCORE",
                "z",
                "-inf",
                "+inf",
                "LIMIT",
                "100000000",
                "1"
            ]),
            Some(Limit::Offset)
        );
        assert_eq!(
            limit(&[
                "ZRANGE", "z", "0", "-1", "BYSCORE", "LIMIT", "0", "1", "LIMIT", "999999", "1"
            ]),
            Some(Limit::Offset)
        );
        assert_eq!(
            limit(&["XADD", "s", "MINID", "0", "*", "f", "v"]),
            Some(Limit::StreamTrim)
        );
        assert_eq!(
            limit(&["XADD", "s", "MAXLEN", "~", "10", "LIMIT", "1", "*", "f", "v"]),
            Some(Limit::StreamTrim)
        );
        // What the labs send passes: the queue's promotion, ZRANGEBYSCORE … LIMIT 0 1000.
        assert!(prepare(
            &w(&["ZRANGEBYSCORE", "d", "-inf", "5", "LIMIT", "0", "1000"]),
            P,
            &l
        )
        .is_ok());
        assert!(prepare(
            &w(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "w1",
                "COUNT",
                "10000",
                "BLOCK",
                "500",
                "STREAMS",
                "s",
                ">"
            ]),
            P,
            &l
        )
        .is_ok());
    }

    #[test]
    fn every_xadd_gets_a_maxlen() {
        let l = Limits::default();
        let p = prepare(&w(&["XADD", "s", "*", "n", "1"]), P, &l).unwrap();
        assert_eq!(
            words(&p),
            ["XADD", "lab:{abc}:s", "MAXLEN", "~", "10000", "*", "n", "1"]
        );
        assert_eq!(
            p.shape,
            Shape::XAdd {
                bytes: 2,
                maxlen: 10_000
            }
        );
        // The lab's MAXLEN ~ 100000 is kept to the cap; a smaller one is kept as it is.
        let p = prepare(
            &w(&["XADD", "s", "MAXLEN", "~", "100000", "*", "n", "1"]),
            P,
            &l,
        )
        .unwrap();
        assert_eq!(words(&p)[4], "10000");
        let p = prepare(
            &w(&["XADD", "s", "NOMKSTREAM", "MAXLEN", "5", "1-1", "f", "v"]),
            P,
            &l,
        )
        .unwrap();
        assert_eq!(words(&p)[2..5], ["NOMKSTREAM", "MAXLEN", "5"]);
        assert_eq!(
            p.shape,
            Shape::XAdd {
                bytes: 2,
                maxlen: 5
            }
        );
    }

    #[test]
    fn the_block_redis_obeys_is_bounded() {
        // Redis obeys the last BLOCK: `BLOCK 1 BLOCK 0` must not slip the cap.
        let l = Limits::default();
        let p = prepare(
            &w(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "c",
                "BLOCK",
                "1",
                "BLOCK",
                "0",
                "STREAMS",
                "s",
                ">",
            ]),
            P,
            &l,
        )
        .unwrap();
        let ws = words(&p);
        assert_eq!(p.block_ms, Some(5000));
        assert_eq!((ws[7].as_str(), ws[9].as_str()), ("1", "5000"), "{ws:?}");
        // No COUNT: the cap's is added (and counted as the one Redis obeys).
        assert_eq!(ws[4..6], ["COUNT", "10000"]);
        let Shape::XReadGroup {
            count_at, count, ..
        } = p.shape
        else {
            panic!()
        };
        assert_eq!((count_at, count), (5, 10_000));
    }

    #[test]
    fn shapes_for_the_accounting() {
        let l = Limits::default();
        let s = |x: &[&str]| prepare(&w(x), P, &l).unwrap().shape;
        assert_eq!(
            s(&["RPUSH", "l", "a", "bcd"]),
            Shape::Grow {
                key: 0,
                elems: 2,
                bytes: 4,
                max_elem: 3
            }
        );
        assert_eq!(
            s(&["HSET", "h", "f", "v", "ff", "vv"]),
            Shape::Grow {
                key: 0,
                elems: 2,
                bytes: 6,
                max_elem: 4
            }
        );
        assert_eq!(
            s(&["ZADD", "z", "NX", "CH", "1", "m", "2", "n"]),
            Shape::Grow {
                key: 0,
                elems: 2,
                bytes: 4,
                max_elem: 2
            }
        );
        assert_eq!(
            s(&["XCLAIM", "s", "g", "c", "0", "1-1", "2-2", "FORCE", "JUSTID"]),
            Shape::XClaim {
                consumer: b"c".to_vec(),
                force: 2
            }
        );
        assert_eq!(
            s(&["SET", "k", "v", "KEEPTTL"]),
            Shape::Set {
                value_bytes: 1,
                expiry: Expiry::Keep,
                conditional: false
            }
        );
        let p = prepare(
            &w(&[
                "XREADGROUP",
                "GROUP",
                "g",
                "c",
                "COUNT",
                "3",
                "STREAMS",
                "a",
                "b",
                ">",
                "0",
            ]),
            P,
            &l,
        )
        .unwrap();
        assert_eq!(
            p.shape,
            Shape::XReadGroup {
                consumer: b"c".to_vec(),
                count_at: 5,
                count: 3,
                new: vec![0]
            }
        );
    }
}
