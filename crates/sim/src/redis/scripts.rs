//! The named Lua scripts the labs send with EVALSHA, each registered with its Lua source
//! (shown to the student, byte for byte what a real Redis would load), its SHA1 (what
//! `SCRIPT LOAD` of that source returns; asserted against `sha1sum` in a unit test and
//! against a real `redis-server` in `tests/redis_differential.rs`) and its semantics in Rust.
//!
//! SimRedis has no Lua interpreter: the labs use a handful of fixed scripts, and running them
//! as Rust keeps the core small and fast. The Rust follows the Lua step by step, so a script
//! that fails part-way keeps the writes it made before the error, as Redis does (Lua has no
//! rollback: `addjob` with a missing `KEYS[2]` leaves its hash behind). Errors raised inside
//! a script are reported the way Redis 7.0 reports them: the inner error followed by
//! `script: <sha>, on @user_script:1.`.
//!
//! A fresh server has no script cached: EVALSHA answers `NOSCRIPT` and `SCRIPT EXISTS` 0
//! until `SCRIPT LOAD` (or an EVAL) of the source; `SCRIPT FLUSH` forgets them again.
//! [`SimRedis::load_named_scripts`] loads them all, as the proxy does on a real Redis when
//! it starts.

use super::num::parse_i64;
use super::{Reply, SimRedis, NOT_INT};

/// A script's semantics: `(server, KEYS, ARGV)` → the reply, or the inner error text.
pub type ScriptFn = fn(&mut SimRedis, &[&[u8]], &[&[u8]]) -> Result<Reply, String>;

/// One registered script, as text only: its Rust semantics are looked up by `body` where
/// SimRedis runs it, so code that only names or shows a script (the app, the labs module,
/// the proxy) does not link SimRedis through a function pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Script {
    /// Short name the labs use.
    pub name: &'static str,
    /// The Lua source, exactly as loaded into a real Redis.
    pub source: &'static str,
    /// Lower-case hex SHA1 of `source`.
    pub sha1: &'static str,
}

/// `redis.call` with non-string arguments (a missing KEYS/ARGV entry is Lua `nil`).
const LUA_ARG_ERR: &str = "ERR Lua redis lib command arguments must be strings or integers";

/// The token-checked lock release: delete the lock only if it still holds our token.
pub const RELEASE: Script = Script {
    name: "release",
    source: r#"if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end"#,
    sha1: "b70c2384248f88e6b75b9f89241a180f856ad852",
};

/// The heartbeat: extend the lock's TTL (PEXPIRE ms) only if it still holds our token.
pub const EXTEND: Script = Script {
    name: "extend",
    source: r#"if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end"#,
    sha1: "36e94d1c6e02fcefaa7ee5d79eee614dbac55f10",
};

/// A queue job added once (BullMQ's `addStandardJob`, cut to what the labs use): nothing if
/// the job's hash exists, else its hash and its id pushed on the wait list, in one step.
/// `KEYS[1]` job hash, `KEYS[2]` wait list; `ARGV` id, name, data. Returns 1 if added.
pub const ADD_JOB: Script = Script {
    name: "addjob",
    source: r#"if redis.call("exists",KEYS[1]) == 1 then return 0 end redis.call("hset",KEYS[1],"name",ARGV[2],"data",ARGV[3],"atm","0") redis.call("lpush",KEYS[2],ARGV[1]) return 1"#,
    sha1: "3c98afe8f817027a4c114a1897aab0a62b76aacc",
};

/// Presence (production slides 14–15, `watchMarkActive`): the four commands in one round
/// trip, with the room's size check inside Redis. The viewer always goes into the
/// HyperLogLog bucket; into the room's sorted set only while it holds fewer than the limit,
/// and then the set's TTL is renewed. `KEYS[1]` room's sorted set, `KEYS[2]` HyperLogLog
/// bucket; `ARGV` member, score, limit, TTL seconds. Returns 1 if the set was written.
pub const MARK_ACTIVE: Script = Script {
    name: "markactive",
    source: r#"redis.call("pfadd",KEYS[2],ARGV[1]) local size = redis.call("zcard",KEYS[1]) if size < tonumber(ARGV[3]) then redis.call("zadd",KEYS[1],ARGV[2],ARGV[1]) redis.call("expire",KEYS[1],ARGV[4]) return 1 end return 0"#,
    sha1: "b57d7f06bf49f551c3096d5457fbaa3e058ab5c6",
};

