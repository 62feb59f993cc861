//! Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH — following `multi.c` of Redis 7.0.
//!
//! Inside MULTI a command is checked (name, arity, `OOM`, `READONLY`) and queued; a failed
//! check answers its error and marks the transaction, so EXEC answers `EXECABORT`. Errors
//! of the queued commands themselves come back inside EXEC's array, and the commands before
//! and after them still run (no rollback). A watched key that a command changes, that
//! expires or is evicted (deleted, or past its TTL at EXEC), or that FLUSHALL removes makes
//! EXEC answer nil — including Redis 7.0's exceptions for a key that was already expired
//! when it was watched.

use super::commands::resp_len;
use super::{ClientId, Entry, Fixed, Reply, SimRedis};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug, Default)]
struct Client {
    multi: bool,
    /// A watched key was touched (`CLIENT_DIRTY_CAS`).
    dirty_cas: bool,
    /// A command failed to queue (`CLIENT_DIRTY_EXEC`).
    dirty_exec: bool,
    queue: Vec<Vec<Vec<u8>>>,
    flags: u8,
    /// Watched keys, each with whether it was already expired when watched.
    watched: Vec<(Vec<u8>, bool)>,
}

/// Every client's transaction state and who watches which key.
#[derive(Clone, Debug, Default)]
pub(crate) struct Transactions {
    clients: BTreeMap<ClientId, Client>,
    watchers: HashMap<Vec<u8>, Vec<ClientId>, Fixed>,
}

impl Transactions {
    /// Whether any client is in MULTI or watches a key.
    pub(crate) fn active(&self) -> bool {
        !self.clients.is_empty()
    }

    pub(crate) fn watching(&self) -> bool {
        !self.watchers.is_empty()
    }

    pub(crate) fn in_multi(&self, c: ClientId) -> bool {
        self.clients.get(&c).is_some_and(|s| s.multi)
    }

    /// `flagTransaction`: a command failed to queue.
    pub(crate) fn flag(&mut self, c: ClientId) {
        if let Some(s) = self.clients.get_mut(&c) {
            if s.multi {
                s.dirty_exec = true;
            }
        }
    }

    /// The flags of the queued commands, OR-ed.
    pub(crate) fn queued_flags(&self, c: ClientId) -> u8 {
        self.clients.get(&c).map_or(0, |s| s.flags)
    }

    pub(crate) fn queue(&mut self, c: ClientId, a: &[&[u8]], flags: u8) {
        let s = self.clients.entry(c).or_default();
        if s.dirty_cas || s.dirty_exec {
            return;
        }
        s.queue.push(a.iter().map(|x| x.to_vec()).collect());
        s.flags |= flags;
    }

    fn unwatch_all(&mut self, c: ClientId) {
        let Some(s) = self.clients.get_mut(&c) else {
            return;
        };
        for (k, _) in std::mem::take(&mut s.watched) {
            if let Some(list) = self.watchers.get_mut(&k) {
                list.retain(|&x| x != c);
                if list.is_empty() {
                    self.watchers.remove(&k);
                }
            }
        }
    }

    /// `touchWatchedKey`: `key` was changed; `exists` is whether it is stored now.
    pub(crate) fn touch(&mut self, key: &[u8], exists: bool) {
        let Some(list) = self.watchers.get(key) else {
            return;
        };
        for c in list.clone() {
            let s = self.clients.get_mut(&c).expect("a watcher has a state");
            if let Some(w) = s.watched.iter_mut().find(|(k, _)| k == key) {
                if w.1 {
                    if !exists {
                        // An already-expired key deleted: logically no change.
                        w.1 = false;
                        continue;
                    }
                    break; // as Redis 7.0 does
                }
            }
            s.dirty_cas = true;
            self.unwatch_all(c);
        }
    }

