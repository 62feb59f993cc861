//! Hashes: HSET, HGET, HGETALL, HDEL, HLEN, HINCRBY — following `t_hash.c` of Redis 7.0.
//!
//! Fields are kept in insertion order in a vector, which is what a small hash's listpack
//! does (up to `hash-max-listpack-entries` 128 fields of at most 64 bytes); a real Redis
//! converts bigger hashes to a hash table and HGETALL's order then differs.

use super::num::parse_i64;
use super::{arity_error, wrongtype, Entry, Reply, SimRedis, Value, NOT_INT, OVERFLOW};

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

impl SimRedis {
    /// The hash at `key`, created empty when missing; `Err` on a wrong type.
    fn hash_or_create(&mut self, key: &[u8]) -> Result<&mut Fields, Reply> {
        match self.lookup(key) {
            Some(Entry {
                value: Value::Hash(_),
                ..
            }) => {}
            Some(_) => return Err(wrongtype()),
            None => self.store(key, Value::Hash(Vec::new()), false),
        }
        match self.lookup(key) {
            Some(Entry {
                value: Value::Hash(h),
                ..
            }) => Ok(h),
            _ => unreachable!("just stored a hash"),
        }
    }

    /// The hash at `key` if any; `Err` on a wrong type.
    fn hash(&mut self, key: &[u8]) -> Result<Option<&mut Fields>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(Entry {
                value: Value::Hash(h),
                ..
            }) => Ok(Some(h)),
            Some(_) => Err(wrongtype()),
        }
    }

    pub(crate) fn hset(&mut self, a: &[&[u8]]) -> Reply {
        if a.len() % 2 == 1 {
            return arity_error(b"hset");
        }
        let h = match self.hash_or_create(a[1]) {
            Ok(h) => h,
            Err(e) => return e,
        };
        let mut created = 0;
        for pair in a[2..].chunks(2) {
            match h.iter_mut().find(|(f, _)| f == pair[0]) {
                Some((_, v)) => *v = pair[1].to_vec(),
                None => {
                    h.push((pair[0].to_vec(), pair[1].to_vec()));
                    created += 1;
                }
            }
        }
        Reply::Integer(created)
    }

    pub(crate) fn hget(&mut self, a: &[&[u8]]) -> Reply {
        match self.hash(a[1]) {
            Err(e) => e,
            Ok(None) => Reply::Nil,
            Ok(Some(h)) => h
                .iter()
                .find(|(f, _)| f == a[2])
                .map_or(Reply::Nil, |(_, v)| Reply::Bulk(v.clone())),
        }
    }

    pub(crate) fn hgetall(&mut self, a: &[&[u8]]) -> Reply {
        match self.hash(a[1]) {
            Err(e) => e,
            Ok(None) => Reply::Array(vec![]),
            Ok(Some(h)) => Reply::Array(
                h.iter()
                    .flat_map(|(f, v)| [Reply::Bulk(f.clone()), Reply::Bulk(v.clone())])
                    .collect(),
            ),
        }
    }

    pub(crate) fn hdel(&mut self, a: &[&[u8]]) -> Reply {
        let h = match self.hash(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(h)) => h,
        };
        let mut n = 0;
        for f in &a[2..] {
            if let Some(i) = h.iter().position(|(x, _)| x == f) {
                h.remove(i);
                n += 1;
            }
        }
        if h.is_empty() {
            self.delete(a[1]);
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
        let field = a[2];
        let slot = h.iter().position(|(f, _)| f == field);
        let cur = match slot {
            None => 0,
            Some(i) => match parse_i64(&h[i].1) {
                Some(v) => v,
                None => return Reply::err("ERR hash value is not an integer"),
            },
        };
        let Some(new) = cur.checked_add(by) else {
            return Reply::err(OVERFLOW);
        };
        let text = new.to_string().into_bytes();
        match slot {
            Some(i) => h[i].1 = text,
            None => h.push((field.to_vec(), text)),
        }
        Reply::Integer(new)
    }
}
