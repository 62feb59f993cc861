//! A session's accounting: what its keys hold in Redis, counted from the sizes Redis itself
//! reports after every write (the `after` script runs in the same round trip, right behind
//! the write: a string's length, a collection's element count, a stream's pending entries,
//! groups and consumers), with the largest element ever written to each key. From those an
//! upper bound of every key's memory; their sum is the session's memory, bounded by its
//! budget.
//!
//! Every request is admitted or refused here *before* it is sent, synchronously, and what it
//! may add is reserved at once: concurrent requests of one session see each other's
//! reservations, so they cannot all pass a limit that only one of them fits (no
//! check-then-act). After the reply the reservation gives way to what Redis reported; when the
//! outcome is unknown the reservation stays, as if it had happened.
//!
//! Keys are held by a 64-bit hash (a per-session random key), so a session's bookkeeping in the
//! proxy is a few dozen bytes a key whatever the key names are.

use crate::commands::{Limits, Prepared, Shape};
use crate::protocol::{Code, ErrBody, Limit};
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

/// Upper bounds of what Redis 7 (jemalloc) spends, in bytes. Checked against `MEMORY USAGE`
/// in `tests/budget.rs`.
pub mod cost {
    /// A key: its dict entry, object, expiry entry, and its member of the tracking set
    /// (plus twice its name: in the keyspace and in the tracking set).
    pub const KEY: u64 = 192;
    /// An element's overhead in the worst encoding (a skiplist node with its dict entry).
    pub const ELEM: u64 = 128;
    /// A pending entry of a consumer group (the NACK and its two radix trees: `MEMORY USAGE`
    /// counts about 565 bytes an entry).
    pub const PENDING: u64 = 640;
    /// A consumer group.
    pub const GROUP: u64 = 1024;
    /// A consumer.
    pub const CONSUMER: u64 = 512;
    /// An element's bytes, rounded up to the allocator's size classes.
    pub const fn data(bytes: u64) -> u64 {
        bytes + bytes / 4 + 16
    }
}

/// What Redis reported of one key after a write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub kind: Kind,
    /// A string's bytes, a collection's elements.
    pub n: u64,
    /// A stream's pending entries (all its groups), groups and consumers.
    pub pending: u64,
    pub groups: u64,
    pub consumers: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    #[default]
    None,
    String,
    Collection,
    Stream,
}

impl Kind {
    /// From `TYPE`'s reply.
    pub fn from_type(t: &[u8]) -> Kind {
        match t {
            b"string" => Kind::String,
            b"stream" => Kind::Stream,
            b"list" | b"hash" | b"zset" | b"set" => Kind::Collection,
            _ => Kind::None,
        }
    }
}

/// What a request may add, reserved until its reply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Reserve {
    elems: u64,
    bytes: u64,
    pending: u64,
    groups: u64,
    consumers: u64,
}

#[derive(Debug, Default)]
struct KeyStat {
    key_len: u64,
    size: Size,
    /// Element bytes added since the key was last seen gone (never less than it holds).
    added: u64,
    /// The largest element written to it.
    max_elem: u64,
    /// Consumer names seen on this stream (hashed).
    consumers: HashSet<u64>,
    reserved: Reserve,
    /// This key's share of the session's total (its bound, reservations included).
    counted: u64,
    /// … and of its pending entries (reported and reserved).
    counted_pending: u64,
    /// In the session's tracking set in Redis (an `after` script put it there).
    tracked: bool,
}

impl KeyStat {
    /// An upper bound of the key's memory in Redis, its in-flight reservations included.
    fn bound(&self) -> u64 {
        let s = &self.size;
        let r = &self.reserved;
        let base = match s.kind {
            Kind::None => 0,
            Kind::String => cost::KEY + 2 * self.key_len + cost::data(s.n),
            Kind::Collection | Kind::Stream => {
                cost::KEY
                    + 2 * self.key_len
                    + s.n * cost::ELEM
                    + cost::data(self.added.min(s.n.saturating_mul(self.max_elem)))
                    + s.pending * cost::PENDING
                    + s.groups * cost::GROUP
                    + s.consumers * cost::CONSUMER
            }
        };
        let key = if s.kind == Kind::None && r != &Reserve::default() {
            cost::KEY + 2 * self.key_len
        } else {
            0
        };
        // Pending entries in flight count against the session's pending cap, not here (a
        // blocking read may reserve many and deliver none); those Redis reported, in `base`.
        base + key
            + r.elems * cost::ELEM
            + r.bytes
            + r.groups * cost::GROUP
            + r.consumers * cost::CONSUMER
    }
}

