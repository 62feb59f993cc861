//! Lists: LPUSH, RPUSH, LPOP, RPOP, LRANGE, LLEN, LREM, LINDEX, LSET, LTRIM, LINSERT, LPOS,
//! LMOVE, RPOPLPUSH and the blocking BLMOVE, BRPOP, BLPOP, BRPOPLPUSH — following
//! `t_list.c` of Redis 7.0 (where every list is a quicklist).

use super::blocking::{BlockKind, Unit};
use super::num::parse_i64;
use super::{
    is, parse_end, wrongtype, ClientId, End, Entry, Exec, Reply, SimRedis, Value, NOT_INT, SYNTAX,
};
use std::collections::VecDeque;

impl SimRedis {
    fn push(&mut self, a: &[&[u8]], end: End) -> Reply {
        let key = a[1];
        let len = match self.lookup(key) {
            Some(Entry {
                value: Value::List(l),
                ..
            }) => {
                for v in &a[2..] {
                    push_end(l, v.to_vec(), end);
                }
                l.len()
            }
            Some(_) => return wrongtype(),
            None => {
                let mut l = VecDeque::with_capacity(a.len() - 2);
                for v in &a[2..] {
                    push_end(&mut l, v.to_vec(), end);
                }
                let n = l.len();
                self.insert_new(key, Value::List(l));
                n
            }
        };
        self.modified(key);
        self.signal_ready(key);
        Reply::Integer(len as i64)
    }

    pub(crate) fn lpush(&mut self, a: &[&[u8]]) -> Reply {
        self.push(a, End::Left)
    }

    pub(crate) fn rpush(&mut self, a: &[&[u8]]) -> Reply {
        self.push(a, End::Right)
    }

    /// Pops one element, deleting the key when the list empties.
    pub(crate) fn pop_one(&mut self, key: &[u8], end: End) -> Option<Vec<u8>> {
        let Some(Entry {
            value: Value::List(l),
            ..
        }) = self.lookup(key)
        else {
            return None;
        };
        let v = match end {
            End::Left => l.pop_front(),
            End::Right => l.pop_back(),
        };
        if l.is_empty() {
            self.delete(key);
        }
        if v.is_some() {
            self.modified(key);
        }
        v
    }

    fn pop(&mut self, a: &[&[u8]], end: End, name: &[u8]) -> Reply {
        if a.len() > 3 {
            return super::arity_error(name);
        }
        let count = match a.get(2) {
            None => None,
            Some(c) => match parse_i64(c) {
                Some(n) if n >= 0 => Some(n),
                _ => return Reply::err("ERR value is out of range, must be positive"),
            },
        };
        let key = a[1];
        match self.lookup(key) {
            None => return Reply::Nil,
            Some(Entry {
                value: Value::List(_),
                ..
            }) => {}
            Some(_) => return wrongtype(),
        }
        match count {
            None => self.pop_one(key, end).map_or(Reply::Nil, Reply::Bulk),
            Some(n) => {
                let mut out = Vec::new();
                for _ in 0..n {
                    match self.pop_one(key, end) {
                        Some(v) => out.push(Reply::Bulk(v)),
                        None => break,
                    }
                }
                Reply::Array(out)
            }
        }
    }

    pub(crate) fn lpop(&mut self, a: &[&[u8]]) -> Reply {
        self.pop(a, End::Left, b"lpop")
    }

    pub(crate) fn rpop(&mut self, a: &[&[u8]]) -> Reply {
        self.pop(a, End::Right, b"rpop")
    }

    pub(crate) fn lrange(&mut self, a: &[&[u8]]) -> Reply {
        let (Some(mut start), Some(mut end)) = (parse_i64(a[2]), parse_i64(a[3])) else {
            return Reply::err(NOT_INT);
        };
        let l = match self.lookup(a[1]) {
            None => return Reply::Array(vec![]),
            Some(Entry {
                value: Value::List(l),
                ..
            }) => l,
            Some(_) => return wrongtype(),
        };
        let len = l.len() as i64;
        if start < 0 {
            start += len;
        }
        if end < 0 {
            end += len;
        }
        if start < 0 {
            start = 0;
        }
        if start > end || start >= len {
            return Reply::Array(vec![]);
        }
        if end >= len {
            end = len - 1;
        }
        Reply::Array(
            l.range(start as usize..=end as usize)
                .map(|v| Reply::Bulk(v.clone()))
                .collect(),
        )
    }

