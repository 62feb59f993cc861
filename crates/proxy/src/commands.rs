//! The command policy: which commands a session may send (a default-deny allowlist matched on
//! the whole name, ASCII case-insensitively), their arity, where their keys are, which ones
//! write, which ones block — and the rewrite that puts every key into the session's namespace
//! and bounds every block time.
//!
//! Everything here is pure: a request is checked and rewritten before anything reaches Redis,
//! so a refused request costs Redis nothing.

use crate::protocol::{Code, ErrBody};

/// Where a command's keys are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
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
    /// Argument 2 (XGROUP CREATE key …; PUBLISH's channel is argument 1 and uses `First`).
    Second,
    /// The first half of what follows STREAMS (XREADGROUP).
    Streams,
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

/// One allowed command.
#[derive(Clone, Copy, Debug)]
struct Spec {
    name: &'static str,
    /// Redis' arity: `n` exactly n words (name included), `-n` at least n.
    arity: i32,
    /// At most this many words (PING takes at most one argument); 0 = no extra bound.
    max_words: usize,
    keys: Keys,
    write: bool,
    block: Block,
}

const fn spec(name: &'static str, arity: i32, keys: Keys, write: bool) -> Spec {
    Spec {
        name,
        arity,
        max_words: 0,
        keys,
        write,
        block: Block::No,
    }
}

const fn blocking(name: &'static str, arity: i32, keys: Keys, block: Block) -> Spec {
    Spec {
        name,
        arity,
        max_words: 0,
        keys,
        write: true,
        block,
    }
}

use Keys::{All, AllButLast, First, FirstTwo, Second, Streams};

/// Exactly the commands the labs need. Anything else — EVAL/EVALSHA/SCRIPT/FUNCTION (Lua comes
/// only from the server's named scripts), KEYS, SCAN, RANDOMKEY, FLUSH*, INFO, CONFIG, CLIENT,
/// MONITOR, SELECT, DEBUG, MULTI/EXEC, (P)SUBSCRIBE, … — is refused by not being here.
const ALLOWED: &[Spec] = &[
    spec("GET", 2, First, false),
    spec("SET", -3, First, true),
    spec("DEL", -2, All, true),
    spec("EXISTS", -2, All, false),
    spec("INCR", 2, First, true),
    spec("INCRBY", 3, First, true),
    spec("MGET", -2, All, false),
    spec("EXPIRE", -3, First, true),
    spec("PEXPIRE", -3, First, true),
    spec("TTL", 2, First, false),
    spec("PTTL", 2, First, false),
    spec("PERSIST", 2, First, true),
    spec("TYPE", 2, First, false),
    spec("LPUSH", -3, First, true),
    spec("RPUSH", -3, First, true),
    spec("LPOP", -2, First, true),
    spec("RPOP", -2, First, true),
    spec("LRANGE", 4, First, false),
    spec("LLEN", 2, First, false),
    spec("LREM", 4, First, true),
    spec("LMOVE", 5, FirstTwo, true),
    blocking("BLMOVE", 6, FirstTwo, Block::LastArgSeconds),
    blocking("BRPOP", -3, AllButLast, Block::LastArgSeconds),
    blocking("BRPOPLPUSH", 4, FirstTwo, Block::LastArgSeconds),
    spec("HSET", -4, First, true),
    spec("HGET", 3, First, false),
    spec("HGETALL", 2, First, false),
    spec("HDEL", -3, First, true),
    spec("HLEN", 2, First, false),
    spec("HINCRBY", 4, First, true),
    spec("ZADD", -4, First, true),
    spec("ZCARD", 2, First, false),
    spec("ZRANGE", -4, First, false),
    spec("ZRANGEBYSCORE", -4, First, false),
    spec("ZREMRANGEBYSCORE", 4, First, true),
    spec("ZSCORE", 3, First, false),
    spec("ZREM", -3, First, true),
    spec("ZINCRBY", 4, First, true),
    spec("XADD", -5, First, true),
    spec("XLEN", 2, First, false),
    spec("XRANGE", -4, First, false),
    spec("XTRIM", -4, First, true),
    // XGROUP CREATE key group id [MKSTREAM] [ENTRIESREAD n]; other subcommands are refused.
    spec("XGROUP", -5, Second, true),
    // Moves entries into the pending list: a write.
    blocking("XREADGROUP", -7, Streams, Block::OptionMs),
    spec("XACK", -4, First, true),
    spec("XPENDING", -3, First, false),
    spec("XCLAIM", -6, First, true),
    spec("XAUTOCLAIM", -6, First, true),
    spec("XDEL", -3, First, true),
    // The channel is namespaced like a key; nobody can subscribe through the proxy (yet).
    spec("PUBLISH", 3, First, true),
    Spec {
        max_words: 2,
        ..spec("PING", -1, Keys::None, false)
    },
];

/// The allowlist's names, for the hello message and the README.
pub fn allowed_names() -> impl Iterator<Item = &'static str> {
    ALLOWED.iter().map(|s| s.name)
}

/// The limits a request is checked against.
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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_args: 256,
            max_arg_bytes: 16 * 1024,
            max_key_bytes: 512,
            max_block_ms: 5_000,
        }
    }
}

