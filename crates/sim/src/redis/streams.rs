//! Streams: XADD, XLEN, XRANGE, XREVRANGE, XTRIM, XDEL, XGROUP, XREAD, XREADGROUP (blocking
//! in virtual time), XACK, XPENDING, XCLAIM and XAUTOCLAIM — following `t_stream.c` and the
//! stream part of `blocked.c` of Redis 7.0.15, error texts included.
//!
//! A stream is kept the way Redis keeps it, as a sequence of nodes (Redis: listpacks in a
//! radix tree) of at most `stream-node-max-entries` (100) entries or
//! `stream-node-max-bytes` (4096) bytes, because the approximate trim `MAXLEN ~ n` only drops
//! *whole* nodes: `XLEN` after it is whatever whole-node removal leaves, and it equals the
//! real server's only if the nodes split where Redis splits them. So each node counts its
//! listpack bytes with listpack's own encoding sizes (integers in 1–9 bytes, strings with
//! a 1/2/5-byte header, a back-length per element, strings that read as integers stored as
//! integers, fields omitted when they equal the node's master fields) and XDEL and exact
//! trimming only mark entries deleted, as Redis does, so the deleted ones still take a slot.
//!
//! Not modelled: XINFO, XSETID, the groups' `entries-read`/lag bookkeeping (only XINFO
//! shows it) and RESP3 replies.

use super::blocking::{BlockKind, Unit};
use super::num::parse_i64;
use super::{
    arity_error, wrongtype, ClientId, Entry, RawExec, RawReply, Reply, SimRedis, Value, NOT_INT,
    SYNTAX,
};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;

/// `stream-node-max-entries` (Redis' default).
pub const NODE_MAX_ENTRIES: usize = 100;
/// `stream-node-max-bytes` (Redis' default).
pub const NODE_MAX_BYTES: usize = 4096;
/// XREAD/XREADGROUP's COUNT when a client blocks without one.
const XREAD_BLOCKED_DEFAULT_COUNT: usize = 1000;

const INVALID_ID: &str = "ERR Invalid stream ID specified as stream command argument";

/// A stream entry ID, `<ms>-<seq>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId {
    /// Milliseconds part.
    pub ms: u64,
    /// Sequence part.
    pub seq: u64,
}

impl StreamId {
    /// `0-0`.
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    /// The largest ID.
    pub const MAX: StreamId = StreamId {
        ms: u64::MAX,
        seq: u64::MAX,
    };

    /// An ID from its parts.
    pub fn new(ms: u64, seq: u64) -> Self {
        Self { ms, seq }
    }

    /// `streamIncrID`: the next ID, or `None` past the last one.
    pub fn incr(self) -> Option<Self> {
        if self.seq == u64::MAX {
            if self.ms == u64::MAX {
                None
            } else {
                Some(Self::new(self.ms + 1, 0))
            }
        } else {
            Some(Self::new(self.ms, self.seq + 1))
        }
    }

    /// `streamDecrID`: the previous ID, or `None` before `0-0`.
    pub fn decr(self) -> Option<Self> {
        if self.seq == 0 {
            if self.ms == 0 {
                None
            } else {
                Some(Self::new(self.ms - 1, u64::MAX))
            }
        } else {
            Some(Self::new(self.ms, self.seq - 1))
        }
    }

    /// Reads `ms-seq` (both parts plain decimal), as a reply shows it.
    pub fn parse(s: &[u8]) -> Option<Self> {
        let t = std::str::from_utf8(s).ok()?;
        let (a, b) = t.split_once('-')?;
        Some(Self::new(a.parse().ok()?, b.parse().ok()?))
    }

    fn reply(self) -> Reply {
        Reply::Bulk(self.to_bytes())
    }

    /// `ms-seq` as bytes, without `fmt`'s machinery (IDs are formatted a million times
    /// in the streams lab's budget run).
    pub fn to_bytes(self) -> Vec<u8> {
        let mut v = Vec::with_capacity(24);
        self.write_to(&mut v);
        v
    }

    /// Appends `ms-seq` to `v`.
    pub fn write_to(self, v: &mut Vec<u8>) {
        push_u64(v, self.ms);
        v.push(b'-');
        push_u64(v, self.seq);
    }
}

fn push_u64(v: &mut Vec<u8>, n: u64) {
    v.extend_from_slice(super::num::decimal(n, &mut [0u8; 20]));
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::str::from_utf8(&self.to_bytes()).expect("digits"))
    }
}

/// Appends fields to one buffer: a 4-byte length before each.
fn pack_into(v: &mut Vec<u8>, fields: &[&[u8]]) {
    v.reserve(fields.iter().map(|f| f.len() + 4).sum());
    for f in fields {
        v.extend_from_slice(&(f.len() as u32).to_le_bytes());
        v.extend_from_slice(f);
    }
}

fn unpack(mut b: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let (len, rest) = b.split_first_chunk::<4>()?;
        let n = u32::from_le_bytes(*len) as usize;
        let (f, rest) = rest.split_at(n);
        b = rest;
        Some(f)
    })
}

