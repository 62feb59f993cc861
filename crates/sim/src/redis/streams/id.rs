//! Stream entry IDs (`ms-seq`) and their parsing, as `t_stream.c` reads them, and the
//! packing of an entry's fields into one buffer.

use super::super::num::parse_i64;
use super::super::Reply;
use super::INVALID_ID;
use std::fmt;

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

    pub(super) fn reply(self) -> Reply {
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

pub(super) fn push_u64(v: &mut Vec<u8>, n: u64) {
    v.extend_from_slice(super::super::num::decimal(n, &mut [0u8; 20]));
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::str::from_utf8(&self.to_bytes()).expect("digits"))
    }
}

/// Appends fields to one buffer: a 4-byte length before each.
pub(super) fn pack_into(v: &mut Vec<u8>, fields: &[&[u8]]) {
    v.reserve(fields.iter().map(|f| f.len() + 4).sum());
    for f in fields {
        v.extend_from_slice(&(f.len() as u32).to_le_bytes());
        v.extend_from_slice(f);
    }
}

pub(super) fn unpack(mut b: &[u8]) -> impl Iterator<Item = &[u8]> {
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
pub(super) fn string2ull(s: &[u8]) -> Option<u64> {
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
pub(super) fn parse_id(
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

pub(super) fn strict_id(s: &[u8]) -> Result<StreamId, Reply> {
    parse_id(s, 0, true, false).map(|(id, _)| id)
}

/// `streamParseIntervalIDOrReply` then the `(` adjustment: an inclusive bound.
pub(super) fn interval_start(s: &[u8]) -> Result<StreamId, Reply> {
    if s.len() > 1 && s[0] == b'(' {
        let (id, _) = parse_id(&s[1..], 0, true, false)?;
        id.incr()
            .ok_or_else(|| Reply::err("ERR invalid start ID for the interval"))
    } else {
        parse_id(s, 0, false, false).map(|(id, _)| id)
    }
}

pub(super) fn interval_end(s: &[u8]) -> Result<StreamId, Reply> {
    if s.len() > 1 && s[0] == b'(' {
        let (id, _) = parse_id(&s[1..], u64::MAX, true, false)?;
        id.decr()
            .ok_or_else(|| Reply::err("ERR invalid end ID for the interval"))
    } else {
        parse_id(s, u64::MAX, false, false).map(|(id, _)| id)
    }
}

pub(super) fn parse_ll(s: &[u8], msg: &str) -> Result<i64, Reply> {
    parse_i64(s).ok_or_else(|| Reply::err(msg))
}