/// The session's budgets (from `Config`).
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub limits: Limits,
    /// Distinct keys one session may write.
    pub max_keys: usize,
    /// Bytes the session's data may take in Redis.
    pub max_bytes: u64,
}

/// One session's accounts.
pub struct Accounts {
    hasher: RandomState,
    keys: HashMap<u64, KeyStat>,
    total: u64,
    /// Pending entries of all the session's streams, reported and reserved.
    pending: u64,
}

/// A request admitted: what was reserved, to be settled when its reply comes.
#[derive(Debug)]
pub struct Ticket {
    keys: Vec<(u64, Reserve)>,
}

/// How a request ended, for the accounts.
pub enum Outcome<'a> {
    /// It ran; the sizes of its keys after it (in key order), when the `after` script ran.
    Ran(Option<&'a [Size]>),
    /// It did not run (refused before it was sent, Redis' error reply, unavailable).
    NotRun,
    /// It may or may not have run.
    Unknown,
}

/// The accounting's view of a request: the words COUNT may be rewritten in.
#[derive(Debug)]
pub struct Admitted {
    pub ticket: Ticket,
    /// XREADGROUP's COUNT, clamped so the pending list and the budget hold (`None`: as asked).
    pub count: Option<u64>,
}

impl Default for Accounts {
    fn default() -> Self {
        Accounts {
            hasher: RandomState::new(),
            keys: HashMap::new(),
            total: 0,
            pending: 0,
        }
    }
}

fn over(limit: Limit, message: String) -> ErrBody {
    ErrBody::limited(Code::TooLarge, limit, message)
}

fn pending_full(l: &Limits) -> ErrBody {
    over(
        Limit::PendingPerGroup,
        format!(
            "this session's consumer groups have at most {} pending entries in all: \
             acknowledge some (XACK) first",
            l.max_pending
        ),
    )
}

impl Accounts {
    fn h(&self, key: &[u8]) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Bytes of the session's data in Redis (an upper bound), reservations included.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Distinct keys written (or being written).
    pub fn keys(&self) -> usize {
        self.keys.len()
    }

    /// Whether `key` is in the session's tracking set in Redis.
    pub fn tracked(&self, key: &[u8]) -> bool {
        self.keys.get(&self.h(key)).is_some_and(|k| k.tracked)
    }

    /// `key` is in the session's tracking set in Redis now.
    pub fn mark_tracked(&mut self, key: &[u8]) {
        let h = self.h(key);
        if let Some(k) = self.keys.get_mut(&h) {
            k.tracked = true;
        }
    }

    /// The bound of what these keys hold (what a read of all of them can return).
    pub fn held(&self, keys: &[Vec<u8>]) -> u64 {
        self.held_within(keys, None)
    }

    /// The same, when at most `span` elements of each key are returned or walked.
    pub fn held_within(&self, keys: &[Vec<u8>], span: Option<u64>) -> u64 {
        keys.iter()
            .map(|k| {
                self.keys.get(&self.h(k)).map_or(0, |st| {
                    let all = st.bound();
                    match span {
                        Some(n) if st.size.kind != Kind::String => all.min(
                            cost::KEY + n.saturating_mul(cost::ELEM + cost::data(st.max_elem)),
                        ),
                        _ => all,
                    }
                })
            })
            .sum()
    }

    /// Pending entries of the session's streams (reported and reserved).
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// Recomputes a key's share of the totals.
    fn recount(&mut self, h: u64) {
        if let Some(st) = self.keys.get_mut(&h) {
            let b = st.bound();
            self.total = self.total - st.counted + b;
            st.counted = b;
            let p = st.size.pending + st.reserved.pending;
            self.pending = self.pending - st.counted_pending + p;
            st.counted_pending = p;
        }
    }

