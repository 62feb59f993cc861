//! XREAD and XREADGROUP, blocking in virtual time, and serving the clients blocked on a
//! stream when entries arrive.

use super::*;

impl SimRedis {
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
