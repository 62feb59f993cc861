//! TTL jitter's parameters, declared once ([`crate::params!`]): the seed's 100,000 keys with
//! TTL 3600 s, J = 10%, the first expiry, `mulberry32(5)`.

use super::model::{JitterCase, JitterConfig};

crate::params! {
    /// TTL jitter's parameters.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct JitterParams {
        /// Keys written at once.
        pub keys: u32 = int(100000, 1..=1000000, "একসাথে লেখা key"),
        /// Base TTL in seconds.
        pub ttl: f64 = int(3600, 1..=86400, "TTL (s)"),
        /// J, the jitter share.
        pub jitter: f64 = float(0.1, 0.0..=0.9, "TTL-এর ± কত ভাগ এলোমেলো (J)"),
        /// Which expiry.
        pub round: u32 = int(1, 1..=10, "কততম মেয়াদ"),
        /// Generator seed.
        pub seed: u32 = seed(5),
    }
}

impl Default for JitterParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}

impl JitterParams {
    /// The setup shared by all cases.
    pub fn config(&self) -> JitterConfig {
        JitterConfig {
            keys: self.keys,
            ttl: self.ttl,
            seed: self.seed,
        }
    }

    /// The chosen case (J, round).
    pub fn case(&self) -> JitterCase {
        JitterCase {
            jitter: self.jitter,
            round: self.round,
        }
    }
}