    /// Checks a prepared command against the budgets and reserves what it may add.
    ///
    /// # Errors
    /// TOO_LARGE with the limit met: KEYS_PER_SESSION, ELEMENTS_PER_KEY, SESSION_MEMORY,
    /// PENDING_PER_GROUP, GROUPS_PER_STREAM, CONSUMERS_PER_GROUP. Nothing is reserved then.
    pub fn admit(&mut self, p: &Prepared, caps: &Caps) -> Result<Admitted, ErrBody> {
        let l = &caps.limits;
        let hs: Vec<u64> = p.keys.iter().map(|k| self.h(k)).collect();
        let mut res: Vec<Reserve> = vec![Reserve::default(); hs.len()];
        let mut count = None;
        let n_of = |s: &Self, i: usize| {
            s.keys
                .get(&hs[i])
                .map_or(0, |k| k.size.n + k.reserved.elems)
        };
        let elems_cap = |s: &Self, i: usize, add: u64| -> Result<(), ErrBody> {
            if n_of(s, i) + add > l.max_elements {
                return Err(over(
                    Limit::ElementsPerKey,
                    format!(
                        "a list, hash, sorted set or stream holds at most {} elements",
                        l.max_elements
                    ),
                ));
            }
            Ok(())
        };
        let consumer = |s: &Self, i: usize, name: &[u8], res: &mut Reserve| {
            let Some(st) = s.keys.get(&hs[i]) else {
                return Ok(());
            };
            if st.consumers.contains(&s.h(name)) {
                return Ok(());
            }
            if st.size.consumers + st.reserved.consumers >= l.max_consumers {
                return Err(over(
                    Limit::ConsumersPerGroup,
                    format!(
                        "a stream's groups have at most {} consumers",
                        l.max_consumers
                    ),
                ));
            }
            res.consumers += 1;
            Ok(())
        };
        match &p.shape {
            Shape::Set { value_bytes, .. } => res[0].bytes = cost::data(*value_bytes),
            Shape::Script { bytes } => {
                if !res.is_empty() {
                    res[0].bytes = cost::data(*bytes);
                }
            }
            Shape::Counter => res[0].bytes = cost::data(24),
            Shape::Grow {
                key,
                elems,
                bytes,
                max_elem: _,
            } => {
                elems_cap(self, *key, *elems)?;
                res[*key].elems = *elems;
                res[*key].bytes = cost::data(*bytes);
            }
            Shape::Move => {
                elems_cap(self, 1, 1)?;
                res[1].elems = 1;
                res[1].bytes = cost::data(self.keys.get(&hs[0]).map_or(0, |k| k.max_elem));
            }
            Shape::XAdd { bytes, .. } => {
                res[0].elems = 1;
                res[0].bytes = cost::data(*bytes);
            }
            Shape::XGroupCreate => {
                let g = self
                    .keys
                    .get(&hs[0])
                    .map_or(0, |k| k.size.groups + k.reserved.groups);
                if g >= l.max_groups {
                    return Err(over(
                        Limit::GroupsPerStream,
                        format!("a stream has at most {} consumer groups", l.max_groups),
                    ));
                }
                res[0].groups = 1;
            }
            Shape::XReadGroup {
                consumer: name,
                count: asked,
                new,
                ..
            } => {
                for (i, r) in res.iter_mut().enumerate() {
                    consumer(self, i, name, r)?;
                }
                if !new.is_empty() {
                    // COUNT applies to each stream: each may add that many pending entries,
                    // within the session's pending cap and what its budget has room for.
                    let streams = new.len() as u64;
                    let room_p = l.max_pending.saturating_sub(self.pending) / streams;
                    let room_m =
                        caps.max_bytes.saturating_sub(self.total) / cost::PENDING / streams;
                    let eff = (*asked).min(room_p).min(room_m);
                    if eff == 0 {
                        return Err(if room_p == 0 {
                            pending_full(l)
                        } else {
                            self.memory_full(caps)
                        });
                    }
                    for &i in new {
                        res[i].pending = eff;
                    }
                    if eff < *asked {
                        count = Some(eff);
                    }
                }
            }
            Shape::XClaim {
                consumer: name,
                force,
            } => {
                consumer(self, 0, name, &mut res[0])?;
                if self.pending + force > l.max_pending {
                    return Err(pending_full(l));
                }
                if self.total + force * cost::PENDING > caps.max_bytes {
                    return Err(self.memory_full(caps));
                }
                res[0].pending = *force;
            }
            Shape::Plain | Shape::Expire { .. } | Shape::Ttl { .. } | Shape::Persist => {}
        }
        // New keys: only a command that may create them counts them.
        let new_keys = if p.creates {
            let mut seen = HashSet::new();
            hs.iter()
                .filter(|h| !self.keys.contains_key(h) && seen.insert(**h))
                .count()
        } else {
            0
        };
        if new_keys > 0 && self.keys.len() + new_keys > caps.max_keys {
            return Err(over(
                Limit::KeysPerSession,
                format!(
                    "a session may write at most {} distinct keys",
                    caps.max_keys
                ),
            ));
        }
        let add: u64 = res
            .iter()
            .zip(&p.keys)
            .map(|(r, k)| {
                let key = if r != &Reserve::default() {
                    cost::KEY + 2 * k.len() as u64
                } else {
                    0
                };
                key + r.elems * cost::ELEM
                    + r.bytes
                    + r.groups * cost::GROUP
                    + r.consumers * cost::CONSUMER
            })
            .sum();
        if add > 0 && self.total + add > caps.max_bytes {
            return Err(self.memory_full(caps));
        }
        // Admitted: reserve.
        for (i, h) in hs.iter().enumerate() {
            if p.creates && !self.keys.contains_key(h) {
                self.keys.insert(
                    *h,
                    KeyStat {
                        key_len: p.keys[i].len() as u64,
                        ..KeyStat::default()
                    },
                );
            }
        }
        if let Shape::XReadGroup { consumer: name, .. } | Shape::XClaim { consumer: name, .. } =
            &p.shape
        {
            let hn = self.h(name);
            for h in &hs {
                if let Some(st) = self.keys.get_mut(h) {
                    st.consumers.insert(hn);
                }
            }
        }
        let mut ticket = Ticket { keys: Vec::new() };
        for (h, r) in hs.iter().zip(res) {
            if let Some(st) = self.keys.get_mut(h) {
                let rr = &mut st.reserved;
                rr.elems += r.elems;
                rr.bytes += r.bytes;
                rr.pending += r.pending;
                rr.groups += r.groups;
                rr.consumers += r.consumers;
                ticket.keys.push((*h, r));
                self.recount(*h);
            } else {
                ticket.keys.push((*h, Reserve::default()));
            }
        }
        Ok(Admitted { ticket, count })
    }

