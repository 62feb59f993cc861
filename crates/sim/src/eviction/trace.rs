//! The seed's synthetic request traces, parameterised.
//!
//! One generator covers the seed's three traces: (a) Zipf popularity; (b) the same plus a
//! scan — in alternate halves of `period` requests a job reads `keys_per_request` fresh keys
//! (numbered from `keys` upwards, each read once) after every user request; (c) the same
//! Zipf draws with popularity shifted by `amount` keys every `period` requests. Scan and
//! shift may be combined. All three share one sequence of Zipf draws from
//! `mulberry32(seed)`, exactly as the seed builds `A`, `B` and `C` in one loop.

use crate::rng::{Mulberry32, Zipf};

/// The scan of trace (b).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scan {
    /// Scanning is on in odd-numbered blocks of this many user requests (seed: 5000).
    pub period: u32,
    /// Fresh keys read after each user request while scanning (seed: 2).
    pub keys_per_request: u32,
}

/// The popularity shift of trace (c).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shift {
    /// Requests between shifts (seed: 20,000).
    pub period: u32,
    /// Keys the popularity moves by at each shift (seed: 3,000).
    pub amount: u32,
}

/// Which of the seed's traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// (a) Zipf.
    Zipf,
    /// (b) Zipf + scan.
    Scan,
    /// (c) shifting popularity.
    Shift,
}

impl TraceKind {
    /// All three, in the seed's column order.
    pub const ALL: [TraceKind; 3] = [TraceKind::Zipf, TraceKind::Scan, TraceKind::Shift];

    /// Parses `zipf`, `scan` or `shift` (also `a`, `b`, `c`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "zipf" | "a" => Some(TraceKind::Zipf),
            "scan" | "b" => Some(TraceKind::Scan),
            "shift" | "c" => Some(TraceKind::Shift),
            _ => None,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Zipf => "zipf",
            TraceKind::Scan => "scan",
            TraceKind::Shift => "shift",
        }
    }
}

/// Parameters of a synthetic trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// Number of user keys `N`; user keys are `0..N`.
    pub keys: u32,
    /// Zipf exponent.
    pub alpha: f64,
    /// Number of user requests.
    pub requests: u32,
    /// Seed of the Zipf draws.
    pub seed: u32,
    /// Optional scan (trace b).
    pub scan: Option<Scan>,
    /// Optional popularity shift (trace c).
    pub shift: Option<Shift>,
}

impl Default for TraceSpec {
    /// The seed's trace (a): 10,000 keys, alpha 0.9, 60,000 requests, seed 7.
    fn default() -> Self {
        Self {
            keys: 10_000,
            alpha: 0.9,
            requests: 60_000,
            seed: 7,
            scan: None,
            shift: None,
        }
    }
}

/// The seed's scan shape.
pub const SEED_SCAN: Scan = Scan {
    period: 5000,
    keys_per_request: 2,
};

/// The seed's shift shape.
pub const SEED_SHIFT: Shift = Shift {
    period: 20_000,
    amount: 3000,
};

impl TraceSpec {
    /// This spec turned into one of the seed's three traces: (a) no scan, no shift; (b) the
    /// scan only; (c) the shift only. A scan or shift shape already set on `self` is used
    /// for (b) / (c); otherwise the seed's ([`SEED_SCAN`], [`SEED_SHIFT`]).
    pub fn with_kind(&self, kind: TraceKind) -> Self {
        let mut s = self.clone();
        s.scan = (kind == TraceKind::Scan).then(|| self.scan.unwrap_or(SEED_SCAN));
        s.shift = (kind == TraceKind::Shift).then(|| self.shift.unwrap_or(SEED_SHIFT));
        s
    }

    /// Generates the trace.
    pub fn generate(&self) -> Trace {
        let mut v = self.generate_variants(&[(self.scan, self.shift)]);
        v.pop().expect("one variant")
    }

    /// Generates the seed's traces `kinds` (with the seed's scan/shift shapes) from one
    /// shared sequence of Zipf draws, as the seed builds `A`, `B`, `C` in one loop.
    pub fn generate_kinds(&self, kinds: &[TraceKind]) -> Vec<Trace> {
        let variants: Vec<_> = kinds
            .iter()
            .map(|&k| {
                let s = self.with_kind(k);
                (s.scan, s.shift)
            })
            .collect();
        self.generate_variants(&variants)
    }

