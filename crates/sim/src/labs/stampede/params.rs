//! The stampede comparison's parameters, declared once ([`crate::params!`]): the seed's hot
//! key at 2,000 requests a second, a 50 ms recompute, TTL 10 s, 60 s, β = 1, seed 2026.

use super::model::{bucket_width, StampedeConfig};

crate::params! {
    /// The stampede comparison's parameters.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct StampedeParams {
        /// Requests per second.
        pub rate: f64 = float(2000, 1.0..=20000.0, "রিকোয়েস্ট/s"),
        /// Recompute time in seconds.
        pub delta: f64 = float(0.05, 0.001..=5.0, "recompute-এর সময় Δ (s)"),
        /// TTL in seconds.
        pub ttl: f64 = float(10, 0.1..=3600.0, "TTL (s)"),
        /// Simulated seconds.
        pub duration: f64 = float(60, 1.0..=600.0, "চলবে (s)"),
        /// XFetch's β.
        pub beta: f64 = float(1, 0.0..=10.0, "XFetch-এর β"),
        /// Generator seed.
        pub seed: u32 = seed(2026),
    }
}

impl Default for StampedeParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl StampedeParams {
    /// The run these parameters describe, with chart buckets of a round width giving at
    /// most 300 buckets ([`bucket_width`]).
    pub fn config(&self) -> StampedeConfig {
        StampedeConfig {
            rate: self.rate,
            delta: self.delta,
            ttl: self.ttl,
            duration: self.duration,
            beta: self.beta,
            seed: self.seed,
            bucket: bucket_width(self.duration),
        }
    }
}