/// Every registered script.
pub const SCRIPTS: &[Script] = &[RELEASE, EXTEND, ADD_JOB, MARK_ACTIVE];

/// What `script` does, in Rust (every script of [`SCRIPTS`] has a body).
fn body(script: &Script) -> Option<ScriptFn> {
    let bodies: [(Script, ScriptFn); 4] = [
        (RELEASE, release),
        (EXTEND, extend),
        (ADD_JOB, add_job),
        (MARK_ACTIVE, mark_active),
    ];
    bodies
        .into_iter()
        .find(|(s, _)| s == script)
        .map(|(_, f)| f)
}

/// The registered script with this SHA1 (any case) or name.
pub fn find(sha_or_name: &[u8]) -> Option<&'static Script> {
    SCRIPTS.iter().find(|s| {
        sha_or_name.eq_ignore_ascii_case(s.sha1.as_bytes()) || sha_or_name == s.name.as_bytes()
    })
}

/// `redis.call(...)`: an error reply raises.
fn call(r: &mut SimRedis, args: &[&[u8]]) -> Result<Reply, String> {
    match r.call_nested(args) {
        Reply::Error(e) => Err(e),
        ok => Ok(ok),
    }
}

/// `redis.call("get",KEYS[1]) == ARGV[1]`; a nil GET is Lua `false`, never equal.
fn holds_token(r: &mut SimRedis, keys: &[&[u8]], argv: &[&[u8]]) -> Result<bool, String> {
    let key = keys.first().ok_or(LUA_ARG_ERR)?;
    let got = call(r, &[b"get", key])?;
    Ok(matches!((got, argv.first()), (Reply::Bulk(v), Some(t)) if v == *t))
}

fn release(r: &mut SimRedis, keys: &[&[u8]], argv: &[&[u8]]) -> Result<Reply, String> {
    if holds_token(r, keys, argv)? {
        call(r, &[b"del", keys[0]])
    } else {
        Ok(Reply::Integer(0))
    }
}

fn extend(r: &mut SimRedis, keys: &[&[u8]], argv: &[&[u8]]) -> Result<Reply, String> {
    if holds_token(r, keys, argv)? {
        let ms = argv.get(1).ok_or(LUA_ARG_ERR)?;
        call(r, &[b"pexpire", keys[0], ms])
    } else {
        Ok(Reply::Integer(0))
    }
}

fn add_job(r: &mut SimRedis, keys: &[&[u8]], argv: &[&[u8]]) -> Result<Reply, String> {
    // Each `redis.call` raises when one of its arguments is nil, after the calls before it
    // have run — exactly where the Lua would stop.
    let job = *keys.first().ok_or(LUA_ARG_ERR)?;
    if call(r, &[b"exists", job])? == Reply::Integer(1) {
        return Ok(Reply::Integer(0));
    }
    let (Some(name), Some(data)) = (argv.get(1), argv.get(2)) else {
        return Err(LUA_ARG_ERR.into());
    };
    call(
        r,
        &[b"hset", job, b"name", name, b"data", data, b"atm", b"0"],
    )?;
    let (Some(wait), Some(id)) = (keys.get(1), argv.first()) else {
        return Err(LUA_ARG_ERR.into());
    };
    call(r, &[b"lpush", wait, id])?;
    Ok(Reply::Integer(1))
}

