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
mod options;
pub mod table;
#[cfg(test)]
mod tests;

use options::{bound_seconds, check_sizes, is, options, xadd, xreadgroup_block, xreadgroup_keys};
pub use table::{allowed_names, table, Block, Does, Keys, Spec, ALLOWED};
use Does::{Change, Create, Read, ReadAll};

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
