//! The keyspace under every command: lookup with lazy expiry (and the LRU clock or LFU
//! counter a read touches), store and delete, the expiry bookkeeping (the volatile vector and
//! the heap of expiry times), and the signals a change sends (WATCH, replication, memory
//! tracking) — `db.c`'s part of Redis 7.0.

use super::*;

impl SimRedis {
    /// The live entry of `key`, deleting it first if its TTL has passed (lazy expiry), and
    /// marking it accessed (LRU clock or LFU counter). On a replica a logically expired key
    /// reads as missing but stays until the primary's DEL arrives.
    pub(crate) fn lookup(&mut self, key: &[u8]) -> Option<&mut Entry> {
        if !self.volatile.is_empty() && !self.live(key) {
            return None;
        }
        let now = self.mstime();
        let e = self.keys.get_mut(key)?;
        evict::touch(&self.mem, &mut self.rand, now, e);
        Some(e)
    }

    /// Whether `key` is live, expiring it lazily like [`SimRedis::lookup`] but without
    /// marking it accessed (`LOOKUP_NOTOUCH`: EXISTS, TYPE, TTL, OBJECT).
    pub(crate) fn lookup_notouch(&mut self, key: &[u8]) -> bool {
        if self.volatile.is_empty() {
            self.keys.contains_key(key)
        } else {
            self.live(key)
        }
    }

    /// `expireIfNeeded`: whether `key` is stored and not past its TTL; a past one is
    /// deleted (on a primary).
    fn live(&mut self, key: &[u8]) -> bool {
        let expired = match self.keys.get(key) {
            None => return false,
            Some(e) => e.expire >= 0 && self.mstime() > e.expire,
        };
        if expired && !self.repl.is_replica() {
            self.delete(key);
            self.exp.stats.lazy += 1;
            self.expired_deleted(key);
        }
        !expired
    }

    /// Whether `key` is stored and past its TTL (`keyIsExpired`).
    pub(crate) fn is_expired(&self, key: &[u8]) -> bool {
        self.keys
            .get(key)
            .is_some_and(|e| e.expire >= 0 && self.mstime() > e.expire)
    }

    /// Deletes a key (and its TTL); whether it was there. Callers signal the change.
    pub(crate) fn delete(&mut self, key: &[u8]) -> bool {
        match self.keys.remove(key) {
            None => false,
            Some(e) => {
                if e.expire >= 0 {
                    self.unvolatile(e.vpos, e.expire);
                }
                self.mem.forget(&mut self.keys, e.apos, e.mem);
                true
            }
        }
    }

    /// Deletes a key a command removed, signalling it; whether it was there.
    pub(crate) fn delete_signal(&mut self, key: &[u8]) -> bool {
        let had = self.delete(key);
        if had {
            self.modified(key);
        }
        had
    }

    fn unvolatile(&mut self, pos: usize, when: i64) {
        self.exp.forget(when);
        self.volatile.swap_remove(pos);
        self.vexp.swap_remove(pos);
        if let Some(moved) = self.volatile.get(pos) {
            if let Some(e) = self.keys.get_mut(moved.as_slice()) {
                e.vpos = pos;
            }
        }
    }

    /// Adds a key that is not stored; returns its entry.
    pub(crate) fn insert_new(&mut self, key: &[u8], value: Value) -> &mut Entry {
        let lru = self.mem.new_lru(self.mstime());
        let apos = self.mem.index_new(key);
        self.keys.entry(key.to_vec()).or_insert(Entry {
            value,
            expire: -1,
            vpos: 0,
            apos,
            lru,
            enc: StrEnc::Auto,
            mem: 0,
        })
    }

    /// Stores `value` at `key`. `keep_ttl`: keep the key's TTL if it had one (otherwise a
    /// write of a new value clears it, as SET does). Signals the change.
    pub(crate) fn store(&mut self, key: &[u8], value: Value, keep_ttl: bool) {
        if let Some(e) = self.keys.get_mut(key) {
            e.value = value;
            e.enc = StrEnc::Auto;
            if !keep_ttl && e.expire >= 0 {
                let (pos, when) = (e.vpos, e.expire);
                e.expire = -1;
                self.unvolatile(pos, when);
            }
        } else {
            self.insert_new(key, value);
        }
        self.modified(key);
    }

