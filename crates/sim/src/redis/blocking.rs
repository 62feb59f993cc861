//! Blocked clients (`blocked.c`, `timeout.c` of Redis 7.0): who waits on which keys, in
//! which order they are served, their deadlines, and the one timeout parser every blocking
//! command uses.

use super::ld::{Ld, LdError};
use super::num::parse_i64;
use super::{streams, ClientId, End, Entry, RawReply, RawWoken, Reply, SimRedis, Value, Woken};

#[derive(Clone, Debug)]
pub(crate) enum BlockKind {
    Pop(End),
    Move { dst: Vec<u8>, from: End, to: End },
    Stream(streams::StreamWait),
}

#[derive(Clone, Debug)]
pub(crate) struct Blocked {
    keys: Vec<Vec<u8>>,
    pub(crate) kind: BlockKind,
    /// Absolute unix ms, or 0 for no timeout.
    deadline: i64,
}

/// The unit of a blocking command's timeout argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// BLPOP, BRPOP, BLMOVE, BRPOPLPUSH: seconds, fractions allowed.
    Seconds,
    /// XREAD / XREADGROUP `BLOCK`: whole milliseconds.
    Millis,
}

impl SimRedis {
    /// Moves the clock forward by `ms`, running the active expire cycles and blocked-client
    /// timeouts that fall due on the way, in time order.
    pub fn advance(&mut self, ms: u64) {
        self.advance_to(self.now.saturating_add(ms));
    }

    /// When the next blocked client times out (virtual ms), if any does.
    pub fn next_timeout_ms(&self) -> Option<u64> {
        self.timeouts.first().map(|&(d, _)| self.virtual_ms(d))
    }

    /// Virtual ms of a unix ms (0 for a time before the start).
    pub(crate) fn virtual_ms(&self, unix_ms: i64) -> u64 {
        unix_ms.saturating_sub(self.epoch_ms).max(0) as u64
    }

    /// Times out the first blocked client (it answers nil).
    pub(crate) fn time_out_first(&mut self) {
        let (_, client) = self.timeouts.pop_first().expect("peeked");
        self.unblock(client);
        self.wake(client, RawReply::Tree(Reply::Nil));
    }

