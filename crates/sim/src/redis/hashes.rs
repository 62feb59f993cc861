//! Hashes: HSET, HMSET, HSETNX, HGET, HMGET, HGETALL, HKEYS, HVALS, HEXISTS, HDEL, HLEN,
//! HINCRBY, HINCRBYFLOAT — following `t_hash.c` of Redis 7.0.
//!
//! A small hash is a listpack in Redis: fields in insertion order, which HGETALL shows. It
//! becomes a hash table when it gets more than `hash-max-listpack-entries` (512) fields or a
//! field or value longer than `hash-max-listpack-value` (64 bytes), and never goes back.
//! Here the listpack is a vector (insertion order, linear search, as Redis' `lpFind`) and
//! the hash table a [`Table`] (Redis' table order depends on a random per-process seed, so
//! clients never rely on it).

use super::evict::{alloc, sds};
use super::ld::{Ld, LdError};
use super::num::parse_i64;
use super::table::Table;
use super::{arity_error, wrongtype, Entry, Reply, SimRedis, Value, NOT_INT, OVERFLOW};

const MAX_ENTRIES: usize = 512;
const MAX_VALUE: usize = 64;

/// A hash value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Hash {
    Listpack(Vec<(Vec<u8>, Vec<u8>)>),
    Table(Table<Vec<u8>>),
}

impl Default for Hash {
    fn default() -> Self {
        Hash::Listpack(Vec::new())
    }
}

impl Hash {
    pub(crate) fn len(&self) -> usize {
        match self {
            Hash::Listpack(v) => v.len(),
            Hash::Table(t) => t.len(),
        }
    }

    pub(crate) fn get(&self, f: &[u8]) -> Option<&[u8]> {
        match self {
            Hash::Listpack(v) => v.iter().find(|(k, _)| k == f).map(|(_, v)| v.as_slice()),
            Hash::Table(t) => t.get(f).map(Vec::as_slice),
        }
    }

    /// `hashTypeTryConversion`: a field or value too long for a listpack converts.
    fn try_conversion(&mut self, args: &[&[u8]]) {
        if matches!(self, Hash::Listpack(_)) && args.iter().any(|a| a.len() > MAX_VALUE) {
            self.convert();
        }
    }

    fn convert(&mut self) {
        if let Hash::Listpack(v) = self {
            let mut t = Table::default();
            for (k, val) in v.drain(..) {
                t.insert(&k, val);
            }
            *self = Hash::Table(t);
        }
    }

    /// `hashTypeSet`; whether the field is new.
    pub(crate) fn set(&mut self, f: &[u8], v: Vec<u8>) -> bool {
        if matches!(self, Hash::Listpack(_)) && (f.len() > MAX_VALUE || v.len() > MAX_VALUE) {
            self.convert();
        }
        match self {
            Hash::Listpack(l) => {
                if let Some((_, old)) = l.iter_mut().find(|(k, _)| k == f) {
                    *old = v;
                    return false;
                }
                l.push((f.to_vec(), v));
                if l.len() > MAX_ENTRIES {
                    self.convert();
                }
                true
            }
            Hash::Table(t) => t.insert(f, v),
        }
    }

    pub(crate) fn remove(&mut self, f: &[u8]) -> bool {
        match self {
            Hash::Listpack(l) => match l.iter().position(|(k, _)| k == f) {
                Some(i) => {
                    l.remove(i);
                    true
                }
                None => false,
            },
            Hash::Table(t) => t.remove(f).is_some(),
        }
    }

