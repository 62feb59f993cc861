//! The sampled-LRU experiment's parameters, declared once ([`crate::params!`]): the seed's
//! 1,000 keys, k up to 16, 2,000 evictions per k.

crate::params! {
    /// The sampled-LRU experiment's parameters.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct SamplingParams {
        /// Resident keys.
        pub keys: u32 = int(1000, 10..=100000, "ক্যাশে key"),
        /// Largest k (samples per eviction); the run measures k = 1..=kmax.
        pub kmax: u32 = int(16, 1..=32, "সর্বোচ্চ k"),
        /// Evictions measured per k.
        pub trials: u32 = int(2000, 10..=20000, "প্রতি k-তে eviction"),
        /// Generator seed.
        pub seed: u32 = seed(1),
    }
}

impl Default for SamplingParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}