    fn memory_full(&self, caps: &Caps) -> ErrBody {
        over(
            Limit::SessionMemory,
            format!(
                "this session's data in Redis may take at most {} bytes (now about {}); \
                 delete some keys first",
                caps.max_bytes, self.total
            ),
        )
    }

    /// Settles an admitted request. `p` is the same prepared command.
    pub fn settle(&mut self, p: &Prepared, t: Ticket, outcome: Outcome<'_>) {
        for (i, (h, r)) in t.keys.iter().enumerate() {
            let Some(st) = self.keys.get_mut(h) else {
                continue;
            };
            let rr = &mut st.reserved;
            rr.elems -= r.elems;
            rr.bytes -= r.bytes;
            rr.pending -= r.pending;
            rr.groups -= r.groups;
            rr.consumers -= r.consumers;
            match &outcome {
                Outcome::NotRun => {}
                Outcome::Unknown => {
                    // As if it had happened (elements and bytes only grow: an upper bound).
                    let s = &mut st.size;
                    if s.kind == Kind::None && (r.elems > 0 || r.bytes > 0) {
                        s.kind = if matches!(p.shape, Shape::Set { .. } | Shape::Counter) {
                            Kind::String
                        } else {
                            Kind::Collection
                        };
                    }
                    if s.kind == Kind::String {
                        s.n = s.n.max(r.bytes);
                    } else {
                        s.n += r.elems;
                        st.added += r.bytes;
                        st.max_elem = st.max_elem.max(r.bytes);
                    }
                    s.pending += r.pending;
                    s.groups += r.groups;
                    s.consumers += r.consumers;
                }
                Outcome::Ran(sizes) => {
                    let elem = match &p.shape {
                        Shape::Grow {
                            key,
                            bytes,
                            max_elem,
                            ..
                        } if *key == i => Some((*bytes, *max_elem)),
                        Shape::XAdd { bytes, .. } => Some((*bytes, *bytes)),
                        Shape::Script { bytes } if i == 0 => Some((*bytes, *bytes)),
                        _ => None,
                    };
                    if let Some((b, m)) = elem {
                        st.added += b;
                        st.max_elem = st.max_elem.max(m);
                    }
                    if let (Shape::Move, 1) = (&p.shape, i) {
                        // What moved is at most the largest element written to the source.
                        st.added += r.bytes;
                        st.max_elem = st.max_elem.max(r.bytes);
                    }
                    match sizes.and_then(|s| s.get(i)) {
                        Some(size) => {
                            st.size = *size;
                            if size.kind == Kind::None {
                                st.added = 0;
                                st.max_elem = 0;
                                st.consumers.clear();
                            }
                        }
                        None => {
                            if let Shape::Set {
                                value_bytes,
                                conditional,
                                ..
                            } = &p.shape
                            {
                                // A SET without the `after` script: what it wrote.
                                st.size.n = if *conditional && st.size.kind == Kind::String {
                                    st.size.n.max(*value_bytes)
                                } else {
                                    *value_bytes
                                };
                                st.size.kind = Kind::String;
                            }
                        }
                    }
                }
            }
            self.recount(*h);
        }
    }

