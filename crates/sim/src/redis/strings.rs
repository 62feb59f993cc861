//! Strings: GET, SET, SETNX, SETEX, PSETEX, GETSET, GETDEL, GETEX, MGET, MSET, MSETNX, INCR,
//! INCRBY, DECR, DECRBY, INCRBYFLOAT, APPEND, STRLEN, GETRANGE, SETRANGE — following
//! `t_string.c` of Redis 7.0.

use super::ld::{Ld, LdError};
use super::num::parse_i64;
use super::{
    arity_error, is, wrongtype, Entry, Reply, SimRedis, StrEnc, Value, NOT_INT, OVERFLOW, SYNTAX,
};

const NX: u32 = 1;
const XX: u32 = 2;
const GET: u32 = 4;
const KEEPTTL: u32 = 8;
const EX: u32 = 16;
const PX: u32 = 32;
const EXAT: u32 = 64;
const PXAT: u32 = 128;
const PERSIST: u32 = 256;
const TIMED: u32 = EX | PX | EXAT | PXAT;

/// `proto-max-bulk-len`'s default, 512 MB.
const MAX_BULK: i64 = 512 * 1024 * 1024;

pub(crate) fn expire_time_error(cmd: &str) -> Reply {
    Reply::Error(format!("ERR invalid expire time in '{cmd}' command"))
}

/// `parseExtendedStringArgumentsOrReply` for SET (`get == false`) or GETEX: the flags and
/// the expire argument.
fn parse_extended<'a>(a: &[&'a [u8]], get: bool) -> Result<(u32, Option<&'a [u8]>), Reply> {
    let mut flags = 0u32;
    let mut expire = None;
    let mut j = if get { 2 } else { 3 };
    while j < a.len() {
        let opt = a[j];
        let next = a.get(j + 1).copied();
        if !get && is(opt, b"nx") && flags & XX == 0 {
            flags |= NX;
        } else if !get && is(opt, b"xx") && flags & NX == 0 {
            flags |= XX;
        } else if !get && is(opt, b"get") {
            flags |= GET;
        } else if !get && is(opt, b"keepttl") && flags & (PERSIST | TIMED) == 0 {
            flags |= KEEPTTL;
        } else if get && is(opt, b"persist") && flags & (TIMED | KEEPTTL) == 0 {
            flags |= PERSIST;
        } else if let (Some(unit), Some(v)) = (
            [
                (&b"ex"[..], EX),
                (b"px", PX),
                (b"exat", EXAT),
                (b"pxat", PXAT),
            ]
            .iter()
            .find(|(w, _)| is(opt, w))
            .map(|&(_, f)| f),
            next,
        ) {
            if flags & (KEEPTTL | PERSIST | (TIMED & !unit)) != 0 {
                return Err(Reply::err(SYNTAX));
            }
            flags |= unit;
            expire = Some(v);
            j += 1;
        } else {
            return Err(Reply::err(SYNTAX));
        }
        j += 1;
    }
    Ok((flags, expire))
}

impl SimRedis {
    /// `getExpireMillisecondsOrReply`: the absolute expiry (unix ms).
    fn expire_ms(&self, e: &[u8], flags: u32, name: &str) -> Result<i64, Reply> {
        let mut ms = parse_i64(e).ok_or_else(|| Reply::err(NOT_INT))?;
        let seconds = flags & (EX | EXAT) != 0;
        if ms <= 0 || (seconds && ms > i64::MAX / 1000) {
            return Err(expire_time_error(name));
        }
        if seconds {
            ms *= 1000;
        }
        if flags & (EX | PX) != 0 {
            ms = ms.wrapping_add(self.mstime());
        }
        if ms <= 0 {
            return Err(expire_time_error(name));
        }
        Ok(ms)
    }