/// `string2ull`: `string2ll` for values that fit `i64` (negative ones refused), else
/// `strtoull`'s looser reading (leading blanks, a sign; `-` wraps, as C's does).
fn string2ull(s: &[u8]) -> Option<u64> {
    if let Some(v) = parse_i64(s) {
        return u64::try_from(v).ok();
    }
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    if i >= s.len() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in &s[i..] {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `streamGenericParseIDOrReply`. `seq_given`: whether `<ms>-*` is accepted; the result's
/// flag is false for that form.
fn parse_id(
    s: &[u8],
    missing_seq: u64,
    strict: bool,
    seq_star: bool,
) -> Result<(StreamId, bool), Reply> {
    let invalid = || Reply::err(INVALID_ID);
    if s.len() > 127 {
        return Err(invalid());
    }
    // C reads the argument as a NUL-terminated string.
    let s = s.iter().position(|&c| c == 0).map_or(s, |n| &s[..n]);
    if strict && (s == b"-" || s == b"+") {
        return Err(invalid());
    }
    if s == b"-" {
        return Ok((StreamId::MIN, true));
    }
    if s == b"+" {
        return Ok((StreamId::MAX, true));
    }
    match s.iter().position(|&c| c == b'-') {
        None => Ok((
            StreamId::new(string2ull(s).ok_or_else(invalid)?, missing_seq),
            true,
        )),
        Some(d) => {
            let ms = string2ull(&s[..d]).ok_or_else(invalid)?;
            let rest = &s[d + 1..];
            if seq_star && rest == b"*" {
                return Ok((StreamId::new(ms, 0), false));
            }
            Ok((
                StreamId::new(ms, string2ull(rest).ok_or_else(invalid)?),
                true,
            ))
        }
    }
}

fn strict_id(s: &[u8]) -> Result<StreamId, Reply> {
    parse_id(s, 0, true, false).map(|(id, _)| id)
}

/// `streamParseIntervalIDOrReply` then the `(` adjustment: an inclusive bound.
fn interval_start(s: &[u8]) -> Result<StreamId, Reply> {
    if s.len() > 1 && s[0] == b'(' {
        let (id, _) = parse_id(&s[1..], 0, true, false)?;
        id.incr()
            .ok_or_else(|| Reply::err("ERR invalid start ID for the interval"))
    } else {
        parse_id(s, 0, false, false).map(|(id, _)| id)
    }
}

fn interval_end(s: &[u8]) -> Result<StreamId, Reply> {
    if s.len() > 1 && s[0] == b'(' {
        let (id, _) = parse_id(&s[1..], u64::MAX, true, false)?;
        id.decr()
            .ok_or_else(|| Reply::err("ERR invalid end ID for the interval"))
    } else {
        parse_id(s, u64::MAX, false, false).map(|(id, _)| id)
    }
}

fn parse_ll(s: &[u8], msg: &str) -> Result<i64, Reply> {
    parse_i64(s).ok_or_else(|| Reply::err(msg))
}

// ----- listpack sizes -----

/// Bytes listpack uses for an integer element, back-length included.
fn lp_int(v: i64) -> usize {
    let enc = if (0..=127).contains(&v) {
        1
    } else if (-4096..=4095).contains(&v) {
        2
    } else if (-32768..=32767).contains(&v) {
        3
    } else if (-8_388_608..=8_388_607).contains(&v) {
        4
    } else if i32::try_from(v).is_ok() {
        5
    } else {
        9
    };
    enc + 1
}

/// Bytes listpack uses for a string element (stored as an integer when it reads as one).
fn lp_str(s: &[u8]) -> usize {
    if let Some(v) = parse_i64(s) {
        return lp_int(v);
    }
    let n = s.len();
    let enc = if n < 64 {
        1 + n
    } else if n < 4096 {
        2 + n
    } else {
        5 + n
    };
    let back = if enc <= 127 {
        1
    } else if enc < 16383 {
        2
    } else if enc < 2_097_151 {
        3
    } else if enc < 268_435_455 {
        4
    } else {
        5
    };
    enc + back
}

#[derive(Clone, Debug, PartialEq)]
struct Item {
    id: StreamId,
    /// Its fields are `Node::buf[start..end]`: field, value, field, value, … each as a
    /// 4-byte length and its bytes, in the node's one buffer (a node of 100 entries is
    /// three allocations, not a hundred).
    start: usize,
    end: usize,
    deleted: bool,
}

/// An entry as a reader sees it: its ID and its packed fields.
#[derive(Clone, Copy, Debug)]
struct EntryRef<'a> {
    id: StreamId,
    fields: &'a [u8],
}

/// One radix-tree node: a listpack of entries delta-encoded against its master entry.
#[derive(Clone, Debug, PartialEq)]
struct Node {
    master: StreamId,
    master_fields: Box<[Vec<u8>]>,
    /// Listpack bytes of the master fields (they never change).
    master_bytes: usize,
    items: Vec<Item>,
    /// The entries' fields, one after another (see [`Item`]).
    buf: Vec<u8>,
    live: usize,
    /// Bytes of the entries (the master entry and counters are added by [`Node::bytes`]).
    items_bytes: usize,
}

impl Node {
    /// A node whose master entry is `fields`' names; room for as many entries and bytes as
    /// `like` (the node before it: a stream's entries tend to look alike) holds, so filling
    /// it rarely reallocates.
    fn new(id: StreamId, fields: &[&[u8]], like: Option<&Node>) -> Self {
        let master_fields: Box<[Vec<u8>]> = fields.iter().step_by(2).map(|f| f.to_vec()).collect();
        Node {
            master: id,
            master_bytes: master_fields.iter().map(|f| lp_str(f)).sum(),
            master_fields,
            items: Vec::with_capacity(like.map_or(0, |n| n.items.len())),
            buf: Vec::with_capacity(like.map_or(0, |n| n.buf.len())),
            live: 0,
            items_bytes: 0,
        }
    }

    /// `lpBytes`: header (6) + end (1) + master entry + entries.
    fn bytes(&self) -> usize {
        let deleted = self.items.len() - self.live;
        7 + lp_int(self.live as i64)
            + lp_int(deleted as i64)
            + lp_int(self.master_fields.len() as i64)
            + self.master_bytes
            + lp_int(0)
            + self.items_bytes
    }

    fn push(&mut self, id: StreamId, fields: &[&[u8]]) {
        let nf = fields.len() / 2;
        let same = nf == self.master_fields.len()
            && fields
                .iter()
                .step_by(2)
                .zip(self.master_fields.iter())
                .all(|(a, b)| *a == b.as_slice());
        let mut b = lp_int(if same { 2 } else { 0 })
            + lp_int(id.ms.wrapping_sub(self.master.ms) as i64)
            + lp_int(id.seq.wrapping_sub(self.master.seq) as i64);
        let mut lp_count = nf as i64 + 3;
        if same {
            b += fields
                .iter()
                .skip(1)
                .step_by(2)
                .map(|v| lp_str(v))
                .sum::<usize>();
        } else {
            b += lp_int(nf as i64) + fields.iter().map(|v| lp_str(v)).sum::<usize>();
            lp_count += nf as i64 + 1;
        }
        b += lp_int(lp_count);
        self.items_bytes += b;
        let start = self.buf.len();
        pack_into(&mut self.buf, fields);
        self.items.push(Item {
            id,
            start,
            end: self.buf.len(),
            deleted: false,
        });
        self.live += 1;
    }

    fn last_id(&self) -> StreamId {
        self.items.last().map_or(self.master, |i| i.id)
    }

    fn entry(&self, it: &Item) -> EntryRef<'_> {
        EntryRef {
            id: it.id,
            fields: &self.buf[it.start..it.end],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Nack {
    consumer: u32,
    delivery_time: i64,
    delivery_count: u64,
}

/// A consumer. Redis also keeps each consumer's own PEL as a radix tree; here a consumer
/// only counts its entries, and its PEL is read off the group's (the entries whose NACK
/// names it, in the same ID order): one ordered map to update per delivery and per XACK
/// instead of two.
#[derive(Clone, Debug, PartialEq)]
struct Consumer {
    name: Vec<u8>,
    seen_time: i64,
    /// Entries of the group's PEL delivered to this consumer.
    pending: usize,
}

#[derive(Clone, Debug, PartialEq, Default)]
struct Group {
    last_id: StreamId,
    pel: BTreeMap<StreamId, Nack>,
    by_name: BTreeMap<Vec<u8>, u32>,
    consumers: BTreeMap<u32, Consumer>,
    next_slot: u32,
}

impl Group {
    fn lookup(&mut self, name: &[u8], now: i64, refresh: bool) -> Option<u32> {
        let slot = *self.by_name.get(name)?;
        if refresh {
            if let Some(c) = self.consumers.get_mut(&slot) {
                c.seen_time = now;
            }
        }
        Some(slot)
    }

    /// Creates a consumer; `None` if it exists.
    fn create(&mut self, name: &[u8], now: i64) -> Option<u32> {
        if self.by_name.contains_key(name) {
            return None;
        }
        let slot = self.next_slot;
        self.next_slot += 1;
        self.by_name.insert(name.to_vec(), slot);
        self.consumers.insert(
            slot,
            Consumer {
                name: name.to_vec(),
                seen_time: now,
                pending: 0,
            },
        );
        Some(slot)
    }

    fn lookup_or_create(&mut self, name: &[u8], now: i64) -> u32 {
        match self.lookup(name, now, true) {
            Some(s) => s,
            None => self.create(name, now).expect("absent"),
        }
    }

    /// The IDs in the PEL of consumer `slot` from `start` on, in order.
    fn consumer_pel(
        &self,
        slot: u32,
        range: impl std::ops::RangeBounds<StreamId>,
    ) -> impl Iterator<Item = StreamId> + '_ {
        self.pel
            .range(range)
            .filter(move |(_, n)| n.consumer == slot)
            .map(|(id, _)| *id)
    }

    fn remove_nack(&mut self, id: StreamId) -> bool {
        match self.pel.remove(&id) {
            Some(n) => {
                if let Some(c) = self.consumers.get_mut(&n.consumer) {
                    c.pending -= 1;
                }
                true
            }
            None => false,
        }
    }

    /// Moves the NACK of `id` to `slot` (if it is someone else's).
    fn reassign(&mut self, id: StreamId, slot: u32) {
        let Some(n) = self.pel.get_mut(&id) else {
            return;
        };
        if n.consumer != slot {
            let old = n.consumer;
            n.consumer = slot;
            if let Some(c) = self.consumers.get_mut(&old) {
                c.pending -= 1;
            }
            if let Some(c) = self.consumers.get_mut(&slot) {
                c.pending += 1;
            }
        }
    }
}

/// A stream value.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct Stream {
    nodes: VecDeque<Node>,
    length: u64,
    last_id: StreamId,
    entries_added: u64,
    groups: BTreeMap<Vec<u8>, Group>,
}

enum Trim {
    None,
    MaxLen(u64),
    MinId(StreamId),
}

struct TrimArgs {
    strategy: Trim,
    approx: bool,
    limit: u64,
}

impl Stream {
    /// Approximate bytes Redis spends on it ([`super::evict`]): each node's listpack and
    /// radix-tree entry, each group's PEL and consumers.
    pub(crate) fn mem_estimate(&self) -> usize {
        64 + self.nodes.iter().map(|n| n.bytes() + 48).sum::<usize>()
            + self
                .groups
                .values()
                .map(|g| 96 + g.pel.len() * 64 + g.consumers.len() * 80)
                .sum::<usize>()
    }

    /// Index of the node that would hold `id`.
    fn node_for(&self, id: StreamId) -> usize {
        self.nodes
            .partition_point(|n| n.master <= id)
            .saturating_sub(1)
    }

    fn find(&self, id: StreamId) -> Option<(usize, usize)> {
        let ni = self.node_for(id);
        let node = self.nodes.get(ni)?;
        let ii = node.items.binary_search_by(|i| i.id.cmp(&id)).ok()?;
        (!node.items[ii].deleted).then_some((ni, ii))
    }

    fn exists(&self, id: StreamId) -> bool {
        self.find(id).is_some()
    }

    fn get(&self, id: StreamId) -> Option<EntryRef<'_>> {
        self.find(id).map(|(n, i)| {
            let node = &self.nodes[n];
            node.entry(&node.items[i])
        })
    }

    /// `streamAppendItem` once the ID is known to be greater than the last one.
    fn append(&mut self, id: StreamId, fields: &[&[u8]]) {
        let total: usize = fields.iter().map(|f| f.len()).sum();
        let need_new = match self.nodes.back() {
            None => true,
            Some(n) => n.bytes() + total >= NODE_MAX_BYTES || n.items.len() >= NODE_MAX_ENTRIES,
        };
        if need_new {
            let node = Node::new(id, fields, self.nodes.back());
            self.nodes.push_back(node);
        }
        self.nodes.back_mut().expect("a node").push(id, fields);
        self.length += 1;
        self.entries_added += 1;
        self.last_id = id;
    }

    /// `streamDeleteItem`: marks the entry deleted, dropping its node when it was the last.
    fn delete_item(&mut self, id: StreamId) -> bool {
        let Some((ni, ii)) = self.find(id) else {
            return false;
        };
        let node = &mut self.nodes[ni];
        if node.live == 1 {
            self.nodes.remove(ni);
        } else {
            node.items[ii].deleted = true;
            node.live -= 1;
        }
        self.length -= 1;
        true
    }

    /// Live entries from `start` to `end` inclusive, `rev` from the end, at most `count`
    /// (0: all).
    fn range(&self, start: StreamId, end: StreamId, rev: bool, count: usize) -> Vec<EntryRef<'_>> {
        let mut out = Vec::new();
        if start > end || self.nodes.is_empty() {
            return out;
        }
        let full = |out: &Vec<EntryRef>| count != 0 && out.len() >= count;
        if !rev {
            for node in self.nodes.range(self.node_for(start)..) {
                if node.master > end {
                    break;
                }
                let from = node.items.partition_point(|i| i.id < start);
                for it in &node.items[from..] {
                    if it.id > end {
                        return out;
                    }
                    if !it.deleted {
                        out.push(node.entry(it));
                        if full(&out) {
                            return out;
                        }
                    }
                }
            }
        } else {
            let last = self.node_for(end);
            for node in self.nodes.range(..=last).rev() {
                if node.last_id() < start {
                    break;
                }
                let to = node.items.partition_point(|i| i.id <= end);
                for it in node.items[..to].iter().rev() {
                    if it.id < start {
                        return out;
                    }
                    if !it.deleted {
                        out.push(node.entry(it));
                        if full(&out) {
                            return out;
                        }
                    }
                }
            }
        }
        out
    }

    /// `streamLastValidID`: the last entry not deleted (0-0 if none).
    fn last_valid_id(&self) -> StreamId {
        self.range(StreamId::MIN, StreamId::MAX, true, 1)
            .first()
            .map_or(StreamId::MIN, |i| i.id)
    }

    /// `streamTrim`: how many entries it removed.
    fn trim(&mut self, args: &TrimArgs) -> u64 {
        let mut deleted = 0u64;
        while let Some(node) = self.nodes.front_mut() {
            if let Trim::MaxLen(max) = args.strategy {
                if self.length <= max {
                    break;
                }
            }
            let entries = node.live as u64;
            if args.limit != 0 && deleted + entries > args.limit {
                break;
            }
            let remove = match args.strategy {
                Trim::None => return 0,
                Trim::MaxLen(max) => self.length - entries >= max,
                Trim::MinId(min) => node.last_id() < min,
            };
            if remove {
                self.nodes.pop_front();
                self.length -= entries;
                deleted += entries;
                continue;
            }
            if args.approx {
                break;
            }
            for it in node.items.iter_mut() {
                let stop = match args.strategy {
                    Trim::MaxLen(max) => self.length <= max,
                    Trim::MinId(min) => it.id >= min,
                    Trim::None => true,
                };
                if stop {
                    break;
                }
                if !it.deleted {
                    it.deleted = true;
                    node.live -= 1;
                    self.length -= 1;
                    deleted += 1;
                }
            }
            break;
        }
        deleted
    }

    /// Number of entries (what XLEN says).
    pub(crate) fn len(&self) -> u64 {
        self.length
    }
}

