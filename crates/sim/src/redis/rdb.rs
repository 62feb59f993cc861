//! Snapshots (`rdb.c` of Redis 7.0, and of 4.0.9 for the old rule): what an RDB file holds of
//! keys past their TTL but not yet reclaimed, and what loading it keeps.
//!
//! * Saving. Since Redis 4.0.10 (and 5.0) `rdbSaveKeyValuePair` writes every stored key, the
//!   expired-but-not-reclaimed ones too ([`Snapshot::All`]): a snapshot that is the base of a
//!   replica's stream must be exactly the dataset at that moment. Up to 4.0.9 it skipped a
//!   key whose expiry time was already in the past ([`Snapshot::SkipExpired`]).
//! * Loading. `rdbLoad` on a primary drops every key whose expiry time is before now
//!   (`iAmMaster() && expiretime != -1 && expiretime < now`) and counts it
//!   (`rdb_last_load_keys_expired`); a replica loading its primary's snapshot keeps them all
//!   and waits for the primary's `DEL` ([`super::Replicated`]).
//!
//! [`SimRedis::restarted`] is a server started from this one's RDB as a primary (a restart,
//! or a restore from a backup); `DEBUG RELOAD` saves and loads in place, as Redis does.

use super::{SimRedis, Value};

/// What a snapshot holds of keys past their TTL that are still stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snapshot {
    /// Every stored key (Redis ≥ 4.0.10).
    All,
    /// Only keys not past their TTL (Redis ≤ 4.0.9 skipped the others while saving).
    SkipExpired,
}

/// What loading a snapshot did (`rdb_last_load_keys_loaded`, `rdb_last_load_keys_expired`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Keys loaded.
    pub keys: u64,
    /// Keys dropped because their TTL had passed (a primary only).
    pub expired: u64,
}

/// A stored key as a snapshot holds it: name, value, expiry (unix ms, -1: none).
pub(crate) type RdbKey = (Vec<u8>, Value, i64);

impl SimRedis {
    /// The snapshot this server would write now, in key order (so that loading it gives the
    /// same server on every platform).
    pub(crate) fn rdb(&self, what: Snapshot) -> Vec<RdbKey> {
        let now = self.mstime();
        let mut v: Vec<RdbKey> = self
            .keys
            .iter()
            .filter(|(_, e)| what == Snapshot::All || e.expire < 0 || e.expire >= now)
            .map(|(k, e)| (k.clone(), e.value.clone(), e.expire))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// Loads `keys` into this (empty) server as `rdbLoad` does: a primary drops the keys
    /// whose expiry time is before now, a replica keeps them.
    pub(crate) fn load_rdb(&mut self, keys: Vec<RdbKey>) -> Loaded {
        let now = self.mstime();
        let primary = !self.repl.is_replica();
        let mut done = Loaded::default();
        for (k, v, expire) in keys {
            if primary && expire >= 0 && expire < now {
                done.expired += 1;
                continue;
            }
            self.insert_new(&k, v);
            if expire >= 0 {
                self.set_expire(&k, expire);
            }
            done.keys += 1;
        }
        done
    }

    /// A server started from this one's snapshot (`what`) as a primary at this moment: the
    /// keys already past their TTL are dropped while loading. No client, no cached script
    /// (Redis does not persist them); `seed` drives its own active expiry.
    pub fn restarted(&self, seed: u32, what: Snapshot) -> (SimRedis, Loaded) {
        let mut s = SimRedis::with_config(seed, self.exp.cfg);
        s.epoch_ms = self.epoch_ms;
        s.advance_to(self.now);
        let loaded = s.load_rdb(self.rdb(what));
        (s, loaded)
    }

    /// `DEBUG RELOAD`: save a snapshot and load it back in place (a primary drops the keys
    /// past their TTL).
    pub(crate) fn debug_reload(&mut self) -> Loaded {
        let keys = self.rdb(Snapshot::All);
        self.keys.clear();
        self.volatile.clear();
        self.vexp.clear();
        self.exp.clear();
        self.mem.clear();
        self.load_rdb(keys)
    }
}
