//! SCAN, HSCAN, SSCAN, ZSCAN with MATCH, COUNT and (SCAN) TYPE — following
//! `scanGenericCommand` of Redis 7.0's `db.c`.
//!
//! Redis walks a hash table's buckets with a reverse-binary cursor; what it guarantees is
//! that a full iteration (from cursor 0 back to 0) returns every element present from start
//! to end at least once, whatever happens in between. SimRedis keeps that guarantee another
//! way: each element has a fixed 32-bit hash (MurmurHash64A's top half), the cursor is a
//! position in hash space, and a call returns the `COUNT` elements with the smallest hashes
//! at or after it (all of those sharing the last hash), so elements that stay are swept
//! exactly once and the cursor only moves forward. The cursors and the page sizes therefore
//! differ from Redis' (each call costs O(n) here; SCAN is for labs' sizes), never the set
//! of elements a full iteration returns. As in Redis, a hash or sorted set still in its
//! listpack encoding and an intset are returned whole with cursor 0 (COUNT ignored), keys
//! past their TTL are dropped (and expired) as SCAN meets them, and MATCH / TYPE filter
//! after the page is chosen, so a page may come back short or empty.

use super::hll::murmur64a;
use super::ld::Ld;
use super::num::fmt_g17;
use super::pubsub::glob_match;
use super::{is, wrongtype, Entry, Reply, SimRedis, Value, NOT_INT, SYNTAX};

/// The element's place in hash space.
fn slot(x: &[u8]) -> u32 {
    (murmur64a(x, 0x5ca9) >> 32) as u32
}

/// `parseScanCursorOrReply` (`strtoul`: an optional sign, digits; `-1` wraps).
fn parse_cursor(s: &[u8]) -> Option<u64> {
    if s.first().is_some_and(u8::is_ascii_whitespace) {
        return None;
    }
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// An element of a scanned value and its value (hash field's value, member's score).
type Item = (Vec<u8>, Option<Vec<u8>>);

/// The options after the cursor.
struct Opts {
    count: usize,
    pattern: Option<Vec<u8>>,
    typ: Option<Vec<u8>>,
}

fn parse_opts(a: &[&[u8]], keyspace: bool) -> Result<Opts, Reply> {
    let mut o = Opts {
        count: 10,
        pattern: None,
        typ: None,
    };
    let mut i = 0;
    while i < a.len() {
        let left = a.len() - i;
        if is(a[i], b"count") && left >= 2 {
            let n = super::num::parse_i64(a[i + 1]).ok_or_else(|| Reply::err(NOT_INT))?;
            if n < 1 {
                return Err(Reply::err(SYNTAX));
            }
            o.count = n.min(1 << 30) as usize;
            i += 2;
        } else if is(a[i], b"match") && left >= 2 {
            o.pattern = (a[i + 1] != b"*").then(|| a[i + 1].to_vec());
            i += 2;
        } else if is(a[i], b"type") && keyspace && left >= 2 {
            o.typ = Some(a[i + 1].to_vec());
            i += 2;
        } else {
            return Err(Reply::err(SYNTAX));
        }
    }
    Ok(o)
}

/// The next page of a sweep over `items` from `cursor`: the chosen items' indexes and the
/// next cursor (0 when the sweep is over).
fn page<T>(items: &[T], key: impl Fn(&T) -> &[u8], cursor: u64, count: usize) -> (Vec<usize>, u64) {
    if cursor > u64::from(u32::MAX) {
        return (Vec::new(), 0);
    }
    let mut cand: Vec<(u32, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, x)| (slot(key(x)), i))
        .filter(|&(h, _)| u64::from(h) >= cursor)
        .collect();
    if cand.len() > count {
        cand.select_nth_unstable(count - 1);
        let last = cand[count - 1].0;
        let (mut chosen, rest): (Vec<_>, Vec<_>) = cand.into_iter().partition(|&(h, _)| h <= last);
        chosen.sort_unstable();
        let next = if rest.is_empty() || last == u32::MAX {
            0
        } else {
            u64::from(last) + 1
        };
        (chosen.into_iter().map(|(_, i)| i).collect(), next)
    } else {
        cand.sort_unstable();
        (cand.into_iter().map(|(_, i)| i).collect(), 0)
    }
}

fn matches(p: &Option<Vec<u8>>, x: &[u8]) -> bool {
    p.as_ref().is_none_or(|p| glob_match(p, x))
}

fn scan_reply(cursor: u64, items: Vec<Vec<u8>>) -> Reply {
    Reply::Array(vec![
        Reply::Bulk(cursor.to_string().into_bytes()),
        Reply::Array(items.into_iter().map(Reply::Bulk).collect()),
    ])
}