    pub(crate) fn llen(&mut self, a: &[&[u8]]) -> Reply {
        match self.lookup(a[1]) {
            None => Reply::Integer(0),
            Some(Entry {
                value: Value::List(l),
                ..
            }) => Reply::Integer(l.len() as i64),
            Some(_) => wrongtype(),
        }
    }

    pub(crate) fn lrem(&mut self, a: &[&[u8]]) -> Reply {
        let Some(count) = parse_i64(a[2]) else {
            return Reply::err(NOT_INT);
        };
        let key = a[1];
        let l = match self.lookup(key) {
            None => return Reply::Integer(0),
            Some(Entry {
                value: Value::List(l),
                ..
            }) => l,
            Some(_) => return wrongtype(),
        };
        let target = a[3];
        let limit = if count == 0 {
            usize::MAX
        } else {
            count.unsigned_abs() as usize
        };
        let mut removed = 0usize;
        if count >= 0 {
            let mut i = 0;
            while i < l.len() && removed < limit {
                if l[i] == target {
                    l.remove(i);
                    removed += 1;
                } else {
                    i += 1;
                }
            }
        } else {
            let mut i = l.len();
            while i > 0 && removed < limit {
                i -= 1;
                if l[i] == target {
                    l.remove(i);
                    removed += 1;
                }
            }
        }
        let empty = l.is_empty();
        if removed > 0 {
            if empty {
                self.delete(key);
            }
            self.modified(key);
        }
        Reply::Integer(removed as i64)
    }

    /// `lmoveGenericCommand`: nil when the source is missing; WRONGTYPE for either key.
    pub(crate) fn lmove_generic(&mut self, src: &[u8], dst: &[u8], from: End, to: End) -> Reply {
        match self.lookup(src) {
            None => return Reply::Nil,
            Some(Entry {
                value: Value::List(_),
                ..
            }) => {}
            Some(_) => return wrongtype(),
        }
        if src != dst {
            match self.lookup(dst) {
                None
                | Some(Entry {
                    value: Value::List(_),
                    ..
                }) => {}
                Some(_) => return wrongtype(),
            }
        }
        let Some(Entry {
            value: Value::List(l),
            ..
        }) = self.lookup(src)
        else {
            return Reply::Nil;
        };
        let v = match from {
            End::Left => l.pop_front(),
            End::Right => l.pop_back(),
        }
        .expect("stored lists are never empty");
        if src == dst {
            push_end(l, v.clone(), to);
        } else {
            let empty = l.is_empty();
            if empty {
                self.delete(src);
            }
            match self.lookup(dst) {
                Some(Entry {
                    value: Value::List(d),
                    ..
                }) => push_end(d, v.clone(), to),
                _ => {
                    let mut d = VecDeque::new();
                    d.push_back(v.clone());
                    self.insert_new(dst, Value::List(d));
                }
            }
        }
        self.modified(src);
        self.modified(dst);
        self.signal_ready(dst);
        Reply::Bulk(v)
    }

    pub(crate) fn lmove(&mut self, a: &[&[u8]]) -> Reply {
        let (Some(from), Some(to)) = (parse_end(a[3]), parse_end(a[4])) else {
            return Reply::err(SYNTAX);
        };
        self.lmove_generic(a[1], a[2], from, to)
    }

