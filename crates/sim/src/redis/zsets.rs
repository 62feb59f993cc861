//! Sorted sets: ZADD, ZCARD, ZRANGE (BYSCORE/REV/LIMIT/WITHSCORES), ZRANGEBYSCORE,
//! ZREMRANGEBYSCORE, ZSCORE, ZREM, ZINCRBY — following `t_zset.c` of Redis 7.0.
//!
//! Members are ordered by (score, member bytes) like Redis' skiplist, in std's `BTreeSet`
//! beside a member → score map: O(log n) updates, rank ranges walk from an end. No skiplist
//! or order-statistic crate is needed for the set sizes the labs use; the order is what
//! matters, and it is Redis' exactly (ties broken by `memcmp` of the members).

use super::num::{fmt_g17, parse_f64, parse_f64_lenient, parse_i64};
use super::{wrongtype, Entry, Reply, SimRedis, Value, NOT_INT, SYNTAX};
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

/// A score that is never NaN, so it has a total order (-0 and 0 compare equal, as in C).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Score(f64);

impl PartialEq for Score {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}
impl Eq for Score {}
impl PartialOrd for Score {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Score {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.partial_cmp(&o.0).expect("scores are never NaN")
    }
}

/// The sorted set value.
#[derive(Clone, Debug, Default)]
pub(crate) struct ZSet {
    scores: HashMap<Vec<u8>, f64, super::Fixed>,
    order: BTreeSet<(Score, Vec<u8>)>,
}

impl ZSet {
    fn len(&self) -> usize {
        self.scores.len()
    }

    /// Stores a score; -0 is stored as 0 (a small sorted set's listpack stores the text
    /// "0": `ZADD z -0 m` then `ZSCORE z m` answers "0", though ZINCRBY's own reply is "-0").
    fn insert(&mut self, m: &[u8], s: f64) {
        let s = s + 0.0;
        if let Some(old) = self.scores.insert(m.to_vec(), s) {
            self.order.remove(&(Score(old), m.to_vec()));
        }
        self.order.insert((Score(s), m.to_vec()));
    }

    fn remove(&mut self, m: &[u8]) -> bool {
        match self.scores.remove(m) {
            Some(s) => {
                self.order.remove(&(Score(s), m.to_vec()));
                true
            }
            None => false,
        }
    }

    /// Members with `min <= score <= max` (ends exclusive when asked), ascending.
    fn by_score(&self, r: &Range) -> impl DoubleEndedIterator<Item = &(Score, Vec<u8>)> {
        let lo = (Score(r.min), Vec::new());
        let hi_ok = move |s: f64| if r.maxex { s < r.max } else { s <= r.max };
        let lo_ok = move |s: f64| if r.minex { s > r.min } else { s >= r.min };
        let empty = r.min > r.max || (r.min == r.max && (r.minex || r.maxex));
        self.order
            .range(lo..)
            .take_while(move |(s, _)| !empty && hi_ok(s.0))
            .filter(move |(s, _)| lo_ok(s.0))
            .collect::<Vec<_>>()
            .into_iter()
    }
}

/// `zrangespec`.
#[derive(Clone, Copy, Debug)]
struct Range {
    min: f64,
    max: f64,
    minex: bool,
    maxex: bool,
}

/// `zslParseRangeItem`.
fn parse_item(s: &[u8]) -> Option<(f64, bool)> {
    match s.first() {
        Some(b'(') => parse_f64_lenient(&s[1..]).map(|v| (v, true)),
        _ => parse_f64_lenient(s).map(|v| (v, false)),
    }
}

fn parse_range(min: &[u8], max: &[u8]) -> Option<Range> {
    let (min, minex) = parse_item(min)?;
    let (max, maxex) = parse_item(max)?;
    Some(Range {
        min,
        max,
        minex,
        maxex,
    })
}

const NAN_ERR: &str = "ERR resulting score is not a number (NaN)";
const FLOAT_ERR: &str = "ERR value is not a valid float";

fn score_reply(s: f64) -> Reply {
    Reply::Bulk(fmt_g17(s).into_bytes())
}

fn is(a: &[u8], w: &[u8]) -> bool {
    a.eq_ignore_ascii_case(w)
}

