//! Sets: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SINTER, SUNION, SDIFF, SPOP,
//! SRANDMEMBER — following `t_set.c` of Redis 7.0.
//!
//! A set of integers is an intset in Redis (sorted, so SMEMBERS answers in ascending
//! order) until it gets a member that is not an integer or more than
//! `set-max-intset-entries` (512) members; then it is a hash table, whose order is Redis'
//! own random one — here a [`Table`]'s. SPOP and SRANDMEMBER draw from the server's seeded
//! RNG, one draw per pick.

use super::evict::{alloc, sds};
use super::num::parse_i64;
use super::table::Table;
use super::{wrongtype, Entry, Reply, SimRedis, Value, SYNTAX};

const MAX_INTSET: usize = 512;

/// A set value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Set {
    Intset(Vec<i64>),
    Table(Table<()>),
}

impl Set {
    /// `setTypeCreate`: an intset if the first member is an integer.
    fn for_member(m: &[u8]) -> Set {
        if parse_i64(m).is_some() {
            Set::Intset(Vec::new())
        } else {
            Set::Table(Table::default())
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Set::Intset(v) => v.len(),
            Set::Table(t) => t.len(),
        }
    }

    pub(crate) fn contains(&self, m: &[u8]) -> bool {
        match self {
            Set::Intset(v) => parse_i64(m).is_some_and(|x| v.binary_search(&x).is_ok()),
            Set::Table(t) => t.contains(m),
        }
    }

    fn convert(&mut self) {
        if let Set::Intset(v) = self {
            let mut t = Table::default();
            for x in v.iter() {
                t.insert(x.to_string().as_bytes(), ());
            }
            *self = Set::Table(t);
        }
    }

    /// `setTypeAdd`; whether `m` is new.
    fn add(&mut self, m: &[u8]) -> bool {
        if let Set::Intset(v) = self {
            match parse_i64(m) {
                Some(x) => {
                    return match v.binary_search(&x) {
                        Ok(_) => false,
                        Err(i) => {
                            v.insert(i, x);
                            if v.len() > MAX_INTSET {
                                self.convert();
                            }
                            true
                        }
                    }
                }
                None => self.convert(),
            }
        }
        match self {
            Set::Table(t) => t.insert(m, ()),
            Set::Intset(_) => unreachable!("converted"),
        }
    }

    fn remove(&mut self, m: &[u8]) -> bool {
        match self {
            Set::Intset(v) => match parse_i64(m).map(|x| v.binary_search(&x)) {
                Some(Ok(i)) => {
                    v.remove(i);
                    true
                }
                _ => false,
            },
            Set::Table(t) => t.remove(m).is_some(),
        }
    }

    /// The `i`-th member in the encoding's order.
    fn at(&self, i: usize) -> Vec<u8> {
        match self {
            Set::Intset(v) => v[i].to_string().into_bytes(),
            Set::Table(t) => t.at(i).0.to_vec(),
        }
    }

    /// Members in the encoding's order (ascending integers for an intset).
    pub(crate) fn members(&self) -> Vec<Vec<u8>> {
        (0..self.len()).map(|i| self.at(i)).collect()
    }

    pub(crate) fn encoding(&self) -> &'static str {
        match self {
            Set::Intset(_) => "intset",
            Set::Table(_) => "hashtable",
        }
    }

    pub(crate) fn is_intset(&self) -> bool {
        matches!(self, Set::Intset(_))
    }

    pub(crate) fn mem_estimate(&self) -> usize {
        match self {
            Set::Intset(v) => {
                let width = if v.iter().all(|x| i16::try_from(*x).is_ok()) {
                    2
                } else if v.iter().all(|x| i32::try_from(*x).is_ok()) {
                    4
                } else {
                    8
                };
                alloc(8 + v.len() * width)
            }
            Set::Table(t) => {
                alloc(96)
                    + t.len().next_power_of_two() * 8
                    + t.iter()
                        .map(|(k, _)| alloc(24) + sds(k.len()))
                        .sum::<usize>()
            }
        }
    }
}