    fn blmove_generic(
        &mut self,
        src: &[u8],
        dst: &[u8],
        from: End,
        to: End,
        timeout: &[u8],
        client: Option<ClientId>,
    ) -> Exec {
        let deadline = match self.parse_timeout(timeout, Unit::Seconds) {
            Ok(d) => d,
            Err(e) => return Exec::Reply(e),
        };
        match self.lookup(src) {
            Some(Entry {
                value: Value::List(_),
                ..
            }) => Exec::Reply(self.lmove_generic(src, dst, from, to)),
            Some(_) => Exec::Reply(wrongtype()),
            None => match client {
                None => Exec::Reply(Reply::Nil),
                Some(c) => {
                    let kind = BlockKind::Move {
                        dst: dst.to_vec(),
                        from,
                        to,
                    };
                    self.block(c, vec![src.to_vec()], kind, deadline);
                    Exec::Blocked
                }
            },
        }
    }

    pub(crate) fn blmove(&mut self, a: &[&[u8]], client: Option<ClientId>) -> Exec {
        let (Some(from), Some(to)) = (parse_end(a[3]), parse_end(a[4])) else {
            return Exec::Reply(Reply::err(SYNTAX));
        };
        self.blmove_generic(a[1], a[2], from, to, a[5], client)
    }

    pub(crate) fn brpoplpush(&mut self, a: &[&[u8]], client: Option<ClientId>) -> Exec {
        self.blmove_generic(a[1], a[2], End::Right, End::Left, a[3], client)
    }

    pub(crate) fn rpoplpush(&mut self, a: &[&[u8]]) -> Reply {
        self.lmove_generic(a[1], a[2], End::Right, End::Left)
    }

    pub(crate) fn brpop(&mut self, a: &[&[u8]], client: Option<ClientId>) -> Exec {
        self.bpop(a, client, End::Right)
    }

    pub(crate) fn blpop(&mut self, a: &[&[u8]], client: Option<ClientId>) -> Exec {
        self.bpop(a, client, End::Left)
    }

    fn bpop(&mut self, a: &[&[u8]], client: Option<ClientId>, end: End) -> Exec {
        let deadline = match self.parse_timeout(a[a.len() - 1], Unit::Seconds) {
            Ok(d) => d,
            Err(e) => return Exec::Reply(e),
        };
        let keys = &a[1..a.len() - 1];
        for &k in keys {
            match self.lookup(k) {
                None => {}
                Some(Entry {
                    value: Value::List(_),
                    ..
                }) => {
                    let v = self.pop_one(k, end).expect("non-empty list");
                    return Exec::Reply(Reply::Array(vec![
                        Reply::Bulk(k.to_vec()),
                        Reply::Bulk(v),
                    ]));
                }
                Some(_) => return Exec::Reply(wrongtype()),
            }
        }
        match client {
            None => Exec::Reply(Reply::Nil),
            Some(c) => {
                let keys = keys.iter().map(|k| k.to_vec()).collect();
                self.block(c, keys, BlockKind::Pop(end), deadline);
                Exec::Blocked
            }
        }
    }
}