impl SimRedis {
    fn zset(&mut self, key: &[u8]) -> Result<Option<&mut ZSet>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(Entry {
                value: Value::ZSet(z),
                ..
            }) => Ok(Some(z)),
            Some(_) => Err(wrongtype()),
        }
    }

    /// `zaddGenericCommand`; `incr_only` is ZINCRBY.
    fn zadd_generic(&mut self, a: &[&[u8]], incr_only: bool) -> Reply {
        let (mut nx, mut xx, mut ch, mut incr, mut gt, mut lt) =
            (false, false, false, incr_only, false, false);
        let mut idx = 2;
        if !incr_only {
            while idx < a.len() {
                let o = a[idx];
                if is(o, b"nx") {
                    nx = true;
                } else if is(o, b"xx") {
                    xx = true;
                } else if is(o, b"ch") {
                    ch = true;
                } else if is(o, b"incr") {
                    incr = true;
                } else if is(o, b"gt") {
                    gt = true;
                } else if is(o, b"lt") {
                    lt = true;
                } else {
                    break;
                }
                idx += 1;
            }
        }
        let elements = a.len() - idx;
        if elements % 2 == 1 || elements == 0 {
            return Reply::err(SYNTAX);
        }
        let elements = elements / 2;
        if nx && xx {
            return Reply::err("ERR XX and NX options at the same time are not compatible");
        }
        if (nx && (gt || lt)) || (gt && lt) {
            return Reply::err("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if incr && elements > 1 {
            return Reply::err("ERR INCR option supports a single increment-element pair");
        }
        let mut scores = Vec::with_capacity(elements);
        for j in 0..elements {
            match parse_f64(a[idx + j * 2], false) {
                Some(s) => scores.push(s),
                None => return Reply::err(FLOAT_ERR),
            }
        }
        let key = a[1];
        match self.zset(key) {
            Err(e) => return e,
            Ok(Some(_)) => {}
            Ok(None) => {
                if xx {
                    return if incr { Reply::Nil } else { Reply::Integer(0) };
                }
                self.store(key, Value::ZSet(ZSet::default()), false);
            }
        }
        let Ok(Some(z)) = self.zset(key) else {
            unreachable!("just stored a zset")
        };
        let (mut added, mut updated, mut processed) = (0i64, 0i64, 0i64);
        let mut last = 0.0;
        for (j, &s) in scores.iter().enumerate() {
            let m = a[idx + j * 2 + 1];
            match z.scores.get(m).copied() {
                Some(cur) => {
                    if nx {
                        continue;
                    }
                    let mut new = s;
                    if incr {
                        new = cur + s;
                        if new.is_nan() {
                            return Reply::err(NAN_ERR);
                        }
                    }
                    if (lt && new >= cur) || (gt && new <= cur) {
                        continue;
                    }
                    if new != cur {
                        z.insert(m, new);
                        updated += 1;
                    }
                    processed += 1;
                    last = new;
                }
                None => {
                    if xx {
                        continue;
                    }
                    z.insert(m, s);
                    added += 1;
                    processed += 1;
                    last = s;
                }
            }
        }
        if incr {
            if processed > 0 {
                score_reply(last)
            } else {
                Reply::Nil
            }
        } else {
            Reply::Integer(if ch { added + updated } else { added })
        }
    }

    pub(crate) fn zadd(&mut self, a: &[&[u8]]) -> Reply {
        self.zadd_generic(a, false)
    }

    pub(crate) fn zincrby(&mut self, a: &[&[u8]]) -> Reply {
        self.zadd_generic(a, true)
    }

    pub(crate) fn zcard(&mut self, a: &[&[u8]]) -> Reply {
        match self.zset(a[1]) {
            Err(e) => e,
            Ok(z) => Reply::Integer(z.map_or(0, |z| z.len() as i64)),
        }
    }

    pub(crate) fn zscore(&mut self, a: &[&[u8]]) -> Reply {
        match self.zset(a[1]) {
            Err(e) => e,
            Ok(None) => Reply::Nil,
            Ok(Some(z)) => z.scores.get(a[2]).map_or(Reply::Nil, |&s| score_reply(s)),
        }
    }

    pub(crate) fn zrem(&mut self, a: &[&[u8]]) -> Reply {
        let z = match self.zset(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(z)) => z,
        };
        let mut n = 0;
        for m in &a[2..] {
            if z.remove(m) {
                n += 1;
            }
        }
        if z.len() == 0 {
            self.delete(a[1]);
        }
        Reply::Integer(n)
    }

    pub(crate) fn zremrangebyscore(&mut self, a: &[&[u8]]) -> Reply {
        let Some(r) = parse_range(a[2], a[3]) else {
            return Reply::err("ERR min or max is not a float");
        };
        let z = match self.zset(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(z)) => z,
        };
        let gone: Vec<Vec<u8>> = z.by_score(&r).map(|(_, m)| m.clone()).collect();
        for m in &gone {
            z.remove(m);
        }
        if z.len() == 0 {
            self.delete(a[1]);
        }
        Reply::Integer(gone.len() as i64)
    }

    pub(crate) fn zrange(&mut self, a: &[&[u8]]) -> Reply {
        self.zrange_generic(a, false)
    }

    pub(crate) fn zrangebyscore(&mut self, a: &[&[u8]]) -> Reply {
        self.zrange_generic(a, true)
    }

    /// `zrangeGenericCommand` for ZRANGE (rank or BYSCORE, REV) and ZRANGEBYSCORE.
    fn zrange_generic(&mut self, a: &[&[u8]], byscore_cmd: bool) -> Reply {
        #[derive(PartialEq)]
        enum Kind {
            Auto,
            Rank,
            Score,
            Lex,
        }
        let mut kind = if byscore_cmd { Kind::Score } else { Kind::Auto };
        let mut rev: Option<bool> = if byscore_cmd { Some(false) } else { None };
        let (mut withscores, mut offset, mut limit) = (false, 0i64, -1i64);
        let mut j = 4;
        while j < a.len() {
            let left = a.len() - j - 1;
            let o = a[j];
            if is(o, b"withscores") {
                withscores = true;
            } else if is(o, b"limit") && left >= 2 {
                match (parse_i64(a[j + 1]), parse_i64(a[j + 2])) {
                    (Some(x), Some(y)) => (offset, limit) = (x, y),
                    _ => return Reply::err(NOT_INT),
                }
                j += 2;
            } else if rev.is_none() && is(o, b"rev") {
                rev = Some(true);
            } else if kind == Kind::Auto && is(o, b"bylex") {
                kind = Kind::Lex;
            } else if kind == Kind::Auto && is(o, b"byscore") {
                kind = Kind::Score;
            } else {
                return Reply::err(SYNTAX);
            }
            j += 1;
        }
        let rev = rev.unwrap_or(false);
        if kind == Kind::Auto {
            kind = Kind::Rank;
        }
        if limit != -1 && kind == Kind::Rank {
            return Reply::err(
                "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
            );
        }
        if withscores && kind == Kind::Lex {
            return Reply::err(
                "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
            );
        }
        if kind == Kind::Lex {
            return Reply::err("ERR BYLEX is not modelled by SimRedis");
        }
        let (mut lo, mut hi) = (a[2], a[3]);
        if rev && kind == Kind::Score {
            std::mem::swap(&mut lo, &mut hi);
        }
        let mut rank = (0i64, 0i64);
        let mut range = None;
        if kind == Kind::Rank {
            match (parse_i64(lo), parse_i64(hi)) {
                (Some(s), Some(e)) => rank = (s, e),
                _ => return Reply::err(NOT_INT),
            }
        } else {
            match parse_range(lo, hi) {
                Some(r) => range = Some(r),
                None => return Reply::err("ERR min or max is not a float"),
            }
        }
        let z = match self.zset(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Array(vec![]),
            Ok(Some(z)) => z,
        };
        let picked: Vec<&(Score, Vec<u8>)> = match range {
            None => {
                let len = z.len() as i64;
                let (mut s, mut e) = rank;
                if s < 0 {
                    s += len;
                }
                if e < 0 {
                    e += len;
                }
                if s < 0 {
                    s = 0;
                }
                if s > e || s >= len {
                    return Reply::Array(vec![]);
                }
                if e >= len {
                    e = len - 1;
                }
                let n = (e - s + 1) as usize;
                if rev {
                    z.order.iter().rev().skip(s as usize).take(n).collect()
                } else {
                    z.order.iter().skip(s as usize).take(n).collect()
                }
            }
            Some(r) => {
                if offset < 0 || (offset > 0 && offset >= z.len() as i64) {
                    return Reply::Array(vec![]);
                }
                let take = if limit < 0 {
                    usize::MAX
                } else {
                    limit as usize
                };
                if rev {
                    z.by_score(&r)
                        .rev()
                        .skip(offset as usize)
                        .take(take)
                        .collect()
                } else {
                    z.by_score(&r).skip(offset as usize).take(take).collect()
                }
            }
        };
        let mut out = Vec::with_capacity(picked.len() * if withscores { 2 } else { 1 });
        for (s, m) in picked {
            out.push(Reply::Bulk(m.clone()));
            if withscores {
                out.push(score_reply(s.0));
            }
        }
        Reply::Array(out)
    }
}
