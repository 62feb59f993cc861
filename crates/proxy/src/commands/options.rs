//! The per-command checks and rewrites: sizes, block times, COUNT and LIMIT caps, SET's
//! expiry, XADD's MAXLEN, XREADGROUP's streams and BLOCK — and the facts the accounting needs
//! ([`Shape`]).

use super::{err, over, Expiry, Limits, Shape};
use crate::protocol::{Code, ErrBody, Limit};

pub(super) fn check_sizes(words: &[String], limits: &Limits) -> Result<(), ErrBody> {
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
pub(super) fn bound_seconds(arg: &str, max_ms: u64) -> Result<(String, u64), ErrBody> {
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

pub(super) fn is(w: &str, name: &str) -> bool {
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
/// The per-command options: caps on COUNT and LIMIT, and the facts the accounting needs.
pub(super) fn options(
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
pub(super) fn xadd(words: &mut Vec<String>, limits: &Limits) -> Result<Shape, ErrBody> {
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
pub(super) fn xreadgroup_keys(words: &[String]) -> Result<Vec<usize>, ErrBody> {
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
pub(super) fn xreadgroup_block(
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