/// A command checked and rewritten for Redis.
#[derive(Debug, PartialEq, Eq)]
pub struct Prepared {
    /// Upper-case name, as sent.
    pub name: &'static str,
    /// The words to send, keys prefixed, block times bounded.
    pub words: Vec<Vec<u8>>,
    /// The prefixed keys (for tracking the keys a session writes).
    pub keys: Vec<Vec<u8>>,
    /// Whether the command may change data (so a lost reply means an unknown outcome).
    pub write: bool,
    /// Block time in ms when it blocks (then it goes to the session's own connection).
    pub block_ms: Option<u64>,
    /// Which reply shape carries key names to strip.
    pub echo: Echo,
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
    ErrBody {
        code,
        message: message.into(),
    }
}

/// Checks one key and puts it in the namespace.
///
/// # Errors
/// NAMESPACE for a key that tries to name a namespace (`{`, `}` or a `lab:` start),
/// TOO_LARGE for one over the size limit.
pub fn prefix_key(prefix: &str, key: &str, limits: &Limits) -> Result<Vec<u8>, ErrBody> {
    if key.len() > limits.max_key_bytes {
        return Err(err(
            Code::TooLarge,
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
        return Err(err(
            Code::TooLarge,
            format!("at most {} arguments", limits.max_args),
        ));
    }
    if words.iter().any(|w| w.len() > limits.max_arg_bytes) {
        return Err(err(
            Code::TooLarge,
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

/// Checks a command against the allowlist and the limits and rewrites it for Redis.
///
/// # Errors
/// FORBIDDEN for a command not on the list (or an XGROUP subcommand other than CREATE),
/// BAD_REQUEST for a wrong arity or malformed options, TOO_LARGE and NAMESPACE from the
/// argument and key checks.
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
    if spec.name == "XGROUP" && !words[1].eq_ignore_ascii_case("CREATE") {
        return Err(err(Code::Forbidden, "only XGROUP CREATE is allowed"));
    }

    let key_idx: Vec<usize> = match spec.keys {
        Keys::None => vec![],
        Keys::First => vec![1],
        Keys::FirstTwo => vec![1, 2],
        Keys::All => (1..n).collect(),
        Keys::AllButLast => (1..n - 1).collect(),
        Keys::Second => vec![2],
        Keys::Streams => xreadgroup_keys(words)?,
    };
    let mut out: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    out[0] = spec.name.as_bytes().to_vec();
    let mut keys = Vec::with_capacity(key_idx.len());
    for i in key_idx {
        let k = prefix_key(prefix, &words[i], limits)?;
        out[i] = k.clone();
        keys.push(k);
    }

    let block_ms = match spec.block {
        Block::No => None,
        Block::LastArgSeconds => {
            let (arg, ms) = bound_seconds(&words[n - 1], limits.max_block_ms)?;
            out[n - 1] = arg.into_bytes();
            Some(ms)
        }
        Block::OptionMs => xreadgroup_block(words, &mut out, limits.max_block_ms)?,
    };
    let echo = match spec.name {
        "BRPOP" => Echo::KeyFirst,
        "XREADGROUP" => Echo::Streams,
        _ => Echo::None,
    };
    Ok(Prepared {
        name: spec.name,
        words: out,
        keys,
        write: spec.write,
        block_ms,
        echo,
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
    if !words[1].eq_ignore_ascii_case("GROUP") {
        return Err(bad());
    }
    let mut i = 4;
    while i < words.len() {
        let w = &words[i];
        if w.eq_ignore_ascii_case("STREAMS") {
            let rest = words.len() - i - 1;
            if rest == 0 || !rest.is_multiple_of(2) {
                return Err(bad());
            }
            return Ok((i + 1..i + 1 + rest / 2).collect());
        } else if w.eq_ignore_ascii_case("COUNT") || w.eq_ignore_ascii_case("BLOCK") {
            i += 2;
        } else if w.eq_ignore_ascii_case("NOACK") {
            i += 1;
        } else {
            return Err(bad());
        }
    }
    Err(bad())
}

/// Bounds XREADGROUP's BLOCK (0 = for ever → the bound); `None` when it does not block.
fn xreadgroup_block(
    words: &[String],
    out: &mut [Vec<u8>],
    max_ms: u64,
) -> Result<Option<u64>, ErrBody> {
    let mut i = 4;
    while i + 1 < words.len() && !words[i].eq_ignore_ascii_case("STREAMS") {
        if words[i].eq_ignore_ascii_case("BLOCK") {
            let ms: u64 = words[i + 1]
                .parse()
                .map_err(|_| err(Code::BadRequest, "BLOCK takes milliseconds ≥ 0"))?;
            let ms = if ms == 0 || ms > max_ms { max_ms } else { ms };
            out[i + 1] = ms.to_string().into_bytes();
            return Ok(Some(ms));
        }
        i += if words[i].eq_ignore_ascii_case("NOACK") {
            1
        } else {
            2
        };
    }
    Ok(None)
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
        assert!(p.write);
        let p = prepare(&w(&["MGET", "a", "b", "c"]), P, &l).unwrap();
        assert_eq!(p.keys.len(), 3);
        let p = prepare(&w(&["BRPOP", "q1", "q2", "0"]), P, &l).unwrap();
        assert_eq!(words(&p), ["BRPOP", "lab:{abc}:q1", "lab:{abc}:q2", "5"]);
        assert_eq!(p.block_ms, Some(5000));
        let p = prepare(&w(&["BLMOVE", "a", "b", "LEFT", "RIGHT", "0.25"]), P, &l).unwrap();
        assert_eq!(p.block_ms, Some(250));
        assert_eq!(words(&p)[5], "0.25");
        let p = prepare(&w(&["XGROUP", "create", "s", "g", "$", "MKSTREAM"]), P, &l).unwrap();
        assert_eq!(words(&p)[2], "lab:{abc}:s");
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
    }
}