fn entry_reply(it: EntryRef) -> Reply {
    Reply::Array(vec![
        it.id.reply(),
        Reply::Array(unpack(it.fields).map(|f| Reply::Bulk(f.to_vec())).collect()),
    ])
}

/// An XREAD / XREADGROUP reply kept compact: per stream its key and entries, the entries'
/// IDs as numbers and their fields copied into one buffer. [`StreamRead::to_reply`] renders
/// the `[[key, [[id, [field, value, …]], …]], …]` tree Redis sends; a reader that only
/// walks the entries ([`StreamRead::entries`]) costs no allocation per entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamRead {
    /// Per stream: its key and the end of its entries in `entries`.
    streams: Vec<(Vec<u8>, usize)>,
    entries: Vec<ReadItem>,
    /// The entries' fields, packed as a stream node packs them.
    buf: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReadItem {
    id: StreamId,
    /// `buf[start..end]`; `None`: the entry was deleted (`[id, nil]` in a history read).
    fields: Option<(usize, usize)>,
}

/// One entry of a [`StreamRead`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadEntry<'a> {
    /// The stream it was read from.
    pub key: &'a [u8],
    /// Its ID.
    pub id: StreamId,
    fields: Option<&'a [u8]>,
}

impl<'a> ReadEntry<'a> {
    /// Field, value, field, value, …; `None` for an entry deleted since it was delivered
    /// (a history read answers `[id, nil]` for it).
    pub fn fields(&self) -> Option<impl Iterator<Item = &'a [u8]>> {
        self.fields.map(unpack)
    }

    /// The value of the first field called `name`.
    pub fn field(&self, name: &[u8]) -> Option<&'a [u8]> {
        let mut it = self.fields()?;
        while let Some(f) = it.next() {
            let v = it.next();
            if f == name {
                return v;
            }
        }
        None
    }
}

impl StreamRead {
    fn begin(&mut self, key: &[u8]) {
        self.streams.push((key.to_vec(), self.entries.len()));
    }

    fn end(&mut self) {
        if let Some(s) = self.streams.last_mut() {
            s.1 = self.entries.len();
        }
    }

    fn push(&mut self, e: EntryRef) {
        let start = self.buf.len();
        self.buf.extend_from_slice(e.fields);
        self.entries.push(ReadItem {
            id: e.id,
            fields: Some((start, self.buf.len())),
        });
    }