    /// Fields and values in the encoding's order.
    pub(crate) fn pairs(&self) -> Box<dyn Iterator<Item = (&[u8], &[u8])> + '_> {
        match self {
            Hash::Listpack(l) => Box::new(l.iter().map(|(k, v)| (k.as_slice(), v.as_slice()))),
            Hash::Table(t) => Box::new(t.iter().map(|(k, v)| (k, v.as_slice()))),
        }
    }

    pub(crate) fn encoding(&self) -> &'static str {
        match self {
            Hash::Listpack(_) => "listpack",
            Hash::Table(_) => "hashtable",
        }
    }

    pub(crate) fn is_listpack(&self) -> bool {
        matches!(self, Hash::Listpack(_))
    }

    pub(crate) fn mem_estimate(&self) -> usize {
        match self {
            Hash::Listpack(l) => {
                alloc(7 + l.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>())
            }
            Hash::Table(t) => {
                alloc(96)
                    + t.len().next_power_of_two() * 8
                    + t.iter()
                        .map(|(k, v)| alloc(24) + sds(k.len()) + sds(v.len()))
                        .sum::<usize>()
            }
        }
    }
}

impl SimRedis {
    /// The hash at `key`, created empty when missing; `Err` on a wrong type.
    fn hash_or_create(&mut self, key: &[u8]) -> Result<&mut Hash, Reply> {
        match self.lookup(key) {
            Some(Entry {
                value: Value::Hash(_),
                ..
            }) => {}
            Some(_) => return Err(wrongtype()),
            None => {
                self.insert_new(key, Value::Hash(Box::default()));
            }
        }
        match self.keys.get_mut(key) {
            Some(Entry {
                value: Value::Hash(h),
                ..
            }) => Ok(h),
            _ => unreachable!("just stored a hash"),
        }
    }

