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
pub use id::StreamId;
use id::{interval_end, interval_start, pack_into, parse_id, parse_ll, strict_id, unpack};
use std::collections::{BTreeMap, VecDeque};

/// `stream-node-max-entries` (Redis' default).
pub const NODE_MAX_ENTRIES: usize = 100;
/// `stream-node-max-bytes` (Redis' default).
pub const NODE_MAX_BYTES: usize = 4096;
/// XREAD/XREADGROUP's COUNT when a client blocks without one.
const XREAD_BLOCKED_DEFAULT_COUNT: usize = 1000;

const INVALID_ID: &str = "ERR Invalid stream ID specified as stream command argument";

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
}

mod commands;
mod groups;
mod id;
mod read;