    /// Forgets what the session knows of `key`'s content (it was deleted), keeping it counted
    /// as written.
    pub fn gone(&mut self, key: &[u8]) {
        let h = self.h(key);
        if let Some(st) = self.keys.get_mut(&h) {
            st.size = Size::default();
            st.added = 0;
            st.max_elem = 0;
            st.consumers.clear();
        }
        self.recount(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::prepare;

    const P: &str = "lab:{abc}:";

    fn caps() -> Caps {
        Caps {
            limits: Limits {
                max_elements: 10,
                max_pending: 6,
                max_groups: 2,
                max_consumers: 2,
                ..Limits::default()
            },
            max_keys: 3,
            max_bytes: 64 * 1024,
        }
    }

    fn prep(words: &[&str]) -> Prepared {
        let w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        prepare(&w, P, &caps().limits).unwrap()
    }

    fn size(kind: Kind, n: u64) -> Size {
        Size {
            kind,
            n,
            ..Size::default()
        }
    }

    #[test]
    fn concurrent_writes_cannot_all_pass_a_limit() {
        let mut a = Accounts::default();
        let c = caps();
        // Three keys allowed: four new ones in flight at once — the fourth is refused before
        // any answer came back.
        let ps: Vec<Prepared> = ["a", "b", "c", "d"]
            .iter()
            .map(|k| prep(&["SET", k, "v"]))
            .collect();
        let mut tickets = vec![];
        for p in &ps[..3] {
            tickets.push(a.admit(p, &c).unwrap().ticket);
        }
        let e = a.admit(&ps[3], &c).unwrap_err();
        assert_eq!(e.limit, Some(Limit::KeysPerSession));
        // Elements: 10 per key; two pushes of 6 in flight: the second is refused.
        let mut b = Accounts::default();
        let p6 = prep(&["RPUSH", "l", "1", "2", "3", "4", "5", "6"]);
        let t = b.admit(&p6, &c).unwrap().ticket;
        let e = b.admit(&p6, &c).unwrap_err();
        assert_eq!(e.limit, Some(Limit::ElementsPerKey));
        // Redis said 6 after the first: 4 more fit, 5 do not.
        b.settle(&p6, t, Outcome::Ran(Some(&[size(Kind::Collection, 6)])));
        assert!(b
            .admit(&prep(&["RPUSH", "l", "1", "2", "3", "4"]), &c)
            .is_ok());
        assert_eq!(
            b.admit(&prep(&["LPUSH", "l", "x"]), &c).unwrap_err().limit,
            Some(Limit::ElementsPerKey)
        );
    }

    #[test]
    fn a_refused_or_failed_write_gives_its_reservation_back() {
        let mut a = Accounts::default();
        let c = caps();
        let p = prep(&["RPUSH", "l", "1", "2", "3", "4", "5", "6"]);
        let t = a.admit(&p, &c).unwrap().ticket;
        assert!(a.total() > 0);
        a.settle(&p, t, Outcome::NotRun);
        assert_eq!(a.total(), 0);
        // Unknown: counted as if it happened.
        let t = a.admit(&p, &c).unwrap().ticket;
        a.settle(&p, t, Outcome::Unknown);
        let t = a.admit(&prep(&["RPUSH", "l", "1", "2", "3", "4", "5"]), &c);
        assert_eq!(t.unwrap_err().limit, Some(Limit::ElementsPerKey));
    }

    #[test]
    fn the_session_memory_is_bounded_and_freed_by_del() {
        let mut a = Accounts::default();
        let mut c = caps();
        c.max_bytes = 64 * 1024;
        c.limits.max_elements = 10_000;
        let big = "x".repeat(10_000);
        let p = prep(&["RPUSH", "l", &big, &big]);
        let t = a.admit(&p, &c).unwrap().ticket;
        a.settle(&p, t, Outcome::Ran(Some(&[size(Kind::Collection, 2)])));
        let first = a.total();
        assert!(first > 20_000, "{first}");
        let t = a.admit(&p, &c).unwrap().ticket;
        a.settle(&p, t, Outcome::Ran(Some(&[size(Kind::Collection, 4)])));
        assert_eq!(
            a.admit(&p, &c).unwrap_err().limit,
            Some(Limit::SessionMemory)
        );
        // Popped down to one element: the bound follows the count Redis reports.
        let pop = prep(&["LPOP", "l", "3"]);
        let t = a.admit(&pop, &c).unwrap().ticket;
        a.settle(&pop, t, Outcome::Ran(Some(&[size(Kind::Collection, 1)])));
        assert!(a.total() < first, "{} {first}", a.total());
        // DEL: gone.
        let del = prep(&["DEL", "l"]);
        let t = a.admit(&del, &c).unwrap().ticket;
        a.settle(&del, t, Outcome::Ran(Some(&[Size::default()])));
        assert_eq!(a.total(), 0);
        assert_eq!(a.keys(), 1, "still counted as written");
    }

    #[test]
    fn pending_entries_groups_and_consumers() {
        let mut a = Accounts::default();
        let c = caps();
        let mk = prep(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]);
        let t = a.admit(&mk, &c).unwrap().ticket;
        a.settle(
            &mk,
            t,
            Outcome::Ran(Some(&[Size {
                kind: Kind::Stream,
                groups: 1,
                ..Size::default()
            }])),
        );
        let t = a.admit(&mk, &c).unwrap().ticket;
        assert_eq!(
            a.admit(&mk, &c).unwrap_err().limit,
            Some(Limit::GroupsPerStream)
        );
        a.settle(&mk, t, Outcome::NotRun);
        // COUNT 5 with 6 pending allowed: as asked; then 4 pending: clamped to 2.
        let read = |c: &str| {
            prep(&[
                "XREADGROUP",
                "GROUP",
                "g",
                c,
                "COUNT",
                "5",
                "STREAMS",
                "s",
                ">",
            ])
        };
        let r = a.admit(&read("c1"), &c).unwrap();
        assert_eq!(r.count, None);
        a.settle(
            &read("c1"),
            r.ticket,
            Outcome::Ran(Some(&[Size {
                kind: Kind::Stream,
                n: 9,
                pending: 4,
                groups: 1,
                consumers: 1,
            }])),
        );
        let r = a.admit(&read("c1"), &c).unwrap();
        assert_eq!(r.count, Some(2));
        // Full: refused until acknowledged.
        let e = a.admit(&read("c2"), &c).unwrap_err();
        assert_eq!(e.limit, Some(Limit::PendingPerGroup));
        a.settle(&read("c1"), r.ticket, Outcome::NotRun);
        // Consumers: c1 and c2 fit, c3 does not.
        let r = a.admit(&read("c2"), &c).unwrap();
        a.settle(
            &read("c2"),
            r.ticket,
            Outcome::Ran(Some(&[Size {
                kind: Kind::Stream,
                n: 9,
                pending: 4,
                groups: 1,
                consumers: 2,
            }])),
        );
        let e = a.admit(&read("c3"), &c).unwrap_err();
        assert_eq!(e.limit, Some(Limit::ConsumersPerGroup));
    }
}