    fn push_nil(&mut self, id: StreamId) {
        self.entries.push(ReadItem { id, fields: None });
    }

    /// Streams in the reply.
    pub fn streams(&self) -> usize {
        self.streams.len()
    }

    /// Every entry of every stream, in reply order.
    pub fn entries(&self) -> impl Iterator<Item = ReadEntry<'_>> {
        let mut from = 0;
        self.streams.iter().flat_map(move |(key, end)| {
            let items = &self.entries[from..*end];
            from = *end;
            items.iter().map(move |it| ReadEntry {
                key,
                id: it.id,
                fields: it.fields.map(|(a, b)| &self.buf[a..b]),
            })
        })
    }

    /// The reply as Redis sends it.
    pub fn to_reply(&self) -> Reply {
        let mut from = 0;
        Reply::Array(
            self.streams
                .iter()
                .map(|(key, end)| {
                    let items = &self.entries[from..*end];
                    from = *end;
                    let entries = items
                        .iter()
                        .map(|it| match it.fields {
                            Some((a, b)) => entry_reply(EntryRef {
                                id: it.id,
                                fields: &self.buf[a..b],
                            }),
                            None => Reply::Array(vec![it.id.reply(), Reply::Nil]),
                        })
                        .collect();
                    Reply::Array(vec![Reply::Bulk(key.clone()), Reply::Array(entries)])
                })
                .collect(),
        )
    }
}

fn nogroup(key: &[u8], group: &[u8], tail: &str) -> Reply {
    Reply::Error(format!(
        "NOGROUP No such key '{}' or consumer group '{}'{tail}",
        String::from_utf8_lossy(key),
        String::from_utf8_lossy(group)
    ))
}

/// What a client blocked in XREAD/XREADGROUP waits for.
#[derive(Clone, Debug)]
pub(crate) struct StreamWait {
    /// Per key, the ID the client wants entries after (the first occurrence of a key wins).
    ids: Vec<(Vec<u8>, StreamId)>,
    /// Group, consumer, NOACK.
    group: Option<(Vec<u8>, Vec<u8>, bool)>,
    count: usize,
}

/// XADD/XTRIM's options: the parsed arguments and the index of the ID (XADD).
struct AddArgs {
    trim: TrimArgs,
    id: Option<(StreamId, bool)>,
    no_mkstream: bool,
    idpos: usize,
}

fn parse_add_or_trim(a: &[&[u8]], xadd: bool) -> Result<AddArgs, Reply> {
    let mut out = AddArgs {
        trim: TrimArgs {
            strategy: Trim::None,
            approx: false,
            limit: 0,
        },
        id: None,
        no_mkstream: false,
        idpos: a.len(),
    };
    let mut limit_given = false;
    let mut i = 2;
    let both = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
    while i < a.len() {
        let more = a.len() - 1 - i;
        let opt = a[i];
        if xadd && opt == b"*" {
            break;
        } else if (opt.eq_ignore_ascii_case(b"maxlen") || opt.eq_ignore_ascii_case(b"minid"))
            && more > 0
        {
            if !matches!(out.trim.strategy, Trim::None) {
                return Err(Reply::err(both));
            }
            out.trim.approx = more >= 2 && a[i + 1] == b"~";
            if more >= 2 && (a[i + 1] == b"~" || a[i + 1] == b"=") {
                i += 1;
            }
            out.trim.strategy = if opt.eq_ignore_ascii_case(b"maxlen") {
                let n = parse_ll(a[i + 1], NOT_INT)?;
                if n < 0 {
                    return Err(Reply::err("ERR The MAXLEN argument must be >= 0."));
                }
                Trim::MaxLen(n as u64)
            } else {
                Trim::MinId(strict_id(a[i + 1])?)
            };
            i += 1;
        } else if opt.eq_ignore_ascii_case(b"limit") && more > 0 {
            let n = parse_ll(a[i + 1], NOT_INT)?;
            if n < 0 {
                return Err(Reply::err("ERR The LIMIT argument must be >= 0."));
            }
            out.trim.limit = n as u64;
            limit_given = true;
            i += 1;
        } else if xadd && opt.eq_ignore_ascii_case(b"nomkstream") {
            out.no_mkstream = true;
        } else if xadd {
            let (id, seq_given) = parse_id(opt, 0, true, true)?;
            out.id = Some((id, seq_given));
            break;
        } else {
            return Err(Reply::err(SYNTAX));
        }
        i += 1;
    }
    out.idpos = i;
    if out.trim.limit != 0 && matches!(out.trim.strategy, Trim::None) {
        return Err(Reply::err(
            "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy",
        ));
    }
    if !xadd && matches!(out.trim.strategy, Trim::None) {
        return Err(Reply::err(
            "ERR syntax error, XTRIM must be called with a trimming strategy",
        ));
    }
    if limit_given {
        if !out.trim.approx {
            return Err(Reply::err(
                "ERR syntax error, LIMIT cannot be used without the special ~ option",
            ));
        }
    } else if out.trim.approx {
        out.trim.limit = (100 * NODE_MAX_ENTRIES as u64).clamp(1, 1_000_000);
    } else {
        out.trim.limit = 0;
    }
    Ok(out)
}

impl SimRedis {
    /// The stream at `key`: `Ok(None)` if there is no key, WRONGTYPE for another type.
    fn stream_mut(&mut self, key: &[u8]) -> Result<Option<&mut Stream>, Reply> {
        match self.lookup(key) {
            None => Ok(None),
            Some(Entry {
                value: Value::Stream(s),
                ..
            }) => Ok(Some(s)),
            Some(_) => Err(wrongtype()),
        }
    }

    /// The stream at `key` if it has `group`; else WRONGTYPE or NOGROUP.
    fn stream_with_group(&mut self, key: &[u8], group: &[u8]) -> Result<&mut Stream, Reply> {
        match self.stream_mut(key)? {
            Some(s) if s.groups.contains_key(group) => Ok(s),
            _ => Err(nogroup(key, group, "")),
        }
    }

    /// XLEN of `key` without going through a command (0 if absent or not a stream).
    pub fn stream_len(&self, key: &[u8]) -> u64 {
        match self.keys.get(key) {
            Some(Entry {
                value: Value::Stream(s),
                ..
            }) => s.len(),
            _ => 0,
        }
    }

    /// How many entries the group's pending entries list holds (0 if there is none).
    pub fn stream_pending(&self, key: &[u8], group: &[u8]) -> u64 {
        match self.keys.get(key) {
            Some(Entry {
                value: Value::Stream(s),
                ..
            }) => s.groups.get(group).map_or(0, |g| g.pel.len() as u64),
            _ => 0,
        }
    }

    /// Radix-tree nodes of the stream at `key` (what `MAXLEN ~` removes whole).
    pub fn stream_nodes(&self, key: &[u8]) -> usize {
        match self.keys.get(key) {
            Some(Entry {
                value: Value::Stream(s),
                ..
            }) => s.nodes.len(),
            _ => 0,
        }
    }

    /// XADD; the new ID is kept as a number ([`RawReply::Id`]) until someone renders it.
    pub(crate) fn xadd(&mut self, a: &[&[u8]]) -> RawReply {
        match self.xadd_id(a) {
            Ok(id) => RawReply::Id(id),
            Err(e) => RawReply::Tree(e),
        }
    }

