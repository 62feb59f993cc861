//! XACK, XPENDING, XCLAIM, XAUTOCLAIM: the consumer groups' pending entries.

use super::*;

impl SimRedis {
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
}