    /// Generates one trace per `(scan, shift)` variant, all sharing this spec's keys, alpha,
    /// requests and Zipf draws (the Zipf table is built and sampled once).
    pub fn generate_variants(&self, variants: &[(Option<Scan>, Option<Shift>)]) -> Vec<Trace> {
        let zipf = Zipf::new(self.keys, self.alpha);
        let n = u64::from(zipf.keys());
        let mut rng = Mulberry32::new(self.seed);
        let shapes: Vec<(Option<Scan>, Option<Shift>)> = variants
            .iter()
            .map(|(sc, sh)| (sc.filter(|s| s.period > 0), sh.filter(|s| s.period > 0)))
            .collect();
        let mut out: Vec<(Vec<u32>, u32)> = shapes
            .iter()
            .map(|(scan, _)| {
                let extra = scan.map_or(0, |s| {
                    s.keys_per_request as usize * self.requests as usize / 2 + 1
                });
                (
                    Vec::with_capacity(self.requests as usize + extra),
                    zipf.keys(),
                )
            })
            .collect();
        for i in 0..self.requests {
            let drawn = zipf.sample(&mut rng);
            for ((scan, shift), (keys, once)) in shapes.iter().zip(out.iter_mut()) {
                let mut k = drawn;
                if let Some(s) = shift {
                    let moved = u64::from(k) + u64::from(s.amount) * u64::from(i / s.period);
                    k = (moved % n) as u32;
                }
                keys.push(k);
                if let Some(s) = scan {
                    if (i / s.period) % 2 == 1 {
                        for _ in 0..s.keys_per_request {
                            keys.push(*once);
                            *once = once.saturating_add(1);
                        }
                    }
                }
            }
        }
        out.into_iter()
            .map(|(keys, _)| Trace {
                keys,
                user_keys: zipf.keys(),
            })
            .collect()
    }
}

/// A request trace: keys below `user_keys` are user requests, the rest background (scan).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The requested keys, in order.
    pub keys: Vec<u32>,
    /// Keys `0..user_keys` are user keys; only they are scored.
    pub user_keys: u32,
}

impl Trace {
    /// A trace where every key counts as a user key.
    pub fn all_user(keys: Vec<u32>) -> Self {
        Self {
            keys,
            user_keys: u32::MAX,
        }
    }

    /// Number of user requests.
    pub fn user_requests(&self) -> u64 {
        self.keys.iter().filter(|&&k| k < self.user_keys).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_interleaves_fresh_keys_in_odd_blocks() {
        let spec = TraceSpec {
            keys: 10,
            requests: 6,
            scan: Some(Scan {
                period: 2,
                keys_per_request: 2,
            }),
            ..TraceSpec::default()
        };
        let t = spec.generate();
        // requests 2 and 3 are in block 1 (odd): each is followed by two fresh keys ≥ 10.
        assert_eq!(t.keys.len(), 6 + 4);
        assert_eq!(&t.keys[3..5], &[10, 11]);
        assert_eq!(&t.keys[6..8], &[12, 13]);
        assert_eq!(t.user_requests(), 6);
    }

    #[test]
    fn shared_draws_equal_separate_generation() {
        let spec = TraceSpec {
            requests: 3000,
            ..TraceSpec::default()
        };
        let together = spec.generate_kinds(&TraceKind::ALL);
        for (k, t) in TraceKind::ALL.iter().zip(&together) {
            assert_eq!(&spec.with_kind(*k).generate(), t);
        }
    }

    #[test]
    fn shift_moves_popularity() {
        let base = TraceSpec {
            keys: 100,
            requests: 50,
            ..TraceSpec::default()
        };
        let a = base.generate();
        let c = TraceSpec {
            shift: Some(Shift {
                period: 10,
                amount: 30,
            }),
            ..base
        }
        .generate();
        for (i, (&x, &y)) in a.keys.iter().zip(&c.keys).enumerate() {
            assert_eq!(y, (x + 30 * (i as u32 / 10)) % 100);
        }
    }
}
