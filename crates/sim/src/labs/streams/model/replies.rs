//! Reading Redis' replies as the consumers need them: the entries of an XREADGROUP (compact
//! from SimRedis, a tree from a real Redis), XAUTOCLAIM's cursor, entries and deleted IDs,
//! an integer.

use crate::redis::{RawReply, Reply, StreamId};
use std::borrow::Cow;

/// One entry as a consumer sees it: its ID and the message number in its `n` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Msg {
    pub id: StreamId,
    pub n: u64,
}

/// The reply as a tree (rendered only when it is not one already).
pub(super) fn tree(r: &RawReply) -> Cow<'_, Reply> {
    match r.as_tree() {
        Some(t) => Cow::Borrowed(t),
        None => Cow::Owned(r.to_reply()),
    }
}

/// The value of an integer reply.
pub(super) fn integer(r: &RawReply) -> Option<i64> {
    r.as_tree().and_then(Reply::as_int)
}

/// Entries of an XREADGROUP reply (`[[key, [[id, [f, v, …]], …]]]`); nothing for nil (BLOCK
/// timed out) or an error. An entry without an `n` field that reads as a number is skipped.
pub(super) fn read_entries(r: &RawReply) -> Vec<Msg> {
    match r {
        // SimRedis: the compact read, walked without rendering it.
        RawReply::Read(read) => read
            .entries()
            .filter_map(|e| {
                let n = parse_u64(e.field(b"n")?)?;
                Some(Msg { id: e.id, n })
            })
            .collect(),
        RawReply::Tree(t) => tree_entries(t),
        RawReply::Id(_) => Vec::new(),
    }
}

/// [`read_entries`] of a tree (a real Redis' reply, as the proxy sends it).
fn tree_entries(r: &Reply) -> Vec<Msg> {
    let Reply::Array(streams) = r else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in streams {
        if let Reply::Array(kv) = s {
            if let Some(Reply::Array(entries)) = kv.get(1) {
                out.extend(entries.iter().filter_map(entry_msg));
            }
        }
    }
    out
}

/// `str::parse::<u64>` on bytes: an optional `+`, then at least one digit, no overflow.
pub(crate) fn parse_u64(b: &[u8]) -> Option<u64> {
    let d = b.strip_prefix(b"+").unwrap_or(b);
    if d.is_empty() {
        return None;
    }
    d.iter().try_fold(0u64, |n, &c| {
        if !c.is_ascii_digit() {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(c - b'0'))
    })
}

fn entry_msg(e: &Reply) -> Option<Msg> {
    let Reply::Array(pair) = e else { return None };
    let id = StreamId::parse(pair.first()?.as_bulk()?)?;
    let Reply::Array(fields) = pair.get(1)? else {
        return None;
    };
    let n = fields
        .chunks(2)
        .find(|f| f[0].as_bulk() == Some(b"n"))
        .and_then(|f| f.get(1)?.as_bulk())
        .and_then(parse_u64)?;
    Some(Msg { id, n })
}

/// XAUTOCLAIM's `[cursor, entries, deleted ids]`.
pub(super) fn parse_autoclaim(r: &Reply) -> (StreamId, Vec<Msg>, Vec<StreamId>) {
    let Reply::Array(parts) = r else {
        return (StreamId::MIN, Vec::new(), Vec::new());
    };
    let cursor = parts
        .first()
        .and_then(Reply::as_bulk)
        .and_then(StreamId::parse)
        .unwrap_or(StreamId::MIN);
    let entries = match parts.get(1) {
        Some(Reply::Array(v)) => v.iter().filter_map(entry_msg).collect(),
        _ => Vec::new(),
    };
    let deleted = match parts.get(2) {
        Some(Reply::Array(v)) => v
            .iter()
            .filter_map(|x| StreamId::parse(x.as_bulk()?))
            .collect(),
        _ => Vec::new(),
    };
    (cursor, entries, deleted)
}