impl SimRedis {
    pub(crate) fn scan(&mut self, a: &[&[u8]]) -> Reply {
        let Some(cursor) = parse_cursor(a[1]) else {
            return Reply::err("ERR invalid cursor");
        };
        let o = match parse_opts(&a[2..], true) {
            Ok(o) => o,
            Err(e) => return e,
        };
        // Only the page's keys are copied (the sweep reads the rest in place).
        let (keys, next) = {
            let all: Vec<&Vec<u8>> = self.keys.keys().collect();
            let (chosen, next) = page(&all, |k| k.as_slice(), cursor, o.count);
            let keys: Vec<Vec<u8>> = chosen.into_iter().map(|i| all[i].clone()).collect();
            (keys, next)
        };
        let mut out = Vec::new();
        for k in &keys {
            if !matches(&o.pattern, k) {
                continue;
            }
            if let Some(t) = &o.typ {
                let ty = if self.lookup_notouch(k) {
                    self.keys[k.as_slice()].value.type_name()
                } else {
                    "none"
                };
                if !t.eq_ignore_ascii_case(ty.as_bytes()) {
                    continue;
                }
            }
            if !self.lookup_notouch(k) {
                continue;
            }
            out.push(k.clone());
        }
        scan_reply(next, out)
    }

    /// HSCAN / SSCAN / ZSCAN on the value at `a[1]` (`kind` is its type name).
    fn scan_value(&mut self, a: &[&[u8]], kind: &str) -> Reply {
        let Some(cursor) = parse_cursor(a[2]) else {
            return Reply::err("ERR invalid cursor");
        };
        let e = match self.lookup(a[1]) {
            None => return scan_reply(0, Vec::new()),
            Some(Entry { value, .. }) if value.type_name() == kind => value.clone(),
            Some(_) => return wrongtype(),
        };
        let o = match parse_opts(&a[3..], false) {
            Ok(o) => o,
            Err(e) => return e,
        };
        // (element, its value if any), in the encoding's order; whole when not a table.
        let (items, whole): (Vec<Item>, bool) = match &e {
            Value::Hash(h) => (
                h.pairs()
                    .map(|(f, v)| (f.to_vec(), Some(v.to_vec())))
                    .collect(),
                h.is_listpack(),
            ),
            Value::Set(s) => (
                s.members().into_iter().map(|m| (m, None)).collect(),
                s.is_intset(),
            ),
            Value::ZSet(z) => {
                let listpack = z.is_listpack();
                let text = |s: f64| {
                    if listpack {
                        fmt_g17(s)
                    } else {
                        Ld::from_f64(s).human()
                    }
                };
                (
                    z.iter()
                        .map(|(m, s)| (m.to_vec(), Some(text(s).into_bytes())))
                        .collect(),
                    listpack,
                )
            }
            _ => unreachable!("checked the type"),
        };
        let (chosen, next) = if whole {
            ((0..items.len()).collect(), 0)
        } else {
            page(&items, |x| &x.0, cursor, o.count)
        };
        let mut out = Vec::new();
        for i in chosen {
            let (k, v) = &items[i];
            if !matches(&o.pattern, k) {
                continue;
            }
            out.push(k.clone());
            if let Some(v) = v {
                out.push(v.clone());
            }
        }
        scan_reply(next, out)
    }

    pub(crate) fn hscan(&mut self, a: &[&[u8]]) -> Reply {
        self.scan_value(a, "hash")
    }

    pub(crate) fn sscan(&mut self, a: &[&[u8]]) -> Reply {
        self.scan_value(a, "set")
    }

    pub(crate) fn zscan(&mut self, a: &[&[u8]]) -> Reply {
        self.scan_value(a, "zset")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_like_strtoul() {
        assert_eq!(parse_cursor(b"0"), Some(0));
        assert_eq!(parse_cursor(b""), Some(0));
        assert_eq!(parse_cursor(b"-1"), Some(u64::MAX));
        assert_eq!(parse_cursor(b"+7"), Some(7));
        assert_eq!(parse_cursor(b" 1"), None);
        assert_eq!(parse_cursor(b"1x"), None);
        assert_eq!(parse_cursor(b"99999999999999999999"), None);
    }

    #[test]
    fn a_full_sweep_returns_everything_once() {
        let mut s = SimRedis::new(1);
        for i in 0..1000 {
            s.cmd(&["SET", &format!("k{i}"), "v"]);
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut cursor = "0".to_string();
        let mut calls = 0;
        loop {
            let Reply::Array(r) = s.cmd(&["SCAN", &cursor, "COUNT", "37"]) else {
                panic!("an array")
            };
            let Reply::Array(keys) = &r[1] else { panic!() };
            for k in keys {
                assert!(seen.insert(k.as_bulk().unwrap().to_vec()), "returned twice");
            }
            // Keys come and go meanwhile; those present throughout must all be seen.
            s.cmd(&["DEL", &format!("k{}", 999 - calls)]);
            s.cmd(&["SET", &format!("new{calls}"), "v"]);
            calls += 1;
            cursor = String::from_utf8(r[0].as_bulk().unwrap().to_vec()).unwrap();
            if cursor == "0" {
                break;
            }
        }
        for i in 0..(1000 - calls) {
            assert!(seen.contains(format!("k{i}").as_bytes()), "k{i} missed");
        }
        assert!(calls >= 27, "{calls} pages of at most 37");
    }
}