/// The members of a computed set in the order Redis replies them: built into a fresh intset
/// as long as every member is an integer and there are at most 512 (ascending), else a hash
/// table (any order; here the order they came in).
fn as_built(members: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut s = Set::Intset(Vec::new());
    for m in &members {
        s.add(m);
    }
    match s {
        Set::Intset(_) => s.members(),
        Set::Table(_) => members,
    }
}

fn bulks(v: Vec<Vec<u8>>) -> Reply {
    Reply::Array(v.into_iter().map(Reply::Bulk).collect())
}

impl SimRedis {
    /// The set at `key` if any; `Err` on a wrong type.
    fn set_of(&mut self, key: &[u8]) -> Result<Option<&mut Set>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(Entry {
                value: Value::Set(s),
                ..
            }) => Ok(Some(s)),
            Some(_) => Err(wrongtype()),
        }
    }

    pub(crate) fn sadd(&mut self, a: &[&[u8]]) -> Reply {
        let key = a[1];
        match self.set_of(key) {
            Err(e) => return e,
            Ok(Some(_)) => {}
            Ok(None) => {
                self.insert_new(key, Value::Set(Box::new(Set::for_member(a[2]))));
            }
        }
        let Ok(Some(s)) = self.set_of(key) else {
            unreachable!("a set")
        };
        let added = a[2..].iter().filter(|m| s.add(m)).count();
        if added > 0 {
            self.modified(key);
        }
        Reply::Integer(added as i64)
    }

    pub(crate) fn srem(&mut self, a: &[&[u8]]) -> Reply {
        let s = match self.set_of(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(s)) => s,
        };
        let mut n = 0;
        for m in &a[2..] {
            if s.remove(m) {
                n += 1;
                if s.len() == 0 {
                    break;
                }
            }
        }
        let empty = s.len() == 0;
        if n > 0 {
            if empty {
                self.delete(a[1]);
            }
            self.modified(a[1]);
        }
        Reply::Integer(n)
    }

    pub(crate) fn smembers(&mut self, a: &[&[u8]]) -> Reply {
        match self.set_of(a[1]) {
            Err(e) => e,
            Ok(s) => bulks(s.map_or(Vec::new(), |s| s.members())),
        }
    }

    pub(crate) fn sismember(&mut self, a: &[&[u8]]) -> Reply {
        match self.set_of(a[1]) {
            Err(e) => e,
            Ok(s) => Reply::Integer(i64::from(s.is_some_and(|s| s.contains(a[2])))),
        }
    }

    pub(crate) fn smismember(&mut self, a: &[&[u8]]) -> Reply {
        match self.set_of(a[1]) {
            Err(e) => e,
            Ok(s) => Reply::Array(
                a[2..]
                    .iter()
                    .map(|m| Reply::Integer(i64::from(s.as_ref().is_some_and(|s| s.contains(m)))))
                    .collect(),
            ),
        }
    }

    pub(crate) fn scard(&mut self, a: &[&[u8]]) -> Reply {
        match self.set_of(a[1]) {
            Err(e) => e,
            Ok(s) => Reply::Integer(s.map_or(0, |s| s.len() as i64)),
        }
    }

    /// The sets at `keys` (missing ones as `None`), or WRONGTYPE if any key is not a set.
    fn sets_of(&mut self, keys: &[&[u8]]) -> Result<Vec<Option<Set>>, Reply> {
        let mut out = Vec::with_capacity(keys.len());
        for k in keys {
            out.push(self.set_of(k)?.map(|s| s.clone()));
        }
        Ok(out)
    }

    pub(crate) fn sinter(&mut self, a: &[&[u8]]) -> Reply {
        let sets = match self.sets_of(&a[1..]) {
            Err(e) => return e,
            Ok(s) => s,
        };
        if sets.iter().any(Option::is_none) {
            return Reply::Array(vec![]);
        }
        let mut sets: Vec<Set> = sets.into_iter().flatten().collect();
        sets.sort_by_key(Set::len); // stable, as glibc's qsort (a merge sort) is
        let (first, rest) = sets.split_first().expect("at least one key");
        bulks(
            first
                .members()
                .into_iter()
                .filter(|m| rest.iter().all(|s| s.contains(m)))
                .collect(),
        )
    }

    pub(crate) fn sunion(&mut self, a: &[&[u8]]) -> Reply {
        let sets = match self.sets_of(&a[1..]) {
            Err(e) => return e,
            Ok(s) => s,
        };
        let mut seen = Table::default();
        for s in sets.iter().flatten() {
            for m in s.members() {
                seen.insert(&m, ());
            }
        }
        bulks(as_built(seen.iter().map(|(k, _)| k.to_vec()).collect()))
    }

    pub(crate) fn sdiff(&mut self, a: &[&[u8]]) -> Reply {
        let sets = match self.sets_of(&a[1..]) {
            Err(e) => return e,
            Ok(s) => s,
        };
        let Some(Some(first)) = sets.first() else {
            return Reply::Array(vec![]);
        };
        let out = first
            .members()
            .into_iter()
            .filter(|m| !sets[1..].iter().flatten().any(|s| s.contains(m)))
            .collect();
        bulks(as_built(out))
    }

    pub(crate) fn spop(&mut self, a: &[&[u8]]) -> Reply {
        if a.len() > 3 {
            return Reply::err(SYNTAX);
        }
        let count = match a.get(2) {
            None => None,
            Some(c) => match parse_i64(c) {
                Some(n) if n >= 0 => Some(n as u64),
                _ => return Reply::err("ERR value is out of range, must be positive"),
            },
        };
        let key = a[1];
        let size = match self.set_of(key) {
            Err(e) => return e,
            Ok(None) => {
                return if count.is_some() {
                    Reply::Array(vec![])
                } else {
                    Reply::Nil
                }
            }
            Ok(Some(s)) => s.len() as u64,
        };
        if count == Some(0) {
            return Reply::Array(vec![]);
        }
        let n = count.unwrap_or(1).min(size);
        let mut out = Vec::with_capacity(n as usize);
        if n == size && count.is_some() {
            let Ok(Some(s)) = self.set_of(key) else {
                unreachable!("a set")
            };
            out = as_built(s.members());
        } else {
            for _ in 0..n {
                let len = self.set_of(key).ok().flatten().map_or(0, |s| s.len());
                let i = self.rand.below(len as u32) as usize;
                let Ok(Some(s)) = self.set_of(key) else {
                    unreachable!("a set")
                };
                let m = s.at(i);
                s.remove(&m);
                out.push(m);
            }
        }
        let empty = n == size;
        if empty {
            self.delete(key);
        }
        self.modified(key);
        match count {
            None => Reply::Bulk(out.pop().expect("one member")),
            Some(_) => bulks(out),
        }
    }

    pub(crate) fn srandmember(&mut self, a: &[&[u8]]) -> Reply {
        if a.len() > 3 {
            return Reply::err(SYNTAX);
        }
        let count = match a.get(2) {
            None => None,
            Some(c) => match parse_i64(c) {
                Some(i64::MIN) => return Reply::err(
                    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
                ),
                Some(n) => Some(n),
                None => return Reply::err(super::NOT_INT),
            },
        };
        let s = match self.set_of(a[1]) {
            Err(e) => return e,
            Ok(None) => {
                return if count.is_some() {
                    Reply::Array(vec![])
                } else {
                    Reply::Nil
                }
            }
            Ok(Some(s)) => s.clone(),
        };
        let size = s.len() as u64;
        let Some(count) = count else {
            let i = self.rand.below(size as u32) as usize;
            return Reply::Bulk(s.at(i));
        };
        let n = count.unsigned_abs();
        if n == 0 {
            return Reply::Array(vec![]);
        }
        if n > 10_000_000 {
            return Reply::err("ERR SimRedis answers at most 10,000,000 random members");
        }
        if count < 0 || n == 1 {
            let mut out = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let i = self.rand.below(size as u32) as usize;
                out.push(s.at(i));
            }
            return bulks(out);
        }
        if n >= size {
            return bulks(as_built(s.members()));
        }
        // Distinct members: a partial Fisher–Yates shuffle of the positions.
        let mut idx: Vec<usize> = (0..size as usize).collect();
        for j in 0..n as usize {
            let k = j + self.rand.below((size as usize - j) as u32) as usize;
            idx.swap(j, k);
        }
        bulks(idx[..n as usize].iter().map(|&i| s.at(i)).collect())
    }
}