    /// `touchAllWatchedKeysInDb` for FLUSHALL: every watched key that exists is touched.
    pub(crate) fn touch_all(&mut self, keys: &HashMap<Vec<u8>, Entry, Fixed>, _now: i64) {
        let watched: Vec<(Vec<u8>, Vec<ClientId>)> = self
            .watchers
            .iter()
            .filter(|(k, _)| keys.contains_key(k.as_slice()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, list) in watched {
            for c in list {
                let s = self.clients.get_mut(&c).expect("a watcher has a state");
                if let Some(w) = s.watched.iter_mut().find(|(x, _)| *x == k) {
                    if w.1 {
                        w.1 = false;
                        continue;
                    }
                }
                s.dirty_cas = true;
            }
        }
    }

    fn discard(&mut self, c: ClientId) {
        self.unwatch_all(c);
        self.clients.remove(&c);
    }
}

impl SimRedis {
    pub(crate) fn multi(&mut self, _a: &[&[u8]], c: ClientId) -> Reply {
        let s = self.tx.clients.entry(c).or_default();
        if s.multi {
            return Reply::err("ERR MULTI calls can not be nested");
        }
        s.multi = true;
        Reply::ok()
    }

    pub(crate) fn discard(&mut self, _a: &[&[u8]], c: ClientId) -> Reply {
        if !self.tx.in_multi(c) {
            return Reply::err("ERR DISCARD without MULTI");
        }
        self.tx.discard(c);
        Reply::ok()
    }

    pub(crate) fn watch(&mut self, a: &[&[u8]], c: ClientId) -> Reply {
        if self.tx.in_multi(c) {
            return Reply::err("ERR WATCH inside MULTI is not allowed");
        }
        if self.tx.clients.get(&c).is_some_and(|s| s.dirty_cas) {
            return Reply::ok();
        }
        for k in &a[1..] {
            let expired = self.is_expired(k);
            let s = self.tx.clients.entry(c).or_default();
            if s.watched.iter().any(|(x, _)| x == k) {
                continue;
            }
            s.watched.push((k.to_vec(), expired));
            self.tx.watchers.entry(k.to_vec()).or_default().push(c);
        }
        Reply::ok()
    }

    pub(crate) fn unwatch(&mut self, _a: &[&[u8]], c: ClientId) -> Reply {
        self.tx.unwatch_all(c);
        if let Some(s) = self.tx.clients.get_mut(&c) {
            s.dirty_cas = false;
            if !s.multi {
                self.tx.clients.remove(&c);
            }
        }
        Reply::ok()
    }

    pub(crate) fn exec(&mut self, _a: &[&[u8]], c: ClientId) -> Reply {
        if !self.tx.in_multi(c) {
            return Reply::err("ERR EXEC without MULTI");
        }
        let s = &self.tx.clients[&c];
        let expired = s.watched.iter().any(|(k, was)| !was && self.is_expired(k));
        let s = self.tx.clients.get_mut(&c).expect("in MULTI");
        s.dirty_cas |= expired;
        if s.dirty_exec || s.dirty_cas {
            let abort = s.dirty_exec;
            self.tx.discard(c);
            return if abort {
                Reply::err("EXECABORT Transaction discarded because of previous errors.")
            } else {
                Reply::Nil
            };
        }
        self.tx.unwatch_all(c);
        let queue = std::mem::take(&mut self.tx.clients.get_mut(&c).expect("in MULTI").queue);
        self.tx.discard(c);
        let mut bytes = 15 + 14; // MULTI … EXEC around what is propagated
        let mut out = Vec::with_capacity(queue.len());
        for cmd in &queue {
            let words: Vec<&[u8]> = cmd.iter().map(Vec::as_slice).collect();
            bytes += resp_len(&words);
            out.push(self.call_nested(&words));
        }
        self.repl.set_extra_bytes(bytes);
        Reply::Array(out)
    }

    /// A client went away: its transaction and watches go with it.
    pub(crate) fn discard_client(&mut self, c: ClientId) {
        self.tx.discard(c);
    }
}