    /// Whether `client` is blocked.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.blocked.contains_key(&client)
    }

    /// Replies to blocked clients produced since the last call, in the order they happened.
    pub fn take_woken(&mut self) -> Vec<Woken> {
        std::mem::take(&mut self.woken)
            .into_iter()
            .map(RawWoken::into_woken)
            .collect()
    }

    /// [`SimRedis::take_woken`] with the replies not yet rendered.
    pub fn take_woken_raw(&mut self) -> Vec<RawWoken> {
        std::mem::take(&mut self.woken)
    }

    pub(crate) fn wake(&mut self, client: ClientId, reply: RawReply) {
        self.woken.push(RawWoken {
            client,
            reply,
            at_ms: self.now,
        });
    }

    pub(crate) fn block(
        &mut self,
        client: ClientId,
        keys: Vec<Vec<u8>>,
        kind: BlockKind,
        deadline: i64,
    ) {
        self.unblock(client);
        for k in &keys {
            let q = self.waiting.entry(k.clone()).or_default();
            if !q.contains(&client) {
                q.push_back(client);
            }
        }
        if deadline != 0 {
            self.timeouts.insert((deadline, client));
        }
        self.blocked.insert(
            client,
            Blocked {
                keys,
                kind,
                deadline,
            },
        );
    }

    /// Stops `client` waiting, without a reply (what `CLIENT UNBLOCK` does, less the reply);
    /// whether it was blocked. Its other state (MULTI, WATCH, subscriptions) stays.
    pub fn cancel_block(&mut self, client: ClientId) -> bool {
        self.unblock(client).is_some()
    }

    pub(crate) fn unblock(&mut self, client: ClientId) -> Option<Blocked> {
        let b = self.blocked.remove(&client)?;
        for k in &b.keys {
            if let Some(q) = self.waiting.get_mut(k) {
                q.retain(|&c| c != client);
                if q.is_empty() {
                    self.waiting.remove(k);
                }
            }
        }
        if b.deadline != 0 {
            self.timeouts.remove(&(b.deadline, client));
        }
        Some(b)
    }

    /// Marks a key that received elements, so blocked clients are served after the command.
    pub(crate) fn signal_ready(&mut self, key: &[u8]) {
        if !self.waiting.is_empty() && self.waiting.contains_key(key) {
            self.ready.push_back(key.to_vec());
        }
    }

    /// The clients blocked on `key`, in the order they blocked.
    pub(crate) fn waiters(&self, key: &[u8]) -> Vec<ClientId> {
        self.waiting
            .get(key)
            .map(|q| q.iter().copied().collect())
            .unwrap_or_default()
    }

    /// `handleClientsBlockedOnKeys`: serve clients blocked on keys that got elements, each
    /// key's clients in the order they blocked, until the list runs out.
    pub(crate) fn serve_ready(&mut self) {
        while let Some(key) = self.ready.pop_front() {
            if matches!(
                self.lookup(&key),
                Some(Entry {
                    value: Value::Stream(_),
                    ..
                })
            ) {
                self.serve_stream_waiters(&key);
                continue;
            }
            // Clients blocked on a list, in the order they blocked (stream readers skipped).
            for client in self.waiters(&key) {
                let has = matches!(self.lookup(&key), Some(Entry { value: Value::List(l), .. }) if !l.is_empty());
                if !has {
                    break;
                }
                if matches!(
                    self.blocked.get(&client),
                    Some(Blocked {
                        kind: BlockKind::Stream(_),
                        ..
                    }) | None
                ) {
                    continue;
                }
                let b = self.unblock(client).expect("a waiting client is blocked");
                let reply = match b.kind {
                    BlockKind::Pop(from) => {
                        let v = self.pop_one(&key, from).expect("non-empty list");
                        Reply::Array(vec![Reply::Bulk(key.clone()), Reply::Bulk(v)])
                    }
                    BlockKind::Move { dst, from, to } => self.lmove_generic(&key, &dst, from, to),
                    BlockKind::Stream(_) => unreachable!("skipped above"),
                };
                self.wake(client, RawReply::Tree(reply));
            }
        }
    }

    /// `getTimeoutFromObjectOrReply` of Redis 7.0: the absolute deadline (unix ms), 0 for
    /// none. Seconds are read as a long double and rounded up to the next millisecond
    /// (`BLMOVE … 0.0001` waits 1 ms); milliseconds must be an integer. Redis adds the
    /// clock without an overflow check, and so does this (a deadline in the past times out
    /// at once).
    pub(crate) fn parse_timeout(&self, s: &[u8], unit: Unit) -> Result<i64, Reply> {
        let t = match unit {
            Unit::Seconds => {
                let f = parse_long_double(s)
                    .ok_or_else(|| Reply::err("ERR timeout is not a float or out of range"))?;
                let ms = (f * 1000.0).ceil();
                // C's conversion of an out-of-range long double gives LLONG_MIN on x86-64.
                if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&ms) {
                    i64::MIN
                } else {
                    ms as i64
                }
            }
            Unit::Millis => parse_i64(s)
                .ok_or_else(|| Reply::err("ERR timeout is not an integer or out of range"))?,
        };
        if t < 0 {
            return Err(Reply::err("ERR timeout is negative"));
        }
        Ok(if t > 0 {
            t.wrapping_add(self.mstime())
        } else {
            0
        })
    }
}

/// `getLongDoubleFromObject` (`strtold`, hexadecimal floats included), as an `f64`: a value
/// past the f64 range stands for one past i64 once in ms, a tiny one stays non-zero.
fn parse_long_double(s: &[u8]) -> Option<f64> {
    match Ld::parse(s) {
        Ok(x) => Some(x.to_f64()),
        Err(LdError::Infinite) => Some(if s.first() == Some(&b'-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
        Err(LdError::Invalid) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_like_redis_7_0() {
        let s = SimRedis::new(1);
        let now = s.mstime();
        let secs = |x: &str| s.parse_timeout(x.as_bytes(), Unit::Seconds);
        assert_eq!(secs("0"), Ok(0));
        assert_eq!(secs("0.0001"), Ok(now + 1), "rounded up to 1 ms");
        assert_eq!(secs("0.1"), Ok(now + 100));
        assert_eq!(secs("1.5"), Ok(now + 1500));
        assert_eq!(secs("1e-400"), Ok(now + 1));
        assert_eq!(secs("0x10"), Ok(now + 16_000), "strtold reads hexadecimal");
        assert_eq!(secs("-0.0001"), Ok(0), "rounds up to -0: no timeout");
        for neg in ["-1", "-0.5", "inf", "-inf", "1e300"] {
            assert_eq!(
                secs(neg),
                Err(Reply::err("ERR timeout is negative")),
                "{neg}"
            );
        }
        for bad in ["abc", "nan", " 1", "1 ", "", "1e5000"] {
            assert_eq!(
                secs(bad),
                Err(Reply::err("ERR timeout is not a float or out of range")),
                "{bad}"
            );
        }
        let ms = |x: &str| s.parse_timeout(x.as_bytes(), Unit::Millis);
        assert_eq!(ms("10"), Ok(now + 10));
        assert_eq!(
            ms("1.5"),
            Err(Reply::err("ERR timeout is not an integer or out of range"))
        );
        assert_eq!(ms("-1"), Err(Reply::err("ERR timeout is negative")));
    }
}
