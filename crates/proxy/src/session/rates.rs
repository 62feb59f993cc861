//! A session's rates: token buckets for the session, its address (work and refusals) and the
//! whole proxy's frames from busy addresses.

use crate::AppState;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A token bucket: `rate` per second, at most `burst` at once.
pub(crate) struct Bucket {
    tokens: f64,
    last: Instant,
    rate: f64,
    pub(crate) burst: f64,
}

impl Bucket {
    pub(crate) fn new(rate: u32, burst: u32) -> Self {
        Bucket {
            tokens: f64::from(burst),
            last: Instant::now(),
            rate: f64::from(rate),
            burst: f64::from(burst),
        }
    }

    /// Takes `n` tokens if there are that many.
    pub(crate) fn take(&mut self, n: f64) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= n {
            self.tokens -= n;
            true
        } else {
            false
        }
    }
}

impl Bucket {
    /// The tokens now (after refilling).
    fn peek(&mut self) -> f64 {
        self.take(0.0);
        self.tokens
    }

    /// How long until there are `n` tokens.
    fn until(&mut self, n: f64) -> Duration {
        let missing = (n - self.peek()).max(0.0);
        Duration::from_secs_f64(missing / self.rate.max(1e-9)).max(Duration::from_millis(1))
    }

    /// Gives back `n` tokens taken for nothing.
    pub(super) fn refund(&mut self, n: f64) {
        self.tokens = (self.tokens + n).min(self.burst);
    }
}

/// What the sessions from one address pay their frames from together: their work, and the
/// refusals the proxy still answers (past those, their sockets are not read until they may
/// go on: TCP holds the sender back, and the proxy spends nothing on it).
pub(crate) struct AddressBuckets {
    work: Bucket,
    refusals: Bucket,
}

impl AddressBuckets {
    pub(crate) fn new(cfg: &crate::Config) -> Self {
        AddressBuckets {
            work: Bucket::new(cfg.address_rate, cfg.address_burst),
            refusals: Bucket::new(cfg.address_rate, cfg.address_burst),
        }
    }
}

/// Which rate a refused request was over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Over {
    /// The session's own.
    Session,
    /// The one its address' sessions share.
    Address,
    /// The whole proxy's frame budget (a busy address pays from it too).
    Proxy,
}

impl Over {
    /// The refusal's message, naming the rate.
    pub(super) fn message(self) -> &'static str {
        match self {
            Over::Session => "over the per-connection rate limit",
            Over::Address => "over the rate limit of your address (its sessions together)",
            Over::Proxy => "the proxy is busy (over its frame budget); try again soon",
        }
    }
}

/// A session's buckets: its own, and its address'.
pub(super) struct Rates {
    pub(super) own: Bucket,
    pub(super) address: Arc<Mutex<AddressBuckets>>,
    pub(super) state: Arc<AppState>,
}

impl Rates {
    /// Whether the address is busy (it used a tenth of its burst lately): then its frames
    /// also need the whole proxy's frame budget, so busy addresses together cannot take the
    /// proxy away from the light ones, which never wait for it.
    fn busy(a: &mut AddressBuckets) -> bool {
        a.work.peek() < a.work.burst * 0.9
    }

    /// Pays `n` units of work, from the session's bucket, its address' and (a busy address)
    /// the proxy's; else which of them could not pay.
    pub(super) fn work(&mut self, n: f64) -> Result<(), Over> {
        if self.own.peek() < n {
            return Err(Over::Session);
        }
        let mut a = self.address.lock().expect("not poisoned");
        if Self::busy(&mut a) && !self.state.frames.lock().expect("not poisoned").take(n) {
            return Err(Over::Proxy);
        }
        if !a.work.take(n) {
            return Err(Over::Address);
        }
        if self.own.take(n) {
            Ok(())
        } else {
            Err(Over::Session)
        }
    }

    /// Gives back work paid for a request that was refused after all.
    pub(super) fn refund(&mut self, n: f64) {
        self.own.refund(n);
        self.address.lock().expect("not poisoned").work.refund(n);
    }

    /// Pays for answering a refusal (from the address' refusals, and the proxy's frame
    /// budget when the address is busy).
    pub(super) fn refuse(&mut self, n: f64) -> bool {
        let mut a = self.address.lock().expect("not poisoned");
        if Self::busy(&mut a) && !self.state.frames.lock().expect("not poisoned").take(n) {
            return false;
        }
        a.refusals.take(n)
    }

    /// Whether a frame may be read now; else how long until one may.
    pub(super) fn ready(&mut self) -> Result<(), Duration> {
        let own = self.own.peek();
        let mut a = self.address.lock().expect("not poisoned");
        if Self::busy(&mut a) {
            let mut g = self.state.frames.lock().expect("not poisoned");
            if g.peek() < 1.0 {
                return Err(g.until(1.0));
            }
        }
        if a.refusals.peek() >= 1.0 || (own >= 1.0 && a.work.peek() >= 1.0) {
            Ok(())
        } else {
            Err(a.refusals.until(1.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_limits_bursts() {
        let mut b = Bucket::new(1, 3);
        assert_eq!((0..5).filter(|_| b.take(1.0)).count(), 3);
        // A request that weighs more takes more: 3 tokens cannot pay for 4.
        let mut b = Bucket::new(1, 3);
        assert!(!b.take(4.0));
        assert!(b.take(3.0));
    }
}