impl SimRedis {
    /// The list at `key` if any; `Err` on a wrong type.
    fn list(&mut self, key: &[u8]) -> Result<Option<&mut VecDeque<Vec<u8>>>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(Entry {
                value: Value::List(l),
                ..
            }) => Ok(Some(l)),
            Some(_) => Err(wrongtype()),
        }
    }

    pub(crate) fn lindex(&mut self, a: &[&[u8]]) -> Reply {
        let l = match self.list(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Nil,
            Ok(Some(l)) => l,
        };
        let Some(i) = parse_i64(a[2]) else {
            return Reply::err(NOT_INT);
        };
        match index(l.len(), i) {
            Some(i) => Reply::Bulk(l[i].clone()),
            None => Reply::Nil,
        }
    }

    pub(crate) fn lset(&mut self, a: &[&[u8]]) -> Reply {
        let l = match self.list(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::err("ERR no such key"),
            Ok(Some(l)) => l,
        };
        let Some(i) = parse_i64(a[2]) else {
            return Reply::err(NOT_INT);
        };
        match index(l.len(), i) {
            Some(i) => {
                l[i] = a[3].to_vec();
                self.modified(a[1]);
                Reply::ok()
            }
            None => Reply::err("ERR index out of range"),
        }
    }

    pub(crate) fn ltrim(&mut self, a: &[&[u8]]) -> Reply {
        let (Some(mut start), Some(mut end)) = (parse_i64(a[2]), parse_i64(a[3])) else {
            return Reply::err(NOT_INT);
        };
        let l = match self.list(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::ok(),
            Ok(Some(l)) => l,
        };
        let len = l.len() as i64;
        if start < 0 {
            start += len;
        }
        if end < 0 {
            end += len;
        }
        start = start.max(0);
        let (ltrim, rtrim) = if start > end || start >= len {
            (len, 0)
        } else {
            (start, len - end.min(len - 1) - 1)
        };
        l.drain(..ltrim as usize);
        l.truncate(l.len() - rtrim as usize);
        if l.is_empty() {
            self.delete(a[1]);
        }
        self.modified(a[1]);
        Reply::ok()
    }

    pub(crate) fn linsert(&mut self, a: &[&[u8]]) -> Reply {
        let after = if is(a[2], b"after") {
            true
        } else if is(a[2], b"before") {
            false
        } else {
            return Reply::err(SYNTAX);
        };
        let l = match self.list(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(l)) => l,
        };
        let Some(i) = l.iter().position(|v| v == a[3]) else {
            return Reply::Integer(-1);
        };
        l.insert(if after { i + 1 } else { i }, a[4].to_vec());
        let n = l.len();
        self.modified(a[1]);
        Reply::Integer(n as i64)
    }

    pub(crate) fn lpos(&mut self, a: &[&[u8]]) -> Reply {
        let (mut rank, mut count, mut maxlen) = (1i64, None::<i64>, 0i64);
        let mut j = 3;
        while j < a.len() {
            let more = j + 1 < a.len();
            let o = a[j];
            if is(o, b"rank") && more {
                j += 1;
                match parse_i64(a[j]) {
                    Some(0) => return Reply::err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"),
                    Some(r) => rank = r,
                    None => return Reply::err(NOT_INT),
                }
            } else if is(o, b"count") && more {
                j += 1;
                match parse_i64(a[j]) {
                    Some(c) if c >= 0 => count = Some(c),
                    _ => return Reply::err("ERR COUNT can't be negative"),
                }
            } else if is(o, b"maxlen") && more {
                j += 1;
                match parse_i64(a[j]) {
                    Some(m) if m >= 0 => maxlen = m,
                    _ => return Reply::err("ERR MAXLEN can't be negative"),
                }
            } else {
                return Reply::err(SYNTAX);
            }
            j += 1;
        }
        let from_tail = rank < 0;
        let rank = rank.unsigned_abs();
        let l = match self.list(a[1]) {
            Err(e) => return e,
            Ok(None) => {
                return if count.is_some() {
                    Reply::Array(vec![])
                } else {
                    Reply::Nil
                }
            }
            Ok(Some(l)) => l,
        };
        let len = l.len();
        let mut matches = 0u64;
        let mut out = Vec::new();
        for step in 0..len {
            if maxlen != 0 && step as i64 >= maxlen {
                break;
            }
            let i = if from_tail { len - 1 - step } else { step };
            if l[i] == a[2] {
                matches += 1;
                if matches >= rank {
                    out.push(Reply::Integer(i as i64));
                    match count {
                        None => break,
                        Some(c) if c != 0 && (matches - rank + 1) as i64 >= c => break,
                        _ => {}
                    }
                }
            }
        }
        match count {
            Some(_) => Reply::Array(out),
            None => out.pop().unwrap_or(Reply::Nil),
        }
    }
}

/// A list index (negative from the end) within `len`.
fn index(len: usize, i: i64) -> Option<usize> {
    let i = if i < 0 { i + len as i64 } else { i };
    (0..len as i64).contains(&i).then_some(i as usize)
}

fn push_end(l: &mut VecDeque<Vec<u8>>, v: Vec<u8>, end: End) {
    match end {
        End::Left => l.push_front(v),
        End::Right => l.push_back(v),
    }
}