    /// Stores a string value, reusing the old string's buffer when there is one (the SET
    /// fast path). A key found logically expired counts as lazily expired, as the lookup
    /// Redis does first would have deleted it. Signals the change.
    pub(crate) fn store_bytes(&mut self, key: &[u8], v: &[u8], keep_ttl: bool) {
        let now = self.mstime();
        let mut expired_now = false;
        if let Some(e) = self.keys.get_mut(key) {
            match &mut e.value {
                Value::Str(s) => {
                    s.clear();
                    s.extend_from_slice(v);
                }
                other => *other = Value::Str(v.to_vec()),
            }
            e.enc = StrEnc::Auto;
            if e.expire >= 0 && (!keep_ttl || now > e.expire) {
                expired_now = now > e.expire;
                let (pos, when) = (e.vpos, e.expire);
                e.expire = -1;
                self.unvolatile(pos, when);
            }
        } else {
            self.insert_new(key, Value::Str(v.to_vec()));
        }
        if expired_now {
            self.exp.stats.lazy += 1;
            self.expired_in_place(key);
        }
        self.modified(key);
    }

    /// Sets the absolute expiry (unix ms) of an existing key.
    pub(crate) fn set_expire(&mut self, key: &[u8], when: i64) {
        let len = self.volatile.len();
        let Some(e) = self.keys.get_mut(key) else {
            return;
        };
        if e.expire < 0 {
            e.vpos = len;
            self.volatile.push(key.to_vec());
            self.vexp.push(when);
        } else {
            let old = e.expire;
            self.exp.forget(old);
            self.vexp[e.vpos] = when;
        }
        e.expire = when;
        self.exp.remember(when, key, self.volatile.len());
    }

    /// Removes the TTL of an existing key; whether it had one.
    pub(crate) fn remove_expire(&mut self, key: &[u8]) -> bool {
        if let Some(e) = self.keys.get_mut(key) {
            if e.expire >= 0 {
                let (pos, when) = (e.vpos, e.expire);
                e.expire = -1;
                self.unvolatile(pos, when);
                return true;
            }
        }
        false
    }

    /// Removes every key (FLUSHALL), signalling watched keys that existed.
    pub(crate) fn flush(&mut self) {
        self.tx
            .touch_all(&self.keys, self.epoch_ms + self.now as i64);
        self.keys.clear();
        self.volatile.clear();
        self.vexp.clear();
        self.exp.clear();
        self.mem.clear();
        self.repl.flush();
    }

    // ----- change signals -----

    /// `signalModifiedKey` + `server.dirty++`: a command changed `key` (watchers of it are
    /// told; a replica gets the key's new state; memory is re-accounted).
    #[inline]
    pub(crate) fn modified(&mut self, key: &[u8]) {
        if self.tx.watching() {
            self.touch_watched(key);
        }
        self.dirty(key);
    }

    /// `server.dirty++` alone: the change is propagated, but WATCH does not see it (what
    /// Redis does for stream consumer-group bookkeeping).
    #[inline]
    pub(crate) fn dirty(&mut self, key: &[u8]) {
        if self.track {
            self.dirty_keys.push(key.to_vec());
        }
    }

    fn touch_watched(&mut self, key: &[u8]) {
        let exists = self.keys.contains_key(key);
        self.tx.touch(key, exists);
    }

    /// A key deleted by expiry (lazily or by the cycle): watchers are told and the primary
    /// sends the DEL to its replica.
    pub(super) fn expired_deleted(&mut self, key: &[u8]) {
        if self.tx.watching() {
            self.touch_watched(key);
        }
        self.repl.propagate_del(key);
    }

    /// A key found expired by a SET that overwrites it in place: what Redis' lookup would
    /// have done first (deleted it, telling watchers and sending the DEL).
    fn expired_in_place(&mut self, key: &[u8]) {
        if self.tx.watching() {
            self.tx.touch(key, false);
        }
        self.repl.propagate_del(key);
    }

    pub(super) fn update_track(&mut self) {
        self.track = self.repl.enabled() || self.mem.tracking();
    }

    /// Every live key in byte order with its type and remaining TTL in ms (-1: none), for
    /// keyspace views. Does not expire anything.
    pub fn snapshot(&self) -> Vec<(Vec<u8>, &'static str, i64)> {
        let now = self.mstime();
        let mut v: Vec<_> = self
            .keys
            .iter()
            .filter(|(_, e)| e.expire < 0 || now <= e.expire)
            .map(|(k, e)| {
                let ttl = if e.expire < 0 { -1 } else { e.expire - now };
                (k.clone(), e.value.type_name(), ttl)
            })
            .collect();
        v.sort();
        v
    }
}