    /// The new ID, or the reply when there is none (an error, or nil for NOMKSTREAM).
    fn xadd_id(&mut self, a: &[&[u8]]) -> Result<StreamId, Reply> {
        let args = parse_add_or_trim(a, true)?;
        let field_pos = args.idpos + 1;
        if a.len() < field_pos + 2 || (a.len() - field_pos) % 2 == 1 {
            return Err(arity_error(b"xadd"));
        }
        if let Some((id, true)) = args.id {
            if id == StreamId::MIN {
                return Err(Reply::err(
                    "ERR The ID specified in XADD must be greater than 0-0",
                ));
            }
        }
        let now = self.mstime() as u64;
        let key = a[1];
        match self.stream_mut(key) {
            Err(e) => return Err(e),
            Ok(None) if args.no_mkstream => return Err(Reply::Nil),
            Ok(None) => self.store(key, Value::Stream(Box::default()), false),
            Ok(Some(_)) => {}
        }
        let Ok(Some(s)) = self.stream_mut(key) else {
            unreachable!("the stream was just found or made")
        };
        if s.last_id == StreamId::MAX {
            return Err(Reply::err(
                "ERR The stream has exhausted the last possible ID, unable to add more items",
            ));
        }
        let id = match args.id {
            Some((id, true)) => Some(id),
            Some((id, false)) => {
                if s.last_id.ms == id.ms {
                    if s.last_id.seq == u64::MAX {
                        None
                    } else {
                        Some(StreamId::new(id.ms, s.last_id.seq + 1))
                    }
                } else {
                    Some(id)
                }
            }
            None => Some(if now > s.last_id.ms {
                StreamId::new(now, 0)
            } else {
                s.last_id.incr().unwrap_or(StreamId::MIN)
            }),
        };
        let id = match id {
            Some(id) if id > s.last_id => id,
            _ => return Err(Reply::err(
                "ERR The ID specified in XADD is equal or smaller than the target stream top item",
            )),
        };
        s.append(id, &a[field_pos..]);
        s.trim(&args.trim);
        self.modified(key);
        self.signal_ready(key);
        Ok(id)
    }

    pub(crate) fn xlen(&mut self, a: &[&[u8]]) -> Reply {
        match self.stream_mut(a[1]) {
            Err(e) => e,
            Ok(None) => Reply::Integer(0),
            Ok(Some(s)) => Reply::Integer(s.length as i64),
        }
    }

    fn xrange_generic(&mut self, a: &[&[u8]], rev: bool) -> Reply {
        let (sa, ea) = if rev { (a[3], a[2]) } else { (a[2], a[3]) };
        let start = match interval_start(sa) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let end = match interval_end(ea) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let mut count: i64 = -1;
        let mut j = 4;
        while j < a.len() {
            if a[j].eq_ignore_ascii_case(b"count") && j + 1 < a.len() {
                count = match parse_ll(a[j + 1], NOT_INT) {
                    Ok(n) => n.max(0),
                    Err(e) => return e,
                };
                j += 2;
            } else {
                return Reply::err(SYNTAX);
            }
        }
        let s = match self.stream_mut(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Array(vec![]),
            Ok(Some(s)) => s,
        };
        if count == 0 {
            return Reply::Nil;
        }
        let n = if count < 0 { 0 } else { count as usize };
        Reply::Array(
            s.range(start, end, rev, n)
                .into_iter()
                .map(entry_reply)
                .collect(),
        )
    }

    pub(crate) fn xrange(&mut self, a: &[&[u8]]) -> Reply {
        self.xrange_generic(a, false)
    }

    pub(crate) fn xrevrange(&mut self, a: &[&[u8]]) -> Reply {
        self.xrange_generic(a, true)
    }

    pub(crate) fn xtrim(&mut self, a: &[&[u8]]) -> Reply {
        let args = match parse_add_or_trim(a, false) {
            Ok(x) => x,
            Err(e) => return e,
        };
        match self.stream_mut(a[1]) {
            Err(e) => e,
            Ok(None) => Reply::Integer(0),
            Ok(Some(s)) => {
                let n = s.trim(&args.trim);
                if n > 0 {
                    self.modified(a[1]);
                }
                Reply::Integer(n as i64)
            }
        }
    }