/// Lua 5.1's `tonumber` of a string (`luaO_str2d`): C's `strtod` — leading blanks, a sign,
/// decimal digits with a point and an exponent, `inf`/`infinity`/`nan` — or, when the
/// number stops at an `x`, `strtoul(s, 16)`; then only blanks may follow. `None` is Lua's
/// `nil`.
pub fn lua_tonumber(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(s).ok()?;
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c');
    let body = text.trim_start_matches(blank);
    let b = body.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let neg = b.first() == Some(&b'-');
    let word =
        |w: &str| b.len() >= i + w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes());
    let (mut value, mut end) = if word("infinity") {
        (f64::INFINITY, i + 8)
    } else if word("inf") {
        (f64::INFINITY, i + 3)
    } else if word("nan") {
        (f64::NAN, i + 3)
    } else {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let int_digits = i - start;
        let mut frac_digits = 0;
        if i < b.len() && b[i] == b'.' {
            let f = i + 1;
            let mut j = f;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            frac_digits = j - f;
            if int_digits + frac_digits > 0 {
                i = j;
            }
        }
        if int_digits + frac_digits == 0 {
            return None;
        }
        if i < b.len() && matches!(b[i], b'e' | b'E') {
            let mut j = i + 1;
            if j < b.len() && matches!(b[j], b'+' | b'-') {
                j += 1;
            }
            let d = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > d {
                i = j;
            }
        }
        (body[..i].parse::<f64>().ok()?, i)
    };
    if neg && value.is_infinite() {
        value = f64::NEG_INFINITY;
    }
    // "0x10": strtod stopped at the `x`; Lua reads the whole again as `strtoul(s, 16)`
    // (a sign, an optional `0x`, hex digits; a negative wraps as C's unsigned long does).
    if matches!(b.get(end), Some(b'x' | b'X')) {
        let mut j = usize::from(matches!(b.first(), Some(b'+' | b'-')));
        if b.len() > j + 2
            && b[j] == b'0'
            && matches!(b[j + 1], b'x' | b'X')
            && b[j + 2].is_ascii_hexdigit()
        {
            j += 2;
        }
        let h = j;
        while j < b.len() && b[j].is_ascii_hexdigit() {
            j += 1;
        }
        let v = u64::from_str_radix(&body[h..j], 16).unwrap_or(if j > h { u64::MAX } else { 0 });
        value = if neg {
            v.wrapping_neg() as f64
        } else {
            v as f64
        };
        end = j;
    }
    body[end..].chars().all(blank).then_some(value)
}

fn mark_active(r: &mut SimRedis, keys: &[&[u8]], argv: &[&[u8]]) -> Result<Reply, String> {
    // Each `redis.call` raises on a nil argument after the calls before it have run.
    let (Some(bucket), Some(member)) = (keys.get(1), argv.first()) else {
        return Err(LUA_ARG_ERR.into());
    };
    call(r, &[b"pfadd", bucket, member])?;
    let size = call(r, &[b"zcard", keys[0]])?.as_int().unwrap_or(0);
    // `size < tonumber(ARGV[3])`: a nil limit is a Lua error, NaN compares false.
    let Some(limit) = argv.get(2).and_then(|l| lua_tonumber(l)) else {
        return Err("ERR user_script:1: attempt to compare number with nil".into());
    };
    if (size as f64) >= limit || limit.is_nan() {
        return Ok(Reply::Integer(0));
    }
    let Some(score) = argv.get(1) else {
        return Err(LUA_ARG_ERR.into());
    };
    call(r, &[b"zadd", keys[0], score, member])?;
    let Some(ttl) = argv.get(3) else {
        return Err(LUA_ARG_ERR.into());
    };
    call(r, &[b"expire", keys[0], ttl])?;
    Ok(Reply::Integer(1))
}

const NOSCRIPT: &str = "NOSCRIPT No matching script. Please use EVAL.";

/// The index of a registered script in [`SCRIPTS`].
fn index_of(s: &Script) -> usize {
    SCRIPTS.iter().position(|x| x == s).expect("registered")
}

const ONLY_NAMED: &str =
    "ERR SimRedis runs only its registered scripts (the lock release, the heartbeat, the queue's add, presence's markactive)";

impl SimRedis {
    fn loaded(&self, s: &Script) -> bool {
        self.scripts_loaded & (1 << index_of(s)) != 0
    }

    /// `evalGenericCommand` after the script was found.
    fn eval_generic(&mut self, script: Option<&'static Script>, a: &[&[u8]]) -> Reply {
        let Some(numkeys) = parse_i64(a[2]) else {
            return Reply::err(NOT_INT);
        };
        if numkeys > (a.len() - 3) as i64 {
            return Reply::err("ERR Number of keys can't be greater than number of args");
        }
        if numkeys < 0 {
            return Reply::err("ERR Number of keys can't be negative");
        }
        let Some((s, run)) = script.and_then(|s| Some((s, body(s)?))) else {
            return Reply::err(NOSCRIPT);
        };
        let (keys, argv) = a[3..].split_at(numkeys as usize);
        match run(self, keys, argv) {
            Ok(r) => r,
            Err(e) => Reply::Error(format!("{e} script: {}, on @user_script:1.", s.sha1)),
        }
    }

