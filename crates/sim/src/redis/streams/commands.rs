//! XADD, XLEN, XRANGE, XREVRANGE, XTRIM, XDEL, XGROUP.

use super::*;

impl SimRedis {
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
