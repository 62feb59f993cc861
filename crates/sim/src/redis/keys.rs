//! Keys and strings: GET, SET, DEL, EXISTS, INCR, INCRBY, MGET, EXPIRE, PEXPIRE, TTL, PTTL,
//! PERSIST, TYPE — following `t_string.c`, `db.c` and `expire.c` of Redis 7.0.

use super::num::parse_i64;
use super::{wrongtype, Entry, Reply, SimRedis, Value, NOT_INT, OVERFLOW, SYNTAX};

const NX: u32 = 1;
const XX: u32 = 2;
const GET: u32 = 4;
const KEEPTTL: u32 = 8;
const EX: u32 = 16;
const PX: u32 = 32;
const EXAT: u32 = 64;
const PXAT: u32 = 128;

fn is(a: &[u8], word: &[u8]) -> bool {
    a.eq_ignore_ascii_case(word)
}

fn expire_time_error(cmd: &str) -> Reply {
    Reply::Error(format!("ERR invalid expire time in '{cmd}' command"))
}

impl SimRedis {
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

    /// `parseExtendedStringArgumentsOrReply` + `setGenericCommand`.
    pub(crate) fn set(&mut self, a: &[&[u8]]) -> Reply {
        let mut flags = 0u32;
        let mut expire: Option<&[u8]> = None;
        let mut j = 3;
        while j < a.len() {
            let opt = a[j];
            let next = a.get(j + 1).copied();
            let timed = EX | PX | EXAT | PXAT;
            if is(opt, b"nx") && flags & XX == 0 {
                flags |= NX;
            } else if is(opt, b"xx") && flags & NX == 0 {
                flags |= XX;
            } else if is(opt, b"get") {
                flags |= GET;
            } else if is(opt, b"keepttl") && flags & timed == 0 {
                flags |= KEEPTTL;
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
                if flags & (KEEPTTL | (timed & !unit)) != 0 {
                    return Reply::err(SYNTAX);
                }
                flags |= unit;
                expire = Some(v);
                j += 1;
            } else {
                return Reply::err(SYNTAX);
            }
            j += 1;
        }
        let mut when = None;
        if let Some(e) = expire {
            let Some(mut ms) = parse_i64(e) else {
                return Reply::err(NOT_INT);
            };
            let seconds = flags & (EX | EXAT) != 0;
            if ms <= 0 || (seconds && ms > i64::MAX / 1000) {
                return expire_time_error("set");
            }
            if seconds {
                ms *= 1000;
            }
            if flags & (EX | PX) != 0 {
                ms = ms.wrapping_add(self.mstime());
            }
            if ms <= 0 {
                return expire_time_error("set");
            }
            when = Some(ms);
        }
        let key = a[1];
        if flags & (NX | XX | GET | KEEPTTL) == 0 {
            // Plain SET: whatever was there (expired or not, any type) is replaced.
            self.store_bytes(key, a[2], false);
            if let Some(w) = when {
                self.set_expire(key, w);
            }
            return Reply::ok();
        }
        let mut old = Reply::Nil;
        let found = match self.lookup(key) {
            None => false,
            Some(e) => {
                if flags & GET != 0 {
                    match &e.value {
                        Value::Str(s) => old = Reply::Bulk(s.clone()),
                        _ => return wrongtype(),
                    }
                }
                true
            }
        };
        if (flags & NX != 0 && found) || (flags & XX != 0 && !found) {
            return if flags & GET != 0 { old } else { Reply::Nil };
        }
        self.store_bytes(key, a[2], flags & KEEPTTL != 0);
        if let Some(w) = when {
            self.set_expire(key, w);
        }
        if flags & GET != 0 {
            old
        } else {
            Reply::ok()
        }
    }

    pub(crate) fn del(&mut self, a: &[&[u8]]) -> Reply {
        let mut n = 0;
        for k in &a[1..] {
            if self.lookup(k).is_some() && self.delete(k) {
                n += 1;
            }
        }
        Reply::Integer(n)
    }