    pub(crate) fn evalsha(&mut self, a: &[&[u8]]) -> Reply {
        if a[1].len() != 40 {
            return Reply::err(NOSCRIPT);
        }
        let s = SCRIPTS
            .iter()
            .find(|s| a[1].eq_ignore_ascii_case(s.sha1.as_bytes()))
            .filter(|s| self.loaded(s));
        self.eval_generic(s, a)
    }

    pub(crate) fn eval(&mut self, a: &[&[u8]]) -> Reply {
        match SCRIPTS.iter().find(|s| a[1] == s.source.as_bytes()) {
            Some(s) => {
                // EVAL caches the script, so EVALSHA of it works afterwards.
                self.scripts_loaded |= 1 << index_of(s);
                self.eval_generic(Some(s), a)
            }
            None => Reply::err(ONLY_NAMED),
        }
    }

    /// SCRIPT LOAD / EXISTS / FLUSH of the registered scripts (subcommand and arity checked
    /// by the command table); KILL and DEBUG are not modelled.
    pub(crate) fn script(&mut self, a: &[&[u8]]) -> Reply {
        let sub = a[1].to_ascii_lowercase();
        match sub.as_slice() {
            b"load" => match SCRIPTS.iter().find(|s| a[2] == s.source.as_bytes()) {
                Some(s) => {
                    self.scripts_loaded |= 1 << index_of(s);
                    Reply::bulk(s.sha1)
                }
                None => Reply::err(ONLY_NAMED),
            },
            b"exists" => Reply::Array(
                a[2..]
                    .iter()
                    .map(|sha| {
                        Reply::Integer(i64::from(SCRIPTS.iter().any(|s| {
                            sha.eq_ignore_ascii_case(s.sha1.as_bytes()) && self.loaded(s)
                        })))
                    })
                    .collect(),
            ),
            b"flush" => {
                match a.get(2) {
                    None => {}
                    Some(m) if m.eq_ignore_ascii_case(b"sync") || m.eq_ignore_ascii_case(b"async") => {}
                    Some(_) => {
                        return Reply::err("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
                    }
                }
                if a.len() > 3 {
                    return Reply::err("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
                }
                self.scripts_loaded = 0;
                Reply::ok()
            }
            b"kill" => Reply::err("NOTBUSY No scripts in execution right now."),
            b"help" => Reply::Array(
                [
                    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "DEBUG (YES|SYNC|NO)",
                    "    Set the debug mode for subsequent scripts executed.",
                    "EXISTS <sha1> [<sha1> ...]",
                    "    Return information about the existence of the scripts in the script cache.",
                    "FLUSH [ASYNC|SYNC]",
                    "    Flush the Lua scripts cache. Very dangerous on replicas.",
                    "    When called without the optional mode argument, the behavior is determined by the",
                    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                    "    * ASYNC: Asynchronously flush the scripts cache.",
                    "    * SYNC: Synchronously flush the scripts cache.",
                    "KILL",
                    "    Kill the currently executing Lua script.",
                    "LOAD <script>",
                    "    Load a script into the scripts cache without executing it.",
                    "HELP",
                    "    Prints this help.",
                ]
                .iter()
                .map(|s| Reply::Status((*s).into()))
                .collect(),
            ),
            _ => Reply::err("ERR SCRIPT DEBUG is not modelled by SimRedis"),
        }
    }
}

#[cfg(test)]
mod body_tests {
    use super::*;

    /// Every registered script runs as itself: EVALSHA of each reaches its own body (a script
    /// without one would answer NOSCRIPT).
    #[test]
    fn every_script_has_its_body() {
        for s in SCRIPTS {
            let f = body(s).unwrap_or_else(|| panic!("{} has no body", s.name));
            let mut r = SimRedis::new(1);
            let keys: &[&[u8]] = &[b"k", b"w"];
            let argv: &[&[u8]] = match s.name {
                "markactive" => &[b"u1", b"1000", b"500", b"120"],
                _ => &[b"id", b"name", b"data"],
            };
            let expected = match s.name {
                "release" | "extend" => Reply::Integer(0),
                _ => Reply::Integer(1),
            };
            assert_eq!(f(&mut r, keys, argv), Ok(expected), "{}", s.name);
        }
    }

    /// The presence script as Redis 7.0.15 ran it (`redis-cli EVALSHA`, checked by hand and
    /// again by `tests/redis_differential.rs`): the HyperLogLog is written first and stays
    /// when a later call fails (no rollback); the size check uses Lua's `tonumber`.
    #[test]
    fn mark_active_stops_where_the_lua_stops() {
        let mut r = SimRedis::new(1).with_named_scripts();
        let sha = MARK_ACTIVE.sha1;
        let mut ev = |args: &[&str]| {
            let mut c = vec!["EVALSHA", sha];
            c.extend_from_slice(args);
            r.cmd(&c)
        };
        let tail = |e: &str| format!("{e} script: {sha}, on @user_script:1.");
        assert_eq!(
            ev(&["2", "room", "hll", "u1", "1000", "500", "120"]),
            Reply::Integer(1)
        );
        assert_eq!(
            ev(&["2", "room", "hll", "u2", "1000", "x", "120"]),
            Reply::Error(tail(
                "ERR user_script:1: attempt to compare number with nil"
            ))
        );
        assert_eq!(ev(&["2", "room", "hll"]), Reply::Error(tail(LUA_ARG_ERR)));
        assert_eq!(ev(&["1", "room", "u"]), Reply::Error(tail(LUA_ARG_ERR)));
        assert_eq!(
            ev(&["2", "room", "hll", "u6", "notafloat", "500", "120"]),
            Reply::Error(tail("ERR value is not a valid float"))
        );
        // EXPIRE fails after ZADD ran: u7 stays in the set.
        assert_eq!(
            ev(&["2", "room", "hll", "u7", "1", "500", "notint"]),
            Reply::Error(tail(NOT_INT))
        );
        assert_eq!(
            ev(&["2", "room", "hll", "u8", "1", "1", "120"]),
            Reply::Integer(0)
        );
        assert_eq!(
            ev(&["2", "room", "hll", "u8", "1", "2.5", "120"]),
            Reply::Integer(1)
        );
        assert_eq!(
            ev(&["2", "room", "hll", "u9", "1", " 3", "120"]),
            Reply::Integer(0)
        );
        assert_eq!(
            ev(&["2", "room", "hll", "u10", "1", "0x10", "120"]),
            Reply::Integer(1)
        );
        assert_eq!(
            ev(&["2", "room", "hll", "u11", "1", "1e2", "120"]),
            Reply::Integer(1)
        );
        assert_eq!(r.cmd(&["ZCARD", "room"]), Reply::Integer(5));
        assert_eq!(r.cmd(&["PFCOUNT", "hll"]), Reply::Integer(8));
        r.cmd(&["SET", "str", "oops"]);
        let mut c = vec!["EVALSHA", sha, "2", "str", "hll", "u12", "1", "500", "120"];
        assert_eq!(r.cmd(&c), Reply::Error(tail(super::super::WRONGTYPE)));
        c[3] = "room";
        c[4] = "str";
        assert_eq!(
            r.cmd(&c),
            Reply::Error(tail(
                "WRONGTYPE Key is not a valid HyperLogLog string value."
            ))
        );
    }

    #[test]
    fn lua_tonumber_reads_as_strtod() {
        let n = |s: &str| lua_tonumber(s.as_bytes());
        assert_eq!(n("500"), Some(500.0));
        assert_eq!(n(" 3 "), Some(3.0));
        assert_eq!(n("-2.5e1"), Some(-25.0));
        assert_eq!(n("0x10"), Some(16.0));
        assert_eq!(n(".5"), Some(0.5));
        assert_eq!(n("5."), Some(5.0));
        assert_eq!(n("inf"), Some(f64::INFINITY));
        assert!(n("nan").is_some_and(f64::is_nan));
        for bad in ["", " ", "x", "1x", "1e", "1 2", "--1", "."] {
            assert_eq!(n(bad), None, "{bad:?}");
        }
    }
}
