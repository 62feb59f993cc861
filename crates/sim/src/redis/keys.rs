//! Keys: DEL, UNLINK, EXISTS, TYPE, RENAME, RENAMENX, EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT,
//! EXPIRETIME, PEXPIRETIME, TTL, PTTL, PERSIST, OBJECT — following `db.c`, `expire.c` and
//! `object.c` of Redis 7.0.

use super::num::parse_i64;
use super::strings::expire_time_error;
use super::{is, Reply, SimRedis, StrEnc, Value, NOT_INT};

impl SimRedis {
    pub(crate) fn del(&mut self, a: &[&[u8]]) -> Reply {
        let mut n = 0;
        for k in &a[1..] {
            if self.lookup_notouch(k) && self.delete_signal(k) {
                n += 1;
            }
        }
        Reply::Integer(n)
    }

    pub(crate) fn exists(&mut self, a: &[&[u8]]) -> Reply {
        let mut n = 0;
        for k in &a[1..] {
            if self.lookup_notouch(k) {
                n += 1;
            }
        }
        Reply::Integer(n)
    }

    pub(crate) fn type_cmd(&mut self, a: &[&[u8]]) -> Reply {
        let t = if self.lookup_notouch(a[1]) {
            self.keys[a[1]].value.type_name()
        } else {
            "none"
        };
        Reply::Status(t.into())
    }

    fn rename_generic(&mut self, a: &[&[u8]], nx: bool) -> Reply {
        let (src, dst) = (a[1], a[2]);
        if self.lookup(src).is_none() {
            return Reply::err("ERR no such key");
        }
        if src == dst {
            return if nx { Reply::Integer(0) } else { Reply::ok() };
        }
        if self.lookup(dst).is_some() {
            if nx {
                return Reply::Integer(0);
            }
            self.delete(dst);
        }
        let e = self.keys.get(src).expect("looked up").clone();
        self.delete(src);
        let new = self.insert_new(dst, e.value);
        new.lru = e.lru;
        new.enc = e.enc;
        if e.expire >= 0 {
            self.set_expire(dst, e.expire);
        }
        self.modified(src);
        self.modified(dst);
        if nx {
            Reply::Integer(1)
        } else {
            Reply::ok()
        }
    }

    pub(crate) fn rename(&mut self, a: &[&[u8]]) -> Reply {
        self.rename_generic(a, false)
    }

    pub(crate) fn renamenx(&mut self, a: &[&[u8]]) -> Reply {
        self.rename_generic(a, true)
    }

    pub(crate) fn expire(&mut self, a: &[&[u8]]) -> Reply {
        self.expire_generic(a, true, false, "expire")
    }

    pub(crate) fn pexpire(&mut self, a: &[&[u8]]) -> Reply {
        self.expire_generic(a, false, false, "pexpire")
    }

    pub(crate) fn expireat(&mut self, a: &[&[u8]]) -> Reply {
        self.expire_generic(a, true, true, "expireat")
    }

    pub(crate) fn pexpireat(&mut self, a: &[&[u8]]) -> Reply {
        self.expire_generic(a, false, true, "pexpireat")
    }

    /// `expireGenericCommand`; `absolute` for the `…AT` forms (basetime 0).
    fn expire_generic(&mut self, a: &[&[u8]], seconds: bool, absolute: bool, name: &str) -> Reply {
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
        let base = if absolute { 0 } else { self.mstime() };
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
        if when <= self.mstime() && !self.repl.is_replica() {
            self.delete_signal(key);
        } else {
            self.set_expire(key, when);
            self.modified(key);
        }
        Reply::Integer(1)
    }

    /// `ttlGenericCommand`: `ms` in ms, `abs` as the absolute unix time.
    fn ttl_generic(&mut self, key: &[u8], ms: bool, abs: bool) -> Reply {
        let now = self.mstime();
        if !self.lookup_notouch(key) {
            return Reply::Integer(-2);
        }
        let expire = self.keys[key].expire;
        if expire < 0 {
            return Reply::Integer(-1);
        }
        let ttl = if abs { expire } else { expire - now }.max(0);
        Reply::Integer(if ms { ttl } else { (ttl + 500) / 1000 })
    }