    pub(crate) fn exists(&mut self, a: &[&[u8]]) -> Reply {
        let mut n = 0;
        for k in &a[1..] {
            if self.lookup(k).is_some() {
                n += 1;
            }
        }
        Reply::Integer(n)
    }

    fn incr_by(&mut self, key: &[u8], by: i64) -> Reply {
        let cur = match self.lookup(key) {
            None => 0,
            Some(Entry {
                value: Value::Str(s),
                ..
            }) => match parse_i64(s) {
                Some(v) => v,
                None => return Reply::err(NOT_INT),
            },
            Some(_) => return wrongtype(),
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

    pub(crate) fn incrby(&mut self, a: &[&[u8]]) -> Reply {
        match parse_i64(a[2]) {
            Some(by) => self.incr_by(a[1], by),
            None => Reply::err(NOT_INT),
        }
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

    pub(crate) fn expire(&mut self, a: &[&[u8]]) -> Reply {
        self.expire_generic(a, true, "expire")
    }

    pub(crate) fn pexpire(&mut self, a: &[&[u8]]) -> Reply {
        self.expire_generic(a, false, "pexpire")
    }

    /// `expireGenericCommand` with `basetime = mstime()`.
    fn expire_generic(&mut self, a: &[&[u8]], seconds: bool, name: &str) -> Reply {
        let (mut nx, mut xx, mut gt, mut lt) = (false, false, false, false);
        for opt in &a[3..] {
            if is(opt, b"nx") {
                nx = true;
            } else if is(opt, b"xx") {
                xx = true;
            } else if is(opt, b"gt") {
                gt = true;
            } else if is(opt, b"lt") {
                lt = true;
            } else {
                return Reply::Error(format!(
                    "ERR Unsupported option {}",
                    String::from_utf8_lossy(opt)
                ));
            }
        }
        if nx && (xx || gt || lt) {
            return Reply::err(
                "ERR NX and XX, GT or LT options at the same time are not compatible",
            );
        }
        if gt && lt {
            return Reply::err("ERR GT and LT options at the same time are not compatible");
        }
        let Some(mut when) = parse_i64(a[2]) else {
            return Reply::err(NOT_INT);
        };
        if seconds {
            if !(i64::MIN / 1000..=i64::MAX / 1000).contains(&when) {
                return expire_time_error(name);
            }
            when *= 1000;
        }
        let base = self.mstime();
        if when > i64::MAX - base {
            return expire_time_error(name);
        }
        when += base;
        let key = a[1];
        let Some(e) = self.lookup(key) else {
            return Reply::Integer(0);
        };
        let cur = e.expire;
        if (nx && cur != -1)
            || (xx && cur == -1)
            || (gt && (when <= cur || cur == -1))
            || (lt && cur != -1 && when >= cur)
        {
            return Reply::Integer(0);
        }
        if when <= base {
            self.delete(key);
        } else {
            self.set_expire(key, when);
        }
        Reply::Integer(1)
    }

    fn ttl_generic(&mut self, key: &[u8], ms: bool) -> Reply {
        let now = self.mstime();
        let Some(e) = self.lookup(key) else {
            return Reply::Integer(-2);
        };
        if e.expire < 0 {
            return Reply::Integer(-1);
        }
        let ttl = (e.expire - now).max(0);
        Reply::Integer(if ms { ttl } else { (ttl + 500) / 1000 })
    }

    pub(crate) fn ttl(&mut self, a: &[&[u8]]) -> Reply {
        self.ttl_generic(a[1], false)
    }

    pub(crate) fn pttl(&mut self, a: &[&[u8]]) -> Reply {
        self.ttl_generic(a[1], true)
    }

    pub(crate) fn persist(&mut self, a: &[&[u8]]) -> Reply {
        if self.lookup(a[1]).is_none() {
            return Reply::Integer(0);
        }
        Reply::Integer(i64::from(self.remove_expire(a[1])))
    }

    pub(crate) fn type_cmd(&mut self, a: &[&[u8]]) -> Reply {
        let t = self.lookup(a[1]).map_or("none", |e| e.value.type_name());
        Reply::Status(t.into())
    }
}