    /// The string at `key`: `Ok(None)` when missing, `Err` on a wrong type.
    pub(crate) fn string(&mut self, key: &[u8]) -> Result<Option<&mut Entry>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(e) if matches!(e.value, Value::Str(_)) => Ok(Some(e)),
            Some(_) => Err(wrongtype()),
        }
    }

    pub(crate) fn get(&mut self, a: &[&[u8]]) -> Reply {
        match self.lookup(a[1]) {
            None => Reply::Nil,
            Some(Entry {
                value: Value::Str(s),
                ..
            }) => Reply::Bulk(s.clone()),
            Some(_) => wrongtype(),
        }
    }

    /// `setGenericCommand`.
    fn set_generic(
        &mut self,
        flags: u32,
        key: &[u8],
        val: &[u8],
        expire: Option<&[u8]>,
        name: &str,
    ) -> Result<Reply, Reply> {
        let when = match expire {
            Some(e) => Some(self.expire_ms(e, flags, name)?),
            None => None,
        };
        if flags & (NX | XX | GET | KEEPTTL) == 0 {
            // Plain SET: whatever was there (expired or not, any type) is replaced.
            self.store_bytes(key, val, false);
            if let Some(w) = when {
                self.set_expire(key, w);
            }
            return Ok(Reply::ok());
        }
        let mut old = Reply::Nil;
        let found = match self.lookup(key) {
            None => false,
            Some(e) => {
                if flags & GET != 0 {
                    match &e.value {
                        Value::Str(s) => old = Reply::Bulk(s.clone()),
                        _ => return Err(wrongtype()),
                    }
                }
                true
            }
        };
        if (flags & NX != 0 && found) || (flags & XX != 0 && !found) {
            return Ok(if flags & GET != 0 { old } else { Reply::Nil });
        }
        self.store_bytes(key, val, flags & KEEPTTL != 0);
        if let Some(w) = when {
            self.set_expire(key, w);
        }
        Ok(if flags & GET != 0 { old } else { Reply::ok() })
    }

    pub(crate) fn set(&mut self, a: &[&[u8]]) -> Reply {
        if a.len() == 3 {
            // The labs' hot path: no option at all.
            self.store_bytes(a[1], a[2], false);
            return Reply::ok();
        }
        match parse_extended(a, false)
            .and_then(|(flags, e)| self.set_generic(flags, a[1], a[2], e, "set"))
        {
            Ok(r) | Err(r) => r,
        }
    }

    pub(crate) fn setnx(&mut self, a: &[&[u8]]) -> Reply {
        if self.lookup(a[1]).is_some() {
            return Reply::Integer(0);
        }
        self.store_bytes(a[1], a[2], false);
        Reply::Integer(1)
    }

    pub(crate) fn setex(&mut self, a: &[&[u8]]) -> Reply {
        match self.set_generic(EX, a[1], a[3], Some(a[2]), "setex") {
            Ok(r) | Err(r) => r,
        }
    }

    pub(crate) fn psetex(&mut self, a: &[&[u8]]) -> Reply {
        match self.set_generic(PX, a[1], a[3], Some(a[2]), "psetex") {
            Ok(r) | Err(r) => r,
        }
    }

    pub(crate) fn getset(&mut self, a: &[&[u8]]) -> Reply {
        let old = match self.string(a[1]) {
            Err(e) => return e,
            Ok(None) => Reply::Nil,
            Ok(Some(e)) => match &e.value {
                Value::Str(s) => Reply::Bulk(s.clone()),
                _ => unreachable!("a string"),
            },
        };
        self.store_bytes(a[1], a[2], false);
        old
    }

    pub(crate) fn getdel(&mut self, a: &[&[u8]]) -> Reply {
        let r = self.get(a);
        if matches!(r, Reply::Bulk(_)) {
            self.delete_signal(a[1]);
        }
        r
    }

    pub(crate) fn getex(&mut self, a: &[&[u8]]) -> Reply {
        let (flags, expire) = match parse_extended(a, true) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let value = match self.string(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Nil,
            Ok(Some(e)) => match &e.value {
                Value::Str(s) => s.clone(),
                _ => unreachable!("a string"),
            },
        };
        let when = match expire {
            Some(e) => match self.expire_ms(e, flags, "getex") {
                Ok(w) => Some(w),
                Err(r) => return r,
            },
            None => None,
        };
        let key = a[1];
        match when {
            Some(w) if flags & (EXAT | PXAT) != 0 && w <= self.mstime() => {
                self.delete_signal(key);
            }
            Some(w) => {
                self.set_expire(key, w);
                self.modified(key);
            }
            None => {
                if flags & PERSIST != 0 && self.remove_expire(key) {
                    self.modified(key);
                }
            }
        }
        Reply::Bulk(value)
    }

    pub(crate) fn mget(&mut self, a: &[&[u8]]) -> Reply {
        let mut out = Vec::with_capacity(a.len() - 1);
        for k in &a[1..] {
            out.push(match self.lookup(k) {
                Some(Entry {
                    value: Value::Str(s),
                    ..
                }) => Reply::Bulk(s.clone()),
                _ => Reply::Nil,
            });
        }
        Reply::Array(out)
    }

    fn mset_generic(&mut self, a: &[&[u8]], nx: bool, name: &[u8]) -> Reply {
        if a.len() % 2 == 0 {
            return arity_error(name);
        }
        if nx && a[1..].chunks(2).any(|kv| self.lookup(kv[0]).is_some()) {
            return Reply::Integer(0);
        }
        for kv in a[1..].chunks(2) {
            self.store_bytes(kv[0], kv[1], false);
        }
        if nx {
            Reply::Integer(1)
        } else {
            Reply::ok()
        }
    }

    pub(crate) fn mset(&mut self, a: &[&[u8]]) -> Reply {
        self.mset_generic(a, false, b"mset")
    }

    pub(crate) fn msetnx(&mut self, a: &[&[u8]]) -> Reply {
        self.mset_generic(a, true, b"msetnx")
    }

    /// `incrDecrCommand`.
    fn incr_by(&mut self, key: &[u8], by: i64) -> Reply {
        let cur = match self.string(key) {
            Err(e) => return e,
            Ok(None) => 0,
            Ok(Some(e)) => match &e.value {
                Value::Str(s) => match parse_i64(s) {
                    Some(v) => v,
                    None => return Reply::err(NOT_INT),
                },
                _ => unreachable!("a string"),
            },
        };
        let Some(new) = cur.checked_add(by) else {
            return Reply::err(OVERFLOW);
        };
        self.store_bytes(key, new.to_string().as_bytes(), true);
        Reply::Integer(new)
    }

    pub(crate) fn incr(&mut self, a: &[&[u8]]) -> Reply {
        self.incr_by(a[1], 1)
    }

    pub(crate) fn decr(&mut self, a: &[&[u8]]) -> Reply {
        self.incr_by(a[1], -1)
    }

    pub(crate) fn incrby(&mut self, a: &[&[u8]]) -> Reply {
        match parse_i64(a[2]) {
            Some(by) => self.incr_by(a[1], by),
            None => Reply::err(NOT_INT),
        }
    }

    pub(crate) fn decrby(&mut self, a: &[&[u8]]) -> Reply {
        match parse_i64(a[2]) {
            Some(i64::MIN) => Reply::err("ERR decrement would overflow"),
            Some(by) => self.incr_by(a[1], -by),
            None => Reply::err(NOT_INT),
        }
    }

    pub(crate) fn incrbyfloat(&mut self, a: &[&[u8]]) -> Reply {
        const BAD: &str = "ERR value is not a valid float";
        let cur = match self.string(a[1]) {
            Err(e) => return e,
            Ok(None) => Ok(Ld::from_i64(0)),
            Ok(Some(e)) => match &e.value {
                Value::Str(s) => Ld::parse(s),
                _ => unreachable!("a string"),
            },
        };
        let new = match (cur, Ld::parse(a[2])) {
            (Err(LdError::Invalid), _) | (_, Err(LdError::Invalid)) => return Reply::err(BAD),
            (Ok(x), Ok(y)) => x.add(y),
            _ => None, // an infinity
        };
        let Some(new) = new else {
            return Reply::err("ERR increment would produce NaN or Infinity");
        };
        let text = new.human();
        self.store_bytes(a[1], text.as_bytes(), true);
        if let Some(e) = self.keys.get_mut(a[1]) {
            e.enc = StrEnc::NotInt;
        }
        Reply::Bulk(text.into_bytes())
    }

    pub(crate) fn append(&mut self, a: &[&[u8]]) -> Reply {
        let key = a[1];
        let len = match self.string(key) {
            Err(e) => return e,
            Ok(None) => {
                self.store_bytes(key, a[2], false);
                return Reply::Integer(a[2].len() as i64);
            }
            Ok(Some(e)) => {
                let Value::Str(s) = &mut e.value else {
                    unreachable!("a string")
                };
                if s.len() as i64 + a[2].len() as i64 > MAX_BULK {
                    return Reply::err(
                        "ERR string exceeds maximum allowed size (proto-max-bulk-len)",
                    );
                }
                s.extend_from_slice(a[2]);
                e.enc = StrEnc::Raw;
                s.len()
            }
        };
        self.modified(key);
        Reply::Integer(len as i64)
    }

    pub(crate) fn strlen(&mut self, a: &[&[u8]]) -> Reply {
        match self.string(a[1]) {
            Err(e) => e,
            Ok(None) => Reply::Integer(0),
            Ok(Some(e)) => match &e.value {
                Value::Str(s) => Reply::Integer(s.len() as i64),
                _ => unreachable!("a string"),
            },
        }
    }

    pub(crate) fn getrange(&mut self, a: &[&[u8]]) -> Reply {
        let (Some(mut start), Some(mut end)) = (parse_i64(a[2]), parse_i64(a[3])) else {
            return Reply::err(NOT_INT);
        };
        let s = match self.string(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::bulk(""),
            Ok(Some(e)) => match &e.value {
                Value::Str(s) => s,
                _ => unreachable!("a string"),
            },
        };
        let len = s.len() as i64;
        if start < 0 && end < 0 && start > end {
            return Reply::bulk("");
        }
        if start < 0 {
            start += len;
        }
        if end < 0 {
            end += len;
        }
        start = start.max(0);
        end = end.max(0);
        if end >= len {
            end = len - 1;
        }
        if start > end || len == 0 {
            return Reply::bulk("");
        }
        Reply::Bulk(s[start as usize..=end as usize].to_vec())
    }

    pub(crate) fn setrange(&mut self, a: &[&[u8]]) -> Reply {
        let Some(offset) = parse_i64(a[2]) else {
            return Reply::err(NOT_INT);
        };
        if offset < 0 {
            return Reply::err("ERR offset is out of range");
        }
        let (key, v) = (a[1], a[3]);
        let too_long = offset.saturating_add(v.len() as i64) > MAX_BULK;
        const TOO_LONG: &str = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
        let len = match self.string(key) {
            Err(e) => return e,
            Ok(None) => {
                if v.is_empty() {
                    return Reply::Integer(0);
                }
                if too_long {
                    return Reply::err(TOO_LONG);
                }
                let mut s = vec![0u8; offset as usize + v.len()];
                s[offset as usize..].copy_from_slice(v);
                let n = s.len();
                self.store(key, Value::Str(s), false);
                if let Some(e) = self.keys.get_mut(key) {
                    e.enc = StrEnc::Raw;
                }
                return Reply::Integer(n as i64);
            }
            Ok(Some(e)) => {
                let Value::Str(s) = &mut e.value else {
                    unreachable!("a string")
                };
                if v.is_empty() {
                    return Reply::Integer(s.len() as i64);
                }
                if too_long {
                    return Reply::err(TOO_LONG);
                }
                let end = offset as usize + v.len();
                if s.len() < end {
                    s.resize(end, 0);
                }
                s[offset as usize..end].copy_from_slice(v);
                e.enc = StrEnc::Raw;
                s.len()
            }
        };
        self.modified(key);
        Reply::Integer(len as i64)
    }
}