    pub(crate) fn ttl(&mut self, a: &[&[u8]]) -> Reply {
        self.ttl_generic(a[1], false, false)
    }

    pub(crate) fn pttl(&mut self, a: &[&[u8]]) -> Reply {
        self.ttl_generic(a[1], true, false)
    }

    pub(crate) fn expiretime(&mut self, a: &[&[u8]]) -> Reply {
        self.ttl_generic(a[1], false, true)
    }

    pub(crate) fn pexpiretime(&mut self, a: &[&[u8]]) -> Reply {
        self.ttl_generic(a[1], true, true)
    }

    pub(crate) fn persist(&mut self, a: &[&[u8]]) -> Reply {
        if self.lookup(a[1]).is_none() {
            return Reply::Integer(0);
        }
        let removed = self.remove_expire(a[1]);
        if removed {
            self.modified(a[1]);
        }
        Reply::Integer(i64::from(removed))
    }

    /// OBJECT ENCODING / FREQ / IDLETIME / REFCOUNT / HELP (subcommand and arity already
    /// checked by the command table).
    pub(crate) fn object(&mut self, a: &[&[u8]]) -> Reply {
        let sub = a[1].to_ascii_lowercase();
        if sub == b"help" {
            return Reply::Array(
                [
                    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "ENCODING <key>",
                    "    Return the kind of internal representation used in order to store the value",
                    "    associated with a <key>.",
                    "FREQ <key>",
                    "    Return the access frequency index of the <key>. The returned integer is",
                    "    proportional to the logarithm of the recent access frequency of the key.",
                    "IDLETIME <key>",
                    "    Return the idle time of the <key>, that is the approximated number of",
                    "    seconds elapsed since the last access to the key.",
                    "REFCOUNT <key>",
                    "    Return the number of references of the value associated with the specified",
                    "    <key>.",
                    "HELP",
                    "    Prints this help.",
                ]
                .iter()
                .map(|s| Reply::Status((*s).into()))
                .collect(),
            );
        }
        if !self.lookup_notouch(a[2]) {
            return Reply::Nil;
        }
        let lfu = self.mem.lfu();
        let clock = self.mem.clock;
        let now_min = self.mem.lfu_minutes(self.mstime());
        let e = &self.keys[a[2]];
        match sub.as_slice() {
            b"encoding" => Reply::bulk(encoding(&e.value, e.enc)),
            b"refcount" => Reply::Integer(match &e.value {
                Value::Str(s) if e.enc == StrEnc::Auto && shared_integer(s) => 2_147_483_647,
                _ => 1,
            }),
            b"idletime" => {
                if lfu {
                    return Reply::err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
                }
                Reply::Integer((super::evict::idle_ms(clock, e.lru) / 1000) as i64)
            }
            _ => {
                if !lfu {
                    return Reply::err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
                }
                Reply::Integer(i64::from(super::evict::lfu_decayed(e.lru, now_min)))
            }
        }
    }
}

/// 0..10000 are Redis' shared integers (`OBJ_SHARED_INTEGERS`): their refcount is
/// `OBJ_SHARED_REFCOUNT`.
fn shared_integer(s: &[u8]) -> bool {
    s.len() <= 20 && parse_i64(s).is_some_and(|v| (0..10_000).contains(&v))
}

/// `strEncoding(o->encoding)` for a value as Redis 7.0 would encode it.
pub(crate) fn encoding(v: &Value, enc: StrEnc) -> &'static str {
    match v {
        Value::Str(s) => {
            if enc == StrEnc::Auto && s.len() <= 20 && parse_i64(s).is_some() {
                "int"
            } else if enc != StrEnc::Raw && s.len() <= 44 {
                "embstr"
            } else {
                "raw"
            }
        }
        Value::List(_) => "quicklist",
        Value::Hash(h) => h.encoding(),
        Value::Set(s) => s.encoding(),
        Value::ZSet(z) => z.encoding(),
        Value::Stream(_) => "stream",
    }
}