    pub(crate) fn xdel(&mut self, a: &[&[u8]]) -> Reply {
        match self.stream_mut(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(_)) => {}
        }
        let mut ids = Vec::with_capacity(a.len() - 2);
        for x in &a[2..] {
            match strict_id(x) {
                Ok(id) => ids.push(id),
                Err(e) => return e,
            }
        }
        let Ok(Some(s)) = self.stream_mut(a[1]) else {
            unreachable!("checked above")
        };
        let n = ids.iter().filter(|&&id| s.delete_item(id)).count();
        if n > 0 {
            self.modified(a[1]);
        }
        Reply::Integer(n as i64)
    }

    pub(crate) fn xgroup(&mut self, a: &[&[u8]]) -> Reply {
        let r = self.xgroup_inner(a);
        if !r.is_error() && a.len() > 2 {
            // Consumer-group bookkeeping is propagated (server.dirty), not signalled.
            self.dirty(a[2]);
        }
        r
    }

    fn xgroup_inner(&mut self, a: &[&[u8]]) -> Reply {
        let sub = a[1].to_ascii_lowercase();
        let arity: i32 = match sub.as_slice() {
            b"create" => -5,
            b"setid" => -5,
            b"destroy" => 4,
            b"createconsumer" | b"delconsumer" => 5,
            b"help" => 2,
            _ => {
                let name: String = String::from_utf8_lossy(a[1]).chars().take(128).collect();
                let msg = format!(
                    "ERR unknown subcommand '{name}'. Try {} HELP.",
                    String::from_utf8_lossy(a[0]).to_uppercase()
                );
                return Reply::Error(msg.replace(['\r', '\n'], " "));
            }
        };
        let n = a.len() as i32;
        if (arity > 0 && n != arity) || n < -arity {
            let mut full = b"xgroup|".to_vec();
            full.extend_from_slice(&sub);
            return arity_error(&full);
        }
        let syntax = || {
            Reply::Error(format!(
                "ERR unknown subcommand or wrong number of arguments for '{}'. Try {} HELP.",
                String::from_utf8_lossy(a[1])
                    .chars()
                    .take(128)
                    .collect::<String>(),
                String::from_utf8_lossy(a[0]).to_uppercase()
            ))
        };
        let now = self.mstime();
        let mut mkstream = false;
        let mut exists = false;
        if a.len() >= 4 {
            let mut i = 5;
            let create = sub == b"create";
            while i < a.len() {
                if create && a[i].eq_ignore_ascii_case(b"mkstream") {
                    mkstream = true;
                    i += 1;
                } else if (create || sub == b"setid")
                    && a[i].eq_ignore_ascii_case(b"entriesread")
                    && i + 1 < a.len()
                {
                    match parse_ll(a[i + 1], NOT_INT) {
                        Err(e) => return e,
                        Ok(v) if v < 0 && v != -1 => {
                            return Reply::err("ERR value for ENTRIESREAD must be positive or -1")
                        }
                        Ok(_) => {}
                    }
                    i += 2;
                } else {
                    return syntax();
                }
            }
            match self.stream_mut(a[2]) {
                Err(e) => return e,
                Ok(s) => exists = s.is_some(),
            }
        }
        if a.len() >= 4 && !mkstream {
            if !exists {
                return Reply::err(
                    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.",
                );
            }
            let Ok(Some(s)) = self.stream_mut(a[2]) else {
                unreachable!("exists")
            };
            if !s.groups.contains_key(a[3])
                && matches!(
                    sub.as_slice(),
                    b"setid" | b"createconsumer" | b"delconsumer"
                )
            {
                return Reply::Error(format!(
                    "NOGROUP No such consumer group '{}' for key name '{}'",
                    String::from_utf8_lossy(a[3]),
                    String::from_utf8_lossy(a[2])
                ));
            }
        }
        match sub.as_slice() {
            b"help" => Reply::Array(
                XGROUP_HELP
                    .iter()
                    .map(|l| Reply::Status((*l).into()))
                    .collect(),
            ),
            b"create" if a.len() <= 8 => {
                let id = if a[4] == b"$" {
                    None
                } else {
                    match strict_id(a[4]) {
                        Ok(id) => Some(id),
                        Err(e) => return e,
                    }
                };
                if !exists {
                    self.store(a[2], Value::Stream(Box::default()), false);
                }
                let Ok(Some(s)) = self.stream_mut(a[2]) else {
                    unreachable!("exists or was made")
                };
                if s.groups.contains_key(a[3]) {
                    return Reply::err("BUSYGROUP Consumer Group name already exists");
                }
                let last_id = id.unwrap_or(s.last_id);
                s.groups.insert(
                    a[3].to_vec(),
                    Group {
                        last_id,
                        ..Group::default()
                    },
                );
                Reply::ok()
            }
            b"setid" if a.len() == 5 || a.len() == 7 => {
                let Ok(Some(s)) = self.stream_mut(a[2]) else {
                    unreachable!("checked above")
                };
                let id = if a[4] == b"$" {
                    s.last_id
                } else {
                    match parse_id(a[4], 0, false, false) {
                        Ok((id, _)) => id,
                        Err(e) => return e,
                    }
                };
                s.groups.get_mut(a[3]).expect("checked above").last_id = id;
                Reply::ok()
            }
            b"destroy" => {
                let Ok(Some(s)) = self.stream_mut(a[2]) else {
                    unreachable!("checked above")
                };
                if s.groups.remove(a[3]).is_some() {
                    self.signal_ready(a[2]);
                    Reply::Integer(1)
                } else {
                    Reply::Integer(0)
                }
            }
            b"createconsumer" => {
                let Ok(Some(s)) = self.stream_mut(a[2]) else {
                    unreachable!("checked above")
                };
                let g = s.groups.get_mut(a[3]).expect("checked above");
                Reply::Integer(i64::from(g.create(a[4], now).is_some()))
            }
            b"delconsumer" => {
                let Ok(Some(s)) = self.stream_mut(a[2]) else {
                    unreachable!("checked above")
                };
                let g = s.groups.get_mut(a[3]).expect("checked above");
                let Some(slot) = g.by_name.remove(a[4]) else {
                    return Reply::Integer(0);
                };
                let c = g.consumers.remove(&slot).expect("named consumer");
                g.pel.retain(|_, n| n.consumer != slot);
                Reply::Integer(c.pending as i64)
            }
            _ => syntax(),
        }
    }

    pub(crate) fn xack(&mut self, a: &[&[u8]]) -> Reply {
        let r = self.xack_inner(a);
        if !r.is_error() && a.len() > 1 {
            // Consumer-group bookkeeping is propagated (server.dirty), not signalled.
            self.dirty(a[1]);
        }
        r
    }

    fn xack_inner(&mut self, a: &[&[u8]]) -> Reply {
        let s = match self.stream_mut(a[1]) {
            Err(e) => return e,
            Ok(None) => return Reply::Integer(0),
            Ok(Some(s)) => s,
        };
        let Some(g) = s.groups.get_mut(a[2]) else {
            return Reply::Integer(0);
        };
        let mut ids = Vec::with_capacity(a.len() - 3);
        for x in &a[3..] {
            match strict_id(x) {
                Ok(id) => ids.push(id),
                Err(e) => return e,
            }
        }
        Reply::Integer(ids.into_iter().filter(|&id| g.remove_nack(id)).count() as i64)
    }

    pub(crate) fn xpending(&mut self, a: &[&[u8]]) -> Reply {
        let just_info = a.len() == 3;
        if a.len() != 3 && !(6..=9).contains(&a.len()) {
            return Reply::err(SYNTAX);
        }
        let (mut start, mut end, mut count, mut min_idle) =
            (StreamId::MIN, StreamId::MAX, 0i64, 0i64);
        let mut consumer: Option<&[u8]> = None;
        if a.len() >= 6 {
            let mut si = 3;
            if a[3].eq_ignore_ascii_case(b"idle") {
                min_idle = match parse_ll(a[4], NOT_INT) {
                    Ok(v) => v,
                    Err(e) => return e,
                };
                if a.len() < 8 {
                    return Reply::err(SYNTAX);
                }
                si += 2;
            }
            count = match parse_ll(a[si + 2], NOT_INT) {
                Ok(v) => v.max(0),
                Err(e) => return e,
            };
            start = match interval_start(a[si]) {
                Ok(x) => x,
                Err(e) => return e,
            };
            end = match interval_end(a[si + 1]) {
                Ok(x) => x,
                Err(e) => return e,
            };
            if si + 3 < a.len() {
                consumer = Some(a[si + 3]);
            }
        }
        let now = self.mstime();
        let s = match self.stream_mut(a[1]) {
            Err(e) => return e,
            Ok(None) => return nogroup(a[1], a[2], ""),
            Ok(Some(s)) => s,
        };
        let Some(g) = s.groups.get(a[2]) else {
            return nogroup(a[1], a[2], "");
        };
        if just_info {
            if g.pel.is_empty() {
                return Reply::Array(vec![Reply::Integer(0), Reply::Nil, Reply::Nil, Reply::Nil]);
            }
            let first = *g.pel.keys().next().expect("non-empty");
            let last = *g.pel.keys().next_back().expect("non-empty");
            let per: Vec<Reply> = g
                .by_name
                .values()
                .filter_map(|slot| g.consumers.get(slot))
                .filter(|c| c.pending > 0)
                .map(|c| {
                    Reply::Array(vec![
                        Reply::Bulk(c.name.clone()),
                        Reply::Bulk(c.pending.to_string().into_bytes()),
                    ])
                })
                .collect();
            return Reply::Array(vec![
                Reply::Integer(g.pel.len() as i64),
                first.reply(),
                last.reply(),
                Reply::Array(per),
            ]);
        }
        let ids: Vec<StreamId> = match consumer {
            Some(name) => match g.by_name.get(name).filter(|s| g.consumers.contains_key(s)) {
                None => return Reply::Array(vec![]),
                Some(&slot) => {
                    if start > end {
                        vec![]
                    } else {
                        g.consumer_pel(slot, start..=end).collect()
                    }
                }
            },
            None => {
                if start > end {
                    vec![]
                } else {
                    g.pel.range(start..=end).map(|(k, _)| *k).collect()
                }
            }
        };
        let mut out = Vec::new();
        for id in ids {
            if count == 0 {
                break;
            }
            let n = &g.pel[&id];
            let idle = now - n.delivery_time;
            if min_idle != 0 && idle < min_idle {
                continue;
            }
            count -= 1;
            let name = g
                .consumers
                .get(&n.consumer)
                .map_or(vec![], |c| c.name.clone());
            out.push(Reply::Array(vec![
                id.reply(),
                Reply::Bulk(name),
                Reply::Integer(idle.max(0)),
                Reply::Integer(n.delivery_count as i64),
            ]));
        }
        Reply::Array(out)
    }

    pub(crate) fn xclaim(&mut self, a: &[&[u8]]) -> Reply {
        let r = self.xclaim_inner(a);
        if !r.is_error() && a.len() > 1 {
            // Consumer-group bookkeeping is propagated (server.dirty), not signalled.
            self.dirty(a[1]);
        }
        r
    }

    fn xclaim_inner(&mut self, a: &[&[u8]]) -> Reply {
        let now = self.mstime();
        let s = match self.stream_with_group(a[1], a[2]) {
            Ok(s) => s,
            Err(e) => return e,
        };
        let min_idle = match parse_ll(a[4], "ERR Invalid min-idle-time argument for XCLAIM") {
            Ok(v) => v.max(0),
            Err(e) => return e,
        };
        let mut ids = Vec::new();
        let mut j = 5;
        while j < a.len() {
            match strict_id(a[j]) {
                Ok(id) => ids.push(id),
                Err(_) => break,
            }
            j += 1;
        }
        let (mut force, mut justid) = (false, false);
        let mut retry: i64 = -1;
        let mut delivery: i64 = -1;
        let mut last_id = StreamId::MIN;
        while j < a.len() {
            let more = a.len() - 1 - j;
            let opt = a[j];
            if opt.eq_ignore_ascii_case(b"force") {
                force = true;
            } else if opt.eq_ignore_ascii_case(b"justid") {
                justid = true;
            } else if opt.eq_ignore_ascii_case(b"idle") && more > 0 {
                j += 1;
                match parse_ll(a[j], "ERR Invalid IDLE option argument for XCLAIM") {
                    Ok(v) => delivery = now.wrapping_sub(v),
                    Err(e) => return e,
                }
            } else if opt.eq_ignore_ascii_case(b"time") && more > 0 {
                j += 1;
                match parse_ll(a[j], "ERR Invalid TIME option argument for XCLAIM") {
                    Ok(v) => delivery = v,
                    Err(e) => return e,
                }
            } else if opt.eq_ignore_ascii_case(b"retrycount") && more > 0 {
                j += 1;
                match parse_ll(a[j], "ERR Invalid RETRYCOUNT option argument for XCLAIM") {
                    Ok(v) => retry = v,
                    Err(e) => return e,
                }
            } else if opt.eq_ignore_ascii_case(b"lastid") && more > 0 {
                j += 1;
                match strict_id(a[j]) {
                    Ok(id) => last_id = id,
                    Err(e) => return e,
                }
            } else {
                return Reply::Error(format!(
                    "ERR Unrecognized XCLAIM option '{}'",
                    String::from_utf8_lossy(opt)
                ));
            }
            j += 1;
        }
        let g = s.groups.get_mut(a[2]).expect("checked above");
        if last_id > g.last_id {
            g.last_id = last_id;
        }
        if delivery != -1 {
            if delivery < 0 || delivery > now {
                delivery = now;
            }
        } else {
            delivery = now;
        }
        let mut out = Vec::new();
        let mut consumer: Option<u32> = None;
        for id in ids {
            let exists = s.exists(id);
            let g = s.groups.get_mut(a[2]).expect("checked above");
            if !exists {
                g.remove_nack(id);
                continue;
            }
            let mut fresh = false;
            if force && !g.pel.contains_key(&id) {
                g.pel.insert(
                    id,
                    Nack {
                        consumer: u32::MAX,
                        delivery_time: now,
                        delivery_count: 1,
                    },
                );
                fresh = true;
            }
            let Some(n) = g.pel.get(&id) else {
                continue;
            };
            if !fresh && min_idle != 0 && now - n.delivery_time < min_idle {
                continue;
            }
            let slot = *consumer.get_or_insert_with(|| g.lookup_or_create(a[3], now));
            if fresh {
                g.pel.get_mut(&id).expect("inserted").consumer = slot;
                g.consumers.get_mut(&slot).expect("made").pending += 1;
            } else {
                g.reassign(id, slot);
            }
            let n = g.pel.get_mut(&id).expect("present");
            n.delivery_time = delivery;
            if retry >= 0 {
                n.delivery_count = retry as u64;
            } else if !justid {
                n.delivery_count += 1;
            }
            out.push(if justid {
                id.reply()
            } else {
                entry_reply(s.get(id).expect("exists"))
            });
        }
        Reply::Array(out)
    }

    pub(crate) fn xautoclaim(&mut self, a: &[&[u8]]) -> Reply {
        let r = self.xautoclaim_inner(a);
        if !r.is_error() && a.len() > 1 {
            // Consumer-group bookkeeping is propagated (server.dirty), not signalled.
            self.dirty(a[1]);
        }
        r
    }

    fn xautoclaim_inner(&mut self, a: &[&[u8]]) -> Reply {
        let min_idle = match parse_ll(a[4], "ERR Invalid min-idle-time argument for XAUTOCLAIM") {
            Ok(v) => v.max(0),
            Err(e) => return e,
        };
        let start = match interval_start(a[5]) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let mut count: i64 = 100;
        let mut justid = false;
        let mut j = 6;
        while j < a.len() {
            let more = a.len() - 1 - j;
            if a[j].eq_ignore_ascii_case(b"count") && more > 0 {
                let max = i64::MAX / 16;
                count = match parse_i64(a[j + 1]) {
                    Some(v) if (1..=max).contains(&v) => v,
                    _ => return Reply::err("ERR COUNT must be > 0"),
                };
                j += 1;
            } else if a[j].eq_ignore_ascii_case(b"justid") {
                justid = true;
            } else {
                return Reply::err(SYNTAX);
            }
            j += 1;
        }
        let now = self.mstime();
        let s = match self.stream_with_group(a[1], a[2]) {
            Ok(s) => s,
            Err(e) => return e,
        };
        let mut attempts = count.saturating_mul(10);
        let mut out = Vec::new();
        let mut deleted = Vec::new();
        let mut consumer: Option<u32> = None;
        let mut cursor = start;
        let next: Option<StreamId>;
        loop {
            // `while (attempts-- && count && raxNext(&ri))`
            let go = attempts != 0;
            attempts -= 1;
            if !go || count == 0 {
                next = s.groups[a[2]].pel.range(cursor..).next().map(|(k, _)| *k);
                break;
            }
            let Some(id) = s.groups[a[2]].pel.range(cursor..).next().map(|(k, _)| *k) else {
                next = None;
                break;
            };
            cursor = match id.incr() {
                Some(c) => c,
                None => StreamId::MAX,
            };
            let exists = s.exists(id);
            let g = s.groups.get_mut(a[2]).expect("checked above");
            if !exists {
                g.remove_nack(id);
                deleted.push(id);
                count -= 1;
                if id == StreamId::MAX {
                    next = None;
                    break;
                }
                continue;
            }
            let idle = now - g.pel[&id].delivery_time;
            if min_idle != 0 && idle < min_idle {
                if id == StreamId::MAX {
                    next = None;
                    break;
                }
                continue;
            }
            let slot = *consumer.get_or_insert_with(|| g.lookup_or_create(a[3], now));
            g.reassign(id, slot);
            let n = g.pel.get_mut(&id).expect("present");
            n.delivery_time = now;
            if !justid {
                n.delivery_count += 1;
            }
            out.push(if justid {
                id.reply()
            } else {
                entry_reply(s.get(id).expect("exists"))
            });
            count -= 1;
            if id == StreamId::MAX {
                next = None;
                break;
            }
        }
        Reply::Array(vec![
            next.unwrap_or(StreamId::MIN).reply(),
            Reply::Array(out),
            Reply::Array(deleted.into_iter().map(StreamId::reply).collect()),
        ])
    }

    pub(crate) fn xread(&mut self, a: &[&[u8]], client: Option<ClientId>) -> RawExec {
        self.xread_generic(a, client, false)
    }

    pub(crate) fn xreadgroup(&mut self, a: &[&[u8]], client: Option<ClientId>) -> RawExec {
        let r = self.xread_generic(a, client, true);
        if let RawExec::Reply(RawReply::Read(_)) = &r {
            // The group's last ID and PEL moved: propagated, as Redis propagates XCLAIMs.
            if let Some(i) = a.iter().position(|w| w.eq_ignore_ascii_case(b"streams")) {
                let keys: Vec<Vec<u8>> = a[i + 1..]
                    .iter()
                    .take((a.len() - i - 1) / 2)
                    .map(|k| k.to_vec())
                    .collect();
                for k in keys {
                    self.dirty(&k);
                }
            }
        }
        r
    }

    fn xread_generic(&mut self, a: &[&[u8]], client: Option<ClientId>, group_cmd: bool) -> RawExec {
        let r = |x: Reply| RawExec::Reply(RawReply::Tree(x));
        let mut timeout: Option<i64> = None;
        let mut count: usize = 0;
        let mut streams_arg = 0;
        let mut n_streams = 0;
        let mut noack = false;
        let mut group: Option<(&[u8], &[u8])> = None;
        let mut i = 1;
        while i < a.len() {
            let more = a.len() - i - 1;
            let o = a[i];
            if o.eq_ignore_ascii_case(b"block") && more > 0 {
                i += 1;
                timeout = match self.parse_timeout(a[i], Unit::Millis) {
                    Ok(t) => Some(t),
                    Err(e) => return r(e),
                };
            } else if o.eq_ignore_ascii_case(b"count") && more > 0 {
                i += 1;
                count = match parse_ll(a[i], NOT_INT) {
                    Ok(c) => c.max(0) as usize,
                    Err(e) => return r(e),
                };
            } else if o.eq_ignore_ascii_case(b"streams") && more > 0 {
                streams_arg = i + 1;
                let n = a.len() - streams_arg;
                if n % 2 != 0 {
                    return r(Reply::err("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."));
                }
                n_streams = n / 2;
                break;
            } else if o.eq_ignore_ascii_case(b"group") && more >= 2 {
                if !group_cmd {
                    return r(Reply::err(
                        "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
                    ));
                }
                group = Some((a[i + 1], a[i + 2]));
                i += 2;
            } else if o.eq_ignore_ascii_case(b"noack") {
                if !group_cmd {
                    return r(Reply::err(
                        "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
                    ));
                }
                noack = true;
            } else {
                return r(Reply::err(SYNTAX));
            }
            i += 1;
        }
        if streams_arg == 0 {
            return r(Reply::err(SYNTAX));
        }
        if group_cmd && group.is_none() {
            return r(Reply::err("ERR Missing GROUP option for XREADGROUP"));
        }
        // `>` is kept as MAX, as Redis does.
        let mut ids = Vec::with_capacity(n_streams);
        for k in 0..n_streams {
            let key = a[streams_arg + k];
            let arg = a[streams_arg + n_streams + k];
            let s = match self.stream_mut(key) {
                Err(e) => return r(e),
                Ok(s) => s,
            };
            if let Some((g, _)) = group {
                if !s.as_ref().is_some_and(|s| s.groups.contains_key(g)) {
                    return r(nogroup(key, g, " in XREADGROUP with GROUP option"));
                }
            }
            if arg == b"$" {
                if group_cmd {
                    return r(Reply::err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."));
                }
                ids.push(s.map_or(StreamId::MIN, |s| s.last_id));
                continue;
            }
            if arg == b">" {
                if !group_cmd {
                    return r(Reply::err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."));
                }
                ids.push(StreamId::MAX);
                continue;
            }
            match strict_id(arg) {
                Ok(id) => ids.push(id),
                Err(e) => return r(e),
            }
        }
        let now = self.mstime();
        let mut out = StreamRead::default();
        for (k, gt) in ids.iter_mut().enumerate() {
            let key = a[streams_arg + k];
            let Ok(Some(s)) = self.stream_mut(key) else {
                continue;
            };
            let mut history = false;
            let serve = match group {
                Some((g, _)) => {
                    if *gt != StreamId::MAX {
                        history = true;
                        true
                    } else if s.length > 0 {
                        let last = s.groups[g].last_id;
                        if s.last_valid_id() > last {
                            *gt = last;
                            true
                        } else {
                            false
                        }
                    } else {
                        false
                    }
                }
                None => s.length > 0 && s.last_valid_id() > *gt,
            };
            if !serve {
                continue;
            }
            let start = gt.incr().unwrap_or(StreamId::MIN);
            out.begin(key);
            match group {
                Some((g, c)) => serve_group(s, g, c, start, count, noack, history, now, &mut out),
                None => {
                    for e in s.range(start, StreamId::MAX, false, count) {
                        out.push(e);
                    }
                }
            }
            out.end();
        }
        if out.streams() > 0 {
            return RawExec::Reply(RawReply::Read(out));
        }
        match (timeout, client) {
            (Some(deadline), Some(c)) => {
                let mut wait = StreamWait {
                    ids: Vec::new(),
                    group: group.map(|(g, c)| (g.to_vec(), c.to_vec(), noack)),
                    count: if count == 0 {
                        XREAD_BLOCKED_DEFAULT_COUNT
                    } else {
                        count
                    },
                };
                let mut keys = Vec::new();
                for (k, id) in ids.iter().enumerate() {
                    let key = a[streams_arg + k];
                    if !wait.ids.iter().any(|(x, _)| x == key) {
                        wait.ids.push((key.to_vec(), *id));
                        keys.push(key.to_vec());
                    }
                }
                self.block(c, keys, BlockKind::Stream(wait), deadline);
                RawExec::Blocked
            }
            _ => r(Reply::Nil),
        }
    }

    /// `serveClientsBlockedOnStreamKey`: clients blocked on `key` whose ID the stream has
    /// passed are served, in the order they blocked.
    pub(crate) fn serve_stream_waiters(&mut self, key: &[u8]) {
        self.dirty(key);
        let now = self.mstime();
        for client in self.waiters(key) {
            let Some(BlockKind::Stream(w)) = self.blocked.get(&client).map(|b| b.kind.clone())
            else {
                continue;
            };
            let Some(Entry {
                value: Value::Stream(s),
                ..
            }) = self.keys.get_mut(key)
            else {
                return;
            };
            let mut gt = w
                .ids
                .iter()
                .find(|(k, _)| k == key)
                .map_or(StreamId::MIN, |(_, id)| *id);
            let reply = match &w.group {
                Some((g, _, _)) => match s.groups.get(g.as_slice()) {
                    None => Some(Reply::err(
                        "NOGROUP the consumer group this client was blocked on no longer exists",
                    )),
                    Some(grp) => {
                        gt = grp.last_id;
                        None
                    }
                },
                None => None,
            };
            let reply = match reply {
                Some(e) => RawReply::Tree(e),
                None if s.last_id > gt => {
                    let start = gt.incr().unwrap_or(StreamId::MIN);
                    let mut out = StreamRead::default();
                    out.begin(key);
                    match &w.group {
                        Some((g, c, noack)) => {
                            serve_group(s, g, c, start, w.count, *noack, false, now, &mut out)
                        }
                        None => {
                            for e in s.range(start, StreamId::MAX, false, w.count) {
                                out.push(e);
                            }
                        }
                    }
                    out.end();
                    RawReply::Read(out)
                }
                None => continue,
            };
            self.unblock(client);
            self.wake(client, reply);
        }
    }
}

/// `streamReplyWithRange` with a group: new entries go to the consumer's and the group's
/// pending lists (unless NOACK); `history` serves the consumer's own pending list instead.
/// The entries are appended to `out`.
#[allow(clippy::too_many_arguments)]
fn serve_group(
    s: &mut Stream,
    group: &[u8],
    consumer: &[u8],
    start: StreamId,
    count: usize,
    noack: bool,
    history: bool,
    now: i64,
    out: &mut StreamRead,
) {
    let g = s
        .groups
        .get_mut(group)
        .expect("the caller checked the group");
    let slot = g.lookup_or_create(consumer, now);
    if history {
        let ids: Vec<StreamId> = g
            .consumer_pel(slot, start..)
            .take(if count == 0 { usize::MAX } else { count })
            .collect();
        for id in ids {
            match s.get(id) {
                Some(it) => {
                    out.push(it);
                    let g = s.groups.get_mut(group).expect("checked");
                    let n = g.pel.get_mut(&id).expect("in the consumer's PEL");
                    n.delivery_time = now;
                    n.delivery_count += 1;
                }
                None => out.push_nil(id),
            }
        }
        return;
    }
    let first = out.entries.len();
    for e in s.range(start, StreamId::MAX, false, count) {
        out.push(e);
    }
    let g = s.groups.get_mut(group).expect("checked");
    let mut fresh = 0;
    for it in &out.entries[first..] {
        let id = it.id;
        if id > g.last_id {
            g.last_id = id;
        }
        if noack {
            continue;
        }
        match g.pel.get_mut(&id) {
            None => {
                g.pel.insert(
                    id,
                    Nack {
                        consumer: slot,
                        delivery_time: now,
                        delivery_count: 1,
                    },
                );
                fresh += 1;
            }
            Some(n) => {
                n.delivery_time = now;
                n.delivery_count = 1;
                g.reassign(id, slot);
            }
        }
    }
    g.consumers.get_mut(&slot).expect("made").pending += fresh;
}

/// `XGROUP HELP` as Redis 7.0 prints it.
const XGROUP_HELP: &[&str] = &[
    "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    "HELP",
    "    Prints this help.",
];