    /// The hash at `key` if any; `Err` on a wrong type.
    pub(crate) fn hash(&mut self, key: &[u8]) -> Result<Option<&mut Hash>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(Entry {
                value: Value::Hash(h),
                ..
            }) => Ok(Some(h)),
            Some(_) => Err(wrongtype()),
        }
    }

    fn hset_generic(&mut self, a: &[&[u8]], name: &[u8]) -> Result<i64, Reply> {
        if a.len() % 2 == 1 {
            return Err(arity_error(name));
        }
        let h = self.hash_or_create(a[1])?;
        h.try_conversion(&a[2..]);
        let mut created = 0;
        for pair in a[2..].chunks(2) {
            if h.set(pair[0], pair[1].to_vec()) {
                created += 1;
            }
        }
        self.modified(a[1]);
        Ok(created)
    }

    pub(crate) fn hset(&mut self, a: &[&[u8]]) -> Reply {
        match self.hset_generic(a, b"hset") {
            Ok(n) => Reply::Integer(n),
            Err(e) => e,
        }
    }

    pub(crate) fn hmset(&mut self, a: &[&[u8]]) -> Reply {
        match self.hset_generic(a, b"hmset") {
            Ok(_) => Reply::ok(),
            Err(e) => e,
        }
    }

    pub(crate) fn hsetnx(&mut self, a: &[&[u8]]) -> Reply {
        let h = match self.hash_or_create(a[1]) {
            Ok(h) => h,
            Err(e) => return e,
        };
        if h.get(a[2]).is_some() {
            return Reply::Integer(0);
        }
        h.try_conversion(&a[2..4]);
        h.set(a[2], a[3].to_vec());
        self.modified(a[1]);
        Reply::Integer(1)
    }

    pub(crate) fn hget(&mut self, a: &[&[u8]]) -> Reply {
        match self.hash(a[1]) {
            Err(e) => e,
            Ok(h) => h
                .and_then(|h| h.get(a[2]))
                .map_or(Reply::Nil, |v| Reply::Bulk(v.to_vec())),
        }
    }

    pub(crate) fn hmget(&mut self, a: &[&[u8]]) -> Reply {
        match self.hash(a[1]) {
            Err(e) => e,
            Ok(h) => Reply::Array(
                a[2..]
                    .iter()
                    .map(|f| {
                        h.as_ref()
                            .and_then(|h| h.get(f))
                            .map_or(Reply::Nil, |v| Reply::Bulk(v.to_vec()))
                    })
                    .collect(),
            ),
        }
    }

    pub(crate) fn hexists(&mut self, a: &[&[u8]]) -> Reply {
        match self.hash(a[1]) {
            Err(e) => e,
            Ok(h) => Reply::Integer(i64::from(h.is_some_and(|h| h.get(a[2]).is_some()))),
        }
    }

    fn hgetall_generic(&mut self, key: &[u8], fields: bool, values: bool) -> Reply {
        match self.hash(key) {
            Err(e) => e,
            Ok(None) => Reply::Array(vec![]),
            Ok(Some(h)) => {
                let mut out = Vec::with_capacity(h.len() * 2);
                for (f, v) in h.pairs() {
                    if fields {
                        out.push(Reply::Bulk(f.to_vec()));
                    }
                    if values {
                        out.push(Reply::Bulk(v.to_vec()));
                    }
                }
                Reply::Array(out)
            }
        }
    }

    pub(crate) fn hgetall(&mut self, a: &[&[u8]]) -> Reply {
        self.hgetall_generic(a[1], true, true)
    }

    pub(crate) fn hkeys(&mut self, a: &[&[u8]]) -> Reply {
        self.hgetall_generic(a[1], true, false)
    }

    pub(crate) fn hvals(&mut self, a: &[&[u8]]) -> Reply {
        self.hgetall_generic(a[1], false, true)
    }

    pub(crate) fn hdel(&mut self, a: &[&[u8]]) -> Reply {
        let h = match self.hash(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(h)) => h,
        };
        let mut n = 0;
        for f in &a[2..] {
            if h.remove(f) {
                n += 1;
                if h.len() == 0 {
                    break;
                }
            }
        }
        let empty = h.len() == 0;
        if n > 0 {
            if empty {
                self.delete(a[1]);
            }
            self.modified(a[1]);
        }
        Reply::Integer(n)
    }

    pub(crate) fn hlen(&mut self, a: &[&[u8]]) -> Reply {
        match self.hash(a[1]) {
            Err(e) => e,
            Ok(h) => Reply::Integer(h.map_or(0, |h| h.len() as i64)),
        }
    }

    pub(crate) fn hincrby(&mut self, a: &[&[u8]]) -> Reply {
        let Some(by) = parse_i64(a[3]) else {
            return Reply::err(NOT_INT);
        };
        let h = match self.hash_or_create(a[1]) {
            Ok(h) => h,
            Err(e) => return e,
        };
        let cur = match h.get(a[2]) {
            None => 0,
            Some(v) => match parse_i64(v) {
                Some(v) => v,
                None => return Reply::err("ERR hash value is not an integer"),
            },
        };
        let Some(new) = cur.checked_add(by) else {
            return Reply::err(OVERFLOW);
        };
        h.set(a[2], new.to_string().into_bytes());
        self.modified(a[1]);
        Reply::Integer(new)
    }

    pub(crate) fn hincrbyfloat(&mut self, a: &[&[u8]]) -> Reply {
        let by = match Ld::parse(a[3]) {
            Ok(x) => x,
            Err(LdError::Infinite) => return Reply::err("ERR value is NaN or Infinity"),
            Err(LdError::Invalid) => return Reply::err("ERR value is not a valid float"),
        };
        let h = match self.hash_or_create(a[1]) {
            Ok(h) => h,
            Err(e) => return e,
        };
        let cur = match h.get(a[2]) {
            None => Ld::from_i64(0),
            Some(v) => match Ld::parse(v) {
                Ok(x) if v.len() < 5 * 1024 => x,
                Err(LdError::Infinite) => {
                    return Reply::err("ERR increment would produce NaN or Infinity")
                }
                _ => return Reply::err("ERR hash value is not a float"),
            },
        };
        let Some(new) = cur.add(by) else {
            return Reply::err("ERR increment would produce NaN or Infinity");
        };
        let text = new.human().into_bytes();
        h.set(a[2], text.clone());
        self.modified(a[1]);
        Reply::Bulk(text)
    }
}
